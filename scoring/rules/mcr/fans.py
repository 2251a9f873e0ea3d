"""The 81 MCR fans, plus 明暗杠 and 花牌, each defined once beside its predicate.

Names and points follow seed 001 (番种介绍) and the 不计 notes of seed 003 (1998 rules, 国家体育总局).
Every predicate has the signature `detect(reading, situation) -> hits`, where the reading is the
decomposition with its chows and pungs listed once (`Reading`); a hit names the units (sets, pair,
knitted triples) that form the fan.

How fans combine (see scorer.py):
- `excludes` are not counted anywhere in the hand when this fan counts (不重复); `absorbs` are not
  counted on this fan's own units (大三元 cancels the 箭刻 of its own pungs only).
- `links=True` marks combination fans between sets; among them the scorer keeps the highest-scoring
  choice whose links form no cycle, which is 不拆移, 不相同 and 套算一次 in one rule.
- An exclusion comes only from a fan that is itself counted (fans are settled from the highest
  points down), so an excluded 不求人 does not also cancel 自摸.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from itertools import combinations, combinations_with_replacement
from operator import itemgetter

from ... import tiles as T
from ...decompose import Decomposition, chow_wait
from ...fans import Fan, Hit, Situation

FANS: list[Fan] = []
NONE: tuple[Hit, ...] = ()  # a predicate's answer when its fan does not occur


# key -> the reading tags a fan needs before its predicate is worth running (see Reading.tags);
# only a shortcut: every predicate still checks its own conditions in full.
NEEDS: dict[str, frozenset[str]] = {}


def tag_mask(tags) -> int:
    """Tags as one integer, a bit for each tag some fan needs (TAG_BITS, filled once the table is
    complete); the scorer matches fans by these bits (scorer._fans_for), and tags no fan needs
    have no bit and are dropped."""
    mask = 0
    for tag in tags:
        mask |= TAG_BITS.get(tag, 0)
    return mask


def fan(key: str, zh: str, en: str, points: int, needs=(), excludes=(), absorbs=(), links: bool = False,
        note: str = ""):
    """Register the decorated predicate as a fan."""

    def register(detect):
        FANS.append(Fan(key, zh, en, points, detect, frozenset(excludes), frozenset(absorbs), links, note=note))
        # a fan of one group of sets (_on_sets) also needs its own hit among the reading's tags
        NEEDS[key] = frozenset(needs) | set(getattr(detect, "group_tags", ()))
        return detect

    return register


def settled_by_scorer(key: str, zh: str, en: str, points: int, note: str) -> None:
    """Register a fan that depends on the others, so the scorer settles it after them (no
    predicate): 无番和 when none counts, 花牌 after the minimum (scorer.py)."""
    FANS.append(Fan(key, zh, en, points, None, note=note))


# ---------------------------------------------------------------------------------------------
# The decomposition as the predicates see it


REGULAR = "regular"
SEVEN_PAIRS = "seven_pairs"
KNITTED = "knitted_straight"
GREEN = frozenset({19, 20, 21, 23, 25, 32})  # 23468s and 發
REVERSIBLE = frozenset({9, 10, 11, 12, 13, 16, 17, 19, 21, 22, 23, 25, 26, 31})  # 1234589p 245689s 白
TERMINALS = frozenset(i for i in range(T.NUMBER_TILES) if T.is_terminal(i))
# Hand tags (scorer._hand_tags) saying that every tile of the hand is in one of these sets, or that
# every rank lies in a range (no honours): the whole-hand tile fans need theirs in NEEDS.
ONLY_TAGS = {
    "only_green": GREEN, "only_reversible": REVERSIBLE, "only_terminals": TERMINALS,
    "only_terminals_honours": TERMINALS | frozenset(range(T.NUMBER_TILES, T.PLAYING_TILES)),
    # no 4, 5 or 6: every set of 全带幺 holds a terminal or an honour, so its chows are 123 and 789
    "only_outside": frozenset(i for i in range(T.PLAYING_TILES) if not (i < T.NUMBER_TILES and 3 <= i % 9 <= 5)),
}
# ranks_3_7: every set of 全带五 holds a 5, so its tiles are 3-7
RANK_TAGS = {"ranks_7_9": (7, 9), "ranks_4_6": (4, 6), "ranks_1_3": (1, 3), "ranks_6_9": (6, 9),
             "ranks_1_4": (1, 4), "ranks_2_8": (2, 8), "ranks_3_7": (3, 7)}
# The 1998 text defines these by sets (刻子/顺子 + 将), so its strict reading bars seven pairs.
SET_BASED_TILE_FANS = frozenset({
    "all_honours", "all_terminals", "all_terminals_and_honours", "all_green",
    "upper_tiles", "middle_tiles", "lower_tiles", "upper_four", "lower_four",
})
# Hands that can only be concealed: self-drawn they score 自摸, not 不求人 (current practice).
MUST_BE_CONCEALED = frozenset({
    "seven_pairs", "seven_shifted_pairs", "thirteen_orphans", "four_concealed_pungs", "nine_gates",
    "lesser_honours_and_knitted", "greater_honours_and_knitted",
})


# T.suit and T.rank of each playing tile, looked up
TILE_SUIT = tuple(T.suit(i) for i in range(T.PLAYING_TILES))
TILE_RANK = tuple(T.rank(i) for i in range(T.PLAYING_TILES))
# the parts of a reading's (unit index, suit, rank) set, and of a group fan's (suit, rank) set
_unit_of, _unit_rank_of = itemgetter(0), itemgetter(2)
_suit_of, _rank_of = itemgetter(0), itemgetter(1)


# hits made once: a whole-hand fan's answer by number of units (at most 14), a one-unit hit by unit
POSITIONS = tuple(tuple(range(n)) for n in range(15))
WHOLE_HAND_HITS = tuple((Hit(POSITIONS[n]),) for n in range(15))
UNIT_HITS = tuple(Hit((i,)) for i in range(14))


class Reading:
    """A Decomposition plus what the predicates ask of it, computed once per decomposition:
    chows as (unit index, suit, rank) sorted by tile, pungs and kongs likewise (honours have
    suit 3, rank 0), the pair's index (-1 if none) and the kong/concealed-pung fans.

    `tags` (tag_mask bits) say what the reading offers, for the gates in NEEDS: the hand's tags,
    its form, how many chows and number-tile pungs, which honour pungs, the series fans present
    (by key), the group fans that occur (by predicate name) and whether the winning tile sits in
    a pair or a chow."""

    __slots__ = ("form", "units", "winning_unit", "winning", "chows", "pungs", "number_pungs",
                 "group_hits", "pair", "whole", "series", "tags", "_wait")

    def __init__(self, d: Decomposition, s: Situation):
        self.form, units, self.winning_unit, self.winning = d
        self.units = units
        chows, pungs, pairs = [], [], []
        for i, u in enumerate(units):
            kind = u.kind
            if kind == "chow":
                chows.append((u.tile, i))
            elif kind == "pung" or kind == "kong":
                pungs.append((u.tile, i))
            elif kind == "pair":
                pairs.append(i)
        tags = s.facts["hand_tags"] | FORM_TAGS[self.form]
        if chows:
            chows.sort()
            self.chows = tuple([(i, TILE_SUIT[t], TILE_RANK[t]) for t, i in chows])
            tags |= CHOW_TAGS[len(chows)]
        else:
            self.chows = ()
            tags |= NO_CHOW_TAG
        if pungs:
            pungs.sort()
            self.pungs = tuple([(i, TILE_SUIT[t], TILE_RANK[t]) for t, i in pungs])
            self.number_pungs = tuple(sorted([p for p in self.pungs if p[1] < 3], key=_unit_rank_of))
            tags |= PUNG_TAGS[len(self.number_pungs)]
            if pungs[-1][0] >= T.NUMBER_TILES:  # honour pungs sort last
                winds = sum(1 for t, _ in pungs if 27 <= t <= 30)
                tags |= HONOUR_PUNG_TAGS[winds][sum(1 for t, _ in pungs if t >= 31)]
            self.series = kong_and_concealed(d, s.context.self_drawn, s.options.kong_1998)
            for key in self.series:  # a series fan's tag is its key
                tags |= TAG_BITS[key]
        else:
            self.pungs = self.number_pungs = ()
            self.series = {}
        # the group fans that occur, by predicate name, with their hits (a combination joins two
        # sets or more)
        self.group_hits: dict[str, tuple[Hit, ...]] = {}
        if len(self.chows) >= 2:
            tags |= self._find_group_hits("chows", self.chows)
        if len(self.number_pungs) >= 2:
            tags |= self._find_group_hits("number_pungs", self.number_pungs)
        tags |= WAIT_TAGS.get(units[self.winning_unit].kind, 0)
        self.tags = tags  # what the reading offers, against NEEDS
        self.pair = pairs[0] if len(pairs) == 1 else -1
        self.whole = WHOLE_HAND_HITS[len(units)]  # a whole-hand fan's answer: one hit on every unit
        self._wait: str | None | bool = False  # not computed yet

    def _find_group_hits(self, group: str, sets: tuple[tuple[int, int, int], ...]) -> int:
        """Add the fans of one group of sets to group_hits, looked up by the sets' shape (see
        group_hits) and turned from positions in the group into unit indices; their tags."""
        found, tags = group_hits(group, _shape(sets))
        if found:
            units = _idx(sets)  # the unit index at each position
            if units == POSITIONS[len(units)]:  # the sets lead the units, so positions are units
                self.group_hits.update(found)
            else:
                for name, hits in found.items():
                    self.group_hits[name] = tuple([Hit(tuple(map(units.__getitem__, hit.units))) for hit in hits])
        return tags

    def tile(self, i: int) -> int:
        return self.units[i].tile

    def honour_pungs(self, low: int, high: int) -> tuple[int, ...]:
        return tuple(i for i, _, _ in self.pungs if low <= self.units[i].tile <= high)

    def honour_pair(self, low: int, high: int) -> int:
        return self.pair if self.pair >= 0 and low <= self.units[self.pair].tile <= high else -1


def whole_hand(r: Reading, s: Situation, fan_key: str = "") -> bool:
    """Whole-hand fans apply to regular and seven-pairs readings (GB-Mahjong, pymahjonggb); under
    strict_1998_pairs the fans of SET_BASED_TILE_FANS are refused to seven pairs."""
    if r.form == REGULAR:
        return True
    return r.form == SEVEN_PAIRS and not (s.options.strict_1998_pairs and fan_key in SET_BASED_TILE_FANS)


def _only(s: Situation, allowed: frozenset[int]) -> bool:
    """Every tile the hand holds is one of `allowed` (tile indices)."""
    return not s.facts["held"] & ~_bits(allowed)


@lru_cache(maxsize=None)
def _bits(tiles: frozenset[int]) -> int:
    """Tile indices as the bits of the hand's `held` fact (bit i for tile i)."""
    return sum(1 << i for i in tiles)


