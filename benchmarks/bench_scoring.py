"""Speed of our MCR scoring against pymahjonggb 1.4.0 (C++), same hands, same run.

    python benchmarks/bench_scoring.py [--hands 2000] [--seed 2026] [--rounds 10]
        [--distinct-repeated 20 --repeats 100]

Cases:
  * fresh hands: a fixed seeded corpus of random winning hands (tests/handgen.py), each scored
    once, so our result cache never hits. Ours is timed from the JSON hand to the JSON result
    (`scoring.score_json`); the oracle only inside its C++ call, with its arguments built before
    the clock starts, which favours the oracle.
  * fresh hands, engine only: other random hands, each scored once by the engine itself
    (`RuleSet.score_uncached`) from a Hand and WinContext built before the clock starts, as the
    oracle's arguments are: no JSON reading or writing, no result cache.
  * repeated hands: a few hands scored many times, as footage does (the same hand on every
    frame). Ours then answers from its cache.
The two sides are timed in alternating rounds on the same hands, in CPU time of this process
(time.process_time), so other jobs on a busy machine do not count against either side; the oracle's
time is the best of five passes (it has no cache). The script prints each side's median
microseconds per hand over the rounds, their ratio ours / oracle (the issue's target: <= 20x) and
the range of the per-round ratios.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tqdm import tqdm

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.handgen import hand_corpus  # noqa: E402
from tests.oracle import call_arguments  # noqa: E402
from vision.argtypes import whole  # noqa: E402


@dataclass(frozen=True)
class Comparison:
    """Per-round microseconds per hand for both calculators on the same hands."""

    case: str
    ours: list[float]
    peer: list[float]

    def line(self) -> str:
        ours, peer = statistics.median(self.ours), statistics.median(self.peer)
        ratios = sorted(o / p for o, p in zip(self.ours, self.peer))
        return (f"{self.case:26} {ours:12.1f} {peer:12.1f} {ours / peer:9.1f}x   "
                f"({ratios[0]:.1f}x-{ratios[-1]:.1f}x)")


def micros_json(hands: list[dict]) -> float:
    """`scoring.score_json`: JSON hand in, JSON result out, through its result cache."""
    from scoring import score_json

    start = time.process_time()
    for hand in hands:
        score_json(hand)
    return 1e6 * (time.process_time() - start) / len(hands)


def micros_engine(hands: list[dict]) -> float:
    """The engine alone, without the result cache: Hand and WinContext are built before the clock
    starts, as the oracle's arguments are."""
    from scoring import get_ruleset, hand_from_json

    rules = get_ruleset("mcr")
    inputs = [hand_from_json(h) for h in hands]
    start = time.process_time()
    for hand, context in inputs:
        rules.score_uncached(hand, context)
    return 1e6 * (time.process_time() - start) / len(hands)


def micros_peer(calls: list[dict], repeats: int = 5) -> float:
    """Best of several passes: the oracle has no cache, and one pass over a round lasts only about
    a millisecond, short enough for a scheduler tick to distort it."""
    from MahjongGB import MahjongFanCalculator

    best = float("inf")
    for _ in range(repeats):
        start = time.process_time()
        for kwargs in calls:
            MahjongFanCalculator(**kwargs)
        best = min(best, time.process_time() - start)
    return 1e6 * best / len(calls)


def compare(case: str, hands: list[dict], rounds: int, micros_ours: Callable[[list[dict]], float]) -> Comparison:
    """Time both sides round by round, alternating, so a busy machine slows both alike."""
    size = -(-len(hands) // rounds)
    chunks = [hands[i:i + size] for i in range(0, len(hands), size)]
    ours, peer = [], []
    for chunk in tqdm(chunks, desc=case, unit="round", leave=False):
        calls = [call_arguments(h) for h in chunk]  # built before the oracle's clock starts
        ours.append(micros_ours(chunk))
        peer.append(micros_peer(calls))
    return Comparison(case, ours, peer)


def distinct(hands: list[dict]) -> list[dict]:
    """The corpus without repeats, so 'fresh' really means never scored before in this process."""
    seen: dict[str, dict] = {}
    for hand in hands:
        seen.setdefault(json.dumps(hand, sort_keys=True), hand)
    return list(seen.values())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    # At least 1 of each: no hands or no rounds leave nothing to divide by.
    parser.add_argument("--hands", type=whole(1), default=2000, help="size of the fresh-hands corpus")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--distinct-repeated", type=whole(1), default=20, help="hands in the repeated case")
    parser.add_argument("--repeats", type=whole(1), default=100, help="times each repeated hand is scored")
    parser.add_argument("--rounds", type=whole(1), default=10, help="alternating timing rounds per case")
    args = parser.parse_args(argv)

    try:
        import MahjongGB  # noqa: F401
    except ImportError:
        print("pymahjonggb is not installed: pip install -e '.[test]'", file=sys.stderr)
        return 2
    import scoring

    fresh = distinct(hand_corpus(args.seed, args.hands))
    repeated = fresh[: args.distinct_repeated] * args.repeats
    # the engine-only case gets hands of its own, so nothing of theirs was computed before
    fresh_engine = distinct(hand_corpus(args.seed + 2, args.hands))
    # Load the rule set and its tables before timing, on a hand outside the corpora.
    scoring.score_json(hand_corpus(args.seed + 1, 1)[0])

    print(f"fresh: {len(fresh)} distinct random winning hands (seed {args.seed}; seed {args.seed + 2} for "
          f"the engine alone), each scored once; repeated: {args.distinct_repeated} of them x "
          f"{args.repeats}; {args.rounds} rounds each; CPU time")
    comparisons = [compare("fresh hands (JSON)", fresh, args.rounds, micros_json),
                   compare("fresh hands (engine)", fresh_engine, args.rounds, micros_engine),
                   compare("repeated hands (cached)", repeated, args.rounds, micros_json)]
    print(f"{'case':26} {'ours us/hand':>12} {'peer us/hand':>12} {'ratio':>10}   (per-round range)")
    for comparison in comparisons:
        print(comparison.line())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
