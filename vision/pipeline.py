"""Photo -> detections -> hand layout -> hand reading -> score, as one typed result.

    from vision import read_photo
    result = read_photo("hand.jpg", rules="mcr", context={"self_drawn": True})
    result.score["total"], result.hand, result.to_json()

Whatever goes wrong after the photo was decoded (no tiles, several hands, a hand that does not
win) is kept in `result.error` together with everything that was read, so the caller can still
show the tiles; only unusable input (not an image, bad options) raises PhotoError.
"""

from __future__ import annotations

import functools
import numbers
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from vision.detections import (BACK, CLASS_NAMES, FLOWER_CODES, PLAYING_CODES, Detection, DetectionSet,
                               median_short_side, with_any_face)
from vision.grouping import Layout, concealed_count, group_tiles, iou, meld_codes, one_code, row_tilt
from vision.photo_errors import EXIT_SCORED, PhotoError
from vision.reader import (UNCERTAIN_BELOW, HandReading, flowers_in_the_row, flowers_set_apart,
                           four_tile_runs_that_are_no_kong, orient, playing_tiles_among_the_flowers, read_hand,
                           stacked_kongs_named, stacked_kongs_seen)

# A hand short of tiles with a tile this close (pixels) to the photo's edge is most likely cut
# off there: on 1,000 development photos, 55 of the 59 such hands were.
EDGE_PX = 2
EDGE_HINT = ("; a tile of the hand lies at the photo's edge, so one may be cut off: take the photo with "
             "the whole hand in view")
# When no reading of a photo's tiles wins, the hand is read again with one box changed: one of
# the SECOND_LOOKS boxes the crop classifier rejected that look most like a tile taken back, or
# one of the SECOND_LOOKS kept tile boxes it doubted most left out; and when that wins neither,
# once more with the tiles not read surely free to take any face. On 2,200 development photos
# (seeds 5555000/1, 5556000/1, 5557000/1, 5558000/1) the box changes read 914 -> 937 hands and
# 1,370 -> 1,414 scores exactly and the free faces 947 / 1,431, none fewer; of the 102 photos
# answered instead of failing, 69 read a wrong hand (28 of them with the right score).
SECOND_LOOKS = 4
# Two boxes overlapping this much (IoU) may be one tile boxed twice, the second box shifted off it
# (0.30-0.47 in the 600 benchmark photos): when no reading wins, leaving out either is tried.
# Neighbours' boxes overlap so much too where tilted tiles' upright boxes take in each other
# (up to 0.39 in photos turned 10 degrees), so only the hand can tell; the boxes of the
# SECOND_LOOKS pairs that overlap most are tried.
GHOST_IOU = 0.3
# A scored hand whose score_confidence is below this is flagged as doubtful. On the 600 benchmark
# photos (bench_photo seeds 2026000 / 2026001) 22 of the 34 scores below 0.05 were right, 187 of
# the 205 at 0.05 or more.
DOUBTFUL_SCORE = 0.05
# A hand that does not read surely (no winning reading, or one below UNSURE_BELOW confidence) is
# read again from a changed copy of the photo where one would help, and the new reading kept
# where it wins more surely:
#  * tiles lit unevenly (vision.detector.UNEVEN: a shadow over part of the hand): the photo lit
#    evenly and read anew, a detector pass (the measurements at vision.detector.evenly_lit);
#  * tile faces lit far from the classifiers' training renders (vision.detector.CAST): the same
#    boxes read again with the photo's colours balanced, a crop classifier pass. The complete
#    photos of bench_photo's first 100 / 60 (seed 2026000 / 2026001; 76 held-out art, 44 real
#    faces) read exactly, before -> after, as rendered 58 -> 58 and 24 -> 24, lit warm 49 -> 51
#    and 21 -> 22, cool 51 -> 52 and 23 -> 23, dim 45 -> 49 and 22 -> 24, dim and warm 47 -> 52
#    and 19 -> 21 (bench_photo.LIGHTS). Reading the balanced photo's boxes anew with the detector
#    where that still failed read none more; ignoring the detector's codes in the balanced
#    reading (classifier alone), 4 fewer.
#  * tiles blurred (vision.detector.BLURRED): the photo read anew sharpened, a detector pass. The
#    same photos, as rendered, blurred (Gaussian, sigma 1.5 / 2.5 px) and shaken (9 px), read 58,
#    45 / 22, 14 -> 58, 48 / 36, 14 (held-out art) and 24, 21 / 15, 10 -> 24, 20 / 17, 10 (real
#    faces). Sharpened more gently (amount 1, sigma 1.5), 58, 48 / 31, 14 and 24, 21 / 16, 11;
#    read again sharpened whatever the first reading's confidence, 58, 52 / 40, 14 and 24, 19 /
#    17, 10, at a detector pass more for one sharp photo in eight.
#  * a clear shake (vision.detector.SHAKE_CLEAR), before sharpening: the same boxes read again
#    by the crop classifier with the shake undone, a classifier pass. The same complete photos,
#    each shaken by 7 / 9 / 13 px in a random direction (and saved again as JPEG), read 36 / 29 /
#    10 -> 43 / 36 / 24 (held-out art) and 18 / 13 / 7 -> 19 / 20 / 18 (real faces); as rendered
#    55 -> 56 and 23 -> 23, blurred by 2.5 px or shaken by 5 px alike. Read anew by the detector
#    too (a detector pass more): 43 / 39 / 26 and 20 / 19 / 20, but photo -> score went from about
#    1.1 to 1.2 times the detector. Only for hands no reading made win: 37 / 33 / 15 and 18 / 15 /
#    10.
# Where a changed reading does not win, the photo's fault is named with how to take a better one.
UNSURE_BELOW = 0.2
# A phone held askew turns the rows: the detector's upright boxes then take in parts of the
# neighbours and the classifiers see tilted faces. A hand that no reading makes win, whose rows
# run this many degrees askew, is read again with the photo turned level. On 250 held-out-art hand
# photos (bench_photo seeds 2026000 and 3033000, 188 complete), as they are and turned at random
# by up to 20, 30 or 35 degrees: complete photos read exactly 126 -> 126 as they are, 135 -> 145
# turned (exact scores 158 -> 158, 170 -> 189). Reading again also the winning hands read below
# 0.2 confidence (and keeping a level reading five times as sure) read 159 turned, but cost a
# tenth of the detector's time more at the median (photo -> score 1.17-1.19 -> 1.27-1.28 times
# the detector, bench_photo --latency 100): over the latency target of 1.2.
MIN_TILT = 15.0
# Grouping turns a tilted photo's boxes level (session 25), so a hand askew now often wins on its
# first reading, from classifiers that read its tilted faces worse. A winning hand read unsurely
# whose rows run this many degrees askew is read level too, and the surer reading kept: photos
# turned by up to 35 degrees (bench_photo seeds 2026000/1, 150 + 100) read exactly 70 -> 77 and
# 26 -> 31 hands (the old grouping, which failed them into the level reading: 72 and 29); from 15
# degrees 79 / 34, but then photo -> score costs 1.40-1.47 times the detector, against 1.23-1.24
# (12 of the first 100 untilted benchmark photos read level, against 3); from 20 degrees 79 / 32,
# with 6 of those 100 read level, the latency lost in the machine's noise, and on the 600 benchmark
# photos 3 hands gained and 1 lost, 3 scores gained and 2 lost: not worth the doubled passes.
STEEP_TILT = 25.0
# The photo is turned at a size that keeps the pixels the detector's larger input reads.
LEVEL_SIDE = 960
# The turned copy's corners repeat the photo's edges, and the detector finds tiles in those
# streaks too: a box with less than this share of it on the photo is none of the photo's tiles
# (put back on the photo, one wholly off it had its right edge left of its left). A tile cut off
# at the photo's edge shows a sliver, the streaks the rest of its box: on the benchmark's photos
# (seed 2026000, as rendered and turned up to 30 degrees), dropping boxes under 0.25 lost one
# photo's exact score (its boxes with 0.18 and 0.22 on the photo); under 0.1, none.
ON_THE_PHOTO = 0.1
# A phone held flat over the table, or sideways, may record the wrong way up or none, and the
# photo comes out turned a quarter; the models, trained on rows that run across the photo, read
# such rows badly. A photo whose face-up tiles' rows run this many degrees askew is read turned a
# quarter, both ways (only the reading tells which way is up: a photo from across the table
# reads upside down too), and the better winning reading kept (_read_quarter_turned). Face-down
# boxes are left out of the tilt: a standing tile turned a quarter shows its back beside its face,
# and the detector boxes both, neighbours across the row. Bench_photo's first 150 / 100 photos (seeds 2026000 /
# 2026001; held-out art / real faces) turned a quarter counter-clockwise read exactly 41 -> 71 /
# 19 -> 29 hands (exact scores 57 -> 90 / 49 -> 63), clockwise 45 -> 67 / 20 -> 29 (59 -> 86 /
# 53 -> 65); upright they read 74 / 32. Of the turned photos, 6 / 10 show no rows this askew (the
# detector boxes halves of tiles seen sideways). The rows of none of them upright ran more than
# 28 degrees askew (all tiles or face-up ones), so an upright photo is never read turned.
QUARTER_TILT = 45.0
# Some photos turned a quarter show no such rows (of the benchmark's 400 / 200 turned so, 20 / 15:
# the detector boxes halves of sideways tiles, and their backs). Their boxes give them away
# otherwise: the crop classifier rejects this many of them or more, or there are more tile boxes
# than this; a photo whose reading makes no winning hand and whose boxes look so is read turned a
# quarter too, and that reading kept where it wins. Of the 600 benchmark photos upright, 1 had
# as many boxes rejected (8) and none more than 20 tile boxes; of the 35 turned ones that show no
# rows, 32 (18 / 14). A photo of the whole table, refused as several hands, is read turned too:
# time lost on a photo that gives no score either way (footage does not turn its frames).
SIDEWAYS_REJECTED = 4
SIDEWAYS_TILES = 20
# A hand small in a large photo (taken from across the room, a panorama, a corner of a wide shot)
# comes out a few pixels a tile at the detector's input, and none is found. A photo over PART_SIDE
# px long whose reading does not win from fewer than HAND_PART_TILES tile boxes is searched in
# overlapping parts PART_SIDE px square (PART_STEP apart; the photo first brought under
# PART_SIDE * MAX_PARTS_ALONG px long, so a 150 MP photo costs 16 parts, not 176), and the part
# of the photo around the tiles found (PART_MARGIN tile lengths more each way) read in full. The
# bundled sample pasted at 0.6 of its size into a corner of a 4000 x 3000 photo, or into a 6000 x
# 960 panorama, read no tile before and its own hand (0.97 / 0.93 sure) after, in 1.8 / 0.5 s.
# Photos of a hand as the benchmark takes them (960 px) are never searched. (A hand found, but
# small in its photo: CLOSER_GAIN below.)
PART_SIDE = 1280
PART_STEP = 960
MAX_PARTS_ALONG = 4
PART_MARGIN = 1.5
HAND_PART_TILES = 8
# A hand found in a part of a large photo CLOSER_GAIN times shorter than the photo (or less) came
# out small at the detector's input, which reads the whole photo; a reading of it that does not
# win, or wins less surely than CLOSER_BELOW, is read again from that part of the photo in full,
# and the surer winning reading kept. bench_photo --imgsz 1600 --canvas 4032 (the hand on a 12 MP
# table photo), first 150 + 60 photos, seeds 2026000 / 2026001: complete photos read exactly
# 67 -> 74 of 119 (held-out art) and 15 -> 17 of 48 (real faces); scores 79 -> 87 and 33 -> 38.
# Trying also readings up to 0.9 sure gained no more than up to 0.5 on 84 such photos, but kept
# none worse; the cost falls only on large photos where the hand is small (1.06 -> 1.74 times
# the detector there).
CLOSER_GAIN = 2.0
CLOSER_BELOW = 0.9
# Flowers a doubtful flower tile may be, beside the one read, tried for whether the score depends
# on which flower it is (a seat flower in Shanghai scoring; MCR and Sihai count flowers alike).
FLOWER_RIVALS = 3
# Tiles small in the photo read far worse. The benchmark's complete photos (bench_photo seeds
# 2026000 / 2026001) shrunk to 0.67, 0.5 and 0.4 of their 960 px and saved again as a messaging
# app would (JPEG quality 80) read exactly 46% / 13% (held-out art / real faces) where the median
# tile box's shorter side came out under this many pixels, 64% / 44% from it up; as rendered, no
# photo's tiles were that small. A reading of such tiles that makes no winning hand, or one read
# unsurely (UNSURE_BELOW), says how to take a better photo: of the 148 / 87 readings so told among
# the photos shrunk to 0.4, 41 / 8 were exact, and the same photos read 69 / 22 at 960 px.
SMALL_TILE_PX = 24

