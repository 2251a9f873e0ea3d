"""The 100 fans of Sihai 3.1 (四海麻将标准版 3.1), each defined once beside its predicate.

Points, categories and sub-categories are the seed's table.  `basis` says where a definition comes
from: `seed` (the seed defines it), `seed-context` (the seed gives its purpose, the wording is
ours), `analog-standard` (the fan of the same name in Zung Jung or MCR), `inferred` (our reading of
the name and its place in the table).  `provisional` fans have no source at all: we score them with
our own definition and say so in the result, and `Options(provisional=False)` turns them off.

A predicate takes one arrangement (`Shape`) and returns the units that form the fan (its
provenance), or None.  A fan's exclusions of other categories' fans (`excludes`) sit on its
decorator here; the category rule and the cap live in `score.py`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import permutations

from ... import tiles as T
from ...decompose import Decomposition
from ...fans import Fan, Hit as CoreHit, Situation
from .shape import KNITTED, ORPHANS, REGULAR, SEVEN_PAIRS, SUJI_KNITTED, Shape, Unit

Hit = tuple[Unit, ...]  # the units that form a fan, or None when it does not apply
Predicate = Callable[[Shape], "Hit | None"]

# The 19 categories (类别; the 大类 where the seed leaves 类别 blank), in the seed's order.
CATEGORIES: tuple[str, ...] = (
    "花色", "牌型", "序数/幺九", "序数/全带", "序数/单双", "序数/连续", "刻杠/杠", "字牌/箭牌",
    "字牌/风牌", "一色/同顺", "一色/步高", "一色/龙顺", "一色/连刻", "一色/同顺刻", "一色/连顺刻",
    "三色/同顺刻", "三色/连顺刻", "偶然/巡数", "偶然/开杠",
)
BASES = ("seed", "seed-context", "analog-standard", "inferred")


@dataclass(frozen=True)
class TableEntry:
    """What the docs show of a fan beyond the shared `Fan` record."""

    sub: str  # the seed's 子类, "" where it has none
    basis: str  # one of BASES


FANS: list[Fan] = []
TABLE: dict[str, TableEntry] = {}  # fan key -> entry


def _key(en: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", en.lower()).strip("_")


def _detector(predicate: Predicate) -> Callable[[Decomposition, Situation], Iterable[CoreHit]]:
    """The shared predicate signature on top of a Shape predicate: one hit naming its units."""

    def detect(d: Decomposition, sit: Situation) -> list[CoreHit]:
        hit = predicate(Shape.of(d, sit))
        return [CoreHit(units=tuple(u.index for u in hit))] if hit else []

    return detect


def fan(zh: str, en: str, points: int, category: str, basis: str, definition: str, *, sub: str = "",
        provisional: bool = False, excludes: tuple[str, ...] = ()) -> Callable[[Predicate], Predicate]:
    """Register the decorated predicate as a fan (table order = order of definition).
    `excludes` names fan keys of other categories that this one replaces."""
    assert category in CATEGORIES and basis in BASES, (zh, category, basis)

    def register(predicate: Predicate) -> Predicate:
        key = _key(en)
        FANS.append(Fan(key, zh, en, points, _detector(predicate), excludes=frozenset(excludes),
                        category=category, provisional=provisional, note=definition))
        TABLE[key] = TableEntry(sub, basis)
        return predicate

    return register


# ---------------------------------------------------------------- helpers


def _whole(s: Shape, ok: bool) -> Hit | None:
    """Fans about the whole hand cite every unit."""
    return s.units if ok else None


def _find(units: Sequence[Unit], k: int, test: Callable[..., bool]) -> Hit | None:
    """First k units (in any order) that pass `test(*units)`."""
    for group in permutations(units, k):
        if test(*group):
            return group
    return None


def _two_twice(units: Sequence[Unit], test: Callable[[Unit, Unit], bool]) -> Hit | None:
    """Four units that split into two pairs, each passing `test` (the 双X fans)."""
    if len(units) != 4:
        return None
    for a, b, c, d in permutations(units):
        if test(a, b) and test(c, d):
            return (a, b, c, d)
    return None


def _same(a: Unit, b: Unit) -> bool:
    return a.kind == b.kind == "chow" and a.first == b.first


def _shifted(a: Unit, b: Unit, step: int) -> bool:
    """Both chows or both pungs of one suit, b's rank `step` above a's."""
    return a.suit == b.suit < 3 and b.rank - a.rank == step


def _sets_of_suit(s: Shape, plan: Sequence[tuple[str, int]]) -> Hit | None:
    """The four sets, all of one suit, exactly as `plan` lists them: ("chow"|"pung", rank) each."""
    sets = s.sets
    if len(sets) != 4 or len({u.suit for u in sets}) != 1 or sets[0].suit == 3:
        return None
    have = sorted(("pung" if u.is_pung else "chow", u.rank) for u in sets)
    return sets if have == sorted(plan) else None


def _units(s: Shape) -> tuple[Unit, ...] | None:
    """The units that 'every unit contains ...' fans look at: sets + pair, or the seven pairs."""
    return s.units if s.form in (REGULAR, SEVEN_PAIRS) else None


def _numbers(s: Shape) -> list[int]:
    return [i for i in s.present if not T.is_honour(i)]


def _no_honours(s: Shape) -> bool:
    return not s.has_honours


def _mixed(s: Shape) -> bool:
    """The 混 fans: honours and number tiles both present."""
    return s.has_honours and bool(_numbers(s))


SUJI_LINES = ((1, 4, 7), (2, 5, 8), (3, 6, 9))


# ---------------------------------------------------------------- 花色 (suits)


@fan("五门齐", "All Types", 20, "花色", "analog-standard",
     "Characters, dots, bamboo, a wind and a dragon all appear in the hand (any form).")
def _all_types(s: Shape) -> Hit | None:
    kinds = {"wind" if T.is_wind(i) else "dragon" if T.is_dragon(i) else T.suit(i) for i in s.present}
    return _whole(s, len(kinds) == 5)


@fan("混一色", "Half Flush", 30, "花色", "analog-standard",
     "Number tiles of exactly one suit plus at least one honour.")
def _half_flush(s: Shape) -> Hit | None:
    return _whole(s, s.has_honours and len(s.number_suits) == 1)


@fan("清一色", "Full Flush", 60, "花色", "analog-standard", "Number tiles of one suit only, no honours.")
def _full_flush(s: Shape) -> Hit | None:
    return _whole(s, not s.has_honours and len(s.number_suits) == 1)


_NINE_GATES = (3, 1, 1, 1, 1, 1, 1, 1, 3)


def _nine_gates_shape(s: Shape) -> bool:
    """14 tiles of one suit holding 1112345678999 plus one more of that suit."""
    if sum(s.counts) != 14 or s.has_honours or len(s.number_suits) != 1:
        return False
    base = 9 * next(iter(s.number_suits))
    return all(s.counts[base + k] >= need for k, need in enumerate(_NINE_GATES))


def _pure_nine_gates(s: Shape) -> bool:
    """Seed §1: the nine-gates tiles were all drawn. Self-drawn: any 九莲 + 1 in a concealed hand.
    On a discard the 13 tiles before it must already be exactly 1112345678999."""
    if not _nine_gates_shape(s) or s.hand.melds:
        return False
    if s.ctx.self_drawn:
        return True
    before = list(s.counts)
    before[T.INDEX[s.hand.winning_tile]] -= 1
    base = 9 * next(iter(s.number_suits))
    return tuple(before[base:base + 9]) == _NINE_GATES


@fan("九莲明灯", "Open Nine Gates", 160, "花色", "seed",
     "The nine-gates tiles (1112345678999 + one more of the suit) reached openly: with a claimed "
     "set, or won on a discard when the 13 tiles were not yet 1112345678999.")
def _open_nine_gates(s: Shape) -> Hit | None:
    return _whole(s, _nine_gates_shape(s) and not _pure_nine_gates(s))


@fan("字一色", "All Honours", 240, "花色", "analog-standard", "Honour tiles only.")
def _all_honours(s: Shape) -> Hit | None:
    return _whole(s, not _numbers(s))


@fan("九莲宝灯", "Nine Gates", 480, "花色", "seed",
     "Concealed 1112345678999 of one suit plus one more tile of it, all drawn: self-drawn, the "
     "extra tile need not be the winning tile; on a discard the 13 tiles must already be "
     "1112345678999.")
def _nine_gates(s: Shape) -> Hit | None:
    return _whole(s, _pure_nine_gates(s))


# ---------------------------------------------------------------- 牌型 (hand shape)


@fan("平和", "All Chows", 5, "牌型", "analog-standard",
     "Four chows and a pair; any pair, wait or concealment (Zung Jung reading).", sub="基本")
def _all_chows(s: Shape) -> Hit | None:
    return _whole(s, s.form == REGULAR and len(s.chows) == 4)


@fan("对对和", "All Pungs", 30, "牌型", "analog-standard", "Four pungs or kongs and a pair.", sub="基本")
def _all_pungs(s: Shape) -> Hit | None:
    return _whole(s, s.form == REGULAR and len(s.pungs) == 4)


@fan("七对", "Seven Pairs", 60, "牌型", "analog-standard",
     "Seven pairs; four identical tiles may stand as two pairs (that also scores 杠七对).", sub="七对")
def _seven_pairs(s: Shape) -> Hit | None:
    return _whole(s, s.form == SEVEN_PAIRS)


@fan("连七对", "Seven Shifted Pairs", 320, "牌型", "seed",
     "Seven pairs of one suit on seven consecutive ranks, e.g. 22334455667788m.", sub="七对")
def _shifted_pairs(s: Shape) -> Hit | None:
    if s.form != SEVEN_PAIRS or s.has_honours or len(s.number_suits) != 1:
        return None
    ranks = sorted(u.rank for u in s.units)
    return _whole(s, ranks == list(range(ranks[0], ranks[0] + 7)))


@fan("大七星", "Seven Stars", 480, "牌型", "seed", "Seven pairs: one pair of each of the seven honours.",
     sub="七对")
def _seven_stars(s: Shape) -> Hit | None:
    return _whole(s, s.form == SEVEN_PAIRS and sorted(u.first for u in s.units) == list(range(27, 34)))


def _quad_pairs(s: Shape, quads: int) -> Hit | None:
    """Seven pairs in which `quads` different tiles each stand as two pairs (seed: 杠七对)."""
    if s.form != SEVEN_PAIRS:
        return None
    four = [u for u in s.units if s.counts[u.first] == 4]
    return tuple(four) if len(four) >= 2 * quads else None


@fan("杠七对", "Seven Pairs with a Quad", 80, "牌型", "seed",
     "Seven pairs in which four identical (undeclared) tiles form two of the pairs.", sub="七对")
def _one_quad_pairs(s: Shape) -> Hit | None:
    return _quad_pairs(s, 1)


@fan("双杠七对", "Seven Pairs with Two Quads", 160, "牌型", "inferred",
     "Seven pairs holding two different sets of four identical tiles.", sub="七对")
def _two_quad_pairs(s: Shape) -> Hit | None:
    return _quad_pairs(s, 2)


@fan("三杠七对", "Seven Pairs with Three Quads", 320, "牌型", "inferred",
     "Seven pairs holding three different sets of four identical tiles.", sub="七对")
def _three_quad_pairs(s: Shape) -> Hit | None:
    return _quad_pairs(s, 3)


@fan("全不靠", "Knitted Honours and Tiles", 30, "牌型", "analog-standard",
     "14 different single tiles: honours and the 147 / 258 / 369 lines, each suit on its own, "
     "different line (MCR 全不靠).", sub="不靠")
def _knitted(s: Shape) -> Hit | None:
    return _whole(s, s.form == KNITTED)


@fan("七星不靠", "Seven Stars Knitted", 40, "牌型", "analog-standard",
     "全不靠 holding all seven honours.", sub="不靠")
def _seven_star_knitted(s: Shape) -> Hit | None:
    return _whole(s, s.form == KNITTED and all(s.counts[i] for i in range(27, 34)))


@fan("组龙不靠", "Knitted Straight Knitted", 60, "牌型", "inferred",
     "全不靠 holding all nine knitted number tiles (147, 258, 369 in three suits) and five honours.",
     sub="不靠")
def _knitted_straight_knitted(s: Shape) -> Hit | None:
    return _whole(s, s.form == KNITTED and len(_numbers(s)) == 9)


@fan("十三幺", "Thirteen Orphans", 160, "牌型", "analog-standard",
     "One of each terminal and honour (13 kinds) plus a second copy of one of them.", sub="不靠")
def _orphans(s: Shape) -> Hit | None:
    return _whole(s, s.form == ORPHANS)


@fan("筋不靠", "Suji Knitted", 30, "牌型", "inferred",
     "14 different single tiles: honours and number tiles where each suit keeps to one 筋 line "
     "(147, 258 or 369), suits free to share a line (全不靠 without the different-lines rule).",
     sub="不靠", provisional=True)
def _suji_knitted(s: Shape) -> Hit | None:
    return _whole(s, s.form in (KNITTED, SUJI_KNITTED))


# ---------------------------------------------------------------- 序数 (number tiles)


@fan("断幺", "All Simples", 5, "序数/幺九", "analog-standard", "Number tiles 2-8 only.")
def _all_simples(s: Shape) -> Hit | None:
    return _whole(s, all(not T.is_terminal_or_honour(i) for i in s.present))


@fan("混带幺", "Mixed Outside Hand", 30, "序数/幺九", "analog-standard",
     "Every set and the pair (every pair of seven pairs) holds a terminal or is of honours.")
def _mixed_outside(s: Shape) -> Hit | None:
    units = _units(s)
    return _whole(s, units is not None and all(
        any(T.is_terminal_or_honour(i) for i in u.tiles) for u in units))


@fan("清带幺", "Pure Outside Hand", 40, "序数/幺九", "analog-standard",
     "No honours; every set and the pair holds a 1 or a 9.")
def _pure_outside(s: Shape) -> Hit | None:
    units = _units(s)
    return _whole(s, units is not None and _no_honours(s) and all(
        any(T.is_terminal(i) for i in u.tiles) for u in units))


@fan("混幺九", "All Terminals and Honours", 80, "序数/幺九", "analog-standard",
     "Terminals (1, 9) and honours only (an all-honours hand qualifies). Replaces 混全单, which "
     "its odd terminals would also make (the seed counts 混幺九 对对和 as 30 + 80).",
     excludes=("mixed_all_odd",))
def _terminals_honours(s: Shape) -> Hit | None:
    return _whole(s, all(T.is_terminal_or_honour(i) for i in s.present))


@fan("清幺九", "All Terminals", 320, "序数/幺九", "analog-standard",
     "Terminals (1, 9) only. Replaces 全单, as 混幺九 replaces 混全单.", excludes=("all_odd",))
def _all_terminals(s: Shape) -> Hit | None:
    return _whole(s, all(T.is_terminal(i) for i in s.present))


def _carry(s: Shape, pure: bool) -> int | None:
    """The rank 2-8 that every number unit holds (honour units allowed unless `pure`)."""
    units = _units(s)
    if units is None or (pure and s.has_honours) or (not pure and not _mixed(s)):
        return None
    numbered = [u for u in units if u.suit < 3]
    for rank in range(2, 9):
        if all(u.rank <= rank <= u.last_rank for u in numbered):
            return rank
    return None


@fan("混全带", "Mixed All Carry", 20, "序数/全带", "inferred",
     "Every number set and the pair hold one same rank N (2-8; suits may differ), with honour "
     "sets or pair beside them, e.g. 345m 555p 456s EEE 55s.", provisional=True)
def _mixed_carry(s: Shape) -> Hit | None:
    return _whole(s, _carry(s, pure=False) is not None)


@fan("清全带", "Pure All Carry", 40, "序数/全带", "inferred",
     "No honours; every set and the pair hold one same rank N (2-8), e.g. MCR 全带五.",
     provisional=True)
def _pure_carry(s: Shape) -> Hit | None:
    return _whole(s, _carry(s, pure=True) is not None)


@fan("全称", "Balanced All Carry", 80, "序数/全带", "inferred",
     "清全带 whose tiles balance around the shared rank N: in every suit N-k and N+k appear "
     "equally often, e.g. 345m 345p 444s 345s 44m.", provisional=True)
def _balanced_carry(s: Shape) -> Hit | None:
    rank = _carry(s, pure=True)
    if rank is None:
        return None
    for suit in range(3):
        row = s.counts[9 * suit:9 * suit + 9]
        for r in range(1, 10):
            mirror = 2 * rank - r
            if row[r - 1] != (row[mirror - 1] if 1 <= mirror <= 9 else 0):
                return None
    return s.units


def _ranks_within(s: Shape, allowed: Sequence[int]) -> bool:
    numbers = _numbers(s)
    return bool(numbers) and all(T.rank(i) in allowed for i in numbers)


@fan("混全单", "Mixed All Odd", 20, "序数/单双", "seed",
     "Odd number tiles (1 3 5 7 9) and honours, both present.")
def _mixed_odd(s: Shape) -> Hit | None:
    return _whole(s, _mixed(s) and _ranks_within(s, (1, 3, 5, 7, 9)))


@fan("混全双", "Mixed All Even", 30, "序数/单双", "seed",
     "Even number tiles (2 4 6 8) and honours, both present.")
def _mixed_even(s: Shape) -> Hit | None:
    return _whole(s, _mixed(s) and _ranks_within(s, (2, 4, 6, 8)))


@fan("全单", "All Odd", 60, "序数/单双", "seed", "Odd number tiles only, no honours.")
def _all_odd(s: Shape) -> Hit | None:
    return _whole(s, _no_honours(s) and _ranks_within(s, (1, 3, 5, 7, 9)))


@fan("全双", "All Even", 80, "序数/单双", "seed",
     "Even number tiles only, no honours. Replaces 断幺, which every even tile makes (the seed "
     "counts 全双 对对和 as 30 + 80).", excludes=("all_simples",))
def _all_even(s: Shape) -> Hit | None:
    return _whole(s, _no_honours(s) and _ranks_within(s, (2, 4, 6, 8)))


@fan("全筋", "All One Suji Line", 120, "序数/单双", "seed",
     "No honours; every rank on one 筋 line: all of 147, or all of 258 (全将), or all of 369; "
     "suits free. Replaces 全单/全双 (same category).")
def _one_line(s: Shape) -> Hit | None:
    return _whole(s, _no_honours(s) and any(_ranks_within(s, line) for line in SUJI_LINES))


def _connected(units: Sequence[Unit]) -> bool:
    """Rank spans that do not overlap and leave no gap: each unit starts where the last ended + 1."""
    spans = sorted((u.rank, u.last_rank) for u in units)
    return all(b[0] == a[1] + 1 for a, b in zip(spans, spans[1:]))


@fan("混全连", "Mixed Full Connection", 20, "序数/连续", "inferred",
     "全连 among the number sets and pair (at least two of them), beside honour sets or pair.",
     provisional=True)
def _mixed_connection(s: Shape) -> Hit | None:
    units = _units(s)
    if units is None or not _mixed(s):
        return None
    numbered = [u for u in units if u.suit < 3]
    return _whole(s, len(numbered) >= 2 and _connected(numbered))


@fan("全连", "Full Connection", 40, "序数/连续", "seed-context",
     "No honours; the rank spans of the sets and the pair (or of the seven pairs) neither overlap "
     "nor leave a gap, suits free: e.g. 11m 222p 345m 666p 789s, or seven pairs on seven "
     "consecutive ranks.")
def _full_connection(s: Shape) -> Hit | None:
    units = _units(s)
    return _whole(s, units is not None and _no_honours(s) and _connected(units))


# ---------------------------------------------------------------- 刻杠 (kongs)


def _kongs(s: Shape, n: int) -> Hit | None:
    kongs = tuple(u for u in s.sets if u.kind == "kong")
    return kongs if len(kongs) >= n else None


@fan("一杠", "One Kong", 10, "刻杠/杠", "analog-standard", "One kong, exposed or concealed.")
def _one_kong(s: Shape) -> Hit | None:
    return _kongs(s, 1)


@fan("双杠", "Two Kongs", 30, "刻杠/杠", "analog-standard", "Two kongs.")
def _two_kongs(s: Shape) -> Hit | None:
    return _kongs(s, 2)


@fan("三杠", "Three Kongs", 120, "刻杠/杠", "analog-standard", "Three kongs.")
def _three_kongs(s: Shape) -> Hit | None:
    return _kongs(s, 3)


@fan("四杠", "Four Kongs", 480, "刻杠/杠", "analog-standard", "Four kongs.")
def _four_kongs(s: Shape) -> Hit | None:
    return _kongs(s, 4)


# ---------------------------------------------------------------- 字牌 (honours)


def _honour_sets(s: Shape, honours: range) -> tuple[list[Unit], list[Unit]]:
    """(pungs/kongs, pairs) of the given honour tiles."""
    pungs = [u for u in s.pungs if u.first in honours]
    pairs = [u for u in s.units if u.kind == "pair" and u.first in honours]
    return pungs, pairs


DRAGON_TILES = range(31, 34)
WIND_TILES = range(27, 31)


@fan("番牌", "Dragon Pung", 10, "字牌/箭牌", "analog-standard",
     "A pung or kong of a dragon; counted once however many (category rule). Winds score only "
     "through the 风牌 fans.")
def _dragon_pung(s: Shape) -> Hit | None:
    pungs, _ = _honour_sets(s, DRAGON_TILES)
    return tuple(pungs) or None


@fan("三元对", "Three Dragon Pairs", 40, "字牌/箭牌", "seed-context",
     "Seven pairs with a pair of each dragon.")
def _dragon_pairs(s: Shape) -> Hit | None:
    _, pairs = _honour_sets(s, DRAGON_TILES)
    return tuple(pairs) if s.form == SEVEN_PAIRS and len({u.first for u in pairs}) == 3 else None


@fan("小三元", "Little Three Dragons", 80, "字牌/箭牌", "analog-standard",
     "Two dragon pungs or kongs and the pair of the third dragon.")
def _little_dragons(s: Shape) -> Hit | None:
    pungs, pairs = _honour_sets(s, DRAGON_TILES)
    return tuple(pungs + pairs) if s.form == REGULAR and len(pungs) == 2 and pairs else None


@fan("大三元", "Big Three Dragons", 160, "字牌/箭牌", "analog-standard", "Pungs or kongs of all three dragons.")
def _big_dragons(s: Shape) -> Hit | None:
    pungs, _ = _honour_sets(s, DRAGON_TILES)
    return tuple(pungs) if len(pungs) == 3 else None


@fan("小三风", "Little Three Winds", 30, "字牌/风牌", "seed",
     "Two wind pungs or kongs and the pair of a third wind.")
def _little_three_winds(s: Shape) -> Hit | None:
    pungs, pairs = _honour_sets(s, WIND_TILES)
    return tuple(pungs + pairs) if s.form == REGULAR and len(pungs) >= 2 and pairs else None


@fan("大三风", "Big Three Winds", 80, "字牌/风牌", "analog-standard", "Three wind pungs or kongs.")
def _big_three_winds(s: Shape) -> Hit | None:
    pungs, _ = _honour_sets(s, WIND_TILES)
    return tuple(pungs) if len(pungs) >= 3 else None


@fan("小四喜", "Little Four Winds", 240, "字牌/风牌", "analog-standard",
     "Three wind pungs or kongs and the pair of the fourth wind.")
def _little_four_winds(s: Shape) -> Hit | None:
    pungs, pairs = _honour_sets(s, WIND_TILES)
    return tuple(pungs + pairs) if s.form == REGULAR and len(pungs) == 3 and pairs else None


@fan("大四喜", "Big Four Winds", 320, "字牌/风牌", "analog-standard", "Pungs or kongs of all four winds.")
def _big_four_winds(s: Shape) -> Hit | None:
    pungs, _ = _honour_sets(s, WIND_TILES)
    return tuple(pungs) if len(pungs) == 4 else None


@fan("三风对", "Three Wind Pairs", 20, "字牌/风牌", "seed-context",
     "Seven pairs with pairs of three different winds.")
def _three_wind_pairs(s: Shape) -> Hit | None:
    _, pairs = _honour_sets(s, WIND_TILES)
    return tuple(pairs) if s.form == SEVEN_PAIRS and len({u.first for u in pairs}) >= 3 else None


@fan("四喜对", "Four Wind Pairs", 80, "字牌/风牌", "seed-context", "Seven pairs with a pair of each wind.")
def _four_wind_pairs(s: Shape) -> Hit | None:
    _, pairs = _honour_sets(s, WIND_TILES)
    return tuple(pairs) if s.form == SEVEN_PAIRS and len({u.first for u in pairs}) == 4 else None


# ---------------------------------------------------------------- 一色 (one-suit set patterns)


@fan("一般高", "Pure Double Chow", 10, "一色/同顺", "analog-standard", "Two identical chows (same suit, same ranks).")
def _double_chow(s: Shape) -> Hit | None:
    return _find(s.chows, 2, _same)


@fan("双般高", "Twice Pure Double Chow", 80, "一色/同顺", "analog-standard",
     "Two separate 一般高 (the two may be in different suits).")
def _twice_double_chow(s: Shape) -> Hit | None:
    return _two_twice(s.chows, _same)


@fan("三同顺", "Pure Triple Chow", 120, "一色/同顺", "analog-standard", "Three identical chows.")
def _triple_chow(s: Shape) -> Hit | None:
    return _find(s.chows, 3, lambda a, b, c: _same(a, b) and _same(b, c))


@fan("四同顺", "Quadruple Chow", 480, "一色/同顺", "analog-standard", "Four identical chows.")
def _quadruple_chow(s: Shape) -> Hit | None:
    return _find(s.chows, 4, lambda a, b, c, d: _same(a, b) and _same(b, c) and _same(c, d))


def _step(a: Unit, b: Unit) -> bool:
    return _shifted(a, b, 1)


@fan("一般低", "Two Shifted Chows", 5, "一色/步高", "inferred",
     "Two chows of one suit, the second one rank higher (234m 345m). Steps are always one rank.")
def _two_shifted_chows(s: Shape) -> Hit | None:
    return _find(s.chows, 2, _step)


@fan("三步高", "Pure Shifted Chows", 60, "一色/步高", "analog-standard",
     "Three chows of one suit, each one rank above the last (123 234 345).")
def _three_shifted_chows(s: Shape) -> Hit | None:
    return _find(s.chows, 3, lambda a, b, c: _step(a, b) and _step(b, c))


def _four_steps(s: Shape) -> Hit | None:
    return _find(s.chows, 4, lambda a, b, c, d: _step(a, b) and _step(b, c) and _step(c, d))


@fan("四步高", "Four Pure Shifted Chows", 160, "一色/步高", "analog-standard",
     "Four chows of one suit, each one rank above the last (123 234 345 456).")
def _four_shifted_chows(s: Shape) -> Hit | None:
    return _four_steps(s)


@fan("银梯", "Silver Ladder", 240, "一色/步高", "inferred",
     "四步高 whose pair, of the same suit, carries the staircase one step on: the rank just above "
     "the top chow (123 234 345 456 77) or just below the bottom one.", provisional=True)
def _silver_ladder(s: Shape) -> Hit | None:
    steps, pair = _four_steps(s), s.pair
    if steps is None or pair is None or pair.suit != steps[0].suit:
        return None
    return steps + (pair,) if pair.rank in (steps[0].rank - 1, steps[3].rank + 3) else None


@fan("双般低", "Twice Two Shifted Chows", 60, "一色/步高", "inferred",
     "Two separate 一般低 (each pair in one suit; the two may differ).")
def _twice_shifted_chows(s: Shape) -> Hit | None:
    return _two_twice(s.chows, _step)


def _chows_at(s: Shape, ranks: Sequence[int]) -> Hit | None:
    """Chows of one suit starting at exactly these ranks (a rank may repeat)."""
    for suit in range(3):
        pool = [u for u in s.chows if u.suit == suit]
        picked: list[Unit] = []
        for r in ranks:
            u = next((c for c in pool if c.rank == r and c not in picked), None)
            if u is None:
                break
            picked.append(u)
        else:
            return tuple(picked)
    return None


@fan("老少副", "Two Terminal Chows", 5, "一色/龙顺", "analog-standard", "123 and 789 of one suit.", sub="对称")
def _terminal_chows(s: Shape) -> Hit | None:
    return _chows_at(s, (1, 7))


@fan("一条龙", "Pure Straight", 40, "一色/龙顺", "analog-standard", "123, 456 and 789 of one suit.", sub="对称")
def _pure_straight(s: Shape) -> Hit | None:
    return _chows_at(s, (1, 4, 7))


@fan("连环龙", "Chained Dragon", 120, "一色/龙顺", "inferred",
     "Four interlocking chows 123 345 567 789 of one suit.", sub="对称", provisional=True)
def _chained_dragon(s: Shape) -> Hit | None:
    return _chows_at(s, (1, 3, 5, 7))


@fan("双龙会", "Pure Terminal Chows", 320, "一色/龙顺", "analog-standard",
     "123 123 789 789 and a pair of 5, all of one suit.", sub="对称")
def _pure_terminal_chows(s: Shape) -> Hit | None:
    chows, pair = _chows_at(s, (1, 1, 7, 7)), s.pair
    ok = chows is not None and pair is not None and pair.suit == chows[0].suit and pair.rank == 5
    return chows + (pair,) if ok else None


def _short_straight(a: Unit, b: Unit) -> bool:
    return _shifted(a, b, 3)


@fan("连六", "Short Straight", 5, "一色/龙顺", "analog-standard",
     "Two chows of one suit making six consecutive ranks (234 567).", sub="连顺")
def _short(s: Shape) -> Hit | None:
    return _find(s.chows, 2, _short_straight)


@fan("双连六", "Two Short Straights", 40, "一色/龙顺", "inferred",
     "Two separate 连六 (each in one suit; the two may differ).", sub="连顺")
def _two_short(s: Shape) -> Hit | None:
    return _two_twice(s.chows, _short_straight)


@fan("镜连六", "Mirrored Short Straights", 60, "一色/龙顺", "inferred",
     "双连六 whose two 连六 have the same ranks in two different suits (234m 567m 234p 567p).",
     sub="连顺", provisional=True)
def _mirrored_short(s: Shape) -> Hit | None:
    return _find(s.chows, 4, lambda a, b, c, d: _short_straight(a, b) and _short_straight(c, d)
                 and a.rank == c.rank and a.suit != c.suit)


def _pung_step(a: Unit, b: Unit) -> bool:
    return a.is_pung and b.is_pung and _shifted(a, b, 1)


@fan("连刻", "Two Shifted Pungs", 10, "一色/连刻", "inferred",
     "Two pungs or kongs of one suit on consecutive ranks (444m 555m).")
def _two_shifted_pungs(s: Shape) -> Hit | None:
    return _find(s.pungs, 2, _pung_step)


@fan("小三连刻", "Little Three Shifted Pungs", 30, "一色/连刻", "seed-context",
     "Three consecutive ranks of one suit, two as pungs or kongs and one as the pair (the pair may be "
     "any of the three: 444 555 66, 444 666 55).")
def _little_shifted_pungs(s: Shape) -> Hit | None:
    pair = s.pair
    if pair is None or pair.suit == 3:
        return None
    for a, b in permutations(s.pungs, 2):
        ranks = sorted((a.rank, b.rank, pair.rank))
        if a.suit == b.suit == pair.suit and a.rank < b.rank and ranks == [ranks[0], ranks[0] + 1, ranks[0] + 2]:
            return (a, b, pair)
    return None


@fan("三连刻", "Pure Shifted Pungs", 80, "一色/连刻", "analog-standard",
     "Three pungs or kongs of one suit on consecutive ranks.")
def _three_shifted_pungs(s: Shape) -> Hit | None:
    return _find(s.pungs, 3, lambda a, b, c: _pung_step(a, b) and _pung_step(b, c))


@fan("双连刻", "Twice Two Shifted Pungs", 120, "一色/连刻", "inferred",
     "Two separate 连刻 (each in one suit; the two may differ), e.g. 222m 333m 666p 777p.")
def _twice_shifted_pungs(s: Shape) -> Hit | None:
    return _two_twice(s.pungs, _pung_step)


def _four_pung_steps(s: Shape) -> Hit | None:
    return _find(s.pungs, 4, lambda a, b, c, d: _pung_step(a, b) and _pung_step(b, c) and _pung_step(c, d))


@fan("四连刻", "Four Pure Shifted Pungs", 240, "一色/连刻", "analog-standard",
     "Four pungs or kongs of one suit on consecutive ranks.")
def _four_shifted_pungs(s: Shape) -> Hit | None:
    return _four_pung_steps(s)


@fan("金梯", "Golden Ladder", 320, "一色/连刻", "inferred",
     "四连刻 whose pair, of the same suit, is the next rank above or below: 111 222 333 444 55.",
     provisional=True)
def _golden_ladder(s: Shape) -> Hit | None:
    pungs, pair = _four_pung_steps(s), s.pair
    if pungs is None or pair is None or pair.suit != pungs[0].suit:
        return None
    return pungs + (pair,) if pair.rank in (pungs[0].rank - 1, pungs[3].rank + 1) else None


def _gathered(s: Shape) -> list[int]:
    """Tiles whose four copies are all in the hand without forming a kong (四归)."""
    if s.form != REGULAR:  # in seven pairs the quad is 杠七对's, not a 四归
        return []
    kongs = {u.first for u in s.sets if u.kind == "kong"}
    return [i for i, n in enumerate(s.counts) if n == 4 and i not in kongs]


def _units_holding(s: Shape, tiles: Sequence[int]) -> Hit:
    return tuple(u for u in s.units if any(u.contains(i) for i in tiles))


@fan("四归一", "Tile Hog", 10, "一色/同顺刻", "analog-standard",
     "All four copies of a tile used in the sets and pair without a kong (111m 123m); in seven "
     "pairs four identical tiles score 杠七对 instead.")
def _tile_hog(s: Shape) -> Hit | None:
    hogs = _gathered(s)
    return _units_holding(s, hogs[:1]) if hogs else None


@fan("双四归", "Two Tile Hogs", 80, "一色/同顺刻", "inferred", "Two different tiles each 四归一.")
def _two_tile_hogs(s: Shape) -> Hit | None:
    hogs = _gathered(s)
    return _units_holding(s, hogs[:2]) if len(hogs) >= 2 else None


@fan("八归", "Eight Gathered", 120, "一色/同顺刻", "inferred",
     "Pungs of two ranks of one suit and one chow holding both, so all eight copies gather in "
     "three sets: 111m 222m 123m, 111m 333m 123m.", provisional=True)
def _eight_gathered(s: Shape) -> Hit | None:
    return _find(s.sets, 3, lambda a, b, c: a.kind == b.kind == "pung" and c.kind == "chow"
                 and a.rank < b.rank and a.suit == b.suit == c.suit and c.contains(a.first) and c.contains(b.first))


@fan("十二归", "Twelve Gathered", 480, "一色/同顺刻", "inferred",
     "All four copies of three consecutive tiles of one suit, without kongs (111 222 333 123).")
def _twelve_gathered(s: Shape) -> Hit | None:
    hogs = _gathered(s)
    run = next((i for i in hogs if i + 1 in hogs and i + 2 in hogs and T.suit(i) == T.suit(i + 2)), None)
    return _units_holding(s, (run, run + 1, run + 2)) if run is not None else None


def _link(a: Unit, b: Unit) -> bool:
    """连丁: a chow and a pung of one suit touching end to end (234m 555m, 111m 234m)."""
    if not (a.kind == "chow" and b.is_pung and a.suit == b.suit):
        return False
    return b.rank in (a.rank - 1, a.rank + 3)


@fan("连丁", "Chow-Pung Link", 5, "一色/连顺刻", "inferred",
     "A chow and a pung or kong of one suit touching end to end (234m 555m).", provisional=True)
def _chow_pung_link(s: Shape) -> Hit | None:
    return _find(s.sets, 2, _link)


@fan("双飞燕", "Two Flying Swallows", 40, "一色/连顺刻", "inferred",
     "A pung between two chows of its suit, touching both: 123m 444m 567m.", provisional=True)
def _swallows(s: Shape) -> Hit | None:
    return _find(s.sets, 3, lambda a, p, b: p.is_pung and a.kind == b.kind == "chow" and p.suit == a.suit == b.suit
                 and a.rank == p.rank - 3 and b.rank == p.rank + 1)


@fan("双边高", "High on Both Sides", 60, "一色/连顺刻", "inferred",
     "A chow between two pungs or kongs of its suit, touching both: 111m 234m 555m.", provisional=True)
def _both_sides(s: Shape) -> Hit | None:
    return _find(s.sets, 3, lambda a, c, b: c.kind == "chow" and a.is_pung and b.is_pung
                 and a.suit == b.suit == c.suit and a.rank == c.rank - 1 and b.rank == c.rank + 3)


@fan("四连丁", "Four-Link Chain", 120, "一色/连顺刻", "inferred",
     "Four sets of one suit, pung and chow alternating, touching end to end: 111 234 555 678 or "
     "123 444 567 888.", provisional=True)
def _four_link_chain(s: Shape) -> Hit | None:
    sets = sorted(s.sets, key=lambda u: u.rank)
    ok = (len(sets) == 4 and len({u.suit for u in sets}) == 1 and sets[0].suit < 3 and _connected(sets)
          and all(a.is_pung != b.is_pung for a, b in zip(sets, sets[1:])))
    return tuple(sets) if ok else None


def _jade(s: Shape, plan: Sequence[tuple[str, int]], five_pair: bool) -> Hit | None:
    """The four sets exactly as planned in one suit; `five_pair`: the pair is (not) that suit's 5."""
    sets, pair = _sets_of_suit(s, plan), s.pair
    if sets is None or pair is None:
        return None
    is_five = pair.suit == sets[0].suit and pair.rank == 5
    return sets + (pair,) if is_five == five_pair else None


