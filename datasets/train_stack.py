"""Train the stack model (vision/stacking.py): does a meld's middle tile lie on another tile?

Crops come from hand photos rendered with the "melds" layout (mostly exposed pungs and kongs,
60% of the exposed kongs laid stacked; training art sources only, gnome-smooth held out, the
`drawn` source `--drawn-weight` times as often as each other one), read as the product reads
them: grouped (vision.grouping) from the shipped detector's boxes and, apart, from the photo's
labelled boxes (the boxes of a better detector). Each meld of three tiles reading one code gives
its middle tile's crop (vision.stacking.context_crop), labelled 1 where the truth is a stacked
kong, 0 where it is a pung. Photos whose index is a multiple of DEV_EVERY are kept out of
training to choose the threshold (vision.reader.ON_A_TILE).

The shipped model (models/CLASSIFIER_CARD.md) was trained on the `drawn` source built with 300
imagined sets, in a cache of its own beside the other atlases:

    MJLENS_ART_CACHE=/tmp/art-300 python datasets/fetch_art.py --sources drawn --skip-download --drawn-styles 300
    ln -s $PWD/datasets/_art/atlas/* /tmp/art-300/atlas/   # the other sources, as fetched
    MJLENS_ART_CACHE=/tmp/art-300 python datasets/train_stack.py crops --out /tmp/stack-crops --count 12000 --drawn-weight 2
    python datasets/train_stack.py train --crops /tmp/stack-crops --epochs 8 --out models/mjlens-stack-classifier.onnx
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "datasets"))

from scoring.cli import fail  # noqa: E402
from vision.argtypes import whole  # noqa: E402
from vision.stacking import INPUT_SIZE  # noqa: E402

TRAINING_SOURCES = ("fluffystuff", "kmahjongg-default", "kmahjongg-traditional", "kmahjongg-classic",
                    "kmahjongg-jade", "gnome-postmodern", "xmahjongg-real", "xmahjongg-dorothys", "camerash", "drawn")
PHOTO_SIZE = 960  # the long side of the rendered photos, as in the photo benchmark
DEV_EVERY = 8
BATCH = 64
LEARNING_RATE = 2e-3
CALIBRATION = 512  # training crops the int8 export is calibrated on


def meld_crops(rgb: np.ndarray, size: tuple[int, int], found: list, meta: dict) -> list[tuple[np.ndarray, int]]:
    """(crop, label) for the middle tile of each meld of three one-code tiles grouping finds in
    `found` (detections in a photo of `size`, `rgb` that photo at any scale) whose code names
    exactly one exposed pung or stacked kong of the truth."""
    from vision.detections import BACK
    from vision.grouping import group_tiles, one_code
    from vision.photo_errors import PhotoError
    from vision.stacking import context_crop

    try:
        layout = group_tiles(found)
    except PhotoError:
        return []
    kx, ky = rgb.shape[1] / size[0], rgb.shape[0] / size[1]
    out = []
    for meld in layout.melds:
        code = one_code(layout.tiles, meld.tiles) if len(meld.tiles) == 3 and not meld.concealed else None
        if code is None:
            continue
        kinds = [("stacked" if g.get("stacked") else g["kind"]) for g in meta["groups"] if not g["concealed"]
                 and {t["code"] for t in meta["tiles"] if t.get("group") == g["id"] and t["code"] != BACK} == {code}]
        if len(kinds) != 1 or kinds[0] not in ("stacked", "pung"):
            continue
        x1, y1, x2, y2 = layout.tiles[meld.tiles[1]].box
        out.append((context_crop(rgb, (x1 * kx, y1 * ky, x2 * kx, y2 * ky)), int(kinds[0] == "stacked")))
    return out


_WORKER: dict = {}


def _init_worker(drawn_weight: int) -> None:
    from mjsynth.art import load_atlas
    from vision.detector import Detector

    drawn = load_atlas("drawn")
    _WORKER["atlases"] = [drawn] * drawn_weight + [load_atlas(s) for s in TRAINING_SOURCES if s != "drawn"]
    _WORKER["detector"] = Detector(hand_photo=True)


def photo_crops(jpeg: bytes, meta: dict, detector) -> list[tuple[np.ndarray, int]]:
    """The meld crops of one photo, from the detector's boxes and then from the labelled boxes."""
    from mjsynth.dataset import truth_detections
    from vision.detector import load_image

    rgb, size = load_image(jpeg, draft_size=detector.imgsz)
    return (meld_crops(rgb, size, list(detector.detect_set(jpeg).kept), meta)
            + meld_crops(rgb, size, truth_detections(meta), meta))


