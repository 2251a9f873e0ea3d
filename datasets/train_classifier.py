"""Train the second-stage tile classifier (vision/classifier.py) on CPU.

Crops are cut from the synthetic scenes' ground truth (every tile box with its label:
a tile code, or `back` when the face is not visible), with boxes that hold no single tile
(label `none`: background, or straddling two tiles) so the classifier can veto the
detector's false boxes, plus the TRAINING split of the real camerash crops (the held-out
split is never read here). Crops are cached once as views of the box grown 1.5x at the
network's resolution; each step then jitters the box (scale, aspect, shift, as
detector boxes are imperfect), turns it by a random multiple of 90 degrees (sideways and
upside-down tiles keep their code) and varies colour, before resizing to the network input.

    nice -n 5 python datasets/train_classifier.py train --epochs 6 > /tmp/cls.log 2>&1 &
    python datasets/train_classifier.py train --epochs 8 --resume    # continue a run
    python datasets/train_classifier.py export --out models/mjlens-tile-classifier.onnx  # int8
    python datasets/train_classifier.py evaluate

Deterministic for a seed (single-threaded data order; torch CPU kernels may still differ
in the last bits between machines).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "datasets"))

from scoring.cli import fail  # noqa: E402
from vision.classifier import CLASSES, CROP_SCALE, FLOWER_COLUMNS, INPUT_SIZE, NOT_A_TILE, crop_box  # noqa: E402
from vision.detector import overlaps  # noqa: E402

# Rendered scene sets, crop caches and runs: this workplace's /work/cache unless MJLENS_DATA_CACHE says.
CACHE = Path(os.environ.get("MJLENS_DATA_CACHE", "/work/cache"))
SWAP_INKS = 0.25  # share of training crops whose colour channels are shuffled
STORE_SCALE = 1.5  # cached crops cover the box grown 1.5x, room for the box jitter
# The box keeps the network's full resolution in the cached crop.
STORE_SIZE = round(INPUT_SIZE * STORE_SCALE / CROP_SCALE)
NEGATIVES_PER_TILE = 0.25  # not-a-tile boxes cut per labelled tile
CLASS_INDEX = {c: i for i, c in enumerate(CLASSES)}
REAL_REPEAT = 20  # the ~470 real training crops, seen as often as ~9k synthetic ones


class MissingScenes(Exception):
    """A scene set the run reads has not been rendered into the data cache."""


@dataclass(frozen=True)
class CropSet:
    """Crops (N x H x W x 3 uint8) with their class indices."""

    images: np.ndarray
    labels: np.ndarray


# --- crops -------------------------------------------------------------------------------

def labelled_scenes(root: Path, split: str, limit: int | None, desc: str):
    """(seed, RGB image, labelled tiles) of the first `limit` scenes of a synthetic split;
    the seed, (scenes, index), makes each scene's random boxes reproducible."""
    import cv2
    from tqdm import tqdm

    metas = sorted((root / "meta" / split).glob("*.json"))[:limit]
    if not metas:
        # Training and evaluation read scene sets rendered beforehand; a missing one would
        # otherwise surface as an empty crop stack far from its cause.
        raise MissingScenes(f"no rendered {split} scenes in {root}: render them first, e.g. `python datasets/synth.py "
                            f"--out {root} --count 1500 --seed S --layouts hand --imgsz 960` (models/CLASSIFIER_CARD.md "
                            "gives each set's command)")
    for index, meta_path in enumerate(tqdm(metas, desc=desc, mininterval=5)):
        meta = json.loads(meta_path.read_text())
        tiles = [t for t in meta["tiles"] if t["code"] in CLASS_INDEX]
        if tiles:
            bgr = cv2.imread(str(root / "images" / split / f"{meta_path.stem}.jpg"))
            yield (len(metas), index), cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB), tiles