def _ranks_within(s: Situation, low: int, high: int) -> bool:
    return not s.facts["honours"] and low <= s.facts["min_rank"] and s.facts["max_rank"] <= high


# ---------------------------------------------------------------------------------------------
# Kongs and concealed pungs: at most one fan from each series (current practice).


def kong_and_concealed(d: Decomposition, self_drawn: bool, kong_1998: bool) -> dict[str, tuple[int, ...]]:
    """The kong-series and concealed-pung-series fans of a decomposition, by key -> units."""
    ck, mk, cp = [], [], []
    for i, u in enumerate(d.units):
        if u.kind == "kong":
            (ck if u.concealed else mk).append(i)
        elif u.kind == "pung" and d.unit_is_concealed(i, self_drawn):
            cp.append(i)
    out: dict[str, tuple[int, ...]] = {}
    kongs = (*ck, *mk)
    if len(kongs) == 4:
        out["four_kongs"] = kongs
    elif len(kongs) == 3:
        out["three_kongs"] = kongs
    elif len(ck) == 2:
        out["two_concealed_kongs"] = tuple(ck)
    elif len(mk) == 2:
        out["two_melded_kongs"] = tuple(mk)
    elif len(kongs) == 2 and not kong_1998:
        out["concealed_and_exposed_kongs"] = kongs
    else:
        if ck:
            out["concealed_kong"] = tuple(ck)
        if mk:
            out["melded_kong"] = tuple(mk)
    concealed = (*ck, *cp)
    if len(concealed) == 4:
        out["four_concealed_pungs"] = concealed
    elif len(concealed) == 3:
        out["three_concealed_pungs"] = concealed
    elif len(concealed) == 2 and "two_concealed_kongs" not in out:  # 双暗杠 does not add 双暗刻
        out["two_concealed_pungs"] = concealed
    return out


