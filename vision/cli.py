"""The `mjlens` command: one subcommand per module, loaded only when chosen.

Each subcommand module defines `HELP` (one line), `add_arguments(parser)` and
`run(args) -> int` (the exit code). Loading lazily keeps `mjlens score` free of
numpy/cv2/torch start-up cost.
"""

from __future__ import annotations

import argparse
import functools
import importlib
import json
import sys
from collections.abc import Callable
from typing import NoReturn

from scoring.cli import closed_pipe, escape_unencodable_output

# name -> module implementing it; add a line here to add a subcommand.
SUBCOMMANDS: dict[str, str] = {
    "score": "scoring.cli",
    "detect": "vision.detect_cli",
    "train": "vision.train_cli",
    "serve": "vision.serve_cli",
    "footage": "vision.footage_cli",
    "photo": "vision.photo_cli",
    "demo": "vision.demo_cli",
    "synth": "vision.synth_cli",
}


def _load(name: str):
    return importlib.import_module(SUBCOMMANDS[name])


def _json_error(code: str, message: str) -> dict:
    return {"ok": False, "error": {"code": code, "message": message}}


def _json_usage_error(parser: argparse.ArgumentParser, as_json: Callable[[str, str], dict], indent: int | None,
                      message: str) -> NoReturn:
    parser.print_usage(sys.stderr)
    print(json.dumps(as_json("bad_argument", message), ensure_ascii=False, indent=indent))
    sys.exit(2)  # as argparse exits on a usage error


def main(argv: list[str] | None = None) -> int:
    if argv is None:  # the `mjlens` command itself, not a caller's test
        escape_unencodable_output()
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(
        prog="mjlens",
        description="Read mahjong tiles from photos and footage, and score winning hands.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    # Only the chosen subcommand's module is imported (`mjlens score` stays light); the list of
    # commands (`mjlens --help`) imports them all for their one-line HELP (a fraction of a second).
    chosen = next((a for a in argv if not a.startswith("-")), None)
    for name in SUBCOMMANDS:
        if name == chosen:
            module = _load(name)
            sp = sub.add_parser(name, help=module.HELP, description=module.HELP)
            module.add_arguments(sp)
            sp.set_defaults(_run=module.run)
            # --json promises JSON for every outcome, the parsers' refusals included
            if "--json" in argv and "--json" in sp._option_string_actions:
                # in the subcommand's own JSON and layout
                as_json = getattr(module, "json_error", _json_error)
                sp.error = parser.error = functools.partial(_json_usage_error, sp, as_json,
                                                            getattr(module, "JSON_INDENT", None))
        else:
            sub.add_parser(name, help=_load(name).HELP if chosen is None else None)
    args = parser.parse_args(argv)
    if not getattr(args, "_run", None):
        parser.print_help()
        return 2
    try:
        code = int(args._run(args) or 0)
        sys.stdout.flush()  # a closed pipe shows up here rather than at interpreter exit
        return code
    except BrokenPipeError:  # a reader that stops early (`mjlens photo x.jpg | head -3`)
        return closed_pipe()


if __name__ == "__main__":
    sys.exit(main())
