"""Photo -> hand -> score, end to end, on fresh synthetic photos of winning hands.

    python benchmarks/bench_photo.py [--count 300] [--seed 90000] [--source gnome-smooth]
        [--semi-real 100] [--latency 100] [--model models/mjlens-tiles.onnx] [--rules mcr] [--tilt 30]
        [--light warm] [--blur 1.5] [--shake 9] [--shrink 0.5] [--quarter] [--glare 1.0]
        [--shadow 0.45] [--cutout] [--canvas 4032] [--without other-size ...]

Each photo is a hand layout from the scene generator (datasets/mjsynth: concealed row standing
or flat, melds in front or beside, kongs face down, flowers apart, some taken from across the
table) with its true hand. Seeds are fresh (not the training seeds), and the tile art is one
source (`--source`, by default one held out of detector training). `--tilt` turns each photo in
its plane by up to that many degrees either way, as a phone held askew takes it; `--light` lights
every photo otherwise (LIGHTS: a warm lamp, a cool one, a dim room, both); `--blur` blurs it
(Gaussian, sigma in pixels: a photo out of focus); `--shake` smears it along a line that many
pixels long, in a direction drawn at random for each photo (the phone moved during the exposure).
`--shrink` shrinks each photo to that share of its size and saves it again as JPEG of quality 80,
as a messaging app sends a photo (the tiles labelled at the rendered size: a hand is complete as
rendered).
`--quarter` turns each photo a quarter, one clockwise, the next counter-clockwise, as a phone held
flat over the table that records the wrong way up saves it. `--glare` puts a reflection that many
tile widths across (a flash or a lamp mirrored in the glaze, clipped to white at its core) over a
tile of the hand drawn at random. `--shadow` casts a shadow over part of the hand that lets that
share of the light through. `--cutout` saves each photo as a PNG transparent beyond the hand's
tiles, as a background-removal app saves a hand cut out of a photo. `--canvas` places each photo,
at its rendered size, somewhere on a table photo that many pixels long (4:3, landscape), as a phone's
wide shot of the table with the hand in a part of it shows (with `--imgsz 1600 --canvas 4032`, a
12 MP photo the hand fills two fifths of across).
`--without` leaves one of the photo pipeline's extra readings out (EXTRA_READINGS), to measure
what it buys in hands and in time.

Sets:
  * synthetic: faces from `--source`;
  * semi-real: the same layouts with faces cut from the real tile photos in
    ../shared/data/tile-crops that the detector never trained on (is_held_out_crop).
Each set is read twice:
  * from ground-truth detections (the labelled boxes, group boxes included): isolates grouping
    and hand reading; rates are over the photos where every tile of the hand is labelled (a
    tile hidden by a hand or too small to read cannot be read from any detector). The stack
    model reads the photo at the true boxes, as it reads it at the detector's: a kong laid with
    its fourth tile on the middle one shows, from above, only three boxes;
  * from the shipped detector on the JPEG.
Exact hand = same concealed tiles, melds, winning tile and flowers; exact score = same fan list
and total. Each complete photo the detector's reading gets wrong is put down to one cause: only
which flower is which, the codes (its own boxes, each given the code of the true tile it covers,
read the hand exactly), or else the boxes and grouping. Concealed kongs laid all face down get
their true tile as a `--kong` hint, as a user would give it. The detector's readings are also
counted by their confidence (TRUST_LEVELS): how many photos read that surely, and how many of
those readings are exact; by hand confidence against exact hands, by score confidence against
exact scores. Latency: p50 of read_photo (photo ->
score) over p50 of the detector alone on the first `--latency` JPEGs, measured alternately in one
run, each photo's fastest of LATENCY_ROUNDS timings.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
from tqdm import tqdm

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from datasets.mjsynth.art import SOURCES, ArtError, Atlas, held_out_crop_atlas, load_atlas  # noqa: E402
from datasets.mjsynth.dataset import hand_photo_jpeg, truth_detections  # noqa: E402
from datasets.mjsynth.textures import table_texture  # noqa: E402
from scoring import available_rulesets, score_json  # noqa: E402
from scoring.cli import fail  # noqa: E402
from vision.argtypes import existing_file, number, whole  # noqa: E402
from vision.detections import BACK, Detection, DetectionSet  # noqa: E402
from vision.detector import load_image  # noqa: E402
from vision.grouping import iou  # noqa: E402
from vision.outputs import write_problem  # noqa: E402
from vision.pipeline import read_detections, read_photo  # noqa: E402
from vision.reader import hand_key  # noqa: E402
from vision.stacking import DEFAULT_MODEL as DEFAULT_STACK_MODEL, StackModel  # noqa: E402

HAND_ROLES = {"concealed", "winning", "meld", "kong", "flower"}
CUTOUT_MARGIN = 0.12
# The hand's photo placed on a larger one blends into it over this share of its shorter side.
CANVAS_FEATHER = 0.05
# The width of a tile's face, to draw the table around a hand at the hand's own scale.
TILE_FACE_MM = 26.0
# Reading confidences at which the benchmark reports how often a reading that sure is exact:
# what a user can take on trust.
TRUST_LEVELS = (0.5, 0.9)
# Timings of each photo for the latency ratio, of which the fastest counts.
LATENCY_ROUNDS = 3
CONTEXT_KEYS = ("self_drawn", "seat_wind", "round_wind")
# Red, green and blue scaled as a light other than the renderer's (near neutral, +-25% between
# channels) would: a tungsten lamp, a cold LED, a dim room (a little over one stop down), both.
LIGHTS = {"warm": (1.12, 0.95, 0.62), "cool": (0.8, 1.0, 1.15), "dim": (0.45, 0.45, 0.45),
          "dim-warm": (0.67, 0.57, 0.37)}


@dataclass
class Scene:
    jpeg: bytes  # the photo's file: a JPEG, or a PNG with `--cutout`
    meta: dict
    complete: bool  # every tile of the true hand is labelled


@dataclass
class Tally:
    photos: int = 0
    exact_hand: int = 0
    exact_score: int = 0
    failures: Counter = field(default_factory=Counter)

    def add(self, hand_ok: bool, score_ok: bool, failure: str | None) -> None:
        self.photos += 1
        self.exact_hand += hand_ok
        self.exact_score += score_ok
        if failure:
            self.failures[failure] += 1

    def row(self, name: str) -> str:
        if not self.photos:
            return f"{name:<58} (no photos)"
        top = ", ".join(f"{k} {n}" for k, n in self.failures.most_common(4))
        return (f"{name:<58} {self.photos:>5} {100 * self.exact_hand / self.photos:>7.1f}% "
                f"{100 * self.exact_score / self.photos:>7.1f}%   {top}")


@dataclass
class Trust:
    """The detector's readings at or above each of TRUST_LEVELS of one confidence, and how many of
    them are exact: `of` "hand" (the confidence that every tile is right, against exact hands) or
    "score" (that the fans and total are, against exact scores)."""

    of: str
    photos: int = 0
    read: Counter = field(default_factory=Counter)
    exact: Counter = field(default_factory=Counter)

    def add(self, result, right: bool) -> None:
        self.photos += 1
        if not read_a_hand(result):
            return
        confidence = result.confidence if self.of == "hand" else result.score_confidence
        for level in TRUST_LEVELS:
            if confidence >= level:
                self.read[level] += 1
                self.exact[level] += right

    def row(self, name: str) -> str:
        parts = [f"at >= {level}: {self.read[level]} ({100 * self.read[level] / max(self.photos, 1):.0f}% of photos), "
                 f"{100 * self.exact[level] / max(self.read[level], 1):.1f}% exact" for level in TRUST_LEVELS]
        return f"{name}: readings by {self.of} confidence, " + "; ".join(parts)

    def report(self) -> dict:
        return {str(level): {"read": self.read[level], f"exact_{self.of}": self.exact[level]} for level in TRUST_LEVELS}


def render_scenes(atlas: Atlas, count: int, seed: int, imgsz: int, desc: str, tilt: float = 0.0,
                  light: str | None = None, blur: float = 0.0, shake: int = 0, quarter: bool = False,
                  shrink: float = 1.0, glare: float = 0.0, shadow: float = 1.0, cutout: bool = False,
                  canvas: int = 0) -> list[Scene]:
    """`count` hand photos; with `tilt`, each taken with the phone held askew by an angle drawn
    evenly from +-tilt degrees (rendered so: its labelled boxes are the tiles' own); with `light`,
    each lit so (LIGHTS); with `blur`, each blurred by a Gaussian of that sigma (pixels); with
    `shake`, each smeared along a line of that many pixels in a direction drawn evenly; with
    `shrink` under 1, each shrunk so and saved again; with `quarter`, each turned a quarter, by
    turns counter-clockwise and clockwise; with `glare`, a reflection that many tile widths across
    over a tile of the hand (`reflected`); with `shadow` under 1, a shadow that lets that much of
    the light through over part of the hand (`shadowed`); with `cutout`, a PNG transparent beyond
    the hand's tiles (`cut_out`); with `canvas`, placed on a table photo that many pixels long
    (`on_canvas`)."""
    scenes = []
    for index in tqdm(range(count), desc=f"render {desc}", unit="photo"):
        roll = float(np.random.default_rng([seed, index, 1]).uniform(-tilt, tilt)) if tilt else 0.0
        jpeg, meta = hand_photo_jpeg(atlas, seed, index, imgsz, roll)
        if light or blur or shake:
            direction = float(np.random.default_rng([seed, index, 2]).uniform(0, 180))
            jpeg = lit_photo(jpeg, LIGHTS[light] if light else (1.0, 1.0, 1.0), blur, (shake, direction))
        if glare:
            jpeg = reflected(jpeg, meta, glare, np.random.default_rng([seed, index, 3]))
        if shadow < 1:
            jpeg = shadowed(jpeg, meta, shadow, np.random.default_rng([seed, index, 4]))
        if shrink < 1:
            jpeg, meta = shrunk(jpeg, meta, shrink)
        if quarter:
            jpeg, meta = turned_a_quarter(jpeg, meta, clockwise=bool(index % 2))
        if cutout:
            jpeg = cut_out(jpeg, meta)
        if canvas:
            jpeg, meta = on_canvas(jpeg, meta, canvas, np.random.default_rng([seed, index, 5]))
        scenes.append(Scene(jpeg, meta, _complete(meta)))
    return scenes


def _bgr(jpeg: bytes) -> np.ndarray:
    """A photo's file (JPEG or PNG) decoded to BGR pixels, as OpenCV reads it."""
    import cv2

    return cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)


