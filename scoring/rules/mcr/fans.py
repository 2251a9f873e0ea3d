"""The 81 MCR fans, plus 明暗杠 and 花牌, each defined once beside its predicate.

Names and points follow seed 001 (番种介绍) and the 不计 notes of seed 003 (1998 rules, 国家体育总局).
Every predicate has the signature `detect(decomposition, situation) -> hits`; a hit names the units
(sets, pair, knitted triples) that form the fan.

How fans combine (see scorer.py):
- `excludes` are not counted anywhere in the hand when this fan counts (不重复); `absorbs` are not
  counted on this fan's own units (大三元 cancels the 箭刻 of its own pungs only).
- `links=True` marks combination fans between sets; among them the scorer keeps the highest-scoring
  choice whose links form no cycle, which is 不拆移, 不相同 and 套算一次 in one rule.
- An exclusion comes only from a fan that is itself counted (fans are settled from the highest
  points down), so an excluded 不求人 does not also cancel 自摸.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache
from itertools import combinations

from ... import tiles as T
from ...decompose import Decomposition
from ...fans import Fan, Hit, Situation

FANS: list[Fan] = []


def fan(key: str, zh: str, en: str, points: int, excludes=(), absorbs=(), links: bool = False, note: str = ""):
    """Register the decorated predicate as a fan."""

    def register(detect):
        FANS.append(Fan(key, zh, en, points, detect, frozenset(excludes), frozenset(absorbs), links, note=note))
        return detect

    return register


# ---------------------------------------------------------------------------------------------
# Shared views of a decomposition and of the hand

REGULAR = "regular"
SEVEN_PAIRS = "seven_pairs"
KNITTED = "knitted_straight"
WHOLE_HAND_FORMS = (REGULAR, SEVEN_PAIRS)  # forms where the whole-hand fans (一色, 幺九...) apply
GREEN = frozenset({19, 20, 21, 23, 25, 32})  # 23468s and 發
REVERSIBLE = frozenset({9, 10, 11, 12, 13, 16, 17, 19, 21, 22, 23, 25, 26, 31})  # 1234589p 245689s 白


class Shape:
    """Indices of a decomposition's chows, pungs (kongs included) and pair, computed once."""

    __slots__ = ("chows", "pungs", "pair", "sets", "all")

    def __init__(self, d: Decomposition):
        self.chows = tuple(i for i, u in enumerate(d.units) if u.kind == "chow")
        self.pungs = tuple(i for i, u in enumerate(d.units) if u.kind in ("pung", "kong"))
        pairs = [i for i, u in enumerate(d.units) if u.kind == "pair"]
        self.pair = pairs[0] if len(pairs) == 1 else -1
        self.sets = self.chows + self.pungs
        self.all = tuple(range(len(d.units)))


@lru_cache(maxsize=8192)
def shape(d: Decomposition) -> Shape:
    return Shape(d)


def whole(d: Decomposition) -> Hit:
    return Hit(shape(d).all)


def _suit(u) -> int:
    return T.suit(u.tile)


def _rank(u) -> int:
    return T.rank(u.tile)


def hand_tiles(s: Situation) -> frozenset[int]:
    return s.facts["present"]


def suits_present(s: Situation) -> frozenset[int]:
    return s.facts["suits"]


def whole_hand(d: Decomposition, s: Situation, fan_key: str = "") -> bool:
    """Whole-hand fans apply to regular and seven-pairs readings (GB-Mahjong, pymahjonggb); under
    strict_1998_pairs the set-based ones listed in SET_BASED_TILE_FANS are refused to seven pairs."""
    if d.form == REGULAR:
        return True
    if d.form != SEVEN_PAIRS:
        return False
    return not (s.options.strict_1998_pairs and fan_key in SET_BASED_TILE_FANS)


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


def _only(s: Situation, allowed) -> bool:
    return hand_tiles(s) <= allowed


# ---------------------------------------------------------------------------------------------
# Kongs and concealed pungs: at most one fan from each series (current practice).


