"""Write a YOLO dataset of synthetic photos: images/{train,val}, labels/{train,val},
meta/{train,val} (per-image ground truth), data.yaml and synth.json.

Every image depends only on (seed, index) and the art, never on the worker that drew
it, so the same arguments give the same bytes.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from .art import CACHE_DIR, SOURCES, ArtError, Atlas, available_sources, load_atlas
from .codes import CLASS_NAMES, KONG_CONCEALED, MELD_EXPOSED

LAYOUT_WEIGHTS = {"hand": 0.45, "table": 0.3, "closeup": 0.25}
# The arguments that decide each image's bytes and split, which --resume needs unchanged; with
# them the sources drawn from (as resolved: "all available" grows as atlases are fetched).
RESUME_ARGUMENTS = ("seed", "imgsz", "val_fraction", "layouts", "holdout_source")
ASPECTS = ((4, 3), (3, 4), (16, 9), (1, 1), (9, 16))
JPEG_QUALITY = 93


class SynthError(ArtError):
    """The output or cache folder cannot take this dataset; coded like ArtError."""


@dataclass(frozen=True)
class SynthConfig:
    out: Path
    count: int
    seed: int = 0
    val_fraction: float = 0.1
    sources: tuple[str, ...] = ()  # empty = every available source
    holdout_source: str | None = None
    layouts: tuple[str, ...] = tuple(LAYOUT_WEIGHTS)
    imgsz: int = 640
    workers: int = 1
    cache: Path = CACHE_DIR
    resume: bool = False  # keep images already written by an interrupted run (same arguments)


def resolve_sources(config: SynthConfig) -> list[str]:
    """The art sources to draw from, or an ArtError saying why there are none."""
    known = available_sources(config.cache)
    wanted = list(config.sources) or known
    unknown = [s for s in [*wanted, config.holdout_source] if s is not None and s not in SOURCES]
    if unknown:
        raise ArtError("unknown_source", f"unknown art source(s): {', '.join(unknown)}; "
                       f"known: {', '.join(SOURCES)}")
    missing = [s for s in wanted if s not in known]
    if missing:
        raise ArtError("source_missing", f"art source(s) not available: {', '.join(missing)} "
                       "(run `python datasets/fetch_art.py`)")
    chosen = [s for s in wanted if s != config.holdout_source]
    if not chosen:
        raise ArtError("no_sources", "no art source left after holding one out")
    return chosen


def is_val(index: int, val_fraction: float) -> bool:
    """Whether image `index` is a validation image: spread evenly, `val_fraction` of the images up
    to any index, image 0 first (every k-th from 0 where the fraction is 1/k)."""
    # The epsilon keeps 10 * 0.1 at 1 whatever floating point makes of it.
    return val_fraction > 0 and math.floor(index * val_fraction + 1e-9) > math.floor((index - 1) * val_fraction + 1e-9)


def image_size(rng: np.random.Generator, imgsz: int, kind: str = "table") -> tuple[int, int]:
    """Width and height; a hand is a long row, so its photos are mostly landscape."""
    if kind == "hand" and rng.random() < 0.8:
        a, b = ASPECTS[rng.choice([0, 2])]
    else:
        a, b = ASPECTS[rng.integers(len(ASPECTS))]
    if a >= b:
        return imgsz, int(round(imgsz * b / a / 2)) * 2
    return int(round(imgsz * a / b / 2)) * 2, imgsz


def hand_photo_jpeg(atlas: Atlas, seed: int, index: int, imgsz: int, roll: float = 0.0,
                    layout: str = "hand") -> tuple[bytes, dict]:
    """Photo `index` of a seeded series of hand photos drawn with `atlas`, as JPEG bytes
    (quality 90, as a phone saves it) with its meta; the photo benchmark and the flower
    model's check read the same photos this way. `roll`: taken with the phone held that many
    degrees askew. `layout`: "hand", or "melds" (a hand of exposed pungs and kongs)."""
    import cv2

    from .scene import make_sample

    rng = np.random.default_rng([seed, index])
    sample = make_sample(rng, atlas, layout, *image_size(rng, imgsz, "hand"), roll=roll)
    ok, jpeg = cv2.imencode(".jpg", cv2.cvtColor(sample.image, cv2.COLOR_RGB2BGR),
                            [cv2.IMWRITE_JPEG_QUALITY, 90])
    return jpeg.tobytes(), sample.meta


def truth_detections(meta: dict) -> list:
    """A photo's labelled boxes as the detector's typed detections, each sure of its code: what
    the grouping reads when the detector is taken out of the measurement."""
    from vision.detections import Detection

    tiles = [Detection(tuple(t["box"]), t["code"], 1.0, ((t["code"], 1.0),)) for t in meta["tiles"]]
    groups = [Detection(tuple(g["box"]), KONG_CONCEALED if g["concealed"] else MELD_EXPOSED, 1.0)
              for g in meta["groups"]]
    return tiles + groups


_ATLASES: dict[str, Atlas] = {}


def _init_worker(sources: list[str], cache: Path, ignore_interrupt: bool = False) -> None:
    if ignore_interrupt:  # a pool's worker: Ctrl-C is the parent's to handle, once
        import signal

        import cv2

        signal.signal(signal.SIGINT, signal.SIG_IGN)
        # The pool already keeps every core busy; OpenCV's own threads per worker (as many as
        # cores) only contend: 120 scenes on 2 workers with 16 threads each took 7-14% longer.
        cv2.setNumThreads(1)
    for s in sources:
        _ATLASES[s] = load_atlas(s, cache)


def render_one(config: SynthConfig, sources: list[str], index: int) -> tuple[str, int]:
    """Render and write image `index`; returns (stem, number of labels)."""
    import cv2

    from .scene import make_sample, yolo_lines

    split = "val" if is_val(index, config.val_fraction) else "train"
    stem = f"{config.seed}_{index:07d}"
    out = config.out
    meta_path = out / "meta" / split / f"{stem}.json"
    label_path = out / "labels" / split / f"{stem}.txt"
    if config.resume and meta_path.is_file():  # the meta file is written last, atomically
        return stem, len(label_path.read_text().splitlines())
    rng = np.random.default_rng([config.seed, index])
    source = sources[rng.integers(len(sources))]
    kinds = list(config.layouts)
    weights = np.array([LAYOUT_WEIGHTS[k] for k in kinds])
    kind = kinds[rng.choice(len(kinds), p=weights / weights.sum())]
    width, height = image_size(rng, config.imgsz, kind)
    sample = make_sample(rng, _ATLASES[source], kind, width, height)
    ok, buf = cv2.imencode(".jpg", cv2.cvtColor(sample.image, cv2.COLOR_RGB2BGR),
                           [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
    (out / "images" / split / f"{stem}.jpg").write_bytes(buf.tobytes())
    lines = yolo_lines(sample)
    label_path.write_text("".join(line + "\n" for line in lines))
    tmp = meta_path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(sample.meta, separators=(",", ":")))
    tmp.replace(meta_path)
    return stem, len(lines)


def _render_star(args):
    return render_one(*args)


def data_yaml() -> str:
    """The dataset YAML; without a `path` key ultralytics resolves the folders next to
    this file, so a dataset can be moved or copied to another machine as it is."""
    names = "\n".join(f"  {i}: '{n}'" for i, n in enumerate(CLASS_NAMES))
    return ("# synthetic mahjong scenes (datasets/synth.py); folders are relative to this file\n"
            f"train: images/train\nval: images/val\nnc: {len(CLASS_NAMES)}\nnames:\n{names}\n")


def _settings(summary: dict) -> dict:
    return {**{k: summary["config"][k] for k in RESUME_ARGUMENTS}, "sources": summary["sources"]}


def _check_resume(config: SynthConfig, summary: dict) -> None:
    """Refuse to add to a folder rendered with other settings: its images would stay beside
    the new ones, and an index could land in both splits."""
    try:
        before = _settings(json.loads((config.out / "synth.json").read_text()))
    except (OSError, ValueError, KeyError, TypeError):
        if _holds_a_dataset(config.out):
            raise SynthError("resume_mismatch", f"--out {config.out} has images but no readable "
                             "synth.json to check the arguments against; render into a new --out") from None
        return  # nothing rendered yet
    now = _settings(summary)
    changed = [f"--{k.replace('_', '-')} {_shown(before[k])} (now {_shown(now[k])})"
               for k in now if before[k] != now[k]]
    if changed:
        raise SynthError("resume_mismatch", f"--out {config.out} was rendered with other arguments: "
                         f"{'; '.join(changed)}; resume with those, or render into a new --out")
    rendered = sum(1 for _ in config.out.glob("meta/*/*.json"))
    if rendered > config.count:  # the images past --count would stay, uncounted
        raise SynthError("resume_mismatch", f"--out {config.out} already holds {rendered} images; --resume "
                         f"extends a dataset, so give --count {rendered} or more")


def _holds_a_dataset(out: Path) -> bool:
    """Whether `out` holds images, labels or a dataset YAML, this generator's or another's."""
    try:
        return (out / "data.yaml").exists() or any(
            f.is_file() for kind in ("images", "labels", "meta") for f in (out / kind).rglob("*"))
    except OSError as e:  # a name too long, a folder not to be entered
        raise SynthError("bad_folder", f"--out {out} cannot be read ({e.strerror})") from None


def _shown(value) -> str:
    return ",".join(value) if isinstance(value, list) else str(value)


def _make_folder(option: str, given: Path, folder: Path) -> None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise SynthError("bad_folder", f"{option} {given} is not a folder that can be written: "
                         f"cannot make {folder} ({e.strerror})") from None


def _write_summary(config: SynthConfig, summary: dict) -> None:
    tmp = config.out / "synth.json.tmp"  # replaced whole, so --resume never reads half of it
    tmp.write_text(json.dumps(summary, indent=1))
    tmp.replace(config.out / "synth.json")


def generate(config: SynthConfig, progress: bool = True) -> dict:
    """Render the whole dataset; returns the summary also written to synth.json. Raises
    ArtError (SynthError for --resume and the folders) before rendering when it cannot."""
    from tqdm import tqdm

    sources = resolve_sources(config)
    # tuples as lists, as JSON reads them back, so this compares equal to an earlier synth.json
    summary = {"config": {k: str(v) if isinstance(v, Path) else list(v) if isinstance(v, tuple) else v
                          for k, v in asdict(config).items() if k not in ("workers", "cache", "resume")},
               "sources": sources}
    if config.resume:
        _check_resume(config, summary)
    elif _holds_a_dataset(config.out):  # its images would stay beside the new ones
        raise SynthError("out_not_empty", f"--out {config.out} already holds a dataset (images, labels or "
                         "data.yaml); continue one rendered here with --resume (same arguments), or render "
                         "into a new folder")
    _make_folder("--cache", config.cache, config.cache)  # first: an empty cache folder is harmless
    for split in ("train", "val"):
        for kind in ("images", "labels", "meta"):
            _make_folder("--out", config.out, config.out / kind / split)
    # Written before the first image, so an interrupted run's settings can be checked on --resume.
    _write_summary(config, summary)
    jobs = [(config, sources, i) for i in range(config.count)]
    bar = dict(total=config.count, desc="rendering", unit="img", disable=not progress)
    labels = 0
    if config.workers > 1:
        import multiprocessing as mp

        with mp.get_context("spawn").Pool(config.workers, _init_worker, (sources, config.cache, True)) as pool:
            for _, n in tqdm(pool.imap_unordered(_render_star, jobs, chunksize=4), **bar):
                labels += n
    else:
        _init_worker(sources, config.cache)
        for _, n in tqdm(map(_render_star, jobs), **bar):
            labels += n
    summary.update(images=config.count, labels=labels,
                   val_images=sum(is_val(i, config.val_fraction) for i in range(config.count)))
    (config.out / "data.yaml").write_text(data_yaml())
    _write_summary(config, summary)
    return summary