@fan("玉琮", "Jade Cong", 160, "一色/连顺刻", "inferred",
     "One suit: 123 444 666 789, with any pair but that suit's 5 (the hollow tube).", provisional=True)
def _jade_cong(s: Shape) -> Hit | None:
    return _jade(s, (("chow", 1), ("pung", 4), ("pung", 6), ("chow", 7)), five_pair=False)


@fan("玉璧", "Jade Disc", 240, "一色/连顺刻", "inferred",
     "One suit: 111 234 678 999, with any pair but that suit's 5 (the disc's hole).", provisional=True)
def _jade_disc(s: Shape) -> Hit | None:
    return _jade(s, (("pung", 1), ("chow", 2), ("chow", 6), ("pung", 9)), five_pair=False)


@fan("大中华", "Great China", 480, "一色/连顺刻", "inferred",
     "One suit: 111 234 55 678 999, symmetric round the pair of 5.", provisional=True)
def _great_china(s: Shape) -> Hit | None:
    return _jade(s, (("pung", 1), ("chow", 2), ("chow", 6), ("pung", 9)), five_pair=True)


@fan("双连丁", "Two Chow-Pung Links", 40, "一色/连顺刻", "inferred",
     "Two separate 连丁 (each in one suit; the two may differ): 123m 444m 567p 888p.", provisional=True)
