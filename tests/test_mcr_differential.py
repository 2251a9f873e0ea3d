"""Differential test: our MCR engine against pymahjonggb 1.4.0 on seeded random winning hands.

A hand agrees when both give the same fan multiset (Chinese names, 花牌 included).  Every
disagreement must be listed, hand by hand, in tests/data/mcr_known_divergences.jsonl with what
each side returns and why we differ (docs/mcr-divergences.md groups them by cause).  The fast run
scores 300 hands; the slow run (`pytest -m slow tests/test_mcr_differential.py -s`) 5000.
Both print two agreement figures: with the default options (our documented readings; every
divergence must be listed) and with pymahjonggb's compatibility profile (COMPAT_OPTIONS: both
readings switched), which the slow run holds to the issue's target of 99.9% exact fan lists.
`python -m tests.mcr_divergences --write` re-derives the list.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests import oracle
from tests.handgen import hand_corpus
from tests.mcr_divergences import (
    CAUSES, COMPAT_OPTIONS, FAST_HANDS, FAST_SEED, KNOWN_DIVERGENCES, OPTION_OF_CAUSE, SLOW_HANDS, SLOW_SEED,
    hand_key, ours, theirs,
)

if not oracle.available():
    pytest.skip("pymahjonggb is not installed (pip install -e '.[test]')", allow_module_level=True)

@dataclass(frozen=True)
class KnownDivergence:
    hand: dict
    ours: dict
    oracle: dict
    cause: str
    why: str


def load_known() -> dict[str, KnownDivergence]:
    known = {}
    for line in KNOWN_DIVERGENCES.read_text(encoding="utf-8").splitlines():
        if line.strip():
            entry = KnownDivergence(**json.loads(line))
            known[hand_key(entry.hand)] = entry
    return known


@dataclass
class Agreement:
    hands: int = 0
    agreed: int = 0
    explained: list[str] = field(default_factory=list)  # hand keys of listed divergences
    unexplained: list[tuple[dict, dict, dict]] = field(default_factory=list)  # hand, ours, oracle
    compat_agreed: int = 0  # hands that agree under COMPAT_OPTIONS
    compat_unlisted: list[dict] = field(default_factory=list)  # differ under COMPAT_OPTIONS, not listed

    @property
    def rate(self) -> float:
        return self.agreed / self.hands

    @property
    def compat_rate(self) -> float:
        return self.compat_agreed / self.hands

    def summary(self) -> str:
        return (
            f"default options: {self.agreed}/{self.hands} hands give the oracle's exact fan list "
            f"({100 * self.rate:.2f}%); {len(self.explained)} listed divergences, {len(self.unexplained)} "
            f"unexplained\npymahjonggb profile {COMPAT_OPTIONS}: {self.compat_agreed}/{self.hands} "
            f"({100 * self.compat_rate:.2f}%); {len(self.compat_unlisted)} divergences not listed"
        )


def compare(hands: list[dict], known: dict[str, KnownDivergence]) -> Agreement:
    report = Agreement()
    for hand in hands:
        report.hands += 1
        mine, other = ours(hand), theirs(hand)
        if ours(hand, COMPAT_OPTIONS) == other:
            report.compat_agreed += 1
        elif hand_key(hand) not in known:
            report.compat_unlisted.append(hand)
        if mine == other:
            report.agreed += 1
            continue
        entry = known.get(hand_key(hand))
        if entry is not None and entry.ours == mine and entry.oracle == other:
            report.explained.append(hand_key(hand))
        else:
            report.unexplained.append((hand, mine, other))
    return report


def test_known_divergences_still_hold() -> None:
    """Each listed divergence is real and current: both sides still answer as recorded."""
    known = load_known()
    assert known, "the divergence list is empty"
    for entry in known.values():
        assert entry.cause in CAUSES and entry.why.strip(), entry.hand
        assert entry.ours != entry.oracle, entry.hand
        assert (ours(entry.hand), theirs(entry.hand)) == (entry.ours, entry.oracle), entry.why


@pytest.mark.parametrize("cause", sorted(OPTION_OF_CAUSE))
def test_reading_options_give_the_oracle_reading(cause: str) -> None:
    """The option documented for each of our two readings really turns those hands into the
    oracle's fan lists."""
    entries = [e for e in load_known().values() if e.cause == cause]
    assert entries
    for entry in entries:
        assert ours(entry.hand, {OPTION_OF_CAUSE[cause]: True}) == entry.oracle, entry.why


def _run(seed: int, count: int) -> Agreement:
    report = compare(hand_corpus(seed, count), load_known())
    print(f"\nMCR differential, seed {seed}: {report.summary()}")
    for hand, mine, other in report.unexplained[:10]:
        print(json.dumps({"hand": hand, "ours": mine, "oracle": other}, ensure_ascii=False))
    return report


def test_differential_fast() -> None:
    report = _run(FAST_SEED, FAST_HANDS)
    assert report.unexplained == [] and report.compat_unlisted == []


@pytest.mark.slow
def test_differential_slow() -> None:
    report = _run(SLOW_SEED, SLOW_HANDS)
    assert report.unexplained == [] and report.compat_unlisted == []
    assert report.compat_rate >= 0.999


def test_corpus_hands_are_valid_winning_hands() -> None:
    """The generator's hands are accepted as winning hands by the oracle (no generator bugs)."""
    hands = hand_corpus(FAST_SEED, FAST_HANDS)
    answers = [theirs(h) for h in hands]
    assert [(h, a) for h, a in zip(hands, answers) if "error" in a] == []
    for hand in hands:
        counts = Counter(hand["concealed"] + [hand["winning_tile"]] + [t for m in hand["melds"] for t in m["tiles"]])
        assert max(counts.values()) <= 4, hand


def test_corpus_is_seeded() -> None:
    assert hand_corpus(7, 20) == hand_corpus(7, 20)
    assert hand_corpus(7, 20) != hand_corpus(8, 20)


def test_oracle_adapter_reproduces_gb_mahjong_cases() -> None:
    """The adapter is checked on the peer's unit-test hands: 127/129 match GB-Mahjong's lists, the two
    others are the documented knitted-straight 嵌张 reading (../shared/testdata/README.md)."""
    path = Path(__file__).resolve().parents[2] / "shared" / "testdata" / "gb-mahjong-cases.jsonl"
    if not path.exists():
        pytest.skip("../shared/testdata is not present in this checkout")
    mismatched = []
    for line in path.read_text(encoding="utf-8").splitlines():
        case = json.loads(line)
        if Counter(theirs(case["hand"])) != oracle.fan_multiset(case["expected"]):
            mismatched.append(case["notation"])
    assert mismatched == ["258m23469p14788s3p", "258m23469p14788s3p|EE0000|1"]
