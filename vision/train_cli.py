"""`mjlens train`: train the tile detector with ultralytics, then ship it to models/.

Built for a small CPU machine: the model comes from a YAML (no download), training is
resumable from the last epoch checkpoint, plots are off and dataloader workers are few.
`--ship-from CHECKPOINT` skips training and exports any checkpoint (also one written by a
run still in progress) to models/, so the best weights so far can always be shipped.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

from scoring.cli import fail
from vision.argtypes import number, whole
from vision.detections import CLASS_NAMES
from vision.detector import DEFAULT_MODEL
from vision.outputs import same_file, write_problem

HELP = "train the tile detector (ultralytics) and export it to models/"
PROG = "mjlens train"

REPO = Path(__file__).resolve().parent.parent
MODEL_YAML = "yolo11n.yaml"  # ships inside ultralytics; nothing is downloaded
MAX_SHIPPED_BYTES = 20 * 1024 * 1024


def add_arguments(parser: argparse.ArgumentParser) -> None:
    # Bad numbers are refused here rather than by ultralytics, after it has loaded.
    parser.add_argument("--data", type=Path, help="YOLO dataset YAML (names = vision.detections.CLASS_NAMES)")
    parser.add_argument("--init", default="scratch",
                        help="'scratch' (random weights from the model YAML) or a .pt checkpoint, "
                             "e.g. one made by `python -m datasets.init_from_peer`")
    parser.add_argument("--epochs", type=whole(1), default=10)
    parser.add_argument("--hours", type=number(0),
                        help="train for this long instead (ultralytics fits the epochs and schedule to it)")
    parser.add_argument("--imgsz", type=whole(32), help="training/export image size (default 640; "
                        "when shipping, the checkpoint's training size)")
    parser.add_argument("--batch", type=_batch, default=8, help="images per batch (-1: ultralytics' AutoBatch)")
    parser.add_argument("--lr0", type=number(0),
                        help="AdamW learning rate (default: ultralytics' automatic choice, "
                             "which is very low for few-epoch fine-tuning)")
    parser.add_argument("--workers", type=whole(0), default=min(2, os.cpu_count() or 1))
    parser.add_argument("--device", default="cpu", help="'cpu' or a CUDA device index such as 0")
    parser.add_argument("--cache", choices=["ram", "disk"],
                        help="keep decoded training images in RAM (or .npy files): a GPU run is "
                             "otherwise bound by JPEG decoding")
    parser.add_argument("--no-val", action="store_true",
                        help="validate only after the last epoch (a short GPU run spends "
                             "much of its time validating otherwise)")
    parser.add_argument("--fraction", type=number(0, 1, high_allowed=True), default=1.0,
                        help="use this fraction of the training images")
    parser.add_argument("--val-images", type=whole(0), default=0,
                        help="validate each epoch on only the first N val images (0 = all)")
    parser.add_argument("--holdout-source", metavar="ART_SOURCE",
                        help="leave out images rendered from this art source (read from the "
                             "generator's meta/<split>/<image>.json), for the transfer test")
    parser.add_argument("--project", type=Path, default=REPO / "runs", help="where runs are written")
    parser.add_argument("--name", default="tiles")
    parser.add_argument("--resume", action="store_true", help="continue the run PROJECT/NAME from its last.pt")
    parser.add_argument("--ship-from", type=Path, help="skip training; export this checkpoint")
    parser.add_argument("--out", type=Path, default=DEFAULT_MODEL, help="ONNX to write (a .pt is written beside it)")
    parser.add_argument("--no-ship", action="store_true", help="train only, do not export to models/")


def _batch(text: str) -> int:
    value = whole(-1)(text)
    if value == 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not -1 (AutoBatch) or a whole number >= 1")
    return value


IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png"}


def _images(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.suffix.lower() in IMAGE_SUFFIXES)


def _dataset_root(data_yaml: Path, spec: dict) -> Path:
    """The folder a dataset YAML's splits are named from: its `path`, taken from the YAML's folder."""
    return data_yaml.parent / (spec.get("path") or ".")


def _split_folders(spec: dict, split: str) -> list:
    """The folders (or listings) a dataset YAML names for `split`: YOLO allows one or a list."""
    return spec[split] if isinstance(spec[split], list) else [spec[split]]


def _holds_an_image(folder: Path) -> bool:
    return any(p.suffix.lower() in IMAGE_SUFFIXES for p in folder.rglob("*"))


def _art_source(image: Path, split: str) -> str | None:
    """The art source the generator recorded for `image`, which lies in <set>/images/<split>/
    beside <set>/meta/<split>/ (None without its meta file)."""
    import json

    meta = image.parents[2] / "meta" / split / f"{image.stem}.json"
    return json.loads(meta.read_text()).get("source") if meta.is_file() else None


def _derived_dataset(data_yaml: Path, run_dir: Path, val_images: int, holdout_source: str | None) -> Path:
    """A copy of the dataset YAML with image lists: the holdout source removed from both
    splits, and val cut to its first `val_images` images (0 keeps all)."""
    import yaml

    spec = yaml.safe_load(data_yaml.read_text())
    # Absolute: the listings name images that ultralytics must find (and their labels beside them)
    # from wherever it runs.
    root = _dataset_root(data_yaml, spec).resolve()
    run_dir.mkdir(parents=True, exist_ok=True)
    held_out = 0
    for split in ("train", "val"):
        folders = _split_folders(spec, split)
        images = [p for folder in folders for p in _images(root / folder)]
        if holdout_source:
            kept = [p for p in images if _art_source(p, split) != holdout_source]
            held_out += len(images) - len(kept)
            images = kept
        if split == "val" and val_images:
            images = images[:val_images]
        if not images:
            raise FileNotFoundError(f"no {split} images left under {', '.join(str(root / f) for f in folders)}")
        listing = run_dir / f"{split}.txt"
        listing.write_text("".join(f"{p}\n" for p in images))
        spec[split] = str(listing)
        print(f"{split}: {len(images)} images")
    if holdout_source and not held_out:  # a misspelt source holds nothing out; a set rendered without it neither
        print(f"{PROG}: warning: --holdout-source {holdout_source}: no image of the dataset was rendered from it; "
              "none held out", file=sys.stderr)
    spec["path"] = str(root)
    derived = run_dir / "data.yaml"
    derived.write_text(yaml.safe_dump(spec, sort_keys=False))
    return derived


def _read_results_csv_without_polars(trainer) -> dict[str, list]:
    import csv

    try:
        with open(trainer.csv, newline="") as handle:
            rows = list(csv.DictReader(handle))
    except OSError:
        return {}
    return {key.strip(): [float(row[key]) for row in rows] for key in (rows[0] if rows else {})}


def _allow_missing_polars() -> None:
    """ultralytics reads results.csv with polars only to copy it into each checkpoint; polars
    (54 MB) is not on the lent GPU machine and too big to carry there, so use the csv module."""
    try:
        import polars  # noqa: F401
    except ImportError:
        from ultralytics.engine.trainer import BaseTrainer

        BaseTrainer.read_results_csv = _read_results_csv_without_polars


def train(args: argparse.Namespace, data: Path | None) -> Path:
    """Run (or resume) training on the dataset YAML `data`; returns the path of the best checkpoint."""
    from ultralytics import YOLO

    _allow_missing_polars()
    run_dir = args.project / args.name
    if args.resume:
        YOLO(str(run_dir / "weights" / "last.pt")).train(resume=True)
        return run_dir / "weights" / "best.pt"
    try:
        model = YOLO(MODEL_YAML) if args.init == "scratch" else YOLO(str(args.init))
    except Exception as exc:  # ultralytics says "not a loadable checkpoint" in a TypeError, among others
        raise _not_a_checkpoint(f"--init {args.init}", exc) from None
    model.train(
        data=str(data),
        epochs=args.epochs,
        time=args.hours,
        imgsz=args.imgsz or 640,
        batch=args.batch,
        workers=args.workers,
        fraction=args.fraction,
        **({"optimizer": "AdamW", "lr0": args.lr0} if args.lr0 else {}),
        device=args.device,
        cache=args.cache or False,
        val=not args.no_val,
        project=str(args.project),
        name=args.name,
        exist_ok=True,
        plots=False,
        # Small runs: short warm-up, no mosaic in the last epoch.
        warmup_epochs=min(3.0, args.epochs / 20),
        close_mosaic=max(1, args.epochs // 10),
        # Mirrored tiles do not exist (characters and winds would read wrongly).
        fliplr=0.0,
        seed=0,
        deterministic=False,  # deterministic CPU kernels are slower and our runs are not bit-compared
        verbose=True,
    )
    return run_dir / "weights" / "best.pt"


def _not_a_checkpoint(what: object, exc: Exception) -> ValueError:
    # ultralytics and torch say so in errors of many types (TypeError, UnpicklingError, ...)
    return ValueError(f"{what} is not an ultralytics checkpoint ({type(exc).__name__})")


def _finished(checkpoint: Path) -> bool:
    """Whether an ultralytics checkpoint is a finished run's: it then keeps no optimizer state."""
    import torch

    try:  # a checkpoint holds pickled model classes; this is the user's own file
        return torch.load(checkpoint, map_location="cpu", weights_only=False).get("optimizer") is None
    except Exception as exc:  # a damaged or foreign file
        raise _not_a_checkpoint(checkpoint, exc) from None


