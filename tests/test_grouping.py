"""Grouping from synthetic boxes: rows, gaps, sideways tiles, kongs, flowers, views."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tests.synthetic_boxes import RowSpec, codes_of, group_box, row_detections, turned
from vision.detections import Detection
from vision import grouping
from vision.grouping import group_tiles, row_tilt
from vision.pipeline import read_detections
from vision.photo_errors import PhotoError

CONCEALED_11 = ["1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "5z", "5z"]


def _meld_codes(layout):
    return [(codes_of(layout.tiles, m.tiles), m.concealed) for m in layout.melds]


def test_flat_hand_with_winning_tile_set_apart_and_pung_in_front():
    concealed = row_detections(RowSpec(CONCEALED_11 + ["5z"], gaps_after={10: 20}))
    pung = row_detections(RowSpec(["7z", "7z", "7z"], origin=(150, 380), sideways={2}))
    layout = group_tiles(concealed + pung)
    assert codes_of(layout.tiles, layout.concealed) == CONCEALED_11
    assert layout.tiles[layout.winning].code == "5z"
    assert _meld_codes(layout) == [(["7z", "7z", "7z"], False)]
    claimed = layout.melds[0].claimed
    assert claimed is not None and layout.tiles[claimed].width > layout.tiles[claimed].height
    assert not layout.reversed_view and not layout.unassigned and not layout.warnings


def test_boxes_far_larger_than_the_tiles_are_kept_out_with_a_warning():
    concealed = row_detections(RowSpec(CONCEALED_11 + ["5z"], gaps_after={10: 20}))
    right_end = max(d.box[2] for d in concealed)
    phone = Detection((right_end + 10, 0, right_end + 200, 120), "back", 0.9)  # clutter read as a tile back
    layout = group_tiles(concealed + [phone])
    assert codes_of(layout.tiles, layout.concealed) == CONCEALED_11
    assert layout.tiles[layout.winning].code == "5z"
    assert [layout.tiles[i].code for i in layout.unassigned] == ["back"]
    assert any("far larger than the other tiles, or empty," in w for w in layout.warnings)


@pytest.mark.parametrize("height", [0.0, 0.5])
def test_empty_boxes_are_kept_out_with_a_warning(height):
    # A box less than a pixel high holds nothing to read, and no shape to lay in a row.
    concealed = row_detections(RowSpec(CONCEALED_11 + ["5z"], gaps_after={10: 20}))
    right_end = max(d.box[2] for d in concealed)
    empty = Detection((right_end + 2, 300, right_end + 42, 300 + height), "back", 0.3)
    layout = group_tiles(concealed + [empty])
    assert codes_of(layout.tiles, layout.concealed) == CONCEALED_11
    assert layout.tiles[layout.winning].code == "5z"
    assert [layout.tiles[i].code for i in layout.unassigned] == ["back"]
    assert any("far larger than the other tiles, or empty," in w for w in layout.warnings)


def test_a_sliver_of_a_tile_at_the_photos_edge_stays_a_tile():
    # The winning tile, cut by the photo's edge to 3 pixels of its width, still ends the hand.
    concealed = row_detections(RowSpec(CONCEALED_11, gaps_after={}))
    right_end = max(d.box[2] for d in concealed)
    sliver = Detection((right_end + 20, 300, right_end + 23, 356), "5z", 0.4)
    layout = group_tiles(concealed + [sliver])
    assert codes_of(layout.tiles, layout.concealed) == CONCEALED_11
    assert layout.tiles[layout.winning].code == "5z" and not layout.unassigned


def test_only_empty_boxes_are_no_tiles():
    with pytest.raises(PhotoError) as caught:
        group_tiles([Detection((10, 10, 10, 60), "1m", 0.9), Detection((30, 10, 30.5, 60), "2m", 0.9)])
    assert caught.value.code == "no_tiles"


def test_a_meld_box_over_tiles_touching_the_rest_of_the_row_is_ignored():
    concealed = row_detections(RowSpec(CONCEALED_11 + ["5z"], gaps_after={10: 20}))
    wrong = group_box(concealed[3:6], "meld")  # the detector's box on three concealed tiles
    layout = group_tiles(concealed + [wrong])
    assert codes_of(layout.tiles, layout.concealed) == CONCEALED_11 and not layout.melds
    assert layout.tiles[layout.winning].code == "5z"
    assert any("meld box holds no run" in w for w in layout.warnings)


def test_grouping_boxes_split_touching_melds():
    concealed = row_detections(RowSpec(CONCEALED_11[:5] + ["5p"], gaps_after={4: 20}))
    # Two melds laid edge to edge: only the detector's boxes tell them apart.
    melds = row_detections(RowSpec(["1s", "2s", "3s", "4m", "4m", "4m"], origin=(120, 380)))
    kong = row_detections(RowSpec(["back", "8p", "8p", "back"], origin=(420, 380)))
    boxes = [
        group_box(melds[:3], "meld"),
        group_box(melds[3:], "meld"),
        group_box(kong, "kong_concealed"),
    ]
    layout = group_tiles(concealed + melds + kong + boxes)
    assert sorted(_meld_codes(layout)) == sorted(
        [
            (["1s", "2s", "3s"], False),
            (["4m", "4m", "4m"], False),
            (["back", "8p", "8p", "back"], True),
        ]
    )
    assert all(m.from_box for m in layout.melds)
    assert layout.tiles[layout.winning].code == "5p"


def test_a_box_drawn_short_of_its_melds_first_tile_still_takes_it():
    # A pung and a kong laid edge to edge; the detector drew the kong's box from just inside its
    # first tile, whose centre then lies in no box and which touches both melds.
    concealed = row_detections(RowSpec(CONCEALED_11[:4] + ["5p"], gaps_after={3: 20}))
    melds = row_detections(RowSpec(["5m"] * 3 + ["8m"] * 4, origin=(120, 380)))
    kong_box = group_box(melds[3:], "meld")
    short = replace(kong_box, box=(melds[3].box[2] - 4, *kong_box.box[1:]))
    layout = group_tiles(concealed + melds + [group_box(melds[:3], "meld"), short])
    assert sorted(codes for codes, _ in _meld_codes(layout)) == [["5m"] * 3, ["8m"] * 4]
    assert codes_of(layout.tiles, layout.concealed) == CONCEALED_11[:4] and not layout.warnings


def test_a_box_drawn_over_a_run_takes_no_touching_tile_that_makes_no_set_with_it():
    # The pair's second tile laid against a chow under a box that overlaps it: with it the four
    # tiles lie apart from the rest, but 1p 4s 5s 6s is no meld.
    row = row_detections(RowSpec(["1p", "1p", "4s", "5s", "6s"], gaps_after={0: 10}))
    box = Detection((row[1].box[2] - 4, row[2].box[1] - 3, row[4].box[2] + 3, row[4].box[3] + 3), "meld", 0.9)
    layout = group_tiles(row + [box])
    assert not any("1p" in codes for codes, _ in _meld_codes(layout))


def test_a_short_concealed_row_behind_four_melds_one_unboxed_is_the_concealed_row():
    # Four melds leave one concealed tile and the winning tile, standing behind them; the detector
    # boxed three melds, so the fourth is the longest unmelded run, yet only the short row makes
    # the tiles count as a hand.
    standing = row_detections(RowSpec(["7s", "7s"], origin=(160, 300), tile_w=44, tile_h=62, gaps_after={0: 16}))
    melds = row_detections(RowSpec(["8m"] * 3 + ["5m"] * 3 + ["6s"] * 3 + ["9m"] * 3, origin=(120, 380),
                                   tile_w=48, tile_h=40, gaps_after={2: 12, 5: 12, 8: 12}))
    boxes = [group_box(melds[k:k + 3], "meld") for k in (0, 3, 6)]
    layout = group_tiles(standing + melds + boxes)
    assert codes_of(layout.tiles, layout.concealed) == ["7s"]
    assert layout.tiles[layout.winning].code == "7s"
    assert sorted(codes for codes, _ in _meld_codes(layout)) == [["5m"] * 3, ["6s"] * 3, ["8m"] * 3, ["9m"] * 3]
    assert not layout.unassigned


def test_a_tile_read_as_a_flower_inside_a_meld_box_is_a_meld_tile():
    concealed = row_detections(RowSpec(CONCEALED_11[:8] + ["5p"], gaps_after={7: 20}))
    meld = row_detections(RowSpec(["1s", "2f", "3s"], origin=(120, 380)))  # 2s read as a flower
    layout = group_tiles(concealed + meld + [group_box(meld, "meld")])
    assert _meld_codes(layout) == [(["1s", "2f", "3s"], False)] and not layout.flowers
    assert any("inside a meld's box" in w for w in layout.warnings)


def test_flowers_the_detector_boxed_as_a_meld_stay_flowers():
    concealed = row_detections(RowSpec(CONCEALED_11 + ["5z"], gaps_after={10: 20}))
    flowers = row_detections(RowSpec(["1f", "2f", "5f", "back"], origin=(120, 380)))
    layout = group_tiles(concealed + flowers + [group_box(flowers, "kong_concealed")])
    assert codes_of(layout.tiles, layout.flowers) == ["1f", "2f", "5f"]


def test_felt_read_as_a_tile_back_between_melds_is_not_used():
    # The detector's box on the felt between two boxed melds, read face down: it fits no
    # concealed kong, so it must neither join the melds' runs nor count as a hand tile.
    concealed = row_detections(RowSpec(CONCEALED_11[:7] + ["6z"], gaps_after={6: 20}))
    melds = row_detections(RowSpec(["7z", "7z", "7z", "back", "4m", "5m", "6m"], origin=(120, 380)))
    boxes = [group_box(melds[:3], "meld"), group_box(melds[4:], "meld")]
    layout = group_tiles(concealed + melds + boxes)
    assert _meld_codes(layout) == [(["7z", "7z", "7z"], False), (["4m", "5m", "6m"], False)]
    assert [layout.tiles[i].code for i in layout.unassigned] == ["back"]
    assert any("fit no concealed kong" in w for w in layout.warnings)


def test_a_sliver_read_face_down_in_a_kong_box_of_its_own_is_not_used():
    # A tile cut to a sliver by the photo's edge, just past a concealed kong laid at the row's
    # end, read face down; the detector drew a concealed-kong box around the sliver alone.
    concealed = row_detections(RowSpec(CONCEALED_11[:10] + ["6z"], gaps_after={9: 20}))
    kong = row_detections(RowSpec(["back", "1s", "1s", "back"], origin=(600, 300)))
    right = kong[-1].box[2]
    sliver = Detection((right + 2, kong[-1].box[1], right + 12, kong[-1].box[3]), "back", 0.97)
    boxes = [group_box(kong, "kong_concealed"), group_box([sliver], "kong_concealed", pad=1.0)]
    layout = group_tiles(concealed + kong + [sliver] + boxes)
    assert _meld_codes(layout) == [(["back", "1s", "1s", "back"], True)]
    assert layout.tiles[layout.winning].code == "6z"
    assert [layout.tiles[i].code for i in layout.unassigned] == ["back"]
    assert any("fit no concealed kong" in w for w in layout.warnings)


def test_a_box_over_the_seam_of_two_kong_tiles_is_not_a_fifth_tile():
    # The detector's extra box over half of two touching face-down tiles of a concealed kong.
    concealed = row_detections(RowSpec(CONCEALED_11[:10] + ["6z"], gaps_after={9: 20}))
    kong = row_detections(RowSpec(["back"] * 4, origin=(160, 380)))
    a, b = kong[1].box, kong[2].box
    seam = Detection(((a[0] + a[2]) / 2, a[1] + 2, (b[0] + b[2]) / 2, a[3] - 1), "back", 0.9)
    layout = group_tiles(concealed + kong + [seam, group_box(kong, "kong_concealed")])
    assert _meld_codes(layout) == [(["back"] * 4, True)]
    assert codes_of(layout.tiles, layout.concealed) == CONCEALED_11[:10]
    assert layout.tiles[layout.winning].code == "6z"
    assert [layout.tiles[i].box for i in layout.unassigned] == [seam.box]
    assert any("straddling two neighbouring tiles" in w for w in layout.warnings)


def test_a_box_over_the_seam_of_two_tilted_tiles_whose_boxes_overlap_is_not_a_tile():
    # Tilted tiles' upright boxes overlap by 14 of their 40 pixels; the extra box over the seam of
    # the pung's first two tiles overlaps each of them by more (half a tile).
    concealed = row_detections(RowSpec(CONCEALED_11[:10] + ["6z"], gap=-14.0, gaps_after={9: 30}))
    pung = row_detections(RowSpec(["5m", "5m", "5m"], gap=-14.0, origin=(160, 380)))
    a, b = pung[0].box, pung[1].box
    seam = Detection(((a[0] + a[2]) / 2, a[1], (b[0] + b[2]) / 2, a[3]), "5m", 0.6)
    layout = group_tiles(concealed + pung + [seam, group_box(pung, "meld")])
    assert _meld_codes(layout) == [(["5m"] * 3, False)]
    assert [layout.tiles[i].box for i in layout.unassigned] == [seam.box]


def test_the_winning_tile_set_apart_from_a_steep_row_of_standing_tiles_is_found():
    # Standing tiles in a row climbing at 30 degrees (the camera rolled): each box is 42 x 52
    # and the row steps 34 pixels per tile, far more than the 21 a flat tile turned with the row
    # would take along it. The winning tile lies 1.7 steps past the end, too far off the row's
    # level for its chain.
    codes = CONCEALED_11[:10]
    step = (29.5, -17.5)
    row = [Detection((165 + k * step[0], 730 + k * step[1], 207 + k * step[0], 782 + k * step[1]), code, 0.9)
           for k, code in enumerate(codes)]
    last = row[-1].box
    winning = Detection((last[0] + 50, last[1] - 29, last[2] + 50, last[3] - 29), "6z", 0.9)
    layout = group_tiles(row + [winning])
    assert codes_of(layout.tiles, layout.concealed) == codes
    assert layout.tiles[layout.winning].code == "6z"
    assert not layout.unassigned


def test_a_two_tile_row_lends_no_pitch_to_reach_a_stray_box():
    # Behind four melds, the pair's one step is the winning tile's gap: no measure of the room a
    # tile takes. A box 2.8 tile widths left of the row (over the seam of two flowers) stays out.
    pair = row_detections(RowSpec(["6s", "6s"], origin=(185, 40), tile_w=53, tile_h=70, gaps_after={0: 10}))
    stray = Detection((50, 43, 73, 113), "4s", 0.5)
    melds = row_detections(RowSpec(["7z"] * 3 + ["7m", "8m", "9m"] + ["8s"] * 3 + ["2s", "3s", "4s"],
                                   origin=(200, 200), tile_w=53, tile_h=70))
    boxes = [group_box(melds[k:k + 3], "meld") for k in (0, 3, 6, 9)]
    layout = group_tiles(pair + melds + boxes + [stray])
    assert len(layout.melds) == 4
    assert codes_of(layout.tiles, layout.concealed) + [layout.tiles[layout.winning].code] == ["6s", "6s"]
    assert [layout.tiles[i].box for i in layout.unassigned] == [stray.box]


def test_three_touching_tiles_with_overlapping_boxes_are_all_kept():
    # Standing tiles seen at an angle: each box overlaps its neighbours, none is a seam box.
    row = row_detections(RowSpec(CONCEALED_11 + ["5z"], gap=-12.0, gaps_after={10: 30}))
    layout = group_tiles(row)
    assert codes_of(layout.tiles, layout.concealed) == CONCEALED_11
    assert not layout.unassigned


def test_a_tile_read_as_a_flower_inside_the_row_stays_in_the_hand():
    codes = CONCEALED_11[:5] + ["2f"] + CONCEALED_11[6:] + ["5z"]
    row = row_detections(RowSpec(codes, gaps_after={10: 20}))
    flower = Detection((10, 100, 50, 156), "3f", 0.9, (("3f", 0.9),))  # set apart, far from the row
    layout = group_tiles(row + [flower])
    assert codes_of(layout.tiles, layout.concealed) == codes[:11]
    assert codes_of(layout.tiles, layout.flowers) == ["3f"]
    assert any("read as flowers lie inside a row" in w for w in layout.warnings)


def test_a_misread_flower_laid_with_the_flowers_is_a_flower():
    # 3f 4f and a flower read as 6z lie together at the left of the row, apart from the hand.
    row = row_detections(RowSpec(["3f", "4f", "6z"] + CONCEALED_11 + ["5z", "5z"], gaps_after={2: 30, 14: 20},
                                 probs={2: (("6z", 0.6), ("6f", 0.3), ("4f", 0.1))}))
    layout = group_tiles(row)
    assert codes_of(layout.tiles, layout.flowers) == ["3f", "4f", "6z"]
    assert codes_of(layout.tiles, layout.concealed) == CONCEALED_11 + ["5z"]
    assert any("set apart with the flowers" in w for w in layout.warnings)


@pytest.mark.parametrize("could_be_a_flower", [True, False])
def test_a_lone_tile_among_the_flowers_that_could_be_one_is_a_flower(could_be_a_flower):
    # The flowers 4f ? 2f lie in line beyond the winning tile; the middle one reads 1z.
    readings = (("1z", 0.54), ("3f", 0.11), ("7m", 0.04)) if could_be_a_flower else (("1z", 0.54), ("7m", 0.04))
    row = row_detections(RowSpec(CONCEALED_11 + ["7z", "7z", "7z", "4f", "1z", "2f"], gaps_after={12: 20, 13: 80},
                                 probs={15: readings}))
    layout = group_tiles(row)
    assert codes_of(layout.tiles, layout.concealed) == CONCEALED_11 + ["7z", "7z"]
    if could_be_a_flower:
        assert codes_of(layout.tiles, layout.flowers) == ["4f", "2f", "1z"]
        assert not layout.unassigned
        assert any("lie against the flowers and were read as flowers" in w for w in layout.warnings)
        assert sorted(read_detections(row).hand["flowers"]) == ["2f", "3f", "4f"]
    else:
        assert codes_of(layout.tiles, layout.flowers) == ["4f", "2f"]
        assert codes_of(layout.tiles, layout.unassigned) == ["1z"]
        assert any("fit no meld" in w for w in layout.warnings)


@pytest.mark.parametrize("could_be_a_flower", [True, False])
def test_a_tile_away_from_the_hand_against_a_flower_that_could_be_one_is_a_flower(could_be_a_flower):
    # The flowers lie well below the hand; the second reads 2s.
    readings = (("2s", 0.4), ("1f", 0.05)) if could_be_a_flower else (("2s", 0.4),)
    row = row_detections(RowSpec(CONCEALED_11 + ["7z", "7z", "7z"], gaps_after={12: 20}))
    flowers = [Detection((100, 600, 140, 656), "3f", 0.9, (("3f", 0.9),)),
               Detection((141, 600, 181, 656), "2s", 0.4, readings)]
    layout = group_tiles(row + flowers)
    if could_be_a_flower:
        assert codes_of(layout.tiles, layout.flowers) == ["3f", "2s"] and not layout.unassigned
        assert layout.warnings == ("1 tile(s) outside the hand's rows and melds lie against the flowers and were "
                                   "read as flowers",)
    else:
        assert codes_of(layout.tiles, layout.unassigned) == ["2s"]
        assert layout.warnings == ("1 tile(s) lie away from the hand and were not used: 2s",)


def test_a_sideways_tile_overrules_a_concealed_kong_box():
    concealed = row_detections(RowSpec(CONCEALED_11[:7] + ["6z"], gaps_after={6: 20}))
    kong = row_detections(RowSpec(["2s"] * 4, origin=(120, 380), sideways={1}))
    layout = group_tiles(concealed + kong + [group_box(kong, "kong_concealed")])
    assert _meld_codes(layout) == [(["2s"] * 4, False)]
    assert layout.tiles[layout.melds[0].claimed].width > layout.tiles[layout.melds[0].claimed].height


def test_a_boxed_kong_with_no_tile_turned_is_concealed_unless_its_box_is_sure():
    # Exposed melds show their claimed tile turned; four up-turned tiles in a row turn none.
    concealed = row_detections(RowSpec(CONCEALED_11[:7] + ["6z"], gaps_after={6: 20}))
    kong = row_detections(RowSpec(["2s"] * 4, origin=(120, 380)))
    layout = group_tiles(concealed + kong + [group_box(kong, "meld")])
    assert _meld_codes(layout) == [(["2s"] * 4, True)] and layout.melds[0].claimed is None
    # A box class the detector is all but sure of stands.
    layout = group_tiles(concealed + kong + [replace(group_box(kong, "meld"), confidence=0.97)])
    assert _meld_codes(layout) == [(["2s"] * 4, False)]


def test_a_kong_tile_turned_less_than_sideways_still_marks_it_exposed():
    # A claimed tile seen at an angle: 1.35 times as long along the row as the others, below the
    # sideways ratio that marks a claimed tile in a chow or pung.
    concealed = row_detections(RowSpec(CONCEALED_11[:7] + ["6z"], gaps_after={6: 20}))
    kong = row_detections(RowSpec(["2s"] * 4, origin=(120, 380)))
    x1, y1, x2, y2 = kong[2].box
    kong[2] = replace(kong[2], box=(x1, y1 + (y2 - y1) * 0.13, x2, y2 - (y2 - y1) * 0.13))
    layout = group_tiles(concealed + kong + [group_box(kong, "kong_concealed")])
    assert _meld_codes(layout) == [(["2s"] * 4, False)]
    assert layout.melds[0].claimed is not None and layout.tiles[layout.melds[0].claimed].box == kong[2].box


def test_a_flower_laid_against_a_kong_inside_its_box_stays_a_flower():
    # The detector's kong box also took in the flower touching the kong's left end: five tiles,
    # more than any meld holds.
    concealed = row_detections(RowSpec(CONCEALED_11[:7] + ["6z"], gaps_after={6: 20}))
    kong = row_detections(RowSpec(["3f", "3z", "back", "back", "3z"], origin=(120, 380)))
    layout = group_tiles(concealed + kong + [group_box(kong, "kong_concealed")])
    assert _meld_codes(layout) == [(["3z", "back", "back", "3z"], True)]
    assert codes_of(layout.tiles, layout.flowers) == ["3f"]
    assert not any("holds no run" in w for w in layout.warnings)


def test_two_concealed_kongs_laid_edge_to_edge_under_loose_boxes_are_both_kongs():
    # The second kong's box starts past the centre of its first face-down tile: that tile
    # belongs to no box and touches both kongs, so neither box's run lies apart from the row's
    # other tiles. Face-down tiles in a kong's pattern are no concealed row's, whatever touches them.
    concealed = row_detections(RowSpec(CONCEALED_11[:7] + ["6z"], gaps_after={6: 20}))
    kongs = row_detections(RowSpec(["back", "9m", "9m", "back", "back", "9p", "9p", "back"], origin=(120, 380)))
    boxes = [group_box(kongs[:4], "kong_concealed"), group_box(kongs[5:], "kong_concealed")]
    layout = group_tiles(concealed + kongs + boxes)
    assert sorted(_meld_codes(layout)) == [
        (["back", "9m", "9m", "back"], True),
        (["back", "9p", "9p", "back"], True),
    ]
    assert codes_of(layout.tiles, layout.concealed) == CONCEALED_11[:7]


def test_a_kong_under_a_tight_box_laid_against_a_boxed_pung_keeps_its_fourth_tile():
    concealed = row_detections(RowSpec(CONCEALED_11[:4] + ["6z"], gaps_after={3: 20}))
    melds = row_detections(RowSpec(["4s"] * 4 + ["7p"] * 3, origin=(120, 380), sideways={0}))
    tight = group_box(melds[:4], "meld")
    # The kong's box ends at 70% of its fourth tile: a pung's neighbour would lie like that too,
    # but only with the fourth tile does the run lie apart from the row's other tiles.
    tight = replace(tight, box=(*tight.box[:2], melds[3].box[0] + 0.7 * melds[3].width, tight.box[3]))
    layout = group_tiles(concealed + melds + [tight, group_box(melds[4:], "meld")])
    assert sorted(_meld_codes(layout)) == [(["4s"] * 4, False), (["7p"] * 3, False)]
    assert not any("holds no run" in w for w in layout.warnings)


def test_an_unsure_box_across_two_boxed_melds_takes_none_of_their_tiles():
    concealed = row_detections(RowSpec(CONCEALED_11[:4] + ["6z"], gaps_after={3: 20}))
    melds = row_detections(RowSpec(["7m"] * 3 + ["8s", "7s", "6s"] + ["6s", "5s", "4s"], origin=(120, 380)))
    # The melds' own boxes are drawn a little tight; the unsure one covers their tiles fully.
    boxes = [group_box(melds[k:k + 3], "meld", pad=-3.0) for k in (0, 3, 6)]
    across = replace(group_box(melds[4:8], "meld", pad=8.0), confidence=0.5)
    layout = group_tiles(concealed + melds + boxes + [across])
    assert sorted(_meld_codes(layout)) == [
        (["6s", "5s", "4s"], False),
        (["7m"] * 3, False),
        (["8s", "7s", "6s"], False),
    ]


def test_a_sure_meld_box_holds_its_meld_though_the_last_concealed_tiles_touch_it():
    # The concealed pair (winning tile included) laid against the first of four melds.
    row = row_detections(RowSpec(["7z", "7z", "5p", "6p", "7p", "4m", "5m", "6m", "4z", "4z", "4z"]))
    boxes = [replace(group_box(row[k:k + 3], "meld"), confidence=0.97) for k in (2, 5, 8)]
    layout = group_tiles(row + boxes)
    assert sorted(_meld_codes(layout)) == [(["4m", "5m", "6m"], False), (["4z"] * 3, False),
                                           (["5p", "6p", "7p"], False)]
    unsure = group_tiles(row + [replace(b, confidence=0.9) for b in boxes])
    assert (["5p", "6p", "7p"], False) not in _meld_codes(unsure)  # a box that touches the row may be wrong


def test_a_meld_box_and_a_kong_box_on_the_same_tiles_count_once():
    # The detector boxed four up-turned 5z as an exposed meld and as a concealed kong; each
    # box would take two of the tiles (reading neither as a group) if both were kept.
    concealed = row_detections(RowSpec(CONCEALED_11[:7] + ["6z"], gaps_after={6: 20}))
    kong = row_detections(RowSpec(["5z"] * 4, origin=(120, 380)))
    meld_box = replace(group_box(kong, "meld"), confidence=0.6)
    kong_box = replace(group_box(kong, "kong_concealed", pad=5.0), confidence=0.65)
    layout = group_tiles(concealed + kong + [meld_box, kong_box])
    assert _meld_codes(layout) == [(["5z"] * 4, True)]
    assert not any("holds no run" in w for w in layout.warnings)


def test_kongs_without_boxes_two_down_four_down_and_exposed():
    concealed = row_detections(RowSpec(CONCEALED_11[:4] + ["7s"], gaps_after={3: 20}))
    melds = row_detections(
        RowSpec(
            ["back", "3z", "3z", "back", "back", "back", "back", "back", "9m", "9m", "9m", "9m"],
            origin=(100, 380),
            gaps_after={3: 20, 7: 20},
            sideways={11},
        )
    )
    layout = group_tiles(concealed + melds)
    assert _meld_codes(layout) == [
        (["back", "3z", "3z", "back"], True),
        (["back"] * 4, True),
        (["9m"] * 4, False),
    ]


def test_flowers_anywhere_become_flowers():
    concealed = row_detections(RowSpec(CONCEALED_11 + ["5z", "5z", "5z"], gaps_after={12: 20}))
    flowers = [
        Detection((10, 10, 50, 66), "1f", 0.9, (("1f", 0.9),)),
        Detection((900, 600, 940, 656), "6f", 0.9, (("6f", 0.9),)),
        Detection((200, 380, 240, 436), "3f", 0.9, (("3f", 0.9),)),
    ]
    layout = group_tiles(concealed + flowers)
    assert sorted(codes_of(layout.tiles, layout.flowers)) == ["1f", "3f", "6f"]
    assert not layout.unassigned
    assert len(layout.concealed) == 13


def test_photo_from_across_the_table_reverses_the_order():
    # Seen upside down: the winning tile is set apart at the image's left end, the melds left.
    player_order = CONCEALED_11[:8]
    row = row_detections(
        RowSpec(
            ["6z", "6z", "6z"] + ["2s"] + player_order[::-1],
            sideways={1},
            gaps_after={2: 25, 3: 18},
        )
    )
    layout = group_tiles(row)
    assert layout.reversed_view
    assert layout.tiles[layout.winning].code == "2s"
    assert codes_of(layout.tiles, layout.concealed) == player_order
    assert _meld_codes(layout) == [(["6z", "6z", "6z"], False)]


@pytest.mark.parametrize(
    "geometry",
    [
        {"angle_deg": 12.0},
        {"angle_deg": -15.0, "shrink": 0.35},
        {"bend": 14.0},
        {"shrink": 0.4, "bend": -10.0, "angle_deg": 6.0},
    ],
)
def test_perspective_tilt_and_arcs_keep_row_order(geometry):
    codes = CONCEALED_11 + ["5z", "5z", "4z"]
    row = row_detections(RowSpec(codes, gaps_after={12: 18}, **geometry))
    layout = group_tiles(row)
    assert codes_of(layout.tiles, layout.concealed) == codes[:13]
    assert layout.tiles[layout.winning].code == "4z"
    assert not layout.melds and not layout.unassigned


def test_standing_row_with_flat_melds_in_front():
    # Standing tiles are seen face-on (tall boxes); flat melds in front are foreshortened.
    standing = row_detections(
        RowSpec(CONCEALED_11[:7] + ["3m"], tile_w=44, tile_h=62, gaps_after={6: 16})
    )
    melds = row_detections(
        RowSpec(
            ["1p", "1p", "1p", "5s", "6s", "7s"],
            origin=(110, 400),
            tile_w=48,
            tile_h=40,
            sideways={0, 3},
            gaps_after={2: 30},
        )
    )
    layout = group_tiles(standing + melds)
    assert codes_of(layout.tiles, layout.concealed) == CONCEALED_11[:7]
    assert layout.tiles[layout.winning].code == "3m"
    assert _meld_codes(layout) == [(["1p", "1p", "1p"], False), (["5s", "6s", "7s"], False)]


def test_several_players_tiles_are_an_error_not_a_hand():
    tiles = []
    for k, y in enumerate((50, 400, 750)):
        tiles += row_detections(RowSpec(CONCEALED_11 + ["1z", "1z", "1z"], origin=(100, y)))
    with pytest.raises(PhotoError) as err:
        group_tiles(tiles)
    assert err.value.code == "several_hands" and err.value.exit_code == 4


def test_stray_tiles_are_reported_not_dropped():
    concealed = row_detections(RowSpec(CONCEALED_11 + ["5z", "5z", "5z"], gaps_after={12: 20}))
    stray = row_detections(RowSpec(["9p", "9p"], origin=(100, 900)))
    near_pair = row_detections(RowSpec(["2z", "2z"], origin=(120, 380)))
    layout = group_tiles(concealed + stray + near_pair)
    assert sorted(codes_of(layout.tiles, layout.unassigned)) == ["2z", "2z", "9p", "9p"]
    assert any("away from the hand" in w for w in layout.warnings)
    assert any("fit no meld" in w for w in layout.warnings)


def test_every_tile_is_placed_exactly_once():
    concealed = row_detections(RowSpec(CONCEALED_11 + ["5z"], gaps_after={10: 20}))
    pung = row_detections(RowSpec(["7z", "7z", "7z"], origin=(150, 380), sideways={2}))
    flower = [Detection((700, 50, 740, 106), "2f", 0.9)]
    layout = group_tiles(concealed + pung + flower)
    placed = list(layout.concealed) + list(layout.flowers) + list(layout.unassigned)
    placed += [layout.winning] + [i for m in layout.melds for i in m.tiles]
    assert sorted(placed) == list(range(len(layout.tiles)))


@pytest.mark.parametrize(
    "detections, code",
    [
        ([], "no_tiles"),
        ([Detection((0, 0, 10, 10), "meld", 0.9)], "no_tiles"),
        ([Detection((0, 0, 40, 56), "1f", 0.9)], "no_hand_tiles"),
    ],
)
def test_no_tiles_is_a_clear_error(detections, code):
    with pytest.raises(PhotoError) as err:
        group_tiles(detections)
    assert err.value.code == code and err.value.exit_code == 3


def test_steep_rows_with_melds_in_front_stay_apart():
    # Tilted 25 degrees, the meld row just in front: the boxes of the two rows interleave.
    concealed = row_detections(RowSpec(CONCEALED_11[:10] + ["5z"], origin=(100, 500), angle_deg=-25, gaps_after={9: 15}))
    melds = row_detections(
        RowSpec(["7z", "7z", "7z", "2p", "3p", "4p"], origin=(140, 550), angle_deg=-25, sideways={0, 4}, gaps_after={2: 15})
    )
    layout = group_tiles(concealed + melds)
    assert codes_of(layout.tiles, layout.concealed) == CONCEALED_11[:10]
    assert layout.tiles[layout.winning].code == "5z"
    assert _meld_codes(layout) == [(["7z", "7z", "7z"], False), (["2p", "3p", "4p"], False)]


@pytest.mark.parametrize("degrees", [-45.0, -35.0, -20.0, 10.0, 30.0, 40.0, 45.0])
def test_a_hand_photographed_askew_groups_as_taken_straight(degrees):
    # The whole hand turned in the photo's plane (a phone held askew): every tile's box grows to
    # the bounds of its turned corners and takes in its neighbours and the row in front.
    concealed = row_detections(RowSpec(CONCEALED_11[:7] + ["5z"], origin=(200, 300), gaps_after={6: 18}))
    pung = row_detections(RowSpec(["7z", "7z", "7z"], origin=(200, 370), sideways={1}))
    kong = row_detections(RowSpec(["back", "1s", "1s", "back"], origin=(400, 370)))
    level = concealed + pung + kong + [group_box(pung, "meld"), group_box(kong, "kong_concealed")]
    askew = turned(level, degrees)
    layout = group_tiles(askew)
    assert list(layout.tiles) == [d for d in askew if d.is_tile]  # the photo's boxes, as found
    assert codes_of(layout.tiles, layout.concealed) == CONCEALED_11[:7]
    assert layout.tiles[layout.winning].code == "5z"
    assert _meld_codes(layout) == [(["7z", "7z", "7z"], False), (["back", "1s", "1s", "back"], True)]
    assert not layout.unassigned and not layout.reversed_view
    # Near 45 degrees a turned tile's upright box hardly shows which way it lies: the sideways
    # tile is found up to 35 degrees.
    assert layout.melds[0].claimed == (layout.melds[0].tiles[1] if abs(degrees) <= 35 else None)


CONCEALED_8 = ["1m", "2m", "3m", "4p", "5p", "6p", "5z"]


def _touching(codes, sideways, concealed=CONCEALED_8):
    """The concealed row with its winning 5z set apart, and melds laid edge to edge in front of
    it, no grouping box drawn."""
    concealed = row_detections(RowSpec(concealed + ["5z"], origin=(100, 300), gaps_after={len(concealed) - 1: 18}))
    return group_tiles(concealed + row_detections(RowSpec(codes, origin=(100, 380), sideways=sideways)))


def test_melds_laid_edge_to_edge_without_boxes_are_cut_into_melds():
    layout = _touching(["7z", "7z", "7z", "2s", "3s", "4s"], {0, 4})
    assert _meld_codes(layout) == [(["7z"] * 3, False), (["2s", "3s", "4s"], False)]
    assert [layout.tiles[m.claimed].code for m in layout.melds] == ["7z", "3s"]
    assert codes_of(layout.tiles, layout.concealed) == CONCEALED_8 and not layout.unassigned


def test_where_the_layout_cannot_tell_the_cut_the_faces_do():
    # Kong then chow or pung then a four of 7z 2s 3s 4s: each cut gives both parts a sideways tile.
    layout = _touching(["7z", "7z", "7z", "7z", "2s", "3s", "4s"], {0, 5})
    assert _meld_codes(layout) == [(["7z"] * 4, False), (["2s", "3s", "4s"], False)]
    # No sideways tile at all: the faces alone.
    layout = _touching(["9p", "9p", "9p", "2s", "3s", "4s", "1m", "1m", "1m"], set(), CONCEALED_8[3:])
    assert _meld_codes(layout) == [(["9p"] * 3, False), (["2s", "3s", "4s"], False), (["1m"] * 3, False)]
    assert codes_of(layout.tiles, layout.concealed) == CONCEALED_8[3:]


def test_a_concealed_kong_laid_against_a_pung_keeps_its_face_down_ends():
    layout = _touching(["7z", "7z", "7z", "back", "1s", "1s", "back"], {1})
    assert _meld_codes(layout) == [(["7z"] * 3, False), (["back", "1s", "1s", "back"], True)]


def test_melds_edge_to_edge_in_the_concealed_row_line_need_a_sideways_tile_each():
    # Laid on after the winning tile, in the concealed tiles' own line.
    codes = CONCEALED_8 + ["5z"] + ["6s", "6s", "6s", "7m", "8m", "9m"]
    row = row_detections(RowSpec(codes, origin=(100, 300), gaps_after={6: 18, 7: 18}, sideways={9, 12}))
    layout = group_tiles(row)
    assert _meld_codes(layout) == [(["6s"] * 3, False), (["7m", "8m", "9m"], False)]
    assert codes_of(layout.tiles, layout.concealed) == CONCEALED_8
    assert layout.tiles[layout.winning].code == "5z"


def test_a_run_no_cut_fits_stays_unassigned():
    # Three sideways tiles in six: no two melds of one claimed tile each.
    layout = _touching(["7z", "7z", "7z", "2s", "3s", "4s"], {0, 1, 4})
    assert not layout.melds and len(layout.unassigned) == 6


def test_boxes_as_seen_are_grouped_where_the_levelled_ones_leave_tiles_out(monkeypatch):
    # A tilt misread (perspective, melds at an angle of their own) sizes the boxes wrong: here
    # each a third as wide, so that no two touch.
    concealed = row_detections(RowSpec(CONCEALED_11[:7] + ["5z"], origin=(200, 300), gaps_after={6: 18}))
    pung = row_detections(RowSpec(["7z", "7z", "7z"], origin=(200, 370), sideways={1}))

    def misread(detections):
        return [replace(d, box=(d.center[0] - d.width / 6, d.box[1], d.center[0] + d.width / 6, d.box[3]))
                for d in detections]

    monkeypatch.setattr(grouping, "_levelled", misread)
    layout = group_tiles(concealed + pung)
    assert codes_of(layout.tiles, layout.concealed) == CONCEALED_11[:7]
    assert _meld_codes(layout) == [(["7z"] * 3, False)] and not layout.unassigned


@pytest.mark.parametrize("degrees", [-20.0, 25.0])
def test_a_winning_tile_beyond_a_tile_read_as_a_flower_joins_a_row_photographed_askew(degrees):
    # The last 5z reads as a flower, so the winning tile lies 1.7 tile widths past the row's end.
    codes = ["1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m", "6p", "5z", "5z", "5z", "6p"]
    row = row_detections(RowSpec(codes, gaps_after={12: 28}, probs={12: (("8f", 0.6), ("5z", 0.4))}))
    result = read_detections(turned(row, degrees), rules="mcr")
    assert result.error is None and result.hand["concealed"] == codes[:13] and result.hand["winning_tile"] == "6p"


@pytest.mark.parametrize("gap", [66.0, 90.0])
def test_melds_laid_in_line_past_the_winning_tile_stay_melds(gap):
    # 1.65 tile widths and more past the winning tile, no sideways tile, no box, the photo level.
    codes = CONCEALED_8 + ["5z", "7m", "8m", "9m", "9p", "9p", "9p"]
    layout = group_tiles(row_detections(RowSpec(codes, gaps_after={6: 20, 7: gap, 10: gap})))
    assert codes_of(layout.tiles, layout.concealed) == CONCEALED_8
    assert _meld_codes(layout) == [(["7m", "8m", "9m"], False), (["9p"] * 3, False)]


@pytest.mark.parametrize("reversed_view", [False, True])
def test_a_pung_past_a_boxed_meld_in_the_rows_line_is_a_meld_though_unboxed(reversed_view):
    # The concealed tiles, the winning tile apart, then two pungs laid nearly edge to edge: the
    # detector boxed the near one only, and the far one lies in the row's line.
    codes = CONCEALED_8 + ["8s", "3s", "3s", "3s", "7z", "7z", "7z"]
    row = row_detections(RowSpec(codes, gaps_after={6: 20, 7: 40, 10: 5}))
    if reversed_view:  # seen from across the table: the pungs come first in the photo
        row = [replace(d, box=(1000 - d.box[2], d.box[1], 1000 - d.box[0], d.box[3])) for d in row]
    layout = group_tiles(row + [group_box(row[8:11], "meld")])
    assert codes_of(layout.tiles, layout.concealed) == CONCEALED_8
    assert layout.tiles[layout.winning].code == "8s"
    assert sorted(codes for codes, _ in _meld_codes(layout)) == [["3s"] * 3, ["7z"] * 3]
    assert not layout.unassigned


def test_a_winning_tile_laid_past_the_melds_stays_apart_from_an_unboxed_pung_there():
    codes = CONCEALED_8 + ["3s", "3s", "3s", "7z", "7z", "7z", "8s"]
    row = row_detections(RowSpec(codes, gaps_after={6: 40, 9: 5, 12: 30}))
    layout = group_tiles(row + [group_box(row[7:10], "meld")])
    assert codes_of(layout.tiles, layout.concealed) == CONCEALED_8
    assert layout.tiles[layout.winning].code == "8s"
    assert sorted(codes for codes, _ in _meld_codes(layout)) == [["3s"] * 3, ["7z"] * 3]


def test_a_boxed_meld_between_two_equal_parts_of_a_row_leaves_both_in_the_row():
    # No part of the row is clearly the concealed tiles', so neither is taken for a meld.
    codes = ["1m", "2m", "3m", "4p", "4p", "4p", "7s", "8s", "9s"]
    row = row_detections(RowSpec(codes, gaps_after={2: 20, 5: 20}))
    layout = group_tiles(row + [group_box(row[3:6], "meld")])
    assert _meld_codes(layout) == [(["4p"] * 3, False)]


def test_six_stray_tiles_in_a_row_behind_the_hand_are_no_melds():
    concealed = row_detections(RowSpec(CONCEALED_8 + ["5z"], origin=(100, 300), gaps_after={6: 20}))
    pung = row_detections(RowSpec(["9p", "9p", "9p"], origin=(100, 380), sideways={0}))
    chow = row_detections(RowSpec(["7m", "8m", "9m"], origin=(260, 380), sideways={0}))
    stray = row_detections(RowSpec(["1p", "9m", "3z", "6s", "2z", "8m"], origin=(100, 220)))
    layout = group_tiles(concealed + pung + chow + stray)
    assert _meld_codes(layout) == [(["9p"] * 3, False), (["7m", "8m", "9m"], False)]
    assert sorted(codes_of(layout.tiles, layout.unassigned)) == sorted(["1p", "9m", "3z", "6s", "2z", "8m"])
    assert codes_of(layout.tiles, layout.concealed) == CONCEALED_8


def test_a_lone_tile_just_past_the_row_end_is_the_winning_tile():
    # Standing concealed tiles; the winning tile lies flat a little lower, out of the row's chain.
    standing = row_detections(RowSpec(CONCEALED_11 + ["5z", "5z"], tile_w=40, tile_h=60))
    x = standing[-1].box[2] + 12
    flat = Detection((x, 352, x + 44, 384), "9s", 1.0, (("9s", 1.0),))
    layout = group_tiles(standing + [flat])
    assert layout.tiles[layout.winning].code == "9s" and not layout.unassigned
    assert len(layout.concealed) == 13


def test_a_tile_cut_off_by_the_photo_edge_completes_its_kong():
    concealed = row_detections(RowSpec(CONCEALED_11[:7] + ["6z"], origin=(300, 200), gaps_after={6: 20}))
    kong = row_detections(RowSpec(["back", "back", "back"], origin=(520, 300)))
    sliver = Detection((kong[-1].box[2] + 1, 300, kong[-1].box[2] + 7, 330), "back", 0.9, (("back", 0.9),))
    box = group_box(kong + [sliver], "kong_concealed")
    layout = group_tiles(concealed + kong + [sliver, box])
    assert _meld_codes(layout) == [(["back"] * 4, True)]
    assert not layout.unassigned


def test_a_lone_tile_past_the_set_apart_tile_is_the_winning_tile():
    # The furthest tile set apart wins; the one between joins the concealed row.
    row = row_detections(RowSpec(CONCEALED_11 + ["5z", "5z"], gaps_after={11: 20}))
    x = row[-1].box[2] + 30
    lone = Detection((x, 330, x + 40, 386), "6z", 1.0, (("6z", 1.0),))  # lower: out of the chain
    layout = group_tiles(row + [lone])
    assert layout.tiles[layout.winning].code == "6z"
    assert codes_of(layout.tiles, layout.concealed) == CONCEALED_11 + ["5z", "5z"]


# --- how far the rows run askew (vision.pipeline reads such a photo again turned level) ---

HAND = ["1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "1z", "1z", "1z", "5z", "5z"]


@pytest.mark.parametrize("angle", [0.0, 12.0, -20.0, 35.0, -60.0])
def test_row_tilt_reads_the_rows_direction(angle):
    assert row_tilt(row_detections(RowSpec(HAND, angle_deg=angle))) == pytest.approx(angle, abs=0.5)


def test_row_tilt_of_a_vertical_row_is_a_quarter_turn():
    # a portrait photo whose EXIF lost the phone's turn
    assert abs(row_tilt(row_detections(RowSpec(HAND, angle_deg=90.0)))) == pytest.approx(90.0, abs=0.5)


def test_row_tilt_ignores_tiles_whose_nearest_neighbour_lies_across_the_rows():
    row = row_detections(RowSpec(HAND, angle_deg=25.0))
    # three flowers set apart in a line of their own, well across the row (all of them counted
    # alike, the estimate would be 19.6 degrees)
    flowers = row_detections(RowSpec(["1f", "2f", "3f"], origin=(60.0, 420.0), angle_deg=140.0))
    assert row_tilt(row + flowers) == pytest.approx(25.0, abs=0.5)


def test_row_tilt_needs_a_few_tiles():
    assert row_tilt(row_detections(RowSpec(HAND[:4], angle_deg=30.0))) == 0.0
    meld_boxes = [group_box(row_detections(RowSpec(HAND[:3])), "meld")] * 5
    assert row_tilt(meld_boxes) == 0.0  # meld boxes are no tiles


def test_empty_boxes_along_a_diagonal_are_no_tiles():
    # Rows 45 degrees askew are levelled by the boxes' sizes, which empty boxes do not have.
    empty = [Detection((x * 10.0, x * 10.0, x * 10.0, x * 10.0), "1m", 0.9) for x in range(6)]
    with pytest.raises(PhotoError) as err:
        group_tiles(empty)
    assert err.value.code == "no_tiles" and "every box is empty" in str(err.value)


@pytest.mark.parametrize(("dx", "dy"), [(0, -62), (25, -62), (0, 62), (45, -30)],
                         ids=["above", "above-right", "below", "diagonal"])
def test_a_winning_tile_pushed_forward_or_laid_in_front_of_the_rows_end_is_the_winning_tile(dx, dy):
    row = row_detections(RowSpec(["1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "1z", "1z", "5z", "5z"]))
    x0, y0 = row[-1].box[0] + dx, row[-1].box[1] + dy
    result = read_detections(row + [Detection((x0, y0, x0 + 40, y0 + 56), "5z", 1.0, (("5z", 1.0),))])
    assert result.error is None and result.hand["winning_tile"] == "5z"
    assert result.hand["concealed"] == ["1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "1z", "1z", "5z", "5z"]
    if dx == 0:  # right above or below the end, not past it along the row: said so
        assert any("5z lying by the row's end, out of its line, was taken for the winning tile" in w
                   for w in result.warnings)


@pytest.mark.parametrize("reversed_view", [False, True])
def test_a_row_apart_at_both_ends_wins_with_the_tile_past_the_wider_gap(reversed_view):
    # Seen low and close, the gaps of a row widen towards the camera: the far end's last tile lies
    # a little apart too. The winning tile is the one past the wider gap, at either end.
    player_order = CONCEALED_11[:10] + ["1z", "1z", "5z"]
    codes = ["5z"] + player_order[::-1] if reversed_view else player_order + ["5z"]
    wide, narrow = 25, 8  # a tile is 40 px long: 0.6 and 0.2 of it
    row = row_detections(RowSpec(codes, gaps_after={0: wide, 12: narrow} if reversed_view else {0: narrow, 12: wide}))
    layout = group_tiles(row)
    assert layout.reversed_view == reversed_view and layout.tiles[layout.winning].code == "5z"
    assert codes_of(layout.tiles, layout.concealed) == player_order


def test_a_row_spread_out_evenly_wins_with_its_right_end_tile():
    # Every tile a little apart, the left end's gap a shade wider than the right's: nothing says
    # the photo was taken from across the table.
    player_order = CONCEALED_11[:10] + ["1z", "1z", "5z"]
    row = row_detections(RowSpec(player_order + ["5z"], gap=16, gaps_after={12: -3}))
    layout = group_tiles(row)
    assert not layout.reversed_view and layout.tiles[layout.winning].code == "5z"
    assert codes_of(layout.tiles, layout.concealed) == player_order


def _overlapping_more_and_more(codes, first_gap, last_gap):
    """A standing row seen obliquely: boxes showing the tiles' sides overlap more towards its
    right end, its gaps falling evenly from `first_gap` to `last_gap` pixels (a tile is 40 long)."""
    n = len(codes) - 1
    return {k: first_gap + (last_gap - first_gap) * k / (n - 1) for k in range(n)}


def test_a_winning_tile_standing_out_from_overlapping_boxes_is_set_apart():
    # Its gap (2 px, 0.05 of a tile) is under SPLIT_GAP, but its neighbours' boxes overlap by 9.
    player_order = CONCEALED_11[:10] + ["1z", "1z", "5z"]
    gaps = _overlapping_more_and_more(player_order + ["5z"], 2, -9)
    gaps[12] = 2.0
    layout = group_tiles(row_detections(RowSpec(player_order + ["5z"], gap=0.0, gaps_after=gaps)))
    assert not layout.reversed_view and layout.tiles[layout.winning].code == "5z"
    assert codes_of(layout.tiles, layout.concealed) == player_order


def test_a_wide_gap_where_a_rows_gaps_are_widest_does_not_outweigh_one_standing_out_at_the_other_end():
    # The left end's gap (12 px) is the wider, but its neighbour's is 6: the row's gaps widen
    # leftwards. The right end's (7 px) follows boxes overlapping by 11.
    player_order = CONCEALED_11[:10] + ["1z", "1z", "5z"]
    gaps = _overlapping_more_and_more(player_order + ["5z"], 6, -11)
    gaps[0], gaps[12] = 12.0, 7.0
    layout = group_tiles(row_detections(RowSpec(player_order + ["5z"], gap=0.0, gaps_after=gaps)))
    assert not layout.reversed_view and layout.tiles[layout.winning].code == "5z"
    assert codes_of(layout.tiles, layout.concealed) == player_order


def test_a_tile_laid_by_the_rows_left_end_of_a_hand_one_short_is_read_as_seen_from_across_the_table():
    codes = ["5z", "5z", "1z", "1z", "9s", "8s", "7s", "6p", "5p", "4p", "3m", "2m", "1m"]  # across: descending
    row = row_detections(RowSpec(codes))
    x0, y0 = row[0].box[0], row[0].box[1] + 62
    layout = group_tiles(row + [Detection((x0, y0, x0 + 40, y0 + 56), "5z", 1.0, (("5z", 1.0),))])
    assert layout.reversed_view and layout.tiles[layout.winning].code == "5z"
    assert [layout.tiles[i].code for i in layout.concealed] == codes[::-1]


def test_a_loose_tile_far_from_the_row_is_not_taken_for_the_winning_tile():
    row = row_detections(RowSpec(["1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "1z", "1z", "5z", "5z"]))
    x0, y0 = row[6].box[0], row[6].box[1] + 200  # in front of the row's middle, far from its ends
    layout = group_tiles(row + [Detection((x0, y0, x0 + 40, y0 + 56), "5z", 1.0, (("5z", 1.0),))])
    assert layout.winning is None and len(layout.unassigned) == 1


def test_a_flower_read_surely_behind_the_winning_tiles_gap_stays_a_flower():
    # Four melds, then the single tile and the winning tile apart: a low photo shows a flower laid
    # behind the hand just over the gap, where a misread hand tile would fill a hole in the row.
    tiles = []
    for k, codes in enumerate((["1m", "2m", "3m"], ["4p", "4p", "4p"], ["7s", "8s", "9s"], ["5z", "5z", "5z"])):
        meld = row_detections(RowSpec(codes, origin=(100 + k * 135, 380), sideways={0}))
        tiles += meld + [group_box(meld, "meld")]
    pair = row_detections(RowSpec(["6s", "6s"], origin=(300, 300), gaps_after={0: 30}))
    x0 = pair[0].box[2] - 4
    flower = Detection((x0, 278, x0 + 40, 334), "3f", 1.0, (("3f", 1.0),))
    result = read_detections(tiles + pair + [flower])
    assert result.error is None and result.hand["flowers"] == ["3f"] and result.hand["winning_tile"] == "6s"


def _sure_tiles(labelled: list[tuple[str, tuple[float, float, float, float]]]) -> list[Detection]:
    """Tile detections read surely, from (code, box) pairs: a rendered photo's true boxes."""
    return [Detection(box, code, 1.0, ((code, 1.0),)) for code, box in labelled]