# JSON hand keys a photo cannot show, with their defaults (the scoring schema's).
CONTEXT_DEFAULTS: dict[str, Any] = {
    "self_drawn": False,
    "seat_wind": "E",
    "round_wind": "E",
    "last_tile": False,
    "kong_replacement": False,
    "robbing_kong": False,
    "dealer": "E",
    "discarder": None,  # on a discard win: None is the seat before the winner's (scoring's default)
}


@dataclass(frozen=True)
class TileResult:
    """One tile as read: `code` is the hand reader's choice, `detected` the box's first reading
    (the crop classifiers' codes weighed with the detector's scores, vision.classifier.reread)."""

    code: str
    detected: str
    box: tuple[float, float, float, float]
    confidence: float  # probability of `code` among the box's listed alternatives
    alternatives: tuple[tuple[str, float], ...]
    role: str  # concealed, winning, meld, flower or unassigned
    group: int | None  # index into PhotoResult.groups
    uncertain: bool

    def to_json(self) -> dict:
        return {
            "code": self.code,
            "detected": self.detected,
            "box": [round(float(v), 1) for v in self.box],  # float(): numpy numbers are no JSON
            "confidence": round(float(self.confidence), 4),
            "alternatives": [[c, round(float(p), 4)] for c, p in self.alternatives],
            "role": self.role,
            "group": self.group,
            "uncertain": self.uncertain,
        }


@dataclass(frozen=True)
class GroupResult:
    """A physical group on the table: the concealed row, the winning tile, a meld, the flowers."""

    kind: str  # "concealed" | "winning" | "chow" | "pung" | "kong" | "flowers" | "meld"
    concealed: bool  # concealed row/kong (vs exposed meld)
    tiles: tuple[int, ...]  # indices into PhotoResult.tiles
    claimed: int | None = None  # sideways tile of an exposed meld
    stacked: bool = False  # a kong shown as three tiles, its fourth (no tile here) under the middle one

    @property
    def label(self) -> str:
        if self.kind in ("concealed", "flowers"):
            return self.kind
        if self.kind == "winning":
            return "winning tile"
        return f"{'concealed' if self.concealed else 'exposed'} {self.kind}" + ", stacked" * self.stacked

    def to_json(self) -> dict:
        return {"kind": self.kind, "label": self.label, "concealed": self.concealed,
                "tiles": list(self.tiles), "claimed": self.claimed, "stacked": self.stacked}


@dataclass
class PhotoResult:
    tiles: list[TileResult] = field(default_factory=list)
    groups: list[GroupResult] = field(default_factory=list)
    hand: dict | None = None  # the JSON hand of scoring's schema
    score: dict | None = None  # scoring's JSON result
    fan_tiles: list[list[int]] = field(default_factory=list)  # per score["fans"]: tile indices
    confidence: float = 0.0  # probability that every tile of the hand is read right
    score_confidence: float = 0.0  # probability that the fans and total are right (reader.HandReading)
    runner_up: dict | None = None  # {"hand", "total", "probability"} when close to the best
    warnings: list[str] = field(default_factory=list)
    error: PhotoError | None = None

    @property
    def exit_code(self) -> int:
        return self.error.exit_code if self.error else EXIT_SCORED

    def to_json(self) -> dict:
        return {
            "ok": self.error is None,
            "tiles": [t.to_json() for t in self.tiles],
            "groups": [g.to_json() for g in self.groups],
            "hand": self.hand,
            "score": self.score,
            "fan_tiles": self.fan_tiles,
            "confidence": round(float(self.confidence), 4),
            "score_confidence": round(float(self.score_confidence), 4),
            "runner_up": self.runner_up,
            "warnings": self.warnings,
            "error": self.error.to_dict() if self.error else None,
        }


