"""Fans as immutable data, shared by every rule set.

A fan is a `Fan` record: its key, Chinese and English names, points, the fans it excludes (不计),
and one predicate `detect(reading, situation)` that yields a `Hit` for each occurrence, naming the
units (sets, pairs...) or tiles that form it.  That provenance lets a result point back to the
melds, and from there to the boxes in a photo.  The reading is the rule set's own view of one
decomposition (Shanghai reads the `Decomposition` itself, Sihai a `Shape`, MCR a `Reading`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from . import tiles as T
from .decompose import Unit
from .hand import Hand, WinContext


class Hit(NamedTuple):
    """One occurrence of a fan: the decomposition units it uses, plus loose tiles (tile indices)
    when it is formed by tiles rather than units (flowers, the winning tile)."""

    units: tuple[int, ...] = ()
    tiles: tuple[int, ...] = ()

    def codes(self, units: Sequence[Unit]) -> tuple[str, ...]:
        """The tile codes behind this occurrence, in a reading of `units`: its units' tiles, then
        its loose tiles (a result's provenance)."""
        return tuple(c for k in self.units for c in units[k].codes) + tuple(T.code(i) for i in self.tiles)


@dataclass(frozen=True)
class Situation:
    """Everything a predicate may look at besides the decomposition, fixed for one scoring run.

    `facts` holds values a rule set derives once per hand (e.g. MCR's wait count), by name.
    """

    hand: Hand
    context: WinContext
    options: Any
    facts: dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def counts(self) -> tuple[int, ...]:
        """Copies of the 34 playing tiles in the whole hand (Hand.counts)."""
        return self.hand.counts


Detect = Callable[[Any, Situation], Iterable[Hit]]  # (the rule set's reading, its situation)


@dataclass(frozen=True)
class Fan:
    key: str
    zh: str
    en: str
    points: int
    # None for a fan the rule set's scorer settles after the others (MCR's 无番和 and 花牌: see note)
    detect: Detect | None = field(repr=False, compare=False)
    excludes: frozenset[str] = frozenset()  # fans not counted anywhere in the hand (不计)
    # fans not counted on this fan's own units only, e.g. 大三元 absorbs the 箭刻 of its three pungs
    absorbs: frozenset[str] = frozenset()
    # a combination fan linking several sets; MCR picks these so the links form no cycle
    links: bool = False
    category: str = ""  # for rule sets that group fans (Sihai's 类别); empty when unused
    provisional: bool = False  # a definition without a primary source (flagged in results)
    note: str = ""  # our reading of the rule, shown in the docs


def check_fan_table(fans: Iterable[Fan]) -> None:
    """Raise ValueError if keys repeat or an exclusion names a fan that does not exist."""
    fans = list(fans)
    keys = [f.key for f in fans]
    dup = {k for k in keys if keys.count(k) > 1}
    if dup:
        raise ValueError(f"duplicate fan keys: {sorted(dup)}")
    missing = {x for f in fans for x in f.excludes | f.absorbs} - set(keys)
    if missing:
        raise ValueError(f"excluded fans that do not exist: {sorted(missing)}")