def test_a_stacked_concealed_kong_cut_short_by_the_photos_edge_is_no_claimed_meld():
    # A rendered photo's true boxes (benchmark seed 2026500, held-out art 315): a row running up
    # to the right, the concealed kong at the photo's right edge, face down at both ends with the
    # fourth tile face up on the middle one. The last face-down tile shows as a sliver inside the
    # top tile's box, so the top tile looks turned beside it.
    boxes = _sure_tiles([
        ("2p", (315, 287, 367, 341)), ("2p", (352, 274, 404, 326)), ("7s", (390, 259, 440, 313)),
        ("7s", (427, 246, 476, 300)), ("2p", (488, 225, 535, 277)), ("9m", (555, 212, 610, 277)),
        ("9m", (597, 206, 658, 263)), ("9m", (642, 179, 697, 245)), ("6p", (698, 158, 754, 223)),
        ("7p", (735, 143, 795, 210)), ("8p", (779, 134, 849, 195)), ("back", (841, 100, 909, 170)),
        ("back", (940, 71, 960, 136)), ("3p", (889, 71, 960, 143)), ("2f", (200, 373, 261, 444)),
        ("4f", (243, 356, 301, 426))])
    boxes += [Detection((841, 71, 960, 170), "kong_concealed", 1.0), Detection((698, 134, 849, 223), "meld", 1.0),
              Detection((555, 179, 697, 277), "meld", 1.0)]
    layout = group_tiles(boxes)
    kong = [m for m in layout.melds if "back" in codes_of(layout.tiles, m.tiles)]
    assert [(m.concealed, m.stacked, m.claimed) for m in kong] == [(True, True, None)]
    result = read_detections(boxes, context={"self_drawn": True, "seat_wind": "N", "round_wind": "N"})
    assert {"kind": "kong", "tiles": ["3p"] * 4, "concealed": True} in result.hand["melds"]
    assert result.hand["concealed"] == ["2p", "2p", "7s", "7s"] and result.hand["winning_tile"] == "2p"


