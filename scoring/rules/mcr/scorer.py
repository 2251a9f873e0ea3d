"""Scoring one MCR hand: every decomposition is scored and the best kept (就高).

Within one decomposition:
1. every fan's predicate runs and yields hits;
2. combination fans (``links``) are chosen as the highest-scoring subset whose links between sets
   form no cycle (不拆移 / 不相同 / 套算一次 as one rule, after GB-Mahjong's reading);
3. exclusions are settled from the highest fan down: a counted fan cancels its `excludes`
   everywhere and its `absorbs` on its own units; a cancelled fan cancels nothing;
4. a hand left with no fan scores 无番和 (8).
Flowers are added after the 8-fan minimum is checked.
"""

from __future__ import annotations

import dataclasses

from ... import tiles as T
from ...decompose import Decomposition, decompositions, wait_count
from ...fans import Fan, Hit, Situation
from ...hand import Hand, WinContext
from ...result import BELOW_MINIMUM, NO_PAYMENTS, NOT_WINNING, FanScore, Result
from .fans import FANS, MUST_BE_CONCEALED
from .options import MCROptions

ORDER = {f.key: n for n, f in enumerate(FANS)}
BY_KEY = {f.key: f for f in FANS}
# Fans the per-decomposition pass runs; 无番和 and 花牌 are settled afterwards.
PLAYED = tuple(f for f in FANS if f.key not in ("chicken_hand", "flower_tiles"))


def derive_context(hand: Hand, ctx: WinContext) -> WinContext:
    """Normalise derivable facts: 和绝张 when the other three copies are in the winner's own
    melds; no 杠上开花 without a kong."""
    in_melds = sum(m.tiles.count(hand.winning_tile) for m in hand.melds)
    last_copy = ctx.last_copy or in_melds == 3
    kong_replacement = ctx.kong_replacement and any(m.kind == "kong" for m in hand.melds)
    if (last_copy, kong_replacement) != (ctx.last_copy, ctx.kong_replacement):
        ctx = dataclasses.replace(ctx, last_copy=last_copy, kong_replacement=kong_replacement)
    return ctx


def _facts(hand: Hand) -> dict:
    counts = hand.tile_counts()
    present = frozenset(i for i, n in enumerate(counts) if n)
    standing = [0] * T.PLAYING_TILES
    for c in hand.concealed:
        standing[T.INDEX[c]] += 1
    suit_of_13 = {T.suit(i) for i, n in enumerate(standing) if n}
    nine_gates = False
    if not hand.melds and len(suit_of_13) == 1 and min(suit_of_13) < 3:
        start = 9 * min(suit_of_13)
        nine_gates = standing[start:start + 9] == [3, 1, 1, 1, 1, 1, 1, 1, 3]
    return {
        "present": present,
        "suits": frozenset(T.suit(i) for i in present if i < T.NUMBER_TILES),
        "honours": any(T.is_honour(i) for i in present),
        "winds": any(T.is_wind(i) for i in present),
        "dragons": any(T.is_dragon(i) for i in present),
        "fours": tuple(i for i, n in enumerate(counts) if n == 4),
        "winning": T.INDEX[hand.winning_tile],
        "all_tiles": tuple(i for i, n in enumerate(counts) for _ in range(n)),
        "nine_gates_shape": nine_gates,
        "count_waits": lambda: wait_count(hand),
    }


def _forest(candidates: list[tuple[Fan, Hit]], n_units: int) -> list[tuple[Fan, Hit]]:
    """The highest-scoring subset of combination fans whose links stay a forest.

    Each chosen fan joins its units into one component; a fan whose units already share a
    component would close a cycle.  Candidates are tried highest first, so among equal totals the
    choice with the bigger fans (then table order) wins."""
    candidates = sorted(candidates, key=lambda c: (-c[0].points, ORDER[c[0].key]))
    rest = [0] * (len(candidates) + 1)
    for i in range(len(candidates) - 1, -1, -1):
        rest[i] = rest[i + 1] + candidates[i][0].points
    best_total, best_pick = 0, ()

    def walk(i: int, comp: tuple[int, ...], total: int, picked: tuple[int, ...]) -> None:
        nonlocal best_total, best_pick
        if total > best_total:
            best_total, best_pick = total, picked
        if i == len(candidates) or total + rest[i] <= best_total:
            return
        fan, hit = candidates[i]
        roots = [comp[u] for u in hit.units]
        if len(set(roots)) == len(roots):
            low = min(roots)
            joined = tuple(low if r in roots else r for r in comp)
            walk(i + 1, joined, total + fan.points, picked + (i,))
        walk(i + 1, comp, total, picked)

    walk(0, tuple(range(n_units)), 0, ())
    return [candidates[i] for i in best_pick]