Detect = Callable[[Any], Sequence[Detection] | DetectionSet]


def _uncertain_label(tile: TileResult) -> str:
    """`6p (first read as 8p)` where the reader chose another code than the box's first reading."""
    return tile.code if tile.code == tile.detected else f"{tile.code} (first read as {tile.detected})"


def read_photo(
    image: str | Path | bytes | Any,
    rules: str = "mcr",
    context: Mapping[str, Any] | None = None,
    winning_tile: str | None = None,
    kong_codes: Sequence[str] = (),
    options: Mapping[str, Any] | None = None,
    detect: Detect | None = None,
    flowers: Sequence[str] | None = None,
    turn_level: bool = True,
) -> PhotoResult:
    """Read and score the winning hand in a photo (a path, bytes, an open binary file, a PIL image
    or an RGB array: OpenCV gives BGR, which must be turned to RGB first).

    `context`: win flags a photo cannot show (keys of CONTEXT_DEFAULTS). `detect` replaces the
    shipped ONNX detector (any callable image -> detections or a DetectionSet; it is also given
    the photos turned level and a quarter, and parts of a large photo). `flowers` names the
    winner's flowers when the photo cannot tell which (or does not show them all). `turn_level`:
    read a hand that no reading makes win, whose rows run askew (MIN_TILT), or that wins unsurely,
    whose rows run steeply askew (STEEP_TILT), again from the photo turned level, and a photo
    whose rows run up it, or whose boxes look like sideways tiles', turned a quarter
    (QUARTER_TILT). Raises PhotoError (bad_input) for an unreadable image, a missing model or bad
    options. The warnings
    advise in `mjlens photo`'s terms: its --winning-tile, --kong and --flowers are `winning_tile`,
    `kong_codes` and `flowers` here.
    """
    request = _request(rules, context, options, winning_tile, kong_codes, flowers)
    _check_type("detect", detect, "a function from an image to detections (or None)", callable)
    _check_type("turn_level", turn_level, "True or False", lambda v: isinstance(v, bool))
    if hasattr(image, "read"):  # an open file or upload: read once, as the photo is decoded more than once
        image = _read_file(image)
    found = _run_detector(image, detect)
    size = functools.cache(lambda: _image_size(image))  # the header is read only when needed
    if turn_level and abs(row_tilt([d for d in found.kept if d.code != BACK])) >= QUARTER_TILT:
        result = _read_quarter_turned(image, detect, request)
    else:
        result = _read_as_found(image, detect, found, request, turn_level, size)
        if turn_level and _failed(result) and _boxes_look_sideways(found):
            turned = _read_quarter_turned(image, detect, request)
            result = result if _failed(turned) else turned
        if max(size()) > PART_SIDE:
            result = _read_in_full(image, detect, found, request, result, size())
    _explain(result, request, size)
    _note_other_frames(result, image)
    return result


def _note_other_frames(result: PhotoResult, image: Any) -> None:
    from vision.detector import frames_after_the_first

    if more := frames_after_the_first(image):
        result.warnings.append(f"the file holds {more + 1} frames (an animation or several pages): only the first "
                               "was read; save the frame that shows the hand as a photo of its own")


def _read_as_found(image: Any, detect: Detect | None, found: DetectionSet, request: ReadingRequest,
                   turn_level: bool, size: Callable[[], tuple[int, int]]) -> PhotoResult:
    """The reading of `found`, the detector's boxes of `image`, or of a changed copy of the photo."""
    result = _read_found(found, request)
    # No changed copy of the photo brings back a tile outside it, nor makes one hand of several
    # players' rows (whose retake advice would blame a shake or the light). (The other input size,
    # tried in _read_found, may still find a tile the detector missed elsewhere in the photo.)
    if not _cut_off(result, size) and not (result.error and result.error.code == "several_hands"):
        result = _read_changed_copies(image, detect, found, request, result, turn_level)
    return result


def _read_in_full(image: Any, detect: Detect | None, found: DetectionSet, request: ReadingRequest,
                  first: PhotoResult, size: tuple[int, int]) -> PhotoResult:
    """`first` (the reading of a photo over PART_SIDE px long), or, where the hand is small in
    the photo, a reading from the photo's own pixels, which the detector's input shrinks: of a
    search in parts where few tile boxes were found (HAND_PART_TILES), else of the part around
    the hand read closer (CLOSER_GAIN)."""
    if _failed(first) and sum(d.is_tile for d in found.kept) < HAND_PART_TILES:
        return _read_in_parts(image, detect, request, first)
    if (_failed(first) or first.confidence < CLOSER_BELOW) and _small_in_photo(first, size):
        closer = _read_closer(image, detect, request, first)
        return closer if _wins_more_surely(closer, first) else first
    return first


def _read_in_parts(image: Any, detect: Detect | None, request: ReadingRequest, first: PhotoResult) -> PhotoResult:
    """`first`, or the reading of the part of a large photo where a search in parts finds tiles
    (PART_SIDE), where it wins or `first` found no tile at all."""
    import cv2
    import numpy as np

    rgb, size = _decoded(image, draft_size=None)  # the photo's own pixels: the hand is small in them
    h, w = rgb.shape[:2]
    scale = min(1.0, PART_SIDE * MAX_PARTS_ALONG / max(h, w))
    searched = cv2.resize(rgb, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA) if scale < 1 else rgb
    boxes = [box for x, y, part in _parts(searched)
             for box in (_shifted(d.box, x, y) for d in _run_detector(part, detect).kept if d.is_tile)]
    if not boxes:
        return first
    result = _read_around(rgb, size, np.array(boxes) / scale, detect, request)
    return first if _failed(result) and first.tiles else result


def _read_closer(image: Any, detect: Detect | None, request: ReadingRequest, first: PhotoResult) -> PhotoResult:
    """The reading of the part of the photo around `first`'s tiles, in full (CLOSER_GAIN)."""
    import numpy as np

    rgb, (width, height) = _decoded(image, draft_size=None)
    h, w = rgb.shape[:2]
    boxes = np.array(_hand_boxes(first)) * [w / width, h / height, w / width, h / height]
    return _read_around(rgb, (width, height), boxes, detect, request)


def _read_around(rgb: Any, size: tuple[int, int], boxes: Any, detect: Detect | None,
                 request: ReadingRequest) -> PhotoResult:
    """The reading of the part of `rgb` (the photo of `size`, decoded in full) around `boxes`
    (tile boxes in `rgb`'s pixels, an n x 4 array), PART_MARGIN tile lengths more each way, put
    back on the photo with a warning that names the part."""
    import numpy as np

    (width, height), (h, w) = size, rgb.shape[:2]
    x1, y1, x2, y2 = _around(boxes)
    left, top, right, bottom = max(0, int(x1)), max(0, int(y1)), int(min(w, x2)), int(min(h, y2))
    crop = np.ascontiguousarray(rgb[top:bottom, left:right])
    result = _read_as_found(crop, detect, _run_detector(crop, detect), request, True,
                            lambda: (crop.shape[1], crop.shape[0]))
    _put_back(result, np.array([[1.0, 0.0, left], [0.0, 1.0, top]]), (h, w), size)
    result.warnings.append(f"the hand is small in a large photo: read from the part of it where tiles lie "
                           f"({_place((left * width / w, top * height / h, right * width / w, bottom * height / h))}); "
                           "a photo taken closer, with the hand filling the frame, reads better")
    return result


def _hand_boxes(result: PhotoResult) -> list[tuple[float, float, float, float]]:
    """The boxes of `result`'s tiles; of its grouped ones where some are grouped (a face-down box
    over a die or a card far off is of no group)."""
    return [t.box for t in _placed(result)] or [t.box for t in result.tiles]