def test_a_stacked_concealed_kong_whose_top_tile_chains_to_the_row_behind_is_still_a_kong():
    # A rendered photo's true boxes (benchmark seed 2026900, held-out art 335): melds in a row
    # running up to the right, the concealed row behind them. The kong's face-up top tile, raised
    # on the middle face-down one, lies level with the concealed row and chains to it, so no one
    # row holds the kong's three tiles.
    boxes = _sure_tiles([
        ("5p", (181, 359, 257, 452)), ("5p", (242, 333, 319, 418)), ("4s", (200, 435, 285, 525)),
        ("5s", (256, 404, 334, 498)), ("6s", (305, 384, 382, 477)), ("back", (388, 349, 464, 442)),
        ("back", (493, 309, 559, 401)), ("2p", (433, 304, 512, 398)), ("1s", (537, 285, 615, 377)),
        ("1s", (585, 265, 662, 357)), ("1s", (632, 246, 710, 338)), ("1s", (685, 231, 768, 318)),
        ("4p", (761, 190, 844, 281)), ("5p", (811, 170, 890, 261)), ("6p", (864, 156, 948, 241)),
        ("4f", (0, 518, 78, 610)), ("5f", (49, 495, 130, 584))])
    boxes += [Detection((200, 384, 382, 525), "meld", 1.0), Detection((388, 304, 559, 442), "kong_concealed", 1.0),
              Detection((537, 231, 768, 377), "meld", 1.0), Detection((761, 156, 948, 281), "meld", 1.0)]
    layout = group_tiles(boxes)
    assert layout.warnings == ()
    result = read_detections(boxes, context={"seat_wind": "W", "round_wind": "S"})
    assert result.error is None
    assert {"kind": "kong", "tiles": ["2p"] * 4, "concealed": True} in result.hand["melds"]
    assert result.hand["concealed"] == ["5p"] and result.hand["winning_tile"] == "5p"


