"""`mjlens detect IMAGE`: show what the tile detector sees in a photo."""

from __future__ import annotations

import argparse
import json
from dataclasses import replace
from pathlib import Path

from scoring.cli import fail
from scoring.rules import counted
from vision.annotate import LabelPlacer, enlargement, output_problem
from vision.argtypes import number
from vision.detections import Detection, median_short_side
from vision.detector import DEFAULT_CONF, DEFAULT_MODEL, PROPOSAL_CONF, Detector, DetectorError, load_image

HELP = "detect tiles in a photo: codes, boxes, confidences (optionally an annotated image)"
PROG = "mjlens detect"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("image", type=Path)
    parser.add_argument("--json", action="store_true", help="print detections as JSON")
    parser.add_argument("--annotate", type=Path, metavar="OUT.png", help="write the image with boxes drawn")
    parser.add_argument("--model", type=Path, help="ONNX weights (default: the shipped models/mjlens-tiles.onnx)")
    parser.add_argument("--conf", type=number(0, 1), default=None,
                        help=f"show only boxes of this confidence or more, as shown (default: every tile box "
                             f"the classifier keeps, meld boxes from {DEFAULT_CONF})")
    parser.add_argument("--hand-photo", action="store_true",
                        help="read the photo as one player's hand, as `mjlens photo` does (tiles upright or "
                             "upside down, claimed tiles sideways); without it only photos of at most 30 "
                             "large tiles are read so")


def annotate(image_path: Path, detections: list[Detection], out: Path) -> float:
    """Draw each box with its code and confidence; tiles in green, meld boxes in orange. Returns
    how many times its size the photo is drawn (vision.annotate.enlargement: small tiles)."""
    import cv2

    rgb, _ = load_image(image_path)
    canvas = cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR)
    zoom = enlargement(median_short_side([d.box for d in detections if d.is_tile]), (canvas.shape[1], canvas.shape[0]))
    if zoom > 1:
        canvas = cv2.resize(canvas, None, fx=zoom, fy=zoom, interpolation=cv2.INTER_LANCZOS4)
        detections = [replace(d, box=tuple(v * zoom for v in d.box)) for d in detections]
    # Line and text sizes follow the image so labels stay legible on large photos.
    unit = max(1, round(max(canvas.shape[:2]) / 800))
    scale = 0.4 * unit

    def colour(det: Detection) -> tuple[int, int, int]:
        return (40, 200, 40) if det.is_tile else (0, 140, 255)

    for det in sorted(detections, key=lambda d: d.confidence):
        x1, y1, x2, y2 = (round(v) for v in det.box)
        cv2.rectangle(canvas, (x1, y1), (x2, y2), colour(det), unit)
    # Labels after every box, so that no outline hides a character; left to right, each where it
    # covers no label placed before it and no other tile's box.
    placer = LabelPlacer((canvas.shape[1], canvas.shape[0]), [d.box for d in detections if d.is_tile])
    for det in sorted(detections, key=lambda d: d.box[0]):
        label = f"{det.code} {det.confidence:.2f}"
        (tw, th), baseline = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, scale, unit)
        spot = placer.place(det.box, tw + 4 * unit, th + baseline + 2 * unit, own=[det.box])
        x1, y1, x2, y2 = (round(v) for v in spot)
        cv2.rectangle(canvas, (x1, y1), (x2, y2), colour(det), -1)
        cv2.putText(canvas, label, (x1 + 2 * unit, y2 - baseline - unit), cv2.FONT_HERSHEY_SIMPLEX, scale,
                    (0, 0, 0), unit)
    out.parent.mkdir(parents=True, exist_ok=True)
    if not cv2.imwrite(str(out), canvas):
        raise OSError(f"cannot write {out}")
    return zoom


def run(args: argparse.Namespace) -> int:
    try:
        problem = args.annotate is not None and output_problem(args.annotate, args.image)
        if problem:
            raise DetectorError("bad_output_path", problem)
        # The detector's own score is not the one shown (a tile's is the classifier's): it proposes
        # boxes at the lower of the two thresholds, and the shown confidence decides.
        proposal = None if args.conf is None else min(args.conf, PROPOSAL_CONF)
        detector = Detector(args.model or DEFAULT_MODEL, conf_threshold=proposal, hand_photo=args.hand_photo)
        detections = sorted((d for d in detector.detect(args.image) if args.conf is None or d.confidence >= args.conf),
                            key=lambda d: -d.confidence)
        zoom = 1.0
        if args.annotate:
            try:
                zoom = annotate(args.image, detections, args.annotate)
            except OSError as exc:
                raise DetectorError("write_failed", f"cannot write {args.annotate}: {exc}") from exc
    except DetectorError as exc:
        if args.json:
            print(json.dumps({"ok": False, "error": {"code": exc.code, "message": str(exc)}}, ensure_ascii=False))
            return 2
        return fail(PROG, exc.code, str(exc))
    if args.json:
        print(json.dumps([
            {"code": d.code, "confidence": round(d.confidence, 4), "box": [round(v, 1) for v in d.box],
             "alternatives": [[c, round(p, 4)] for c, p in d.alternatives]}
            for d in detections
        ], indent=1))
    else:
        for d in sorted(detections, key=lambda d: (d.box[1], d.box[0])):
            x1, y1, x2, y2 = d.box
            print(f"{d.code:>14} {d.confidence:.2f}  ({x1:.0f},{y1:.0f})-({x2:.0f},{y2:.0f})")
        tiles = sum(d.is_tile for d in detections)
        print(f"{counted(tiles, 'tile')}, {counted(len(detections) - tiles, 'meld box', 'meld boxes')}")
        if args.annotate:  # as mjlens photo says it; --json output stays JSON alone
            drawn = f" (drawn {zoom:.1f} times its size: its tiles are small)" if zoom > 1 else ""
            print(f"annotated image: {args.annotate}{drawn}")
    return 0
