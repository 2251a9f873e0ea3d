"""One-line hand notation, used by the CLI, tests and logs.

Example: ``123m 456p 78s [555z] {9999m} +9s 15f | self seat=S round=E``

Grammar (spaces between items are ignored; letters are case-sensitive)::

    hand   := item+ [ "|" flag* ]
    item   := group               concealed tiles (without the winning tile)
            | "[" group "]"       an exposed meld: chow, pung or kong (the kind follows from the tiles)
            | "{" group "}"       a concealed kong
            | "+" tile            the winning tile (exactly one)
    group  := ( digit+ suit | honour+ )+
    suit   := "m" | "p" | "s" | "z" | "f"
              digits share the suit after them, riichi style: 123m = 1m 2m 3m; 1z-7z are
              East South West North White Green Red; 1f-8f are flowers (spring summer autumn winter
              plum orchid chrysanthemum bamboo) and go to the flowers list wherever they stand
              outside brackets.
    honour := "E" | "S" | "W" | "N" | "P" | "F" | "C"
              the same honours as letters: winds, then P = White 白, F = Green 發, C = Red 中
    flag   := "self"        self-drawn (自摸)            "last"      last tile of the wall
            | "kong"        won on a kong replacement    "rob"       robbing a kong (抢杠)
            | "lastcopy"    last copy of the tile (和绝张)
            | "heavenly" | "earthly" | "human"         天和 / 地和 / 人和 (rule sets that score them)
            | "seat=" wind  | "round=" wind | "dealer=" wind
            | "from=" wind  the discarder (discard wins only)           wind := E | S | W | N

Flags are separated by spaces or commas.  Defaults: won on a discard, seat East, round East,
dealer East.  The notation does not record which tile of a meld was claimed.
``to_notation`` writes the canonical form (tiles sorted, honours as ``z`` digits, default flags
left out); ``parse_notation(to_notation(h, c)) == (h, c)``.
"""

from __future__ import annotations

import re

from . import tiles as T
from .errors import ScoringError, shown
from .hand import Hand, Meld, WinContext

_BOOL_FLAGS = {
    "self": "self_drawn", "last": "last_tile", "kong": "kong_replacement", "rob": "robbing_kong",
    "lastcopy": "last_copy", "heavenly": "heavenly", "earthly": "earthly", "human": "human",
}
_WIND_FLAGS = {"seat": "seat_wind", "round": "round_wind", "dealer": "dealer", "from": "discarder"}
_TOKEN = re.compile(
    r"\s*(?:(?P<win>\+\s*(?:\d[a-z]|[A-Z]))|(?P<group>(?:\d+[a-z]|[A-Z])+)|(?P<open>[\[{])|(?P<close>[\]}]))"
)
_GROUP_PART = re.compile(r"(\d+)([a-z])|([A-Z])")
_WORD = re.compile(r"[a-z]+")
_DIGITS = re.compile(r"\+?\s*\d+")


def _bad(text: str, pos: int, why: str, hint: str = "") -> ScoringError:
    return ScoringError("bad_notation", f"{why} at position {pos + 1} of {shown(text)}{hint}")


def _hint(text: str, body: str, pos: int) -> str:
    """What an unexpected character most likely means, for the two slips first-time users make:
    a flag before the "|", and a lowercase honour letter."""
    word = _WORD.match(body, pos)
    if word and (word.group() in _BOOL_FLAGS or word.group() in _WIND_FLAGS):
        rest = body[pos:].strip()
        if len(body) == len(text):  # no "|" yet: if only flags follow, show the line with one
            try:
                _flags(rest)
                return f"; flags go after \" | \": {shown(body[:pos].rstrip() + ' | ' + rest)}"
            except ScoringError:
                pass
        return "; flags go after \" | \" at the end, e.g. '... +5p | self seat=S'"
    if body[pos].upper() in T.HONOUR_LETTERS:
        return "; honour letters are uppercase E S W N P F C (or digits with z: 1z-7z)"
    return ""


def _group_codes(group: str) -> list[str]:
    codes: list[str] = []
    for digits, suit, letter in _GROUP_PART.findall(group):
        if letter:
            if letter not in T.HONOUR_LETTERS:
                raise ScoringError("unknown_tile", f"unknown honour letter {letter!r}: use E S W N P F C")
            codes.append(T.code(T.HONOUR_LETTERS[letter]))
        else:
            codes.extend(f"{d}{suit}" for d in digits)
    return codes


def parse_notation(text: str) -> tuple[Hand, WinContext]:
    """Read one-line notation into (Hand, WinContext); raises ScoringError on any problem."""
    hand, flags = read_notation(text)
    return hand, WinContext(**flags)