def _jpeg(image: np.ndarray, quality: int) -> bytes:
    """BGR pixels saved as a JPEG file of that quality."""
    import cv2

    return cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])[1].tobytes()


def lit_photo(jpeg: bytes, rgb_factors: tuple[float, float, float], blur: float = 0.0,
              shake: tuple[int, float] = (0, 0.0)) -> bytes:
    """The photo with its channels scaled by `rgb_factors`, blurred by a Gaussian of sigma `blur`
    and smeared by `shake` (pixels long, degrees anticlockwise)."""
    import cv2

    from vision.detector import smear_kernel

    image = _bgr(jpeg) * np.asarray(rgb_factors[::-1])
    if blur:
        image = cv2.GaussianBlur(image, (0, 0), blur)
    if shake[0]:
        image = cv2.filter2D(image, -1, smear_kernel(*shake))
    return _jpeg(np.clip(image, 0, 255).astype(np.uint8), 90)


def reflected(jpeg: bytes, meta: dict, size: float, rng: np.random.Generator) -> bytes:
    """The photo with a reflection `size` tile widths across (up to 1.6 times as wide as tall)
    near the middle of one of the hand's tiles drawn by `rng`: white at its core, soft at its
    edge, as a flash or a lamp mirrored in the glaze shows."""
    image = _bgr(jpeg).astype(np.float32) / 255
    hand = [t for t in meta["tiles"] if t["role"] in HAND_ROLES]
    x1, y1, x2, y2 = hand[rng.integers(len(hand))]["box"]
    side = min(x2 - x1, y2 - y1)
    cx, cy = (x1 + x2 + rng.uniform(-side, side)) / 2, (y1 + y2 + rng.uniform(-side, side)) / 2
    radius = size * side / 2
    yy, xx = np.mgrid[:image.shape[0], :image.shape[1]].astype(np.float32)
    reach = np.hypot((xx - cx) / (radius * rng.uniform(1.0, 1.6)), (yy - cy) / radius)
    light = np.clip(1.6 * np.exp(-reach ** 2), 0, 1)[:, :, None]  # beyond 1 clipped: the white core
    image = 1 - (1 - image) * (1 - light)
    return _jpeg((image * 255).round().astype(np.uint8), 90)


