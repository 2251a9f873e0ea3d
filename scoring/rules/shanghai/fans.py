"""The fans (番) of Shanghai old-style mahjong (上海老式麻将), from the seed's section 4.

Each fan doubles the basic points.  All fans add (the seed lists no exclusions).  A fan is counted
per occurrence where the seed counts "each": every dragon pung/kong, every flower matching the seat.
"""

from __future__ import annotations

from collections.abc import Callable

from ... import tiles as T
from ...decompose import Decomposition, Unit, chow_wait
from ...fans import Detect, Fan, Hit, Situation

FANS: list[Fan] = []

# The seasons 春夏秋冬 (1f-4f) and the flowers 梅兰竹菊 (5f-8f) each map in order to E, S, W, N.
FLOWER_SEATS = {T.INDEX[f"{k}f"]: T.WINDS[(k - 1) % 4] for k in range(1, 9)}


def fan(key: str, zh: str, en: str, fans: int, note: str) -> Callable[[Detect], Detect]:
    def register(detect: Detect) -> Detect:
        FANS.append(Fan(key, zh, en, fans, detect, note=note))
        return detect

    return register


def _all(d: Decomposition, ok: bool) -> list[Hit]:
    """Fans about the whole hand name every unit."""
    return [Hit(units=tuple(range(len(d.units))))] if ok else []


def _present(sit: Situation) -> list[int]:
    return [i for i, n in enumerate(sit.counts) if n]


def _no_honours(sit: Situation) -> bool:
    return all(not T.is_honour(i) for i in _present(sit))


def _suits(sit: Situation) -> set[int]:
    return {T.suit(i) for i in _present(sit) if not T.is_honour(i)}


def wait(d: Decomposition) -> str:
    """Where the winning tile sits in this reading: pair, closed, edge, two_sided or pung."""
    u = d.units[d.winning_unit]
    if u.kind == "pair":
        return "pair"
    return chow_wait(u, d.winning) if u.kind == "chow" else "pung"


def _claimed(u: Unit) -> bool:
    return u.declared and not u.concealed


# ---------------------------------------------------------------- 1 fan: 花色 (tile patterns)


@fan("all_simples", "断幺", "All Simples", 1, "No honours and no 1 or 9.")
def _all_simples(d: Decomposition, sit: Situation) -> list[Hit]:
    return _all(d, all(not T.is_terminal_or_honour(i) for i in _present(sit)))


@fan("all_chows", "平和", "All Chows", 1,
     "No honours, no pungs or kongs, and no win points except self-draw (a two-sided wait).")
def _all_chows(d: Decomposition, sit: Situation) -> list[Hit]:
    chows = all(u.kind == "chow" for u in d.sets())
    return _all(d, _no_honours(sit) and chows and wait(d) == "two_sided")


@fan("pure_double_chow", "一般高", "Pure Double Chow", 1,
     "No honours; two identical chows (same suit, same ranks). Counted once.")
def _pure_double_chow(d: Decomposition, sit: Situation) -> list[Hit]:
    if not _no_honours(sit):
        return []
    chows = [k for k, u in enumerate(d.units) if u.kind == "chow"]
    for a in chows:
        for b in chows:
            if a < b and d.units[a].tile == d.units[b].tile:
                return [Hit(units=(a, b))]
    return []


@fan("one_voided_suit", "缺一门", "One Voided Suit", 1, "No honours and exactly two of the three suits.")
def _one_voided_suit(d: Decomposition, sit: Situation) -> list[Hit]:
    return _all(d, _no_honours(sit) and len(_suits(sit)) == 2)


# ---------------------------------------------------------------- 1 fan: 和牌 (how the hand was won)


@fan("concealed_self_draw", "不求人", "Fully Concealed Self-Draw", 1,
     "Self-drawn with no chow, pung or exposed kong claimed before (concealed kongs allowed).")
def _concealed_self_draw(d: Decomposition, sit: Situation) -> list[Hit]:
    return _all(d, sit.context.self_drawn and sit.hand.is_concealed)


@fan("all_claimed", "全求人", "All Claimed", 1,
     "Every set claimed (chowed, punged or exposed kong) and the win on a discard that completes the "
     "pair. A self-drawn pair wait does not count (seed example 2).")
