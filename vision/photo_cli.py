"""`mjlens photo IMAGE`: read the winning hand in a photo and score it.

Exit codes: 0 scored; 2 bad input (not an image, corrupt file, bad option, missing model);
3 no tiles found; 4 no winning hand could be read (wrong tile count, five copies, several
players' tiles, a shape that does not win, or a score below the rule set's minimum).
"""

from __future__ import annotations

import argparse
import json
import shlex

from scoring.cli import fail
from scoring.result import NOT_WINNING
from scoring.rules import flowers_text
from scoring.tiles import honour_by_letter
from vision.photo_errors import PhotoError

HELP = "read the winning hand in a photo and score it (exit 0 scored, 2 bad input, 3 no tiles, 4 no winning hand)"
PROG = "mjlens photo"
WINDS = ("E", "S", "W", "N")


def add_context_arguments(parser: argparse.ArgumentParser) -> None:
    """Options for what a photo cannot show; shared with `mjlens demo`."""
    from scoring import available_rulesets
    from scoring.cli import GivenOnce

    parser.add_argument("--rules", default="mcr", choices=available_rulesets(), action=GivenOnce,
                        help="rule set (default mcr)")
    parser.add_argument("--self-drawn", action="store_true", help="won by self-draw (default: on a discard)")
    parser.add_argument("--seat", default="E", choices=WINDS, action=GivenOnce,
                        help="the winner's seat wind (default E)")
    parser.add_argument("--round", default="E", choices=WINDS, action=GivenOnce,
                        help="the round (prevailing) wind (default E)")
    parser.add_argument("--dealer", default="E", choices=WINDS, action=GivenOnce,
                        help="the dealer's seat (default E)")
    parser.add_argument("--discarder", choices=WINDS, action=GivenOnce,
                        help="on a discard win, the seat that discarded the winning tile (default: the seat "
                             "before the winner's)")
    parser.add_argument("--last-tile", action="store_true", help="won on the last tile of the wall")
    parser.add_argument("--kong-replacement", action="store_true", help="won on a kong replacement tile")
    parser.add_argument("--robbing-kong", action="store_true", help="won by robbing a kong")
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                        help="a rule-set option, as for mjlens score, e.g. edition=B (repeatable)")
    parser.add_argument(
        "--winning-tile", metavar="CODE", type=honour_by_letter, action=GivenOnce,
        help="the winning tile (e.g. 5p, or an honour's letter as in the hand notation: E S W N, P F C for "
             "the white, green and red dragons) when it is not set apart in the photo, or not in it at all",
    )
    parser.add_argument(
        "--kong", metavar="CODE", type=honour_by_letter, action="append", default=[],
        help="the tile of a concealed kong laid all face down (repeat for each, left to right in the photo), "
             "or of a kong stacked as three tiles (the fourth on the middle one) that the photo shows as a pung",
    )
    parser.add_argument(
        "--flowers", metavar="CODES", type=_flower_list, action=GivenOnce,
        help="the winner's flowers, e.g. 1f,6f, or none: their small numbers are read least surely, "
             "and flowers kept aside need not be in the photo",
    )
    parser.add_argument("--json", action="store_true", help="print the full result as JSON")
    parser.add_argument("--annotate", metavar="OUT.png", action=GivenOnce,
                        help="write the photo with what was read drawn on it")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("image", help="photo of the winning hand (JPEG, PNG, WebP, HEIC, ...)")
    add_context_arguments(parser)
    parser.epilog = "exit codes: 0 scored, 2 bad input, 3 no tiles found, 4 no winning hand could be read"


def _flower_list(text: str) -> tuple[str, ...]:
    """Codes as typed (checked by the pipeline, which explains a bad one); `none` for no flowers."""
    if text.strip().lower() == "none":
        return ()
    codes = tuple(c.strip() for c in text.split(","))
    if not all(codes):  # "" or "1f,,2f": a slip, not a way to say no flowers
        raise argparse.ArgumentTypeError(f"{text!r} is not flower codes separated by commas, such as 1f,6f "
                                         "(none: no flowers)")
    return codes


JSON_INDENT = 1


def json_error(code: str, message: str) -> dict:
    """The --json object of bad input found before the photo is read (the option parser's)."""
    from vision.pipeline import PhotoResult

    return PhotoResult(error=PhotoError("bad_input", code, message)).to_json()


def options_from_args(args: argparse.Namespace) -> dict | None:
    """The rule-set options given (`--option`), or None for the rule set's defaults."""
    from scoring.cli import parse_options
    from scoring.errors import ScoringError

    try:
        return parse_options(args.option) or None
    except ScoringError as exc:
        raise PhotoError("bad_input", exc.code, exc.message) from None


def context_from_args(args: argparse.Namespace) -> dict:
    return {
        "self_drawn": args.self_drawn,
        "seat_wind": args.seat,
        "round_wind": args.round,
        "dealer": args.dealer,
        "discarder": args.discarder,
        "last_tile": args.last_tile,
        "kong_replacement": args.kong_replacement,
        "robbing_kong": args.robbing_kong,
    }