def shadowed(jpeg: bytes, meta: dict, depth: float, rng: np.random.Generator) -> bytes:
    """The photo with a shadow over part of the hand, as the phone or the person taking it casts:
    beyond a line through the hand at an angle drawn by `rng`, the light `depth` times as bright
    and a little bluer (the shade is lit by the sky), its edge soft over 0.6 of a tile."""
    image = _bgr(jpeg).astype(np.float32)
    hand = np.array([t["box"] for t in meta["tiles"] if t["role"] in HAND_ROLES])
    (x1, y1), (x2, y2) = hand[:, :2].min(axis=0), hand[:, 2:].max(axis=0)
    side = np.median(np.minimum(hand[:, 2] - hand[:, 0], hand[:, 3] - hand[:, 1]))
    cx, cy = rng.uniform(x1 + (x2 - x1) / 4, x2 - (x2 - x1) / 4), rng.uniform(y1, y2)
    angle = rng.uniform(0, 2 * np.pi)
    yy, xx = np.mgrid[:image.shape[0], :image.shape[1]].astype(np.float32)
    beyond = np.clip(0.5 + ((xx - cx) * np.cos(angle) + (yy - cy) * np.sin(angle)) / (0.6 * side), 0, 1)[:, :, None]
    shade = depth * np.array([1.08, 1.0, 0.92], np.float32)  # BGR
    image = image * (1 - beyond + beyond * shade)
    return _jpeg(np.clip(image, 0, 255).astype(np.uint8), 90)


