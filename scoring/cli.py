"""`mjlens score` and `python -m scoring`: score a hand written in one-line notation, or a stream of
JSON hands (one per line, one result per line, bad lines give error lines)."""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import unicodedata
from typing import BinaryIO, TextIO

from . import notation, score_json
from .errors import ScoringError
from .hand import WinContext
from .jsonio import loads
from .result import BELOW_MINIMUM, NOT_WINNING, Result
from .rules import available_rulesets, flowers_text, get_ruleset, why_not_scored

HELP = "score a winning hand (one-line notation, or JSON lines with --jsonl)"
PROG = "mjlens score"
# A hand that scores under the default rules (a test holds it to that), shown wherever one is asked for
EXAMPLE = "123m456m789m5p [EEE] +5p | self"
FLAG_NAMES = {"heavenly": "heavenly (天和)", "earthly": "earthly (地和)", "human": "human (人和)"}


class GivenOnce(argparse.Action):
    """Store an option's value; a second, different one is refused, where argparse would keep the
    last unseen (`--flowers 1f --flowers 2f` scored one flower, `--seat S --seat W` seat W)."""

    def __call__(self, parser, namespace, values, option_string=None):
        given = namespace.__dict__.setdefault("_given_once", {})
        if self.dest in given and given[self.dest] != values:
            first, second = (",".join(v) or "none" if isinstance(v, tuple) else v for v in (given[self.dest], values))
            raise argparse.ArgumentError(self, f"given twice, as {first} and {second}: give it once")
        given[self.dest] = values
        setattr(namespace, self.dest, values)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("hand", nargs="?", help=f'one-line notation, e.g. "{EXAMPLE}"')
    parser.add_argument("--rules", default="mcr", choices=available_rulesets(), action=GivenOnce,
                        help="rule set (default mcr)")
    parser.add_argument("--self-drawn", action="store_true", help="the winning tile was self-drawn (as the flag self)")
    parser.add_argument("--seat", choices=list("ESWN"), action=GivenOnce,
                        help="the winner's seat wind (as seat=; the two must agree)")
    parser.add_argument("--round", choices=list("ESWN"), action=GivenOnce,
                        help="the round (prevailing) wind (as round=; the two must agree)")
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


def parse_options(pairs: list[str]) -> dict:
    """`--option KEY=VALUE` arguments as a rule set's options dict (values typed as JSON would)."""
    options = {}
    for pair in pairs:
        key, eq, value = pair.partition("=")
        if not eq or not key:
            raise ScoringError("bad_option", f"--option takes KEY=VALUE, got {pair!r}")
        typed = _option_value(value)
        # By type too: true == 1 and 10 == 10.0 in Python, and the rule set refuses one of them
        if key in options and (type(options[key]), options[key]) != (type(typed), typed):
            raise ScoringError("bad_option", f"--option {key} is given twice, as {options[key]!r} and "
                                             f"{typed!r}: give it once")
        options[key] = typed
    return options


def run_jsonl(source: BinaryIO, sink: TextIO, rules: str, options: dict | None) -> int:
    """One result line per input line, in order; returns how many lines were errors.  Lines are
    read as bytes and decoded one at a time: a text stream would raise at the first line that is
    not UTF-8 and lose the rest of the batch."""
    errors = 0
    for number, line in enumerate(source):
        if number == 0:  # Windows editors start a UTF-8 file with a byte order mark
            line = line.removeprefix(b"\xef\xbb\xbf")
        try:
            out = score_json(loads(_utf8(line)), rules, options)
        except ScoringError as e:
            out = e.to_json()
        errors += not out["ok"]
        sink.write(json.dumps(out, ensure_ascii=False) + "\n")
        sink.flush()
    return errors