def _small_in_photo(result: PhotoResult, size: tuple[int, int]) -> bool:
    """Whether `result`'s hand (_hand_boxes), PART_MARGIN tile lengths more each way, lies in a
    part of the photo (`size`, width x height) CLOSER_GAIN times shorter than the photo or less."""
    import numpy as np

    boxes = _hand_boxes(result)
    if not boxes:
        return False
    x1, y1, x2, y2 = _around(np.array(boxes))
    return max(size) >= CLOSER_GAIN * max(x2 - x1, y2 - y1)


def _around(boxes: Any) -> tuple[float, float, float, float]:
    """The part about `boxes` (an n x 4 array of tile boxes), PART_MARGIN tile lengths more each
    way than their span; not cut at the photo's edge."""
    import numpy as np

    side = PART_MARGIN * float(np.median(np.maximum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1])))
    (x1, y1), (x2, y2) = boxes[:, :2].min(axis=0), boxes[:, 2:].max(axis=0)
    return float(x1 - side), float(y1 - side), float(x2 + side), float(y2 + side)


def _parts(rgb: Any) -> Iterator[tuple[int, int, Any]]:
    """(x, y, pixels) of the overlapping parts PART_SIDE px square (or the photo's side, where
    shorter) that cover `rgb`, PART_STEP apart, the last of each row and column at the edge."""
    import numpy as np

    h, w = rgb.shape[:2]

    def starts(length: int) -> list[int]:
        last = max(0, length - PART_SIDE)
        return sorted({*range(0, last, PART_STEP), last})

    for y in starts(h):
        for x in starts(w):
            yield x, y, np.ascontiguousarray(rgb[y:y + PART_SIDE, x:x + PART_SIDE])


def _shifted(box: tuple[float, float, float, float], x: float, y: float) -> tuple[float, float, float, float]:
    return box[0] + x, box[1] + y, box[2] + x, box[3] + y


def _boxes_look_sideways(found: DetectionSet) -> bool:
    """Whether the detector's boxes look like those of tiles turned a quarter (SIDEWAYS_REJECTED)."""
    return len(found.rejected) >= SIDEWAYS_REJECTED or sum(d.is_tile for d in found.kept) > SIDEWAYS_TILES


def _read_quarter_turned(image: Any, detect: Detect | None, request: ReadingRequest) -> PhotoResult:
    """The better reading of the photo turned a quarter either way (QUARTER_TILT): the winning
    one if only one wins, else the one placing more tiles in the hand, else the surer; with its
    boxes put back on the photo."""
    import numpy as np

    rgb, (width, height) = _decoded(image)
    h, w = rgb.shape[:2]
    readings = []
    # np.rot90's quarter turns, each with the affine map that takes the turned copy's pixels back to the photo's.
    ways = ((1, [[0, -1, w], [1, 0, 0]], "counter-clockwise"), (3, [[0, 1, 0], [-1, 0, h]], "clockwise"))
    for turns, back, way in ways:
        copy = np.ascontiguousarray(np.rot90(rgb, turns))
        result = _read_as_found(copy, detect, _run_detector(copy, detect), request, True,
                                lambda copy=copy: (copy.shape[1], copy.shape[0]))
        readings.append((result, np.array(back, float), way))
    # Of two winning readings, the one that places more of the photo's tiles in the hand: the other
    # has missed one (a flower set apart, say) more often than it has taken in a stray box, and its
    # confidence, which covers only the tiles placed, does not show it. bench_photo --quarter
    # (400 / 200 photos, held-out art / real faces), against the surer alone: complete photos
    # 64.6% -> 65.6% / 42.1% -> 43.3% exact hands, and of the readings at 0.9 sure or more 86.8%
    # -> 97.1% / 89.5% -> 94.4% exact.
    result, back, way = max(readings, key=lambda r: (not _failed(r[0]), len(_placed(r[0])), r[0].confidence))
    _put_back(result, back, (h, w), (width, height))
    result.warnings.append(f"the photo looked turned a quarter (a phone held flat or sideways records the wrong "
                           f"way up or none): read turned a quarter {way}")
    return result


def _placed(result: PhotoResult) -> list[TileResult]:
    """The result's tiles that it places in the hand (concealed, winning, meld or flower)."""
    return [t for t in result.tiles if t.role != "unassigned"]


def _read_changed_copies(image: Any, detect: Detect | None, found: DetectionSet, request: ReadingRequest,
                         first: PhotoResult, turn_level: bool) -> PhotoResult:
    """`first`, or a reading of the photo changed where it looks at fault (a colour cast or uneven
    light, shake, blur, a reflection, rows askew) that wins more surely."""
    result = _read_again(found.in_balanced_light, request, first, "the tile faces were far from white or unevenly "
                         "lit (a warm or dim light, a shadow): read with the light balanced", "the tile faces look "
                         "far from white or unevenly lit (a warm or dim light, a shadow): a photo in daylight or "
                         "under a white lamp, with no shadow over the tiles, may read better")
    result = _read_again(found.unshaken, request, result, "the photo looked shaken: read with the shake undone",
                         "the photo looks shaken: hold the phone still (or rest it) and take it again")
    result = _read_again(found.sharpened, request, result, "the tiles looked blurred: read with the photo sharpened",
                         "the tiles look blurred: let the phone focus on them and take the photo again")
    result = _read_again(found.deglared, request, result, "a reflection (a flash or a lamp) washed out part of the "
                         "tiles: read with the tiles under it free to take the faces that make the hand win",
                         "a reflection (a flash or a lamp) washes out part of the tiles: take the photo again "
                         "without the flash, or from a little to one side")
    if turn_level and (_failed(result) or result.confidence < UNSURE_BELOW):
        tilt = row_tilt(found.kept)
        if abs(tilt) >= (MIN_TILT if _failed(result) else STEEP_TILT):
            result = _read_level(image, tilt, detect, request, result)
    return result


def _explain(result: PhotoResult, request: ReadingRequest, image_size: Callable[[], tuple[int, int]] | None) -> None:
    """What the person can do about the reading: the hints and warnings of a final result."""
    _hint_cut_off(result, image_size)
    _hint_small_tiles(result)
    _hint_stacked_kongs(result, request)
    _warn_of_face_up_kongs(result, request)
    _warn_of_deciding_flowers(result, request)
    _warn_of_flowers_at_the_edge(result, request, image_size)
    _warn_of_a_doubtful_score(result, request)


def _hint_small_tiles(result: PhotoResult) -> None:
    """How to take a better photo, where a reading that fails or is unsure read tiles smaller in
    the photo than SMALL_TILE_PX."""
    side = median_short_side([t.box for t in result.tiles])
    if side is not None and side < SMALL_TILE_PX and (_failed(result) or result.confidence < UNSURE_BELOW):
        result.warnings.append(f"the tiles are small in the photo (about {side:.0f} px across): take it closer, with "
                               "the hand filling the frame, or use the phone's own photo rather than a copy a "
                               "messaging app has shrunk")


def _warn_of_a_doubtful_score(result: PhotoResult, request: ReadingRequest) -> None:
    """A warning, first among them, on a score read too unsurely to trust without a look (below
    DOUBTFUL_SCORE): the reading still stands, as the likeliest winning one. A winning tile given
    wrong is one cause: given a tile that does not complete the hand, 247 of 271 development photos
    read no winning hand, 6 held the tile elsewhere, and the 18 whose tiles were read otherwise to fit
    it were each doubtful. Not refused: given the true tile, 22 of the 39 doubtful scores were right."""
    if result.error is not None or result.score_confidence >= DOUBTFUL_SCORE:
        return
    if request.winning_tile is None:
        then = "or give what you know (--winning-tile, --kong, --flowers)"
    else:
        then = f"and whether the winning tile is {request.winning_tile}, as given"
    result.warnings.insert(0, f"the score is doubtful ({result.score_confidence:.2f} sure): check the uncertain "
                              f"tiles against the photo (--annotate marks them), {then}")


