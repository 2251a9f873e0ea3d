"""`mjlens score` and `python -m scoring`: score a hand written in one-line notation, or a stream of
JSON hands (one per line, one result per line, bad lines give error lines)."""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import unicodedata
from typing import TextIO

from . import notation, score_json
from .errors import ScoringError
from .jsonio import loads
from .result import Result
from .rules import available_rulesets, get_ruleset

HELP = "score a winning hand (one-line notation, or JSON lines with --jsonl)"
PROG = "mjlens score"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("hand", nargs="?", help='one-line notation, e.g. "333444555m345s5p +5p | self"')
    parser.add_argument("--rules", default="mcr", choices=available_rulesets(), help="rule set (default mcr)")
    parser.add_argument("--self-drawn", action="store_true", help="the winning tile was self-drawn")
    parser.add_argument("--seat", choices=list("ESWN"), help="the winner's seat wind")
    parser.add_argument("--round", choices=list("ESWN"), help="the round (prevalent) wind")
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                        help="a rule-set option, e.g. kong_1998=true (repeatable)")
    out = parser.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="print the JSON result instead of a table")
    out.add_argument("--jsonl", action="store_true",
                     help="read JSON hands from stdin, one per line; write one JSON result per line")


def _option_value(text: str) -> object:
    lowered = text.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return text


def _options(pairs: list[str]) -> dict:
    options = {}
    for pair in pairs:
        key, eq, value = pair.partition("=")
        if not eq or not key:
            raise ScoringError("bad_option", f"--option takes KEY=VALUE, got {pair!r}")
        options[key] = _option_value(value)
    return options


def run_jsonl(source: TextIO, sink: TextIO, rules: str, options: dict | None) -> int:
    """One result line per input line, in order; returns how many lines were errors."""
    errors = 0
    for line in source:
        try:
            out = score_json(loads(line), rules, options)
        except ScoringError as e:
            out = e.to_json()
        errors += not out["ok"]
        sink.write(json.dumps(out, ensure_ascii=False) + "\n")
        sink.flush()
    return errors


def _width(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _pad(text: str, width: int) -> str:
    return text + " " * max(0, width - _width(text))


# A total that rests on a fan no primary source defines must say so (the JSON's "provisional": true)
PROVISIONAL_MARK = " *"
PROVISIONAL_NOTE = "  * provisional: no primary source defines this fan; scored by our own definition"


def format_table(result: Result, hand_text: str) -> str:
    rules = get_ruleset(result.rules)
    lines = [f"{hand_text}   [{rules.title}]"]
    if result.reason == "not_winning":
        lines.append("Not a winning hand: the tiles form no complete shape.")
        return "\n".join(lines)
    rows = [(f"{f.zh} {f.en}" + (PROVISIONAL_MARK if f.provisional else ""), str(f.points), f"×{f.count}",
             "  ".join(notation.tiles_text(g) for g in f.groups))
            for f in result.fans]
    widths = [max([_width(r[k]) for r in rows] + [4]) for k in range(3)]
    header = ("Fan", "Pts", "Cnt", "Tiles")
    for row in (header, *rows):
        lines.append("  " + "  ".join(_pad(row[k], widths[k]) if k < 3 else row[k] for k in range(4)))
    if any(f.provisional for f in result.fans):
        lines.append(PROVISIONAL_NOTE)
    lines.append(f"Total: {result.total}" + (f" (flowers {result.flowers})" if result.flowers else ""))
    if rules.summary:
        lines.append(rules.summary(result))
    if result.reason == "below_minimum":
        lines.append("Below the minimum: the hand does not score.")
    lines.append("Payments: " + "  ".join(f"{seat} {amount:+d}" for seat, amount in result.payments.items()))
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    """Run the command; a reader that stops early (`... | head -1`) ends it quietly."""
    try:
        code = _run(args)
        sys.stdout.flush()  # a closed pipe shows up here rather than at interpreter exit
        return code
    except BrokenPipeError:
        return closed_pipe()


def closed_pipe() -> int:
    """Stop writing to a pipe whose reader has gone.  Python flushes stdout once more at exit and
    would print a second BrokenPipeError, so stdout is pointed at the null device first."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # stdout is not a real file (captured in tests): nothing to flush
        pass
    return CLOSED_PIPE


# 128 + SIGPIPE: the status a shell reports for a writer that a closed pipe stopped
CLOSED_PIPE = 141


def fail(prog: str, code: str, message: str, status: int = 2) -> int:
    """Report a command's error on stderr as every command does, `<prog>: <message> [<code>]`,
    and return its exit status. Here, not in vision, because scoring imports no other package and
    every command (the scene generator too) can import it."""
    print(f"{prog}: {message} [{code}]", file=sys.stderr)
    return status


def _run(args: argparse.Namespace) -> int:
    try:
        options = _options(args.option)
        get_ruleset(args.rules).make_options(options)  # reject bad options before any hand
        if args.jsonl:
            if args.hand:
                raise ScoringError("bad_notation", "--jsonl reads hands from stdin; give no hand argument")
            run_jsonl(sys.stdin, sys.stdout, args.rules, options)
            return 0
        if not args.hand:
            raise ScoringError("bad_notation", 'give a hand, e.g. mjlens score "123m456p789s11z [555z] +9s"')
        hand, ctx = notation.parse_notation(args.hand)
        changes = {"self_drawn": True} if args.self_drawn else {}
        if args.seat:
            changes["seat_wind"] = args.seat
        if args.round:
            changes["round_wind"] = args.round
        ctx = dataclasses.replace(ctx, **changes)
        result = get_ruleset(args.rules).score(hand, ctx, options)
    except ScoringError as e:
        if args.json:
            print(json.dumps(e.to_json(), ensure_ascii=False))
            return 2
        return fail(PROG, e.code, e.message)
    if args.json:
        print(json.dumps(result.to_json(), ensure_ascii=False))
    else:
        print(format_table(result, notation.to_notation(hand, ctx)))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m scoring", description=HELP)
    add_arguments(parser)
    return run(parser.parse_args(argv))
