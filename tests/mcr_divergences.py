"""Find, explain and record where our MCR engine and pymahjonggb 1.4.0 disagree.

    python -m tests.mcr_divergences            # print the disagreements of the test corpora
    python -m tests.mcr_divergences --write    # rewrite tests/data/mcr_known_divergences.jsonl

Every disagreement is sorted into one of the known causes (docs/mcr-divergences.md); a hand that
fits none is printed as UNEXPLAINED and left out of the file, so the differential test fails on it
until someone finds the cause (an engine bug, an oracle bug, or a new interpretation to document).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tests.handgen import ALL_TILES, hand_corpus
from tests.oracle import OracleRejected, fan_multiset, oracle_fans, oracle_multiset

KNOWN_DIVERGENCES = Path(__file__).parent / "data" / "mcr_known_divergences.jsonl"
FAST_SEED, FAST_HANDS = 20261130, 300
SLOW_SEED, SLOW_HANDS = 1998, 5000
WAIT_FANS = frozenset({"边张", "嵌张", "单钓将"})
# The causes that are our documented readings, each with the option that gives pymahjonggb's instead.
OPTION_OF_CAUSE = {"knitted_tile_wait": "knitted_tile_wait", "dead_wait": "dead_wait_counts"}
# pymahjonggb's compatibility profile: both readings switched to its answers.
COMPAT_OPTIONS = {option: True for option in OPTION_OF_CAUSE.values()}


def hand_key(hand: dict) -> str:
    return json.dumps(hand, sort_keys=True, ensure_ascii=False)


def ours(hand: dict, options: dict | None = None) -> dict:
    """Our fans as {zh: count}, or {"error": code} when the engine rejects the hand."""
    from scoring import score_json

    result = score_json(hand, options=options)
    if not result["ok"]:
        return {"error": result["error"]["code"]}
    return dict(fan_multiset(result["fans"]))


def theirs(hand: dict) -> dict:
    """pymahjonggb's fans as {zh: count}, or {"error": message} when it rejects the hand."""
    try:
        return dict(oracle_multiset(hand))
    except OracleRejected as exc:
        return {"error": str(exc)}


def _points(fans: dict) -> int:
    from tests.test_mcr_fans import FAN_POINTS

    return sum(FAN_POINTS[name] * count for name, count in fans.items())


def _differs_only_in_waits(mine: dict, other: dict) -> bool:
    names = {n for n in mine.keys() | other.keys() if mine.get(n) != other.get(n)}
    return bool(names) and names <= WAIT_FANS


def _hand_tiles(hand: dict) -> list[str]:
    return hand["concealed"] + [hand["winning_tile"]] + [t for m in hand["melds"] for t in m["tiles"]]


def _oracle_waits(hand: dict) -> list[str]:
    """Tiles pymahjonggb accepts as the 14th tile; it does not check copies, so a tile the hand
    already holds four times still counts."""
    waits = []
    for tile in ALL_TILES:
        try:
            oracle_fans({**hand, "winning_tile": tile, "last_copy": False, "robbing_kong": False})
        except OracleRejected:
            continue
        waits.append(tile)
    return waits


def _fifth_copy(hand: dict, mine: dict, other: dict) -> str | None:
    counts = {t: _hand_tiles(hand).count(t) for t in set(_hand_tiles(hand))}
    over = sorted(t for t, n in counts.items() if n > 4)
    if mine.get("error") == "too_many_copies" and over and "error" not in other:
        total = _points(other)
        return (f"{', '.join(f'{counts[t]} copies of {t}' for t in over)}: we reject the hand "
                f"(too_many_copies); pymahjonggb does not count copies and scores {total} fan")
    return None


def _knitted_tile_wait(hand: dict, mine: dict, other: dict) -> str | None:
    if not _differs_only_in_waits(mine, other) or ours(hand, {"knitted_tile_wait": True}) != other:
        return None
    fan = next(n for n in WAIT_FANS if other.get(n, 0) > mine.get(n, 0))
    return (f"winning tile {hand['winning_tile']} is one of the 组合龙's nine tiles and also completes a "
            f"wait shape: we score no wait fan (GB-Mahjong; option knitted_tile_wait), pymahjonggb adds {fan}")