def _warn_of_deciding_flowers(result: PhotoResult, request: ReadingRequest) -> None:
    """A warning for each doubtful flower tile of a scored hand that another likely flower would
    score differently: only the player can say which it is (`--flowers`)."""
    from scoring import get_ruleset, score_json

    if result.error is not None or request.flowers is not None or get_ruleset(request.rules).flowers_alike:
        return
    flowers = result.hand["flowers"]
    for tile in result.tiles:
        if tile.role != "flower" or not tile.uncertain:
            continue
        rivals = [code for code, _ in tile.alternatives if code in FLOWER_CODES and code not in flowers]
        for rival in rivals[:FLOWER_RIVALS]:
            hand = {**result.hand, "flowers": [rival if f == tile.code else f for f in flowers]}
            total = score_json(hand, rules=request.rules, options=request.options).get("total")
            if total != result.score["total"]:
                result.warnings.append(f"the flower read {tile.code} may be {rival}, which scores {total} "
                                       f"instead of {result.score['total']}: name the winner's flowers (--flowers)")
                break


def _warn_of_face_up_kongs(result: PhotoResult, request: ReadingRequest) -> None:
    """A warning for each kong of a scored hand read as concealed though all four of its tiles lie
    face up in a row, none turned, where as exposed it scores otherwise: tables show a concealed
    kong with tiles face down or all up, and many players lay a claimed kong all up without
    turning the claimed tile, so only the player can say which it is."""
    from scoring import score_json

    if result.error is not None:
        return
    hand = result.hand
    for group in result.groups:
        shown = [result.tiles[i] for i in group.tiles]
        if group.kind != "kong" or not group.concealed or group.stacked or any(t.detected == BACK for t in shown):
            continue
        code = shown[0].code
        melds = [{**m, "concealed": False} if m["kind"] == "kong" and m["concealed"] and m["tiles"][0] == code else m
                 for m in hand["melds"]]
        score = score_json({**hand, "melds": melds}, rules=request.rules, options=request.options)
        if score.get("ok") and score["total"] != result.score["total"]:
            result.warnings.append(f"the {code} kong lies all face up with no tile turned and was read as concealed; "
                                   f"if it was claimed (exposed), it scores {score['total']} instead of "
                                   f"{result.score['total']}")


def _hint_stacked_kongs(result: PhotoResult, request: ReadingRequest) -> None:
    """Names, in the error of a hand below the rule set's minimum, each exposed pung that would lift
    it to the minimum as a kong: from straight above, a kong laid with its fourth tile on the
    middle one shows no more than a pung, and only the player can say it is one (--kong)."""
    from scoring import score_json

    if result.error is None or result.error.code != "below_minimum":
        return
    hand, hints = result.hand, []
    for n, meld in enumerate(hand["melds"]):
        code = meld["tiles"][0]
        if meld["kind"] != "pung" or meld["concealed"] or code in request.kong_codes:
            continue
        kong = {**meld, "kind": "kong", "tiles": [code] * 4}
        score = score_json({**hand, "melds": [kong if k == n else m for k, m in enumerate(hand["melds"])]},
                           rules=request.rules, options=request.options)
        if score.get("ok") and score.get("minimum_met"):
            hints.append(f"{'if' if hints else 'If'} the {code} pung is a kong laid with its fourth tile under the "
                         f"middle one, give --kong {code}: it then scores {score['total']}")
    if hints:
        error = result.error
        result.error = PhotoError(error.kind, error.code, f"{error.message} {'; '.join(hints)}.")


def _read_again(changed: Callable[[], DetectionSet | None] | None, request: ReadingRequest, first: PhotoResult,
                warning: str, retake: str) -> PhotoResult:
    """`first` if it reads surely (UNSURE_BELOW) or the photo needs no `changed` reading (None
    given or returned); else the changed reading, with `warning`, if it wins more surely; else
    `first` with `retake` (how a better photo would be taken) among its warnings."""
    if changed is None or not (_failed(first) or first.confidence < UNSURE_BELOW):
        return first
    found = changed()
    if found is None:
        return first
    result = _read_found(found, request)
    if not _wins_more_surely(result, first):
        first.warnings.append(retake)
        return first
    result.warnings.append(warning)
    return result


def _read_level(image: Any, tilt: float, detect: Detect | None, request: ReadingRequest,
                first: PhotoResult) -> PhotoResult:
    """The reading of the photo turned `tilt` degrees so that its rows run level, with its boxes
    put back on the photo (the box around each turned box), if it wins; else `first`, which does
    not."""
    import cv2

    from vision.detector import turned

    rgb, size = _decoded(image)
    level, turn = turned(rgb, tilt)
    back = cv2.invertAffineTransform(turn)
    found = _run_detector(level, detect)

    def on_the_photo(boxes: Sequence[Detection]) -> tuple[Detection, ...]:
        return tuple(d for d in boxes if _share_on_photo(back, d.box, rgb.shape) >= ON_THE_PHOTO)

    # Read at one input size: the other would cost a third detector pass.
    result = _read_found(replace(found, kept=on_the_photo(found.kept), rejected=on_the_photo(found.rejected),
                                 other_size=None), request)
    if not _wins_more_surely(result, first):
        return first
    _put_back(result, back, rgb.shape[:2], size)
    result.warnings.append(f"the rows ran {abs(tilt):.0f} degrees askew: read with the photo turned level")
    return result


def _share_on_photo(back: Any, box: tuple[float, float, float, float], shape: tuple[int, ...]) -> float:
    """The share of `box`, in a turned copy whose pixels the 2x3 affine `back` takes to a photo
    of `shape` (height, width, ...), that lies on the photo."""
    import cv2
    import numpy as np

    from vision.detector import corners_through

    x1, y1, x2, y2 = box
    height, width = shape[:2]
    photo = np.array([[0, 0], [width, 0], [width, height], [0, height]], np.float32)
    inside, _ = cv2.intersectConvexConvex(corners_through(back, box).astype(np.float32), photo)
    return inside / max((x2 - x1) * (y2 - y1), 1e-9)


def _decoded(image: Any, draft_size: int | None = LEVEL_SIDE) -> tuple[Any, tuple[int, int]]:
    """The photo's pixels (a JPEG decoded reduced to `draft_size` or more; None: in full), as a
    turned or cut copy is made from them, and its full (width, height)."""
    from vision.detector import DetectorError, load_image

    try:
        return load_image(image, draft_size=draft_size)
    except DetectorError as exc:
        raise PhotoError("bad_input", exc.code, str(exc)) from None


def _put_back(result: PhotoResult, back: Any, decoded: tuple[int, int], size: tuple[int, int]) -> None:
    """Puts `result`, read from a turned copy of the photo, back on the photo: its boxes and the
    places its warnings name. `back` (2x3 affine) takes the copy's pixels to those of the photo
    decoded at `decoded` (height, width); `size` is the photo's full (width, height)."""
    from vision.detector import box_through

    h, w = decoded
    sx, sy = size[0] / w, size[1] / h

    def on_photo(box: tuple[float, float, float, float]) -> tuple[float, float, float, float]:
        left, top, right, bottom = box_through(back, box)
        return (max(0.0, left) * sx, max(0.0, top) * sy, min(w, right) * sx, min(h, bottom) * sy)

    result.tiles = [replace(t, box=on_photo(t.box)) for t in result.tiles]

    def place_on_photo(match: re.Match) -> str:
        x1, x2, y1, y2 = (float(v) for v in match.groups())
        return _place(on_photo((x1, y1, x2, y2)))

    result.warnings = [_PLACE.sub(place_on_photo, warning) for warning in result.warnings]