def scene_crops(root: Path, split: str, limit: int | None, scale: float, size: int, desc: str,
                negatives: float = 0.0) -> CropSet:
    """Every labelled tile of the first `limit` scenes of a synthetic split, plus about
    `negatives` not-a-tile boxes per tile (see `not_a_tile_boxes`)."""
    images, labels = [], []
    for seed, rgb, tiles in labelled_scenes(root, split, limit, desc):
        boxes = [t["box"] for t in tiles]
        rng = np.random.default_rng(seed)
        wanted = int(rng.poisson(negatives * len(tiles)))
        negative = not_a_tile_boxes(rng, np.array(boxes, float), rgb.shape[1], rgb.shape[0], wanted)
        for box, label in [(t["box"], t["code"]) for t in tiles] + [(b, NOT_A_TILE) for b in negative]:
            images.append(crop_box(rgb, box, scale, size))
            labels.append(CLASS_INDEX[label])
    return CropSet(np.stack(images), np.array(labels, np.int64))


def detector_tag() -> str:
    """A short digest of the shipped detector's weights: cached false-box crops are its own, so a
    retrained detector's are computed anew rather than read from the old one's cache."""
    import hashlib

    from vision.detector import DEFAULT_MODEL

    return hashlib.sha1(DEFAULT_MODEL.read_bytes()).hexdigest()[:10]


def detector_false_boxes(root: Path, split: str, limit: int | None, scale: float, size: int,
                         desc: str) -> CropSet:
    """Hard not-a-tile crops: the boxes the shipped detector proposes (at its proposal
    confidence, classifier off) that overlap no labelled tile at IoU 0.4 or more. They are
    what random boxes rarely show: dice, phones, hands, blurred edges, tile bodies."""
    from vision.detector import PROPOSAL_CONF, Detector

    detector = Detector(conf_threshold=PROPOSAL_CONF, classifier_path=None)
    images = []
    for _, rgb, tiles in labelled_scenes(root, split, limit, desc):
        truth = np.array([t["box"] for t in tiles], float)
        for d in detector.detect(rgb):
            if d.is_tile and overlaps(d.box, truth)[0].max() < 0.4:
                images.append(crop_box(rgb, d.box, scale, size))
    return CropSet(np.stack(images), np.full(len(images), CLASS_INDEX[NOT_A_TILE], np.int64))


def not_a_tile_boxes(rng: np.random.Generator, tiles: np.ndarray, width: int, height: int,
                     count: int) -> list[np.ndarray]:
    """Tile-sized boxes that hold no single tile: half of them straddle two neighbours
    (a tile box shifted by a third to two thirds of its size, the detector's typical false
    box in a row), the rest anywhere on the table. None overlaps a tile at IoU 0.4 or more,
    far past the box jitter the tile classes are trained with."""
    found: list[np.ndarray] = []
    for _ in range(count * 6):
        if len(found) == count:
            break
        tile = tiles[rng.integers(len(tiles))]
        w, h = tile[2] - tile[0], tile[3] - tile[1]
        if rng.random() < 0.5:
            shift = rng.uniform(0.33, 0.67) * rng.choice([-1, 1])
            dx, dy = (shift * w, 0.0) if rng.random() < 0.7 else (0.0, shift * h)
            box = tile + np.array([dx, dy, dx, dy])
        else:
            x, y = rng.uniform(0, max(width - w, 1)), rng.uniform(0, max(height - h, 1))
            box = np.array([x, y, x + w, y + h])
        inside = box[0] >= 0 and box[1] >= 0 and box[2] <= width and box[3] <= height
        if inside and overlaps(box, tiles)[0].max() < 0.4:
            found.append(box)
    return found


def real_crops(held_out: bool, scale: float, size: int) -> CropSet:
    """Camerash crops of one split; the whole crop image is the tile box."""
    from mjsynth.art import camerash_crops
    from PIL import Image

    chosen = [c for c in camerash_crops() if c.held_out == held_out]
    images = []
    for c in chosen:
        rgb = np.asarray(Image.open(c.path).convert("RGB"))
        images.append(crop_box(rgb, (0, 0, rgb.shape[1], rgb.shape[0]), scale, size))
    return CropSet(np.stack(images), np.array([CLASS_INDEX[c.code] for c in chosen], np.int64))