def _series(r: Reading, key: str) -> tuple[Hit, ...]:
    units = r.series.get(key)
    return (Hit(units),) if units else ()


# ---------------------------------------------------------------------------------------------
# Waits: 边张, 嵌张, 单钓将 count only when the hand waited on this one tile alone.


def wait_fan(r: Reading, s: Situation) -> str | None:
    if r._wait is False:
        r._wait = _wait_kind(r, s)
    return r._wait


def _wait_kind(r: Reading, s: Situation) -> str | None:
    if r.form != REGULAR and r.form != KNITTED:
        return None
    win = r.winning
    if r.form == KNITTED and not s.options.knitted_tile_wait:
        if any(win in u.tiles for u in r.units if u.kind == "knitted"):
            return None
    u = r.units[r.winning_unit]
    if u.kind == "pair":
        kind = "single_wait"
    elif u.kind == "chow" and chow_wait(u, win) != "two_sided":
        kind = f"{chow_wait(u, win)}_wait"
    else:
        return None
    if "wait_count" not in s.facts:  # the costly part, so only when a wait shape is possible
        s.facts["wait_count"] = s.facts["count_waits"]()
    return kind if s.facts["wait_count"] == 1 else None


def _wait(r: Reading, s: Situation, key: str) -> tuple[Hit, ...]:
    return (UNIT_HITS[r.winning_unit],) if wait_fan(r, s) == key else ()


# ---------------------------------------------------------------------------------------------
# Combination fans of one group of sets (the chows, or the number-tile pungs and kongs): each is a
# predicate of one combination of that many sets, (suit, rank) each, in the group's order.


# By group: (predicate name, how many sets it combines, predicate).
GROUP_FANS: dict[str, list[tuple[str, int, Callable]]] = {"chows": [], "number_pungs": []}


def _shape(sets: tuple[tuple[int, int, int], ...]) -> tuple[tuple[int, int], ...]:
    """A reading's group of sets, (unit index, suit, rank) each, as group_hits reads it: (suit,
    rank) each, the suits renamed 0, 1, 2 in order of first appearance.  Every group fan treats
    the three suits alike, so hands that differ only in which suits they use share one answer."""
    names: dict[int, int] = {}
    return tuple([(names.setdefault(suit, len(names)), rank) for _, suit, rank in sets])


@lru_cache(maxsize=65536)
def group_hits(group: str, shape: tuple[tuple[int, int], ...]) -> tuple[dict[str, tuple[Hit, ...]], int]:
    """Every fan of one group on the sets' shape, computed together and cached: every hand with
    the same sets shares one answer, so most readings need a single lookup.  Hits name positions
    in the group, not unit indices.  Also the tags (tag_mask) of the fans found, by predicate
    name, which gate those fans (see _on_sets)."""
    found: dict[str, list[Hit]] = {}
    for size in range(2, len(shape) + 1):
        for positions, sets in zip(combinations(range(len(shape)), size), combinations(shape, size)):
            for name in _combination_fans(group, sets):
                found.setdefault(name, []).append(Hit(positions))
    return {name: tuple(hits) for name, hits in found.items()}, tag_mask(found)


@lru_cache(maxsize=None)
def _combination_fans(group: str, sets: tuple[tuple[int, int], ...]) -> tuple[str, ...]:
    """The group fans one combination of sets forms.  Cached apart from whole shapes: a new shape
    is mostly made of combinations seen before, and there are only some thousands of them."""
    return tuple([name for name, size, forms in GROUP_FANS[group] if size == len(sets) and forms(sets)])


def _on_sets(group: str, size: int):
    """Make a fan of `size` sets of one group from a predicate of such a combination (see
    group_hits); the reading has already looked its hits up and turned their positions into
    unit indices."""

    def wrap(forms):
        GROUP_FANS[group].append((forms.__name__, size, forms))

        def detect(r: Reading, s: Situation) -> tuple[Hit, ...]:
            return r.group_hits.get(forms.__name__, NONE)

        detect.group_tags = (forms.__name__,)
        return detect

    return wrap


def on_chows(size: int):
    """A predicate of `size` chows, in tile order (see _on_sets)."""
    return _on_sets("chows", size)


def on_number_pungs(size: int):
    """A predicate of `size` number-tile pungs and kongs, in rank order (see _on_sets)."""
    return _on_sets("number_pungs", size)


def _idx(group) -> tuple[int, ...]:
    return tuple(map(_unit_of, group))


def _one_suit(group) -> bool:
    return len(set(map(_suit_of, group))) == 1


def _suits_differ(group) -> bool:
    """Each set of another suit."""
    return len(set(map(_suit_of, group))) == len(group)


def _shifted(group, step: int) -> bool:
    """Ranks rise by exactly `step` from one member to the next (group sorted by rank)."""
    low = group[0][1]
    return list(map(_rank_of, group)) == list(range(low, low + step * len(group), step))


def _identical(group) -> bool:
    return len(set(group)) == 1