def check_options(
    rules: str,
    context: Mapping[str, Any] | None,
    options: Mapping[str, Any] | None,
    winning_tile: str | None = None,
    kong_codes: Sequence[str] = (),
    flowers: Sequence[str] | None = None,
) -> dict[str, Any]:
    """The full context with defaults; bad rules, options, flags or tile codes raise
    PhotoError(bad_input) before any work is done on the photo."""
    from scoring import ScoringError, WinContext, get_ruleset
    from scoring.errors import shown

    _check_type("context", context, "a dict of win flags (or None)", _is_mapping)
    _check_type("options", options, "a dict of rule-set options (or None)", _is_mapping)
    _check_type("winning_tile", winning_tile, "a tile code such as '5p' (or None)", lambda v: isinstance(v, str))
    _check_type("kong_codes", kong_codes, "a list of tile codes", _is_code_list)
    _check_type("flowers", flowers, "a list of flower codes (or None)", _is_code_list)
    for what, code in [("winning tile", winning_tile)] + [("kong tile", c) for c in kong_codes or ()]:
        if code in FLOWER_CODES:
            raise PhotoError("bad_input", "bad_tile_code", f"the {what} cannot be a flower ({code}): flowers are "
                                                           "set aside, never part of the hand")
        if code is not None and code not in PLAYING_CODES:
            raise PhotoError("bad_input", "bad_tile_code", f"{what} {shown(code)} is not a tile code such as 5p or 7z")
    for code in flowers or ():
        if code not in FLOWER_CODES:
            raise PhotoError("bad_input", "bad_tile_code", f"flower {shown(code)} is not a flower code 1f-8f")
    if flowers is not None and len(set(flowers)) < len(flowers):
        raise PhotoError("bad_input", "bad_tile_code", f"flowers {', '.join(flowers)} name one flower twice")
    unknown = set(context or {}) - set(CONTEXT_DEFAULTS)
    if unknown:
        raise PhotoError("bad_input", "bad_context", f"unknown context key(s): {', '.join(sorted(unknown))}; "
                         f"known: {', '.join(CONTEXT_DEFAULTS)}")
    full = {**CONTEXT_DEFAULTS, **(context or {})}
    if full["discarder"] is None:  # not given: no fact about the win, so the JSON hand leaves it out
        del full["discarder"]
    try:
        ruleset = get_ruleset(rules)
        ruleset.make_options(dict(options) if options else None)
        win = WinContext(**full)
        if ruleset.check_context is not None:
            ruleset.check_context(win)
    except ScoringError as exc:
        # WinContext names a flag of the wrong type as a JSON hand's fault; here it is the context's.
        raise PhotoError("bad_input", "bad_context" if exc.code == "bad_json" else exc.code, exc.message) from None
    return full


def _is_mapping(value: Any) -> bool:
    return isinstance(value, Mapping) and all(isinstance(k, str) for k in value)


def _is_code_list(value: Any) -> bool:
    return isinstance(value, (list, tuple)) and all(isinstance(c, str) for c in value)


def _check_type(name: str, value: Any, expected: str, accepts: Callable[[Any], bool]) -> None:
    """A caller's argument of the wrong type is bad input like any other, not a TypeError from
    deep inside the reader (None stands for the default wherever a default exists)."""
    if value is not None and not accepts(value):
        raise PhotoError("bad_input", "bad_argument", f"{name} must be {expected}, got {_kind_of(value)}")


def _kind_of(value: Any) -> str:
    """`value`'s type as an error names it; a list by the first item that is no string, as `got
    list` would read as a riddle after `must be a list of tile codes`."""
    if isinstance(value, Mapping):
        from scoring.errors import shown

        odd = [k for k in value if not isinstance(k, str)]
        return f"a {type(value).__name__} with the key {shown(odd[0])}, not a name" if odd else type(value).__name__
    odd = [type(v).__name__ for v in value if not isinstance(v, str)] if isinstance(value, (list, tuple)) else []
    return f"a {type(value).__name__} holding {odd[0]}" if odd else type(value).__name__


@dataclass(frozen=True)
class ReadingRequest:
    """How to read a photo's hand: the rule set and its options, and what the caller says that
    the photo cannot show (the win flags, with defaults) or shows unsurely (tile codes)."""

    rules: str
    context: dict[str, Any]
    options: Mapping[str, Any] | None
    winning_tile: str | None
    kong_codes: tuple[str, ...]
    flowers: tuple[str, ...] | None


def _request(rules: str, context: Mapping[str, Any] | None, options: Mapping[str, Any] | None,
             winning_tile: str | None, kong_codes: Sequence[str], flowers: Sequence[str] | None) -> ReadingRequest:
    from scoring.tiles import honour_by_letter

    winning_tile = honour_by_letter(winning_tile)
    if isinstance(kong_codes, (list, tuple)):  # anything else is refused as it is
        kong_codes = [honour_by_letter(c) for c in kong_codes]
    full_context = check_options(rules, context, options, winning_tile, kong_codes, flowers)
    return ReadingRequest(rules, full_context, options, winning_tile, tuple(kong_codes or ()),
                   None if flowers is None else tuple(flowers))


def _read_file(file: Any) -> bytes:
    try:
        data = file.read()
    except (OSError, ValueError) as exc:  # closed, not readable, text that is no text
        raise PhotoError("bad_input", "bad_argument", f"cannot read the photo from the file given: {exc}") from None
    if not isinstance(data, bytes):
        raise PhotoError("bad_input", "bad_argument", "open the photo in binary mode (open(path, 'rb'))")
    return data


def _image_size(image: Any) -> tuple[int, int]:
    from vision.detector import DetectorError, image_size

    try:
        return image_size(image)
    except DetectorError as exc:
        raise PhotoError("bad_input", exc.code, str(exc)) from None


def _run_detector(image: Any, detect: Detect | None) -> DetectionSet:
    from vision.detector import DetectorError

    try:
        if detect is None:
            from vision.detector import detect_hand

            return detect_hand(image)
        return _as_found(detect(image))
    except DetectorError as exc:
        raise PhotoError("bad_input", exc.code, str(exc)) from None


def _as_found(detections: Sequence[Detection] | DetectionSet) -> DetectionSet:
    """Plain detections as a DetectionSet with nothing rejected (a detector without the classifier).
    Boxes from another detector are checked: the reader does arithmetic on them, and the JSON
    result must stay valid JSON."""
    if isinstance(detections, DetectionSet):
        return detections
    wrong = "the detections are not a list" if not isinstance(detections, (list, tuple)) else next(
        (f"detection {i} of {len(detections)} is not one" for i, d in enumerate(detections) if not _is_detection(d)),
        None)
    if wrong:
        raise PhotoError("bad_input", "bad_detections", f"{wrong}: detections must be a list of vision.Detection "
                         f"with boxes of finite pixel coordinates under {MAX_COORDINATE:.0e} (x1 <= x2, y1 <= y2), "
                         "a known code, a confidence and not_a_tile from 0 to 1, and alternatives as (known code, "
                         "probability from 0 to 1) pairs")
    return DetectionSet(tuple(detections))


# Past any photo's pixels (150 MP with an 8 px side is under 2e7 px long); the reader squares
# coordinates, and a box a googol wide overflowed.
MAX_COORDINATE = 1e8


def _is_detection(d: Any) -> bool:
    return (isinstance(d, Detection) and d.code in CLASS_NAMES and isinstance(d.box, (list, tuple))
            and len(d.box) == 4 and all(isinstance(v, numbers.Real) and abs(v) < MAX_COORDINATE for v in d.box)
            and d.box[0] <= d.box[2] and d.box[1] <= d.box[3]
            and _is_probability(d.confidence) and _is_probability(d.not_a_tile)
            and isinstance(d.alternatives, (list, tuple))
            and all(isinstance(a, (list, tuple)) and len(a) == 2 and a[0] in CLASS_NAMES and _is_probability(a[1])
                    for a in d.alternatives))


def _is_probability(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool) and 0.0 <= value <= 1.0


def _failed(result: PhotoResult) -> bool:
    """Whether no reading of the tiles won (a hand below the rule set's minimum did win)."""
    return result.error is not None and result.error.code != "below_minimum"


def _wins_more_surely(result: PhotoResult, first: PhotoResult) -> bool:
    """Whether `result` wins, and `first` does not or less surely."""
    return not _failed(result) and (_failed(first) or result.confidence > first.confidence)


