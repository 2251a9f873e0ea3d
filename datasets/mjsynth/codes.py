"""Tile codes and class indices, taken from the detector's own list so they never drift."""

from __future__ import annotations

import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
if str(REPO_ROOT) not in sys.path:  # scripts run from datasets/ still see the repo packages
    sys.path.insert(0, str(REPO_ROOT))

from vision.detections import (  # noqa: E402
    BACK,
    CLASS_NAMES,
    KONG_CONCEALED,
    MELD_EXPOSED,
    TILE_CODES,
)

CLASS_INDEX = {name: i for i, name in enumerate(CLASS_NAMES)}
SUITED = tuple(c for c in TILE_CODES if c[1] in "mps")
HONOURS = tuple(f"{n}z" for n in range(1, 8))
FLOWERS = tuple(f"{n}f" for n in range(1, 9))
PLAYABLE = SUITED + HONOURS  # the 34 kinds that form hands

__all__ = [
    "BACK", "CLASS_INDEX", "CLASS_NAMES", "FLOWERS", "HONOURS", "KONG_CONCEALED",
    "MELD_EXPOSED", "PLAYABLE", "REPO_ROOT", "SUITED", "TILE_CODES",
]