def test_a_stacked_kong_seen_steeply_split_between_two_rows_is_still_a_kong():
    # A rendered photo's true boxes (benchmark seed 2026900, held-out art 240), seen from high and
    # close: the kong's first tile chains to the chow before it, its raised top tile and its last
    # tile to the kong after it, each row's piece lying apart from the row's other meld.
    boxes = _sure_tiles([
        ("2m", (15, 18, 105, 123)), ("3m", (78, 37, 168, 129)), ("4m", (142, 56, 232, 171)),
        ("7p", (208, 76, 311, 191)), ("7p", (305, 100, 410, 207)), ("1m", (42, 107, 154, 228)),
        ("2m", (106, 128, 225, 251)), ("3m", (173, 166, 301, 279)), ("1z", (304, 190, 395, 316)),
        ("1z", (448, 236, 552, 365)), ("1z", (370, 176, 481, 309)), ("9s", (546, 267, 653, 398)),
        ("9s", (619, 291, 727, 424)), ("9s", (692, 315, 804, 450)), ("9s", (768, 361, 902, 485))])
    boxes += [Detection((546, 267, 902, 485), "meld", 1.0), Detection((304, 176, 552, 365), "meld", 1.0),
              Detection((42, 107, 301, 279), "meld", 1.0)]
    result = read_detections(boxes, context={"self_drawn": True, "seat_wind": "N", "round_wind": "S"})
    assert result.error is None and result.warnings == []
    assert {"kind": "kong", "tiles": ["1z"] * 4, "concealed": False} in result.hand["melds"]
    assert result.hand["concealed"] == ["2m", "3m", "4m", "7p"] and result.hand["winning_tile"] == "7p"