def _two_links(s: Shape) -> Hit | None:
    return _two_twice(s.sets, _link)


@fan("王龙", "King Dragon", 240, "一色/连顺刻", "inferred",
     "一条龙 plus a pung or kong of the same suit: 123 456 789 + 999.", provisional=True)
def _king_dragon(s: Shape) -> Hit | None:
    straight = _chows_at(s, (1, 4, 7))
    if straight is None:
        return None
    pung = next((u for u in s.pungs if u.suit == straight[0].suit), None)
    return straight + (pung,) if pung else None


# ---------------------------------------------------------------- 三色 (patterns across suits)


def _mixed_same(a: Unit, b: Unit) -> bool:
    """Same kind (chow / pung-or-kong), same rank, different suits."""
    return a.is_pung == b.is_pung and a.rank == b.rank and a.suit != b.suit and a.suit < 3 and b.suit < 3


def _three_suits_alike(a: Unit, b: Unit, c: Unit) -> bool:
    return _mixed_same(a, b) and _mixed_same(b, c) and _mixed_same(a, c)


@fan("喜相逢", "Mixed Double Chow", 5, "三色/同顺刻", "analog-standard",
     "Two chows of the same ranks in two suits.", sub="同顺")
def _mixed_double_chow(s: Shape) -> Hit | None:
    return _find(s.chows, 2, _mixed_same)


