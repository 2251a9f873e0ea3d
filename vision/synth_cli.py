"""`mjlens synth`: the synthetic scene generator, which lives in the source checkout's
datasets/ folder (training-time tooling the wheel does not install)."""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path

HELP = "render a synthetic YOLO dataset of mahjong tiles (source checkout only)"
_DATASETS = Path(__file__).resolve().parents[1] / "datasets"


def _generator():
    """The generator's CLI module, or None outside a source checkout."""
    if not (_DATASETS / "mjsynth" / "cli.py").is_file():
        return None
    if str(_DATASETS) not in sys.path:
        sys.path.append(str(_DATASETS))
    return importlib.import_module("mjsynth.cli")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    generator = _generator()
    if generator is not None:
        generator.add_arguments(parser)
    else:  # accept anything, so run() can say why there is nothing to run
        parser.add_argument("ignored", nargs=argparse.REMAINDER)


def run(args: argparse.Namespace) -> int:
    generator = _generator()
    if generator is None:
        print("error[synth_unavailable]: the scene generator is in the repository's datasets/ "
              "folder; run `mjlens synth` from a source checkout", file=sys.stderr)
        return 2
    return generator.run(args)