def _settle(found: list[tuple[Fan, Hit]], options: MCROptions) -> list[tuple[Fan, Hit]]:
    """Apply 不计 from the highest fan down; only counted fans cancel others."""
    excluded: set[str] = set()
    absorbed: list[tuple[frozenset[str], frozenset[int]]] = []
    kept = []
    for fan, hit in sorted(found, key=lambda c: (-c[0].points, ORDER[c[0].key])):
        if fan.key in excluded:
            continue
        units = frozenset(hit.units)
        if any(fan.key in keys and units and units <= scope for keys, scope in absorbed):
            continue
        kept.append((fan, hit))
        cancels = fan.excludes
        if options.concealed_selfdraw_1998 and fan.key in MUST_BE_CONCEALED:
            cancels = cancels - {"fully_concealed_hand"}
        excluded |= cancels
        if fan.absorbs:
            absorbed.append((fan.absorbs, units))
    return kept


def score_decomposition(d: Decomposition, s: Situation) -> list[tuple[Fan, Hit]]:
    """The fans one decomposition counts (flowers not included)."""
    plain: list[tuple[Fan, Hit]] = []
    linking: list[tuple[Fan, Hit]] = []
    for fan in PLAYED:
        for hit in fan.detect(d, s):
            (linking if fan.links else plain).append((fan, hit))
    if linking:
        # a combination fan cancelled by a bigger whole-hand fan (清幺九 -> 双同刻) takes no part
        cancelled = {k for f, _ in plain for k in f.excludes}
        linking = _forest([c for c in linking if c[0].key not in cancelled], len(d.units))
    kept = _settle(plain + linking, s.options)
    if not kept:
        kept = [(BY_KEY["chicken_hand"], Hit(tuple(range(len(d.units)))))]
    return kept


def _fan_scores(d: Decomposition, kept: list[tuple[Fan, Hit]]) -> list[FanScore]:
    groups: dict[str, list[tuple[str, ...]]] = {}
    for fan, hit in kept:
        tiles = hit.tiles or tuple(t for u in hit.units for t in d.units[u].tiles)
        groups.setdefault(fan.key, []).append(tuple(T.code(i) for i in tiles))
    return [
        FanScore(key, BY_KEY[key].zh, BY_KEY[key].en, BY_KEY[key].points, len(g), tuple(g))
        for key, g in sorted(groups.items(), key=lambda kv: ORDER[kv[0]])
    ]


def payments(ctx: WinContext, total: int, base: int) -> dict[str, int]:
    """Self-draw: each other seat pays base + total.  Discard: the discarder pays base + total,
    the other two pay base."""
    pay = dict(NO_PAYMENTS)
    winner = ctx.seat_wind
    discarder = ctx.paying_discarder
    for seat in T.WINDS:
        if seat != winner:
            pay[seat] = -(base + total) if ctx.self_drawn or seat == discarder else -base
    pay[winner] = -sum(pay.values())
    return pay


def evaluate(hand: Hand, ctx: WinContext, options: MCROptions) -> Result:
    ctx = derive_context(hand, ctx)
    flowers = len(hand.flowers)
    decs = decompositions(hand)
    if not decs:
        return Result("mcr", False, NOT_WINNING, (), 0, flowers, False,
                      breakdown={"fan_total": 0, "flower_points": flowers, "base": options.base})
    s = Situation(hand, ctx, options, tuple(hand.tile_counts()), _facts(hand))
    best_total, best_kept, best_d = -1, [], decs[0]
    for d in decs:
        kept = score_decomposition(d, s)
        total = sum(f.points for f, _ in kept)
        if total > best_total:
            best_total, best_kept, best_d = total, kept, d
    fans = _fan_scores(best_d, best_kept)
    if flowers:
        flower = BY_KEY["flower_tiles"]
        fans.append(FanScore(flower.key, flower.zh, flower.en, flower.points, flowers,
                             tuple((c,) for c in hand.flowers)))
    total = best_total + flowers
    met = best_total >= options.minimum
    return Result(
        rules="mcr",
        winning=met,
        reason=None if met else BELOW_MINIMUM,
        fans=tuple(fans),
        total=total,
        flowers=flowers,
        minimum_met=met,
        payments=payments(ctx, total, options.base) if met else dict(NO_PAYMENTS),
        breakdown={"fan_total": best_total, "flower_points": flowers, "base": options.base,
                   "form": best_d.form},
        sets=tuple(u.codes for u in best_d.units),
    )