def _same_rank(group) -> bool:
    return len(set(map(_rank_of, group))) == 1


def _by_rank(group):
    return sorted(group, key=_rank_of)


def _terminal_chow_sets(r: Reading) -> tuple[list, list, int]:
    """(123 chows, 789 chows, pair index if it is a 5) for the 双龙会 fans."""
    low = [c for c in r.chows if c[2] == 1]
    high = [c for c in r.chows if c[2] == 7]
    pair = r.pair if r.pair >= 0 and T.rank(r.tile(r.pair)) == 5 else -1
    return low, high, pair


# =============================================================================================
# 88


@fan("big_four_winds", "大四喜", "Big Four Winds", 88, needs=("winds3",), excludes=("all_pungs",),
     absorbs=("prevalent_wind", "seat_wind", "pung_of_terminals_or_honours", "big_three_winds"), links=True)
def _big_four_winds(r, s):
    winds = r.honour_pungs(27, 30)
    return (Hit(winds),) if len(winds) == 4 else NONE


@fan("big_three_dragons", "大三元", "Big Three Dragons", 88, needs=("dragons2",),
     absorbs=("dragon_pung", "pung_of_terminals_or_honours", "two_dragon_pungs"), links=True)
def _big_three_dragons(r, s):
    dragons = r.honour_pungs(31, 33)
    return (Hit(dragons),) if len(dragons) == 3 else NONE


@fan("all_green", "绿一色", "All Green", 88, needs=("whole_hand", "only_green"), excludes=("half_flush",),
     note="23468s and 發 only; without 發 it adds 清一色")
def _all_green(r, s):
    return r.whole if whole_hand(r, s, "all_green") and _only(s, GREEN) else NONE


@fan("nine_gates", "九莲宝灯", "Nine Gates", 88, needs=("regular", "nine_gates"),
     excludes=("full_flush", "concealed_hand", "fully_concealed_hand", "no_honours"),
     absorbs=("pung_of_terminals_or_honours",),
     note="concealed 1112345678999 of one suit before the winning tile; one 幺九刻 is part of the "
          "shape, so only a win on 2, 5 or 8 keeps a 幺九刻 (and 双暗刻)")
def _nine_gates(r, s):
    if r.form != REGULAR or not s.facts["nine_gates_shape"]:
        return NONE
    terminal_pungs = [i for i, _, rank in r.pungs if rank in (1, 9)]
    return (Hit(tuple(terminal_pungs[:1]), tuple(t for u in r.units for t in u.tiles)),)


@fan("four_kongs", "四杠", "Four Kongs", 88, needs=("four_kongs",), excludes=("all_pungs", "single_wait"))
def _four_kongs(r, s):
    return _series(r, "four_kongs")


@fan("seven_shifted_pairs", "连七对", "Seven Shifted Pairs", 88, needs=("seven_pairs",),
     excludes=("full_flush", "seven_pairs", "concealed_hand", "fully_concealed_hand", "single_wait",
               "no_honours"))
def _seven_shifted_pairs(r, s):
    if r.form != SEVEN_PAIRS:
        return NONE
    first = r.units[0].tile
    if first < T.NUMBER_TILES and T.rank(first) <= 3 and [u.tile for u in r.units] == list(range(first, first + 7)):
        return r.whole
    return NONE


@fan("thirteen_orphans", "十三幺", "Thirteen Orphans", 88, needs=("thirteen_orphans",),
     excludes=("all_types", "concealed_hand", "fully_concealed_hand", "single_wait"))
def _thirteen_orphans(r, s):
    return r.whole if r.form == "thirteen_orphans" else NONE


# =============================================================================================
# 64


@fan("all_terminals", "清幺九", "All Terminals", 64, needs=("whole_hand", "only_terminals"),
     excludes=("all_pungs", "outside_hand", "all_terminals_and_honours", "double_pung", "no_honours",
               "pung_of_terminals_or_honours"))
def _all_terminals(r, s):
    ok = whole_hand(r, s, "all_terminals") and _only(s, TERMINALS)
    return r.whole if ok else NONE


@fan("little_four_winds", "小四喜", "Little Four Winds", 64, needs=("winds3",),
     absorbs=("pung_of_terminals_or_honours", "big_three_winds"), links=True)
def _little_four_winds(r, s):
    winds, pair = r.honour_pungs(27, 30), r.honour_pair(27, 30)
    return (Hit((*winds, pair)),) if len(winds) == 3 and pair >= 0 else NONE


@fan("little_three_dragons", "小三元", "Little Three Dragons", 64, needs=("dragons2",),
     absorbs=("dragon_pung", "pung_of_terminals_or_honours", "two_dragon_pungs"), links=True)
def _little_three_dragons(r, s):
    dragons, pair = r.honour_pungs(31, 33), r.honour_pair(31, 33)
    return (Hit((*dragons, pair)),) if len(dragons) == 2 and pair >= 0 else NONE


@fan("all_honours", "字一色", "All Honours", 64, needs=("whole_hand", "suits0"),
     excludes=("all_pungs", "outside_hand", "pung_of_terminals_or_honours"))
def _all_honours(r, s):
    ok = whole_hand(r, s, "all_honours") and not s.facts["suits"]
    return r.whole if ok else NONE


@fan("four_concealed_pungs", "四暗刻", "Four Concealed Pungs", 64, needs=("four_concealed_pungs",),
     excludes=("all_pungs", "concealed_hand", "fully_concealed_hand"))
def _four_concealed_pungs(r, s):
    return _series(r, "four_concealed_pungs")


@fan("pure_terminal_chows", "一色双龙会", "Pure Terminal Chows", 64, needs=("chows4", "suits1", "no_honours"),
     excludes=("full_flush", "all_chows", "no_honours"),
     absorbs=("two_terminal_chows", "pure_double_chow"), links=True)
