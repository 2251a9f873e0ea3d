"""Test-only adapter to pymahjonggb 1.4.0 (MahjongGB), the independent C++ MCR calculator.

Converts a hand in the project's JSON schema into a `MahjongFanCalculator` call and returns the
oracle's fans as a multiset keyed by our Chinese fan names. The engine (scoring/) never imports
this module: the oracle is evidence, not a dependency.

pymahjonggb quietly corrects flags that the tiles contradict (e.g. it drops 抢杠和 when the winner
holds another copy of the tile); the random hands of tests/handgen.py never contain such flags, so
both calculators see the same facts.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

# Our tile code -> pymahjonggb tile code (W characters, B dots, T bamboo, F winds, J dragons).
# Its dragons run Red, Green, White (J1 中, J2 發, J3 白): the reverse of our 5z 白, 6z 發, 7z 中.
_SUIT_CODE = {"m": "W", "p": "B", "s": "T"}
_DRAGON_CODE = {"5z": "J3", "6z": "J2", "7z": "J1"}
_WIND_INDEX = {"E": 0, "S": 1, "W": 2, "N": 3}

# pymahjonggb's Chinese fan names that differ from ours (the rule book's names, as in
# ../shared/testdata/gb-mahjong-cases.jsonl). Every other name is identical.
_NAME_FIXES = {
    "独听・边张": "边张",
    "独听・嵌张": "嵌张",
    "独听・单钓": "单钓将",
    "坎张": "嵌张",
}


class OracleRejected(Exception):
    """pymahjonggb refused the hand (its TypeError message, e.g. ERROR_NOT_WIN)."""


@dataclass(frozen=True)
class OracleFan:
    zh: str
    en: str
    points: int
    count: int


def available() -> bool:
    try:
        import MahjongGB  # noqa: F401
    except ImportError:
        return False
    return True


def _code(tile: str) -> str:
    if tile in _DRAGON_CODE:
        return _DRAGON_CODE[tile]
    number, suit = tile[0], tile[1]
    if suit == "z":
        return f"F{number}"
    return f"{_SUIT_CODE[suit]}{number}"


def _pack(meld: dict) -> tuple[str, str, int]:
    tiles = sorted(meld["tiles"])
    kind = meld["kind"]
    if kind == "chow":
        # The chow is named by its middle tile; the offer (which tile was claimed) does not change
        # any fan, so the first tile is reported as claimed.
        return ("CHI", _code(tiles[1]), 1)
    # Offer 0 marks a concealed kong; 1 (claimed from the left) any exposed pung or kong.
    offer = 0 if kind == "kong" and meld.get("concealed", False) else 1
    return ("GANG" if kind == "kong" else "PENG", _code(tiles[0]), offer)


def call_arguments(hand: dict) -> dict:
    """Keyword arguments of `MahjongFanCalculator` for a JSON hand."""
    return dict(
        pack=tuple(_pack(m) for m in hand.get("melds", [])),
        hand=tuple(_code(t) for t in hand["concealed"]),
        winTile=_code(hand["winning_tile"]),
        flowerCount=len(hand.get("flowers", [])),
        isSelfDrawn=bool(hand.get("self_drawn", False)),
        is4thTile=bool(hand.get("last_copy", False)),
        isAboutKong=bool(hand.get("kong_replacement", False) or hand.get("robbing_kong", False)),
        isWallLast=bool(hand.get("last_tile", False)),
        seatWind=_WIND_INDEX[hand.get("seat_wind", "E")],
        prevalentWind=_WIND_INDEX[hand.get("round_wind", "E")],
    )


def oracle_fans(hand: dict) -> list[OracleFan]:
    """The oracle's fans for a JSON hand, names normalised to ours, 花牌 included."""
    from MahjongGB import MahjongFanCalculator

    try:
        raw = MahjongFanCalculator(**call_arguments(hand), verbose=True)
    except TypeError as exc:
        raise OracleRejected(str(exc)) from exc
    return [OracleFan(_NAME_FIXES.get(zh, zh), en, points, count) for points, count, zh, en in raw]


def fan_multiset(fans) -> Counter:
    """{zh: count} for objects or dicts with `zh` and `count`."""
    counts: Counter = Counter()
    for fan in fans:
        zh, count = (fan["zh"], fan["count"]) if isinstance(fan, dict) else (fan.zh, fan.count)
        counts[zh] += count
    return counts


def oracle_multiset(hand: dict) -> Counter:
    return fan_multiset(oracle_fans(hand))