def cached(name: str, build) -> CropSet:
    path = CACHE / "cls-crops" / f"{name}.npz"
    if path.is_file():
        data = np.load(path)
        return CropSet(data["images"], data["labels"])
    crops = build()
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez(path, images=crops.images, labels=crops.labels)
    return crops


def stored_scene_crops(name: str, limit: int | None) -> CropSet:
    """The first `limit` training scenes of a synthetic set as cached crops (views of each box
    grown STORE_SCALE times), with not-a-tile boxes."""
    return cached(f"train-{name}-{limit or 'all'}-{STORE_SIZE}px", lambda: scene_crops(
        CACHE / name, "train", limit, STORE_SCALE, STORE_SIZE, f"crops {name}", NEGATIVES_PER_TILE))


def training_crops(scenes_per_set: int, hand_sets: list[str], tables: bool = True) -> CropSet:
    """Synthetic training crops (every scene of the `hand_sets` hand-photo renders and, with
    `tables`, the first `scenes_per_set` of the all-layout sets synth-v3 and synth-v2;
    gnome-smooth is held out of all of them) with not-a-tile boxes, plus the real training
    crops, repeated."""
    sets = dict.fromkeys(hand_sets) | ({"synth-v3": scenes_per_set, "synth-v2": scenes_per_set} if tables else {})
    parts = [stored_scene_crops(name, limit) for name, limit in sets.items()]
    parts += [cached(f"train-{name}-{limit or 'all'}-{STORE_SIZE}px-detector-{detector_tag()}-false",
                     lambda name=name, limit=limit:
                     detector_false_boxes(CACHE / name, "train", limit, STORE_SCALE, STORE_SIZE, f"false boxes {name}"))
              for name, limit in sets.items()]
    real = cached(f"train-camerash-{STORE_SIZE}px", lambda: real_crops(False, STORE_SCALE, STORE_SIZE))
    parts += [real] * REAL_REPEAT
    return CropSet(np.concatenate([p.images for p in parts]), np.concatenate([p.labels for p in parts]))


FLOWER_LABELS = np.array(FLOWER_COLUMNS)  # class indices are output columns


def flowers_only(crops: CropSet) -> CropSet:
    keep = np.isin(crops.labels, FLOWER_LABELS)
    return CropSet(crops.images[keep], crops.labels[keep])


def flower_training_crops(hand_sets: list[str]) -> CropSet:
    """The flower model's data: the flowers of the hand-photo sets (lying flat in a row, seen
    from either side: no sideways ones, unlike the all-layout sets) and the real training
    flower crops, repeated."""
    parts = [flowers_only(stored_scene_crops(name, None)) for name in hand_sets]
    real = flowers_only(cached(f"train-camerash-{STORE_SIZE}px", lambda: real_crops(False, STORE_SCALE, STORE_SIZE)))
    parts += [real] * REAL_REPEAT
    return CropSet(np.concatenate([p.images for p in parts]), np.concatenate([p.labels for p in parts]))


def real_face_hand_flowers(count: int = 80, seed: int = 5555001) -> CropSet:
    """Flowers in hand photos whose faces are the HELD-OUT real crops (bench_photo's semi-real
    set, development seed), cut from the JPEG as vision/classifier.py cuts them."""
    def build() -> CropSet:
        import cv2
        from mjsynth.art import held_out_crop_atlas
        from mjsynth.dataset import hand_photo_jpeg

        atlas, images, labels = held_out_crop_atlas(), [], []
        for index in range(count):
            jpeg, meta = hand_photo_jpeg(atlas, seed, index, 960)
            rgb = cv2.cvtColor(cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB)
            for tile in meta["tiles"]:
                if tile["code"].endswith("f"):
                    images.append(crop_box(rgb, tile["box"], CROP_SCALE, INPUT_SIZE))
                    labels.append(CLASS_INDEX[tile["code"]])
        return CropSet(np.stack(images), np.array(labels, np.int64))

    # v2: hand_photo_jpeg frames hand photos as hands since session 26, so older caches hold other photos
    return cached(f"val-flowers-real-faces-v2-{count}-{seed}-{INPUT_SIZE}px", build)