def _photo_crops(job: tuple[int, int]) -> tuple[int, list[tuple[np.ndarray, int]]]:
    from mjsynth.dataset import hand_photo_jpeg

    seed, index = job
    atlases = _WORKER["atlases"]
    jpeg, meta = hand_photo_jpeg(atlases[index % len(atlases)], seed, index, PHOTO_SIZE, layout="melds")
    return index, photo_crops(jpeg, meta, _WORKER["detector"])


def crops_command(args: argparse.Namespace) -> int:
    from multiprocessing import Pool

    from tqdm import tqdm

    args.out.mkdir(parents=True, exist_ok=True)
    crops, labels, photos = [], [], []
    with Pool(args.workers, initializer=_init_worker, initargs=(args.drawn_weight,)) as pool:
        jobs = [(args.seed, i) for i in range(args.count)]
        # In photo order, whichever worker finishes first: training and calibration pick crops by index.
        for index, found in tqdm(pool.imap(_photo_crops, jobs), total=args.count, desc="photos", mininterval=5):
            for crop, label in found:
                crops.append(crop)
                labels.append(label)
                photos.append(index)
    np.savez_compressed(args.out / f"crops-{args.seed}.npz", crops=np.array(crops, np.uint8).reshape(-1, INPUT_SIZE, INPUT_SIZE, 3),
                        labels=np.array(labels, np.int64), photos=np.array(photos, np.int64))
    print(f"{len(labels)} crops ({sum(labels)} on a tile) from {args.count} photos -> {args.out}")
    return 0


def _network():
    import torch.nn as nn

    def block(i: int, o: int) -> list:
        return [nn.Conv2d(i, o, 3, padding=1, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True)]

    return nn.Sequential(*block(3, 16), *block(16, 16), nn.MaxPool2d(2), *block(16, 32), *block(32, 32), nn.MaxPool2d(2),
                         *block(32, 64), *block(64, 64), nn.MaxPool2d(2), *block(64, 96), nn.AdaptiveAvgPool2d(1),
                         nn.Flatten(), nn.Dropout(0.2), nn.Linear(96, 1), nn.Flatten(0))


def _augmented(batch: np.ndarray, rng: np.random.Generator):
    """Mirrored (a stack is one either way), half turned (seen from across the table), shifted
    by up to 4 px (detector boxes are a few pixels off) and lit brighter or darker."""
    import torch

    batch = batch.copy()
    n = len(batch)
    mirror = rng.random(n) < 0.5
    batch[mirror] = batch[mirror, :, ::-1]
    turned = rng.random(n) < 0.3
    batch[turned] = batch[turned, ::-1, ::-1]
    padded = np.pad(batch, ((0, 0), (4, 4), (4, 4), (0, 0)), mode="edge")
    for k, (dx, dy) in enumerate(rng.integers(0, 9, (n, 2))):
        batch[k] = padded[k, dy:dy + INPUT_SIZE, dx:dx + INPUT_SIZE]
    images = torch.from_numpy(batch).permute(0, 3, 1, 2).float() / 255.0
    gain = torch.from_numpy(rng.uniform(0.7, 1.3, (n, 1, 1, 1))).float()
    tint = torch.from_numpy(rng.uniform(-0.1, 0.1, (n, 3, 1, 1))).float()
    return (images * gain + tint).clamp(0, 1)


def _probabilities(net, crops: np.ndarray) -> np.ndarray:
    import torch

    net.eval()
    with torch.no_grad():
        out = torch.sigmoid(net(torch.from_numpy(crops).permute(0, 3, 1, 2).float() / 255.0)).numpy()
    net.train()
    return out