@lru_cache(maxsize=8192)
def kong_and_concealed(d: Decomposition, self_drawn: bool, kong_1998: bool) -> dict[str, tuple[int, ...]]:
    """The kong-series and concealed-pung-series fans of a decomposition, by key -> units."""
    sh = shape(d)
    ck = tuple(i for i in sh.pungs if d.units[i].kind == "kong" and d.units[i].concealed)
    mk = tuple(i for i in sh.pungs if d.units[i].kind == "kong" and not d.units[i].concealed)
    cp = tuple(i for i in sh.pungs if d.units[i].kind == "pung" and d.unit_is_concealed(i, self_drawn))
    out: dict[str, tuple[int, ...]] = {}
    kongs = ck + mk
    if len(kongs) == 4:
        out["four_kongs"] = kongs
    elif len(kongs) == 3:
        out["three_kongs"] = kongs
    elif len(ck) == 2:
        out["two_concealed_kongs"] = ck
    elif len(mk) == 2:
        out["two_melded_kongs"] = mk
    elif len(kongs) == 2 and not kong_1998:
        out["concealed_and_exposed_kongs"] = kongs
    else:
        if ck:
            out["concealed_kong"] = ck
        if mk:
            out["melded_kong"] = mk
    concealed = ck + cp
    if len(concealed) == 4:
        out["four_concealed_pungs"] = concealed
    elif len(concealed) == 3:
        out["three_concealed_pungs"] = concealed
    elif len(concealed) == 2 and "two_concealed_kongs" not in out:  # 双暗杠 does not add 双暗刻
        out["two_concealed_pungs"] = concealed
    return out


def _series(key: str):
    def detect(d: Decomposition, s: Situation) -> Iterator[Hit]:
        units = kong_and_concealed(d, s.context.self_drawn, s.options.kong_1998).get(key)
        if units:
            yield Hit(units)

    return detect


# ---------------------------------------------------------------------------------------------
# Waits: 边张, 嵌张, 单钓将 count only when the hand waited on this one tile alone.


def wait_fan(d: Decomposition, s: Situation) -> str | None:
    if d.form not in (REGULAR, KNITTED):
        return None
    win = s.facts["winning"]
    if d.form == KNITTED and not s.options.knitted_tile_wait:
        if any(win in u.tiles for u in d.units if u.kind == "knitted"):
            return None
    u = d.units[d.winning_unit]
    if u.kind == "pair":
        kind = "single_wait"
    elif u.kind == "chow":
        offset = win - u.tile
        if offset == 1:
            kind = "closed_wait"
        elif (offset == 2 and _rank(u) == 1) or (offset == 0 and _rank(u) == 7):
            kind = "edge_wait"
        else:
            return None
    else:
        return None
    if "wait_count" not in s.facts:  # the costly part, so only when a wait shape is possible
        s.facts["wait_count"] = s.facts["count_waits"]()
    return kind if s.facts["wait_count"] == 1 else None


def _wait(key: str):
    def detect(d: Decomposition, s: Situation) -> Iterator[Hit]:
        if wait_fan(d, s) == key:
            yield Hit((d.winning_unit,))

    return detect


# ---------------------------------------------------------------------------------------------
# Helpers for combination fans


def _chow_groups(d: Decomposition, n: int) -> Iterator[tuple[int, ...]]:
    """n-chow combinations, each sorted by tile (so steps and straights read left to right)."""
    chows = sorted(shape(d).chows, key=lambda i: d.units[i].tile)
    return combinations(chows, n)


def _pung_groups(d: Decomposition, n: int, numbers_only: bool = True) -> Iterator[tuple[int, ...]]:
    pungs = [i for i in shape(d).pungs if not numbers_only or d.units[i].tile < T.NUMBER_TILES]
    pungs.sort(key=lambda i: (_rank(d.units[i]), d.units[i].tile))
    return combinations(pungs, n)


def _same_suit(d, group) -> bool:
    return len({_suit(d.units[i]) for i in group}) == 1


def _distinct_suits(d, group) -> bool:
    return len({_suit(d.units[i]) for i in group}) == len(group)


def _ranks(d, group) -> list[int]:
    return [_rank(d.units[i]) for i in group]


def _steps(d, group) -> set[int]:
    r = sorted(_ranks(d, group))
    return {b - a for a, b in zip(r, r[1:])}


def _honour_pungs(d: Decomposition, low: int, high: int) -> list[int]:
    return [i for i in shape(d).pungs if low <= d.units[i].tile <= high]


