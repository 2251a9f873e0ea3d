"""Our detector against the `mahjong-detector` peer on real photos of whole tile sets, tile by tile.

    python benchmarks/bench_real_photos.py [--photos DIR] [--labels benchmarks/real_photos.json]
        [--model models/mjlens-tiles.onnx] [--hand-photo]

The photos are the 16 of ../shared/data/table-photos/camerash-raw whose tiles lie in rows:
seven whole sets of 144, four trays of 36 (a suit four times over, or the honours and flowers)
and five strips of one suit, the honours or the flowers; 1,194 tiles, 1,190 of them our codes.
`real_photos.json` holds our labels of them, row by row. Each detector reads each photo at its
own operating point (ours as `mjlens detect` does, the peer at its default confidence). Its tile
boxes are split into the labelled number of rows at the widest vertical gaps between their
centres, each row read left to right and aligned with its label: a tile read as another code is
*wrong*, a labelled tile with no box is *missed*, a box on no labelled tile is *extra*. Tiles
right is the share of labelled tiles read with their own code; the error rate is (wrong + missed
+ extra) over the labelled tiles, as in OCR's character error rate. The peer knows 34 of our
codes (no flowers): it is scored over the tiles with those codes, a flower counting neither way.

These photos test reading real tiles, not generalising to unseen ones: the 628 real crops of
../shared/data/tile-crops/camerash were cut from them, and the crop classifier trained on those
not held out, as the detector did on rendered scenes with faces cut from them. The photos are
face-on and evenly lit; photos of hands on a table are harder (benchmarks/bench_photo.py).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from pathlib import Path

from tqdm import tqdm

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "datasets"))

from bench_detector import SHARED_CODES, Box, Ours, Peer  # noqa: E402
from vision.argtypes import existing_file  # noqa: E402
from vision.detections import FLOWER_CODES, GROUP_CLASSES  # noqa: E402
from vision.detector import DEFAULT_MODEL  # noqa: E402

LABELS = Path(__file__).resolve().parent / "real_photos.json"
PHOTOS = REPO.parent / "shared" / "data" / "table-photos" / "camerash-raw"
ANY = "?"  # a labelled tile that is none of our codes: any reading of it, or none, is right
PEER_CONF = 0.5  # the peer's own default (mahjong_detector.predict.postprocess)


@dataclass
class Tally:
    tiles: int = 0
    right: int = 0
    wrong: int = 0
    missed: int = 0
    extra: int = 0

    def add(self, other: Tally) -> None:
        for name in (f.name for f in fields(self)):
            setattr(self, name, getattr(self, name) + getattr(other, name))

    @property
    def error_rate(self) -> float:
        return (self.wrong + self.missed + self.extra) / self.tiles if self.tiles else float("nan")


def split_rows(boxes: Sequence[Box], count: int) -> list[list[Box]]:
    """The boxes in `count` rows, split at the widest gaps between their centres' heights, each
    row left to right."""
    ordered = sorted(boxes, key=lambda b: b.xyxy[1] + b.xyxy[3])
    middles = [(b.xyxy[1] + b.xyxy[3]) / 2 for b in ordered]
    gaps = sorted(range(1, len(ordered)), key=lambda i: middles[i] - middles[i - 1], reverse=True)
    cuts = [0] + sorted(gaps[: count - 1]) + [len(ordered)]
    rows = [ordered[a:b] for a, b in zip(cuts, cuts[1:])]
    rows += [[] for _ in range(count - len(rows))]  # fewer boxes than rows
    return [sorted(row, key=lambda b: b.xyxy[0] + b.xyxy[2]) for row in rows]


def align(read: Sequence[str], label: Sequence[str], counted: Callable[[str], bool] = lambda code: True) -> Tally:
    """The fewest wrong, missed and extra tiles that turn the labelled row into the row read (an
    edit distance). A labelled ANY, or a tile `counted` leaves out, costs nothing whatever it
    meets, nor missed; a box read on it is no extra."""
    free = [code == ANY or not counted(code) for code in label]
    n, m = len(label), len(read)
    # cost[i][j]: the fewest errors aligning label[:i] with read[:j]; step[i][j]: how it was reached
    cost = [[0] * (m + 1) for _ in range(n + 1)]
    step = [[""] * (m + 1) for _ in range(n + 1)]
    for j in range(1, m + 1):
        cost[0][j], step[0][j] = j, "extra"
    for i in range(1, n + 1):
        cost[i][0], step[i][0] = cost[i - 1][0] + (not free[i - 1]), "missed"
        for j in range(1, m + 1):
            pair = cost[i - 1][j - 1] + (not free[i - 1] and read[j - 1] != label[i - 1])
            options = [(pair, "pair"), (cost[i - 1][j] + (not free[i - 1]), "missed"), (cost[i][j - 1] + 1, "extra")]
            cost[i][j], step[i][j] = min(options, key=lambda o: o[0])
    tally = Tally(tiles=sum(not f for f in free))
    i, j = n, m
    while i or j:
        kind = step[i][j]
        if kind == "pair":
            if not free[i - 1]:
                if read[j - 1] == label[i - 1]:
                    tally.right += 1
                else:
                    tally.wrong += 1
            i, j = i - 1, j - 1
        elif kind == "missed":
            tally.missed += not free[i - 1]
            i -= 1
        else:
            tally.extra += 1
            j -= 1
    return tally


def score_photo(boxes: Sequence[Box], rows: Sequence[str], counted: Callable[[str], bool] = lambda code: True) -> Tally:
    tiles = [b for b in boxes if b.code not in GROUP_CLASSES]
    tally = Tally()
    for found, label in zip(split_rows(tiles, len(rows)), rows):
        tally.add(align([b.code for b in found], label.split(), counted))
    return tally


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--photos", type=Path, default=PHOTOS, help="folder of the labelled photos")
    parser.add_argument("--labels", type=existing_file, default=LABELS)
    parser.add_argument("--model", type=existing_file, default=DEFAULT_MODEL)
    parser.add_argument("--hand-photo", action="store_true", help="read the tiles as `mjlens photo` does")
    args = parser.parse_args(argv)
    labels = json.loads(args.labels.read_text())["photos"]
    missing = [name for name in labels if not (args.photos / name).is_file()]
    if missing:
        print(f"bench_real_photos: not in {args.photos}: {', '.join(missing)}", file=sys.stderr)
        return 2
    detectors = [(Ours(args.model, args.hand_photo, conf=None), lambda code: True),
                 (Peer(conf=PEER_CONF), lambda code: code in SHARED_CODES)]
    totals = {d.name: Tally() for d, _ in detectors}
    flowers = Tally()
    print(f"{'photo':<10} {'tiles':>5}  {'ours: right wrong missed extra':>31}  {'peer (34 codes): right wrong missed extra':>42}")
    for name, rows in tqdm(labels.items(), desc="photos", unit="photo", leave=False):
        cells = []
        for detector, counted in detectors:
            boxes = detector(args.photos / name)
            tally = score_photo(boxes, rows, counted)
            totals[detector.name].add(tally)
            cells.append(f"{tally.right:>5} {tally.wrong:>5} {tally.missed:>6} {tally.extra:>5}")
            if detector.name == "ours":
                flowers.add(score_photo(boxes, rows, lambda code: code in FLOWER_CODES))
        print(f"{name:<10} {sum(len(r.split()) for r in rows):>5}  {cells[0]:>31}  {cells[1]:>42}")
    for key, tally in totals.items():
        print(f"{key}: {tally.right} / {tally.tiles} tiles right ({tally.right / tally.tiles:.1%}), "
              f"{tally.wrong} wrong, {tally.missed} missed, {tally.extra} extra: error rate {tally.error_rate:.2%}")
    print(f"ours, flowers only: {flowers.right} / {flowers.tiles} right, {flowers.wrong} read as another code, "
          f"{flowers.missed} missed")
    ours, peer = totals["ours"], totals["peer"]
    print(f"error rate ratio ours / peer: {ours.error_rate / peer.error_rate:.2f}" if peer.error_rate
          else "the peer made no error")
    return 0


if __name__ == "__main__":
    sys.exit(main())