def ship(checkpoint: Path, out_onnx: Path, imgsz: int | None = None) -> tuple[Path, Path]:
    """Export `checkpoint` to ONNX at `out_onnx` and a stripped .pt beside it."""
    from ultralytics import YOLO
    from ultralytics.utils.torch_utils import strip_optimizer

    out_onnx.parent.mkdir(parents=True, exist_ok=True)
    out_pt = out_onnx.with_suffix(".pt")
    with tempfile.TemporaryDirectory() as tmp:
        # Copy first: a running training rewrites its checkpoints every epoch.
        local = Path(tmp) / "model.pt"
        shutil.copy2(checkpoint, local)
        try:
            strip_optimizer(local)  # keeps the EMA weights, drops optimizer state, halves floats
            model = YOLO(str(local))
        except Exception as exc:  # ultralytics says "not a loadable checkpoint" in a TypeError, among others
            raise _not_a_checkpoint(checkpoint, exc) from None
        names = [model.names[i] for i in range(len(model.names))]
        if names != list(CLASS_NAMES):
            raise ValueError(f"{checkpoint} has classes {names[:5]}..., not vision.detections.CLASS_NAMES")
        size = imgsz or int(model.ckpt.get("train_args", {}).get("imgsz", 640))
        # A free input height/width lets vision/detector.py pad a 4:3 or 16:9 photo only to the
        # stride instead of to a square (25-44% less work per photo).
        exported = Path(model.export(format="onnx", imgsz=size, simplify=False, dynamic=True, opset=17))
        for src, dst in ((exported, out_onnx), (local, out_pt)):
            if src.stat().st_size > MAX_SHIPPED_BYTES:
                raise ValueError(f"{src.name} is {src.stat().st_size / 1e6:.1f} MB, over the 20 MB limit")
            shutil.move(str(src), dst)
    return out_onnx, out_pt