def _honour_pair(d: Decomposition, low: int, high: int) -> int:
    p = shape(d).pair
    return p if p >= 0 and low <= d.units[p].tile <= high else -1


def _terminal_chow_sets(d: Decomposition) -> tuple[list[int], list[int], int]:
    """(123 chows, 789 chows, pair index if it is a 5) for the 双龙会 fans."""
    sh = shape(d)
    low = [i for i in sh.chows if _rank(d.units[i]) == 1]
    high = [i for i in sh.chows if _rank(d.units[i]) == 7]
    pair = sh.pair if sh.pair >= 0 and _rank(d.units[sh.pair]) == 5 else -1
    return low, high, pair


# =============================================================================================
# 88


@fan("big_four_winds", "大四喜", "Big Four Winds", 88, excludes=("all_pungs",),
     absorbs=("prevalent_wind", "seat_wind", "pung_of_terminals_or_honours", "big_three_winds"), links=True)
def _big_four_winds(d, s):
    winds = _honour_pungs(d, 27, 30)
    if len(winds) == 4:
        yield Hit(tuple(winds))


@fan("big_three_dragons", "大三元", "Big Three Dragons", 88,
     absorbs=("dragon_pung", "pung_of_terminals_or_honours", "two_dragon_pungs"), links=True)
def _big_three_dragons(d, s):
    dragons = _honour_pungs(d, 31, 33)
    if len(dragons) == 3:
        yield Hit(tuple(dragons))


@fan("all_green", "绿一色", "All Green", 88, excludes=("half_flush",),
     note="23468s and 發 only; without 發 it adds 清一色")
def _all_green(d, s):
    if whole_hand(d, s, "all_green") and _only(s, GREEN):
        yield whole(d)


@fan("nine_gates", "九莲宝灯", "Nine Gates", 88,
     excludes=("full_flush", "concealed_hand", "fully_concealed_hand", "no_honours"),
     absorbs=("pung_of_terminals_or_honours",),
     note="concealed 1112345678999 of one suit before the winning tile; one 幺九刻 is part of the "
          "shape, so only a win on 2, 5 or 8 keeps a 幺九刻 (and 双暗刻)")
def _nine_gates(d, s):
    if d.form != REGULAR or s.hand.melds or not s.facts["nine_gates_shape"]:
        return
    terminal_pungs = [i for i in shape(d).pungs if T.is_terminal(d.units[i].tile)]
    yield Hit(tuple(terminal_pungs[:1]), tuple(s.facts["all_tiles"]))


@fan("four_kongs", "四杠", "Four Kongs", 88, excludes=("all_pungs", "single_wait"))
def _four_kongs(d, s):
    yield from _series("four_kongs")(d, s)


@fan("seven_shifted_pairs", "连七对", "Seven Shifted Pairs", 88,
     excludes=("full_flush", "seven_pairs", "concealed_hand", "fully_concealed_hand", "single_wait",
               "no_honours"))
def _seven_shifted_pairs(d, s):
    if d.form != SEVEN_PAIRS:
        return
    tiles = [u.tile for u in d.units]
    if tiles[0] < T.NUMBER_TILES and _rank(d.units[0]) <= 3 and tiles == list(range(tiles[0], tiles[0] + 7)):
        yield whole(d)


@fan("thirteen_orphans", "十三幺", "Thirteen Orphans", 88,
     excludes=("all_types", "concealed_hand", "fully_concealed_hand", "single_wait"))
def _thirteen_orphans(d, s):
    if d.form == "thirteen_orphans":
        yield whole(d)


# =============================================================================================
# 64


@fan("all_terminals", "清幺九", "All Terminals", 64,
     excludes=("all_pungs", "outside_hand", "all_terminals_and_honours", "double_pung", "no_honours",
               "pung_of_terminals_or_honours"))
def _all_terminals(d, s):
    if whole_hand(d, s, "all_terminals") and all(T.is_terminal(i) for i in hand_tiles(s)):
        yield whole(d)


@fan("little_four_winds", "小四喜", "Little Four Winds", 64,
     absorbs=("pung_of_terminals_or_honours", "big_three_winds"), links=True)
def _little_four_winds(d, s):
    winds, pair = _honour_pungs(d, 27, 30), _honour_pair(d, 27, 30)
    if len(winds) == 3 and pair >= 0:
        yield Hit((*winds, pair))