def evaluation_sets(scenes: int) -> dict[str, CropSet]:
    """Crops exactly as vision/classifier.py cuts them at run time."""
    def synthetic(name: str, root: str, negatives: float = 0.0):
        return cached(f"val-{name}-{scenes}-{INPUT_SIZE}px-{negatives}", lambda: scene_crops(
            CACHE / root, "val", scenes, CROP_SCALE, INPUT_SIZE, f"{name} crops", negatives))

    hand_photos = synthetic("hand-gnome", "synth-hand-gnome", negatives=1.0)
    is_tile = hand_photos.labels != CLASS_INDEX[NOT_A_TILE]
    false_boxes = cached(f"val-hand-gnome-{scenes}-{INPUT_SIZE}px-detector-{detector_tag()}-false", lambda: detector_false_boxes(
        CACHE / "synth-hand-gnome", "val", scenes, CROP_SCALE, INPUT_SIZE, "detector false boxes"))
    return {
        "synthetic val (synth-v3)": synthetic("synth-v3", "synth-v3"),
        "held-out art (gnome-smooth)": synthetic("gnome", "synth-v2-transfer-gnome"),
        "hand photos, held-out art": CropSet(hand_photos.images[is_tile], hand_photos.labels[is_tile]),
        "not-a-tile boxes, hand photos": CropSet(hand_photos.images[~is_tile], hand_photos.labels[~is_tile]),
        "detector's false boxes, hand photos": false_boxes,
        "held-out real (camerash)": cached(f"val-camerash-{INPUT_SIZE}px",
                                           lambda: real_crops(True, CROP_SCALE, INPUT_SIZE)),
    }


def flower_evaluation_sets(scenes: int) -> dict[str, CropSet]:
    """The flowers of the evaluation sets, plus flowers in hand photos with held-out real faces."""
    sets = evaluation_sets(scenes)
    return {
        "flowers in hand photos, held-out real faces": real_face_hand_flowers(),
        "flowers, held-out real crops": flowers_only(sets["held-out real (camerash)"]),
        "flowers in hand photos, held-out art": flowers_only(sets["hand photos, held-out art"]),
        "flowers, synthetic val (synth-v3)": flowers_only(sets["synthetic val (synth-v3)"]),
    }


def among_flowers(probabilities: np.ndarray) -> np.ndarray:
    """Probabilities over the flowers alone (the flower model is asked only which flower)."""
    flowers = np.zeros_like(probabilities)
    flowers[:, FLOWER_LABELS] = probabilities[:, FLOWER_LABELS]
    return flowers / np.maximum(flowers.sum(axis=1, keepdims=True), 1e-12)


# --- model ---------------------------------------------------------------------------------

def build_model():
    """Six conv-BN-ReLU blocks (three stride-2), global pooling, one linear layer:
    ~0.47 M parameters, ~56 M multiply-adds for a 64x64 crop. Input is uint8 NCHW;
    the model scales it itself so the ONNX file carries the normalisation."""
    from torch import nn

    def block(cin, cout, stride):
        return [nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True)]

    class TileNet(nn.Module):
        def __init__(self):
            super().__init__()
            widths = [(3, 24, 2), (24, 48, 1), (48, 64, 2), (64, 96, 1), (96, 160, 2), (160, 160, 1)]
            self.features = nn.Sequential(*[layer for w in widths for layer in block(*w)])
            self.head = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.1),
                                      nn.Linear(160, len(CLASSES)))

        def forward(self, x):
            return self.head(self.features(x.float() / 255.0 - 0.5))

    return TileNet()


