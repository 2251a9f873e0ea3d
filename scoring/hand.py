"""The facts of one win: Hand (the tiles) and WinContext (how and where it was won).

Glossary (used throughout the engine):

- *concealed tiles* (立牌, standing tiles): the tiles in the winner's hand that were never shown,
  without the winning tile.
- *meld* (副露 when exposed): a chow (顺子), pung (刻子) or kong (杠) the player declared. Every meld
  is exposed except a concealed kong (暗杠).
- *set* (面子): a chow, pung or kong, declared or formed from concealed tiles; *pair* (雀头/将): two
  identical tiles.  A regular winning hand is four sets and a pair.
- *winning tile* (和牌张): the 14th tile, self-drawn or another player's discard.

Invariant: `3 * len(melds) + len(concealed) == 13` (a kong counts as three), plus the winning tile.
Constructing a Hand, Meld or WinContext validates it, so an invalid one never exists; the check
between the two (flags against tiles) is `check_consistent`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import repeat

from . import tiles as T
from .errors import ScoringError, shown

MELD_KINDS = ("chow", "pung", "kong")
# A rank of more digits is no slip of the 8-9-10 kind (and int() refuses past 4300 digits)
_NUMBER_CODE = re.compile(r"(\d{1,9})([mps])")


def _playing_tile(code: str, where: str) -> int:
    """Index of a tile that may stand in a hand; flowers are refused with their own code."""
    i = T.index(code)
    if T.is_flower(i):
        raise ScoringError(
            "flower_in_hand", f"flower {code} in {where}: flowers go in the flowers list, never in the hand"
        )
    return i


def _playing_indices(codes: tuple[str, ...], where: str) -> list[int]:
    """Indices of tiles that may stand in a hand.  Valid input costs one dict lookup a tile; any
    problem is then named by _playing_tile."""
    try:
        return [_PLAYING_INDEX[c] for c in codes]
    except (KeyError, TypeError):
        return [_playing_tile(c, where) for c in codes]


_PLAYING_INDEX = {c: i for c, i in T.INDEX.items() if not T.is_flower(i)}


def _listed(value: object, what: str) -> None:
    """Refuse a Python caller's None (or number) where a list belongs, as JSON input is refused."""
    if not isinstance(value, Iterable):
        raise ScoringError("bad_argument", f"{what} must be a list, got {type(value).__name__}")