def _utf8(line: bytes) -> str:
    try:
        return line.decode("utf-8")  # JSON text is UTF-8 (RFC 8259), whatever the locale
    except UnicodeDecodeError as e:
        raise ScoringError("bad_json", f"not UTF-8 text: byte {line[e.start]:#04x} at byte {e.start + 1} "
                                       "of the line") from None


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
    why = why_not_scored(result.rules, result.reason, result.refused_forms, result.breakdown)
    if result.reason == NOT_WINNING:
        lines.append(why)
        return "\n".join(lines)
    rows = [(f"{f.zh} {f.en}" + (PROVISIONAL_MARK if f.provisional else ""), str(f.points), f"×{f.count}",
             "  ".join(notation.tiles_text(g) for g in f.groups))
            for f in result.fans]
    if rows:  # a header over nothing (a Shanghai hand without fans) reads as if the fans were lost
        widths = [max([_width(r[k]) for r in rows] + [4]) for k in range(3)]
        for row in (("Fan", "Pts", "Cnt", "Tiles"), *rows):
            lines.append("  " + "  ".join(_pad(row[k], widths[k]) if k < 3 else row[k] for k in range(4)))
    if any(f.provisional for f in result.fans):
        lines.append(PROVISIONAL_NOTE)
    flowers = f" ({flowers_text(result.rules, result.flowers, result.breakdown)})" if result.flowers else ""
    lines.append(f"Total: {result.total}{flowers}")
    if rules.summary:
        lines.append(rules.summary(result.breakdown))
    if result.reason == BELOW_MINIMUM:
        lines.append(why)
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
        options = parse_options(args.option)
        get_ruleset(args.rules).make_options(options)  # reject bad options before any hand
        if args.jsonl:
            if args.hand:
                raise ScoringError("bad_argument", "--jsonl reads hands from stdin; give no hand argument")
            given = [o for o, v in (("--seat", args.seat), ("--round", args.round), ("--self-drawn", args.self_drawn)) if v]
            if given:  # each JSON hand carries its own win flags; options applied to none would mislead
                raise ScoringError("bad_argument", f"{', '.join(given)}: --jsonl takes the win flags from "
                                                   "each JSON hand; give them there")
            run_jsonl(sys.stdin.buffer, sys.stdout, args.rules, options)
            return 0
        if not args.hand:
            raise ScoringError("bad_notation", f'give a hand, e.g. {PROG} "{EXAMPLE}" (JSON hands: --jsonl, '
                                               "one per line on standard input)")
        if re.match(r"\s*\{\s*[\"']", args.hand):
            raise ScoringError("bad_notation", f"the hand looks like JSON: JSON hands go on standard input with "
                                               f"--jsonl, one per line (echo '{{...}}' | {PROG} --jsonl)")
        hand, flags = notation.read_notation(args.hand)
        ctx = _context(flags, args)
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
        ruleset = get_ruleset(args.rules)
        for flag in ruleset.unscored_flags:
            if getattr(ctx, flag):
                print(f"Note: {ruleset.plain_title} has no fan for a {FLAG_NAMES[flag]} hand: the {flag} flag "
                      "changes nothing")
        if ctx.kong_replacement and not hand.has_kong and not (ruleset.flowers_replaced_as_kongs and hand.flowers):
            print("Note: the hand shows no kong, so no tile was drawn after one: the kong flag changes nothing")
    return 0


def _context(given: dict, args: argparse.Namespace) -> WinContext:
    """The notation's flags with --self-drawn, --seat and --round added.  An option that says
    otherwise than the notation's flag is refused rather than letting either win silently."""
    changes: dict[str, object] = {"self_drawn": True} if args.self_drawn else {}
    for option, word, field, value in (("--seat", "seat", "seat_wind", args.seat),
                                       ("--round", "round", "round_wind", args.round)):
        if value is None:
            continue
        if given.get(field, value) != value:
            raise ScoringError("contradictory_flags", f"{option} {value} contradicts {word}={given[field]} in the "
                                                      f"hand; give the wind once, or the same in both")
        changes[field] = value
    try:
        return WinContext(**{**given, **changes})  # together: --self-drawn makes `| kong` consistent
    except ScoringError as e:
        if not changes or e.message == _clash(given):  # the notation's own clash, the options aside
            raise
        used = " ".join(["--self-drawn"] * args.self_drawn + [f"--{o} {getattr(args, o)}" for o in ("seat", "round")
                                                               if getattr(args, o)])
        raise ScoringError(e.code, f"{used}: {e.message}") from None


def _clash(flags: dict) -> str | None:
    try:
        WinContext(**flags)
    except ScoringError as e:
        return e.message
    return None


def escape_unencodable_output() -> None:
    """Write a character the console cannot encode (a fan's Chinese name under cp1252) as an
    escape rather than end the command with a traceback; stderr escapes already.  Called where a
    process starts, never on a caller's streams."""
    if sys.stdout is not None:  # none at all under pythonw, or with the descriptor closed
        sys.stdout.reconfigure(errors="backslashreplace")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m scoring", description=HELP)
    add_arguments(parser)
    return run(parser.parse_args(argv))