def _all_claimed(d: Decomposition, sit: Situation) -> list[Hit]:
    ok = (not sit.context.self_drawn and all(_claimed(u) for u in d.sets())
          and wait(d) == "pair")
    return _all(d, ok)


@fan("kong_flower_replacement", "杠头开花", "Win on Replacement Tile", 1,
     "Self-drawn on the tile drawn after a kong or a flower (flag kong_replacement; the hand must "
     "hold a kong or a flower).")
def _replacement(d: Decomposition, sit: Situation) -> list[Hit]:
    has_source = sit.hand.has_kong or bool(sit.hand.flowers)
    return _all(d, sit.context.kong_replacement and has_source)


@fan("robbing_kong", "抢杠和", "Robbing the Kong", 1, "Winning on the tile of another player's kong (flag robbing_kong).")
def _robbing_kong(d: Decomposition, sit: Situation) -> list[Hit]:
    return _all(d, sit.context.robbing_kong)


# ---------------------------------------------------------------- 1 fan each: 字牌 and 花牌 (honours, flowers)


@fan("dragon_pung", "箭刻", "Dragon Pung", 1, "Each pung or kong of 中, 發 or 白 (常字牌同牌).")
def _dragon_pung(d: Decomposition, sit: Situation) -> list[Hit]:
    return [Hit(units=(k,)) for k, u in enumerate(d.units) if u.kind in ("pung", "kong") and T.is_dragon(u.tile)]


@fan("seat_wind_pung", "门风刻", "Seat Wind Pung", 1,
     "A pung or kong of the winner's own seat wind (方位字牌同牌); East is the dealer's seat.")
def _seat_wind_pung(d: Decomposition, sit: Situation) -> list[Hit]:
    seat = T.WIND_TILES[sit.context.seat_wind]
    return [Hit(units=(k,)) for k, u in enumerate(d.units) if u.kind in ("pung", "kong") and u.tile == seat]


@fan("seat_flower", "正花", "Seat Flower", 1,
     "Each flower or season matching the winner's seat: 春夏秋冬 and 梅兰竹菊 map in order to E S W N.")
def _seat_flower(d: Decomposition, sit: Situation) -> list[Hit]:
    return [Hit(tiles=(T.INDEX[f],)) for f in sit.hand.flowers
            if FLOWER_SEATS[T.INDEX[f]] == sit.context.seat_wind]


# ---------------------------------------------------------------- 2 and 3 fans


@fan("outside_hand", "全带幺", "Outside Hand", 2, "No honours; every set and the pair holds a 1 or a 9.")
def _outside_hand(d: Decomposition, sit: Situation) -> list[Hit]:
    return _all(d, _no_honours(sit) and all(any(T.is_terminal(i) for i in u.tiles) for u in d.units))


@fan("pure_straight", "一条龙", "Pure Straight", 2, "No honours; 123, 456 and 789 of one suit.")
def _pure_straight(d: Decomposition, sit: Situation) -> list[Hit]:
    if not _no_honours(sit):
        return []
    for suit in range(3):
        picks = [next((k for k, u in enumerate(d.units) if u.kind == "chow" and u.tile == 9 * suit + r), None)
                 for r in (0, 3, 6)]
        if None not in picks:
            return [Hit(units=tuple(picks))]
    return []


@fan("half_flush", "混一色", "Half Flush", 2, "One suit plus honours.")
def _half_flush(d: Decomposition, sit: Situation) -> list[Hit]:
    return _all(d, not _no_honours(sit) and len(_suits(sit)) == 1)


@fan("all_pungs", "对对和", "All Pungs", 2, "Four pungs or kongs.")
def _all_pungs(d: Decomposition, sit: Situation) -> list[Hit]:
    return _all(d, all(u.kind in ("pung", "kong") for u in d.sets()))


@fan("full_flush", "清一色", "Full Flush", 3, "One suit only, no honours.")
def _full_flush(d: Decomposition, sit: Situation) -> list[Hit]:
    return _all(d, _no_honours(sit) and len(_suits(sit)) == 1)
