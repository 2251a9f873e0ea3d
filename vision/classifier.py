"""Second-stage tile classifier: re-reads each detected tile box with a small CNN.

The detector localises tiles well long before its 45-way class head is reliable; this
model is trained on tile crops alone (far more tile views per CPU-second than whole
scenes), so the codes and ranked alternatives of a tile box come from here.

ONNX Runtime on CPU; onnxruntime and OpenCV are imported lazily.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from vision.detections import BACK, TILE_CODES, Detection, DetectionSet
from vision.errors import CodedError

if TYPE_CHECKING:
    import numpy as np

DEFAULT_MODEL = Path(__file__).resolve().parent.parent / "models" / "mjlens-tile-classifier.onnx"
# In a photo of one hand every tile lies upright or upside down (seen from the player's seat or
# from across the table) but the claimed tiles, which lie sideways: a model trained on those two
# turns alone reads such tiles better than the tile model, which must read any quarter turn.
DEFAULT_UPRIGHT_MODEL = DEFAULT_MODEL.with_name("mjlens-upright-classifier.onnx")
# Which of the eight flowers a tile is: the small numeral and character that tell them apart are
# what blur and distance wipe out first, so a second model trained on flowers alone splits it.
DEFAULT_FLOWER_MODEL = DEFAULT_MODEL.with_name("mjlens-flower-classifier.onnx")

# A box the detector proposed that holds no single tile (background, two half tiles): the
# classifier's verdict lets the detector propose boxes at a low confidence and keep only tiles.
NOT_A_TILE = "none"
# Class-index order of the classifier's output: the 42 tile codes, face-down, not a tile.
CLASSES: tuple[str, ...] = (*TILE_CODES, BACK, NOT_A_TILE)
# Columns a tile box's reading can take: every class but NOT_A_TILE (the last).
READINGS = len(CLASSES) - 1
INPUT_SIZE = 64  # square network input; sideways and upright tiles are both squashed to it
# The crop reaches a little past the box: detector boxes are often a few pixels short.
CROP_SCALE = 1.1
# The hand reader may need a code the classifier ranks low to make a winning hand: with the top 8
# instead of 3, bench_photo read 10.6% instead of 10.0% of held-out-art hands exactly and 25.0%
# instead of 23.8% of real-faced ones (exact scores 13.8% / 51.2% instead of 12.5% / 46.2%).
TOP_K = 8
# Alternatives after the first that are less probable than this are left out: far below what the
# reader tries (vision.reader.MIN_ALTERNATIVE of the listed mass), and noise in the JSON.
ALTERNATIVE_FLOOR = 0.001
FLOWER_COLUMNS = [i for i, code in enumerate(CLASSES) if code.endswith("f")]
# Boxes the tile classifier gives at least this share for being some flower go to the flower model.
FLOWER_CHECK = 0.2
# A box whose width-to-height ratio is this many times the photo's median holds a tile lying
# sideways (a claimed tile; a flat tile turned by 90 degrees is about 1.4 times as wide as usual).
SIDEWAYS = 1.3
# A crop read this surely needs no second look turned half round: on bench_photo's 400 + 200
# photos reading only the others both ways changed no hand, and spares most second passes.
SURE = 0.9
# How much the detector's own class scores count beside the classifier's probabilities ("product"):
# on 1,000 development hand photos (seeds 5555000/5555001, 5556000/5556001) 0 read 394 hands
# exactly, 0.25 / 0.35 / 0.5 read 404 / 412 / 409 (exact scores 593 against 617-621); at 1 only 376.
DETECTOR_WEIGHT = 0.35


class ClassifierError(CodedError):
    """Weights missing or unreadable, or unusable input."""


@dataclass(frozen=True)
class TileReading:
    """The classifier's best codes for one box, best first, with probabilities."""

    top: tuple[tuple[str, float], ...]

    @property
    def code(self) -> str:
        return self.top[0][0]

    @property
    def confidence(self) -> float:
        return self.top[0][1]


def crop_box(rgb: "np.ndarray", box: Sequence[float], scale: float, size: int) -> "np.ndarray":
    """The box, grown by `scale` about its centre, resized to size x size (HxWx3 uint8).

    Parts of the grown box outside the image repeat the border pixels, so boxes at the
    image edge (and whole-image crops) keep the tile centred like any other.
    """
    import cv2
    import numpy as np

    x1, y1, x2, y2 = (float(v) for v in box)
    if not (x2 > x1 and y2 > y1):
        raise ClassifierError("bad_box", f"box {tuple(box)} has no area")
    cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
    hw, hh = (x2 - x1) * scale / 2, (y2 - y1) * scale / 2
    left, top = int(np.floor(cx - hw)), int(np.floor(cy - hh))
    right, bottom = max(int(np.ceil(cx + hw)), left + 1), max(int(np.ceil(cy + hh)), top + 1)
    h, w = rgb.shape[:2]
    pad = (max(0, -top), max(0, bottom - h), max(0, -left), max(0, right - w))
    region = rgb[max(0, top):min(h, bottom), max(0, left):min(w, right)]
    if region.size == 0:
        raise ClassifierError("bad_box", f"box {tuple(box)} lies outside the {w}x{h} image")
    if any(pad):
        region = cv2.copyMakeBorder(region, *pad, cv2.BORDER_REPLICATE)
    shrinking = region.shape[0] > size or region.shape[1] > size
    return cv2.resize(region, (size, size),
                      interpolation=cv2.INTER_AREA if shrinking else cv2.INTER_LINEAR)


