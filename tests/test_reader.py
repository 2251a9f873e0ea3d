"""Hand reading and the detections -> score pipeline, on synthetic boxes (no model needed)."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import numpy as np
import pytest

from tests.synthetic_boxes import RowSpec, group_box, row_detections, turned
from scoring import score_json
from vision.detections import BACK, Detection, DetectionSet
from vision.grouping import group_tiles, iou as iou_of
from vision.pipeline import read_detections, read_photo
from vision.reader import orient
from vision.photo_errors import PhotoError

RULES = "mcr"
# 123m 456p 789s 55z 77z, winning on 7z (set apart)
CONCEALED = ["1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "5z", "5z", "7z", "7z"]


def hand_row(concealed, winning, probs=None, **kw):
    codes = list(concealed) + [winning]
    return row_detections(RowSpec(codes, gaps_after={len(concealed) - 1: 20}, probs=probs or {}, **kw))


def test_a_clean_hand_scores_and_to_json_has_the_issue_shape():
    result = read_detections(hand_row(CONCEALED, "7z"), rules=RULES)
    assert result.error is None and result.exit_code == 0
    assert result.hand["concealed"] == CONCEALED and result.hand["winning_tile"] == "7z"
    out = result.to_json()
    assert set(out) >= {"tiles", "groups", "hand", "score", "confidence", "warnings"}
    assert set(out["tiles"][0]) >= {"code", "box", "confidence", "alternatives"}
    assert out["score"]["ok"] and out["score"]["total"] == result.score["total"] > 0
    assert out["confidence"] == 1.0


def test_reader_picks_the_alternative_that_makes_a_winning_hand():
    # The 8s is read as 8p first; only 8s completes 789s.
    probs = {7: (("8p", 0.6), ("8s", 0.35), ("9s", 0.05))}
    result = read_detections(hand_row(CONCEALED, "7z", probs), rules=RULES)
    assert result.error is None
    assert result.hand["concealed"] == CONCEALED
    tile = result.tiles[7]
    assert (tile.code, tile.detected, tile.uncertain) == ("8s", "8p", True)
    assert any("8s (first read as 8p)" in w for w in result.warnings)
    assert result.confidence == pytest.approx(0.35)


def test_a_faint_alternative_is_tried_when_nothing_likelier_wins():
    # The classifier gives the true 8s only 1%: no other reading makes a hand, so it is taken.
    probs = {7: (("8p", 0.9), ("8m", 0.09), ("8s", 0.01))}
    result = read_detections(hand_row(CONCEALED, "7z", probs), rules=RULES)
    assert result.error is None and result.hand["concealed"] == CONCEALED
    assert result.confidence == pytest.approx(0.01)


def test_a_sorted_row_prefers_the_reading_that_keeps_its_suit_in_order():
    # The 9s of 789s reads 6s first; 678s would win too, but players sort their tiles.
    probs = {8: (("6s", 0.6), ("9s", 0.4))}
    result = read_detections(hand_row(CONCEALED, "7z", probs), rules=RULES)
    assert result.hand["concealed"] == CONCEALED
    assert result.runner_up is not None and "6s" in result.runner_up["hand"]["concealed"]


def test_a_sorted_row_keeps_each_suit_in_one_block():
    # The 1s pung reads 3z first; 3z 3z 3z would win too, but it would split the honours in two.
    concealed = ["1m", "2m", "3m", "4m", "5m", "6m", "1s", "1s", "1s", "7s", "8s", "9s", "5z"]
    probs = {k: (("3z", 0.6), ("1s", 0.4)) for k in (6, 7, 8)}
    result = read_detections(hand_row(concealed, "5z", probs), rules=RULES)
    assert result.hand["concealed"] == concealed
    assert result.runner_up is not None and "3z" in result.runner_up["hand"]["concealed"]


@pytest.mark.parametrize("laid", [["7s", "8s", "9s"], ["9s", "8s", "7s"]])
def test_an_exposed_chow_is_read_in_the_order_it_is_laid(laid):
    # The chow's 9s reads 6s first: 678s would win too, but a chow lies in order, up or down.
    nine = laid.index("9s")
    concealed = ["1m", "2m", "3m", "4p", "5p", "6p", "5z", "5z", "7z", "7z"]
    meld = row_detections(RowSpec(laid, origin=(150, 380), probs={nine: (("6s", 0.6), ("9s", 0.4))}))
    result = read_detections(hand_row(concealed, "7z") + meld, rules=RULES)
    [chow] = result.hand["melds"]
    assert chow["kind"] == "chow" and sorted(chow["tiles"]) == ["7s", "8s", "9s"]
    assert result.runner_up is not None and sorted(result.runner_up["hand"]["melds"][0]["tiles"]) == ["6s", "7s", "8s"]
    assert result.confidence == pytest.approx(0.4)


def test_an_unsorted_row_takes_the_most_probable_reading():
    shuffled = ["9s", "5p", "1m", "7z", "8s", "3m", "5z", "4p", "7s", "2m", "6p", "5z", "7z"]
    probs = {0: (("6s", 0.6), ("9s", 0.4))}
    result = read_detections(hand_row(shuffled, "7z", probs), rules=RULES)
    assert result.hand["concealed"][0] == "6s"


def test_close_runner_up_is_reported():
    # 45m waits on 3m or 6m; the winning tile reads 3m (0.55) or 6m (0.45): both win.
    concealed = ["4m", "5m", "1p", "2p", "3p", "7s", "8s", "9s", "2z", "2z", "2z", "5z", "5z"]
    probs = {13: (("3m", 0.55), ("6m", 0.45))}
    result = read_detections(hand_row(concealed, "3m", probs), rules=RULES)
    assert result.hand["winning_tile"] == "3m"
    assert result.runner_up is not None and result.runner_up["hand"]["winning_tile"] == "6m"
    assert result.runner_up["probability"] == pytest.approx(0.45)


def test_five_copies_read_is_not_a_winning_hand():
    concealed = ["1m", "1m", "1m", "1m", "1m", "2m", "3m", "4p", "5p", "6p", "7s", "7s", "9s"]
    result = read_detections(hand_row(concealed, "9s"), rules=RULES)
    assert result.exit_code == 4 and result.error.code == "too_many_copies"
    assert "5 copies of 1m" in result.error.message
    assert result.hand is not None  # the best reading is still shown


def test_a_hand_below_the_minimum_says_what_it_lacks():
    concealed = ["1m", "2m", "3m", "4m", "5m", "6m", "7p", "8p", "9p", "2s", "3s", "4s", "5s"]
    result = read_detections(hand_row(concealed, "5s"), rules=RULES)
    assert result.exit_code == 4 and result.error.code == "below_minimum"
    assert result.error.message.endswith("below the minimum: 5 fans without flowers; MCR needs 8.")


@pytest.mark.parametrize("count", [12, 14])
def test_thirteen_or_fifteen_tiles_give_a_tile_count_error(count):
    concealed = (CONCEALED + ["9p"])[:count]
    result = read_detections(hand_row(concealed, "7z"), rules=RULES)
    assert result.exit_code == 4 and result.error.code == "tile_count"
    assert f"read {count + 1} tiles" in result.error.message
    assert len(result.tiles) == count + 1  # the tiles are still reported


def test_one_tile_alone_is_counted_as_one_tile():
    result = read_detections(hand_row([], "5s"), rules=RULES)
    assert result.error.code == "tile_count" and "read 1 tile: 1 concealed" in result.error.message


def test_a_winning_tile_named_but_not_in_the_photo_completes_the_hand():
    thirteen = row_detections(RowSpec(CONCEALED))  # the player still holds the winning 7z
    result = read_detections(thirteen, rules=RULES, winning_tile="7z")
    assert result.error is None and result.hand["winning_tile"] == "7z"
    assert result.hand["concealed"] == CONCEALED and result.score["total"] > 0
    assert any("not in the photo" in w for w in result.warnings)
    assert all(t.role == "concealed" for t in result.tiles)
    unnamed = read_detections(thirteen, rules=RULES)
    assert unnamed.error.code == "tile_count" and "--winning-tile" in unnamed.error.message
    # With a tile set apart as the winning tile, a missing tile is a concealed one: no guess.
    set_apart = read_detections(hand_row(CONCEALED[:-1], "7z"), rules=RULES, winning_tile="7z")
    assert set_apart.error.code == "tile_count" and "--winning-tile" not in set_apart.error.message
    twelve = read_detections(row_detections(RowSpec(CONCEALED[:-1])), rules=RULES, winning_tile="7z")
    assert twelve.error.code == "tile_count"


def test_a_short_hand_at_the_photos_edge_says_a_tile_may_be_cut_off():
    row = hand_row(CONCEALED[1:], "7z")  # the first tile lies outside the photo
    left = row[0].box[0]
    shifted = [Detection((x1 - left, y1, x2 - left, y2), d.code, d.confidence, d.alternatives)
               for d in row for x1, y1, x2, y2 in [d.box]]
    at_edge = read_detections(shifted, rules=RULES, image_size=(1000, 700))
    assert at_edge.error.code == "tile_count" and "cut off" in at_edge.error.message
    inside = read_detections(row, rules=RULES, image_size=(1000, 700))
    assert inside.error.code == "tile_count" and "cut off" not in inside.error.message
    unknown = read_detections(shifted, rules=RULES)  # no photo size: no guess about its edge
    assert unknown.error.code == "tile_count" and "cut off" not in unknown.error.message
    photo = read_photo(np.zeros((700, 1000, 3), np.uint8), rules=RULES, detect=lambda _: shifted)
    assert photo.error.code == "tile_count" and "cut off" in photo.error.message


def test_a_flower_at_the_photos_edge_says_more_may_lie_beyond_it():
    def read(flower_left, **kw):
        flower = Detection((flower_left, 300, flower_left + 40, 356), "3f", 0.95, (("3f", 0.95),))
        return read_detections(hand_row(CONCEALED, "7z", origin=(200, 300)) + [flower], rules=RULES, **kw)

    def warned(result):
        return any("flower lies at the photo's edge" in w for w in result.warnings)

    at_edge = read(0, image_size=(1000, 700))
    assert at_edge.error is None and at_edge.hand["flowers"] == ["3f"] and warned(at_edge)
    assert not warned(read(100, image_size=(1000, 700)))
    assert not warned(read(0, image_size=(1000, 700), flowers=["3f", "4f"]))  # named: nothing beyond
    assert not warned(read(0))  # no photo size: no guess about its edge


def test_a_hand_read_unsurely_from_small_tiles_is_told_to_take_the_photo_closer():
    def small_hand(probs=None):
        codes = CONCEALED + ["7z"]
        return row_detections(RowSpec(codes, tile_w=16, tile_h=22, gaps_after={12: 8}, probs=probs or {}))

    unsure = {7: (("8p", 0.85), ("8s", 0.15))}  # only 8s wins: read at 0.15
    told = read_detections(small_hand(unsure), rules=RULES)
    assert told.error is None and told.confidence < 0.2
    assert any("tiles are small in the photo (about 16 px across)" in w for w in told.warnings)
    short = read_detections(small_hand()[1:], rules=RULES)  # no winning hand at all
    assert short.error.code == "tile_count" and any("take it closer" in w for w in short.warnings)
    # Read surely, small tiles need no better photo; nor do tiles large enough that fail.
    assert not any("take it closer" in w for w in read_detections(small_hand(), rules=RULES).warnings)
    large = read_detections(hand_row(CONCEALED, "7z", unsure), rules=RULES)
    assert large.confidence < 0.2 and not any("take it closer" in w for w in large.warnings)
    large_short = read_detections(hand_row(CONCEALED, "7z")[1:], rules=RULES)
    assert large_short.error.code == "tile_count" and not any("take it closer" in w for w in large_short.warnings)


def _blank_photo():
    return np.zeros((700, 1000, 3), np.uint8)


def test_a_hand_one_tile_short_takes_back_a_rejected_box_that_makes_it_win():
    row = hand_row(CONCEALED, "7z")
    # The classifier rejected the 2m (blurred, seen edge-on) but still finds 2m its likeliest tile.
    unread = replace(row[1], alternatives=(("2m", 0.3), ("5z", 0.2)), not_a_tile=0.5)
    stray = Detection((900, 20, 940, 76), "5z", 0.4, (("5z", 0.4),), not_a_tile=0.6)
    found = DetectionSet(tuple(row[:1] + row[2:]), (stray, unread))
    result = read_photo(_blank_photo(), rules=RULES, detect=lambda _: found)
    assert result.error is None
    assert result.hand["concealed"] == CONCEALED and result.hand["winning_tile"] == "7z"
    assert any("took in a box the tile classifier rejected (read 2m" in w for w in result.warnings)
    # Without the rejected boxes the same tiles read one short, as before.
    short = read_photo(_blank_photo(), rules=RULES, detect=lambda _: list(found.kept))
    assert short.error.code == "tile_count"


def test_a_rejected_box_with_no_tile_reading_at_all_is_not_taken_back():
    # The classifier is certain a box holds no tile: every tile code at 0 (an int8 model saturates).
    # Its hand is read surely but does not win (a 2m read as 9p), so the second look runs.
    row = hand_row(CONCEALED, "7z", {1: (("9p", 1.0),)})
    blank = Detection((900, 20, 940, 76), "1m", 0.0, (("1m", 0.0),), not_a_tile=1.0)
    result = read_photo(_blank_photo(), rules=RULES, detect=lambda _: DetectionSet(tuple(row), (blank,)))
    assert result.error.kind == "not_winning"
    assert all(t.box != blank.box for t in result.tiles)


def test_a_rejected_box_taken_back_may_hold_a_tile_the_classifier_did_not_list():
    row = hand_row(CONCEALED, "7z")
    unread = replace(row[1], alternatives=(("5z", 0.3), ("6z", 0.2)), not_a_tile=0.5)
    found = DetectionSet(tuple(row[:1] + row[2:]), (unread,))
    result = read_photo(_blank_photo(), rules=RULES, detect=lambda _: found)
    assert result.error is None and result.hand["concealed"] == CONCEALED
    taken = next(t for t in result.tiles if t.box == unread.box)
    assert taken.code == "2m" and taken.uncertain


def test_a_hand_no_listed_reading_wins_is_read_with_every_face_free():
    # The classifier lists only honours for the 2m; no box is doubtful, so only its free face helps.
    misread = {1: (("5z", 0.6), ("6z", 0.4))}
    row = [replace(d, not_a_tile=0.01) for d in hand_row(CONCEALED, "7z", misread)]
    result = read_photo(_blank_photo(), rules=RULES, detect=lambda _: DetectionSet(tuple(row)))
    assert result.error is None and result.hand["concealed"] == CONCEALED
    assert result.tiles[1].code == "2m" and result.tiles[1].uncertain
    assert any("tiles not read surely free" in w for w in result.warnings)
    assert read_detections(row, rules=RULES).hand["concealed"] == CONCEALED  # any detector's boxes alike


def test_a_hand_one_tile_over_leaves_out_the_box_the_classifier_doubted_most():
    # A shadow at the row's end, kept as a White dragon though the classifier half thought it no tile.
    row = hand_row(["5z"] + CONCEALED, "7z")
    ghost = replace(row[0], confidence=0.5, alternatives=(("5z", 0.5),), not_a_tile=0.4)
    sure = [replace(d, not_a_tile=0.01) for d in row[1:]]
    result = read_photo(_blank_photo(), rules=RULES, detect=lambda _: DetectionSet(tuple([ghost] + sure)))
    assert result.error is None and result.hand["concealed"] == CONCEALED
    assert any("left out a box the tile classifier doubted (read 5z, 40% not a tile, at x " in w for w in result.warnings)
    assert [(t.box, t.role) for t in result.tiles if t.box == ghost.box] == [(ghost.box, "unassigned")]
    # A hand that wins as read keeps every box, doubted or not.
    doubted = [replace(d, not_a_tile=0.3) for d in hand_row(CONCEALED, "7z")]
    kept = read_photo(_blank_photo(), rules=RULES, detect=lambda _: DetectionSet(tuple(doubted)))
    assert kept.error is None and not any("doubted" in w for w in kept.warnings)


def test_a_hand_short_of_tiles_is_tried_only_with_boxes_taken_back(monkeypatch):
    # Leaving a box out or freeing faces cannot complete a hand a tile short whose every tile
    # found its place: those readings are not tried, and the box taken back still is.
    import vision.pipeline as pipeline

    row = [replace(d, not_a_tile=0.3) for d in hand_row(CONCEALED, "7z")]  # every box doubted
    unread = replace(row[1], alternatives=(("2m", 0.3), ("5z", 0.2)), not_a_tile=0.5)
    reads = []
    original = pipeline._read
    monkeypatch.setattr(pipeline, "_read", lambda boxes, request, on_a_tile: reads.append(len(boxes))
                        or original(boxes, request, on_a_tile))
    result = read_photo(_blank_photo(), rules=RULES, detect=lambda _: DetectionSet(tuple(row[:1] + row[2:]), (unread,)))
    assert result.error is None and result.hand["concealed"] == CONCEALED
    assert reads == [len(row) - 1, len(row)]  # the first reading, then only the box taken back
    reads.clear()
    short = read_photo(_blank_photo(), rules=RULES, detect=lambda _: DetectionSet(tuple(row[:1] + row[2:])))
    assert short.error.code == "tile_count" and reads == [len(row) - 1]
    # A hand a tile over is still tried with the doubted boxes left out.
    reads.clear()
    shadow = replace(hand_row(["5z"] + CONCEALED, "7z")[0], confidence=0.5, alternatives=(("5z", 0.5),), not_a_tile=0.4)
    over = read_photo(_blank_photo(), rules=RULES,
                      detect=lambda _: DetectionSet(tuple([shadow] + hand_row(["5z"] + CONCEALED, "7z")[1:])))
    assert over.error is None and any("left out a box the tile classifier doubted (read 5z" in w for w in over.warnings)
    assert reads[0] == len(row) + 1


def test_a_hand_short_because_a_stray_box_kept_a_meld_out_is_tried_with_it_left_out():
    # A doubted box touching a kong's end makes a run of five that is no meld: the hand reads
    # four tiles short, and only leaving the box out gives the kong back (a red-team case).
    concealed = ["1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "7z"]
    row = row_detections(RowSpec(concealed + ["7z"], gaps_after={9: 20}))
    kong = row_detections(RowSpec(["1s"] * 4, origin=(100.0, 400.0)))
    end = kong[-1].box[2]
    stray = Detection((end + 1, 400.0, end + 41, 456.0), "2s", 0.6, (("2s", 0.6), ("3s", 0.2)), not_a_tile=0.4)
    result = read_photo(_blank_photo(), rules=RULES, detect=lambda _: DetectionSet(tuple(row + kong + [stray])))
    assert result.error is None and result.hand["concealed"] == concealed
    assert [m["tiles"] for m in result.hand["melds"]] == [["1s"] * 4]
    assert any("left out a box the tile classifier doubted (read 2s" in w for w in result.warnings)


def _second_box(tile: Detection, shift: float) -> Detection:
    """The detector's second box on `tile`, `shift` of its width to the right (IoU 0.33-0.54)."""
    dx = shift * tile.width
    return Detection((tile.box[0] + dx, tile.box[1], tile.box[2] + dx, tile.box[3]), tile.code, 0.5, ((tile.code, 0.5),))