@fan("little_three_dragons", "小三元", "Little Three Dragons", 64,
     absorbs=("dragon_pung", "pung_of_terminals_or_honours", "two_dragon_pungs"), links=True)
def _little_three_dragons(d, s):
    dragons, pair = _honour_pungs(d, 31, 33), _honour_pair(d, 31, 33)
    if len(dragons) == 2 and pair >= 0:
        yield Hit((*dragons, pair))


@fan("all_honours", "字一色", "All Honours", 64,
     excludes=("all_pungs", "outside_hand", "pung_of_terminals_or_honours"))
def _all_honours(d, s):
    if whole_hand(d, s, "all_honours") and all(T.is_honour(i) for i in hand_tiles(s)):
        yield whole(d)


@fan("four_concealed_pungs", "四暗刻", "Four Concealed Pungs", 64,
     excludes=("all_pungs", "concealed_hand", "fully_concealed_hand"))
def _four_concealed_pungs(d, s):
    yield from _series("four_concealed_pungs")(d, s)


@fan("pure_terminal_chows", "一色双龙会", "Pure Terminal Chows", 64,
     excludes=("full_flush", "all_chows", "no_honours"),
     absorbs=("two_terminal_chows", "pure_double_chow"), links=True)
def _pure_terminal_chows(d, s):
    low, high, pair = _terminal_chow_sets(d)
    group = (*low, *high)
    if len(low) == 2 and len(high) == 2 and pair >= 0 and _same_suit(d, (*group, pair)):
        yield Hit((*group, pair))


# =============================================================================================
# 48


@fan("quadruple_chow", "一色四同顺", "Quadruple Chow", 48, excludes=("tile_hog",), links=True)
def _quadruple_chow(d, s):
    for g in _chow_groups(d, 4):
        if len({d.units[i].tile for i in g}) == 1:
            yield Hit(g)


@fan("four_pure_shifted_pungs", "一色四节高", "Four Pure Shifted Pungs", 48, excludes=("all_pungs",), links=True)
def _four_pure_shifted_pungs(d, s):
    for g in _pung_groups(d, 4):
        if _same_suit(d, g) and _steps(d, g) == {1}:
            yield Hit(g)


# =============================================================================================
# 32


@fan("four_pure_shifted_chows", "一色四步高", "Four Pure Shifted Chows", 32, links=True,
     note="steps of one or of two")
def _four_pure_shifted_chows(d, s):
    for g in _chow_groups(d, 4):
        if _same_suit(d, g) and _steps(d, g) in ({1}, {2}):
            yield Hit(g)


@fan("three_kongs", "三杠", "Three Kongs", 32)
def _three_kongs(d, s):
    yield from _series("three_kongs")(d, s)


@fan("all_terminals_and_honours", "混幺九", "All Terminals and Honours", 32,
     excludes=("all_pungs", "outside_hand", "pung_of_terminals_or_honours"))
def _all_terminals_and_honours(d, s):
    present = hand_tiles(s)
    if (whole_hand(d, s, "all_terminals_and_honours") and all(T.is_terminal_or_honour(i) for i in present)
            and any(T.is_honour(i) for i in present) and any(T.is_terminal(i) for i in present)):
        yield whole(d)


# =============================================================================================
# 24


@fan("seven_pairs", "七对", "Seven Pairs", 24, excludes=("concealed_hand", "fully_concealed_hand", "single_wait"),
     note="four identical tiles may be two pairs")
def _seven_pairs(d, s):
    if d.form == SEVEN_PAIRS:
        yield whole(d)


@fan("greater_honours_and_knitted", "七星不靠", "Greater Honours and Knitted Tiles", 24,
     excludes=("lesser_honours_and_knitted", "all_types", "concealed_hand", "fully_concealed_hand", "single_wait"))
def _greater_honours_and_knitted(d, s):
    if d.form == "honours_knitted" and sum(T.is_honour(u.tile) for u in d.units) == 7:
        yield whole(d)


@fan("all_even_pungs", "全双刻", "All Even Pungs", 24, excludes=("all_pungs", "all_simples", "no_honours"))
def _all_even_pungs(d, s):
    if d.form == REGULAR and not shape(d).chows and all(
        u.tile < T.NUMBER_TILES and _rank(u) % 2 == 0 for u in d.units
    ):
        yield whole(d)


