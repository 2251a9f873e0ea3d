"""Command line for the scene generator (`python datasets/synth.py`, `mjlens synth`)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from .art import CACHE_DIR, SOURCES, ArtError, available_sources
from .dataset import LAYOUT_WEIGHTS, SynthConfig, generate

# After this package's modules, which put the repository on sys.path for `python datasets/synth.py`.
from scoring.cli import fail

HELP = "render a synthetic YOLO dataset of mahjong tiles (training-time tool)"
PROG = "mjlens synth"  # `python datasets/synth.py` too: it is the same command
MIN_IMGSZ, MAX_IMGSZ = 64, 4096  # one 4096 px image takes ~2 GB to render; memory grows with its square
MAX_COUNT = 10_000_000  # the jobs are listed up front: a billion would run out of memory (and disk)
MAX_WORKERS = 2 * (os.cpu_count() or 1)  # more only share the cores, each holding its own atlases
MIN_VAL_FRACTION = 1e-6  # fewer validation images than one in a million is none
MAX_SEED = 2**63 - 1  # image names carry the seed: a longer one makes names the file system refuses


def _csv(text: str) -> tuple[str, ...]:
    return tuple(s.strip() for s in text.split(",") if s.strip())


def add_arguments(parser: argparse.ArgumentParser) -> None:
    # "" would be Path("."): the working folder, which would fill with images
    parser.add_argument("--out", type=lambda text: Path(text) if text.strip() else None, required=True,
                        help="output dataset folder")
    parser.add_argument("--count", type=int, required=True, help="number of images")
    parser.add_argument("--seed", type=int, default=0, help="random seed, 0 to 2**63 - 1")
    parser.add_argument("--val-fraction", type=float, default=0.1)
    parser.add_argument("--sources", type=_csv, default=(),
                        help=f"art sources to use (default: all available; {', '.join(SOURCES)}); "
                        "a single source renders only that one, e.g. for the held-out transfer test")
    parser.add_argument("--holdout-source", default=None, type=lambda text: text.strip() or None,
                        help="art source never to use")
    parser.add_argument("--layouts", type=_csv, default=tuple(LAYOUT_WEIGHTS),
                        help="hand,table,closeup (default: all)")
    parser.add_argument("--imgsz", type=int, default=640,
                        help=f"long side of each image, {MIN_IMGSZ} to {MAX_IMGSZ} px")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--cache", type=Path, default=CACHE_DIR, help="art cache folder")
    parser.add_argument("--resume", action="store_true",
                        help="keep the images an earlier run wrote to --out (an interrupted one, or a "
                        "smaller --count) and render the rest; refused unless its seed, imgsz, "
                        "val-fraction, layouts, sources and holdout-source were the same (read from its "
                        "synth.json) and --count is at least the images it holds")


def run(args: argparse.Namespace) -> int:
    bad = [k for k in args.layouts if k not in LAYOUT_WEIGHTS]
    if bad or not args.layouts:
        named = f"unknown layouts {', '.join(bad)}" if bad else "no layout given"
        return fail(PROG, "bad_layout", f"{named}; choose from {', '.join(LAYOUT_WEIGHTS)}")
    if len(set(args.sources)) < len(args.sources):  # each would be drawn once more often, unasked
        return fail(PROG, "bad_argument", f"--sources names a source twice: {', '.join(args.sources)}")
    broken = [need for need, ok in (
        (f"1 <= --count <= {MAX_COUNT:,}", 1 <= args.count <= MAX_COUNT),
        (f"{MIN_IMGSZ} <= --imgsz <= {MAX_IMGSZ}", MIN_IMGSZ <= args.imgsz <= MAX_IMGSZ),
        (f"1 <= --workers <= {MAX_WORKERS} (each loads every atlas, about 0.3 GB)", 1 <= args.workers <= MAX_WORKERS),
        (f"0 <= --seed <= {MAX_SEED}", 0 <= args.seed <= MAX_SEED),
        ("--val-fraction 0, or from 0.000001 to 1 (1: a test set, all validation)",  # nan fails
         args.val_fraction == 0 or MIN_VAL_FRACTION <= args.val_fraction <= 1),
    ) if not ok]
    if broken:  # only the ones broken, so the message says which
        return fail(PROG, "bad_argument", f"need {', '.join(broken)}")
    if args.out is None:
        return fail(PROG, "bad_argument", "--out is empty; name the dataset folder to write")
    available = available_sources(args.cache)
    unfetched = [s for s in SOURCES if s not in available and s != args.holdout_source]
    if not args.sources and unfetched:  # "all available" would quietly be a few of them
        print(f"{PROG}: warning: art source(s) {', '.join(unfetched)} are not available (in --cache {args.cache}, "
              "or ../shared): rendering from the others; `python datasets/fetch_art.py` fetches the Debian ones",
              file=sys.stderr)
    config = SynthConfig(args.out, args.count, args.seed, args.val_fraction, args.sources,
                         args.holdout_source, args.layouts, args.imgsz, args.workers, args.cache,
                         args.resume)
    try:
        summary = generate(config)
    except ArtError as e:
        return fail(PROG, e.code, str(e))
    except KeyboardInterrupt:
        return fail(PROG, "interrupted", f"stopped; the images written so far stay in {args.out}: "
                                         "the same command with --resume continues", 130)
    print(f"{summary['images']} images, {summary['labels']} labels from "
          f"{', '.join(summary['sources'])} -> {args.out}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="synth", description=HELP)
    add_arguments(parser)
    return run(parser.parse_args(argv))