def test_the_side_of_a_stacked_kongs_lower_tile_boxed_face_down_is_no_tile():
    # The detector's boxes of a rendered photo (benchmark seed 2026900, held-out art 93), seen
    # low: an exposed 6m kong laid with its fourth tile on the middle one, whose lower tile shows
    # its side below the raised top tile, boxed face down. It was read as a concealed kong.
    boxes = _sure_tiles([
        ("6p", (173, 476, 224, 536)), ("6p", (228, 478, 276, 538)), ("6z", (287, 494, 332, 552)),
        ("6z", (326, 495, 370, 554)), ("6z", (364, 505, 419, 556)), ("6s", (426, 498, 467, 558)),
        ("6s", (466, 499, 505, 558)), ("6s", (504, 512, 557, 562)), ("6m", (572, 513, 626, 564)),
        ("6m", (627, 482, 668, 539)), ("6m", (664, 507, 705, 567)), ("2m", (728, 509, 769, 569)),
        ("2m", (766, 509, 808, 569)), ("2m", (804, 521, 865, 571)), ("5f", (49, 516, 101, 575)),
        ("6f", (88, 515, 143, 574))])
    # Read unsurely, with faces among its readings: not a look-alike of a back to leave out as such.
    side = Detection((625, 531, 665, 566), "back", 0.16, (("back", 0.16), ("5z", 0.1), ("6m", 0.08)))
    boxes += [side, Detection((287, 493, 418, 556), "meld", 0.95), Detection((426, 498, 557, 561), "meld", 0.95),
              Detection((571, 481, 705, 567), "meld", 0.94), Detection((728, 507, 865, 571), "meld", 0.94)]
    layout = group_tiles(boxes)
    assert [layout.tiles[i].code for i in layout.unassigned] == ["back"]
    assert any("under a face-up tile" in w for w in layout.warnings)
    result = read_detections(boxes, context={"seat_wind": "W", "round_wind": "N"})
    assert result.error is None
    assert {"kind": "kong", "tiles": ["6m"] * 4, "concealed": False, "claimed": "6m"} in result.hand["melds"]
    assert result.hand["concealed"] == ["6p"] and result.hand["winning_tile"] == "6p"


def test_a_run_that_looks_claimed_but_makes_no_meld_is_read_back_as_concealed_tiles():
    # A close photo: the row's near end stretched by perspective, its first three tiles a little
    # apart and one of them looking turned. Thirteen orphans, the winning tile set apart.
    orphans = ["1m", "9m", "1p", "9p", "1s", "9s", "1z", "2z", "3z", "4z", "5z", "6z", "7z"]
    row = row_detections(RowSpec(orphans + ["1m"], sideways={1}, gaps_after={2: 10, 12: 20}))
    layout = group_tiles(row)
    assert [codes_of(layout.tiles, m.tiles) for m in layout.melds] == [["1m", "9m", "1p"]]
    result = read_detections(row)
    assert result.error is None and result.hand["melds"] == []
    assert sorted(result.hand["concealed"]) == sorted(orphans) and result.hand["winning_tile"] == "1m"
    assert "十三幺" in [f["zh"] for f in result.score["fans"]]
    assert any("make no winning hand as exposed melds: read as concealed tiles" in w for w in result.warnings)