def _pure_terminal_chows(r, s):
    if len(r.chows) < 4:
        return NONE
    low, high, pair = _terminal_chow_sets(r)
    group = low + high
    if len(low) == 2 and len(high) == 2 and pair >= 0 and len({c[1] for c in group}) == 1 \
            and T.suit(r.tile(pair)) == group[0][1]:
        return (Hit((*_idx(group), pair)),)
    return NONE


# =============================================================================================
# 48


@fan("quadruple_chow", "一色四同顺", "Quadruple Chow", 48, needs=("chows4",), excludes=("tile_hog",), links=True)
@on_chows(4)
def _quadruple_chow(chows):
    return _identical(chows)


@fan("four_pure_shifted_pungs", "一色四节高", "Four Pure Shifted Pungs", 48, needs=("number_pungs4",), excludes=("all_pungs",), links=True)
@on_number_pungs(4)
def _four_pure_shifted_pungs(pungs):
    return _one_suit(pungs) and _shifted(pungs, 1)


# =============================================================================================
# 32


@fan("four_pure_shifted_chows", "一色四步高", "Four Pure Shifted Chows", 32, needs=("chows4",), links=True,
     note="steps of one or of two")
@on_chows(4)
def _four_pure_shifted_chows(chows):
    return _one_suit(chows) and (_shifted(chows, 1) or _shifted(chows, 2))


@fan("three_kongs", "三杠", "Three Kongs", 32, needs=("three_kongs",))
def _three_kongs(r, s):
    return _series(r, "three_kongs")


@fan("all_terminals_and_honours", "混幺九", "All Terminals and Honours", 32, needs=("whole_hand", "honours", "only_terminals_honours"),
     excludes=("all_pungs", "outside_hand", "pung_of_terminals_or_honours"))
def _all_terminals_and_honours(r, s):
    ok = (whole_hand(r, s, "all_terminals_and_honours") and s.facts["honours"] and s.facts["suits"]
          and _only(s, ONLY_TAGS["only_terminals_honours"]))
    return r.whole if ok else NONE


# =============================================================================================
# 24


@fan("seven_pairs", "七对", "Seven Pairs", 24, needs=("seven_pairs",), excludes=("concealed_hand", "fully_concealed_hand", "single_wait"),
     note="four identical tiles may be two pairs")
def _seven_pairs(r, s):
    return r.whole if r.form == SEVEN_PAIRS else NONE


@fan("greater_honours_and_knitted", "七星不靠", "Greater Honours and Knitted Tiles", 24, needs=("honours_knitted",),
     excludes=("lesser_honours_and_knitted", "all_types", "concealed_hand", "fully_concealed_hand", "single_wait"))
def _greater_honours_and_knitted(r, s):
    ok = r.form == "honours_knitted" and sum(T.is_honour(u.tile) for u in r.units) == 7
    return r.whole if ok else NONE


@fan("all_even_pungs", "全双刻", "All Even Pungs", 24, needs=("regular", "no_honours", "no_chow"), excludes=("all_pungs", "all_simples", "no_honours"))
def _all_even_pungs(r, s):
    ok = r.form == REGULAR and not r.chows and all(
        u.tile < T.NUMBER_TILES and u.tile % 9 % 2 == 1 for u in r.units
    )
    return r.whole if ok else NONE


@fan("full_flush", "清一色", "Full Flush", 24, needs=("whole_hand", "no_honours", "suits1"), excludes=("no_honours",))
def _full_flush(r, s):
    ok = whole_hand(r, s) and len(s.facts["suits"]) == 1 and not s.facts["honours"]
    return r.whole if ok else NONE


@fan("pure_triple_chow", "一色三同顺", "Pure Triple Chow", 24, needs=("chows3",), absorbs=("pure_double_chow",), links=True)
@on_chows(3)
def _pure_triple_chow(chows):
    return _identical(chows)


@fan("pure_shifted_pungs", "一色三节高", "Pure Shifted Pungs", 24, needs=("number_pungs3",), links=True)
@on_number_pungs(3)
def _pure_shifted_pungs(pungs):
    return _one_suit(pungs) and _shifted(pungs, 1)


@fan("upper_tiles", "全大", "Upper Tiles", 24, needs=("whole_hand", "ranks_7_9"), excludes=("upper_four", "no_honours"))
def _upper_tiles(r, s):
    return r.whole if whole_hand(r, s, "upper_tiles") and _ranks_within(s, 7, 9) else NONE


@fan("middle_tiles", "全中", "Middle Tiles", 24, needs=("whole_hand", "ranks_4_6"), excludes=("all_simples", "no_honours"))
def _middle_tiles(r, s):
    return r.whole if whole_hand(r, s, "middle_tiles") and _ranks_within(s, 4, 6) else NONE


@fan("lower_tiles", "全小", "Lower Tiles", 24, needs=("whole_hand", "ranks_1_3"), excludes=("lower_four", "no_honours"))
def _lower_tiles(r, s):
    return r.whole if whole_hand(r, s, "lower_tiles") and _ranks_within(s, 1, 3) else NONE


# =============================================================================================
# 16


@fan("pure_straight", "清龙", "Pure Straight", 16, needs=("chows3",), links=True)
@on_chows(3)
def _pure_straight(chows):
    return _one_suit(chows) and tuple(map(_rank_of, chows)) == (1, 4, 7)


@fan("three_suited_terminal_chows", "三色双龙会", "Three-Suited Terminal Chows", 16, needs=("chows4", "suits3", "no_honours"),
     excludes=("all_chows", "no_honours"), absorbs=("mixed_double_chow", "two_terminal_chows"), links=True)
def _three_suited_terminal_chows(r, s):
    if len(r.chows) < 4:
        return NONE
    low, high, pair = _terminal_chow_sets(r)
    if len(low) == 2 and len(high) == 2 and pair >= 0:
        low_suits = {c[1] for c in low}
        if len(low_suits) == 2 and low_suits == {c[1] for c in high} and T.suit(r.tile(pair)) not in low_suits:
            return (Hit((*_idx(low), *_idx(high), pair)),)
    return NONE