@pytest.mark.parametrize("shift", [0.3, 0.4, 0.5, -0.3, -0.5])
@pytest.mark.parametrize("which", [0, len(CONCEALED) - 1])
def test_a_second_box_on_a_tile_is_left_out(which, shift):
    # On the last concealed tile it hangs into the gap before the winning tile, on the first
    # past the row's end; only the hand tells which box of the two repeats the other.
    row = hand_row(CONCEALED, "7z")
    second = _second_box(row[which], shift)
    result = read_detections(row + [second], rules=RULES)
    assert result.error is None
    assert result.hand["concealed"] == CONCEALED and result.hand["winning_tile"] == "7z"
    # Either box of the pair may be the one left out: both read the same tile.
    assert any(f"left out a box lying half over another tile's box (read {CONCEALED[which]}" in w
               or "straddling two neighbouring tiles" in w for w in result.warnings)
    assert [t.box for t in result.tiles if t.role == "unassigned"] in ([second.box], [row[which].box])


@pytest.mark.parametrize("degrees", [20.0, 30.0, 40.0])
def test_a_flower_read_as_a_playing_tile_apart_at_the_left_of_a_hand_askew_is_a_flower(degrees):
    # The hand is a tile over; the tile set 30 px apart at its left reads 2m first, 3f second.
    concealed = ["1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m", "5z", "5z", "7z", "7z"]
    row = row_detections(RowSpec(["2m"] + concealed + ["7z"], gaps_after={0: 30.0, 13: 20},
                                 probs={0: (("2m", 0.6), ("3f", 0.4))}))
    result = read_detections(turned(row, degrees), rules=RULES)
    assert result.error is None and result.hand["flowers"] == ["3f"] and result.hand["concealed"] == concealed


def test_a_second_box_on_a_tile_too_far_off_is_a_tile():
    # Shifted by 0.6 of a width (IoU 0.25) it overlaps no more than tilted neighbours do.
    row = hand_row(CONCEALED, "7z")
    result = read_detections(row + [_second_box(row[len(CONCEALED) - 1], 0.6)], rules=RULES)
    assert result.error.code == "tile_count"


def test_a_hand_no_box_change_makes_win_is_read_from_the_photo_at_the_other_size():
    row = [replace(d, not_a_tile=0.01) for d in hand_row(CONCEALED, "7z")]
    # At its usual size the detector missed the 2m outright; at the other size it boxed every tile.
    found = DetectionSet(tuple(row[:1] + row[2:]), other_size=lambda: DetectionSet(tuple(row)))
    result = read_photo(_blank_photo(), rules=RULES, detect=lambda _: found)
    assert result.error is None and result.hand["concealed"] == CONCEALED
    assert any("photo at its other input size" in w for w in result.warnings)
    assert read_photo(_blank_photo(), rules=RULES, detect=lambda _: replace(found, other_size=None)).error.code == "tile_count"


def test_a_hand_that_wins_is_not_read_again_at_the_other_size():
    def unwanted():
        raise AssertionError("read again though the hand won")

    found = DetectionSet(tuple(hand_row(CONCEALED, "7z")), other_size=unwanted)
    result = read_photo(_blank_photo(), rules=RULES, detect=lambda _: found)
    assert result.error is None and not any("other input size" in w for w in result.warnings)


