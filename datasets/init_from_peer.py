"""Build a YOLO11n starting checkpoint for our 45 classes from the `mahjong-detector` ONNX.

The PyPI package `mahjong-detector` (MIT) ships a YOLO11n exported by ultralytics with
batch-norm folded into each convolution; its initialiser names are still ultralytics'
module names. We load them into an ultralytics `DetectionModel`:

1. conv weights as they are; each batch-norm starts as the identity with the folded bias
   as its bias, and `--check` verifies this model reproduces the ONNX outputs;
2. each batch-norm is then re-centred on activation statistics of a few calibration
   images (the layer stays the same function in eval mode, and in train mode its batch
   statistics are close to the stored ones, so fine-tuning does not start by
   re-normalising every layer);
3. the class head grows from the peer's 34 riichi classes to our `CLASS_NAMES`: rows of
   the final class convolutions are copied for the tiles the peer knows, the others keep
   ultralytics' fresh initialisation.

Usage:
    python -m datasets.init_from_peer --out /work/cache/peer-init/yolo11n-peer.pt \
        [--calib-dir DIR_WITH_IMAGES] [--check]

The checkpoint is not committed (the repo stays lean); models/MODEL_CARD.md records the
provenance.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from scoring.cli import fail
from vision.detections import CLASS_NAMES

# The peer's class order (from its ONNX metadata `names`) and our code for each class.
PEER_TO_OURS: dict[str, str] = {
    **{f"{n}{s}": f"{n}{s}" for n in range(1, 10) for s in "mps"},
    "tou": "1z",  # East
    "nan": "2z",  # South
    "sha": "3z",  # West
    "pe": "4z",  # North
    "haku": "5z",  # White
    "hatsu": "6z",  # Green
    "chun": "7z",  # Red
}
PEER_IMGSZ = 640


def peer_onnx_path() -> Path:
    import mahjong_detector

    return Path(mahjong_detector.__file__).parent / "model.onnx"


def peer_class_names(onnx_model) -> list[str]:
    """The peer's class names in index order, read from the ONNX metadata."""
    import ast

    meta = {p.key: p.value for p in onnx_model.metadata_props}
    names = ast.literal_eval(meta["names"])
    return [names[i] for i in range(len(names))]


def load_peer_weights(onnx_model, nc: int):
    """An ultralytics YOLO11n DetectionModel carrying the ONNX weights, BN as identity."""
    import torch
    from onnx import numpy_helper
    from ultralytics.nn.tasks import DetectionModel

    model = DetectionModel("yolo11n.yaml", nc=nc, verbose=False)
    inits = {i.name: numpy_helper.to_array(i) for i in onnx_model.graph.initializer}
    state = model.state_dict()
    used = set()
    for key, tensor in state.items():
        if key.endswith("num_batches_tracked"):
            continue
        if ".bn." in key:
            # folded conv bias lives on the conv's name in the ONNX
            conv_bias = key.rsplit(".bn.", 1)[0] + ".conv.bias"
            field = key.rsplit(".", 1)[1]
            eps = model.get_submodule(key.rsplit(".", 1)[0]).eps
            value = {
                "weight": torch.ones_like(tensor),
                "bias": torch.from_numpy(inits[conv_bias].copy()),
                "running_mean": torch.zeros_like(tensor),
                "running_var": torch.full_like(tensor, 1 - eps),
            }[field]
            used.add(conv_bias)
        else:
            value = torch.from_numpy(inits[key].copy())
            used.add(key)
        if value.shape != tensor.shape:
            raise ValueError(f"{key}: peer shape {tuple(value.shape)} != ours {tuple(tensor.shape)}")
        state[key] = value
    unused = {n for n in inits if n.startswith("model.")} - used
    if unused:
        raise ValueError(f"peer initialisers not loaded: {sorted(unused)[:5]}")
    model.load_state_dict(state)
    return model.eval()


def max_output_difference(model, onnx_path: Path, seed: int = 0) -> tuple[float, float]:
    """Largest absolute differences between our model and the ONNX on random input:
    (box coordinates relative to the image size, class probabilities)."""
    import numpy as np
    import onnxruntime as ort
    import torch

    x = np.random.default_rng(seed).random((1, 3, PEER_IMGSZ, PEER_IMGSZ), dtype=np.float32)
    session = ort.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"])
    theirs = session.run(None, {session.get_inputs()[0].name: x})[0]
    with torch.no_grad():
        ours = model(torch.from_numpy(x))[0].numpy()
    diff = np.abs(theirs - ours)
    return float(diff[:, :4].max() / PEER_IMGSZ), float(diff[:, 4:].max())