def _second_look(found: DetectionSet, first: PhotoResult, request: ReadingRequest) -> PhotoResult:
    """The most confident winning reading with one doubtful box changed (see SECOND_LOOKS),
    else the reading with the tiles not read surely free to take any face if it wins, else
    `first`. A tile the detector proposed and the classifier rejected is most often one the
    classifier could not read (blurred, seen edge-on), and a stray box it barely kept (a shadow,
    a blank face taken for a White dragon) spoils the count as much."""
    kept = list(found.kept)
    # A box the classifier gives no tile face at all (every code at 0) has no reading to take back.
    readable = [d for d in found.rejected if any(p > 0 for _, p in d.alternatives)]
    taken_back = [with_any_face(d) for d in sorted(readable, key=lambda d: d.not_a_tile)[:SECOND_LOOKS]]
    # Free faces never change a hand's tile count, and leaving a box out cannot add a tile to a
    # hand short of tiles unless a box kept some tile out of the hand (a stray box beside a meld
    # makes a run of five that is no meld): such hands are completed only by a box taken back.
    short = _short_of_tiles(first)
    doubted: list[Detection] = []
    repeating: list[Detection] = []
    if not (short and len(_placed(first)) == len(first.tiles)):
        # Boxes the classifier never checked (not_a_tile 0) give no grounds to leave one out.
        doubted = sorted((d for d in kept if d.is_tile and d.not_a_tile > 0), key=lambda d: -d.not_a_tile)[:SECOND_LOOKS]
        overlap = {id(d): max((iou(d, o) for o in kept if o is not d and o.is_tile), default=0.0)
                   for d in kept if d.is_tile and d not in doubted}
        repeating = sorted((d for d in kept if overlap.get(id(d), 0.0) >= GHOST_IOU),
                           key=lambda d: -overlap[id(d)])[:2 * SECOND_LOOKS]
    edits = [(kept + [d], None, f"took in a box the tile classifier rejected (read {d.code}, "
              f"{d.not_a_tile:.0%} not a tile, at {_place(d.box)}) to make a winning hand") for d in taken_back]
    edits += [([k for k in kept if k is not d], d, f"left out a box the tile classifier doubted (read "
               f"{d.code}, {d.not_a_tile:.0%} not a tile, at {_place(d.box)}) to make a winning hand") for d in doubted]
    edits += [([k for k in kept if k is not d], d, f"left out a box lying half over another tile's box (read "
               f"{d.code}, at {_place(d.box)}) to make a winning hand") for d in repeating]
    best = first
    for detections, left_out, warning in edits:
        result = _read(detections, request, found.on_a_tile)
        if not _failed(result) and (best is first or result.confidence > best.confidence):
            if left_out is not None:  # still shown, as a tile of no group
                result.tiles.append(_unplaced(left_out))
            result.warnings.append(warning)
            best = result
    if best is first and not short:
        # Tiles read surely (UNCERTAIN_BELOW or more) keep their faces: five surely read copies of a
        # tile are five copies, not a hand to mend.
        unsure = [with_any_face(d) if d.code in PLAYING_CODES and d.confidence < UNCERTAIN_BELOW else d for d in kept]
        result = _read(unsure, request, found.on_a_tile)
        if not _failed(result):
            result.warnings.append("no reading of the tiles' likely faces wins: read with the tiles not read "
                                   "surely free to take a face the classifier ranks low")
            best = result
    return best


def _short_of_tiles(result: PhotoResult) -> bool:
    """Whether `result` failed on a hand with fewer concealed tiles than its melds leave room for."""
    if result.error is None or result.error.code != "tile_count":
        return False
    standing = sum(len(g.tiles) for g in result.groups if g.kind in ("concealed", "winning"))
    return standing < concealed_count(sum(g.kind == "meld" for g in result.groups))


def read_detections(
    detections: Sequence[Detection] | DetectionSet,
    rules: str = "mcr",
    context: Mapping[str, Any] | None = None,
    winning_tile: str | None = None,
    kong_codes: Sequence[str] = (),
    options: Mapping[str, Any] | None = None,
    image_size: tuple[int, int] | None = None,
    flowers: Sequence[str] | None = None,
) -> PhotoResult:
    """Everything after the detector: grouping, hand reading and scoring. `image_size`
    (width, height) of the photo the boxes are in lets a hand that is short of tiles say when
    one may be cut off by the photo's edge."""
    request = _request(rules, context, options, winning_tile, kong_codes, flowers)
    _check_type("image_size", image_size, "(width, height) in pixels (or None)",
                lambda v: isinstance(v, (list, tuple)) and len(v) == 2
                and all(isinstance(n, numbers.Real) and n > 0 for n in v))
    result = _read_found(_as_found(detections), request)
    _explain(result, request, None if image_size is None else lambda: image_size)
    return result


def _read_found(found: DetectionSet, request: ReadingRequest) -> PhotoResult:
    result = _read(found.kept, request, found.on_a_tile)
    if _failed(result):
        result = _second_look(found, result, request)
    # The detector's boxes at its other input size differ most where they are hardest to draw:
    # on 2,200 development photos, 31 of those no second look made win then read a hand (9 exactly).
    # A photo without tiles (an empty table between hands in footage) is not worth a second pass.
    if _failed(result) and result.error.kind != "no_tiles" and found.other_size is not None:
        again = _read_found(found.other_size(), request)
        if not _failed(again):
            again.warnings.append("the first reading made no winning hand; read again from the detector's "
                                  "boxes with the photo at its other input size, which did")
            result = again
    return result


def _read(detections: Sequence[Detection], request: ReadingRequest,
          on_a_tile: Callable[[Sequence[Detection]], Sequence[float]] | None) -> PhotoResult:
    try:
        layout = orient(group_tiles(detections), request.winning_tile)
        layout = stacked_kongs_seen(stacked_kongs_named(four_tile_runs_that_are_no_kong(
            playing_tiles_among_the_flowers(flowers_in_the_row(flowers_set_apart(layout)))), request.kong_codes),
            on_a_tile)
    except PhotoError as exc:
        return PhotoResult(tiles=[_unplaced(d) for d in detections if d.is_tile], error=exc)
    try:
        reading = _read_hand(layout, request)
        if not reading.winning:
            layout, reading = _as_pungs_if_they_win(layout, reading, request)
        if not reading.winning:
            layout, reading = _unmelded_if_they_win(layout, reading, request)
    except PhotoError as exc:
        return replace(_layout_result(layout), error=exc)
    result = _layout_result(layout)
    _apply_reading(result, layout, reading)
    return result


def _read_hand(layout: Layout, request: ReadingRequest) -> HandReading:
    return read_hand(layout, request.context, request.rules, request.options, request.winning_tile,
                     request.kong_codes, request.flowers)


def _as_pungs_if_they_win(layout: Layout, reading: HandReading, request: ReadingRequest) -> tuple[Layout, HandReading]:
    """A meld taken for a stacked kong by its middle tile, raised or seen lying on another (not
    named with --kong), may be a pung laid untidily: where the hand wins only with such melds
    read as pungs, they are pungs."""
    raised = [m for m in layout.melds if m.stacked and not m.concealed
              and one_code(layout.tiles, m.tiles) not in request.kong_codes]
    if not raised:
        return layout, reading
    flat = replace(layout, melds=tuple(replace(m, stacked=False) if m in raised else m for m in layout.melds),
                   warnings=layout.warnings + (f"{len(raised)} meld(s) whose middle tile looks to lie on a fourth, as on "
                                               "a stacked kong, make no winning hand as kongs: read as pungs",))
    return _if_it_wins(flat, layout, reading, request)


def _unmelded_if_they_win(layout: Layout, reading: HandReading, request: ReadingRequest) -> tuple[Layout, HandReading]:
    """Melds found by a tile that looks turned alone (no grouping box) may be concealed tiles: a
    close photo's perspective stretches the row's near end, and a tile cut off by its edge looks
    short. Where the hand wins only with them back among the concealed tiles, they are."""
    by_a_turned_tile = [m for m in layout.melds if not m.from_box and not m.concealed and m.claimed is not None]
    if not by_a_turned_tile:
        return layout, reading
    back = replace(layout, melds=tuple(m for m in layout.melds if m not in by_a_turned_tile),
                   concealed=layout.concealed + tuple(i for m in by_a_turned_tile for i in m.tiles),
                   warnings=layout.warnings + (f"{len(by_a_turned_tile)} run(s) with a tile that looks turned make no "
                                               "winning hand as exposed melds: read as concealed tiles",))
    return _if_it_wins(back, layout, reading, request)


def _if_it_wins(changed: Layout, layout: Layout, reading: HandReading,
                request: ReadingRequest) -> tuple[Layout, HandReading]:
    """`changed` and its reading where that reading wins, else `layout` and `reading` as they were."""
    again = _read_hand(changed, request)
    return (changed, again) if again.winning else (layout, reading)


