"""Properties every registered rule set keeps (hypothesis over the seeded random-hand generator):
payments sum to zero, totals do not depend on the order tiles and melds are listed in, and
malformed hands are rejected with the same error code under every rule set."""

from __future__ import annotations

import random

from hypothesis import given, settings, strategies as st

import scoring
from scoring.rules import available_rulesets

from .handgen import random_hand

RULESETS = available_rulesets()
SEEDS = st.integers(min_value=0, max_value=2**32 - 1)
# Option sets that change payments or thresholds, per rule set (the defaults are always tried).
VARIANTS: dict[str, list[dict]] = {
    "sihai": [{"edition": "B", "level": "II"}, {"cap": "none", "provisional": False}, {"edition": "A", "level": "I"}],
    "shanghai": [{"discarder_pays_all": True}, {"limit": 300}],
}


def test_the_three_rule_sets_are_registered():
    assert {"mcr", "sihai", "shanghai"} <= set(RULESETS)


def _with_seats(rng: random.Random, hand: dict) -> dict:
    """Vary the discarder too: payments depend on it. (The dealer only moves payments under
    Shanghai old-style, where it sits East: the winner's seat varies who that is.)"""
    seats = [s for s in "ESWN" if s != hand["seat_wind"]]
    extra = {}
    if not hand["self_drawn"]:
        extra["discarder"] = rng.choice(seats)
    return hand | extra


@settings(max_examples=150, deadline=None)
@given(SEEDS)
def test_payments_sum_to_zero(seed):
    rng = random.Random(seed)
    hand = _with_seats(rng, random_hand(rng))
    for rules in RULESETS:
        for options in [None, *VARIANTS.get(rules, [])]:
            result = scoring.score_json(hand, rules, options)
            assert result["ok"], (rules, hand, result)
            assert set(result["payments"]) == set("ESWN")
            assert sum(result["payments"].values()) == 0
            if not result["winning"] or not result["minimum_met"]:
                assert set(result["payments"].values()) == {0}


def _shuffled(rng: random.Random, hand: dict) -> dict:
    out = dict(hand)
    out["concealed"] = rng.sample(hand["concealed"], len(hand["concealed"]))
    out["melds"] = [dict(m, tiles=rng.sample(m["tiles"], len(m["tiles"]))) for m in rng.sample(hand["melds"], len(hand["melds"]))]
    out["flowers"] = rng.sample(hand.get("flowers", []), len(hand.get("flowers", [])))
    return out


@settings(max_examples=150, deadline=None)
@given(SEEDS)
def test_totals_do_not_depend_on_listing_order(seed):
    rng = random.Random(seed)
    hand = random_hand(rng)
    other = _shuffled(rng, hand)
    for rules in RULESETS:
        a, b = scoring.score_json(hand, rules), scoring.score_json(other, rules)
        assert (a["total"], a["reason"]) == (b["total"], b["reason"])
        assert sorted(f["key"] for f in a["fans"]) == sorted(f["key"] for f in b["fans"])
        assert a["payments"] == b["payments"]


FLOWERS = [f"{n}f" for n in range(1, 9)]


@settings(max_examples=150, deadline=None)
@given(SEEDS)
def test_rule_sets_that_count_flowers_alike_score_any_flowers_alike(seed):
    """`RuleSet.flowers_alike` (the photo reader relies on it): other flowers, as many, score the same."""
    rng = random.Random(seed)
    hand = _with_seats(rng, random_hand(rng))
    count = rng.randint(1, 8)
    one, other = (dict(hand, flowers=rng.sample(FLOWERS, count)) for _ in range(2))
    for rules in RULESETS:
        if scoring.get_ruleset(rules).flowers_alike:
            a, b = (scoring.score_json(h, rules) for h in (one, other))
            fans_a, fans_b = ([(f["key"], f["points"], f["count"]) for f in r["fans"]] for r in (a, b))
            assert (a["total"], fans_a, a["payments"]) == (b["total"], fans_b, b["payments"]), (rules, one, other)


def test_a_rule_set_that_names_flowers_says_so():
    hand = {"concealed": "1m 2m 3m 4p 5p 6p 7s 8s 9s 5z 5z 7z 7z".split(), "melds": [], "winning_tile": "7z",
            "seat_wind": "E"}
    for rules in RULESETS:
        totals = {scoring.score_json(dict(hand, flowers=[f]), rules)["total"] for f in FLOWERS}
        assert (len(totals) == 1) == scoring.get_ruleset(rules).flowers_alike, (rules, totals)


def _malformed(rng: random.Random, hand: dict) -> tuple[dict, str]:
    """One way to break a valid hand, with the error code it must give."""
    bad = dict(hand, concealed=list(hand["concealed"]))
    kind = rng.randrange(6)
    if kind == 0:
        bad["concealed"][rng.randrange(len(bad["concealed"]))] = rng.choice(["0m", "10p", "8z", "x", "5"])
        return bad, "unknown_tile"
    if kind == 1:
        bad["concealed"].append(bad["concealed"][0])
        return bad, "wrong_tile_count"
    if kind == 2 and len(bad["concealed"]) >= 4:
        bad["concealed"][:4] = [bad["winning_tile"]] * 4  # with the winning tile: a fifth copy
        return bad, "too_many_copies"
    if kind == 3:
        bad["concealed"][0] = rng.choice(["1f", "5f", "8f"])
        return bad, "flower_in_hand"
    if kind == 4:
        bad["melds"] = [*hand["melds"], {"kind": "chow", "tiles": ["1z", "2z", "3z"]}]
        return bad, "bad_meld"
    bad["self_drawn"], bad["robbing_kong"] = True, True
    return bad, "contradictory_flags"


@settings(max_examples=150, deadline=None)
@given(SEEDS)
def test_invalid_hands_rejected_alike(seed):
    rng = random.Random(seed)
    bad, code = _malformed(rng, random_hand(rng))
    codes = {rules: scoring.score_json(bad, rules).get("error", {}).get("code") for rules in RULESETS}
    assert set(codes.values()) == {code}, (bad, codes)