@fan("pure_shifted_chows", "一色三步高", "Pure Shifted Chows", 16, needs=("chows3",), links=True, note="steps of one or of two")
@on_chows(3)
def _pure_shifted_chows(chows):
    return _one_suit(chows) and (_shifted(chows, 1) or _shifted(chows, 2))


@fan("all_fives", "全带五", "All Fives", 16, needs=("regular", "ranks_3_7"), excludes=("all_simples", "no_honours"))
def _all_fives(r, s):
    ok = r.form == REGULAR and all(
        u.tile < T.NUMBER_TILES and (u.tile % 9 == 4 or (u.kind == "chow" and 2 <= u.tile % 9 <= 4))
        for u in r.units
    )
    return r.whole if ok else NONE


@fan("triple_pung", "三同刻", "Triple Pung", 16, needs=("number_pungs3",), absorbs=("double_pung",), links=True)
@on_number_pungs(3)
def _triple_pung(pungs):
    return _same_rank(pungs)


@fan("three_concealed_pungs", "三暗刻", "Three Concealed Pungs", 16, needs=("three_concealed_pungs",))
def _three_concealed_pungs(r, s):
    return _series(r, "three_concealed_pungs")


# =============================================================================================
# 12


@fan("lesser_honours_and_knitted", "全不靠", "Lesser Honours and Knitted Tiles", 12, needs=("honours_knitted",),
     excludes=("all_types", "concealed_hand", "fully_concealed_hand", "single_wait"))
def _lesser_honours_and_knitted(r, s):
    return r.whole if r.form == "honours_knitted" else NONE


@fan("knitted_straight", "组合龙", "Knitted Straight", 12, needs=("knitted",),
     note="also with all nine knitted tiles inside 全不靠 / 七星不靠")
def _knitted_straight(r, s):
    if r.form == KNITTED:
        return (Hit(tuple(i for i, u in enumerate(r.units) if u.kind == "knitted")),)
    if r.form == "honours_knitted":
        numbers = tuple(i for i, u in enumerate(r.units) if u.tile < T.NUMBER_TILES)
        if len(numbers) == 9:
            return (Hit(numbers),)
    return NONE


@fan("upper_four", "大于五", "Upper Four", 12, needs=("whole_hand", "ranks_6_9"), excludes=("no_honours",))
def _upper_four(r, s):
    return r.whole if whole_hand(r, s, "upper_four") and _ranks_within(s, 6, 9) else NONE


@fan("lower_four", "小于五", "Lower Four", 12, needs=("whole_hand", "ranks_1_4"), excludes=("no_honours",))
def _lower_four(r, s):
    return r.whole if whole_hand(r, s, "lower_four") and _ranks_within(s, 1, 4) else NONE


@fan("big_three_winds", "三风刻", "Big Three Winds", 12, needs=("winds3",), absorbs=("pung_of_terminals_or_honours",), links=True)
def _big_three_winds(r, s):
    winds = r.honour_pungs(27, 30)
    return tuple(Hit(g) for g in combinations(winds, 3)) if len(winds) >= 3 else NONE


# =============================================================================================
# 8


@fan("mixed_straight", "花龙", "Mixed Straight", 8, needs=("chows3",), links=True)
@on_chows(3)
def _mixed_straight(chows):
    return _suits_differ(chows) and sorted(map(_rank_of, chows)) == [1, 4, 7]


@fan("reversible_tiles", "推不倒", "Reversible Tiles", 8, needs=("whole_hand", "only_reversible"), excludes=("one_voided_suit",))
def _reversible_tiles(r, s):
    return r.whole if whole_hand(r, s) and _only(s, REVERSIBLE) else NONE


@fan("mixed_triple_chow", "三色三同顺", "Mixed Triple Chow", 8, needs=("chows3",), absorbs=("mixed_double_chow",), links=True)
@on_chows(3)
def _mixed_triple_chow(chows):
    return _suits_differ(chows) and _same_rank(chows)


@fan("mixed_shifted_pungs", "三色三节高", "Mixed Shifted Pungs", 8, needs=("number_pungs3",), links=True)
@on_number_pungs(3)
def _mixed_shifted_pungs(pungs):
    return _suits_differ(pungs) and _shifted(pungs, 1)


settled_by_scorer("chicken_hand", "无番和", "Chicken Hand", 8, "scored when no other fan counts (flowers do not count)")


def _on_winning_tile(r: Reading) -> tuple[Hit, ...]:
    return (Hit((r.winning_unit,), (r.winning,)),)


@fan("last_tile_draw", "妙手回春", "Last Tile Draw", 8, needs=("last_tile",), excludes=("self_drawn",))
def _last_tile_draw(r, s):
    return _on_winning_tile(r) if s.context.last_tile and s.context.self_drawn else NONE


@fan("last_tile_claim", "海底捞月", "Last Tile Claim", 8, needs=("last_tile",))
def _last_tile_claim(r, s):
    return _on_winning_tile(r) if s.context.last_tile and not s.context.self_drawn else NONE


@fan("out_with_replacement_tile", "杠上开花", "Out with Replacement Tile", 8, needs=("kong_replacement",), excludes=("self_drawn",))
def _out_with_replacement_tile(r, s):
    return _on_winning_tile(r) if s.context.kong_replacement else NONE


@fan("robbing_the_kong", "抢杠和", "Robbing the Kong", 8, needs=("robbing_kong",), excludes=("last_copy",))
def _robbing_the_kong(r, s):
    return _on_winning_tile(r) if s.context.robbing_kong else NONE


# =============================================================================================
# 6


@fan("all_pungs", "碰碰和", "All Pungs", 6, needs=("regular", "no_chow"))
def _all_pungs(r, s):
    return r.whole if r.form == REGULAR and not r.chows else NONE