@fan("full_flush", "清一色", "Full Flush", 24, excludes=("no_honours",))
def _full_flush(d, s):
    if whole_hand(d, s) and len(suits_present(s)) == 1 and not s.facts["honours"]:
        yield whole(d)


@fan("pure_triple_chow", "一色三同顺", "Pure Triple Chow", 24, absorbs=("pure_double_chow",), links=True)
def _pure_triple_chow(d, s):
    for g in _chow_groups(d, 3):
        if len({d.units[i].tile for i in g}) == 1:
            yield Hit(g)


@fan("pure_shifted_pungs", "一色三节高", "Pure Shifted Pungs", 24, links=True)
def _pure_shifted_pungs(d, s):
    for g in _pung_groups(d, 3):
        if _same_suit(d, g) and _steps(d, g) == {1}:
            yield Hit(g)


def _ranks_within(s: Situation, low: int, high: int) -> bool:
    return not s.facts["honours"] and all(low <= T.rank(i) <= high for i in hand_tiles(s))


@fan("upper_tiles", "全大", "Upper Tiles", 24, excludes=("upper_four", "no_honours"))
def _upper_tiles(d, s):
    if whole_hand(d, s, "upper_tiles") and _ranks_within(s, 7, 9):
        yield whole(d)


@fan("middle_tiles", "全中", "Middle Tiles", 24, excludes=("all_simples", "no_honours"))
def _middle_tiles(d, s):
    if whole_hand(d, s, "middle_tiles") and _ranks_within(s, 4, 6):
        yield whole(d)


@fan("lower_tiles", "全小", "Lower Tiles", 24, excludes=("lower_four", "no_honours"))
def _lower_tiles(d, s):
    if whole_hand(d, s, "lower_tiles") and _ranks_within(s, 1, 3):
        yield whole(d)


# =============================================================================================
# 16


@fan("pure_straight", "清龙", "Pure Straight", 16, links=True)
def _pure_straight(d, s):
    for g in _chow_groups(d, 3):
        if _same_suit(d, g) and _ranks(d, g) == [1, 4, 7]:
            yield Hit(g)


@fan("three_suited_terminal_chows", "三色双龙会", "Three-Suited Terminal Chows", 16,
     excludes=("all_chows", "no_honours"), absorbs=("mixed_double_chow", "two_terminal_chows"), links=True)
def _three_suited_terminal_chows(d, s):
    low, high, pair = _terminal_chow_sets(d)
    if len(low) == 2 and len(high) == 2 and pair >= 0:
        low_suits = {_suit(d.units[i]) for i in low}
        if len(low_suits) == 2 and low_suits == {_suit(d.units[i]) for i in high} \
                and _suit(d.units[pair]) not in low_suits:
            yield Hit((*low, *high, pair))


@fan("pure_shifted_chows", "一色三步高", "Pure Shifted Chows", 16, links=True, note="steps of one or of two")
def _pure_shifted_chows(d, s):
    for g in _chow_groups(d, 3):
        if _same_suit(d, g) and _steps(d, g) in ({1}, {2}):
            yield Hit(g)


@fan("all_fives", "全带五", "All Fives", 16, excludes=("all_simples", "no_honours"))
def _all_fives(d, s):
    if d.form == REGULAR and all(
        u.tile < T.NUMBER_TILES and _rank(u) <= 5 <= _rank(u) + len(set(u.tiles)) - 1 for u in d.units
    ):
        yield whole(d)


@fan("triple_pung", "三同刻", "Triple Pung", 16, absorbs=("double_pung",), links=True)
def _triple_pung(d, s):
    for g in _pung_groups(d, 3):
        if len(set(_ranks(d, g))) == 1:
            yield Hit(g)


@fan("three_concealed_pungs", "三暗刻", "Three Concealed Pungs", 16)
def _three_concealed_pungs(d, s):
    yield from _series("three_concealed_pungs")(d, s)


# =============================================================================================
# 12


@fan("lesser_honours_and_knitted", "全不靠", "Lesser Honours and Knitted Tiles", 12,
     excludes=("all_types", "concealed_hand", "fully_concealed_hand", "single_wait"))
