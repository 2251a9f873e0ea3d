"""`mjlens synth`: the synthetic scene generator, which lives in the source checkout's
datasets/ folder (training-time tooling the wheel does not install)."""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path

from scoring.cli import fail

HELP = "render a synthetic YOLO dataset of mahjong tiles (source checkout only)"
PROG = "mjlens synth"
_DATASETS = Path(__file__).resolve().parents[1] / "datasets"


def _generator():
    """The generator's CLI module, or None outside a source checkout."""
    if not (_DATASETS / "mjsynth" / "cli.py").is_file():
        return None
    if str(_DATASETS) not in sys.path:
        sys.path.append(str(_DATASETS))
    return importlib.import_module("mjsynth.cli")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    generator = _generator()
    if generator is None:  # only called when `synth` was chosen: stop before parsing
        raise SystemExit(fail(PROG, "synth_unavailable", "the scene generator is in the repository's "
                              "datasets/ folder; run `mjlens synth` from a source checkout"))
    generator.add_arguments(parser)


def run(args: argparse.Namespace) -> int:
    return _generator().run(args)