@fan("三色同顺", "Mixed Triple Chow", 30, "三色/同顺刻", "analog-standard",
     "Chows of the same ranks in all three suits.", sub="同顺")
def _mixed_triple_chow(s: Shape) -> Hit | None:
    return _find(s.chows, 3, _three_suits_alike)


@fan("双同刻", "Double Pung", 10, "三色/同顺刻", "analog-standard",
     "Pungs or kongs of the same rank in two suits.", sub="同刻")
def _double_pung(s: Shape) -> Hit | None:
    return _find(s.pungs, 2, _mixed_same)


@fan("小三同刻", "Little Triple Pung", 30, "三色/同顺刻", "seed",
     "Pungs or kongs of one rank in two suits and the pair of that rank in the third suit.", sub="同刻")
def _little_triple_pung(s: Shape) -> Hit | None:
    pair = s.pair
    if pair is None or pair.suit == 3:
        return None
    hit = _find(s.pungs, 2, lambda a, b: _mixed_same(a, b) and a.rank == pair.rank
                and pair.suit not in (a.suit, b.suit))
    return hit + (pair,) if hit else None


@fan("三同刻", "Triple Pung", 80, "三色/同顺刻", "analog-standard",
     "Pungs or kongs of the same rank in all three suits.", sub="同刻")