def _data_problem(data: Path) -> str | None:
    """Why `data` is not a dataset YAML that ultralytics can read, or None; checked before
    ultralytics loads, which would report it only as a traceback."""
    import yaml

    if not data.is_file():
        return f"--data {data} is not a file"
    try:
        spec = yaml.safe_load(data.read_text())
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return f"--data {data} is not a readable YAML file"
    missing = [key for key in ("train", "val") if not isinstance(spec, dict) or key not in spec]
    if missing:
        return f"--data {data} is not a YOLO dataset YAML: it has no {' or '.join(missing)} key"
    names = spec.get("names")
    if isinstance(names, dict):  # {0: "1m", ...}, as ultralytics also writes it
        names = [names.get(i) for i in range(len(names))]
    if names != list(CLASS_NAMES):  # the detector reads its classes by these names
        return f"--data {data}: its names are not vision.detections.CLASS_NAMES (1m ... 8f, back, meld, kong_concealed)"
    root = _dataset_root(data, spec)
    for split in ("train", "val"):
        folders = _split_folders(spec, split)
        empty = [root / f for f in folders if isinstance(f, str) and (root / f).is_dir()]
        if empty and len(empty) == len(folders) and not any(map(_holds_an_image, empty)):
            return f"--data {data}: its {split} split holds no images ({', '.join(map(str, empty))})"
    return None


def _checkpoint_problem(flag: str, path: Path) -> str | None:
    if not path.is_file():
        return f"{flag} {path} is not a file"
    if path.suffix != ".pt":
        return f"{flag} {path} is not an ultralytics .pt checkpoint"
    try:  # loaded now, not after ultralytics (or a training's first epoch) says so
        _finished(path)
    except ValueError as exc:
        return f"{flag} {exc}"
    return None