def test_a_hand_with_a_tile_cut_off_by_the_photos_edge_is_not_read_from_changed_copies():
    def unwanted():
        raise AssertionError("a changed copy read though a tile lies outside the photo")

    row = hand_row(CONCEALED[1:], "7z")  # the first tile lies outside the photo
    left = row[0].box[0]
    at_edge = [replace(d, box=(d.box[0] - left, d.box[1], d.box[2] - left, d.box[3])) for d in row]
    # The other input size is still tried: the tile missing may be one the detector missed.
    tried = []
    found = DetectionSet(tuple(at_edge), other_size=lambda: tried.append(1) or DetectionSet(tuple(at_edge)),
                         in_balanced_light=unwanted, unshaken=unwanted, sharpened=unwanted, deglared=unwanted)
    result = read_photo(_blank_photo(), rules=RULES, detect=lambda _: found)
    assert result.error.code == "tile_count" and "cut off" in result.error.message and tried == [1]


def test_several_players_rows_are_not_read_from_changed_copies_nor_told_to_retake():
    """No shake undone or light balanced makes one hand of several; its retake advice would blame them."""
    def unwanted():
        raise AssertionError("a changed copy read though the photo shows several players' rows")

    rows = [d for y in (50, 400, 750) for d in row_detections(RowSpec(CONCEALED + ["1z"], origin=(100, y)))]
    found = DetectionSet(tuple(rows), in_balanced_light=unwanted, unshaken=unwanted, sharpened=unwanted,
                         deglared=unwanted)
    result = read_photo(_blank_photo(), rules=RULES, detect=lambda _: found, turn_level=False)
    assert result.error.code == "several_hands" and result.warnings == []


CHANGED_COPIES = [("in_balanced_light", "light balanced", "under a white lamp"),
                  ("unshaken", "shake undone", "hold the phone still"),
                  ("sharpened", "photo sharpened", "let the phone focus"),
                  ("deglared", "tiles under it free", "without the flash")]


@pytest.mark.parametrize("changed, warning, retake", CHANGED_COPIES)
def test_an_unsure_hand_is_read_again_from_a_changed_copy_of_the_photo(changed, warning, retake):
    row = hand_row(CONCEALED, "7z")
    # Under the lamp (or blurred) the 8s reads 8p; in the changed copy the classifier reads it surely.
    unsure = list(row)
    unsure[7] = replace(row[7], code="8p", confidence=0.9, alternatives=(("8p", 0.9), ("8s", 0.1)))
    found = replace(DetectionSet(tuple(unsure)), **{changed: lambda: DetectionSet(tuple(row))})
    result = read_photo(_blank_photo(), rules=RULES, detect=lambda _: found)
    assert result.error is None and result.hand["concealed"] == CONCEALED and result.confidence == 1.0
    assert any(warning in w for w in result.warnings)
    # A photo that needs no such copy (faces lit as in training, tiles sharp): the unsure reading stands.
    as_taken = read_photo(_blank_photo(), rules=RULES, detect=lambda _: replace(found, **{changed: lambda: None}))
    assert as_taken.confidence == pytest.approx(0.1) and not any(warning in w for w in as_taken.warnings)
    assert not any(retake in w for w in as_taken.warnings + result.warnings)


@pytest.mark.parametrize("changed, warning, retake", CHANGED_COPIES)
def test_a_reading_of_a_changed_copy_less_sure_than_the_first_is_not_kept(changed, warning, retake):
    row = hand_row(CONCEALED, "7z")
    unsure = list(row)
    unsure[7] = replace(row[7], code="8p", confidence=0.85, alternatives=(("8p", 0.85), ("8s", 0.15)))
    worse = list(row)
    worse[7] = replace(row[7], code="8p", confidence=0.95, alternatives=(("8p", 0.95), ("8s", 0.05)))
    found = replace(DetectionSet(tuple(unsure)), **{changed: lambda: DetectionSet(tuple(worse))})
    result = read_photo(_blank_photo(), rules=RULES, detect=lambda _: found)
    assert result.confidence == pytest.approx(0.15) and not any(warning in w for w in result.warnings)
    # The photo's fault is named, with how to take a better one.
    assert sum(retake in w for w in result.warnings) == 1


@pytest.mark.parametrize("changed, warning, retake", CHANGED_COPIES)
def test_a_hand_read_surely_is_not_read_again_from_a_changed_copy(changed, warning, retake):
    def unwanted():
        raise AssertionError("read again though the hand read surely")

    found = replace(DetectionSet(tuple(hand_row(CONCEALED, "7z"))), **{changed: unwanted})
    result = read_photo(_blank_photo(), rules=RULES, detect=lambda _: found)
    assert result.confidence == 1.0 and not any(w in r for r in result.warnings for w in (warning, retake))


def _kong_scene(kong_codes):
    concealed = ["1m", "2m", "3m", "4p", "5p", "6p", "7s", "7s", "7s", "9s"]
    tiles = hand_row(concealed, "9s")
    tiles += row_detections(RowSpec(kong_codes, origin=(150, 380)))
    return tiles


def test_concealed_kong_with_two_tiles_face_down():
    result = read_detections(_kong_scene(["back", "6z", "6z", "back"]), rules=RULES)
    assert result.error is None
    assert result.hand["melds"] == [{"kind": "kong", "tiles": ["6z"] * 4, "concealed": True}]
    assert [g.label for g in result.groups if g.kind == "kong"] == ["concealed kong"]


@pytest.mark.parametrize("boxed", [False, True])
def test_a_kong_all_face_up_none_turned_is_concealed_with_its_exposed_score_told(boxed):
    tiles = _kong_scene(["6z"] * 4)
    if boxed:
        tiles.append(group_box(tiles[-4:], "kong_concealed"))
    result = read_detections(tiles, rules=RULES)
    assert result.hand["melds"] == [{"kind": "kong", "tiles": ["6z"] * 4, "concealed": True}]
    exposed = score_json({**result.hand, "melds": [{"kind": "kong", "tiles": ["6z"] * 4, "concealed": False}]})
    assert exposed["total"] != result.score["total"]
    assert (f"the 6z kong lies all face up with no tile turned and was read as concealed; if it was claimed "
            f"(exposed), it scores {exposed['total']} instead of {result.score['total']}") in result.warnings


def test_a_kong_with_tiles_face_down_or_one_turned_needs_no_such_warning():
    down = read_detections(_kong_scene(["back", "6z", "6z", "back"]), rules=RULES)
    claimed = (hand_row(["1m", "1m", "1m", "2m", "3m", "4m", "5m", "6m", "7m", "9m"], "9m")  # half flush: 8 fans
               + row_detections(RowSpec(["6z"] * 4, origin=(150, 380), sideways={1})))
    turned_one = read_detections(claimed, rules=RULES)
    assert [m["concealed"] for m in turned_one.hand["melds"]] == [False]
    for result in (down, turned_one):
        assert result.error is None and not any("all face up" in w for w in result.warnings)


def test_kong_all_face_down_needs_a_hint():
    result = read_detections(_kong_scene(["back"] * 4), rules=RULES)
    assert result.exit_code == 4 and result.error.code == "unknown_kong"
    assert "--kong" in result.error.message
    hinted = read_detections(_kong_scene(["back"] * 4), rules=RULES, kong_codes=["3z"])
    assert hinted.score["ok"] and hinted.score["reason"] != "not_winning"
    assert hinted.hand["melds"][0]["tiles"] == ["3z"] * 4
    assert not any("--kong" in w for w in hinted.warnings)


def test_kong_hints_beyond_the_face_down_kongs_are_warned_of():
    result = read_detections(_kong_scene(["back"] * 4), rules=RULES, kong_codes=["3z", "5s", "1m"])
    assert result.hand["melds"][0]["tiles"] == ["3z"] * 4
    assert "--kong 5s 1m: ignored, the photo shows 1 kong(s) with all four tiles face down" in result.warnings


def _stacked_scene(codes, raised, **kw):
    """A hand with a meld of three tiles in front, the middle one lifted `raised` pixels (of a
    56-pixel tile): a kong with its fourth tile on the middle one, seen from higher or lower."""
    tiles = hand_row(["1m", "2m", "3m", "4p", "5p", "6p", "7s", "7s", "7s", "9s"], "9s")
    return tiles + row_detections(RowSpec(codes, origin=(150, 380), raised={1: raised}, **kw))


@pytest.mark.parametrize("raised", [14, 28])  # 0.25 and 0.5 of a tile's height
def test_a_kong_stacked_on_its_middle_tile_is_read_as_four_tiles(raised):
    result = read_detections(_stacked_scene(["9m"] * 3, raised), rules=RULES)
    assert result.hand["melds"] == [{"kind": "kong", "tiles": ["9m"] * 4, "concealed": False}]
    kongs = [g.to_json() for g in result.groups if g.kind == "kong"]
    assert [(g["label"], g["stacked"], len(g["tiles"])) for g in kongs] == [("exposed kong, stacked", True, 3)]
    assert not result.warnings


def test_a_stacked_concealed_kong_whose_top_tile_lies_off_the_middle_is_read_without_a_box():
    """No grouping box; the top tile lies nearer one end, leaving a gap wider than the row's
    cuts beside it."""
    result = read_detections(_stacked_scene(["back", "9m", "back"], 14, gaps_after={1: 8}), rules=RULES)
    assert result.hand["melds"] == [{"kind": "kong", "tiles": ["9m"] * 4, "concealed": True}]


def test_a_stacked_kong_whose_top_tile_box_takes_in_the_side_below_is_read_as_four_tiles():
    """The detector boxes the top tile down to the table: its top edge lies above its
    neighbours', its bottom edge level with theirs."""
    tiles = _stacked_scene(["9m"] * 3, 0)
    x0, y0, x1, y1 = tiles[-2].box
    tiles[-2] = replace(tiles[-2], box=(x0, y0 - 12, x1, y1))
    result = read_detections(tiles, rules=RULES)
    assert result.hand["melds"] == [{"kind": "kong", "tiles": ["9m"] * 4, "concealed": False}]


@pytest.mark.parametrize("end", [0, 2])
def test_a_claimed_pung_with_its_sideways_tile_at_an_end_and_the_middle_nudged_stays_a_pung(end):
    """The sideways tile's shorter box lowers the line of the ends' tops; the middle tile, nudged
    back a millimetre or two, is still level with their near edges."""
    for nudge in (0, 2, 5):
        tiles = _stacked_scene(["2s"] * 3, nudge, sideways={end})
        result = read_detections(tiles + [group_box(tiles[-3:], "meld")], rules=RULES)
        assert result.hand["melds"][0]["kind"] == "pung", nudge


def test_a_pung_with_its_middle_tile_turned_on_the_table_stays_a_pung():
    """A tile turned 15 degrees has a box wider and taller than its neighbours', its top edge above
    theirs, as a stacked kong's top tile's box is taller."""
    tiles = _stacked_scene(["9m"] * 3, 3)
    (x0, y0, x1, y1), grow = tiles[-2].box, 0.3 * 40 / 2
    tiles[-2] = replace(tiles[-2], box=(x0 - grow, y0 - 10, x1 + grow, y1))
    assert read_detections(tiles, rules=RULES).hand["melds"][0]["kind"] == "pung"