@fan("half_flush", "混一色", "Half Flush", 6, needs=("whole_hand", "honours", "suits1"))
def _half_flush(r, s):
    return r.whole if whole_hand(r, s) and len(s.facts["suits"]) == 1 and s.facts["honours"] else NONE


@fan("mixed_shifted_chows", "三色三步高", "Mixed Shifted Chows", 6, needs=("chows3",), links=True)
@on_chows(3)
def _mixed_shifted_chows(chows):
    return _suits_differ(chows) and _shifted(_by_rank(chows), 1)


@fan("all_types", "五门齐", "All Types", 6, needs=("winds", "dragons", "suits3"))
def _all_types(r, s):
    f = s.facts
    ok = r.form in (REGULAR, SEVEN_PAIRS, KNITTED) and len(f["suits"]) == 3 and f["winds"] and f["dragons"]
    return r.whole if ok else NONE


@fan("melded_hand", "全求人", "Melded Hand", 6, needs=("four_melds",), excludes=("single_wait",),
     note="four exposed melds and a win on a discard")
def _melded_hand(r, s):
    melds = s.hand.melds
    ok = len(melds) == 4 and not s.context.self_drawn and all(m.exposed for m in melds)
    return r.whole if ok else NONE


@fan("two_concealed_kongs", "双暗杠", "Two Concealed Kongs", 6, needs=("two_concealed_kongs",))
def _two_concealed_kongs(r, s):
    return _series(r, "two_concealed_kongs")


@fan("two_dragon_pungs", "双箭刻", "Two Dragon Pungs", 6, needs=("dragons2",),
     absorbs=("dragon_pung", "pung_of_terminals_or_honours"), links=True)
def _two_dragon_pungs(r, s):
    dragons = r.honour_pungs(31, 33)
    return tuple(Hit(g) for g in combinations(dragons, 2)) if len(dragons) >= 2 else NONE


# =============================================================================================
# 5 (current practice; kong_1998 scores 明杠 + 暗杠 instead)


@fan("concealed_and_exposed_kongs", "明暗杠", "Concealed and Melded Kongs", 5, needs=("concealed_and_exposed_kongs",))
def _concealed_and_exposed_kongs(r, s):
    return _series(r, "concealed_and_exposed_kongs")


# =============================================================================================
# 4


@fan("outside_hand", "全带幺", "Outside Hand", 4, needs=("regular", "only_outside"))
def _outside_hand(r, s):
    ok = r.form == REGULAR and all(
        u.tile >= T.NUMBER_TILES or u.tile % 9 == 0 or u.tile % 9 == 8
        or (u.kind == "chow" and u.tile % 9 in (0, 6)) for u in r.units
    )
    return r.whole if ok else NONE


@fan("fully_concealed_hand", "不求人", "Fully Concealed Hand", 4, needs=("self_drawn", "concealed"), excludes=("concealed_hand", "self_drawn"),
     note="self-drawn with no chow, pung or exposed kong claimed")
def _fully_concealed_hand(r, s):
    return r.whole if s.context.self_drawn and s.facts["concealed"] else NONE


@fan("two_melded_kongs", "双明杠", "Two Melded Kongs", 4, needs=("two_melded_kongs",))
def _two_melded_kongs(r, s):
    return _series(r, "two_melded_kongs")


@fan("last_copy", "和绝张", "Last Tile", 4, needs=("last_copy",), excludes=("single_wait",),
     note="the other three copies are visible; derived when they are in the winner's own melds")
def _last_copy(r, s):
    return _on_winning_tile(r) if s.context.last_copy else NONE


# =============================================================================================
# 2


@fan("dragon_pung", "箭刻", "Dragon Pung", 2, needs=("dragon_pung",), absorbs=("pung_of_terminals_or_honours",))
def _dragon_pung(r, s):
    return tuple([UNIT_HITS[i] for i in r.honour_pungs(31, 33)])


@fan("prevalent_wind", "圈风刻", "Prevalent Wind", 2, needs=("wind_pung",), absorbs=("pung_of_terminals_or_honours",))
def _prevalent_wind(r, s):
    wind = T.WIND_TILES[s.context.round_wind]
    return tuple([UNIT_HITS[i] for i in r.honour_pungs(wind, wind)])


@fan("seat_wind", "门风刻", "Seat Wind", 2, needs=("wind_pung",), absorbs=("pung_of_terminals_or_honours",))
def _seat_wind(r, s):
    wind = T.WIND_TILES[s.context.seat_wind]
    return tuple([UNIT_HITS[i] for i in r.honour_pungs(wind, wind)])


@fan("concealed_hand", "门前清", "Concealed Hand", 2, needs=("discard", "concealed"), note="no claimed meld, won on a discard")
def _concealed_hand(r, s):
    return r.whole if not s.context.self_drawn and s.facts["concealed"] else NONE


@fan("all_chows", "平和", "All Chows", 2, needs=("chow", "no_honours"), excludes=("no_honours",), note="four chows and a pair of a suit")
def _all_chows(r, s):
    ok = (r.form == REGULAR or r.form == KNITTED) and not r.pungs and r.pair >= 0 \
        and r.tile(r.pair) < T.NUMBER_TILES
    return r.whole if ok else NONE


@fan("tile_hog", "四归一", "Tile Hog", 2, needs=("hog",), note="all four copies of a tile in the hand, not as a kong")
def _tile_hog(r, s):
    if not s.facts["fours"] or r.form not in (REGULAR, SEVEN_PAIRS, KNITTED):
        return NONE
    hits = []
    for t in s.facts["fours"]:
        units = tuple([i for i, u in enumerate(r.units) if t in u.tiles])
        if not any(r.units[i].kind == "kong" for i in units):  # a kong holds one tile four times
            hits.append(Hit(units, (t,) * 4))
    return tuple(hits)


@fan("double_pung", "双同刻", "Double Pung", 2, needs=("number_pungs2",), links=True)
@on_number_pungs(2)
def _double_pung(pungs):
    return _same_rank(pungs)