def _place(box: tuple[float, float, float, float]) -> str:
    x1, y1, x2, y2 = (round(v) for v in box)
    return f"x {x1}-{x2}, y {y1}-{y2}"


# A place as _place writes it, found again in a warning to put it back on the photo (_put_back).
_PLACE = re.compile(r"x (-?\d+)-(-?\d+), y (-?\d+)-(-?\d+)")


def _hint_cut_off(result: PhotoResult, image_size: Callable[[], tuple[int, int]] | None) -> None:
    """Tell a hand that may have a tile cut off by the photo's edge (`_cut_off`) so."""
    if _cut_off(result, image_size):
        error = result.error
        result.error = PhotoError(error.kind, error.code, error.message + EDGE_HINT)


def _cut_off(result: PhotoResult, image_size: Callable[[], tuple[int, int]] | None) -> bool:
    """Whether the hand's tile count is wrong and one of its tiles (concealed, winning or in a
    meld) touches the edge of the photo, of `image_size()` (width, height): a tile may be cut off
    there (55 of 59 such hands on development photos). False where the size is not known."""
    if image_size is None or result.error is None or result.error.code != "tile_count":
        return False
    return _any_at_the_edge(result, ("concealed", "winning", "meld"), image_size())


def _any_at_the_edge(result: PhotoResult, roles: tuple[str, ...], size: tuple[int, int]) -> bool:
    """Whether a tile of one of `roles` touches the edge of a photo of `size` (width, height)."""
    width, height = size
    return any(
        x1 <= EDGE_PX or y1 <= EDGE_PX or x2 >= width - EDGE_PX or y2 >= height - EDGE_PX
        for x1, y1, x2, y2 in (t.box for t in result.tiles if t.role in roles)
    )


def _warn_of_flowers_at_the_edge(result: PhotoResult, request: ReadingRequest,
                                 image_size: Callable[[], tuple[int, int]] | None) -> None:
    """A warning where a flower of a hand read touches the photo's edge and the flowers were not
    named: players lay their flowers together, so more may lie beyond it. On the 600 benchmark
    photos the flower count was wrong in 8 of 35 such readings (2 of the 9 at 0.9 sure or more,
    each missing flowers cut off), against 21 of 467 elsewhere."""
    if image_size is None or request.flowers is not None or result.hand is None:
        return
    if _any_at_the_edge(result, ("flower",), image_size()):
        result.warnings.append("a flower lies at the photo's edge, and more may lie beyond it: take the photo with "
                               "all the flowers in view, or name them (--flowers 1f,6f)")


def _unplaced(d: Detection) -> TileResult:
    return TileResult(d.code, d.code, d.box, d.confidence, d.alternatives, "unassigned", None, False)


def _layout_result(layout: Layout) -> PhotoResult:
    """Tiles and groups as laid out, codes still each box's first reading, with the layout's warnings."""
    roles: dict[int, tuple[str, int | None]] = {}
    groups: list[GroupResult] = []

    def add(kind: str, concealed: bool, members: Sequence[int], role: str, claimed: int | None = None,
            stacked: bool = False):
        if not members:
            return
        for i in members:
            roles[i] = (role, len(groups))
        groups.append(GroupResult(kind, concealed, tuple(members), claimed, stacked))

    add("concealed", True, layout.concealed, "concealed")
    if layout.winning is not None:
        add("winning", True, [layout.winning], "winning")
    for m in layout.melds:
        add("meld", m.concealed, m.tiles, "meld", m.claimed, m.stacked)
    add("flowers", False, layout.flowers, "flower")
    for i in layout.unassigned:
        roles[i] = ("unassigned", None)
    tiles = [
        TileResult(d.code, d.code, d.box, d.confidence, d.alternatives, *roles[i], False)
        for i, d in enumerate(layout.tiles)
    ]
    return PhotoResult(tiles=tiles, groups=groups, warnings=list(layout.warnings))


def _apply_reading(result: PhotoResult, layout: Layout, reading: HandReading) -> None:
    from scoring.rules import get_ruleset, refused_forms_text

    best = reading.best
    uncertain = set(reading.uncertain)
    for i, tile in enumerate(result.tiles):
        code = best.codes.get(i, tile.code)
        probs = dict(tile.alternatives) if tile.alternatives else {tile.code: tile.confidence}
        # A face-down kong tile takes the kong's code; its confidence stays that of "back".
        confidence = probs[code] / sum(probs.values()) if code in probs else tile.confidence
        result.tiles[i] = replace(tile, code=code, confidence=confidence, uncertain=i in uncertain)
    # A winning tile chosen by the reader (none was set apart) moves out of the concealed row.
    if layout.winning is None and best.winning >= 0:
        _move_to_winning(result, best.winning)
    # Meld groups follow layout.melds, as the hand's melds do: they take the kinds read.
    meld_groups = [g for g, group in enumerate(result.groups) if group.kind == "meld"]
    for g, meld in zip(meld_groups, best.hand["melds"]):
        group = result.groups[g]
        result.groups[g] = replace(group, kind=meld["kind"])
    result.hand, result.score = best.hand, best.score
    result.confidence = best.probability
    result.score_confidence = reading.score_probability
    result.warnings.extend(reading.warnings)
    if reading.runner_up is not None:
        result.runner_up = {
            "hand": reading.runner_up.hand,
            "total": reading.runner_up.score.get("total"),
            "probability": round(reading.runner_up.probability, 4),
        }
    if uncertain:
        result.warnings.append(
            "uncertain tile(s): "
            + ", ".join(_uncertain_label(result.tiles[i]) for i in sorted(uncertain))
        )
    if best.score.get("ok"):
        result.fan_tiles = [_fan_tile_indices(fan, result) for fan in best.score["fans"]]
    if not reading.winning:
        error = best.score.get("error") or {}
        refused, rules = best.score.get("refused_forms"), best.score.get("rules")
        why = (f": {error['message']}" if error
               else f" under {get_ruleset(rules).plain_title}: {refused_forms_text(rules, refused)}" if refused
               else "")
        result.error = PhotoError(
            "not_winning", error.get("code", "not_winning"),
            f"no reading of the tiles makes a winning hand{why}; the most probable reading is shown",
        )
    elif best.score.get("reason") == "below_minimum":
        shortfall = get_ruleset(best.score["rules"]).shortfall(best.score["breakdown"])
        result.error = PhotoError(
            "not_winning", "below_minimum", f"the hand scores {best.score['total']}, below the minimum: {shortfall}"
        )


def _move_to_winning(result: PhotoResult, winning: int) -> None:
    concealed_group = result.tiles[winning].group
    row = result.groups[concealed_group]
    result.groups[concealed_group] = replace(row, tiles=tuple(i for i in row.tiles if i != winning))
    result.groups.append(GroupResult("winning", True, (winning,)))
    result.tiles[winning] = replace(result.tiles[winning], role="winning", group=len(result.groups) - 1)


def _fan_tile_indices(fan: Mapping[str, Any], result: PhotoResult) -> list[int]:
    """The boxes behind a fan: each occurrence's tile group matched to physical tiles.

    A group equal to a meld's tiles is that meld; other tiles are matched by code, preferring the
    winning tile, then concealed tiles, then meld tiles and flowers, each tile used once per
    occurrence.
    """
    preference = {"winning": 0, "concealed": 1, "meld": 2, "flower": 3}
    placed = [i for i, t in enumerate(result.tiles) if t.role in preference]
    placed.sort(key=lambda i: preference[result.tiles[i].role])
    out: list[int] = []
    for occurrence in fan.get("groups") or [fan.get("tiles", [])]:
        wanted = sorted(occurrence)
        meld = next(
            (g for g in result.groups
             if g.kind in ("chow", "pung", "kong")
             and sorted(meld_codes([result.tiles[i].code for i in g.tiles], g.stacked)) == wanted),
            None,
        )
        if meld is not None:
            out.extend(i for i in meld.tiles if i not in out)
            continue
        used: set[int] = set()
        for code in occurrence:
            pick = next((i for i in placed if i not in used and result.tiles[i].code == code), None)
            if pick is not None:
                used.add(pick)
                if pick not in out:
                    out.append(pick)
    return out