@lru_cache(maxsize=4096)
def _meld_shape(kind: str, tiles: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """A meld's tiles checked against its kind: (the codes, the indices), sorted.  Cached: melds
    are a few hundred shapes that every hand repeats (an error is raised, never cached)."""
    if kind not in MELD_KINDS:
        raise ScoringError("bad_meld", f"meld kind {kind!r} is not one of {', '.join(MELD_KINDS)}")
    try:
        idx = sorted([_PLAYING_INDEX[c] for c in tiles])
    except (KeyError, TypeError):
        if kind == "chow":
            # An 8-9-10 chow is a rank problem before a tile-code problem.  Only number codes are
            # written into this message as they are; any other bad code goes on to _playing_tile,
            # which escapes it (a lone surrogate in a message would break every output).
            numbers = [_NUMBER_CODE.fullmatch(c) if isinstance(c, str) else None for c in tiles]
            if all(numbers):
                for c, m in zip(tiles, numbers):
                    if not 1 <= int(m.group(1)) <= 9:
                        raise ScoringError("bad_meld", f"chow {'-'.join(tiles)}: ranks run 1-9, there is no {c}")
        idx = sorted(_playing_indices(tiles, f"a {kind}"))  # names the bad tile
    codes = tuple(map(T.TILE_CODES.__getitem__, idx))
    shown = " ".join(codes)
    if kind == "chow":
        if len(idx) != 3:
            raise ScoringError("bad_meld", f"a chow has 3 tiles, got {len(idx)}: {shown}")
        if T.is_honour(idx[0]) or T.is_honour(idx[2]):
            raise ScoringError("bad_meld", f"chow of honours {shown}: only number tiles form chows")
        if T.suit(idx[0]) != T.suit(idx[2]) or idx != [idx[0], idx[0] + 1, idx[0] + 2]:
            raise ScoringError("bad_meld", f"{shown} is not a chow: three consecutive ranks of one suit")
    else:
        size = 3 if kind == "pung" else 4
        if len(idx) != size or len(set(idx)) != 1:
            raise ScoringError("bad_meld", f"a {kind} is {size} identical tiles, got: {shown or 'none'}")
    return codes, tuple(idx)


@dataclass(frozen=True)
class Meld:
    """A declared chow, pung or kong. `claimed` optionally names the tile taken from a discard."""

    kind: str
    tiles: tuple[str, ...]
    concealed: bool = False
    claimed: str | None = None
    first: int = field(init=False, repr=False, compare=False)  # lowest tile index
    indices: tuple[int, ...] = field(init=False, repr=False, compare=False)  # the tiles' indices, sorted

    def __post_init__(self) -> None:
        _listed(self.tiles, "Meld.tiles")
        try:
            codes, idx = _meld_shape(self.kind, self.tiles)
        except TypeError:  # an unhashable kind or tiles value: checked uncached, which names the problem
            codes, idx = _meld_shape.__wrapped__(self.kind, self.tiles)
        object.__setattr__(self, "tiles", codes)
        object.__setattr__(self, "first", idx[0])
        object.__setattr__(self, "indices", idx)
        if not isinstance(self.concealed, bool):  # a truthy "false" would make a concealed kong
            raise ScoringError("bad_json", f"concealed must be true or false, got {shown(self.concealed)}")
        if self.concealed and self.kind != "kong":
            raise ScoringError(
                "bad_meld",
                f"only a kong can be declared concealed; list a concealed {self.kind} among the concealed tiles",
            )
        if self.claimed is not None:
            if self.concealed:
                raise ScoringError("bad_meld", "a concealed kong has no claimed tile")
            if self.claimed not in self.tiles:
                raise ScoringError("bad_meld", f"claimed tile {shown(self.claimed)} is not in the meld {' '.join(codes)}")

    @classmethod
    def from_tiles(cls, codes: tuple[str, ...] | list[str], concealed: bool = False) -> Meld:
        """A meld whose kind follows from its tiles (3 or 4 identical: pung/kong, else chow)."""
        _listed(codes, "a meld's tiles")
        codes = tuple(codes)
        for c in codes:
            if not isinstance(c, str):
                raise ScoringError("unknown_tile", f"a meld's tiles are tile codes such as '5p', got {shown(c)}")
        if len(codes) == 4:
            kind = "kong"
        elif len(codes) == 3 and len(set(codes)) == 1:
            kind = "pung"
        elif len(codes) == 3:
            kind = "chow"
        else:
            raise ScoringError("bad_meld", f"a meld has 3 or 4 tiles, got {len(codes)}: {' '.join(codes)}")
        return cls(kind, codes, concealed)

    @property
    def exposed(self) -> bool:
        return not self.concealed


@dataclass(frozen=True)
class Hand:
    """The winner's tiles. `concealed` excludes the winning tile; it is stored sorted."""

    concealed: tuple[str, ...]
    melds: tuple[Meld, ...]
    winning_tile: str
    flowers: tuple[str, ...] = ()
    # copies of each of the 34 playing tiles standing in the hand (concealed + winning tile), the
    # form the engine computes with, derived once here
    standing: tuple[int, ...] = field(init=False, repr=False, compare=False)
    counts: tuple[int, ...] = field(init=False, repr=False, compare=False)  # the same, melds included

    def __post_init__(self) -> None:
        for name in ("concealed", "melds", "flowers"):
            _listed(getattr(self, name), f"Hand.{name}")
        conc = sorted(_playing_indices(self.concealed, "the concealed tiles"))
        win = _playing_tile(self.winning_tile, "the winning tile")
        if not all(map(isinstance, self.melds, repeat(Meld))):
            raise ScoringError("bad_argument", "Hand.melds holds scoring.Meld objects, got "
                                               + ", ".join(sorted({type(m).__name__ for m in self.melds})))
        flw = sorted(map(T.index, self.flowers))
        if flw and not T.is_flower(flw[0]):  # playing tiles sort before flowers
            raise ScoringError("unknown_tile", f"{T.code(flw[0])} in the flowers list is not a flower (1f-8f)")
        object.__setattr__(self, "concealed", tuple(map(T.TILE_CODES.__getitem__, conc)))
        object.__setattr__(self, "melds", tuple(self.melds))
        object.__setattr__(self, "flowers", tuple(map(T.TILE_CODES.__getitem__, flw)))
        size = 3 * len(self.melds) + len(conc)
        if size != 13:
            raise ScoringError(
                "wrong_tile_count",
                f"{len(conc)} concealed tiles and {len(self.melds)} meld(s) make {size + 1} tiles with "
                f"the winning tile; a hand has 14 (each meld, kong included, counts as 3)",
            )
        counts = [0] * T.PLAYING_TILES
        for i in conc:
            counts[i] += 1
        counts[win] += 1
        object.__setattr__(self, "standing", tuple(counts))
        for m in self.melds:
            for i in m.indices:
                counts[i] += 1
        object.__setattr__(self, "counts", tuple(counts))
        most = max(counts)
        if most > 4:
            raise ScoringError("too_many_copies", f"{most} copies of {T.code(counts.index(most))}: a set has only 4")
        if len(set(flw)) < len(flw):
            twice = next(i for i in flw if flw.count(i) > 1)
            raise ScoringError("too_many_copies",
                               f"flower {T.code(twice)} appears {flw.count(twice)} times: there is one of each")

    @property
    def has_kong(self) -> bool:
        """A kong was declared (standing tiles never form one): the only source of a kong
        replacement tile, so 杠上开花 needs one (Shanghai's 杠头开花 also takes a flower's
        replacement)."""
        return any(m.kind == "kong" for m in self.melds)

    @property
    def is_concealed(self) -> bool:
        """No chow, pung or exposed kong was claimed (门前清); concealed kongs keep a hand concealed."""
        return all(m.concealed for m in self.melds)


@dataclass(frozen=True)
class WinContext:
    """How the hand was won. Winds are E S W N; `discarder` only for wins on a discard.

    `heavenly`/`earthly`/`human` (天和/地和/人和) and `dealer` exist for rule sets that score them;
    MCR ignores them.
    """

    self_drawn: bool = False
    seat_wind: str = "E"
    round_wind: str = "E"
    last_tile: bool = False
    kong_replacement: bool = False
    robbing_kong: bool = False
    last_copy: bool = False
    discarder: str | None = None
    dealer: str = "E"
    heavenly: bool = False
    earthly: bool = False
    human: bool = False

    def __post_init__(self) -> None:
        if not (type(self.seat_wind) is str and type(self.round_wind) is str and type(self.dealer) is str
                and self.seat_wind in _WIND_SET and self.round_wind in _WIND_SET and self.dealer in _WIND_SET):
            for name in ("seat_wind", "round_wind", "dealer"):
                _check_wind(name, getattr(self, name))
        if self.discarder is not None:
            _check_wind("discarder", self.discarder)
        flags = (self.self_drawn, self.last_tile, self.kong_replacement, self.robbing_kong, self.last_copy,
                 self.heavenly, self.earthly, self.human)
        if not all(map(isinstance, flags, repeat(bool))):
            for name in ("self_drawn", "last_tile", "kong_replacement", "robbing_kong", "last_copy",
                         "heavenly", "earthly", "human"):
                if not isinstance(getattr(self, name), bool):
                    raise ScoringError("bad_json", f"{name} must be true or false, got {shown(getattr(self, name))}")
        bad = _flag_contradiction(self)
        if bad:
            raise ScoringError("contradictory_flags", bad)

    @property
    def paying_discarder(self) -> str | None:
        """Who discarded the winning tile: the given seat, else the seat before the winner."""
        if self.self_drawn:
            return None
        if self.discarder is not None:
            return self.discarder
        return T.WINDS[(T.WINDS.index(self.seat_wind) - 1) % 4]


_WIND_SET = frozenset(T.WINDS)  # a quick membership test for valid winds; _check_wind names the problem


def _check_wind(name: str, value: object) -> None:
    if not isinstance(value, str) or value not in T.WINDS or len(value) != 1:
        raise ScoringError("bad_wind", f"{name} must be one of E, S, W, N, got {shown(value)}")


def _flag_contradiction(c: WinContext) -> str | None:
    if c.robbing_kong and c.self_drawn:
        return "robbing a kong is a win on another player's kong tile, so it cannot be self-drawn"
    if c.kong_replacement and not c.self_drawn:
        return "a kong replacement tile is drawn from the wall, so the win must be self-drawn"
    if c.robbing_kong and c.last_tile:
        return "no kong can be declared on the last tile of the wall, so it cannot be robbed"
    if c.discarder is not None and c.self_drawn:
        return "a self-drawn win has no discarder"
    if c.discarder == c.seat_wind:
        return "the winner cannot win on their own discard"
    if c.heavenly + c.earthly + c.human > 1:
        return "heavenly, earthly and human hands exclude each other"
    if c.heavenly and not (c.self_drawn and c.seat_wind == c.dealer):
        return "a heavenly hand is the dealer's self-drawn win on the deal"
    if c.earthly and not (c.self_drawn and c.seat_wind != c.dealer):
        return "an earthly hand is a non-dealer's self-drawn win on the first draw"
    if c.human and (c.self_drawn or c.seat_wind == c.dealer):
        return "a human hand is a non-dealer's win on a discard in the first go-around"
    if (c.heavenly or c.earthly or c.human) and c.last_tile:
        return "heavenly, earthly and human hands are won in the first go-around, not on the last tile of the wall"
    if (c.heavenly or c.earthly) and c.kong_replacement:
        return ("heavenly and earthly hands are won on the tiles dealt or the first draw, not on a kong's "
                "replacement tile")
    return None


def check_consistent(hand: Hand, ctx: WinContext) -> None:
    """Flags that contradict the tiles raise ScoringError(contradictory_flags)."""
    win = hand.winning_tile
    others_held = hand.concealed.count(win)
    if ctx.robbing_kong and (others_held or any(win in m.tiles for m in hand.melds)):
        raise ScoringError(
            "contradictory_flags",
            f"robbing a kong of {win}: the other three copies are in the kong, yet the hand holds another {win}",
        )
    if ctx.last_copy and others_held:
        raise ScoringError(
            "contradictory_flags",
            f"last copy of {win}: three copies must be visible on the table, yet the hand hides another {win}",
        )
    if (ctx.heavenly or ctx.earthly or ctx.human) and hand.melds:
        raise ScoringError("contradictory_flags", "heavenly, earthly and human hands have no melds")
