"""Our tile detector against the `mahjong-detector` peer (PyPI, MIT), same images, one run.

    python benchmarks/bench_detector.py [--model models/mjlens-tiles.onnx]
        [--scenes NAME=IMAGES_DIR ...] [--limit 100] [--annotate-dir DIR] [--hand-photo]

Sets:
  * scene sets (YOLO layout, labels beside images under labels/): mAP50 over tile codes.
    Ours is reported on all our tile codes and on the 34 codes the peer knows; the peer
    only on those 34 (it has no flowers, no face-down class, no meld boxes). Beside it, the
    AP50 of the tile boxes whatever code each reads: what mAP50 loses beyond it, the codes lose.
  * the real crops held out of training (datasets/mjsynth/art.py: is_held_out_crop):
    one tile per image, so classification accuracy of the most confident tile box.
Latency is the whole per-image path (decode, pre-process, inference, NMS, our classifiers) for
each detector on the same images, reported as p50 ours / p50 peer. `--hand-photo` reads the
tiles as `mjlens photo` does (vision.detector.Detector's hand_photo: the upright classifier).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from PIL import Image
from tqdm import tqdm

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "datasets"))

from datasets.init_from_peer import PEER_TO_OURS  # noqa: E402
from vision.argtypes import existing_file, whole  # noqa: E402
from vision.detections import CLASS_NAMES, GROUP_CLASSES, TILE_CODES  # noqa: E402
from vision.detector import DEFAULT_MODEL, Detector, overlaps  # noqa: E402

SHARED_CODES = frozenset(PEER_TO_OURS.values())
EVAL_CONF = 0.05  # low threshold so the precision/recall curve is complete for mAP
IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png"}
# Crops are centred on a table-coloured canvas 2*margin+1 times their size, so a tile is
# about as large in the frame as in a photo of a hand (both detectors miss frame-filling tiles).
CROP_MARGIN = 2.5
TABLE_COLOUR = (40, 100, 60)


@dataclass(frozen=True)
class Box:
    code: str
    xyxy: tuple[float, float, float, float]
    confidence: float = 1.0


@dataclass
class Run:
    """Per-image predictions and timings of one detector on one set."""

    predictions: list[list[Box]] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)


class Ours:
    name = "ours"

    def __init__(self, model: Path, hand_photo: bool = False, conf: float | None = EVAL_CONF):
        """`conf` None: the product's own thresholds, as `mjlens detect` reads."""
        self.detector = Detector(model, conf_threshold=conf, hand_photo=hand_photo)

    def __call__(self, image: Path | Image.Image) -> list[Box]:
        source = np.asarray(image) if isinstance(image, Image.Image) else image
        return [Box(d.code, d.box, d.confidence) for d in self.detector.detect(source)]


class Peer:
    """`mahjong-detector` through its own pre-processing, session and post-processing.

    Its public `detect_tiles` keeps only names at confidence 0.5; we call the same steps
    with a threshold of our choice (by default our evaluation threshold) to get boxes and scores.
    """

    name = "peer"

    def __init__(self, conf: float = EVAL_CONF):
        import importlib

        from mahjong_detector.preprocess import preprocess_image

        # the package's __init__ rebinds the name `predict` to a function; get the module
        peer_predict = importlib.import_module("mahjong_detector.predict")

        self.predict = peer_predict
        self.preprocess = preprocess_image
        self.session = peer_predict.get_inference_session()
        self.input_name = self.session.get_inputs()[0].name
        self.codes = [PEER_TO_OURS[n] for n in peer_predict.CLASS_NAMES]
        self.conf = conf

    def __call__(self, image: Path | Image.Image) -> list[Box]:
        img = Image.open(image) if isinstance(image, Path) else image
        padded, padding = self.preprocess(img)
        raw = self.session.run(None, {self.input_name: self.predict.create_input_tensor(padded)})[0][0]
        found = self.predict.postprocess(raw, padding, len(self.codes), conf_threshold=self.conf)
        return [Box(self.codes[d.class_id], (d.x1, d.y1, d.x2, d.y2), d.confidence) for d in found]


