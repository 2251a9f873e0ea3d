"""Seeded generator of random, valid MCR winning hands in the project's JSON hand schema.

Used by the differential test (tests/test_mcr_differential.py) and the speed benchmark
(benchmarks/bench_scoring.py). Plain uniform sampling almost never produces the big fans, so a
hand is built from a *style* (which tiles and sets it may use: one suit, honours, 7-9 only,
green tiles, ...) and, for half of the standard hands, a *pattern* (two to four related sets:
shifted chows, same chow in three suits, a run of pungs, wind pungs, ...). Special shapes (seven
pairs, thirteen orphans, knitted hands, nine gates) have their own builders.

Every hand satisfies the engine's input contract: at most four copies of a tile, 14 tiles with
kongs counted as three, the winning tile in the concealed part, and context flags that the tiles
allow (a kong for 杠上开花, no other copy of the winning tile for 抢杠和, no concealed copy of the
winning tile for 和绝张, which is set whenever the winner's exposed melds show the other three).
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from typing import Callable

SUITS = "mps"
HONOURS = tuple(f"{n}z" for n in range(1, 8))
WINDS = tuple(f"{n}z" for n in range(1, 5))
DRAGONS = ("5z", "6z", "7z")
NUMBER_TILES = tuple(f"{n}{s}" for s in SUITS for n in range(1, 10))
ALL_TILES = NUMBER_TILES + HONOURS
TERMINALS_AND_HONOURS = tuple(t for t in ALL_TILES if t[1] == "z" or t[0] in "19")
FLOWERS = tuple(f"{n}f" for n in range(1, 9))
SEATS = ("E", "S", "W", "N")
GREEN = frozenset({"2s", "3s", "4s", "6s", "8s", "6z"})
REVERSIBLE = frozenset({f"{n}p" for n in (1, 2, 3, 4, 5, 8, 9)} | {f"{n}s" for n in (2, 4, 5, 6, 8, 9)} | {"5z"})

Set = tuple[str, str, str]


def chow(suit: str, start: int) -> Set:
    return (f"{start}{suit}", f"{start + 1}{suit}", f"{start + 2}{suit}")


def pung(tile: str) -> Set:
    return (tile, tile, tile)


def is_chow(s: Set) -> bool:
    return s[0] != s[1]


ALL_SETS: tuple[Set, ...] = tuple(chow(s, n) for s in SUITS for n in range(1, 8)) + tuple(pung(t) for t in ALL_TILES)


def number(tile: str) -> int:
    return int(tile[0]) if tile[1] != "z" else 0


@dataclass(frozen=True)
class Style:
    """Which tiles a hand may use; `set_ok`/`pair_ok` add per-set conditions (全带五, 全带幺)."""

    name: str
    tile_ok: Callable[[str], bool]
    chow_share: float  # probability that a filler set is a chow when both kinds are allowed
    set_ok: Callable[[Set], bool] = lambda s: True
    pair_ok: Callable[[str], bool] = lambda t: True


def _styles(rng: random.Random) -> list[tuple[Style, float]]:
    """Styles with sampling weights; suit-dependent styles pick their suit from `rng`."""
    suit = rng.choice(SUITS)
    honour = lambda t: t[1] == "z"  # noqa: E731
    term_or_honour = lambda t: t in TERMINALS_AND_HONOURS  # noqa: E731
    return [
        (Style("any", lambda t: True, 0.6), 6),
        (Style("chows", lambda t: True, 0.95), 3),
        (Style("pungs", lambda t: True, 0.05), 2),
        (Style("flush", lambda t: t[1] == suit, 0.6), 3),
        (Style("half_flush", lambda t: t[1] == suit or honour(t), 0.4), 3),
        (Style("honours", honour, 0.0), 1),
        (Style("terminals_honours", term_or_honour, 0.0), 1),
        (Style("terminals", lambda t: t[1] != "z" and t[0] in "19", 0.0), 0.5),
        (Style("outside", lambda t: True, 0.6, set_ok=lambda s: any(term_or_honour(t) for t in s), pair_ok=term_or_honour), 1.5),
        (Style("simples", lambda t: 2 <= number(t) <= 8, 0.6), 2),
        (Style("upper", lambda t: number(t) >= 7, 0.5), 0.7),
        (Style("middle", lambda t: 4 <= number(t) <= 6, 0.5), 0.7),
        (Style("lower", lambda t: 1 <= number(t) <= 3, 0.5), 0.7),
        (Style("upper_four", lambda t: number(t) >= 6, 0.5), 0.7),
        (Style("lower_four", lambda t: 1 <= number(t) <= 4, 0.5), 0.7),
        (Style("green", lambda t: t in GREEN, 0.4), 0.7),
        (Style("reversible", lambda t: t in REVERSIBLE, 0.4), 0.7),
        (Style("even_pungs", lambda t: number(t) in (2, 4, 6, 8), 0.0), 0.7),
        (Style("fives", lambda t: t[1] != "z", 0.7, set_ok=lambda s: any(number(t) == 5 for t in s), pair_ok=lambda t: number(t) == 5), 0.7),
    ]


def _patterns(rng: random.Random) -> list[tuple[list[Set], str | None]]:
    """Candidate groups of related sets (and sometimes the pair) that make the combination fans."""
    a, b, c = rng.sample(SUITS, 3)
    k = rng.randint(2, 4)
    step = rng.choice((1, 2))
    n3 = rng.randint(3, 4)
    start = rng.randint(1, 7)
    shifted_start = rng.randint(1, 7 - step * (n3 - 1))
    low = rng.randint(1, 5)
    six_start = rng.randint(1, 4)
    tile_n = rng.randint(1, 9)
    pung_start = rng.randint(1, 9 - (n3 - 1))
    winds = rng.sample(WINDS, rng.randint(3, 4))
    dragons = rng.sample(DRAGONS, rng.randint(2, 3))
    return [
        ([chow(a, start)] * k, None),  # 一般高 / 一色三同顺 / 一色四同顺
        ([chow(a, shifted_start + step * i) for i in range(n3)], None),  # 一色三/四步高
        ([chow(a, start), chow(b, start), chow(c, start)], None),  # 三色三同顺
        ([chow(a, low), chow(b, low + 1), chow(c, low + 2)], None),  # 三色三步高
        ([chow(a, 1), chow(a, 4), chow(a, 7)], None),  # 清龙
        ([chow(a, 1), chow(b, 4), chow(c, 7)], None),  # 花龙
        ([chow(a, 1), chow(a, 7)], None),  # 老少副
        ([chow(a, 1), chow(a, 7), chow(b, 1), chow(b, 7)], f"5{c}"),  # 三色双龙会
        ([chow(a, 1), chow(a, 1), chow(a, 7), chow(a, 7)], f"5{a}"),  # 一色双龙会
        ([chow(a, start), chow(b, start)], None),  # 喜相逢
        ([chow(a, six_start), chow(a, six_start + 3)], None),  # 连六
        ([pung(f"{pung_start + i}{a}") for i in range(n3)], None),  # 一色三/四节高
        ([pung(f"{low + i}{s}") for i, s in enumerate((a, b, c))], None),  # 三色三节高
        ([pung(f"{tile_n}{s}") for s in (a, b, c)], None),  # 三同刻
        ([pung(f"{tile_n}{a}"), pung(f"{tile_n}{b}")], None),  # 双同刻
        ([pung(w) for w in winds], rng.choice([w for w in WINDS if w not in winds] or list(DRAGONS))),  # 三风刻/小四喜/大四喜
        ([pung(d) for d in dragons], rng.choice([d for d in DRAGONS if d not in dragons] or list(WINDS))),  # 双箭刻/小三元/大三元
    ]


def _weighted_choice(rng: random.Random, items: list[tuple[object, float]]):
    return rng.choices([item for item, _ in items], weights=[w for _, w in items], k=1)[0]


def _fits(counts: Counter, tiles) -> bool:
    extra = Counter(tiles)
    return all(counts[t] + n <= 4 for t, n in extra.items())


def _standard_sets(rng: random.Random) -> tuple[list[Set], str] | None:
    """Four sets and a pair, or None when the random choices clash (the caller retries)."""
    style = _weighted_choice(rng, _styles(rng))
    sets: list[Set] = []
    pair: str | None = None
    if rng.random() < 0.5:
        sets, pair = rng.choice(_patterns(rng))
        sets = list(sets)
    counts = Counter(t for s in sets for t in s)
    if any(n > 4 for n in counts.values()):
        return None
    allowed = [s for s in ALL_SETS if all(style.tile_ok(t) for t in s) and style.set_ok(s)]
    chows = [s for s in allowed if is_chow(s)]
    pungs = [s for s in allowed if not is_chow(s)]
    while len(sets) < 4:
        pool = chows if chows and (not pungs or rng.random() < style.chow_share) else pungs
        candidates = [s for s in pool if _fits(counts, s)]
        if not candidates:
            return None
        chosen = rng.choice(candidates)
        sets.append(chosen)
        counts.update(chosen)
    if pair is None:
        pair_tiles = [t for t in ALL_TILES if style.tile_ok(t) and style.pair_ok(t) and counts[t] <= 2]
        if not pair_tiles:
            return None
        pair = rng.choice(pair_tiles)
    if counts[pair] > 2:
        return None
    return sets, pair


@dataclass
class _Shape:
    """A winning hand before it is written as JSON: free tiles plus sets that may become melds."""

    loose: list[str]  # tiles that are never melded (pair, special-hand tiles)
    sets: list[Set]  # sets that may be exposed or turned into kongs


def _knitted_tiles(rng: random.Random) -> list[str]:
    suits = rng.sample(SUITS, 3)
    return [f"{n}{s}" for s, start in zip(suits, (1, 2, 3)) for n in (start, start + 3, start + 6)]


def _shape(rng: random.Random) -> _Shape:
    kind = _weighted_choice(
        rng,
        [("standard", 78), ("seven_pairs", 9), ("thirteen_orphans", 2.5), ("honours_knitted", 3.5),
         ("knitted_straight", 4), ("nine_gates", 1.5), ("seven_shifted_pairs", 1.5)],
    )
    if kind == "standard":
        while (built := _standard_sets(rng)) is None:
            pass
        sets, pair = built
        return _Shape([pair, pair], sets)
    if kind == "seven_pairs":
        style = _weighted_choice(rng, _styles(rng))
        tiles = [t for t in ALL_TILES if style.tile_ok(t) and style.pair_ok(t)]
        if len(tiles) < 4:  # too few kinds of tile for seven pairs even with doubled pairs
            tiles = list(ALL_TILES)
        counts: Counter = Counter()
        for _ in range(7):
            pair = rng.choice([t for t in tiles if counts[t] <= 2])
            counts[pair] += 2
        return _Shape(list(counts.elements()), [])
    if kind == "seven_shifted_pairs":
        suit, start = rng.choice(SUITS), rng.randint(1, 3)
        return _Shape([f"{n}{suit}" for n in range(start, start + 7) for _ in (0, 1)], [])
    if kind == "nine_gates":
        suit = rng.choice(SUITS)
        base = [f"{n}{suit}" for n in (1, 1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 9, 9)]
        return _Shape(base + [f"{rng.randint(1, 9)}{suit}"], [])
    if kind == "thirteen_orphans":
        orphans = list(TERMINALS_AND_HONOURS)
        return _Shape(orphans + [rng.choice(orphans)], [])
    if kind == "honours_knitted":
        tiles = _knitted_tiles(rng) + list(HONOURS)
        for dropped in rng.sample(tiles, 2):
            tiles.remove(dropped)
        return _Shape(tiles, [])
    knitted = _knitted_tiles(rng)
    counts = Counter(knitted)
    extra_set = rng.choice([s for s in ALL_SETS if _fits(counts, s)])
    counts.update(extra_set)
    pair = rng.choice([t for t in ALL_TILES if counts[t] <= 2])
    return _Shape(knitted + [pair, pair], [extra_set])


def random_hand(rng: random.Random) -> dict:
    """One random winning hand in the JSON hand schema."""
    shape = _shape(rng)
    meld_share = rng.choice((0.0, 0.0, 0.25, 0.5, 1.0)) if shape.sets else 0.0
    kong_share = rng.choice((0.0, 0.1, 0.3, 0.8))
    all_counts = Counter(shape.loose) + Counter(t for s in shape.sets for t in s)
    concealed: list[str] = list(shape.loose)
    melds: list[dict] = []
    for s in shape.sets:
        exposed = rng.random() < meld_share
        # A pung can grow into a kong only if no other set or the pair holds a copy of its tile.
        can_kong = not is_chow(s) and all_counts[s[0]] == 3
        if can_kong and rng.random() < kong_share:
            melds.append({"kind": "kong", "tiles": [s[0]] * 4, "concealed": not exposed})
        elif exposed:
            melds.append({"kind": "chow" if is_chow(s) else "pung", "tiles": list(s), "concealed": False})
        else:
            concealed.extend(s)
    win = rng.choice(concealed)
    concealed.remove(win)
    concealed.sort(key=lambda t: (t[1], t[0]))
    return {
        "concealed": concealed,
        "melds": melds,
        "winning_tile": win,
        **_context(rng, concealed, melds, win),
    }


def _context(rng: random.Random, concealed: list[str], melds: list[dict], win: str) -> dict:
    """Seat, round, flowers and win flags that the tiles allow."""
    self_drawn = rng.random() < 0.5
    has_kong = any(m["kind"] == "kong" for m in melds)
    held_elsewhere = concealed.count(win) + sum(m["tiles"].count(win) for m in melds)
    exposed_copies = sum(m["tiles"].count(win) for m in melds if not m["concealed"])
    # At most one of the three "special moment" flags: their combinations are not real game events.
    moment = _weighted_choice(rng, [(None, 80), ("last_tile", 8), ("kong", 12)])
    kong_replacement = moment == "kong" and self_drawn and has_kong
    robbing_kong = moment == "kong" and not self_drawn and held_elsewhere == 0
    # 和绝张 needs the other three copies visible on the table, so none may be hidden in the hand.
    hidden_copies = concealed.count(win) + sum(m["tiles"].count(win) for m in melds if m["concealed"])
    last_copy = exposed_copies == 3 or (hidden_copies == 0 and not robbing_kong and rng.random() < 0.15)
    n_flowers = _weighted_choice(rng, [(0, 55), (1, 18), (2, 12), (3, 6), (4, 4), (5, 2), (6, 1), (7, 1), (8, 1)])
    return {
        "self_drawn": self_drawn,
        "seat_wind": rng.choice(SEATS),
        "round_wind": rng.choice(SEATS),
        "flowers": sorted(rng.sample(FLOWERS, n_flowers)),
        "last_tile": moment == "last_tile",
        "kong_replacement": kong_replacement,
        "robbing_kong": robbing_kong,
        "last_copy": last_copy,
    }


def hand_corpus(seed: int, count: int) -> list[dict]:
    """`count` random hands; the same seed always gives the same list."""
    rng = random.Random(seed)
    return [random_hand(rng) for _ in range(count)]
