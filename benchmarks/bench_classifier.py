"""Second-stage tile classifier against the detector's own class head, one run.

    python benchmarks/bench_classifier.py [--limit 40]

Sets:
  * the real crops held out of training (datasets/mjsynth/art.py: is_held_out_crop), each
    on a table-coloured canvas as in bench_detector.py: top-1/top-3 of the classifier on
    the crop itself, and the code of the detector's most confident tile box as read by
    (a) our detector, (b) the peer `mahjong-detector` (34 shared codes only), (c) our
    detector's box re-read by the classifier, (d) the detector/classifier product.
  * synthetic scene sets (synth-v3 val; the gnome-smooth transfer set, art held out of
    training): detector boxes matched to ground-truth tiles at IoU >= 0.5, code accuracy
    of the detector alone, the classifier, and the product, over the same matched boxes.
Latency: p50 per scene image of detector alone vs detector + classifier on all tile boxes,
timed within the same call (images decoded beforehand, so the difference is the classifier).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np
from PIL import Image
from tqdm import tqdm

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "datasets"))
sys.path.insert(0, str(REPO / "benchmarks"))

from bench_detector import EVAL_CONF, SHARED_CODES, Peer, crop_scene, load_scene_set, top_tile  # noqa: E402
from vision.argtypes import existing_file, whole  # noqa: E402
from vision.classifier import DEFAULT_MODEL, READINGS, TileClassifier, combine, reread  # noqa: E402
from vision.detections import TILE_CODES  # noqa: E402
from vision.detector import DEFAULT_MODEL as DETECTOR_MODEL  # noqa: E402
from vision.detector import Detector, overlaps  # noqa: E402
from datasets.train_classifier import CACHE  # noqa: E402

MODES = ("classifier", "product")
SCENE_SETS = {
    "synthetic val (synth-v3)": CACHE / "synth-v3" / "images" / "val",
    "held-out art (gnome-smooth)": CACHE / "synth-v2-transfer-gnome" / "images" / "val",
}


def rate(hits: list[bool]) -> float:
    return sum(hits) / len(hits) if hits else float("nan")


def classifier_codes(classifier: TileClassifier, rgb: np.ndarray, tiles: list) -> dict[str, list[str | None]]:
    """Per mode, each tile box's code as the pipeline reads it; None where the classifier
    finds no tile in the box (the pipeline then drops it)."""
    probabilities = classifier.probabilities(rgb, [d.box for d in tiles])
    return {m: [None if p.argmax() == READINGS else combine(d.alternatives, p, m).code
                for d, p in zip(tiles, probabilities)] for m in MODES}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--classifier", type=existing_file, default=DEFAULT_MODEL)
    parser.add_argument("--detector", type=existing_file, default=DETECTOR_MODEL)
    parser.add_argument("--limit", type=whole(1), default=40, help="images per scene set")
    args = parser.parse_args(argv)

    from mjsynth.art import camerash_crops

    # The detector alone: its own class head, every box it proposes for the classifier.
    detector = Detector(args.detector, conf_threshold=EVAL_CONF, classifier_path=None)
    peer, classifier = Peer(), TileClassifier(args.classifier)
    rows: list[tuple[str, str]] = []

    # Held-out real crops.
    crops = [c for c in camerash_crops() if c.held_out]
    truth = [c.code for c in crops]
    direct = []
    for c in tqdm(crops, desc="classifier on crops", leave=False):
        rgb = np.asarray(Image.open(c.path).convert("RGB"))
        direct.append(classifier.classify(rgb, [(0, 0, rgb.shape[1], rgb.shape[0])])[0])
    codes = [[code for code, _ in r.top[:3]] for r in direct]
    rows.append((f"real crops: classifier on the crop (n={len(crops)})",
                 f"top1 {rate([c[0] == t for c, t in zip(codes, truth)]):.3f}  "
                 f"top3 {rate([t in c for c, t in zip(codes, truth)]):.3f}"))
    wrong = {}
    for c, t in zip(codes, truth):
        wrong.setdefault(t, []).append(c[0] == t)
    worst = sorted(wrong.items(), key=lambda kv: (rate(kv[1]), -len(kv[1])))[:5]
    rows.append(("real crops: classifier worst 5 classes",
                 ", ".join(f"{k} {rate(v):.2f} (n={len(v)})" for k, v in worst)))

    read = {"detector": [], "peer": [], **{m: [] for m in MODES}}
    for crop, t in tqdm(list(zip(crops, truth)), desc="detectors on crop scenes", leave=False):
        scene = crop_scene(crop.path)
        rgb = np.asarray(scene)
        boxes = detector.detect(rgb)
        best = max((d for d in boxes if d.is_tile), key=lambda d: d.confidence, default=None)
        read["detector"].append(best.code if best else None)
        read["peer"].append(top_tile(peer(scene)))
        if best is None:
            for m in MODES:
                read[m].append(None)
            continue
        for m, (code,) in classifier_codes(classifier, rgb, [best]).items():
            read[m].append(code)
    for name, predicted in read.items():
        shared = [p == t for p, t in zip(predicted, truth) if t in SHARED_CODES]
        every = "-" if name == "peer" else f"{rate([p == t for p, t in zip(predicted, truth)]):.3f}"
        rows.append((f"real crop scenes: {name} (all 42 / 34 shared)", f"{every} / {rate(shared):.3f}"))

    # Synthetic scenes: matched boxes, and latency.
    alone, both = [], []
    for set_name, folder in SCENE_SETS.items():
        images, truths = load_scene_set(folder, args.limit)
        hits = {"detector": [], **{m: [] for m in MODES}}
        for path, gt in tqdm(list(zip(images, truths)), desc=set_name, leave=False):
            rgb = np.asarray(Image.open(path).convert("RGB"))
            start = time.perf_counter()
            detections = detector.detect(rgb)
            detected = time.perf_counter()
            reread(classifier, rgb, detections)
            alone.append(detected - start)
            both.append(time.perf_counter() - start)
            tiles = [d for d in detections if d.is_tile]
            readings = classifier_codes(classifier, rgb, tiles)
            gt_tiles = [b for b in gt if b.code in (*TILE_CODES, "back")]
            if not gt_tiles:
                continue
            gt_xyxy = np.array([b.xyxy for b in gt_tiles])
            for k, d in enumerate(tiles):
                overlap = overlaps(d.box, gt_xyxy)[0]
                if overlap.max() < 0.5:
                    continue
                true_code = gt_tiles[int(overlap.argmax())].code
                hits["detector"].append(d.code == true_code)
                for m in MODES:
                    hits[m].append(readings[m][k] == true_code)
        n = len(hits["detector"])
        rows.append((f"{set_name}: matched boxes (n={n}) code acc.",
                     "  ".join(f"{k} {rate(v):.3f}" for k, v in hits.items())))

    p_alone, p_both = statistics.median(alone), statistics.median(both)
    rows.append(("latency p50 per scene",
                 f"detector {p_alone * 1e3:.1f} ms, detector+classifier {p_both * 1e3:.1f} ms, "
                 f"ratio {p_both / p_alone:.2f} over {len(alone)} images"))
    print()
    for label, value in rows:
        print(f"{label:<52} {value}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