def weights_from_onnx(path: Path):
    """The network with the weights of an exported classifier, float or int8 (QDQ, weights
    dequantised): each convolution's folded batch norm becomes an identity batch norm carrying
    the folded bias."""
    import onnx
    import torch
    from onnx import numpy_helper

    graph = onnx.load(str(path)).graph
    stored = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
    values = dict(stored)
    for node in graph.node:
        if node.op_type == "DequantizeLinear" and node.input[0] in stored:
            q, scale = stored[node.input[0]].astype(np.float64), stored[node.input[1]]
            zero = stored[node.input[2]] if len(node.input) > 2 else 0
            if np.ndim(scale):  # per output channel, along `axis` (default 1)
                axis = next((a.i for a in node.attribute if a.name == "axis"), 1)
                shape = [1] * q.ndim
                shape[axis] = -1
                scale, zero = scale.reshape(shape), np.reshape(zero, shape) if np.ndim(zero) else zero
            values[node.output[0]] = ((q - zero) * scale).astype(np.float32)
    convs = [n for n in graph.node if n.op_type == "Conv"]
    linear = next(n for n in graph.node if n.op_type == "Gemm")
    model = build_model()
    layers = [m for m in model.features if isinstance(m, (torch.nn.Conv2d, torch.nn.BatchNorm2d))]
    with torch.no_grad():
        for node, conv, norm in zip(convs, layers[0::2], layers[1::2]):
            conv.weight.copy_(torch.from_numpy(values[node.input[1]]))
            norm.weight.fill_(1.0)
            norm.bias.copy_(torch.from_numpy(values[node.input[2]]))
            norm.running_mean.zero_()
            norm.running_var.fill_(1.0 - norm.eps)
        model.head[3].weight.copy_(torch.from_numpy(values[linear.input[1]]))
        model.head[3].bias.copy_(torch.from_numpy(values[linear.input[2]]))
    return model


def with_softmax(model):
    """The network as exported: softmax probabilities out."""
    from torch import nn

    return nn.Sequential(model, nn.Softmax(dim=1))


# --- augmentation ------------------------------------------------------------------------

def augment(batch, generator, turns: tuple[int, ...] = (0, 1, 2, 3)):
    """Jittered box, quarter turns (any of `turns`) and colour changes for a uint8
    N x H x W x 3 batch; returns N x 3 x INPUT_SIZE x INPUT_SIZE floats in 0..255."""
    import torch
    import torch.nn.functional as F

    x = torch.from_numpy(batch).permute(0, 3, 1, 2).float()
    n = x.shape[0]
    u = lambda *shape: torch.rand(*shape, generator=generator)  # noqa: E731
    scale = CROP_SCALE * (0.88 + 0.32 * u(n))
    aspect = 1 + 0.16 * (u(n) - 0.5)
    sx, sy = scale * aspect, scale / aspect
    dx, dy = 0.16 * (u(n) - 0.5), 0.16 * (u(n) - 0.5)
    theta = torch.zeros(n, 2, 3)
    theta[:, 0, 0], theta[:, 1, 1] = sx / STORE_SCALE, sy / STORE_SCALE
    theta[:, 0, 2], theta[:, 1, 2] = 2 * dx / STORE_SCALE, 2 * dy / STORE_SCALE
    grid = F.affine_grid(theta, (n, 3, INPUT_SIZE, INPUT_SIZE), align_corners=False)
    x = F.grid_sample(x, grid, mode="bilinear", padding_mode="border", align_corners=False)

    turn = torch.tensor(turns)[torch.randint(0, len(turns), (n,), generator=generator)]
    for k in (1, 2, 3):
        sel = turn == k
        x[sel] = torch.rot90(x[sel], k, dims=(2, 3))

    # Colour: white balance, brightness/contrast, some grey, blur and noise.
    x = x * (0.85 + 0.3 * u(n, 3, 1, 1)) * (0.7 + 0.6 * u(n, 1, 1, 1))
    mean = x.mean(dim=(1, 2, 3), keepdim=True)
    x = (x - mean) * (0.7 + 0.6 * u(n, 1, 1, 1)) + mean
    grey = u(n) < 0.1
    x[grey] = x[grey].mean(dim=1, keepdim=True).expand(-1, 3, -1, -1)
    # Sets disagree on which sticks and dots are red: with the inks swapped now and then, a
    # nine whose red column is not the middle one is still a nine, not the six it was read as.
    swapped = torch.nonzero(u(n) < SWAP_INKS).flatten()
    for i in swapped.tolist():
        x[i] = x[i, torch.randperm(3, generator=generator)]
    blur = u(n) < 0.2
    if blur.any():
        x[blur] = F.avg_pool2d(F.pad(x[blur], (1, 1, 1, 1), mode="replicate"), 3, stride=1)
    x = x + torch.randn(x.shape, generator=generator) * (8 * u(n, 1, 1, 1))
    return x.clamp(0, 255)