def _lesser_honours_and_knitted(d, s):
    if d.form == "honours_knitted":
        yield whole(d)


@fan("knitted_straight", "组合龙", "Knitted Straight", 12,
     note="also with all nine knitted tiles inside 全不靠 / 七星不靠")
def _knitted_straight(d, s):
    if d.form == KNITTED:
        yield Hit(tuple(i for i, u in enumerate(d.units) if u.kind == "knitted"))
    elif d.form == "honours_knitted":
        numbers = [i for i, u in enumerate(d.units) if u.tile < T.NUMBER_TILES]
        if len(numbers) == 9:
            yield Hit(tuple(numbers))


@fan("upper_four", "大于五", "Upper Four", 12, excludes=("no_honours",))
def _upper_four(d, s):
    if whole_hand(d, s, "upper_four") and _ranks_within(s, 6, 9):
        yield whole(d)


@fan("lower_four", "小于五", "Lower Four", 12, excludes=("no_honours",))
def _lower_four(d, s):
    if whole_hand(d, s, "lower_four") and _ranks_within(s, 1, 4):
        yield whole(d)


@fan("big_three_winds", "三风刻", "Big Three Winds", 12, absorbs=("pung_of_terminals_or_honours",), links=True)
def _big_three_winds(d, s):
    for g in combinations(_honour_pungs(d, 27, 30), 3):
        yield Hit(g)


# =============================================================================================
# 8


@fan("mixed_straight", "花龙", "Mixed Straight", 8, links=True)
def _mixed_straight(d, s):
    for g in _chow_groups(d, 3):
        if _distinct_suits(d, g) and sorted(_ranks(d, g)) == [1, 4, 7]:
            yield Hit(g)


@fan("reversible_tiles", "推不倒", "Reversible Tiles", 8, excludes=("one_voided_suit",))
def _reversible_tiles(d, s):
    if whole_hand(d, s) and _only(s, REVERSIBLE):
        yield whole(d)


@fan("mixed_triple_chow", "三色三同顺", "Mixed Triple Chow", 8, absorbs=("mixed_double_chow",), links=True)
def _mixed_triple_chow(d, s):
    for g in _chow_groups(d, 3):
        if _distinct_suits(d, g) and len(set(_ranks(d, g))) == 1:
            yield Hit(g)


@fan("mixed_shifted_pungs", "三色三节高", "Mixed Shifted Pungs", 8, links=True)
def _mixed_shifted_pungs(d, s):
    for g in _pung_groups(d, 3):
        if _distinct_suits(d, g) and _steps(d, g) == {1}:
            yield Hit(g)


@fan("chicken_hand", "无番和", "Chicken Hand", 8,
     note="scored by the scorer when no other fan counts (flowers do not count)")
def _chicken_hand(d, s):
    return iter(())


@fan("last_tile_draw", "妙手回春", "Last Tile Draw", 8, excludes=("self_drawn",))
def _last_tile_draw(d, s):
    if s.context.last_tile and s.context.self_drawn:
        yield Hit((d.winning_unit,), (s.facts["winning"],))


@fan("last_tile_claim", "海底捞月", "Last Tile Claim", 8)
def _last_tile_claim(d, s):
    if s.context.last_tile and not s.context.self_drawn:
        yield Hit((d.winning_unit,), (s.facts["winning"],))


@fan("out_with_replacement_tile", "杠上开花", "Out with Replacement Tile", 8, excludes=("self_drawn",))
def _out_with_replacement_tile(d, s):
    if s.context.kong_replacement:
        yield Hit((d.winning_unit,), (s.facts["winning"],))


@fan("robbing_the_kong", "抢杠和", "Robbing the Kong", 8, excludes=("last_copy",))
def _robbing_the_kong(d, s):
    if s.context.robbing_kong:
        yield Hit((d.winning_unit,), (s.facts["winning"],))


# =============================================================================================
# 6


@fan("all_pungs", "碰碰和", "All Pungs", 6)
def _all_pungs(d, s):
    if d.form == REGULAR and not shape(d).chows:
        yield whole(d)


@fan("half_flush", "混一色", "Half Flush", 6)
def _half_flush(d, s):
    if whole_hand(d, s) and len(suits_present(s)) == 1 and s.facts["honours"]:
        yield whole(d)