def _triple_pung(s: Shape) -> Hit | None:
    return _find(s.pungs, 3, _three_suits_alike)


def _mirror(s: Shape, first_pung: bool, second_pung: bool) -> Hit | None:
    """Two suits each holding the same two sets (the 镜同 family): a, b in one suit; c, d in the other."""
    def test(a: Unit, b: Unit, c: Unit, d: Unit) -> bool:
        return (a.is_pung == c.is_pung == first_pung and b.is_pung == d.is_pung == second_pung
                and a.suit == b.suit and c.suit == d.suit and _mixed_same(a, c) and _mixed_same(b, d))
    return _find(s.sets, 4, test)


@fan("镜同", "Mirrored Chows", 40, "三色/同顺刻", "seed",
     "Two suits each holding the same two chows: 123m 567m 123p 567p (two 喜相逢 between the "
     "same suits).", sub="镜同")
def _mirrored_chows(s: Shape) -> Hit | None:
    return _mirror(s, False, False)


@fan("镜同顺刻", "Mirrored Chow and Pung", 60, "三色/同顺刻", "seed-context",
     "Two suits each holding the same chow and the same pung: 123m 555m 123p 555p.", sub="镜同")
def _mirrored_chow_pung(s: Shape) -> Hit | None:
    return _mirror(s, False, True)