def train_command(args: argparse.Namespace) -> int:
    import torch
    import torch.nn as nn

    shards = sorted(args.crops.glob("crops-*.npz"))
    if not shards:
        return fail("train_stack", "no_crops", f"no crops-*.npz in {args.crops}: run `crops` first")
    data = [np.load(s) for s in shards]
    crops = np.concatenate([d["crops"] for d in data])
    labels = np.concatenate([d["labels"] for d in data]).astype(np.float32)
    dev = np.concatenate([d["photos"] for d in data]) % DEV_EVERY == 0
    x, y = crops[~dev], labels[~dev]
    print(f"training on {len(y)} crops ({int(y.sum())} on a tile), {int(dev.sum())} kept for development")
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    net = _network()
    steps = args.epochs * (len(y) // BATCH)
    optimiser = torch.optim.AdamW(net.parameters(), LEARNING_RATE, weight_decay=1e-4)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, LEARNING_RATE, total_steps=steps)
    loss_of = nn.BCEWithLogitsLoss(pos_weight=torch.tensor((1 - y.mean()) / y.mean()))
    start = time.time()
    for epoch in range(args.epochs):
        order, total = rng.permutation(len(y)), 0.0
        for step in range(len(y) // BATCH):
            pick = order[step * BATCH:(step + 1) * BATCH]
            loss = loss_of(net(_augmented(x[pick], rng)), torch.from_numpy(y[pick]))
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
            total += loss.item()
        p = _probabilities(net, crops[dev])
        on, off = labels[dev] == 1, labels[dev] == 0
        print(f"epoch {epoch + 1}/{args.epochs} loss {total / (len(y) // BATCH):.3f} ({time.time() - start:.0f} s); "
              + ", ".join(f"at {t}: {int((p[on] >= t).sum())}/{int(on.sum())} stacks seen, "
                          f"{int((p[off] >= t).sum())}/{int(off.sum())} pungs taken for stacks" for t in (0.5, 0.9)),
              flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        float_model = Path(tmp) / "float.onnx"
        _export(net, float_model)
        ship(float_model, args.out, x)
    return 0


def ship(float_model: Path, out: Path, training_crops: np.ndarray) -> None:
    """The float model quantised to int8 (train_classifier.quantize), calibrated on CALIBRATION
    training crops: on 1-3 crops a call it runs in about 60% of the float model's time and reads
    the held-out melds as it does (models/CLASSIFIER_CARD.md)."""
    from train_classifier import quantize

    chosen = np.random.default_rng(0).choice(len(training_crops), min(CALIBRATION, len(training_crops)), replace=False)
    quantize(float_model, out, training_crops[chosen].transpose(0, 3, 1, 2))
    print(f"exported {out} ({out.stat().st_size / 1e6:.2f} MB, int8)")


def _export(net, out: Path) -> None:
    import torch
    import torch.nn as nn

    class Shipped(nn.Module):  # uint8 crops in, probabilities out: callers need no normalisation
        def __init__(self, net):
            super().__init__()
            self.net = net

        def forward(self, crops):
            return torch.sigmoid(self.net(crops.float() / 255.0))

    net.eval()
    torch.onnx.export(Shipped(net), torch.zeros(1, 3, INPUT_SIZE, INPUT_SIZE, dtype=torch.uint8), str(out),
                      input_names=["crops"], output_names=["on_a_tile"],
                      dynamic_axes={"crops": {0: "n"}, "on_a_tile": {0: "n"}}, opset_version=17, dynamo=False)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    crops = sub.add_parser("crops", help="render meld photos and cut the crops")
    crops.add_argument("--out", type=Path, required=True)
    crops.add_argument("--count", type=int, default=12000)
    crops.add_argument("--seed", type=int, default=4242)
    crops.add_argument("--workers", type=int, default=2)
    crops.add_argument("--drawn-weight", type=whole(1), default=2, help="photos drawn with the `drawn` source per other source")
    train = sub.add_parser("train", help="train on the crops and export the ONNX model")
    train.add_argument("--crops", type=Path, required=True)
    train.add_argument("--epochs", type=int, default=8)
    train.add_argument("--seed", type=int, default=0)
    train.add_argument("--out", type=Path, default=REPO / "models" / "mjlens-stack-classifier.onnx")
    args = parser.parse_args()
    return {"crops": crops_command, "train": train_command}[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
