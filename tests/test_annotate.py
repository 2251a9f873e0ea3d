"""The annotated image: boxes in their roles' colours, fan numbers, the side panel."""

from __future__ import annotations

import numpy as np

from tests.synthetic_boxes import RowSpec, row_detections
from vision.annotate import COLOURS, annotate, label_top
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


def test_every_fan_is_traced_to_tiles():
    result = _result()
    assert result.score["ok"] and result.fan_tiles
    assert all(result.fan_tiles), "each fan points at the boxes behind it"


def test_a_label_goes_inside_its_box_when_above_it_lies_another_tile():
    upper, lower, lone = (100, 0, 140, 56), (100, 57, 140, 113), (300, 57, 340, 113)
    others = [upper, lone]
    assert label_top(lower[:2], 30, 14, others) == 57  # above it would cover the upper tile
    assert label_top(lone[:2], 30, 14, [upper, lower]) == 57 - 14  # nothing above: above
    assert label_top(upper[:2], 30, 14, [lower, lone]) == 0  # at the photo's top edge: inside