def cut_out(jpeg: bytes, meta: dict) -> bytes:
    """The photo as a PNG, transparent beyond the hand's tiles, as a background-removal app saves
    a hand cut out of a photo: opaque over each tile's box grown by CUTOUT_MARGIN of its size each
    way (the box holds the face; the tile's body and edges stand out of it), the edge a little soft."""
    import cv2

    image = _bgr(jpeg)
    opaque = np.zeros(image.shape[:2], np.float32)
    for tile in meta["tiles"]:
        if tile["role"] in HAND_ROLES:
            x1, y1, x2, y2 = tile["box"]
            grow_x, grow_y = CUTOUT_MARGIN * (x2 - x1), CUTOUT_MARGIN * (y2 - y1)
            opaque[max(0, round(y1 - grow_y)):round(y2 + grow_y), max(0, round(x1 - grow_x)):round(x2 + grow_x)] = 1
    alpha = (cv2.GaussianBlur(opaque, (0, 0), 1.5) * 255).round().astype(np.uint8)
    return cv2.imencode(".png", np.dstack([image, alpha]))[1].tobytes()


def on_canvas(jpeg: bytes, meta: dict, side: int, rng: np.random.Generator) -> tuple[bytes, dict]:
    """The photo at its size placed where `rng` draws on a table photo `side` px long (4:3,
    landscape; the table drawn at the hand's scale, at half resolution as a wide shot blurs it),
    its edge blended in over CANVAS_FEATHER of its shorter side; saved at JPEG quality 90, its
    labelled boxes with it."""
    import cv2

    photo = _bgr(jpeg).astype(np.float32)
    height, width = photo.shape[:2]
    size = (max(side, width), max(side * 3 // 4, height))
    tiles = np.array([t["box"] for t in meta["tiles"]])
    mm_per_px = TILE_FACE_MM / float(np.median(np.minimum(tiles[:, 2] - tiles[:, 0], tiles[:, 3] - tiles[:, 1])))
    table = table_texture(rng, (max(size) + 1) // 2, 2 * mm_per_px)[:, :, ::-1]
    image = cv2.resize(table, (2 * table.shape[1], 2 * table.shape[0]), interpolation=cv2.INTER_LINEAR)[:size[1], :size[0]]
    left, top = int(rng.integers(0, size[0] - width + 1)), int(rng.integers(0, size[1] - height + 1))
    feather = max(1, round(CANVAS_FEATHER * min(width, height)))
    alpha = np.zeros((height, width), np.float32)
    alpha[feather:-feather, feather:-feather] = 1
    alpha = cv2.GaussianBlur(alpha, (0, 0), feather / 2)[:, :, None]
    spot = image[top:top + height, left:left + width]
    image[top:top + height, left:left + width] = alpha * photo + (1 - alpha) * spot
    placed = boxes_moved(meta, size, lambda box: [box[0] + left, box[1] + top, box[2] + left, box[3] + top])
    return _jpeg(np.clip(image, 0, 255).astype(np.uint8), 90), placed


def shrunk(jpeg: bytes, meta: dict, factor: float) -> tuple[bytes, dict]:
    """The photo shrunk to `factor` of its size and saved again at JPEG quality 80, its labelled
    boxes with it."""
    import cv2

    image = _bgr(jpeg)
    height, width = image.shape[:2]
    size = (max(1, round(width * factor)), max(1, round(height * factor)))
    image = cv2.resize(image, size, interpolation=cv2.INTER_AREA)
    sx, sy = size[0] / width, size[1] / height

    small = boxes_moved(meta, size, lambda box: [box[0] * sx, box[1] * sy, box[2] * sx, box[3] * sy])
    return _jpeg(image, 80), small


def turned_a_quarter(jpeg: bytes, meta: dict, clockwise: bool) -> tuple[bytes, dict]:
    """The photo turned a quarter, its labelled boxes with it."""
    image = _bgr(jpeg)
    height, width = image.shape[:2]

    def box_turned(box: list[float]) -> list[float]:
        x1, y1, x2, y2 = box
        return [height - y2, x1, height - y1, x2] if clockwise else [y1, width - x2, y2, width - x1]

    turned = boxes_moved(meta, (height, width), box_turned)
    image = np.ascontiguousarray(np.rot90(image, 3 if clockwise else 1))
    return _jpeg(image, 90), turned


def boxes_moved(meta: dict, size: tuple[int, int], move: Callable[[list[float]], list[float]]) -> dict:
    """`meta` for the photo changed to `size` (width, height), each labelled box (tiles and
    groups) taken through `move`."""
    return {**meta, "width": size[0], "height": size[1],
            "tiles": [{**t, "box": move(t["box"])} for t in meta["tiles"]],
            "groups": [{**g, "box": move(g["box"])} for g in meta["groups"]]}


def _complete(meta: dict) -> bool:
    """Every tile of the hand is labelled, and with its face wherever a face must be read (only a
    concealed kong may lie face down); a stacked kong's fourth tile lies hidden under its top one."""
    hand = meta["hand"]
    size = (len(hand["concealed"]) + 1 + sum(len(m["tiles"]) for m in hand["melds"]) + len(hand["flowers"])
            - sum(bool(g.get("stacked")) for g in meta["groups"]))
    labelled = [t for t in meta["tiles"] if t["role"] in HAND_ROLES]
    faceless = [t for t in labelled if t["code"] == BACK and t["role"] != "kong"]
    return len(labelled) == size and not faceless


def with_true_codes(detections: list[Detection], meta: dict) -> list[Detection]:
    """The detector's boxes, each tile box given the code of the labelled tile it covers (IoU at
    least 0.5) for sure; boxes on no labelled tile keep the detector's reading."""
    truth = [t for t in truth_detections(meta) if t.is_tile]
    out = []
    for d in detections:
        match = max(truth, key=lambda t: iou(d, t), default=None)
        if d.is_tile and match is not None and iou(d, match) >= 0.5:
            d = Detection(d.box, match.code, 1.0, ((match.code, 1.0),))
        out.append(d)
    return out


def cause(result, found: DetectionSet, meta: dict, kw: dict) -> str:
    """Why a complete photo was read wrong (see the module's docstring)."""
    truth = hand_key(meta["hand"])
    if read_a_hand(result) and hand_key(result.hand, flowers=False) == hand_key(meta["hand"], flowers=False):
        return "which flower"
    # The same boxes, with the stack model's reading of them (on_a_tile) kept.
    again = read_detections(replace(found, kept=tuple(with_true_codes(list(found.kept), meta))), **kw)
    if read_a_hand(again) and hand_key(again.hand) == truth:
        return "codes"
    return "boxes or grouping"


def kong_hints(meta: dict) -> list[str]:
    """True tiles of the concealed kongs shown all face down, left to right in the photo."""
    hidden = []
    for group in {t["group"] for t in meta["tiles"] if t["role"] == "kong"}:
        members = [t for t in meta["tiles"] if t["group"] == group]
        if all(t["code"] == BACK for t in members):
            hidden.append((min(t["box"][0] for t in members), members[0]["true_code"]))
    return [code for _, code in sorted(hidden)]


def fan_key(score: dict) -> tuple:
    return (score.get("total"), tuple(sorted((f["zh"], f["count"]) for f in score.get("fans", []))))


def read_a_hand(result) -> bool:
    """Whether the photo's result holds a whole hand, winning tile included."""
    return result.hand is not None and result.hand.get("winning_tile") is not None


def verdict(result, meta: dict, rules: str) -> tuple[bool, bool, str | None]:
    """Whether the result read the hand exactly, whether its score is exact, and why the hand is not."""
    truth = meta["hand"]
    if not read_a_hand(result):
        return False, False, result.error.code if result.error else "no_hand"
    hand_ok = hand_key(result.hand) == hand_key(truth)
    score_ok = bool(result.score and result.score.get("ok")) and fan_key(result.score) == fan_key(
        score_json(truth, rules=rules))
    return hand_ok, score_ok, None if hand_ok else (result.error.code if result.error else "wrong_hand")


# The photo pipeline's extra readings of a hand read unsurely or not at all: the DetectionSet
# field each is asked for through (the turns are read_photo's own, `turn_level`: "level" leaves
# out the quarter turns too).
EXTRA_READINGS = {"other-size": "other_size", "balanced": "in_balanced_light", "unshaken": "unshaken",
                  "sharpened": "sharpened", "deglared": "deglared", "level": None}


def pared(found: DetectionSet, without: frozenset[str]) -> DetectionSet:
    """`found` without the extra readings named in `without`."""
    return replace(found, **{EXTRA_READINGS[name]: None for name in without if EXTRA_READINGS[name]})


def context_of(meta: dict) -> dict:
    return {k: meta["hand"][k] for k in CONTEXT_KEYS}


def evaluate(scenes: list[Scene], rules: str, detector, desc: str,
             without: frozenset[str] = frozenset()) -> tuple[Tally, Tally, Tally, Tally, list[float], Counter,
                                                             tuple[Trust, Trust]]:
    """(truth detections over complete photos, truth detections over all, detector over complete
    photos, detector over all, seconds per read from truth detections of complete photos, the
    causes of the detector's wrong readings of complete photos, the detector's readings by hand
    and by score confidence)."""
    gt_complete, gt_all, model_complete, model = Tally(), Tally(), Tally(), Tally()
    trust, score_trust = Trust("hand"), Trust("score")
    read_seconds = []
    causes: Counter = Counter()
    # As the detector does: without its file, stacks are found by their boxes alone.
    stack_model = StackModel() if DEFAULT_STACK_MODEL.is_file() else None
    if stack_model is not None:
        stack_model.load()  # outside the timing
    for scene in tqdm(scenes, desc=f"read {desc}", unit="photo"):
        kw = dict(rules=rules, context=context_of(scene.meta), kong_codes=kong_hints(scene.meta))
        rgb, (width, height) = load_image(scene.jpeg)
        truth = DetectionSet(tuple(truth_detections(scene.meta)),
                             on_a_tile=stack_model and stack_model.probe(rgb, width, height))
        t0 = time.perf_counter()
        result = read_detections(truth, **kw)
        seconds = time.perf_counter() - t0
        hand_ok, score_ok, failure = verdict(result, scene.meta, rules)
        for tally in (gt_all, gt_complete) if scene.complete else (gt_all,):
            tally.add(hand_ok, score_ok, failure)
        if scene.complete:
            read_seconds.append(seconds)
        if detector is not None:
            found = pared(detector.detect_set(scene.jpeg), without)
            # the boxes found here, and the detector itself for the photo turned, without the same readings
            result = read_photo(scene.jpeg, turn_level="level" not in without, **kw,
                                detect=lambda image: found if image is scene.jpeg
                                else pared(detector.detect_set(image), without))
            hand_ok, score_ok, failure = verdict(result, scene.meta, rules)
            for tally in (model, model_complete) if scene.complete else (model,):
                tally.add(hand_ok, score_ok, failure)
            trust.add(result, hand_ok)
            score_trust.add(result, score_ok)
            if scene.complete and not hand_ok:
                causes[cause(result, found, scene.meta, kw)] += 1
    return gt_complete, gt_all, model_complete, model, read_seconds, causes, (trust, score_trust)


def latency(scenes: list[Scene], rules: str, detector, without: frozenset[str] = frozenset()) -> tuple[float, float]:
    """p50 over the photos of the detector alone and of the whole read, each photo's fastest of
    LATENCY_ROUNDS alternating timings: the shared machine's stalls would otherwise decide the
    median of a few dozen photos (30 photos timed once: 1.19-1.38 in three runs each of two builds)."""
    detector.detect_set(scenes[0].jpeg)  # load the session outside the timing
    alone = [math.inf] * len(scenes)
    read = [math.inf] * len(scenes)
    for _ in tqdm(range(LATENCY_ROUNDS), desc="latency", unit="round"):
        for k, scene in enumerate(scenes):
            t0 = time.perf_counter()
            detector.detect_set(scene.jpeg)
            t1 = time.perf_counter()
            read_photo(scene.jpeg, rules=rules, context=context_of(scene.meta), kong_codes=kong_hints(scene.meta),
                       detect=lambda image: pared(detector.detect_set(image), without),
                       turn_level="level" not in without)
            t2 = time.perf_counter()
            alone[k] = min(alone[k], t1 - t0)
            read[k] = min(read[k], t2 - t1)
    return statistics.median(alone), statistics.median(read)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=whole(1), default=300, help="synthetic photos (default %(default)s)")
    parser.add_argument("--semi-real", type=whole(0), default=100, help="photos with real held-out crops (0: skip)")
    parser.add_argument("--seed", type=whole(0), default=90000, help="fresh seed, not used for training")
    parser.add_argument("--source", default="gnome-smooth", choices=SOURCES, help="art source of the synthetic set")
    parser.add_argument("--imgsz", type=whole(64, 4096), default=960, help="long side of the photos, pixels")
    parser.add_argument("--rules", default="mcr", choices=available_rulesets())
    parser.add_argument("--model", type=existing_file, help="detector ONNX (default: the shipped model)")
    parser.add_argument("--no-model", action="store_true", help="only ground-truth detections")
    parser.add_argument("--latency", type=whole(1), default=100, help="photos timed for the latency ratio")
    parser.add_argument("--json-out", type=Path, help="also write the numbers as JSON")
    parser.add_argument("--tilt", type=number(0, 180, high_allowed=True, low_allowed=True), default=0.0,
                        help="turn each photo in its plane by up to this many degrees either way (a phone held askew)")
    parser.add_argument("--light", choices=sorted(LIGHTS), help="light every photo so (default: as rendered)")
    parser.add_argument("--blur", type=number(0, low_allowed=True), default=0.0,
                        help="blur every photo by a Gaussian of this sigma, pixels")
    parser.add_argument("--shake", type=whole(0), default=0,
                        help="smear every photo along a line this many pixels long, in a random direction")
    parser.add_argument("--shrink", type=number(0.05, 1, high_allowed=True, low_allowed=True), default=1.0,
                        help="shrink each photo to this share of its size and save it again (JPEG quality 80), "
                             "as a messaging app sends it")
    parser.add_argument("--quarter", action="store_true",
                        help="turn each photo a quarter, by turns each way (a phone held flat records the wrong way up)")
    parser.add_argument("--glare", type=number(0, 4, high_allowed=True, low_allowed=True), default=0.0,
                        help="put a reflection this many tile widths across (a flash in the glaze) over a tile of "
                             "each hand")
    parser.add_argument("--shadow", type=number(0.05, 1, high_allowed=True, low_allowed=True), default=1.0,
                        help="cast a shadow over part of each hand that lets this share of the light through "
                             "(the phone's or the person's)")
    parser.add_argument("--cutout", action="store_true",
                        help="save each photo as a PNG transparent beyond the hand's tiles (a hand cut out by a "
                             "background-removal app)")
    parser.add_argument("--without", action="append", default=[], choices=sorted(EXTRA_READINGS),
                        help="leave this extra reading of the photo pipeline out (repeatable)")
    parser.add_argument("--canvas", type=whole(0, 20000), default=0,
                        help="place each photo on a table photo this many px long (0: none)")
    args = parser.parse_args(argv)
    if args.cutout and args.canvas:  # the canvas is drawn under an opaque photo: the cut-out would be lost
        parser.error("--cutout and --canvas cannot be combined: a cut-out photo has no table to place it on")
    without = frozenset(args.without)

    if args.json_out and (problem := write_problem(args.json_out)):  # found now, not after the run
        return fail("bench_photo", "bad_output_path", f"cannot write --json-out {args.json_out} ({problem})")
    try:  # before the detector loads: a fresh checkout has only the art that needs no download
        sets = [(f"synthetic ({args.source})", load_atlas(args.source), args.count, args.seed)]
        if args.semi_real:
            sets.append(("semi-real (held-out real crops)", held_out_crop_atlas(), args.semi_real, args.seed + 1))
    except ArtError as e:
        return fail("bench_photo", e.code, str(e))
    detector = None
    if not args.no_model:
        from vision.detector import DEFAULT_MODEL, Detector

        model = args.model or DEFAULT_MODEL
        if not model.is_file():
            return fail("bench_photo", "model_missing",
                        f"no detector at {model}: pass --no-model for ground-truth detections only")
        detector = Detector(model, hand_photo=True)

    report: dict = {"rules": args.rules, "seed": args.seed, "tilt": args.tilt, "light": args.light, "blur": args.blur,
                    "shake": args.shake, "shrink": args.shrink, "quarter": args.quarter, "glare": args.glare,
                    "shadow": args.shadow, "cutout": args.cutout, "canvas": args.canvas,
                    "without": sorted(without),
                    "sets": {}}
    lines = [f"detector: {detector.model_path if detector else 'none (truth boxes only)'}",
             f"{'set / detections':<58} {'photos':>5} {'hand':>8} {'score':>8}   most common failures"]
    timed: list[Scene] = []
    read_seconds: list[float] = []
    for name, atlas, count, seed in sets:
        scenes = render_scenes(atlas, count, seed, args.imgsz, name, args.tilt, args.light, args.blur, args.shake,
                               args.quarter, args.shrink, args.glare, args.shadow, args.cutout, args.canvas)
        timed = timed or scenes[: args.latency]
        gt_complete, gt_all, model_complete, model, seconds, causes, trust = evaluate(
            scenes, args.rules, detector, name, without)
        read_seconds += seconds
        lines.append(gt_complete.row(f"{name}: truth boxes, complete photos"))
        lines.append(gt_all.row(f"{name}: truth boxes, all photos"))
        if detector is not None:
            lines.append(model_complete.row(f"{name}: detector, complete photos"))
            lines.append(model.row(f"{name}: detector, all photos"))
            wrong = model_complete.photos - model_complete.exact_hand
            lines.append(f"{name}: complete photos read wrong, {wrong}: "
                         + ", ".join(f"{why} {n}" for why, n in causes.most_common()))
            lines.extend(t.row(f"{name}: detector") for t in trust)
        report["sets"][name] = {
            key: {"photos": t.photos, "exact_hand": t.exact_hand, "exact_score": t.exact_score,
                  "failures": dict(t.failures)}
            for key, t in (("truth_complete", gt_complete), ("truth_all", gt_all),
                           ("detector_complete", model_complete), ("detector", model))
        }
        report["sets"][name]["wrong_complete_causes"] = dict(causes)
        report["sets"][name]["by_confidence"], report["sets"][name]["by_score_confidence"] = (t.report() for t in trust)
    if read_seconds:
        # A full read (grouping, hand reading, scoring) of a complete hand, without the detector:
        # what the pipeline adds to the detector whatever the detector's accuracy.
        report["read_from_true_boxes_p50_s"] = statistics.median(read_seconds)
        lines.append(f"grouping + reading + scoring from true boxes, complete photos: "
                     f"p50 {1000 * statistics.median(read_seconds):.1f} ms")
    if detector is not None and timed:
        alone, read = latency(timed, args.rules, detector, without)
        report["latency"] = {"detector_p50_s": alone, "photo_to_score_p50_s": read, "ratio": read / alone}
        lines.append(f"latency p50: detector {1000 * alone:.1f} ms, photo -> score {1000 * read:.1f} ms, "
                     f"ratio {read / alone:.3f} (target <= 1.2)")
    print("\n".join(lines))
    if args.json_out:
        args.json_out.write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
