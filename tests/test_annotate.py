"""The annotated image: boxes in their roles' colours, fan numbers, the side panel."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from tests.synthetic_boxes import RowSpec, row_detections
from vision.annotate import COLOURS, LabelPlacer, _font, annotate, photo_labels
from vision.annotate import _overlap as overlap_area
from vision.detections import Detection
from vision.pipeline import read_detections


def _result():
    concealed = ["1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "5z"]
    probs = {7: (("8p", 0.6), ("8s", 0.4))}  # read as 8p first; 8s makes the hand
    tiles = row_detections(RowSpec(concealed + ["5z"], gaps_after={9: 20}, probs=probs))
    tiles += row_detections(RowSpec(["7z", "7z", "7z"], origin=(150, 380), sideways={1}))
    return read_detections(tiles, rules="mcr")


def test_boxes_are_drawn_in_their_roles_colours_beside_a_panel():
    result = _result()
    photo = np.full((600, 800, 3), 90, np.uint8)
    image = np.asarray(annotate(photo, result))
    assert image.shape[0] >= 600 and image.shape[1] > 800  # the panel sits to the right

    def edge_colour(index: int) -> tuple[int, int, int]:
        x1, y1, x2, y2 = (round(v) for v in result.tiles[index].box)
        return tuple(int(c) for c in image[(y1 + y2) // 2, x1])  # middle of the left edge

    winning = next(i for i, t in enumerate(result.tiles) if t.role == "winning")
    uncertain = next(i for i, t in enumerate(result.tiles) if t.uncertain)
    concealed = next(i for i, t in enumerate(result.tiles) if t.role == "concealed" and not t.uncertain)
    assert edge_colour(winning) == COLOURS["winning"]
    assert edge_colour(uncertain) == COLOURS["uncertain"]
    assert edge_colour(concealed) == COLOURS["concealed"]
    panel = image[:, 800:]
    assert (panel > 200).any()  # the fan list is written there


def _dense_result(winning_probs=(("5z", 1.0),)):
    """Flowers, concealed row and winning tile in one tight row along the photo's top edge, its
    winning tile cut by the right edge, and a concealed kong (two tiles face down) just below."""
    row = ["1f", "2f", "3f", "1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "5z", "5z"]
    tiles = row_detections(RowSpec(row, origin=(226, 4), gaps_after={2: 6, 12: 12}, probs={13: winning_probs}))
    tiles += row_detections(RowSpec(["back", "6s", "6s", "back"], origin=(300, 64)))
    return read_detections(tiles, rules="mcr", kong_codes=["6s"])


def _overlap(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


@pytest.mark.parametrize("size", [12, 20])
def test_labels_of_a_dense_row_and_a_kong_never_overlap_and_stay_in_the_photo(size):
    result = _dense_result()
    assert result.score["ok"] and result.fan_tiles
    labels = photo_labels(result, (800, 600), _font(size, False), meld_pad=6)
    for a, b in itertools.combinations(labels, 2):
        assert not _overlap(a.rect, b.rect), f"{a.text!r} {a.rect} covers {b.text!r} {b.rect}"
    for label in labels:
        x1, y1, x2, y2 = label.rect
        assert 0 <= x1 and x2 <= 800 and 0 <= y1 and y2 <= 600, f"{label.text!r} {label.rect} leaves the photo"
    words = [label.text.replace(",", " ").split() for label in labels]
    assert all(any(tile.code in w for w in words) for tile in result.tiles), "every tile's code is written"
    assert [label.text for label in labels if "6s" in label.text] == ["concealed kong: 6s x4, 2 down"]
    assert any(label.text == "WIN 5z" for label in labels)
    assert sum(label.text == "1,2" for label in labels) == 1, "the row's tiles share one fan label"


def test_an_uncertain_winning_tile_stays_gold_with_a_red_line_inside():
    result = _dense_result(winning_probs=(("5z", 0.55), ("6z", 0.45)))
    winning = next(t for t in result.tiles if t.role == "winning")
    assert winning.uncertain
    image = np.asarray(annotate(np.full((600, 800, 3), 90, np.uint8), result))
    x1, y1, x2, y2 = (round(v) for v in winning.box)
    left_edge = [tuple(int(c) for c in image[(y1 + y2) // 2, x]) for x in range(x1, x1 + 8)]
    assert left_edge[0] == COLOURS["winning"] and COLOURS["uncertain"] in left_edge


def test_a_label_goes_inside_its_box_rather_than_on_a_neighbour_of_a_grid():
    w, h = 40, 56
    grid = [(x, y, x + w, y + h) for y in range(100, 100 + 4 * (h - 2), h - 2) for x in range(100, 100 + 6 * w, w)]
    placer = LabelPlacer((800, 600), grid)
    spots = [placer.place(box, 34, 14, own=[box]) for box in grid]
    for a, b in itertools.combinations(spots, 2):
        assert not _overlap(a, b)
    for box, spot in zip(grid[6:18], spots[6:18]):  # the middle rows: tiles above and below
        assert box[0] <= spot[0] and spot[2] <= box[2] and box[1] <= spot[1] and spot[3] <= box[3]
    assert all(spot[3] <= box[1] for box, spot in zip(grid[:6], spots[:6])), "above the first row"
    assert all(spot[1] >= box[3] for box, spot in zip(grid[18:], spots[18:])), "below the last row"


def test_the_placer_finds_the_spots_a_search_of_every_box_and_label_finds():
    # The placer asks only the buckets near a label; it must miss nothing a full search would see.
    rng = np.random.default_rng(7)
    boxes = []
    for x, y in rng.uniform(0, 1200, size=(300, 2)):
        w, h = rng.uniform(20, 60, size=2)
        boxes.append((float(x), float(y), float(x + w), float(y + h)))
    boxes.append((0.0, 0.0, 1300.0, 40.0))  # one box far larger than the rest
    placer = LabelPlacer((1300, 1300), boxes)
    placed = []
    for box in boxes:
        spot = placer.place(box, 30, 12, own=[box])
        spots = list(placer._spots(box, 30, 12, ("above", "below")))
        others = [(b[0] + 3, b[1] + 3, b[2] - 3, b[3] - 3) for b in boxes if b != box]
        costs = [(sum(overlap_area(s, r) for r in placed), sum(overlap_area(s, b) for b in others)) for s in spots]
        best = min(costs)
        assert costs[spots.index(spot)] == pytest.approx(best)
        placed.append(spot)


def test_an_uncertain_winning_tile_cut_to_a_sliver_by_the_edge_is_drawn():
    row = row_detections(RowSpec(["1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "5z", "5z", "7z", "7z"]))
    right = max(t.box[2] for t in row)
    sliver = Detection((right + 20, 300, right + 23, 356), "7z", 0.4, (("5z", 0.6), ("7z", 0.4)))
    result = read_detections(row + [sliver], rules="mcr")
    assert any(t.uncertain and t.role == "winning" for t in result.tiles)
    image = np.asarray(annotate(np.zeros((800, 1000, 3), np.uint8), result))
    assert image.shape[0] >= 800


def test_a_photo_of_small_tiles_is_drawn_enlarged_with_its_boxes_on_its_tiles():
    concealed = ["1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "5z", "5z", "7z", "7z"]
    tiles = row_detections(RowSpec(concealed + ["7z"], origin=(20, 100), tile_w=16, tile_h=22, gaps_after={12: 8}))
    result = read_detections(tiles, rules="mcr")
    photo = np.full((300, 400, 3), 90, np.uint8)
    image = np.asarray(annotate(photo, result))
    zoom = 40 / 16  # the tiles drawn LEGIBLE_TILE_PX across
    assert image.shape[0] == 750 and image.shape[1] > 1000
    winning = next(t for t in result.tiles if t.role == "winning")
    x1, y1, x2, y2 = (round(v * zoom) for v in winning.box)
    assert tuple(int(c) for c in image[(y1 + y2) // 2, x1]) == COLOURS["winning"]
    assert result.tiles[0].box == tiles[0].box  # the result itself keeps the photo's pixels
    # A photo this large is not drawn larger than ENLARGED_SIDE, nor by a few percent.
    assert np.asarray(annotate(np.full((1200, 1600, 3), 90, np.uint8), result)).shape[0] == 1500
    assert np.asarray(annotate(np.full((1200, 1800, 3), 90, np.uint8), result)).shape[0] == 1200


def test_a_fan_label_of_a_run_laid_up_the_photo_goes_beside_it_not_over_its_tiles():
    """A hand read turned a quarter: below its middle tile lies its next tile."""
    from dataclasses import replace

    result = read_detections(row_detections(RowSpec(
        ["1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "5z", "5z", "7z", "7z", "7z"],
        origin=(100, 100), gaps_after={12: 20})), rules="mcr")
    assert result.score["ok"] and result.fan_tiles
    result.tiles = [replace(t, box=(t.box[1], t.box[0], t.box[3], t.box[2])) for t in result.tiles]  # x <-> y
    labels = photo_labels(result, (600, 1000), _font(14, False))
    fans = [label for label in labels if label.text.replace(",", "").isdigit()]
    assert fans
    for label in fans:
        for tile in result.tiles:
            x1, y1, x2, y2 = tile.box
            assert not _overlap(label.rect, (x1 + 2, y1 + 2, x2 - 2, y2 - 2)), f"{label.text!r} covers {tile.code}"