# --- training / evaluation ---------------------------------------------------------------

def predict(model, images: np.ndarray, batch: int = 512) -> np.ndarray:
    """Softmax probabilities for N x INPUT_SIZE x INPUT_SIZE x 3 uint8 crops."""
    import torch

    model.eval()
    out = []
    with torch.no_grad():
        for i in range(0, len(images), batch):
            x = torch.from_numpy(np.ascontiguousarray(images[i:i + batch].transpose(0, 3, 1, 2)))
            out.append(torch.softmax(model(x), dim=1).numpy())
    return np.concatenate(out) if out else np.zeros((0, len(CLASSES)), np.float32)


@dataclass(frozen=True)
class Score:
    top1: float
    top3: float
    count: int
    worst: tuple[tuple[str, float, int], ...]  # (code, top-1 accuracy, crops) lowest first


def score(probabilities: np.ndarray, labels: np.ndarray) -> Score:
    order = np.argsort(-probabilities, axis=1)
    hit1 = order[:, 0] == labels
    hit3 = (order[:, :3] == labels[:, None]).any(axis=1)
    per_class = [(CLASSES[c], float(hit1[labels == c].mean()), int((labels == c).sum()))
                 for c in np.unique(labels)]
    worst = tuple(sorted(per_class, key=lambda r: (r[1], -r[2]))[:5])
    return Score(float(hit1.mean()), float(hit3.mean()), len(labels), worst)


def format_score(name: str, s: Score) -> str:
    worst = ", ".join(f"{c} {a:.2f} (n={n})" for c, a, n in s.worst)
    return f"{name:<30} top1 {s.top1:.3f}  top3 {s.top3:.3f}  n={s.count}  worst: {worst}"


def train(args) -> int:
    import torch
    from tqdm import tqdm

    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    run = args.run_dir
    run.mkdir(parents=True, exist_ok=True)
    hand_sets = args.hand_sets.split(",")
    if args.kind == "flowers":
        data, evals = flower_training_crops(hand_sets), flower_evaluation_sets(args.eval_scenes)
        turns, view = (0, 2), among_flowers
    else:
        data = training_crops(args.scenes, hand_sets, tables=args.kind == "tiles")
        evals = evaluation_sets(args.eval_scenes)
        turns, view = (0, 2) if args.kind == "upright" else (0, 1, 2, 3), (lambda probabilities: probabilities)
    print(f"training crops: {len(data.labels)} (incl. real x{REAL_REPEAT}); "
          + ", ".join(f"{k}: {len(v.labels)}" for k, v in evals.items()), flush=True)

    # A shipped ONNX file has its batch norms folded into the convolutions: they stay frozen as
    # identities, so fine-tuning starts from exactly the shipped model.
    from_onnx = args.init is not None and args.init.suffix == ".onnx"
    model = weights_from_onnx(args.init) if from_onnx else build_model()
    if args.init is not None:
        if not from_onnx:
            model.load_state_dict(torch.load(args.init, weights_only=False)["model"])
        print(f"weights from {args.init}", flush=True)
    print(f"parameters: {sum(p.numel() for p in model.parameters())}", flush=True)
    steps_per_epoch = args.epoch_samples // args.batch
    optimiser = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=5e-4)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, args.lr, total_steps=steps_per_epoch * args.epochs,
                                                   pct_start=0.15)
    generator = torch.Generator().manual_seed(args.seed)
    start = 0
    checkpoint = run / "last.pt"
    if args.resume and checkpoint.is_file():
        state = torch.load(checkpoint, weights_only=False)
        model.load_state_dict(state["model"])
        optimiser.load_state_dict(state["optimiser"])
        schedule.load_state_dict(state["schedule"])
        generator.set_state(state["generator"])
        start = state["epoch"]
        print(f"resumed after epoch {start}", flush=True)
    loss_fn = torch.nn.CrossEntropyLoss(label_smoothing=0.05)
    labels = torch.from_numpy(data.labels)
    # Flowers are far rarer than suit tiles in the scenes; drawing each crop with weight
    # count(class)^-balance evens that out partly (0: as they come, 1: every class equal).
    counts = torch.bincount(labels, minlength=len(CLASSES)).clamp(min=1).double()
    weights = counts[labels] ** -args.balance

    for epoch in range(start, args.epochs):
        model.train()
        if from_onnx:
            for layer in model.modules():
                if isinstance(layer, torch.nn.BatchNorm2d):
                    layer.eval()
        began, total = time.time(), 0.0
        bar = tqdm(range(steps_per_epoch), desc=f"epoch {epoch + 1}/{args.epochs}", mininterval=10)
        for _ in bar:
            idx = torch.multinomial(weights, args.batch, replacement=True, generator=generator)
            x = augment(data.images[idx.numpy()], generator, turns)
            loss = loss_fn(model(x), labels[idx])
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
            total += loss.item()
            bar.set_postfix(loss=f"{loss.item():.3f}", refresh=False)
        print(f"epoch {epoch + 1}: loss {total / steps_per_epoch:.3f}, {time.time() - began:.0f} s", flush=True)
        for name, crops in evals.items():
            print("  " + format_score(name, score(view(predict(model, crops.images)), crops.labels)), flush=True)
        torch.save({"model": model.state_dict(), "optimiser": optimiser.state_dict(),
                    "schedule": schedule.state_dict(), "generator": generator.get_state(),
                    "epoch": epoch + 1, "args": vars(args) | {"run_dir": str(run)}}, checkpoint)
        export(model, run / "classifier.onnx")
    return 0