def _dead_wait(hand: dict, mine: dict, other: dict) -> str | None:
    if not _differs_only_in_waits(mine, other) or ours(hand, {"dead_wait_counts": True}) != other:
        return None
    tiles = _hand_tiles(hand)
    dead = [t for t in _oracle_waits(hand) if t != hand["winning_tile"] and tiles.count(t) >= 4]
    fan = next((n for n in WAIT_FANS if mine.get(n, 0) > other.get(n, 0)), None)
    if not dead or fan is None:
        return None
    return (f"the hand also 'waits' on {', '.join(dead)}, which it holds four times: no copy is left, "
            f"so we count a single wait on {hand['winning_tile']} and score {fan} (GB-Mahjong; option "
            f"dead_wait_counts); pymahjonggb counts the dead tile as a second wait")


def _equal_total_reading(hand: dict, mine: dict, other: dict) -> str | None:
    if "error" in mine or "error" in other or _points(mine) != _points(other):
        return None
    only_mine = " ".join(sorted(n for n in mine if mine[n] != other.get(n)))
    only_other = " ".join(sorted(n for n in other if other[n] != mine.get(n)))
    return (f"two readings with the same total ({_points(mine)}): we keep {only_mine}, pymahjonggb "
            f"{only_other}; the tie is broken differently")


# Cause name (a section of docs/mcr-divergences.md) -> test that returns the one-line reason.
CAUSES: dict[str, Callable[[dict, dict, dict], str | None]] = {
    "fifth_copy": _fifth_copy,
    "knitted_tile_wait": _knitted_tile_wait,
    "dead_wait": _dead_wait,
    "equal_total": _equal_total_reading,
}

# Hands written by hand (the test corpora never hold a fifth copy).
HANDWRITTEN = (
    {"concealed": ["1m"] * 5 + ["2p", "3p", "4p", "5p", "6p", "7p", "7s", "8s"], "melds": [], "winning_tile": "9s"},
    {"concealed": ["2m"] * 4, "winning_tile": "2m",
     "melds": [{"kind": "kong", "tiles": [t] * 4, "concealed": False} for t in ("2m", "3m", "4m")]},
)
_CONTEXT = {"self_drawn": False, "seat_wind": "S", "round_wind": "E", "flowers": [], "last_tile": False,
            "kong_replacement": False, "robbing_kong": False, "last_copy": False}


@dataclass(frozen=True)
class Divergence:
    hand: dict
    ours: dict
    oracle: dict
    cause: str | None  # a key of CAUSES; None when no known cause fits
    why: str | None

    def to_json(self) -> str:
        return json.dumps({"hand": self.hand, "ours": self.ours, "oracle": self.oracle, "cause": self.cause,
                           "why": self.why}, ensure_ascii=False)


def explain(hand: dict) -> Divergence | None:
    """None when both calculators agree, else the divergence with its cause."""
    mine, other = ours(hand), theirs(hand)
    if mine == other:
        return None
    for cause, reason in CAUSES.items():
        why = reason(hand, mine, other)
        if why is not None:
            return Divergence(hand, mine, other, cause, why)
    return Divergence(hand, mine, other, None, None)


def corpus_hands() -> list[dict]:
    handwritten = [{**_CONTEXT, **h} for h in HANDWRITTEN]
    return handwritten + hand_corpus(FAST_SEED, FAST_HANDS) + hand_corpus(SLOW_SEED, SLOW_HANDS)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help=f"rewrite {KNOWN_DIVERGENCES.name}")
    args = parser.parse_args(argv)
    from tqdm import tqdm

    found: dict[str, Divergence] = {}
    for hand in tqdm(corpus_hands(), desc="hands", unit="hand"):
        divergence = explain(hand)
        if divergence is not None:
            found.setdefault(hand_key(hand), divergence)
    unexplained = [d for d in found.values() if d.why is None]
    for d in found.values():
        print(("UNEXPLAINED " if d.why is None else "") + d.to_json())
    print(f"{len(found)} divergences, {len(unexplained)} unexplained", file=sys.stderr)
    if args.write:
        lines = [d.to_json() + "\n" for d in found.values() if d.why is not None]
        KNOWN_DIVERGENCES.write_text("".join(lines), encoding="utf-8")
        print(f"wrote {len(lines)} entries to {KNOWN_DIVERGENCES}", file=sys.stderr)
    return 1 if unexplained else 0


if __name__ == "__main__":
    raise SystemExit(main())