@fan("mixed_shifted_chows", "三色三步高", "Mixed Shifted Chows", 6, links=True)
def _mixed_shifted_chows(d, s):
    for g in _chow_groups(d, 3):
        if _distinct_suits(d, g) and _steps(d, g) == {1}:
            yield Hit(g)


@fan("all_types", "五门齐", "All Types", 6)
def _all_types(d, s):
    if d.form in (REGULAR, SEVEN_PAIRS, KNITTED) and len(suits_present(s)) == 3 \
            and s.facts["winds"] and s.facts["dragons"]:
        yield whole(d)


@fan("melded_hand", "全求人", "Melded Hand", 6, excludes=("single_wait",),
     note="four exposed melds and a win on a discard")
def _melded_hand(d, s):
    if len(s.hand.melds) == 4 and not s.context.self_drawn and all(m.exposed for m in s.hand.melds):
        yield whole(d)


@fan("two_concealed_kongs", "双暗杠", "Two Concealed Kongs", 6)
def _two_concealed_kongs(d, s):
    yield from _series("two_concealed_kongs")(d, s)


@fan("two_dragon_pungs", "双箭刻", "Two Dragon Pungs", 6,
     absorbs=("dragon_pung", "pung_of_terminals_or_honours"), links=True)
def _two_dragon_pungs(d, s):
    for g in combinations(_honour_pungs(d, 31, 33), 2):
        yield Hit(g)


# =============================================================================================
# 5 (current practice; kong_1998 scores 明杠 + 暗杠 instead)


@fan("concealed_and_exposed_kongs", "明暗杠", "Concealed and Melded Kongs", 5)
def _concealed_and_exposed_kongs(d, s):
    yield from _series("concealed_and_exposed_kongs")(d, s)


# =============================================================================================
# 4


@fan("outside_hand", "全带幺", "Outside Hand", 4)
def _outside_hand(d, s):
    if d.form == REGULAR and all(any(T.is_terminal_or_honour(i) for i in u.tiles) for u in d.units):
        yield whole(d)


@fan("fully_concealed_hand", "不求人", "Fully Concealed Hand", 4, excludes=("concealed_hand", "self_drawn"),
     note="self-drawn with no chow, pung or exposed kong claimed")
def _fully_concealed_hand(d, s):
    if s.context.self_drawn and s.hand.is_concealed:
        yield whole(d)


@fan("two_melded_kongs", "双明杠", "Two Melded Kongs", 4)
def _two_melded_kongs(d, s):
    yield from _series("two_melded_kongs")(d, s)


@fan("last_copy", "和绝张", "Last Tile", 4, excludes=("single_wait",),
     note="the other three copies are visible; derived when they are in the winner's own melds")
def _last_tile(d, s):
    if s.context.last_copy:
        yield Hit((d.winning_unit,), (s.facts["winning"],))


# =============================================================================================
# 2


@fan("dragon_pung", "箭刻", "Dragon Pung", 2, absorbs=("pung_of_terminals_or_honours",))
def _dragon_pung(d, s):
    for i in _honour_pungs(d, 31, 33):
        yield Hit((i,))


@fan("prevalent_wind", "圈风刻", "Prevalent Wind", 2, absorbs=("pung_of_terminals_or_honours",))
def _prevalent_wind(d, s):
    wind = T.WIND_TILES[s.context.round_wind]
    for i in _honour_pungs(d, wind, wind):
        yield Hit((i,))


@fan("seat_wind", "门风刻", "Seat Wind", 2, absorbs=("pung_of_terminals_or_honours",))
def _seat_wind(d, s):
    wind = T.WIND_TILES[s.context.seat_wind]
    for i in _honour_pungs(d, wind, wind):
        yield Hit((i,))


@fan("concealed_hand", "门前清", "Concealed Hand", 2, note="no claimed meld, won on a discard")
def _concealed_hand(d, s):
    if not s.context.self_drawn and s.hand.is_concealed:
        yield whole(d)


@fan("all_chows", "平和", "All Chows", 2, excludes=("no_honours",), note="four chows and a pair of a suit")
def _all_chows(d, s):
    sh = shape(d)
    if d.form in (REGULAR, KNITTED) and not sh.pungs and sh.pair >= 0 and d.units[sh.pair].tile < T.NUMBER_TILES:
        yield whole(d)