def preprocess(rgb: "np.ndarray", boxes: Sequence[Sequence[float]]) -> "np.ndarray":
    """N x 3 x INPUT_SIZE x INPUT_SIZE uint8 batch of the boxes' crops (the network
    itself scales to 0..1, so callers never need to know the normalisation)."""
    import numpy as np

    if rgb.ndim != 3 or rgb.shape[2] != 3:
        raise ClassifierError("bad_image", f"expected an HxWx3 RGB image, got shape {rgb.shape}")
    crops = [crop_box(rgb, b, CROP_SCALE, INPUT_SIZE) for b in boxes]
    if not crops:
        return np.zeros((0, 3, INPUT_SIZE, INPUT_SIZE), np.uint8)
    return np.ascontiguousarray(np.stack(crops).transpose(0, 3, 1, 2))


def lies_sideways(boxes: Sequence[Sequence[float]]) -> "np.ndarray":
    """Per box, whether it is far wider for its height than the photo's typical tile box."""
    import numpy as np

    if not len(boxes):
        return np.zeros(0, bool)
    aspect = np.array([(x2 - x1) / (y2 - y1) for x1, y1, x2, y2 in boxes], np.float64)
    return aspect > SIDEWAYS * np.median(aspect)


def top_k(probabilities: "np.ndarray", k: int = TOP_K) -> list[TileReading]:
    """Best k readings (tile codes or face-down, never NOT_A_TILE) per row of an
    N x len(CLASSES) probability matrix; after the first, only those of ALTERNATIVE_FLOOR or more."""
    import numpy as np

    order = np.argsort(-probabilities[:, :READINGS], axis=1)[:, :k]
    return [TileReading(tuple((CLASSES[i], float(row[i])) for n, i in enumerate(idx)
                              if n == 0 or row[i] >= ALTERNATIVE_FLOOR))
            for row, idx in zip(probabilities, order)]


class TileClassifier:
    """Loads the ONNX classifier once, with the upright and flower models it defers to;
    `probabilities`/`classify` read many boxes per run."""

    def __init__(self, model_path: str | Path = DEFAULT_MODEL,
                 upright_model_path: str | Path | None = None,
                 flower_model_path: str | Path | None = DEFAULT_FLOWER_MODEL):
        self.model_path = Path(model_path)
        self._session = None
        self._upright = TileClassifier(upright_model_path, None, None) if upright_model_path is not None else None
        self._flowers = TileClassifier(flower_model_path, None, None) if flower_model_path is not None else None

    def _load(self):
        if self._session is None:
            from vision.detector import model_session

            session = model_session(self.model_path, "tile classifier", ClassifierError)
            width = session.get_outputs()[0].shape[-1]
            side = session.get_inputs()[0].shape[-1]
            if width != len(CLASSES) or side != INPUT_SIZE:
                raise ClassifierError("model_corrupt", f"{self.model_path} reads {side}-px crops into {width} "
                                                       f"classes, expected {INPUT_SIZE} px and {len(CLASSES)}")
            self._session = session
        return self._session

    def probabilities(self, rgb: "np.ndarray", boxes: Sequence[Sequence[float]],
                      upright: bool = True) -> "np.ndarray":
        """N x len(CLASSES) softmax probabilities, all boxes of the image in one run. With an
        upright model and `upright` (a photo of one hand, or of a few tiles), tiles not lying
        sideways are read by it, both ways round; with a flower model, the flower share is split
        among the eight flowers as that model reads them."""
        import numpy as np

        batch = preprocess(rgb, boxes)
        if self._upright is None or not upright:
            probabilities = self.run_batch(batch)
        else:
            sideways = lies_sideways(boxes)
            probabilities = np.empty((len(batch), len(CLASSES)), np.float32)
            probabilities[sideways] = self.run_batch(batch[sideways])
            probabilities[~sideways] = self._upright.both_ways(batch[~sideways])
        return probabilities if self._flowers is None else self._flowers.which_flower(batch, probabilities)

    def both_ways(self, batch: "np.ndarray") -> "np.ndarray":
        """Probabilities of the crops as they are, averaged with the crops turned half round
        for those read less surely than SURE."""
        import numpy as np

        probabilities = self.run_batch(batch)
        rows = np.flatnonzero(probabilities[:, :READINGS].max(axis=1) < SURE)
        if len(rows):
            turned = self.run_batch(np.ascontiguousarray(batch[rows][:, :, ::-1, ::-1]))
            probabilities[rows] = (probabilities[rows] + turned) / 2
        return probabilities

    def which_flower(self, batch: "np.ndarray", probabilities: "np.ndarray") -> "np.ndarray":
        """`probabilities` (of `batch`, by the tile classifier) with each likely flower's flower
        share split as this flower model reads the crop, upright and turned half round (flowers
        lie in the player's row, seen from either side of the table)."""
        import numpy as np

        share = probabilities[:, FLOWER_COLUMNS].sum(axis=1)
        rows = np.flatnonzero(share >= FLOWER_CHECK)
        if not len(rows):
            return probabilities
        split = self.both_ways(batch[rows])[:, FLOWER_COLUMNS]
        out = probabilities.copy()
        out[np.ix_(rows, FLOWER_COLUMNS)] = share[rows, None] * split / split.sum(axis=1, keepdims=True)
        return out

    def run_batch(self, batch: "np.ndarray") -> "np.ndarray":
        """Probabilities for an already cut N x 3 x INPUT_SIZE x INPUT_SIZE uint8 batch."""
        import numpy as np

        session = self._load()
        if len(batch) == 0:
            return np.zeros((0, len(CLASSES)), np.float32)
        return session.run(None, {session.get_inputs()[0].name: batch})[0]

    def classify(self, rgb: "np.ndarray", boxes: Sequence[Sequence[float]]) -> list[TileReading]:
        """The TOP_K (code, probability) pairs of each box, best first."""
        return top_k(self.probabilities(rgb, boxes))