def timed_run(detector, images: list, label: str) -> Run:
    run = Run()
    detector(images[0])  # warm-up: session creation and first-call allocations
    for image in tqdm(images, desc=f"{label} {detector.name}", leave=False):
        start = time.perf_counter()
        boxes = detector(image)
        run.seconds.append(time.perf_counter() - start)
        run.predictions.append(boxes)
    return run


# --- scene sets: mAP50 ------------------------------------------------------------------

def beside(image: Path, folder: str, suffix: str) -> Path:
    """The file about `image` (in <set>/images/<split>/) in the set's `folder` (labels, meta),
    which mirrors images/: only that last images/ is replaced, whatever the folders above are named."""
    return image.parents[2] / folder / image.parent.name / f"{image.stem}{suffix}"


def scene_set(text: str) -> tuple[str, Path]:
    """`NAME=IMAGES_DIR` as (name, folder), refused while the options are parsed unless the folder
    holds images."""
    name, eq, folder = text.partition("=")
    if not eq or not name:
        raise argparse.ArgumentTypeError(f"{text!r} is not NAME=IMAGES_DIR")
    path = Path(folder)
    if not path.is_dir() or not any(p.suffix.lower() in IMAGE_SUFFIXES for p in path.iterdir()):
        raise argparse.ArgumentTypeError(f"{folder!r} is not a folder of images")
    return name, path


def load_scene_set(images_dir: Path, limit: int) -> tuple[list[Path], list[list[Box]]]:
    images = sorted(p for p in images_dir.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)[:limit]
    truths = []
    for path in images:
        label_file = beside(path, "labels", ".txt")
        width, height = Image.open(path).size
        boxes = []
        for line in label_file.read_text().splitlines() if label_file.exists() else []:
            cls, cx, cy, w, h = line.split()[:5]
            cx, cy, w, h = float(cx) * width, float(cy) * height, float(w) * width, float(h) * height
            boxes.append(Box(CLASS_NAMES[int(cls)], (cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2)))
        truths.append(boxes)
    return images, truths


def scene_layouts(images: list[Path]) -> list[str | None]:
    """Each image's layout (hand, table, closeup) from the generator's meta file, which lies
    beside its label file (`meta/` for `labels/`); None where there is none."""
    layouts = []
    for path in images:
        meta = beside(path, "meta", ".json")
        layouts.append(json.loads(meta.read_text()).get("layout") if meta.is_file() else None)
    return layouts


def average_precision(code: str, predictions: list[list[Box]], truths: list[list[Box]]) -> float | None:
    """All-point interpolated AP at IoU 0.5 for one class; None if the class never occurs."""
    gt = [np.array([b.xyxy for b in t if b.code == code]).reshape(-1, 4) for t in truths]
    total = sum(len(g) for g in gt)
    if total == 0:
        return None
    found = sorted(
        ((b.confidence, i, b.xyxy) for i, p in enumerate(predictions) for b in p if b.code == code),
        key=lambda x: -x[0],
    )
    used = [np.zeros(len(g), bool) for g in gt]
    hits = []
    for _, i, xyxy in found:
        hit = False
        if len(gt[i]):
            ious = overlaps(xyxy, gt[i])[0]
            ious[used[i]] = 0
            best = int(ious.argmax())
            if ious[best] >= 0.5:
                used[i][best] = hit = True
        hits.append(hit)
    if not hits:
        return 0.0
    tp = np.cumsum(hits)
    recall = np.concatenate([[0], tp / total, [1]])
    precision = np.concatenate([[1], tp / np.arange(1, len(tp) + 1), [0]])
    precision = np.maximum.accumulate(precision[::-1])[::-1]
    return float(np.sum((recall[1:] - recall[:-1]) * precision[1:]))


