"""The real-photo benchmark's labels and its tile-by-tile scoring (no model needed)."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

from bench_real_photos import ANY, LABELS, PHOTOS, Tally, align, score_photo, split_rows  # noqa: E402
from bench_detector import Box  # noqa: E402
from vision.detections import TILE_CODES  # noqa: E402


def test_every_label_is_one_of_our_codes_and_every_photo_is_a_grid_of_rows():
    photos = json.loads(LABELS.read_text())["photos"]
    assert len(photos) == 16
    codes = [code for rows in photos.values() for row in rows for code in row.split()]
    assert set(codes) <= set(TILE_CODES) | {ANY} and len(codes) == 1194
    whole_sets = [name for name, rows in photos.items() if sum(len(r.split()) for r in rows) == 144]
    assert len(whole_sets) == 7
    for name in whole_sets:  # a whole set: four of each of the 34 playing tiles
        tiles = [code for row in photos[name] for code in row.split()]
        playing = [c for c in tiles if not c.endswith("f") and c != ANY]
        assert all(playing.count(c) == 4 for c in set(playing)) and len(set(playing)) == 34, name


@pytest.mark.skipif(not PHOTOS.is_dir(), reason="needs ../shared/data/table-photos")
def test_every_labelled_photo_is_in_the_shared_folder():
    assert all((PHOTOS / name).is_file() for name in json.loads(LABELS.read_text())["photos"])


def test_a_wrong_a_missed_and_an_extra_tile_are_each_one_error():
    label = "1m 2m 3m 4m 5m".split()
    assert align(label, label) == Tally(tiles=5, right=5)
    assert align("1m 2m 9m 4m 5m".split(), label) == Tally(tiles=5, right=4, wrong=1)
    assert align("1m 2m 4m 5m".split(), label) == Tally(tiles=5, right=4, missed=1)
    assert align("1m 2m 3m back 4m 5m".split(), label) == Tally(tiles=5, right=5, extra=1)
    assert align([], label) == Tally(tiles=5, missed=5)
    assert align(["1m"], []) == Tally(tiles=0, extra=1) and math.isnan(Tally().error_rate)


def test_a_tile_of_no_code_and_a_code_the_detector_does_not_know_count_neither_way():
    assert align("1m 5s".split(), ["1m", ANY]) == Tally(tiles=1, right=1)
    assert align(["1m"], ["1m", ANY]) == Tally(tiles=1, right=1)
    only_suits = lambda code: not code.endswith("f")  # noqa: E731
    assert align("1m 2m 3s".split(), "1m 2m 3f".split(), only_suits) == Tally(tiles=2, right=2)


def test_boxes_split_into_rows_at_the_widest_gaps_and_read_left_to_right():
    def box(code, x, y):
        return Box(code, (x, y, x + 40, y + 56))

    # two rows, the second a little askew, the boxes given out of order
    boxes = [box("2m", 50, 100), box("1p", 8, 170), box("1m", 5, 102), box("2p", 50, 176), box("3p", 95, 182)]
    rows = split_rows(boxes, 2)
    assert [[b.code for b in row] for row in rows] == [["1m", "2m"], ["1p", "2p", "3p"]]
    assert split_rows(boxes[:1], 3)[1:] == [[], []]
    tally = score_photo(boxes + [Box("meld", (0, 90, 100, 160))], ["1m 2m", "1p 2p 3p"])
    assert tally == Tally(tiles=5, right=5)