@pytest.mark.parametrize("seen, kind", [(0.9, "kong"), (0.2, "pung")])
def test_a_level_meld_whose_middle_tile_the_stack_model_sees_on_another_is_a_stacked_kong(seen, kind):
    """Seen from straight above, a stacked kong's top tile stands level with its neighbours: only
    the photo (the stack model) tells it from a pung's middle tile."""
    tiles = _stacked_scene(["9m"] * 3, 0)
    asked = []

    def on_a_tile(boxes):
        asked.extend(boxes)
        return [seen] * len(boxes)

    result = read_detections(DetectionSet(tuple(tiles), on_a_tile=on_a_tile), rules=RULES)
    assert result.hand["melds"] == [{"kind": kind, "tiles": ["9m"] * (4 if kind == "kong" else 3), "concealed": False}]
    assert {d.box for d in asked} == {tiles[-2].box}  # the meld's middle tile, nothing else


def test_a_chow_is_never_shown_to_the_stack_model():
    tiles = _stacked_scene(["1s", "2s", "3s"], 0)
    result = read_detections(DetectionSet(tuple(tiles), on_a_tile=lambda boxes: pytest.fail("asked")), rules=RULES)
    assert result.hand["melds"][0]["kind"] == "chow"


def test_a_hand_below_the_minimum_that_a_stacked_kong_would_lift_names_the_kong_to_give():
    """From straight above, a kong with its fourth tile on the middle one shows three level tiles."""
    concealed = ["1m", "2m", "3m", "4m", "5m", "6m", "7s", "8s", "9s", "5z"]
    tiles = hand_row(concealed, "5z") + row_detections(RowSpec(["1z"] * 3, origin=(150, 380)))
    result = read_detections(tiles, rules=RULES)
    assert result.error.code == "below_minimum" and result.hand["melds"][0]["kind"] == "pung"
    assert result.error.message.endswith(
        "MCR needs 8. If the 1z pung is a kong laid with its fourth tile under the middle one, give --kong 1z: "
        "it then scores 8.")
    named = read_detections(tiles, rules=RULES, kong_codes=["1z"])
    assert named.error is None and named.score["total"] == 8
    assert named.hand["melds"] == [{"kind": "kong", "tiles": ["1z"] * 4, "concealed": False}]


def test_a_kong_stacked_on_its_claimed_tile_lying_sideways_is_read_as_four_tiles():
    """The top tile lies sideways on the sideways claimed tile: no taller than the upright tiles
    beside it, but its near edge lifted off theirs."""
    result = read_detections(_stacked_scene(["9m"] * 3, 22, sideways={1}), rules=RULES)
    assert result.hand["melds"] == [{"kind": "kong", "tiles": ["9m"] * 4, "concealed": False, "claimed": "9m"}]


def test_a_stacked_top_tile_boxed_wider_than_the_tiles_below_is_read_as_four_tiles():
    """Nearer the camera and showing its sides, the top tile's box is wider than its neighbours';
    lifted clear of their near edges, it lies on a tile rather than turned on the table."""
    tiles = _stacked_scene(["9m"] * 3, 14)
    (x0, y0, x1, y1), grow = tiles[-2].box, 0.15 * 40
    tiles[-2] = replace(tiles[-2], box=(x0 - grow, y0, x1 + grow, y1))
    assert read_detections(tiles, rules=RULES).hand["melds"][0]["kind"] == "kong"


@pytest.mark.parametrize("across, kind", [(False, "kong"), (True, "pung")])
def test_a_sideways_tile_lifted_off_its_neighbours_bottom_edges_is_stacked_only_seen_from_the_players_seat(across, kind):
    """Players line tiles up by their near edges. From the player's seat those are the bottom
    edges in the photo, and a sideways tile with its bottom edge lifted well off its neighbours'
    (its top edge a little too) lies on another; from across the table they are the top edges, and
    the same boxes are a claimed pung's sideways tile laid a little off them (the winning tile, set
    apart at the image's left, tells)."""
    meld = row_detections(RowSpec(["9m"] * 3, origin=(150, 380), sideways={1}, raised={1: 22}))
    assert read_detections(_seen_from(across) + meld, rules=RULES).hand["melds"][0]["kind"] == kind


def test_a_sideways_claimed_tile_lined_up_with_its_neighbours_far_edges_stays_a_pung():
    """Lined up by the far edges, a sideways tile's near edge lies as far off its neighbours' as a
    stacked top tile's would, but its far edge lies level with theirs."""
    meld = row_detections(RowSpec(["9m"] * 3, origin=(150, 380), sideways={1}, raised={1: 16}))
    assert read_detections(_seen_from(False) + meld, rules=RULES).hand["melds"][0]["kind"] == "pung"


def _seen_from(across):
    """The concealed row of `_stacked_scene`, photographed from the player's seat or from across
    the table (the winning tile then set apart at the image's left)."""
    concealed = ["1m", "2m", "3m", "4p", "5p", "6p", "7s", "7s", "7s", "9s"]
    return row_detections(RowSpec(["9s"] + concealed[::-1], gaps_after={0: 20})) if across else hand_row(concealed, "9s")


def test_a_lone_concealed_tile_beside_the_winning_one_does_not_tell_which_edges_are_near():
    """Either of the two may be the one set apart, so the view is unknown: a sideways tile lifted
    off its neighbours' bottom edges but level with their top edges may be lined up with the
    player's edge from across the table, and stays a pung."""
    row = hand_row(["9s"], "9s")
    melds = [row_detections(RowSpec(codes, origin=(40 + 140 * k, 380), sideways={1}, raised={1: 16} if k == 3 else {}))
             for k, codes in enumerate((["1m", "2m", "3m"], ["4p", "5p", "6p"], ["7s"] * 3, ["9m"] * 3))]
    result = read_detections(row + [t for meld in melds for t in meld], rules=RULES)
    assert sorted((m["kind"], m["tiles"][0]) for m in result.hand["melds"]) == [
        ("chow", "1m"), ("chow", "4p"), ("pung", "7s"), ("pung", "9m")]


def test_the_photo_command_prints_a_stacked_kong_as_one():
    from vision.photo_cli import format_result

    text = format_result(read_detections(_stacked_scene(["9m"] * 3, 14), rules=RULES), RULES)
    assert "meld:         9m 9m 9m 9m  (exposed kong, stacked)" in text.splitlines()


def test_a_pung_or_chow_with_its_middle_tile_off_line_is_no_stacked_kong():
    pung = read_detections(_stacked_scene(["9m"] * 3, 4), rules=RULES)  # laid a little untidily
    assert pung.hand["melds"] == [{"kind": "pung", "tiles": ["9m"] * 3, "concealed": False}]
    chow = read_detections(_stacked_scene(["4m", "5m", "6m"], 10), rules=RULES)  # no chow is stacked
    assert chow.hand["melds"] == [{"kind": "chow", "tiles": ["4m", "5m", "6m"], "concealed": False}]


@pytest.mark.parametrize("raised, boxed", [(14, False), (0, True)])  # from straight above the top tile shows no lift
def test_three_tiles_face_down_with_one_face_up_on_the_middle_are_a_concealed_kong(raised, boxed):
    tiles = _stacked_scene(["back", "6z", "back"], raised)
    result = read_detections(tiles + [group_box(tiles[-3:], "kong_concealed")] * boxed, rules=RULES)
    assert result.hand["melds"] == [{"kind": "kong", "tiles": ["6z"] * 4, "concealed": True}]
    assert [g.label for g in result.groups if g.kind == "kong"] == ["concealed kong, stacked"]
    assert not any("face-down" in w or "face down" in w for w in result.warnings)


def test_a_chow_apart_in_the_row_with_its_ends_read_face_down_is_no_stacked_kong():
    """Two tiles misread face down either side of a third, not raised and under no kong box."""
    probs = {10: (("back", 0.9), ("4p", 0.1)), 12: (("back", 0.9), ("6p", 0.1))}
    codes = ["1m", "2m", "3m", "7s", "8s", "9s", "1z", "1z", "2z", "2z", "4p", "5p", "6p"]
    tiles = row_detections(RowSpec(codes + ["2z"], gaps_after={9: 8, 12: 20}, probs=probs))
    result = read_detections(tiles, rules=RULES)
    assert result.hand is None or not any(m["kind"] == "kong" for m in result.hand["melds"])


def test_a_kong_hint_names_the_face_down_kong_not_a_pung_that_faintly_reads_its_code():
    faint = (("2s", 0.97), ("3s", 0.02), ("1s", 0.01))
    tiles = hand_row(["1m", "2m", "3m", "4p", "5p", "6p", "7s"], "7s")
    tiles += row_detections(RowSpec(["2s"] * 3, origin=(150, 380), probs={k: faint for k in range(3)}))
    tiles += row_detections(RowSpec(["back"] * 4, origin=(330, 380)))
    result = read_detections(tiles, rules=RULES, kong_codes=["3s"])
    assert sorted((m["kind"], m["tiles"][0]) for m in result.hand["melds"]) == [("kong", "3s"), ("pung", "2s")]


def test_a_pung_with_its_middle_tile_pushed_back_is_a_pung_where_only_that_wins():
    """The fourth 2s lies in the concealed hand: as a stacked kong the hand would hold five."""
    tiles = hand_row(["1m", "2m", "3m", "4p", "5p", "6p", "1s", "2s", "3s", "9m"], "9m")
    result = read_detections(tiles + row_detections(RowSpec(["2s"] * 3, origin=(150, 380), raised={1: 10})),
                             rules=RULES)
    assert result.hand["melds"] == [{"kind": "pung", "tiles": ["2s"] * 3, "concealed": False}]
    assert [g.label for g in result.groups if g.kind == "pung"] == ["exposed pung"]
    assert any("read as pungs" in w for w in result.warnings)