def mean_ap(codes, predictions, truths) -> tuple[float, dict[str, float]]:
    per_class = {c: ap for c in codes if (ap := average_precision(c, predictions, truths)) is not None}
    return (float(np.mean(list(per_class.values()))) if per_class else float("nan")), per_class


def box_ap(predictions: list[list[Box]], truths: list[list[Box]]) -> float:
    """AP50 of the tile boxes as one class: how many tiles are boxed, whatever code each box reads
    (what mAP50 loses beyond this, the codes lose). Fair to the peer too, which has no codes for
    flowers and face-down tiles but can box them."""
    def boxes(found: list[Box]) -> list[Box]:
        return [Box("tile", b.xyxy, b.confidence) for b in found if b.code not in GROUP_CLASSES]

    ap = average_precision("tile", [boxes(p) for p in predictions], [boxes(t) for t in truths])
    return float("nan") if ap is None else ap


# --- real crops: accuracy ---------------------------------------------------------------

def crop_scene(path: Path) -> Image.Image:
    """The crop centred on a table-coloured canvas, like a close-up photo of one tile."""
    crop = Image.open(path).convert("RGB")
    margin = round(CROP_MARGIN * max(crop.size))
    canvas = Image.new("RGB", (crop.width + 2 * margin, crop.height + 2 * margin), TABLE_COLOUR)
    canvas.paste(crop, (margin, margin))
    return canvas


def top_tile(boxes: list[Box]) -> str | None:
    tiles = [b for b in boxes if b.code not in GROUP_CLASSES]
    return max(tiles, key=lambda b: b.confidence).code if tiles else None


def accuracy(predicted: list[str | None], truth: list[str], codes: frozenset[str]) -> tuple[float, int]:
    pairs = [(p, t) for p, t in zip(predicted, truth) if t in codes]
    return (sum(p == t for p, t in pairs) / len(pairs) if pairs else float("nan")), len(pairs)


# --- main -------------------------------------------------------------------------------