@fan("tile_hog", "四归一", "Tile Hog", 2, note="all four copies of a tile in the hand, not as a kong")
def _tile_hog(d, s):
    if d.form in (REGULAR, SEVEN_PAIRS, KNITTED):
        for t in s.facts["fours"]:
            if not any(u.kind == "kong" and u.tile == t for u in d.units):
                yield Hit(tuple(i for i, u in enumerate(d.units) if t in u.tiles), (t,) * 4)


@fan("double_pung", "双同刻", "Double Pung", 2, links=True)
def _double_pung(d, s):
    for g in _pung_groups(d, 2):
        if len(set(_ranks(d, g))) == 1:
            yield Hit(g)


@fan("two_concealed_pungs", "双暗刻", "Two Concealed Pungs", 2)
def _two_concealed_pungs(d, s):
    yield from _series("two_concealed_pungs")(d, s)


@fan("concealed_kong", "暗杠", "Concealed Kong", 2)
def _concealed_kong(d, s):
    yield from _series("concealed_kong")(d, s)


@fan("all_simples", "断幺", "All Simples", 2, excludes=("no_honours",))
def _all_simples(d, s):
    if whole_hand(d, s) and not any(T.is_terminal_or_honour(i) for i in hand_tiles(s)):
        yield whole(d)


# =============================================================================================
# 1


@fan("pure_double_chow", "一般高", "Pure Double Chow", 1, links=True)
def _pure_double_chow(d, s):
    for g in _chow_groups(d, 2):
        if d.units[g[0]].tile == d.units[g[1]].tile:
            yield Hit(g)


@fan("mixed_double_chow", "喜相逢", "Mixed Double Chow", 1, links=True)
def _mixed_double_chow(d, s):
    for g in _chow_groups(d, 2):
        if _distinct_suits(d, g) and _rank(d.units[g[0]]) == _rank(d.units[g[1]]):
            yield Hit(g)


@fan("short_straight", "连六", "Short Straight", 1, links=True)
def _short_straight(d, s):
    for g in _chow_groups(d, 2):
        if _same_suit(d, g) and _steps(d, g) == {3}:
            yield Hit(g)


@fan("two_terminal_chows", "老少副", "Two Terminal Chows", 1, links=True)
def _two_terminal_chows(d, s):
    for g in _chow_groups(d, 2):
        if _same_suit(d, g) and _steps(d, g) == {6}:
            yield Hit(g)


@fan("pung_of_terminals_or_honours", "幺九刻", "Pung of Terminals or Honours", 1)
def _pung_of_terminals_or_honours(d, s):
    for i in shape(d).pungs:
        if T.is_terminal_or_honour(d.units[i].tile):
            yield Hit((i,))


@fan("melded_kong", "明杠", "Melded Kong", 1)
def _melded_kong(d, s):
    yield from _series("melded_kong")(d, s)


@fan("one_voided_suit", "缺一门", "One Voided Suit", 1)
def _one_voided_suit(d, s):
    if whole_hand(d, s) and len(suits_present(s)) == 2:
        yield whole(d)


@fan("no_honours", "无字", "No Honours", 1)
def _no_honours(d, s):
    if d.form in (REGULAR, SEVEN_PAIRS, KNITTED) and not s.facts["honours"]:
        yield whole(d)


@fan("edge_wait", "边张", "Edge Wait", 1)
def _edge_wait(d, s):
    yield from _wait("edge_wait")(d, s)


@fan("closed_wait", "嵌张", "Closed Wait", 1)
def _closed_wait(d, s):
    yield from _wait("closed_wait")(d, s)


@fan("single_wait", "单钓将", "Single Wait", 1)
def _single_wait(d, s):
    yield from _wait("single_wait")(d, s)


@fan("self_drawn", "自摸", "Self-Drawn", 1)
def _self_drawn(d, s):
    if s.context.self_drawn:
        yield Hit((d.winning_unit,), (s.facts["winning"],))


@fan("flower_tiles", "花牌", "Flower Tiles", 1, note="one per flower, added after the 8-fan minimum")
def _flower_tiles(d, s):
    for c in s.hand.flowers:
        yield Hit((), (T.INDEX[c],))