def run_on(image, args: argparse.Namespace, prog: str = PROG) -> int:
    """Read, annotate and print; returns the exit code."""
    from vision.annotate import output_problem, save_annotated
    from vision.pipeline import PhotoResult, read_photo

    try:
        problem = args.annotate is not None and output_problem(args.annotate, image)
        if problem:
            raise PhotoError("bad_input", "bad_output_path", problem)
        result = read_photo(
            image, rules=args.rules, context=context_from_args(args), winning_tile=args.winning_tile,
            kong_codes=args.kong, flowers=args.flowers, options=options_from_args(args),
        )
        if args.annotate:
            try:
                save_annotated(image, result, args.annotate)
            except (OSError, ValueError) as exc:
                raise PhotoError("bad_input", "write_failed", f"cannot write {args.annotate}: {exc}") from exc
    except PhotoError as exc:
        if args.json:
            print(json.dumps(PhotoResult(error=exc).to_json(), ensure_ascii=False, indent=JSON_INDENT))
            return exc.exit_code
        return fail(prog, exc.code, exc.message, exc.exit_code)
    if args.json:
        print(json.dumps(result.to_json(), ensure_ascii=False, indent=JSON_INDENT))
    else:
        print(format_result(result, args.rules, args.option))
        if args.annotate:
            print(f"annotated image: {args.annotate}")
    return result.exit_code


def run(args: argparse.Namespace) -> int:
    return run_on(args.image, args)


def format_result(result, rules: str, options: list[str] = ()) -> str:
    """The hand as read and its fan table, for people."""
    lines = []
    if result.hand:
        hand = result.hand
        lines.append(f"concealed:    {' '.join(hand['concealed'])}")
        meld_groups = [g for g in result.groups if g.kind in ("chow", "pung", "kong")]  # in the hand's order
        for m, group in zip(hand["melds"], meld_groups):
            lines.append(f"meld:         {' '.join(m['tiles'])}  ({group.label})")
        lines.append(f"winning tile: {hand['winning_tile']}")
        if hand["flowers"]:
            lines.append(f"flowers:      {' '.join(hand['flowers'])}")
        lines.append(f"confidence:   {result.confidence:.2f} ({len(result.tiles)} tiles detected)")
        if result.score_confidence:
            lines.append(f"score sure:   {result.score_confidence:.2f} (that the fans and total are right)")
        command = rescore_command(hand, rules, options)
        if command:
            lines.append(f"re-score:     {command}")
    elif result.tiles:
        lines.append(f"tiles seen:   {' '.join(t.code for t in result.tiles)}")
    score = result.score or {}
    if score.get("ok") and score.get("reason") != NOT_WINNING:
        lines.append("")
        rows = [(f["zh"], f["en"], f"{f['points']}" + (f" x{f['count']}" if f["count"] > 1 else ""))
                for f in score["fans"]]
        width = max((len(en) for _, en, _ in rows), default=0)
        for n, (zh, en, pts) in enumerate(rows, start=1):
            lines.append(f"{n:>3}  {zh}\t{en:<{width}}  {pts:>6}")
        flowers = f" ({flowers_text(rules, score['flowers'], score['breakdown'])})" if score.get("flowers") else ""
        met = "" if score.get("minimum_met", True) else " (below the minimum)"
        lines.append(f"     total {score['total']}{flowers}{met}")
        pay = score.get("payments") or {}
        lines.append("     payments: " + "  ".join(f"{s} {v:+d}" for s, v in pay.items()) + _who_paid(result.hand, pay))
    if result.runner_up:
        lines.append(f"runner-up reading (p={result.runner_up['probability']}): total {result.runner_up['total']}")
    for w in result.warnings:
        lines.append(f"warning: {w}")
    if result.error is not None:
        lines.append(f"not scored: {result.error.message} [{result.error.code}]")
    return "\n".join(lines)


def _who_paid(hand: dict | None, payments: dict) -> str:
    """`  (discard from E)` on a discard win that pays: the payments hang on a seat the photo
    cannot show."""
    if not hand or not any(payments.values()):
        return ""
    if hand.get("self_drawn"):
        return "  (self-drawn)"
    from scoring.jsonio import hand_from_json

    return f"  (discard from {hand_from_json(hand)[1].paying_discarder})"


def rescore_command(hand: dict, rules: str, options: list[str] = ()) -> str | None:
    """The `mjlens score` command line of a hand as read (None if it is no hand the notation can
    write): a person who sees a tile misread fixes its code there and scores the hand again."""
    from scoring.errors import ScoringError
    from scoring.jsonio import hand_from_json
    from scoring.notation import to_notation

    try:
        notation = to_notation(*hand_from_json(hand))
    except ScoringError:
        return None
    return f'mjlens score "{notation}" --rules {rules}' + "".join(f" --option {shlex.quote(o)}" for o in options)