@fan("two_concealed_pungs", "双暗刻", "Two Concealed Pungs", 2, needs=("two_concealed_pungs",))
def _two_concealed_pungs(r, s):
    return _series(r, "two_concealed_pungs")


@fan("concealed_kong", "暗杠", "Concealed Kong", 2, needs=("concealed_kong",))
def _concealed_kong(r, s):
    return _series(r, "concealed_kong")


@fan("all_simples", "断幺", "All Simples", 2, needs=("whole_hand", "ranks_2_8"), excludes=("no_honours",))
def _all_simples(r, s):
    ok = whole_hand(r, s) and not s.facts["honours"] and s.facts["min_rank"] >= 2 and s.facts["max_rank"] <= 8
    return r.whole if ok else NONE


# =============================================================================================
# 1


@fan("pure_double_chow", "一般高", "Pure Double Chow", 1, needs=("chows2",), links=True)
@on_chows(2)
def _pure_double_chow(chows):
    return _identical(chows)


@fan("mixed_double_chow", "喜相逢", "Mixed Double Chow", 1, needs=("chows2",), links=True)
@on_chows(2)
def _mixed_double_chow(chows):
    return _suits_differ(chows) and _same_rank(chows)


@fan("short_straight", "连六", "Short Straight", 1, needs=("chows2",), links=True)
@on_chows(2)
def _short_straight(chows):
    return _one_suit(chows) and _shifted(chows, 3)


@fan("two_terminal_chows", "老少副", "Two Terminal Chows", 1, needs=("chows2",), links=True)
@on_chows(2)
def _two_terminal_chows(chows):
    return _one_suit(chows) and _shifted(chows, 6)


@fan("pung_of_terminals_or_honours", "幺九刻", "Pung of Terminals or Honours", 1, needs=("pung",))
def _pung_of_terminals_or_honours(r, s):
    return tuple([UNIT_HITS[i] for i, suit, rank in r.pungs if suit == 3 or rank in (1, 9)])


@fan("melded_kong", "明杠", "Melded Kong", 1, needs=("melded_kong",))
def _melded_kong(r, s):
    return _series(r, "melded_kong")


@fan("one_voided_suit", "缺一门", "One Voided Suit", 1, needs=("whole_hand", "suits2"))
def _one_voided_suit(r, s):
    return r.whole if whole_hand(r, s) and len(s.facts["suits"]) == 2 else NONE


@fan("no_honours", "无字", "No Honours", 1, needs=("no_honours",))
def _no_honours(r, s):
    return r.whole if r.form in (REGULAR, SEVEN_PAIRS, KNITTED) and not s.facts["honours"] else NONE


@fan("edge_wait", "边张", "Edge Wait", 1, needs=("wait_chow",))
def _edge_wait(r, s):
    return _wait(r, s, "edge_wait")


@fan("closed_wait", "嵌张", "Closed Wait", 1, needs=("wait_chow",))
def _closed_wait(r, s):
    return _wait(r, s, "closed_wait")


@fan("single_wait", "单钓将", "Single Wait", 1, needs=("wait_pair",))
def _single_wait(r, s):
    return _wait(r, s, "single_wait")


@fan("self_drawn", "自摸", "Self-Drawn", 1, needs=("self_drawn",))
def _self_drawn(r, s):
    return _on_winning_tile(r) if s.context.self_drawn else NONE


settled_by_scorer("flower_tiles", "花牌", "Flower Tiles", 1, "one per flower, added after the 8-fan minimum")


# Every tag some fan needs, as a bit (see tag_mask); the table above is complete here.
TAG_BITS: dict[str, int] = {tag: 1 << n for n, tag in enumerate(sorted(set().union(*NEEDS.values())))}

# The reading's tags (Reading.__init__) as bits, looked up rather than assembled from names.
FORM_TAGS = {form: tag_mask((form, *(("whole_hand",) if form in (REGULAR, SEVEN_PAIRS) else ()),
                             *(("knitted",) if form in (KNITTED, "honours_knitted") else ())))
             for form in (REGULAR, SEVEN_PAIRS, KNITTED, "honours_knitted", "thirteen_orphans")}
CHOW_TAGS = tuple(tag_mask(("chow", "chows2", "chows3", "chows4")[:n]) for n in range(5))
NO_CHOW_TAG = tag_mask(("no_chow",))
PUNG_TAGS = tuple(tag_mask(("pung", "number_pungs1", "number_pungs2", "number_pungs3", "number_pungs4")[:n + 1])
                  for n in range(5))
# a winning tile in a pair may be a 单钓将, in a chow a 边张 or 嵌张
WAIT_TAGS = {"pair": tag_mask(("wait_pair",)), "chow": tag_mask(("wait_chow",))}
# by number of wind pungs, then of dragon pungs
HONOUR_PUNG_TAGS = tuple(tuple(tag_mask((*(("wind_pung",) if w else ()), *(("winds3",) if w >= 3 else ()),
                                         *(("dragon_pung",) if d else ()), *(("dragons2",) if d >= 2 else ())))
                               for d in range(4)) for w in range(5))


def _precompute_group_hits() -> None:
    """Fill group_hits' cache with every shape of two or three sets (some 1,600 shapes, ~12 ms
    when the rule set loads): fresh hands keep meeting shapes not seen before, and working one out
    while scoring costs as much as the rest of the reading.  The cache holds every shape there is
    (about 12,000 with those of four sets, which are left to first use), so none is evicted."""
    chows = [(0, suit, rank) for suit in range(3) for rank in range(1, 8)]
    pungs = [(0, suit, rank) for suit in range(3) for rank in range(1, 10)]
    for size in (2, 3):
        # as Reading lists them: chows (which may repeat) by tile, pungs of different tiles by rank
        for sets in combinations_with_replacement(chows, size):
            group_hits("chows", _shape(sets))
        for sets in combinations(pungs, size):
            group_hits("number_pungs", _shape(tuple(sorted(sets, key=_unit_rank_of))))


_precompute_group_hits()
