"""The detector benchmark's scoring helpers (no model needed)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

from bench_detector import Box, beside, box_ap, mean_ap  # noqa: E402

TILES = frozenset({"1m", "2m", "5z"})


def test_box_ap_counts_boxes_whatever_their_code_and_mean_ap_does_not():
    truth = [[Box("1m", (0, 0, 10, 14)), Box("2m", (12, 0, 22, 14)), Box("meld", (0, 0, 22, 14))]]
    # Both tiles boxed, both codes wrong; a meld box is no tile box.
    found = [[Box("2m", (0, 0, 10, 14), 0.9), Box("5z", (12, 0, 22, 14), 0.8), Box("meld", (0, 0, 22, 14), 0.7)]]
    assert box_ap(found, truth) == pytest.approx(1.0)
    assert mean_ap(TILES, found, truth)[0] == pytest.approx(0.0)
    # One tile missed: half the tiles found, at full precision.
    assert box_ap([found[0][:1]], truth) == pytest.approx(0.5)
    # A box on no tile costs precision.
    assert box_ap([found[0] + [Box("1m", (40, 0, 50, 14), 0.95)]], truth) < 1.0


def test_a_files_labels_are_found_whatever_the_folders_above_the_set_are_named():
    image = Path("/data/images/d2/images/val/0001.jpg")  # a set kept under a folder named images
    assert beside(image, "labels", ".txt") == Path("/data/images/d2/labels/val/0001.txt")
    assert beside(image, "meta", ".json") == Path("/data/images/d2/meta/val/0001.json")