@pytest.mark.parametrize("above", [True, False])
def test_a_tile_of_another_row_lying_over_a_gap_is_no_stacked_kongs_top(above):
    """Above: a pung laid behind the row, its first tile over the winning tile's gap. Below: the
    winning tile, set apart, lying over the gap between two melds laid in front."""
    row = hand_row(["1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "5z"], "5z")
    if above:
        melds = [row_detections(RowSpec(["2s"] * 3, origin=(row[9].box[2] - 20, 270)))]
        want = [("pung", "2s")]
    else:
        row = hand_row(["1m", "2m", "3m", "4p", "5p", "6p", "7s"], "8s")
        win = row[-1]
        melds = [row_detections(RowSpec(["2s"] * 3, origin=(win.box[0] + 4 - 3 * 41, 318))),
                 row_detections(RowSpec(["4m", "5m", "6m"], origin=(win.box[2] - 4, 318)))]
        want = [("chow", "4m"), ("pung", "2s")]
    result = read_detections(row + [t for meld in melds for t in meld], rules=RULES)
    assert sorted((m["kind"], m["tiles"][0]) for m in result.hand["melds"]) == want
    assert result.hand["winning_tile"] == row[-1].code


def test_a_stacked_kong_seen_from_above_is_named_with_kong():
    from_above = _stacked_scene(["9m"] * 3, 0)
    assert read_detections(from_above, rules=RULES).hand["melds"][0]["kind"] == "pung"
    named = read_detections(from_above, rules=RULES, kong_codes=["9m"])
    assert named.hand["melds"] == [{"kind": "kong", "tiles": ["9m"] * 4, "concealed": False}]
    # A hint naming a stacked kong the photo shows is its own, not one beyond the face-down kongs.
    seen = read_detections(_stacked_scene(["9m"] * 3, 14), rules=RULES, kong_codes=["9m"])
    for result in (named, seen):
        assert result.hand["melds"][0]["tiles"] == ["9m"] * 4 and not any("--kong" in w for w in result.warnings)
    other = read_detections(from_above, rules=RULES, kong_codes=["5p"])
    assert other.hand["melds"][0]["kind"] == "pung"
    assert "--kong 5p: ignored, the photo shows 0 kong(s) with all four tiles face down" in other.warnings


def _boxed_run_in_front(concealed, winning, run):
    tiles = hand_row(concealed, winning)
    front = row_detections(RowSpec(run, origin=(150, 380)))
    return tiles + front + [group_box(front, "kong_concealed")]


def test_four_boxed_tiles_that_can_be_no_kong_are_concealed_tiles():
    # The detector's concealed-kong box over 4p 5p 6p 6p, which no kong can be.
    concealed = ["1m", "2m", "3m", "7s", "8s", "9s", "5z", "5z", "5z"]
    result = read_detections(_boxed_run_in_front(concealed, "6p", ["4p", "5p", "6p", "6p"]), rules=RULES)
    assert result.score["ok"] and result.hand["melds"] == [] and result.hand["winning_tile"] == "6p"
    assert sorted(result.hand["concealed"]) == sorted(concealed + ["4p", "5p", "6p", "6p"])
    assert any("can be no kong were read as concealed tiles" in w for w in result.warnings)


def test_four_boxed_tiles_alike_stay_a_kong():
    concealed = ["1m", "2m", "3m", "7s", "8s", "9s", "5z", "5z", "5z", "4p"]
    result = read_detections(_boxed_run_in_front(concealed, "4p", ["6p"] * 4), rules=RULES)
    assert result.hand["melds"] == [{"kind": "kong", "tiles": ["6p"] * 4, "concealed": True}]
    assert not any("can be no kong" in w for w in result.warnings)


def test_exposed_meld_and_flowers_reach_the_hand():
    concealed = ["1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "5z"]
    tiles = hand_row(concealed, "5z")
    tiles += row_detections(RowSpec(["7z", "7z", "7z"], origin=(150, 380), sideways={1}))
    tiles.append(Detection((10, 10, 50, 66), "2f", 0.9, (("2f", 0.9),)))
    result = read_detections(tiles, rules=RULES, context={"seat_wind": "S"})
    assert result.error is None
    assert result.hand["melds"] == [{"kind": "pung", "tiles": ["7z"] * 3, "concealed": False, "claimed": "7z"}]
    assert result.hand["flowers"] == ["2f"] and result.hand["seat_wind"] == "S"
    assert result.score["flowers"] == 1


def test_two_flowers_read_alike_take_the_most_probable_distinct_codes():
    # Each flower exists once: both read 2f first, the likelier pair of distinct codes is 1f + 2f.
    tiles = hand_row(CONCEALED, "7z")
    tiles.append(Detection((10, 10, 50, 66), "2f", 0.6, (("2f", 0.6), ("1f", 0.3), ("3m", 0.1))))
    tiles.append(Detection((52, 10, 92, 66), "2f", 0.7, (("2f", 0.7), ("4f", 0.2))))
    result = read_detections(tiles, rules=RULES)
    assert result.error is None and result.score["flowers"] == 2
    assert result.hand["flowers"] == ["1f", "2f"]
    flowers = [t for t in result.tiles if t.role == "flower"]
    assert [t.code for t in flowers] == ["1f", "2f"] and all(t.uncertain for t in flowers)


def _two_flowers_read_as_4f_and_8f():
    tiles = hand_row(CONCEALED, "7z")
    tiles.append(Detection((10, 10, 50, 66), "4f", 0.6, (("4f", 0.6), ("3f", 0.3), ("1f", 0.1))))
    tiles.append(Detection((52, 10, 92, 66), "8f", 0.7, (("8f", 0.7), ("5f", 0.2))))
    return tiles


def test_flowers_named_by_the_caller_replace_the_reading_each_where_it_looks_likeliest():
    result = read_detections(_two_flowers_read_as_4f_and_8f(), rules="sihai", flowers=["5f", "3f"])
    assert result.error is None
    assert [t.code for t in result.tiles if t.role == "flower"] == ["3f", "5f"]
    assert sorted(result.hand["flowers"]) == ["3f", "5f"]
    assert not any(t.uncertain for t in result.tiles if t.role == "flower")
    read = read_detections(_two_flowers_read_as_4f_and_8f(), rules="sihai")
    assert sorted(read.hand["flowers"]) == ["4f", "8f"]
    assert result.confidence > read.confidence  # the flowers are no longer a doubt


def test_a_doubtful_flower_that_decides_the_score_asks_the_player_to_name_it():
    # East's seat flower is 1f (Shanghai: a fan of its own); the tile reads 1f only a little
    # more likely than 2f, which would score half as much.
    tiles = hand_row(CONCEALED, "7z") + [Detection((10, 10, 50, 66), "1f", 0.55, (("1f", 0.55), ("2f", 0.45)))]
    shanghai = read_detections(tiles, rules="shanghai", context={"seat_wind": "E"})
    assert shanghai.hand["flowers"] == ["1f"] and shanghai.score["total"] == 80
    assert [w for w in shanghai.warnings if "may be" in w] == [
        "the flower read 1f may be 2f, which scores 40 instead of 80: name the winner's flowers (--flowers)"]
    # MCR and Sihai count flowers alike; a flower read surely, or named, is no doubt.
    for read in (read_detections(tiles, rules=RULES),
                 read_detections(tiles, rules="sihai"),
                 read_detections(hand_row(CONCEALED, "7z") + [Detection((10, 10, 50, 66), "1f", 0.95,
                                                                        (("1f", 0.95), ("2f", 0.05)))],
                                 rules="shanghai", context={"seat_wind": "E"}),
                 read_detections(tiles, rules="shanghai", context={"seat_wind": "E"}, flowers=["1f"])):
        assert read.error is None and not any("may be" in w for w in read.warnings)


def test_the_score_is_as_sure_as_the_readings_that_score_alike():
    # Which flower is which: the tile reads 1f (0.55) or 2f. MCR and Sihai count flowers alike,
    # so the score is sure; Shanghai gives East's seat flower 1f a fan, so it is as doubtful as the tile.
    tiles = hand_row(CONCEALED, "7z") + [Detection((10, 10, 50, 66), "1f", 0.55, (("1f", 0.55), ("2f", 0.45)))]
    for rules, sure in (("mcr", 1.0), ("sihai", 1.0), ("shanghai", 0.55)):
        result = read_detections(tiles, rules=rules, context={"seat_wind": "E"})
        assert result.confidence == pytest.approx(0.55)
        assert result.score_confidence == pytest.approx(sure)
        assert result.to_json()["score_confidence"] == pytest.approx(sure)
    # Two flowers: whichever distinct pair they are, MCR scores the hand the same.
    result = read_detections(_two_flowers_read_as_4f_and_8f(), rules=RULES)
    assert result.confidence < 0.5 and result.score_confidence == pytest.approx(1.0)


def test_readings_that_cannot_win_do_not_weigh_against_the_score():
    # Each tile of the 5z pair reads 5z (0.6) or 6z: 5z 6z makes no hand, and a 6z pair scores
    # the same, so the score is sure though the hand is not.
    probs = {9: (("5z", 0.6), ("6z", 0.4)), 10: (("5z", 0.6), ("6z", 0.4))}
    result = read_detections(hand_row(CONCEALED, "7z", probs), rules=RULES)
    assert result.hand["concealed"] == CONCEALED and result.confidence == pytest.approx(0.36)
    assert result.score_confidence == pytest.approx(1.0)


def test_a_likely_reading_that_scores_otherwise_keeps_the_score_in_doubt():
    # The winning tile reads 3m (0.55) or 6m; 6m would add a Mixed Straight (456m 123p 789s).
    concealed = ["4m", "5m", "1p", "2p", "3p", "7s", "8s", "9s", "2z", "2z", "2z", "5z", "5z"]
    result = read_detections(hand_row(concealed, "3m", {13: (("3m", 0.55), ("6m", 0.45))}), rules=RULES)
    assert result.runner_up["total"] != result.score["total"]
    assert result.score_confidence == pytest.approx(0.55)


def test_a_hand_that_does_not_win_has_no_score_confidence():
    concealed = ["1m", "1m", "1m", "1m", "1m", "2m", "3m", "4p", "5p", "6p", "7s", "7s", "9s"]
    result = read_detections(hand_row(concealed, "9s"), rules=RULES)
    assert result.error is not None and result.score_confidence == 0.0


def test_named_flowers_not_in_the_photo_join_the_hand_with_a_warning():
    result = read_detections(_two_flowers_read_as_4f_and_8f(), rules=RULES, flowers=["1f", "6f", "8f"])
    assert result.error is None and result.score["flowers"] == 3
    assert [t.code for t in result.tiles if t.role == "flower"] == ["1f", "8f"]
    assert sorted(result.hand["flowers"]) == ["1f", "6f", "8f"]
    assert any("6f not in the photo" in w for w in result.warnings)
    none_seen = read_detections(hand_row(CONCEALED, "7z"), rules=RULES, flowers=["2f"])
    assert none_seen.hand["flowers"] == ["2f"] and none_seen.score["flowers"] == 1


def test_more_flower_tiles_than_flowers_named_is_an_error_not_a_guess():
    result = read_detections(_two_flowers_read_as_4f_and_8f(), rules=RULES, flowers=["4f"])
    assert result.error is not None and result.error.code == "flower_count" and result.exit_code == 4
    result = read_detections(_two_flowers_read_as_4f_and_8f(), rules=RULES, flowers=[])
    assert result.error is not None and result.error.code == "flower_count"


@pytest.mark.parametrize("flowers", [["9f"], ["1m"], ["1f", "1f"]])
def test_bad_named_flowers_are_bad_input(flowers):
    with pytest.raises(PhotoError) as err:
        read_detections(hand_row(CONCEALED, "7z"), rules=RULES, flowers=flowers)
    assert err.value.kind == "bad_input" and err.value.code == "bad_tile_code"


def test_win_facts_a_rule_set_cannot_take_are_bad_input_before_reading():
    with pytest.raises(PhotoError) as err:  # Shanghai's dealer sits East
        read_detections(hand_row(CONCEALED, "7z"), rules="shanghai", context={"dealer": "S"})
    assert err.value.kind == "bad_input" and err.value.code == "contradictory_flags"
    assert read_detections(hand_row(CONCEALED, "7z"), rules="mcr", context={"dealer": "S"}).error is None


def test_eight_flowers_with_eight_readings_each_take_distinct_codes():
    # Every flower reads 1f first and the next codes in turn after it; the likeliest distinct
    # assignment gives flower n the n-th code (each its second reading, 1f to the first).
    codes = [f"{n}f" for n in range(1, 9)]
    tiles = hand_row(CONCEALED, "7z")
    for n in range(8):
        readings = (("1f", 0.3),) + tuple((codes[(n + k) % 8], 0.25 - 0.02 * k) for k in range(7) if (n + k) % 8)
        tiles.append(Detection((10 + 42 * n, 10, 50 + 42 * n, 66), "1f", 0.3, readings))
    result = read_detections(tiles, rules=RULES)
    assert result.error is None and result.score["flowers"] == 8
    assert sorted(result.hand["flowers"]) == codes
    assert [t.code for t in result.tiles if t.role == "flower"] == codes


def test_a_hand_tile_misread_as_a_flower_takes_its_best_playing_code():
    probs = {7: (("2f", 0.5), ("8s", 0.4), ("8p", 0.1))}
    result = read_detections(hand_row(CONCEALED, "7z", probs), rules=RULES)
    assert result.error is None
    assert result.hand["concealed"] == CONCEALED and result.hand["flowers"] == []


def test_a_hand_tile_read_as_a_flower_at_the_row_end_takes_its_playing_code_when_the_row_is_short():
    # A framed White dragon read as a framed flower, last in the row before the winning tile.
    concealed = ["1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "7z", "7z", "5z", "5z"]
    probs = {12: (("8f", 0.6), ("5z", 0.3), ("1f", 0.1))}
    result = read_detections(hand_row(concealed, "7z", probs), rules=RULES)
    assert result.error is None
    assert result.hand["concealed"] == concealed and result.hand["flowers"] == []
    assert any("read as playing tiles" in w for w in result.warnings)


def test_the_last_tiles_and_the_winning_tile_read_as_flowers_past_the_row_end_are_playing_tiles():
    probs = {k: ((f"{k - 9}f", 0.6), ("7z", 0.4)) for k in (11, 12, 13)}
    result = read_detections(hand_row(CONCEALED, "7z", probs), rules=RULES)
    assert result.error is None
    assert result.hand["concealed"] == CONCEALED and result.hand["winning_tile"] == "7z"
    assert result.hand["flowers"] == []


def test_a_hand_tile_laid_against_the_flowers_is_put_back_when_the_row_is_short():
    # 3f 4f, then the hand's first tile (read 1m, a flower among its readings) touching them,
    # then a gap: grouping lays it with the flowers, and only the count puts it back.
    row = row_detections(RowSpec(["3f", "4f"] + CONCEALED + ["7z"], gaps_after={2: 30, 14: 20},
                                 probs={2: (("1m", 0.7), ("6f", 0.3))}))
    result = read_detections(row, rules=RULES)
    assert result.error is None
    assert result.hand["concealed"] == CONCEALED and result.hand["flowers"] == ["3f", "4f"]
    assert any("set apart with the flowers" in w for w in result.warnings)
    assert any("read as hand tiles" in w for w in result.warnings)


def test_a_flower_beside_the_row_stays_a_flower_when_the_count_is_right():
    tiles = row_detections(RowSpec(["3f"] + CONCEALED + ["7z"], origin=(10, 300), gaps_after={13: 20}))
    result = read_detections(tiles, rules=RULES)
    assert result.error is None
    assert result.hand["concealed"] == CONCEALED and result.hand["flowers"] == ["3f"]


def test_a_flower_misread_as_an_honour_beside_the_flowers_reads_as_a_flower():
    tiles = row_detections(RowSpec(["3f", "6z"], origin=(10, 300), probs={1: (("6z", 0.6), ("6f", 0.3), ("4f", 0.1))}))
    tiles += row_detections(RowSpec(CONCEALED + ["7z"], origin=(130, 300), gaps_after={12: 20}))
    result = read_detections(tiles, rules=RULES)
    assert result.error is None
    assert result.hand["concealed"] == CONCEALED and result.hand["flowers"] == ["3f", "6f"]


def _lone_tile_left_of(concealed, winning, lone, gap):
    tiles = row_detections(RowSpec([lone[0][0]], origin=(10, 300), probs={0: lone}))
    tiles += row_detections(RowSpec(concealed + [winning], origin=(51 + gap, 300), gaps_after={len(concealed) - 1: 20}))
    return tiles


def test_a_lone_flower_misread_as_a_playing_tile_apart_at_the_left_is_a_flower():
    # A flower whose art the classifier has never seen: no flower among its readings.
    tiles = _lone_tile_left_of(CONCEALED, "7z", (("3z", 0.7), ("1z", 0.3)), gap=50)
    result = read_detections(tiles, rules=RULES)
    assert result.error is None and result.hand["concealed"] == CONCEALED
    assert len(result.hand["flowers"]) == 1 and result.hand["flowers"][0].endswith("f")
    flower = next(t for t in result.tiles if t.role == "flower")
    assert flower.uncertain  # which flower it is cannot be told
    assert any("too many: read as flowers" in w for w in result.warnings)


def test_a_set_apart_tile_keeps_its_flower_reading_when_it_has_one():
    tiles = _lone_tile_left_of(CONCEALED, "7z", (("3z", 0.6), ("2f", 0.3), ("1z", 0.1)), gap=50)
    result = read_detections(tiles, rules=RULES)
    assert result.error is None and result.hand["flowers"] == ["2f"]


def test_a_lone_tile_near_the_row_or_a_right_count_is_not_read_as_a_flower():
    near = _lone_tile_left_of(CONCEALED, "7z", (("3z", 0.7), ("1z", 0.3)), gap=10)
    assert read_detections(near, rules=RULES).error.code == "tile_count"
    right_count = _lone_tile_left_of(CONCEALED[1:], "7z", (("1m", 1.0),), gap=50)
    result = read_detections(right_count, rules=RULES)
    assert result.error is None and result.hand["concealed"] == CONCEALED and result.hand["flowers"] == []


def test_a_hand_tile_read_face_down_outside_a_kong_takes_its_likeliest_face():
    # A white dragon (blank face) read as a tile's back: no tile of the hand but a concealed
    # kong's lies face down, so its face readings decide, and it is reported as uncertain.
    concealed = ["1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "5z", "5z", "7z", "7z"]
    probs = {9: (("back", 0.75), ("5z", 0.2), ("1z", 0.05))}
    result = read_detections(hand_row(concealed, "7z", probs), rules=RULES)
    assert result.error is None and result.hand["concealed"] == concealed
    assert result.confidence < 0.5 and [t.code for t in result.tiles if t.uncertain] == ["5z"]
    assert any("read face down lie outside a concealed kong" in w for w in result.warnings)


def test_a_tile_of_an_exposed_meld_read_face_down_takes_its_likeliest_face():
    # An exposed chow lies face up: a tile of it read as a back is no concealed kong's tile,
    # so its own face readings decide, not the meld's other tiles.
    concealed = ["1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "5z"]
    tiles = hand_row(concealed, "5z")
    blank = (("back", 0.6), ("8s", 0.3), ("5z", 0.1))
    tiles += row_detections(RowSpec(["7s", "6s", "8s"], origin=(150, 380), sideways={0}, probs={2: blank}))
    result = read_detections(tiles, rules=RULES)
    chow = {"kind": "chow", "tiles": ["7s", "6s", "8s"], "concealed": False, "claimed": "7s"}
    assert result.hand["melds"] == [chow]
    assert [t.code for t in result.tiles if t.uncertain] == ["8s"]


def test_tiles_with_no_face_reading_outside_a_kong_are_unreadable():
    probs = {9: (("back", 1.0),), 10: (("back", 1.0),)}  # up, down, down, up: as a kong would lie
    result = read_detections(hand_row(CONCEALED, "7z", probs), rules=RULES)
    assert result.exit_code == 4 and result.error.code == "unreadable_tiles"


def test_four_shuffled_concealed_tiles_do_not_overrule_the_set_apart_tile():
    # 7p 1p 6p 5p then 1p set apart: three steps down, one up, by chance of the shuffle.
    layout = group_tiles(row_detections(RowSpec(["7p", "1p", "6p", "5p", "1p"], gaps_after={3: 20})))
    oriented = orient(layout)
    assert not oriented.reversed_view
    assert [oriented.tiles[i].code for i in oriented.concealed] == ["7p", "1p", "6p", "5p"]
    assert oriented.winning == 4


SORTED_FROM_THE_LEFT_TILE = ["1z", "1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "1z", "6z", "6z", "6z"]


def test_a_tile_apart_at_the_rows_start_that_the_order_overrules_is_named_in_a_warning():
    # 1z laid apart at the player's left: the row ascends from it, so it is read as the row's start
    row = row_detections(RowSpec(SORTED_FROM_THE_LEFT_TILE, gaps_after={0: 30}))
    result = read_detections(row, rules=RULES)
    assert result.hand["winning_tile"] == "6z"
    assert any("set apart from the row at its other end (1z)" in w and "--winning-tile 1z" in w for w in result.warnings)


@pytest.mark.parametrize("named", ["1z", "6z"])
def test_a_named_winning_tile_that_an_end_of_the_row_shows_picks_that_end_and_changes_no_code(named):
    row = row_detections(RowSpec(SORTED_FROM_THE_LEFT_TILE, gaps_after={0: 30}))
    result = read_detections(row, rules=RULES, winning_tile=named)
    assert result.hand["winning_tile"] == named and not result.warnings
    in_hand = sorted(result.hand["concealed"] + [result.hand["winning_tile"]])
    assert in_hand == sorted(SORTED_FROM_THE_LEFT_TILE)  # no tile's code overwritten by the name


def test_a_named_winning_tile_at_the_rows_start_is_taken_though_the_last_tile_lies_a_little_apart():
    # 1z laid 30 px apart at the player's left; the last 6z only 6 px off its neighbour
    row = row_detections(RowSpec(SORTED_FROM_THE_LEFT_TILE, gaps_after={0: 30, 12: 6}))
    result = read_detections(row, rules=RULES, winning_tile="1z")
    assert result.hand["winning_tile"] == "1z" and not result.warnings
    assert sorted(result.hand["concealed"] + ["1z"]) == sorted(SORTED_FROM_THE_LEFT_TILE)


@pytest.mark.parametrize("concealed", [["1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "5z", "5z", "5z", "1m"],
                                       ["1m", "1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "5z", "5z", "5z"]])
def test_a_named_winning_tile_corrects_a_misread_tile_set_apart_though_the_row_holds_one(concealed):
    # the 1m set apart at the right reads 7m; the name corrects it, not the end of the row
    row = row_detections(RowSpec(concealed + ["1m"], gaps_after={12: 30}, probs={13: (("7m", 1.0),)}))
    result = read_detections(row, rules=RULES, winning_tile="1m")
    assert result.error is None and result.hand["winning_tile"] == "1m"
    assert sorted(result.hand["concealed"]) == sorted(concealed)


def test_no_tile_set_apart_is_not_told_where_any_of_the_hands_tiles_would_score_the_same():
    # Seven pairs: whichever tile won, 七对 and 五门齐 (no wait fan counts beside 七对)
    pairs = ["8m", "8m", "6p", "6p", "9p", "9p", "4s", "4s", "8s", "8s", "1z", "1z", "5z", "5z"]
    result = read_detections(row_detections(RowSpec(pairs)), rules=RULES)
    assert result.error is None and result.score["total"] == 30
    assert not any("no tile was set apart" in w for w in result.warnings)


def test_no_tile_set_apart_assumes_the_best_winning_tile_and_says_so():
    row = row_detections(RowSpec(CONCEALED + ["7z"]))
    result = read_detections(row, rules=RULES)
    assert result.error is None
    assert any("no tile was set apart" in w for w in result.warnings)
    named = read_detections(row, rules=RULES, winning_tile="5z")
    assert named.hand["winning_tile"] == "5z"
    assert not any("no tile was set apart" in w for w in named.warnings)
    winners = [t for t in named.tiles if t.role == "winning"]
    assert len(winners) == 1 and winners[0].code == "5z"


def test_given_winning_tile_overrides_the_set_apart_reading():
    result = read_detections(hand_row(CONCEALED, "6z"), rules=RULES, winning_tile="7z")
    assert result.error is None and result.hand["winning_tile"] == "7z"
    assert any("reads 6z" in w for w in result.warnings)


def test_no_winning_reading_near_says_so_and_shows_the_best():
    concealed = ["1m", "3m", "5m", "7m", "9m", "2p", "4p", "6p", "8p", "1s", "3s", "5s", "7s"]
    result = read_detections(hand_row(concealed, "9s"), rules=RULES)
    assert result.exit_code == 4 and result.error.code == "not_winning"
    assert "no reading of the tiles makes a winning hand" in result.error.message
    assert result.hand["concealed"] == concealed


def test_several_hands_keep_the_tiles_and_exit_4():
    tiles = []
    for y in (50, 400, 750):
        tiles += row_detections(RowSpec(CONCEALED + ["1z"], origin=(100, y)))
    result = read_detections(tiles, rules=RULES)
    assert result.exit_code == 4 and result.error.code == "several_hands"
    assert len(result.tiles) == 42 and all(t.role == "unassigned" for t in result.tiles)


def test_several_hands_count_their_flowers_too():
    tiles = row_detections(RowSpec(["1f", "2f", "3f"], origin=(1400, 50)))
    for y in (50, 400, 750):
        tiles += row_detections(RowSpec(CONCEALED + ["1z"], origin=(100, y)))
    result = read_detections(tiles, rules=RULES)
    assert result.error.code == "several_hands" and "found 42 tiles in 3 separate rows besides 3 flower(s)" in result.error.message


def test_fan_provenance_points_at_tiles_with_the_fans_codes():
    concealed = ["1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "5z"]
    tiles = hand_row(concealed, "5z")
    tiles += row_detections(RowSpec(["7z", "7z", "7z"], origin=(150, 380), sideways={1}))
    result = read_detections(tiles, rules=RULES)
    assert len(result.fan_tiles) == len(result.score["fans"])
    for fan, indices in zip(result.score["fans"], result.fan_tiles):
        codes = Counter(result.tiles[i].code for i in indices)
        assert codes == Counter(fan["tiles"]) or not fan["tiles"], fan["en"]


@pytest.mark.parametrize(
    "kwargs, code",
    [
        ({"rules": "nope"}, "unknown_rules"),
        ({"context": {"seat_wind": "X"}}, "bad_wind"),
        ({"context": {"sitting": True}}, "bad_context"),
        ({"context": {"self_drawn": "yes"}}, "bad_context"),
        ({"winning_tile": "1f"}, "bad_tile_code"),
        ({"winning_tile": "5x"}, "bad_tile_code"),
        ({"kong_codes": ["0m"]}, "bad_tile_code"),
        ({"context": {"kong_replacement": True}}, "contradictory_flags"),
        ({"context": 5}, "bad_argument"),
        ({"context": {1: 2}}, "bad_argument"),
        ({"options": "x"}, "bad_argument"),
        ({"winning_tile": ["5p"]}, "bad_argument"),
        ({"kong_codes": 5}, "bad_argument"),
        ({"kong_codes": [["3z"]]}, "bad_argument"),
        ({"flowers": "1f"}, "bad_argument"),
        ({"image_size": (640,)}, "bad_argument"),
    ],
)
def test_bad_options_are_bad_input(kwargs, code):
    with pytest.raises(PhotoError) as err:
        read_detections(hand_row(CONCEALED, "7z"), **{"rules": RULES, **kwargs})
    assert err.value.code == code and err.value.exit_code == 2


@pytest.mark.parametrize(
    "kwargs, message",
    [({"detect": 5}, "detect must be a function from an image to detections (or None), got int"),
     ({"turn_level": "no"}, "turn_level must be True or False, got str"),
     ({"kong_codes": [None]}, "kong_codes must be a list of tile codes, got a list holding NoneType"),
     ({"flowers": ["1f", 1]}, "flowers must be a list of flower codes (or None), got a list holding int"),
     ({"context": {1: 2}}, "context must be a dict of win flags (or None), got a dict with the key 1, not a name")],
)
def test_read_photo_names_an_argument_of_the_wrong_type(kwargs, message):
    with pytest.raises(PhotoError) as err:
        read_photo(b"never read: the arguments are checked first", rules=RULES, **kwargs)
    assert err.value.code == "bad_argument" and str(err.value) == message


@pytest.mark.parametrize(
    "detections",
    [None, "1m", [None], [{"box": (0, 0, 40, 56), "code": "1m"}],
     [Detection((0.0, 0.0, float("nan"), 56.0), "1m", 0.9)], [Detection((0.0, 0.0, 40.0, 56.0), "1x", 0.9)],
     [Detection((0.0, 0.0, 40.0, 56.0), "1m", 1.5)], [Detection((40.0, 0.0, 0.0, 56.0), "1m", 0.9)],
     [Detection((0.0, 0.0, 40.0, 56.0), "1m", 0.9, (("1m", "x"),))],
     [Detection((0.0, 0.0, 40.0, 56.0), "1m", 0.9, (("9x", 0.9),))],
     [Detection((0.0, 0.0, 40.0, 56.0), "1m", 0.9, ("1m",))],
     [Detection((0.0, 0.0, 40.0, 56.0), "1m", 0.9, not_a_tile="0.2")],
     [Detection((0.0, 0.0, 4e154, 5.6e155), "1m", 0.9)]],
    ids=["none", "string", "list-of-none", "dicts", "nan-box", "unknown-code", "confidence-over-1", "x2-before-x1",
         "alternative-probability-a-string", "alternative-unknown-code", "alternative-not-a-pair", "not-a-tile-a-string",
         "box-a-googol-wide"],
)
def test_detections_that_are_not_detections_are_bad_input(detections):
    with pytest.raises(PhotoError) as err:
        read_detections(detections, rules=RULES)
    assert err.value.code == "bad_detections" and err.value.exit_code == 2
    assert str(err.value).startswith("the detections are not a list: " if not isinstance(detections, list)
                                     else "detection 0 of 1 is not one: ")


def test_numpy_numbers_from_another_detector_give_plain_json():
    import json

    tiles = [Detection(tuple(np.float32(v) for v in d.box), d.code, np.float32(d.confidence),
                       tuple((c, np.float32(p)) for c, p in d.alternatives))
             for d in hand_row(CONCEALED, "7z")]
    result = read_detections(tiles, rules=RULES)
    assert result.error is None
    assert json.loads(json.dumps(result.to_json()))["tiles"][0]["box"] == list(result.to_json()["tiles"][0]["box"])


def test_a_row_that_reads_backwards_takes_the_winning_tile_from_the_image_left():
    # Seen from across the table, nothing set apart: the player's right end is the image's left.
    # Either end would win (1m completes 123m, 6z the pung), so only the row's order decides.
    hand = ["1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "5z", "5z", "6z", "6z", "6z"]
    result = read_detections(row_detections(RowSpec(hand[::-1])), rules=RULES)
    assert result.hand["winning_tile"] == "6z"
    winner = next(t for t in result.tiles if t.role == "winning")
    assert winner.box[0] == min(t.box[0] for t in result.tiles)  # the image's leftmost tile


def test_a_shuffled_row_takes_the_winning_tile_from_the_image_right():
    # Seven pairs, shuffled, nothing set apart: any tile would win, and a row that steps down
    # more often than up by chance says nothing of the view; the photo's right end is the player's.
    hand = ["2z", "2s", "4m", "5z", "4z", "1z", "2z", "7m", "2s", "4m", "1z", "4z", "5z", "7m"]
    result = read_detections(row_detections(RowSpec(hand)), rules=RULES)
    assert result.hand["winning_tile"] == "7m"
    winner = next(t for t in result.tiles if t.role == "winning")
    assert winner.box[0] == max(t.box[0] for t in result.tiles)


def test_flowers_right_of_a_shuffled_row_put_the_players_right_end_on_the_image_left():
    # Players lay their flowers apart at their left: here at the image's right, so the photo was
    # taken from across the table, and the winning tile is the row's image-left end.
    hand = ["2z", "2s", "4m", "5z", "4z", "1z", "2z", "7m", "2s", "4m", "1z", "4z", "5z", "7m"]
    row = row_detections(RowSpec(hand))
    right_end = max(t.box[2] for t in row)
    flower = Detection((right_end + 60, row[0].box[1], right_end + 100, row[0].box[3]), "3f", 0.9, (("3f", 0.9),))
    result = read_detections(row + [flower], rules=RULES)
    assert result.hand["winning_tile"] == "2z" and result.hand["flowers"] == ["3f"]
    winner = next(t for t in result.tiles if t.role == "winning")
    assert winner.box[0] == min(t.box[0] for t in result.tiles)


def test_a_sorted_row_overrules_a_gap_at_the_wrong_end():
    # The first tile lies apart (nudged, or cut by the photo's edge) while the winning tile
    # touches the row's right end: the row ascends left to right, so the player sits on our side.
    hand = ["1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "5z", "5z", "6z", "6z", "6z"]
    result = read_detections(row_detections(RowSpec(hand, gaps_after={0: 20})), rules=RULES)
    winner = next(t for t in result.tiles if t.role == "winning")
    assert winner.code == "6z" and winner.box[0] == max(t.box[0] for t in result.tiles)


def test_a_winning_tile_set_clearly_apart_stays_the_winning_tile_in_a_row_sorted_the_other_way():
    # Honours at the left, characters at the right (descending), the winning 3m a tile apart at
    # the right: the gap, not the order, says where the player's right is.
    concealed = ["7z", "7z", "7z", "5z", "5z", "9s", "8s", "7s", "6p", "5p", "4p", "2m", "1m"]
    detections = row_detections(RowSpec(concealed + ["3m"], gaps_after={12: 40}))
    for winning_tile in (None, "3m"):
        result = read_detections(detections, rules=RULES, winning_tile=winning_tile)
        assert result.error is None and result.hand["winning_tile"] == "3m"
        assert "edge_wait" in [f["key"] for f in result.score["fans"]]


# --- a photo whose rows run askew is read again turned level (a phone held askew) ---

def _askew_hand_photo(degrees: float) -> np.ndarray:
    """White tiles on black: the hand's 14 tiles in a row turned `degrees` (image y down), the
    winning tile a little apart."""
    import cv2

    photo = np.zeros((900, 1200, 3), np.uint8)
    c, s = np.cos(np.radians(degrees)), np.sin(np.radians(degrees))
    along = 0.0
    for k in range(14):
        centre = (250 + along * c, 250 + along * s)
        corners = cv2.boxPoints((centre, (40, 56), degrees))
        cv2.fillPoly(photo, [np.round(corners).astype(np.int32)], (255, 255, 255))
        along += 44 + (30 if k == 12 else 0)
    return photo


def _blob_detector(photo: np.ndarray):
    """A stand-in detector: each white blob is a tile, coded by its order along the row; faces of
    tiles seen turned (a box far squarer than an upright tile's) all read surely as one tile."""
    import cv2

    def detect(image):
        count, _, stats, _ = cv2.connectedComponentsWithStats((np.asarray(image)[:, :, 0] > 127).astype(np.uint8))
        boxes = sorted((x, y, x + w, y + h) for x, y, w, h, area in stats[1:count] if area > 200)
        found = []
        for box, code in zip(boxes, CONCEALED + ["7z"]):
            upright = (box[2] - box[0]) / (box[3] - box[1]) < 0.8
            alternatives = ((code, 1.0),) if upright else (("9p", 1.0),)
            found.append(Detection(tuple(float(v) for v in box), code, alternatives[0][1], alternatives))
        return DetectionSet(tuple(found))
    return detect


def test_a_photo_whose_rows_run_askew_is_read_again_turned_level():
    photo = _askew_hand_photo(30.0)
    detect = _blob_detector(photo)
    tilted = detect(photo).kept
    result = read_photo(photo, rules=RULES, detect=detect)
    assert result.error is None and result.hand["concealed"] == CONCEALED
    assert result.confidence == 1.0  # read from the level photo, where every face reads surely
    assert any("ran 30 degrees askew" in w for w in result.warnings)
    assert read_photo(photo, rules=RULES, detect=detect, turn_level=False).error.code == "too_many_copies"
    # The boxes are back on the photo as it was taken: each is around its tile there.
    for tile in result.tiles:
        box = Detection(tile.box, tile.code, 1.0)
        assert max(iou_of(box, t) for t in tilted) > 0.8


def test_a_box_in_the_turned_copys_filled_corner_is_no_tile_of_the_photo():
    # The turned copy's corners repeat the photo's edges; a tile the detector finds there lies
    # outside the photo, and put back on it would have no box at all (its right edge left of its left).
    photo = _askew_hand_photo(30.0)
    detect = _blob_detector(photo)
    corner = Detection((2.0, 2.0, 42.0, 58.0), BACK, 0.9, ((BACK, 0.9),))

    def with_a_tile_in_the_corner(image):
        found = detect(image)
        turned = np.asarray(image).shape != photo.shape
        return replace(found, kept=found.kept + (corner,)) if turned else found

    result = read_photo(photo, rules=RULES, detect=with_a_tile_in_the_corner)
    assert result.error is None and result.hand["concealed"] == CONCEALED
    assert any("ran 30 degrees askew" in w for w in result.warnings)
    assert len(result.tiles) == 14 and not any("not used" in w for w in result.warnings)
    height, width = photo.shape[:2]
    for tile in result.tiles:
        x1, y1, x2, y2 = tile.box
        assert 0 <= x1 < x2 <= width and 0 <= y1 < y2 <= height


def test_a_photo_whose_rows_run_level_is_read_once():
    photo = _askew_hand_photo(5.0)
    calls = []
    detect = _blob_detector(photo)
    result = read_photo(photo, rules=RULES, detect=lambda image: calls.append(image) or detect(image))
    assert result.error is None and result.hand["concealed"] == CONCEALED
    assert len(calls) == 1 and not any("askew" in w for w in result.warnings)


@pytest.mark.parametrize("degrees", [90.0, 85.0, 95.0])
def test_a_photo_turned_a_quarter_is_read_turned_back(degrees):
    # A phone held flat over the table records the wrong way up: the row runs up the photo, and
    # its faces (seen turned) read as nothing the hand holds.
    photo = _askew_hand_photo(degrees)
    detect = _blob_detector(photo)
    turned_boxes = detect(photo).kept
    calls = []
    result = read_photo(photo, rules=RULES, detect=lambda image: calls.append(image) or detect(image))
    assert result.error is None and result.confidence == 1.0
    assert sorted(result.hand["concealed"] + [result.hand["winning_tile"]]) == sorted(CONCEALED + ["7z"])
    assert any("turned a quarter" in w for w in result.warnings)
    assert len(calls) == 3  # as taken, then turned each way
    assert read_photo(photo, rules=RULES, detect=detect, turn_level=False).error is not None
    for tile in result.tiles:  # back on the photo as it was taken
        assert max(iou_of(Detection(tile.box, tile.code, 1.0), t) for t in turned_boxes) > 0.8


@pytest.mark.parametrize("kept, rejected, turned", [(2, 4, True), (2, 3, False), (21, 0, True), (20, 0, False)])
def test_a_turned_photo_whose_boxes_show_no_rows_is_read_turned_if_they_look_sideways(kept, rejected, turned):
    # The detector boxes halves of tiles seen sideways, side by side: no rows run up the photo,
    # but the crop classifier rejects many of its boxes, or there are more than a hand's.
    photo = _askew_hand_photo(90.0)
    blobs = _blob_detector(photo)
    halves = tuple(Detection((30.0 * k, 250.0, 30.0 * k + 30, 280.0), "1m", 0.9, (("1m", 0.9),))
                   for k in range(kept))
    stray = tuple(Detection((x, 600.0, x + 30, 630.0), "2m", 0.3, (("2m", 0.3),), 0.9) for x in range(0, 300, 60))

    def detect(image):
        as_taken = np.asarray(image).shape[:2] == photo.shape[:2]
        return DetectionSet(halves, stray[:rejected]) if as_taken else blobs(image)

    result = read_photo(photo, rules=RULES, detect=detect)
    assert (result.error is None) == turned
    assert any("turned a quarter" in w for w in result.warnings) == turned
    if turned:
        assert sorted(result.hand["concealed"] + [result.hand["winning_tile"]]) == sorted(CONCEALED + ["7z"])


def test_of_a_turned_photo_read_both_ways_the_reading_that_misses_a_tile_loses_though_surer():
    # Read one way up, a flower set apart is found and the faces read less surely; the other way
    # up the flower is missed and every face reads surely: the hand with the flower is kept.
    photo = _askew_hand_photo(90.0)
    photo[40:60, 1100:1120] = 100  # a dark grey mark (no tile to the stand-in detector): top left in the copy turned counter-clockwise
    blobs = _blob_detector(photo)

    def detect(image):
        image = np.asarray(image)
        found = blobs(image).kept
        if image.shape[:2] == photo.shape[:2] or not (image[:200, :200] == 100).any():
            return DetectionSet(found)
        unsure = tuple(replace(d, alternatives=((d.code, 0.8), ("1p", 0.2))) for d in found)
        x1, y1 = found[0].box[:2]
        flower = Detection((x1, y1 - 150, x1 + 40, y1 - 94), "5f", 0.95, (("5f", 0.95),))
        return DetectionSet(unsure + (flower,))

    result = read_photo(photo, rules=RULES, detect=detect)
    assert result.error is None and result.hand["flowers"] == ["5f"]
    assert result.confidence < 0.5
    assert any("turned a quarter counter-clockwise" in w for w in result.warnings)


def test_a_reading_of_a_turned_copy_names_places_on_the_photo():
    from vision.pipeline import PhotoResult, TileResult, _place, _put_back

    box = (10.0, 20.0, 50.0, 80.0)  # in a copy of a 100 x 200 photo turned a quarter counter-clockwise
    result = PhotoResult(tiles=[TileResult("1m", "1m", box, 1.0, (("1m", 1.0),), "concealed", None, False)],
                         warnings=[f"left out a box (read 2m, at {_place(box)}) to make a winning hand", "no place"])
    _put_back(result, np.array([[0, -1, 100], [1, 0, 0]], float), (200, 100), (400, 800))
    on_photo = (4 * (100 - 80.0), 4 * 10.0, 4 * (100 - 20.0), 4 * 50.0)
    assert result.tiles[0].box == on_photo
    assert result.warnings == [f"left out a box (read 2m, at {_place(on_photo)}) to make a winning hand", "no place"]


@pytest.mark.parametrize("rules", ["mcr", "sihai", "shanghai"])
def test_the_failures_taken_as_blind_to_the_winning_tile_are(rules):
    """The reader tries the other codes as the winning tile only where the row's ends failed in a
    way that may hang on it; so a hand of the same tiles must fail alike whichever it is."""
    from datasets.mjsynth.codes import PLAYABLE
    from datasets.mjsynth.hands import random_winning_hand
    from scoring import score_json
    from vision.reader import _fails_whatever_the_winner

    rng = np.random.default_rng(20261203)
    outcomes = Counter()
    for _ in range(150):
        hand = random_winning_hand(rng).to_json()
        standing = hand["concealed"] + [hand["winning_tile"]]
        if rng.random() < 0.7:  # most readings tried are a tile or two off a winning hand
            for k in rng.choice(len(standing), size=int(rng.integers(1, 3)), replace=False):
                standing[k] = PLAYABLE[rng.integers(len(PLAYABLE))]
        verdicts = set()
        for code in set(standing):
            rest = list(standing)
            rest.remove(code)
            verdicts.add(_fails_whatever_the_winner(score_json({**hand, "concealed": rest, "winning_tile": code},
                                                              rules=rules)))
        assert len(verdicts) == 1, (rules, standing, hand["melds"])
        outcomes[verdicts.pop()] += 1
    assert outcomes[True] > 30 and outcomes[False] > 30  # both kinds of hand were tried


def test_a_large_photos_parts_overlap_and_reach_every_edge():
    from vision.pipeline import PART_SIDE, PART_STEP, _parts

    parts = list(_parts(np.zeros((1000, 3000, 3), np.uint8)))
    xs = [x for x, _, _ in parts]
    assert all(y == 0 and part.shape[:2] == (1000, PART_SIDE) for _, y, part in parts)  # the photo's own height
    assert xs[0] == 0 and xs[-1] + PART_SIDE == 3000 and all(0 < b - a <= PART_STEP for a, b in zip(xs, xs[1:]))
    assert [(x, y) for x, y, _ in _parts(np.zeros((2000, 1300, 3), np.uint8))] == [(0, 0), (20, 0), (0, 720), (20, 720)]


def test_a_hand_is_small_in_a_photo_where_its_part_is_far_shorter_than_the_photo():
    """The part read closer is the hand's tiles with PART_MARGIN tile lengths about them; a box of
    no group far off (a die read face down) does not stretch it where tiles are grouped."""
    from vision.pipeline import CLOSER_GAIN, PART_MARGIN, PhotoResult, TileResult, _small_in_photo

    def tile(x: float, role: str) -> TileResult:
        return TileResult("1m", "1m", (x, 100.0, x + 40, 160.0), 1.0, (("1m", 1.0),), role, 0, False)

    row = [tile(100.0 + 40 * k, "concealed") for k in range(14)]  # 560 px long, 60 px tiles
    part = 560 + 2 * PART_MARGIN * 60
    assert _small_in_photo(PhotoResult(tiles=row), (round(CLOSER_GAIN * part), 3000))
    assert not _small_in_photo(PhotoResult(tiles=row), (round(CLOSER_GAIN * part) - 2, 1000))
    far = PhotoResult(tiles=row + [tile(3900.0, "unassigned")])
    assert _small_in_photo(far, (4000, 3000))
    assert not _small_in_photo(PhotoResult(tiles=[replace(t, role="unassigned") for t in far.tiles]), (4000, 3000))
    assert not _small_in_photo(PhotoResult(tiles=[]), (4000, 3000))
