"""Tile codes and the integer indices the engine computes with.

A tile is written as a two-character code, the same strings as the detector's class names:

    1m-9m  characters (万)      1p-9p  dots (饼)       1s-9s  bamboo (条)
    1z-7z  East South West North, White 白, Green 發, Red 中
    1f-8f  spring summer autumn winter, plum orchid chrysanthemum bamboo (flowers)

Inside the engine a tile is an index: 0-8 characters, 9-17 dots, 18-26 bamboo, 27-33 honours,
34-41 flowers, so suit and rank are one division away.  Public types keep the string codes.
"""

from __future__ import annotations

from typing import NewType

from .errors import ScoringError, shown

Tile = NewType("Tile", str)

SUITS = "mps"
TILE_CODES: tuple[str, ...] = (
    *(f"{n}{s}" for s in SUITS for n in range(1, 10)),
    *(f"{n}z" for n in range(1, 8)),
    *(f"{n}f" for n in range(1, 9)),
)
INDEX: dict[str, int] = {code: i for i, code in enumerate(TILE_CODES)}
NUMBER_TILES = 27
PLAYING_TILES = 34  # every tile that can stand in a hand (flowers excluded)
WINDS = "ESWN"
WIND_TILES = {w: 27 + i for i, w in enumerate(WINDS)}  # wind letter -> tile index
TERMINALS_AND_HONOURS = (0, 8, 9, 17, 18, 26, *range(27, 34))

# The honour letters of the one-line notation (P = 白 "bai/pai", F = 發, C = 中 "chung").
HONOUR_LETTERS = {"E": 27, "S": 28, "W": 29, "N": 30, "P": 31, "F": 32, "C": 33}


def index(code: str) -> int:
    """Tile index of a code; raises ScoringError(unknown_tile) for anything else."""
    try:
        return INDEX[code]
    except (KeyError, TypeError):
        raise ScoringError(
            "unknown_tile",
            f"unknown tile code {shown(code)}: use 1m-9m, 1p-9p, 1s-9s, 1z-7z (winds, dragons) or 1f-8f (flowers)",
        ) from None


def code(i: int) -> str:
    return TILE_CODES[i]


def honour_by_letter(named: object) -> object:
    """The code of the honour whose notation letter `named` is (E S W N, P F C); else `named`
    as it is, for the caller to check."""
    return TILE_CODES[HONOUR_LETTERS[named]] if isinstance(named, str) and named in HONOUR_LETTERS else named


def is_flower(i: int) -> bool:
    return i >= PLAYING_TILES


def is_honour(i: int) -> bool:
    return NUMBER_TILES <= i < PLAYING_TILES


def is_wind(i: int) -> bool:
    return 27 <= i <= 30


def is_dragon(i: int) -> bool:
    return 31 <= i <= 33


def suit(i: int) -> int:
    """0 characters, 1 dots, 2 bamboo, 3 honours, 4 flowers."""
    return min(i // 9, 3) if i < PLAYING_TILES else 4


def rank(i: int) -> int:
    """1-9 for number tiles, 0 for honours and flowers."""
    return i % 9 + 1 if i < NUMBER_TILES else 0


def is_terminal(i: int) -> bool:
    return i < NUMBER_TILES and i % 9 in (0, 8)


def is_terminal_or_honour(i: int) -> bool:
    return is_honour(i) or is_terminal(i)


def sort_key(c: str) -> int:
    return INDEX[c]