@fan("镜同刻", "Mirrored Pungs", 120, "三色/同顺刻", "seed",
     "Two suits each holding the same two pungs: 222m 666m 222p 666p. Its value includes 对对和, "
     "which is not added (seed).", sub="镜同", excludes=("all_pungs",))
def _mirrored_pungs(s: Shape) -> Hit | None:
    return _mirror(s, True, True)


@fan("花龙", "Mixed Straight", 20, "三色/连顺刻", "analog-standard",
     "123, 456 and 789 each in a different suit.", sub="连顺")
def _mixed_straight(s: Shape) -> Hit | None:
    return _find(s.chows, 3, lambda a, b, c: (a.rank, b.rank, c.rank) == (1, 4, 7)
                 and len({a.suit, b.suit, c.suit}) == 3)


@fan("三色连刻", "Mixed Shifted Pungs", 40, "三色/连顺刻", "analog-standard",
     "Pungs or kongs of three consecutive ranks, each in a different suit.", sub="连刻")
def _mixed_shifted_pungs(s: Shape) -> Hit | None:
    return _find(s.pungs, 3, lambda a, b, c: b.rank == a.rank + 1 and c.rank == b.rank + 1
                 and a.suit < 3 and len({a.suit, b.suit, c.suit}) == 3)


# ---------------------------------------------------------------- 偶然 (chance)


