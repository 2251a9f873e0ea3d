"""The photo benchmark's switches (no model needed)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
pytest.importorskip("cairosvg", reason="the benchmark imports the scene generator (pip install -e '.[test]')")

from bench_photo import EXTRA_READINGS, pared  # noqa: E402

from vision.detections import Detection, DetectionSet  # noqa: E402


def test_without_leaves_out_only_the_readings_named():
    def reading():
        return None

    found = DetectionSet((Detection((0, 0, 10, 14), "1m", 0.9),), other_size=reading, in_balanced_light=reading,
                         unshaken=reading, sharpened=reading)
    pared_set = pared(found, frozenset({"other-size", "sharpened", "level"}))
    assert pared_set.other_size is None and pared_set.sharpened is None
    assert pared_set.in_balanced_light is reading and pared_set.unshaken is reading
    assert pared_set.kept == found.kept
    assert pared(found, frozenset()) == found and pared(found, frozenset()).other_size is reading
    assert set(EXTRA_READINGS) == {"other-size", "balanced", "unshaken", "sharpened", "level"}