def _input_problem(args: argparse.Namespace) -> tuple[str, str] | None:
    """(code, message) for the first argument that would fail only after ultralytics loaded, or
    after hours of training (the output)."""
    if args.ship_from:
        problem = _checkpoint_problem("--ship-from", args.ship_from)
        if problem:
            return "no_checkpoint", problem
    elif args.resume:
        last = args.project / args.name / "weights" / "last.pt"
        if not last.is_file():
            return "no_checkpoint", f"nothing to resume: {last} does not exist"
        try:
            finished = _finished(last)
        except ValueError as exc:
            return "no_checkpoint", f"--resume {exc}"
        if finished:  # ultralytics would start a new training on its sample dataset instead
            return "no_checkpoint", (f"{args.project / args.name} finished its training; to train it further, "
                                     f"start a new run with --init {last}")
    else:
        if not args.data:
            return "no_data", "--data is required unless --resume or --ship-from"
        problem = _data_problem(args.data) or (
            None if args.init == "scratch" else _checkpoint_problem("--init", Path(args.init)))
        if problem:
            return "bad_data", problem
    if not args.ship_from and (problem := _device_problem(args.device)):
        return "bad_device", problem
    if not (args.no_ship and not args.ship_from):
        if args.out.suffix.lower() != ".onnx":
            return "bad_output_path", f"--out {args.out} must end in .onnx (the .pt is written beside it)"
        if args.ship_from and same_file(args.out.with_suffix(".pt"), args.ship_from) and _resumable(args.ship_from):
            return "bad_output_path", (f"--out {args.out} would write its stripped .pt over --ship-from "
                                       f"{args.ship_from}, a run's checkpoint that can still be resumed; name "
                                       "another file")
        problem = write_problem(args.out)
        if problem:
            return "bad_output_path", f"cannot write --out {args.out}: {problem}"
    return None


def _device_problem(device: str) -> str | None:
    """Why ultralytics could not train on `device` here, or None (it would say so only once
    loaded, in several lines)."""
    import re

    name = device.strip().lower()
    if name in ("", "cpu", "mps"):  # mps is Apple's GPU: ultralytics tells whether it is there
        return None
    if not re.fullmatch(r"cuda|(cuda:)?-?\d+(,-?\d+)*", name):
        return f"--device {device}: not a device; name cpu, mps or CUDA devices by index (0, or 0,1)"
    import torch

    if not torch.cuda.is_available():
        return f"--device {device}: this machine has no CUDA device; train with --device cpu"
    return None


def _resumable(checkpoint: Path) -> bool:
    """Whether `checkpoint` is a run's that keeps its optimizer state (False for anything else)."""
    try:
        return not _finished(checkpoint)
    except ValueError:  # no checkpoint at all: shipping it says so
        return False


def _first_line(exc: Exception) -> str:
    """An exception's first line without the terminal colours ultralytics puts in its messages."""
    import re

    return re.sub(r"\x1b\[[0-9;]*m", "", str(exc)).strip().split("\n", 1)[0]


def run(args: argparse.Namespace) -> int:
    os.environ.setdefault("YOLO_OFFLINE", "1")
    # ultralytics puts a relative project under its own runs/detect/, where the checkpoints
    # would not be found again
    args.project = args.project.resolve()
    problem = _input_problem(args)
    if problem:
        return fail(PROG, *problem)
    data = args.data
    if not (args.ship_from or args.resume) and (args.val_images or args.holdout_source):
        try:
            data = _derived_dataset(args.data, args.project / args.name, args.val_images, args.holdout_source)
        except FileNotFoundError as exc:  # a split left with no images
            return fail(PROG, "bad_data", str(exc))
    try:
        if args.ship_from:
            checkpoint = args.ship_from
        else:
            checkpoint = train(args, data)
            if args.no_ship:
                return 0
        if not checkpoint.exists():
            return fail(PROG, "no_checkpoint", f"{checkpoint} does not exist")
        onnx_path, pt_path = ship(checkpoint, args.out, args.imgsz)
    except (FileNotFoundError, ValueError, RuntimeError) as exc:  # ultralytics' own checks, in several lines
        return fail(PROG, "train_failed", _first_line(exc), 1)
    except KeyboardInterrupt:
        return fail(PROG, "interrupted", f"stopped; continue the run with --resume --project {args.project} "
                                         f"--name {args.name}", 130)
    print(f"shipped {onnx_path} ({onnx_path.stat().st_size / 1e6:.1f} MB) and {pt_path}")
    return 0
