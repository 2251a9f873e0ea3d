"""Speed of our MCR scoring against pymahjonggb 1.4.0 (C++), same hands, same run.

    python benchmarks/bench_scoring.py [--hands 2000] [--seed 2026] [--distinct-repeated 20 --repeats 100]

Cases:
  * fresh hands: a fixed seeded corpus of random winning hands (tests/handgen.py), each scored
    once, so our result cache never hits. Ours is timed from the JSON hand to the JSON result
    (`scoring.score_json`); the oracle only inside its C++ call, with its arguments built before
    the clock starts, which favours the oracle.
  * repeated hands: a few hands scored many times, as footage does (the same hand on every
    frame). Ours then answers from its cache.
Prints microseconds per hand and our time divided by the oracle's (the issue's target: <= 20x).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.handgen import hand_corpus  # noqa: E402
from tests.oracle import call_arguments  # noqa: E402


@dataclass(frozen=True)
class Timing:
    name: str
    hands: int
    seconds: float

    @property
    def micros_per_hand(self) -> float:
        return 1e6 * self.seconds / self.hands


def time_ours(name: str, hands: list[dict]) -> Timing:
    from scoring import score_json

    start = time.perf_counter()
    for hand in hands:
        score_json(hand)
    return Timing(name, len(hands), time.perf_counter() - start)


def time_oracle(name: str, calls: list[dict]) -> Timing:
    from MahjongGB import MahjongFanCalculator

    start = time.perf_counter()
    for kwargs in calls:
        MahjongFanCalculator(**kwargs)
    return Timing(name, len(calls), time.perf_counter() - start)


def distinct(hands: list[dict]) -> list[dict]:
    """The corpus without repeats, so 'fresh' really means never scored before in this process."""
    seen: dict[str, dict] = {}
    for hand in hands:
        seen.setdefault(json.dumps(hand, sort_keys=True), hand)
    return list(seen.values())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=2000, help="size of the fresh-hands corpus")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--distinct-repeated", type=int, default=20, help="hands in the repeated case")
    parser.add_argument("--repeats", type=int, default=100, help="times each repeated hand is scored")
    args = parser.parse_args(argv)

    try:
        import MahjongGB  # noqa: F401
    except ImportError:
        print("pymahjonggb is not installed: pip install -e '.[test]'", file=sys.stderr)
        return 2
    import scoring

    fresh = distinct(hand_corpus(args.seed, args.hands))
    repeated = fresh[: args.distinct_repeated] * args.repeats
    # The oracle's arguments are built before its clock starts.
    oracle_fresh, oracle_repeated = [call_arguments(h) for h in fresh], [call_arguments(h) for h in repeated]
    # Load the rule set and its tables before timing, on a hand outside the corpus.
    scoring.score_json(hand_corpus(args.seed + 1, 1)[0])

    print(f"corpus: {len(fresh)} distinct random winning hands (seed {args.seed}); "
          f"repeated: {args.distinct_repeated} hands x {args.repeats}")
    rows = [
        (time_ours("ours, fresh hands", fresh), time_oracle("pymahjonggb, fresh hands", oracle_fresh)),
        (time_ours("ours, repeated hands (cached)", repeated),
         time_oracle("pymahjonggb, repeated hands", oracle_repeated)),
    ]
    print(f"{'case':34} {'us/hand':>10}")
    for ours, peer in rows:
        for timing in (ours, peer):
            print(f"{timing.name:34} {timing.micros_per_hand:10.1f}")
        print(f"{'  ratio ours / pymahjonggb':34} {ours.micros_per_hand / peer.micros_per_hand:10.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
