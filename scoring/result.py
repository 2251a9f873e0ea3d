"""The result of scoring one hand, the same shape for every rule set.

JSON form (`Result.to_json()`):

    {"ok": true, "rules": "mcr", "winning": true, "reason": null, "refused_forms": [],
     "fans": [{"key": "full_flush", "zh": "清一色", "en": "Full Flush", "points": 24, "count": 1,
               "tiles": ["1m", ...], "groups": [["1m", "2m", "3m"], ...], "provisional": true?}],
     "breakdown": {...rule-set specific...}, "total": 32, "flowers": 1, "minimum_met": true,
     "payments": {"E": 120, "S": -40, "W": -40, "N": -40}, "sets": [["1m", "2m", "3m"], ...]}

`winning` says whether the tiles form a winning shape; `reason` is null for a scoring win,
"not_winning" when they form none (`winning` false), and "below_minimum" when they do (`winning`
true) but the rule set's minimum (MCR: 8 fan without flowers) is not met.  `minimum_met` is true for
a scoring win only.  A hand below the minimum was still shown as a win (the photo reader and
footage keep it as the hand read, and say why it does not pay), hence `winning` true.
`refused_forms` is empty except on "not_winning": there it names the winning shapes the tiles do
form that this rule set does not accept (e.g. ["seven_pairs"] under Shanghai old-style, which
takes only four sets and a pair), so a reader can tell "no shape at all" from "a shape these rules
refuse"; the names are those of `scoring.decompose.FORM_NAMES`.
`tiles` lists every tile used by the fan's occurrences, `groups` one list per occurrence.
`provisional` appears only on fans whose definition has no primary source.  `payments` holds one
signed amount per seat and sums to zero (all zero when the hand does not score).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import chain
from types import MappingProxyType
from typing import Any, NamedTuple

NOT_WINNING = "not_winning"
BELOW_MINIMUM = "below_minimum"
REASONS = (NOT_WINNING, BELOW_MINIMUM)
NO_PAYMENTS = {"E": 0, "S": 0, "W": 0, "N": 0}


class FanScore(NamedTuple):
    """A fan as it counts in one result: `count` occurrences, each a group of tiles.  Immutable
    like Result; a NamedTuple rather than a frozen dataclass because every scored hand makes
    several, and a frozen dataclass takes some four times as long to build."""

    key: str
    zh: str
    en: str
    points: int
    count: int
    groups: tuple[tuple[str, ...], ...]
    provisional: bool = False

    def to_json(self) -> dict[str, Any]:
        return fan_json(*self)


def fan_json(key: str, zh: str, en: str, points: int, count: int, groups: tuple[tuple[str, ...], ...],
             provisional: bool = False) -> dict[str, Any]:
    """The JSON form of one fan, from FanScore's fields (FanScore.to_json, and rule sets that write
    a result's JSON without building the objects, see RuleSet.evaluate_json)."""
    out: dict[str, Any] = {
        "key": key,
        "zh": zh,
        "en": en,
        "points": points,
        "count": count,
        "tiles": list(chain.from_iterable(groups)),
        "groups": list(map(list, groups)),
    }
    if provisional:
        out["provisional"] = True
    return out


@dataclass(frozen=True)
class Result:
    """One scored hand.  Rule sets cache results, so a Result may be shared by several callers:
    its payments and breakdown are read-only views (a caller's change would have changed every
    later score of the hand); take `to_json()`, a fresh dict, to change things."""

    rules: str
    winning: bool
    reason: str | None
    fans: tuple[FanScore, ...]
    total: int
    flowers: int
    minimum_met: bool
    payments: Mapping[str, int] = field(default_factory=lambda: dict(NO_PAYMENTS))
    breakdown: Mapping[str, Any] = field(default_factory=dict)
    sets: tuple[tuple[str, ...], ...] = ()  # the chosen reading of the hand, one tuple per unit
    refused_forms: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.reason is not None and self.reason not in REASONS:
            raise ValueError(f"unknown reason {self.reason!r}")
        if self.refused_forms and self.reason != NOT_WINNING:
            raise ValueError(f"refused forms {self.refused_forms} on a hand that wins (reason {self.reason!r})")
        if (self.winning, self.minimum_met) != (self.reason != NOT_WINNING, self.reason is None):
            raise ValueError(f"winning={self.winning} and minimum_met={self.minimum_met} "
                             f"contradict reason {self.reason!r}")
        if sum(self.payments.values()) != 0:
            raise ValueError(f"payments do not sum to zero: {self.payments}")
        object.__setattr__(self, "payments", MappingProxyType(dict(self.payments)))
        object.__setattr__(self, "breakdown", MappingProxyType(dict(self.breakdown)))

    def to_json(self, shared: bool = True) -> dict[str, Any]:
        """A fresh dict. The breakdown is copied unless `shared` is false: a Result only the
        caller holds (not one from the rule set's cache) can hand its own over."""
        breakdown = copy.deepcopy(dict(self.breakdown)) if shared else dict(self.breakdown)
        return result_json(self.rules, self.winning, self.reason, [f.to_json() for f in self.fans], self.total,
                           self.flowers, self.minimum_met, self.payments, breakdown, self.sets,
                           self.refused_forms)


def result_json(rules: str, winning: bool, reason: str | None, fans: Sequence[dict[str, Any]], total: int,
                flowers: int, minimum_met: bool, payments: Mapping[str, int], breakdown: dict[str, Any],
                sets: tuple[tuple[str, ...], ...] = (), refused_forms: tuple[str, ...] = ()) -> dict[str, Any]:
    """The JSON form of a result, from Result's fields with the fans already in JSON form (fan_json);
    shared like fan_json."""
    return {
        "ok": True,
        "rules": rules,
        "winning": winning,
        "reason": reason,
        "refused_forms": list(refused_forms),
        "fans": list(fans),
        "breakdown": breakdown,
        "total": total,
        "flowers": flowers,
        "minimum_met": minimum_met,
        "payments": dict(payments),
        "sets": list(map(list, sets)),
    }