def read_notation(text: str) -> tuple[Hand, dict]:
    """The hand and the WinContext fields its flags set, not yet checked together: a caller with
    facts of its own (the CLI's --self-drawn) adds them before the context is built, since a flag
    such as `kong` is consistent only with them."""
    if not isinstance(text, str):
        raise ScoringError("bad_notation", "notation must be a string")
    body, _, flag_text = text.partition("|")
    concealed: list[str] = []
    flowers: list[str] = []
    melds: list[Meld] = []
    winning: list[str] = []
    pos = 0
    # where the trailing spaces begin: a test on body[pos:] would copy the rest at every token
    end = len(body.rstrip())
    open_bracket: str | None = None
    meld_codes: list[str] = []
    while pos < end:
        m = _TOKEN.match(body, pos)
        if not m:
            at = pos + len(body[pos:]) - len(body[pos:].lstrip())
            digits = _DIGITS.match(body, at)
            # the slip is after the digits, where a lowercase suit letter belongs (a lowercase
            # letter there is some other slip, such as two digits after "+")
            if digits and not body[digits.end():digits.end() + 1].islower():
                after = digits.end()
                found = f", not {body[after]!r}," if after < len(body) else ""
                raise _bad(text, after, f"digits need a lowercase suit letter (m p s z f) after them{found}")
            raise _bad(text, at, "unexpected character", _hint(text, body, at))
        start = m.start(m.lastgroup)
        if m.group("win"):
            if open_bracket:
                raise _bad(text, start, "the winning tile cannot be inside a meld")
            winning.extend(_group_codes(m.group("win")[1:].strip()))
        elif m.group("group"):
            codes = _group_codes(m.group("group"))
            if open_bracket:
                meld_codes.extend(codes)
            else:
                for c in codes:
                    (flowers if c.endswith("f") else concealed).append(c)
        elif m.group("open"):
            if open_bracket:
                raise _bad(text, start, "brackets do not nest")
            open_bracket = m.group("open")
            meld_codes = []
        else:
            if open_bracket is None or {"[": "]", "{": "}"}[open_bracket] != m.group("close"):
                raise _bad(text, start, "unmatched bracket")
            melds.append(Meld.from_tiles(meld_codes, concealed=open_bracket == "{"))  # Meld refuses a concealed non-kong
            open_bracket = None
        pos = m.end()
    if open_bracket:
        raise ScoringError("bad_notation", f"unclosed meld bracket in {shown(text)}")
    if len(winning) != 1:
        raise ScoringError(
            "bad_notation", f"mark exactly one winning tile with '+' (e.g. +5p); found {len(winning)} in {shown(text)}"
        )
    flags = _flags(flag_text)  # a misspelt flag is told before what it may have made of the tiles
    return Hand(tuple(concealed), tuple(melds), winning[0], tuple(flowers)), flags


def _flags(text: str) -> dict:
    args: dict = {}
    for word in re.split(r"[\s,]+", text.strip()):
        if not word:
            continue
        key, eq, value = word.partition("=")
        if not eq and key in _BOOL_FLAGS:
            args[_BOOL_FLAGS[key]] = True
        elif eq and key in _WIND_FLAGS:
            if args.get(_WIND_FLAGS[key], value) != value:  # which one meant? neither silently
                raise ScoringError("contradictory_flags", f"{key}= is given twice, as {args[_WIND_FLAGS[key]]} "
                                                          f"and {value}")
            args[_WIND_FLAGS[key]] = value
        else:
            known = ", ".join([*_BOOL_FLAGS, *(f"{k}=E|S|W|N" for k in _WIND_FLAGS)])
            raise ScoringError("bad_notation", f"unknown flag {shown(word)}; flags are: {known}")
    return args


def tiles_text(codes: tuple[str, ...] | list[str]) -> str:
    """Sorted codes grouped riichi style: 1m 2m 3m 5p -> 123m5p."""
    out = []
    for c in sorted(codes, key=T.sort_key):
        if out and out[-1][-1] == c[1]:
            out[-1] = out[-1][:-1] + c
        else:
            out.append(c)
    return "".join(out)


def to_notation(hand: Hand, ctx: WinContext | None = None) -> str:
    parts = [tiles_text(hand.concealed)]
    for m in hand.melds:
        inner = tiles_text(m.tiles)
        parts.append(f"{{{inner}}}" if m.concealed else f"[{inner}]")
    parts.append(f"+{hand.winning_tile}")
    if hand.flowers:
        parts.append(tiles_text(hand.flowers))
    flags = []
    ctx = ctx or WinContext()
    default = WinContext()
    for word, attr in _BOOL_FLAGS.items():
        if getattr(ctx, attr):
            flags.append(word)
    for word, attr in _WIND_FLAGS.items():
        if getattr(ctx, attr) != getattr(default, attr):
            flags.append(f"{word}={getattr(ctx, attr)}")
    text = " ".join(p for p in parts if p)
    return f"{text} | {' '.join(flags)}" if flags else text