def calibration_batch(image_dir: Path, count: int, imgsz: int = PEER_IMGSZ):
    """Up to `count` images from `image_dir`, letterboxed to imgsz, as one float tensor."""
    import cv2
    import numpy as np
    import torch

    paths = sorted(p for p in image_dir.rglob("*") if p.suffix.lower() in {".jpg", ".jpeg", ".png"})
    paths = paths[:: max(1, len(paths) // count)][:count]
    batch = []
    for path in paths:
        img = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if img is None:
            continue
        scale = imgsz / max(img.shape[:2])
        img = cv2.resize(img, (round(img.shape[1] * scale), round(img.shape[0] * scale)))
        canvas = np.full((imgsz, imgsz, 3), 114, np.uint8)
        canvas[: img.shape[0], : img.shape[1]] = img
        batch.append(canvas[:, :, ::-1].transpose(2, 0, 1) / 255.0)
    if not batch:
        raise ValueError(f"no readable images under {image_dir}")
    return torch.tensor(np.stack(batch), dtype=torch.float32)


def recentre_batchnorm(model, images) -> None:
    """Store each BN's input statistics while keeping the layer's function unchanged.

    With identity BN, y = x + b. Setting mean=mu, var=sigma^2-eps, weight=sigma and
    bias=b+mu gives y = sigma*(x-mu)/sigma + b + mu = x + b again, but now the stored
    statistics match what train-mode BN will measure on a batch.
    """
    import torch

    stats: dict[torch.nn.Module, tuple[torch.Tensor, torch.Tensor]] = {}

    def record(module, inputs, _output):
        x = inputs[0]
        stats[module] = (x.mean(dim=(0, 2, 3)), x.var(dim=(0, 2, 3), unbiased=False))

    bns = [m for m in model.modules() if isinstance(m, torch.nn.BatchNorm2d)]
    hooks = [bn.register_forward_hook(record) for bn in bns]
    with torch.no_grad():
        model(images)
    for hook in hooks:
        hook.remove()
    with torch.no_grad():
        for bn in bns:
            mean, var = stats[bn]
            var = var.clamp_min(bn.eps * 10)  # dead channels would otherwise divide by ~0
            sigma = torch.sqrt(var + bn.eps)
            bn.bias.add_(mean)
            bn.weight.copy_(sigma)
            bn.running_mean.copy_(mean)
            bn.running_var.copy_(var)


def extend_class_head(peer_model, peer_names: list[str]):
    """A DetectionModel with our classes; peer rows copied into the class convolutions."""
    import torch
    from ultralytics.nn.tasks import DetectionModel

    ours = DetectionModel("yolo11n.yaml", nc=len(CLASS_NAMES), verbose=False)
    theirs_state = peer_model.state_dict()
    state = ours.state_dict()
    head = ours.model[-1]
    cls_final = {f"model.{len(ours.model) - 1}.cv3.{i}.2" for i in range(head.nl)}
    for key in state:
        prefix = key.rsplit(".", 1)[0]
        if prefix in cls_final:
            for peer_index, peer_name in enumerate(peer_names):
                state[key][CLASS_NAMES.index(PEER_TO_OURS[peer_name])] = theirs_state[key][peer_index]
        else:
            state[key] = theirs_state[key]
    ours.load_state_dict(state)
    ours.names = dict(enumerate(CLASS_NAMES))
    return ours


def save_checkpoint(model, out: Path, provenance: str) -> None:
    """Save in the layout ultralytics' YOLO(path) loads and can train from."""
    import torch

    out.parent.mkdir(parents=True, exist_ok=True)
    model.args = {"imgsz": PEER_IMGSZ}
    torch.save(
        {"model": model.float(), "epoch": -1, "train_args": {}, "date": None, "version": None,
         "provenance": provenance},
        out,
    )


def main(argv: list[str] | None = None) -> int:
    os.environ.setdefault("YOLO_OFFLINE", "1")
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("/work/cache/peer-init/yolo11n-peer.pt"))
    parser.add_argument("--calib-dir", type=Path, help="images for re-centring batch-norm")
    parser.add_argument("--calib-count", type=int, default=16)
    parser.add_argument("--check", action="store_true", help="verify against the ONNX (1e-3)")
    args = parser.parse_args(argv)

    import onnx

    onnx_path = peer_onnx_path()
    onnx_model = onnx.load(str(onnx_path))
    names = peer_class_names(onnx_model)
    unknown = set(names) - PEER_TO_OURS.keys()
    if unknown:
        return fail("init_from_peer", "unmapped_classes", f"peer classes without a code mapping: {sorted(unknown)}", 1)
    peer = load_peer_weights(onnx_model, nc=len(names))
    if args.check:
        box_diff, cls_diff = max_output_difference(peer, onnx_path)
        print(f"max |ours - onnx| with identity BN: boxes {box_diff:.1e} of image size, "
              f"class scores {cls_diff:.1e}")
        if max(box_diff, cls_diff) > 1e-3:
            return fail("init_from_peer", "peer_mismatch", "the loaded model does not reproduce the ONNX outputs", 1)
    if args.calib_dir:
        recentre_batchnorm(peer, calibration_batch(args.calib_dir, args.calib_count))
        if args.check:
            box_diff, cls_diff = max_output_difference(peer, onnx_path)
            print(f"after BN re-centring: boxes {box_diff:.1e}, class scores {cls_diff:.1e}")
    model = extend_class_head(peer, names)
    save_checkpoint(model, args.out, provenance=f"mahjong-detector (MIT) {onnx_path.name}")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
