"""The view of one arrangement that the Sihai predicates read.

A Sihai fan looks at one arrangement of the winning hand (a `Decomposition` from the shared
search): its form and its units (sets and the pair, the seven pairs, or the single tiles of a
knitted hand), plus the tile counts of the whole hand.  `Shape` adds the rank/suit facts that many
predicates need, computed once per arrangement and remembered in the run's `Situation.facts`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from ... import tiles as T
from ...decompose import FORM_NAMES, SET_KINDS, Decomposition
from ...fans import Situation

# Arrangement forms the Sihai table scores (the shared decomposition's names, plus 筋不靠's).
REGULAR = "regular"  # four sets and a pair
SEVEN_PAIRS = "seven_pairs"
KNITTED = "honours_knitted"  # 全不靠 family: 147/258/369 in three different suits, and honours
SUJI_KNITTED = "suji_knitted"  # 筋不靠: like KNITTED but suits may share a 筋 line
ORPHANS = "thirteen_orphans"
# form -> its name in messages; MCR's 组合龙 with a set and a pair is not among them
SUJI_KNITTED_NAME = "suji knitted tiles 筋不靠"
FORMS = {form: FORM_NAMES[form] for form in (REGULAR, SEVEN_PAIRS, ORPHANS, KNITTED)} | {
    SUJI_KNITTED: f"{SUJI_KNITTED_NAME} (provisional: off with provisional=false)"}


@dataclass(frozen=True)
class Unit:
    """A set, pair or single tile; `first` is its lowest tile index, `index` its place in the
    decomposition (what a fan's provenance names), `tiles` its tile indices."""

    kind: str  # chow, pung, kong, pair, single
    first: int
    index: int
    tiles: tuple[int, ...]

    @property
    def suit(self) -> int:
        """0-2 the number suits, 3 honours."""
        return T.suit(self.first)

    @property
    def rank(self) -> int:
        return T.rank(self.first)

    @property
    def last_rank(self) -> int:
        return self.rank + 2 if self.kind == "chow" else self.rank

    @property
    def is_pung(self) -> bool:
        """Pung or kong: every Sihai pung fan accepts kongs."""
        return self.kind in ("pung", "kong")

    def contains(self, i: int) -> bool:
        return i in self.tiles


class Shape:
    """One arrangement plus the facts of the win."""

    def __init__(self, d: Decomposition, sit: Situation):
        self.form = d.form
        self.units = tuple(Unit(u.kind, u.tile, k, u.tiles) for k, u in enumerate(d.units))
        self.hand = sit.hand
        self.ctx = sit.context
        self.counts = sit.counts

    @classmethod
    def of(cls, d: Decomposition, sit: Situation) -> Shape:
        """The shape of `d`, built once per scoring run."""
        key = ("sihai_shape", d)
        if key not in sit.facts:
            sit.facts[key] = cls(d, sit)
        return sit.facts[key]

    @cached_property
    def sets(self) -> tuple[Unit, ...]:
        return tuple(u for u in self.units if u.kind in SET_KINDS)

    @cached_property
    def chows(self) -> tuple[Unit, ...]:
        return tuple(u for u in self.units if u.kind == "chow")

    @cached_property
    def pungs(self) -> tuple[Unit, ...]:
        return tuple(u for u in self.units if u.is_pung)

    @cached_property
    def pair(self) -> Unit | None:
        """The pair of a regular hand (None for the other forms)."""
        if self.form != REGULAR:
            return None
        return next(u for u in self.units if u.kind == "pair")

    @cached_property
    def present(self) -> tuple[int, ...]:
        """The tile kinds in the hand."""
        return tuple(i for i, n in enumerate(self.counts) if n)

    @cached_property
    def number_suits(self) -> frozenset[int]:
        return frozenset(T.suit(i) for i in self.present if not T.is_honour(i))

    @cached_property
    def has_honours(self) -> bool:
        return any(T.is_honour(i) for i in self.present)