def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=existing_file, default=DEFAULT_MODEL)
    parser.add_argument("--scenes", action="append", default=[], metavar="NAME=IMAGES_DIR", type=scene_set,
                        help="a YOLO image folder to score (repeatable)")
    parser.add_argument("--limit", type=whole(1), default=100, help="images per scene set")
    parser.add_argument("--no-crops", action="store_true", help="skip the held-out real crops")
    parser.add_argument("--annotate-dir", type=Path, help="also write annotated real table photos here")
    parser.add_argument("--photos", type=Path, default=REPO.parent / "shared" / "data" / "table-photos" / "camerash-raw")
    parser.add_argument("--per-class", action="store_true", help="print per-class AP of ours")
    parser.add_argument("--hand-photo", action="store_true",
                        help="read tiles as in photos of one hand (upright model; use with hand-photo sets)")
    args = parser.parse_args(argv)

    ours, peer = Ours(args.model, args.hand_photo), Peer()
    our_tiles = frozenset((*TILE_CODES, "back"))
    seconds = {"ours": [], "peer": []}
    set_latency = []  # (set, p50 ours, p50 peer): the photo shape changes what rect inference saves
    rows = []
    for name, folder in args.scenes:
        images, truths = load_scene_set(folder, args.limit)
        runs = {d.name: timed_run(d, images, name) for d in (ours, peer)}
        for key, run in runs.items():
            seconds[key] += run.seconds
        set_latency.append((name, *(statistics.median(runs[k].seconds) for k in ("ours", "peer"))))
        ours_all, per_class = mean_ap(our_tiles, runs["ours"].predictions, truths)
        ours_shared, _ = mean_ap(SHARED_CODES, runs["ours"].predictions, truths)
        peer_shared, _ = mean_ap(SHARED_CODES, runs["peer"].predictions, truths)
        groups, _ = mean_ap(GROUP_CLASSES, runs["ours"].predictions, truths)
        rows.append((f"{name} ({len(images)} images) mAP50", ours_all, ours_shared, peer_shared))
        layouts = scene_layouts(images)
        for layout in sorted({kind for kind in layouts if kind}):
            pick = [i for i, kind in enumerate(layouts) if kind == layout]
            subset = lambda predictions: [predictions[i] for i in pick]  # noqa: E731
            rows.append((f"  {layout} ({len(pick)} images)",
                         mean_ap(our_tiles, subset(runs["ours"].predictions), subset(truths))[0],
                         mean_ap(SHARED_CODES, subset(runs["ours"].predictions), subset(truths))[0],
                         mean_ap(SHARED_CODES, subset(runs["peer"].predictions), subset(truths))[0]))
        rows.append((f"{name} tile boxes AP50, whatever their code", box_ap(runs["ours"].predictions, truths),
                     float("nan"), box_ap(runs["peer"].predictions, truths)))
        if not np.isnan(groups):
            rows.append((f"{name} meld/kong boxes mAP50", groups, float("nan"), float("nan")))
        if args.per_class:
            print(f"{name} per-class AP50 (ours): " + ", ".join(f"{c} {v:.2f}" for c, v in sorted(per_class.items())))

    if not args.no_crops:
        from mjsynth.art import camerash_crops

        crops = [c for c in camerash_crops() if c.held_out]
        images = [crop_scene(c.path) for c in crops]
        truth = [c.code for c in crops]
        runs = {d.name: timed_run(d, images, "crops") for d in (ours, peer)}
        for key, run in runs.items():
            seconds[key] += run.seconds
        set_latency.append(("crops", *(statistics.median(runs[k].seconds) for k in ("ours", "peer"))))
        predicted = {k: [top_tile(p) for p in r.predictions] for k, r in runs.items()}
        ours_all, n_all = accuracy(predicted["ours"], truth, frozenset(TILE_CODES))
        ours_shared, n_shared = accuracy(predicted["ours"], truth, SHARED_CODES)
        peer_shared, _ = accuracy(predicted["peer"], truth, SHARED_CODES)
        rows.append((f"held-out real crops accuracy ({n_all} / {n_shared} shared)", ours_all, ours_shared, peer_shared))

    print(f"\n{'set':<52} {'ours(all)':>9} {'ours(34)':>9} {'peer(34)':>9}")
    fmt = lambda v: "-" if np.isnan(v) else f"{v:.3f}"  # noqa: E731
    for label, a, b, c in rows:
        print(f"{label:<52} {fmt(a):>9} {fmt(b):>9} {fmt(c):>9}")
    for name, p50_ours, p50_peer in set_latency:
        print(f"latency p50 {name}: ours {p50_ours * 1e3:.1f} ms, peer {p50_peer * 1e3:.1f} ms, "
              f"ratio {p50_ours / p50_peer:.2f}")
    if seconds["ours"]:
        p50_ours, p50_peer = statistics.median(seconds["ours"]), statistics.median(seconds["peer"])
        print(f"latency p50: ours {p50_ours * 1e3:.1f} ms, peer {p50_peer * 1e3:.1f} ms, "
              f"ratio ours/peer {p50_ours / p50_peer:.2f} over {len(seconds['ours'])} images")
        # Photos whose tiles look small are read twice (vision.detector.SMALL_TILES): the mean shows it.
        mean_ours, mean_peer = statistics.mean(seconds["ours"]), statistics.mean(seconds["peer"])
        print(f"latency mean: ours {mean_ours * 1e3:.1f} ms, peer {mean_peer * 1e3:.1f} ms, "
              f"ratio ours/peer {mean_ours / mean_peer:.2f}")

    if args.annotate_dir:
        from vision.detect_cli import annotate

        args.annotate_dir.mkdir(parents=True, exist_ok=True)
        detector = Detector(args.model)
        photos = sorted(p for p in args.photos.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        for photo in tqdm(photos, desc="annotating photos", leave=False):
            annotate(photo, detector.detect(photo), args.annotate_dir / f"{photo.stem}.png")
        print(f"annotated {len(photos)} photos in {args.annotate_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