@fan("海底捞月", "Last Tile Draw", 20, "偶然/巡数", "analog-standard",
     "Self-drawn win on the last tile of the wall (flag last_tile).")
def _last_draw(s: Shape) -> Hit | None:
    return _whole(s, s.ctx.last_tile and s.ctx.self_drawn)


@fan("人和", "Blessing of Man", 60, "偶然/巡数", "inferred",
     "A non-dealer wins on a discard in the first go-around, before any call (flag human).")
def _blessing_man(s: Shape) -> Hit | None:
    return _whole(s, s.ctx.human)


@fan("地和", "Blessing of Earth", 120, "偶然/巡数", "analog-standard",
     "A non-dealer self-draws the win on the first draw, before any call (flag earthly).")
def _blessing_earth(s: Shape) -> Hit | None:
    return _whole(s, s.ctx.earthly)


@fan("天和", "Blessing of Heaven", 160, "偶然/巡数", "analog-standard",
     "The dealer wins on the dealt 14 tiles (flag heavenly).")
def _blessing_heaven(s: Shape) -> Hit | None:
    return _whole(s, s.ctx.heavenly)


@fan("河底摸鱼", "Last Discard", 20, "偶然/巡数", "analog-standard",
     "Win on the last discard of the hand (flag last_tile on a discard win).")
def _last_discard(s: Shape) -> Hit | None:
    return _whole(s, s.ctx.last_tile and not s.ctx.self_drawn)


@fan("金鸡夺食", "Robbing the Kong", 20, "偶然/开杠", "analog-standard",
     "Win on the tile another player adds to a pung to make a kong (flag robbing_kong).")
def _robbing_kong(s: Shape) -> Hit | None:
    return _whole(s, s.ctx.robbing_kong)


@fan("岭上开花", "Win on Kong Replacement", 20, "偶然/开杠", "analog-standard",
     "Self-drawn win on the replacement tile after a kong (flag kong_replacement; the hand must hold "
     "a kong: flowers score nothing in Sihai, so a flower's replacement tile does not count).")
def _kong_replacement(s: Shape) -> Hit | None:
    return _whole(s, s.ctx.kong_replacement and s.hand.has_kong)


