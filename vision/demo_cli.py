"""`mjlens demo`: the whole photo -> score job on the sample photo shipped in samples/.

The sample is our own render (datasets/ scene generator, CC0 fluffystuff tile art) of a known
winning hand; samples/demo-hand.json holds the win context a photo cannot show (as `mjlens photo` options)
and the true hand.
"""

from __future__ import annotations

import argparse
import json
import shlex
from pathlib import Path

from scoring.cli import fail
from vision.annotate import output_problem
from vision.photo_cli import JSON_INDENT, add_context_arguments, json_error, run_on  # noqa: F401 (vision.cli's)

HELP = "read and score the bundled sample photo, and write the annotated image"
SAMPLES = Path(__file__).resolve().parent.parent / "samples"
SAMPLE_IMAGE = SAMPLES / "demo-hand.jpg"
SAMPLE_FACTS = SAMPLES / "demo-hand.json"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", default="mjlens-demo.png", help="annotated image to write (default %(default)s)")
    parser.add_argument("--json", action="store_true", help="print the full result as JSON")


def _shown_path(path: Path) -> Path:
    """The path as the user can type it here: relative below the working folder, else absolute."""
    return path.relative_to(Path.cwd()) if path.is_relative_to(Path.cwd()) else path


def run(args: argparse.Namespace) -> int:
    facts = json.loads(SAMPLE_FACTS.read_text())
    # The sample's win context is stored as `mjlens photo` options, parsed like a user's.
    parser = argparse.ArgumentParser(prog="mjlens demo")
    add_context_arguments(parser)
    if not args.out:
        return fail("mjlens demo", "bad_output_path", "--out is empty; name the annotated image to write")
    # before the command line is printed as run (with --json, mjlens photo's own check answers in JSON)
    if not args.json and (problem := output_problem(args.out, SAMPLE_IMAGE)):
        return fail("mjlens demo", "bad_output_path", problem)
    # one word for a name such as -x.png, which would read as an option (also in the line printed)
    annotate = [f"--annotate={args.out}"] if args.out.startswith("-") else ["--annotate", args.out]
    argv = facts["photo_args"] + annotate + (["--json"] if args.json else [])
    photo_args = parser.parse_args(argv)
    if not args.json:
        print(f"mjlens photo {shlex.join([str(_shown_path(SAMPLE_IMAGE)), *argv])}\n")  # quoted as a shell takes it
    return run_on(SAMPLE_IMAGE, photo_args, prog="mjlens demo")