def combine(detector_alternatives: Sequence[tuple[str, float]], probabilities: "np.ndarray",
            mode: str) -> TileReading:
    """Top-TOP_K reading of one tile box from the detector's alternatives and the
    classifier's probability vector.

    "classifier": the classifier's top TOP_K alone. "product": the classifier's probabilities
    times the detector's scores raised to DETECTOR_WEIGHT, renormalised. The two networks err
    differently (the detector saw whole scenes, the classifier crops), so a tile both half
    believe beats one only the classifier favours. The detector's scores are independent
    sigmoids and it lists only its top few: a class it left out scores at most its lowest
    listed one, taken as its score. Which flower is left to the classifier and its flower
    model (each flower column gets the detector's best flower score): the detector reads
    flowers worst of all.
    """
    import numpy as np

    if mode == "classifier":
        return top_k(probabilities[None])[0]
    if mode != "product":
        raise ClassifierError("bad_mode", f"unknown combination mode {mode!r}")
    listed = {code: p for code, p in detector_alternatives if code in CLASSES}
    bound = min(listed.values(), default=1.0)
    detector = np.array([listed.get(c, bound) for c in CLASSES]) + 1e-6
    detector[FLOWER_COLUMNS] = detector[FLOWER_COLUMNS].max()
    joint = detector ** DETECTOR_WEIGHT * probabilities
    return top_k((joint / joint.sum())[None])[0]


def reread(classifier: TileClassifier, rgb: "np.ndarray", detections: Sequence[Detection],
           mode: str = "classifier", image_size: tuple[int, int] | None = None,
           upright: bool = True) -> DetectionSet:
    """The detections with every tile box's code, confidence, top-TOP_K alternatives and
    not-a-tile probability taken from the classifier (combined with the detector's by `mode`,
    see `combine`); boxes the classifier finds most likely NOT_A_TILE go to `rejected`, read as
    their likeliest tile, and meld and concealed-kong boxes pass through unchanged.

    `image_size` (width, height) is the frame the boxes are in when `rgb` was decoded
    smaller than the original (the detector's reduced JPEG decode); default: rgb's own.
    `upright`: read tiles not lying sideways with the classifier's upright model, if it has one.
    """
    width, height = image_size or (rgb.shape[1], rgb.shape[0])
    sx, sy = rgb.shape[1] / width, rgb.shape[0] / height
    tiles = [i for i, d in enumerate(detections) if d.is_tile]
    boxes = [(x1 * sx, y1 * sy, x2 * sx, y2 * sy) for x1, y1, x2, y2 in (detections[i].box for i in tiles)]
    read: list[Detection] = list(detections)
    rejected: set[int] = set()
    for i, probs in zip(tiles, classifier.probabilities(rgb, boxes, upright)):
        reading = combine(detections[i].alternatives, probs, mode)
        read[i] = Detection(detections[i].box, reading.code, reading.confidence, reading.top,
                            not_a_tile=float(probs[READINGS]))
        if probs.argmax() == READINGS:
            rejected.add(i)
    return DetectionSet(tuple(d for i, d in enumerate(read) if i not in rejected),
                        tuple(read[i] for i in sorted(rejected)))