def export(model, out: Path) -> None:
    import torch

    model.eval()
    dummy = torch.zeros(1, 3, INPUT_SIZE, INPUT_SIZE, dtype=torch.uint8)
    torch.onnx.export(with_softmax(model), dummy, str(out), input_names=["crops"], output_names=["probabilities"],
                      dynamic_axes={"crops": {0: "n"}, "probabilities": {0: "n"}}, opset_version=17,
                      dynamo=False)


def load_checkpoint(run: Path):
    import torch

    model = build_model()
    model.load_state_dict(torch.load(run / "last.pt", weights_only=False)["model"])
    return model


def quantize(float_model: Path, out: Path, calibration: np.ndarray) -> None:
    """Static int8 quantisation (QDQ, per-channel weights) calibrated on training crops: the
    classifier then reads a scene's ~40 boxes 2.5x faster on CPU at the same accuracy."""
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static
    from onnxruntime.quantization.shape_inference import quant_pre_process

    class Batches(CalibrationDataReader):
        def __init__(self):
            self.batches = iter(np.array_split(calibration, max(len(calibration) // 32, 1)))

        def get_next(self):
            batch = next(self.batches, None)
            return None if batch is None else {"crops": np.ascontiguousarray(batch)}

    with tempfile.TemporaryDirectory() as tmp:
        prepared = Path(tmp) / "prepared.onnx"
        quant_pre_process(str(float_model), str(prepared))
        quantize_static(str(prepared), str(out), Batches(), quant_format=QuantFormat.QDQ, per_channel=True,
                        activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8)


def calibration_crops(hand_set: str, count: int = 512, seed: int = 0) -> np.ndarray:
    """N x 3 x INPUT_SIZE x INPUT_SIZE crops of a hand-photo set's training boxes, cut from the
    cached views as vision/classifier.py cuts them (the box grown CROP_SCALE times)."""
    stored = stored_scene_crops(hand_set, None).images
    chosen = stored[np.random.default_rng(seed).choice(len(stored), min(count, len(stored)), replace=False)]
    side = round(STORE_SIZE * CROP_SCALE / STORE_SCALE)
    start = (STORE_SIZE - side) // 2
    views = chosen[:, start:start + side, start:start + side]
    if side != INPUT_SIZE:
        import cv2

        views = np.stack([cv2.resize(v, (INPUT_SIZE, INPUT_SIZE), interpolation=cv2.INTER_AREA) for v in views])
    return views.transpose(0, 3, 1, 2)


def export_command(args) -> int:
    if args.float:
        export(load_checkpoint(args.run_dir), args.out)
    else:
        with tempfile.TemporaryDirectory() as tmp:
            float_model = Path(tmp) / "classifier-float.onnx"
            export(load_checkpoint(args.run_dir), float_model)
            quantize(float_model, args.out, calibration_crops(args.calibration_set))
    print(f"wrote {args.out} ({args.out.stat().st_size / 1e6:.2f} MB, {'float' if args.float else 'int8'})")
    return 0


def evaluate_command(args) -> int:
    """Scores an exported ONNX file on crops cut exactly as vision/classifier.py cuts them, and
    run as it runs them: a tile model as is, an upright model both ways round; a flower model
    splits the flower share of the shipped upright model's reading (crops known to be flowers)."""
    from vision.classifier import DEFAULT_UPRIGHT_MODEL, TileClassifier

    model = TileClassifier(args.model, None, None)
    if args.kind != "flowers":
        read = model.both_ways if args.kind == "upright" else model.run_batch
        for name, crops in evaluation_sets(args.eval_scenes).items():
            print(format_score(name, score(read(np.ascontiguousarray(crops.images.transpose(0, 3, 1, 2))), crops.labels)))
        return 0
    upright = TileClassifier(DEFAULT_UPRIGHT_MODEL, None, None)
    for name, crops in flower_evaluation_sets(args.eval_scenes).items():
        batch = np.ascontiguousarray(crops.images.transpose(0, 3, 1, 2))
        alone = upright.both_ways(batch)
        print(format_score(f"{name}: upright model", score(among_flowers(alone), crops.labels)))
        print(format_score(f"{name}: + flower model", score(among_flowers(model.which_flower(batch, alone)), crops.labels)))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--run-dir", type=Path, default=CACHE / "cls-runs" / "tilenet")
    common.add_argument("--eval-scenes", type=int, default=150, help="scenes per synthetic evaluation set")
    t = sub.add_parser("train", parents=[common])
    t.add_argument("--epochs", type=int, default=6)
    t.add_argument("--epoch-samples", type=int, default=60000, help="crops drawn per epoch")
    t.add_argument("--batch", type=int, default=256)
    t.add_argument("--lr", type=float, default=4e-3)
    t.add_argument("--scenes", type=int, default=2700, help="training scenes taken from each synthetic set")
    t.add_argument("--hand-sets", default="synth-hand,synth-hand-real",
                   help="hand-photo render sets under the data cache taken whole (comma-separated)")
    t.add_argument("--seed", type=int, default=0)
    t.add_argument("--threads", type=int, default=1)
    t.add_argument("--balance", type=float, default=0.5, help="class-balancing exponent of crop sampling")
    t.add_argument("--resume", action="store_true")
    t.add_argument("--init", type=Path, help="start from these weights (fine-tuning): a run's last.pt, or an exported .onnx "
                        "(a shipped model, float or int8)")
    t.add_argument("--kind", choices=("tiles", "upright", "flowers"), default="tiles",
                   help="tiles: every crop at any quarter turn; upright: the hand sets' crops, turned upright or "
                        "half round only; flowers: the hand sets' flowers, upright or half round")
    e = sub.add_parser("export", parents=[common])
    e.add_argument("--out", type=Path, default=REPO / "models" / "mjlens-tile-classifier.onnx")
    e.add_argument("--calibration-set", default="synth-hand-real",
                   help="hand-photo render set under the data cache whose crops calibrate the int8 ranges")
    e.add_argument("--float", action="store_true", help="keep float weights (no int8 quantisation)")
    v = sub.add_parser("evaluate", parents=[common])
    v.add_argument("--model", type=Path, default=REPO / "models" / "mjlens-tile-classifier.onnx")
    v.add_argument("--kind", choices=("tiles", "upright", "flowers"), default="tiles", help="what --model is")
    args = parser.parse_args(argv)
    try:
        return {"train": train, "export": export_command, "evaluate": evaluate_command}[args.command](args)
    except MissingScenes as exc:
        return fail("train_classifier", "missing_scenes", str(exc))


if __name__ == "__main__":
    raise SystemExit(main())
