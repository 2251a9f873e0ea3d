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
from collections.abc import Callable
from functools import lru_cache, reduce
from itertools import chain, compress
from operator import and_

from ... import tiles as T
from ...decompose import Decomposition, chow_wait, decompositions, wait_count
from ...fans import Fan, Hit, Situation
from ...hand import Hand, WinContext
from ...result import BELOW_MINIMUM, NO_PAYMENTS, NOT_WINNING, FanScore, Result, fan_json, result_json
from .. import counted
from .fans import (FANS, MUST_BE_CONCEALED, NEEDS, ONLY_TAGS, POSITIONS, RANK_TAGS, Reading,
                   tag_mask)
from .options import MCROptions

# FANS runs from the highest points down (a test holds it to that), so fans found in table order
# are already sorted highest first, equal points in table order (what _settle needs).
BY_KEY = {f.key: f for f in FANS}
# Fans the per-decomposition pass runs; 无番和 and 花牌 are settled afterwards.
PLAYED = tuple(f for f in FANS if f.detect is not None)


def _needs_by_byte() -> tuple[tuple[int, tuple[int, ...]], ...]:
    """For each byte of the tag bits (shift, table): table[v] has bit n set when PLAYED[n]'s needs
    within that byte are all among the byte's value v."""
    needs = [tag_mask(NEEDS[f.key]) for f in PLAYED]
    out = []
    for shift in range(0, max(needs).bit_length(), 8):
        by_part: dict[int, int] = {}  # the byte of a fan's needs -> the fans with it, as bits
        for n, mask in enumerate(needs):
            part = mask >> shift & 255
            by_part[part] = by_part.get(part, 0) | 1 << n
        out.append((shift, tuple(sum(fans for part, fans in by_part.items() if part & v == part)
                                 for v in range(256))))
    return tuple(out)


_NEEDS_BY_BYTE = _needs_by_byte()
_ALL_PLAYED = (1 << len(PLAYED)) - 1


def _fans_by_byte() -> tuple[tuple[int, tuple[tuple[Fan, ...], ...]], ...]:
    """PLAYED a byte at a time, (shift, table) each: table[v] are the fans of PLAYED[shift:shift + 8]
    that the bits of v pick, in table order."""
    out = []
    for shift in range(0, len(PLAYED), 8):
        fans = PLAYED[shift:shift + 8]
        table: list[tuple[Fan, ...]] = [()]
        for v in range(1, 256):
            high = v.bit_length() - 1  # v's last fan; the others are those of v without it
            table.append(table[v ^ 1 << high] + fans[high:high + 1])
        out.append((shift, tuple(table)))
    return tuple(out)


_FANS_BY_BYTE = _fans_by_byte()


def _fans_for(tags: int) -> tuple[Fan, ...]:
    """The fans whose needs a reading's tags (tag_mask bits) meet, in table order.  Tag sets
    seldom repeat, so both steps go a byte at a time through precomputed tables: the tags pick
    the fans (as bits over PLAYED), the bits pick the fans themselves."""
    met = _ALL_PLAYED
    for shift, table in _NEEDS_BY_BYTE:
        met &= table[tags >> shift & 255]
    fans: tuple[Fan, ...] = ()
    for shift, table in _FANS_BY_BYTE:
        fans += table[met >> shift & 255]
    return fans


def derive_context(hand: Hand, ctx: WinContext) -> WinContext:
    """Normalise derivable facts: 和绝张 when the other three copies are in the winner's own
    melds; no 杠上开花 without a kong."""
    win = T.INDEX[hand.winning_tile]
    last_copy = ctx.last_copy or hand.counts[win] - hand.standing[win] == 3  # copies in the melds
    kong_replacement = ctx.kong_replacement and hand.has_kong
    if (last_copy, kong_replacement) != (ctx.last_copy, ctx.kong_replacement):
        ctx = dataclasses.replace(ctx, last_copy=last_copy, kong_replacement=kong_replacement)
    return ctx


# Tile tags (ONLY_TAGS, RANK_TAGS, no_honours) as tag_mask bits: per tile, the ones that stay true
# when the hand holds it, so a hand's are the AND over its different tiles.
_TILE_TAGS = (*ONLY_TAGS, *RANK_TAGS, "no_honours")
_TAGS_OF_TILE = tuple(
    tag_mask([tag for tag, tiles in ONLY_TAGS.items() if i in tiles]
             + [tag for tag, (low, high) in RANK_TAGS.items() if i < T.NUMBER_TILES and low <= i % 9 + 1 <= high]
             + (["no_honours"] if i < T.NUMBER_TILES else []))
    for i in range(T.PLAYING_TILES)
)
_SUITS_TAGS = tuple(tag_mask((f"suits{n}",)) for n in range(4))
_ALL_TILE_TAGS = tag_mask(_TILE_TAGS)
# the hand's yes/no tags, in the order _hand_tags lists its facts
_FLAG_BITS = tuple(tag_mask((tag,)) for tag in (
    "honours", "winds", "dragons", "hog", "nine_gates", "concealed", "last_tile", "kong_replacement",
    "robbing_kong", "last_copy", "four_melds"))
_HOW_WON = (tag_mask(("discard",)), tag_mask(("self_drawn",)))

# The different tiles a hand holds as one integer, bit i for tile i (the `held` fact): the
# hand-wide facts are then a few integer operations on it instead of passes over a list of its tiles.
_TILE_BITS = tuple(1 << i for i in range(T.PLAYING_TILES))
_SUIT_BITS = tuple(0x1FF << 9 * suit for suit in range(3))  # a number suit's nine tiles
_WIND_BITS, _DRAGON_BITS = 0xF << 27, 0x7 << 31
_SUIT_SETS = tuple(frozenset(suit for suit in range(3) if k >> suit & 1) for k in range(8))  # by bit per suit


def _tags_by_byte() -> tuple[tuple[int, tuple[int, ...]], ...]:
    """_TAGS_OF_TILE ANDed over the tiles of each value of one byte of the held bits, as (shift,
    table) per byte, so the AND over a hand's tiles is one lookup a byte."""
    out = []
    for shift in range(0, T.PLAYING_TILES, 8):
        tiles = range(shift, min(shift + 8, T.PLAYING_TILES))
        out.append((shift, tuple(reduce(and_, [_TAGS_OF_TILE[i] for i in tiles if v >> i - shift & 1], _ALL_TILE_TAGS)
                                 for v in range(1 << len(tiles)))))
    return tuple(out)


_TAGS_BY_BYTE = _tags_by_byte()


def _hand_tags(hand: Hand, ctx: WinContext, f: dict) -> int:
    """The hand's tags, matched with the readings' against each fan's `needs` (see fans.NEEDS)."""
    tags = _ALL_TILE_TAGS
    for shift, table in _TAGS_BY_BYTE:
        tags &= table[f["held"] >> shift & 255]
    # hog: a tile held four times, not as a declared kong (standing tiles never form kongs)
    hog = bool(f["fours"]) and not set(f["fours"]) <= {m.first for m in hand.melds if m.kind == "kong"}
    flags = (f["honours"], f["winds"], f["dragons"], hog, f["nine_gates_shape"], f["concealed"],
             ctx.last_tile, ctx.kong_replacement, ctx.robbing_kong, ctx.last_copy, len(hand.melds) == 4)
    # the bits are distinct powers of two, so their sum is their union
    return tags | sum(compress(_FLAG_BITS, flags)) | _SUITS_TAGS[len(f["suits"])] | _HOW_WON[ctx.self_drawn]


def _facts(hand: Hand, ctx: WinContext, options: MCROptions) -> dict:
    """Per-hand values the predicates share (tile indices; ranks 1-9; `held`: the tiles held, as bits)."""
    counts = hand.counts
    held = sum(compress(_TILE_BITS, counts))  # bit i for each tile i held (see _TILE_BITS)
    suits = _SUIT_SETS[(held & _SUIT_BITS[0] > 0) | (held & _SUIT_BITS[1] > 0) << 1 | (held & _SUIT_BITS[2] > 0) << 2]
    ranks = (held | held >> 9 | held >> 18) & 0x1FF  # bit r - 1 for each rank r held in any suit
    honours = held >> T.NUMBER_TILES > 0
    facts = {
        "held": held,
        "min_rank": (ranks & -ranks).bit_length(),  # 1-9, or 0 for an all-honours hand
        "max_rank": ranks.bit_length(),
        "concealed": hand.is_concealed,
        "suits": suits,
        "honours": honours,
        "winds": held & _WIND_BITS > 0,
        "dragons": held & _DRAGON_BITS > 0,
        "fours": tuple([i for i, n in enumerate(counts) if n == 4]) if 4 in counts else (),
        # 九莲宝灯 is one suit without honours, so other hands skip the shape test
        "nine_gates_shape": not honours and len(suits) == 1 and not hand.melds
                            and _nine_gates_shape(hand.concealed),
        "count_waits": lambda: wait_count(hand, limit=2, dead=options.dead_wait_counts),
    }
    facts["hand_tags"] = _hand_tags(hand, ctx, facts)
    return facts


def _nine_gates_shape(concealed: tuple[str, ...]) -> bool:
    """The 13 concealed tiles are 1112345678999 of one suit (they are sorted)."""
    return (len(concealed) == 13 and concealed[0][1] != "z" and concealed[0][1] == concealed[-1][1]
            and "".join(c[0] for c in concealed) == "1112345678999")


def _forest(candidates: list[tuple[Fan, Hit]]) -> list[tuple[Fan, Hit]]:
    """The highest-scoring subset of combination fans whose links stay a forest (_forest_picks)."""
    if len(candidates) <= 1:  # one fan joins distinct sets, so it closes no cycle
        return candidates
    return [candidates[i] for i in _forest_picks(tuple((fan.points, hit.units) for fan, hit in candidates))]


@lru_cache(maxsize=4096)
def _forest_picks(links: tuple[tuple[int, tuple[int, ...]], ...]) -> tuple[int, ...]:
    """Which of the candidate links, (points, units) each, to keep.  Each chosen fan joins its
    units into one component; a fan whose units already share a component would close a cycle.
    Candidates come in table order (highest first) and are tried in it, so among equal totals the
    choice with the bigger fans (then table order) wins.  Cached: the search is a pure function
    of the links, and hands repeat the same few link patterns."""
    start = tuple(range(1 + max(u for _, units in links for u in units)))
    comp = start
    for _, units in links:
        joined = _join(comp, units)
        if joined is None:
            break
        comp = joined
    else:  # no cycle at all (the usual case): every link is kept
        return tuple(range(len(links)))
    rest = [0] * (len(links) + 1)
    for i in range(len(links) - 1, -1, -1):
        rest[i] = rest[i + 1] + links[i][0]
    best_total, best_pick = 0, ()

    def walk(i: int, comp: tuple[int, ...], total: int, picked: tuple[int, ...]) -> None:
        nonlocal best_total, best_pick
        if total > best_total:
            best_total, best_pick = total, picked
        if i == len(links) or total + rest[i] <= best_total:
            return
        points, units = links[i]
        joined = _join(comp, units)
        if joined is not None:
            walk(i + 1, joined, total + points, picked + (i,))
        walk(i + 1, comp, total, picked)

    walk(0, start, 0, ())
    return best_pick


def _join(comp: tuple[int, ...], units: tuple[int, ...]) -> tuple[int, ...] | None:
    """The components (a root per unit) after a link joins its units, or None when two of them
    are already joined, so that the link would close a cycle."""
    roots = [comp[u] for u in units]
    if len(set(roots)) < len(roots):
        return None
    low = min(roots)
    return tuple([low if r in roots else r for r in comp])


def _settle(found: list[tuple[Fan, Hit]], options: MCROptions) -> list[tuple[Fan, Hit]]:
    """Apply 不计 from the highest fan down (`found` is in table order); only counted fans cancel
    others."""
    excluded: set[str] = set()
    absorbed: list[tuple[frozenset[str], frozenset[int]]] = []
    kept = []
    selfdraw_1998 = options.concealed_selfdraw_1998
    for found_fan in found:
        fan, hit = found_fan
        if fan.key in excluded:
            continue
        if absorbed and hit.units and any(
                fan.key in keys and scope.issuperset(hit.units) for keys, scope in absorbed):
            continue
        kept.append(found_fan)
        if fan.excludes:
            if selfdraw_1998 and fan.key in MUST_BE_CONCEALED:
                excluded |= fan.excludes - {"fully_concealed_hand"}
            else:
                excluded |= fan.excludes
        if fan.absorbs:
            absorbed.append((fan.absorbs, frozenset(hit.units)))
    return kept


def score_decomposition(d: Decomposition, s: Situation) -> list[tuple[Fan, Hit]]:
    """The fans one decomposition counts (flowers not included)."""
    found: list[tuple[Fan, Hit]] = []  # in table order (_fans_for runs the fans in it)
    linking = False
    reading = Reading(d, s)
    for fan in _fans_for(reading.tags):
        hits = fan.detect(reading, s)
        if hits:
            if len(hits) == 1:
                found.append((fan, hits[0]))
            else:
                found += [(fan, hit) for hit in hits]
            linking = linking or fan.links
    if linking:
        # a combination fan cancelled by a bigger whole-hand fan (清幺九 -> 双同刻) takes no part;
        # the rest are chosen together (_forest), and keep their places in table order
        links = [c for c in found if c[0].links]
        cancelled = set().union(*[f.excludes for f, _ in found if not f.links])
        chosen = _forest([c for c in links if c[0].key not in cancelled])
        if len(chosen) < len(links):  # usually every link stays, and found with it
            keep = set(map(id, chosen))
            found = [c for c in found if not c[0].links or id(c) in keep]
    kept = _settle(found, s.options)
    if not kept:
        kept = [(BY_KEY["chicken_hand"], Hit(tuple(range(len(d.units)))))]
    return kept


def _fan_groups(unit_codes: list[tuple[str, ...]],
                kept: list[tuple[Fan, Hit]]) -> list[tuple[Fan, list[tuple[str, ...]]]]:
    """The kept fans (in table order, as _settle leaves them, so a fan's hits are neighbours) with
    their tiles, one entry per fan: (the fan, a group of tiles per hit)."""
    entries: list[tuple[Fan, list[tuple[str, ...]]]] = []
    every_unit = POSITIONS[len(unit_codes)]  # the very tuple whole-hand hits hold, so == is an identity test
    whole: tuple[str, ...] = ()  # the whole hand's tiles, shared by the whole-hand fans
    for fan, (units, tiles) in kept:
        if tiles:
            group = tuple(map(T.TILE_CODES.__getitem__, tiles))
        elif len(units) == 1:
            group = unit_codes[units[0]]
        elif units == every_unit:
            group = whole = whole or tuple(chain.from_iterable(unit_codes))
        else:
            group = tuple(chain.from_iterable(map(unit_codes.__getitem__, units)))
        if entries and entries[-1][0] is fan:
            entries[-1][1].append(group)
        else:
            entries.append((fan, [group]))
    return entries


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


_FORM_RANK = {"regular": 0, "seven_pairs": 1, "knitted_straight": 2, "honours_knitted": 3, "thirteen_orphans": 4}


# Among readings with equal totals, one holding these fans is preferred (pymahjonggb's choice).
FAVOURED_AT_TIES = frozenset({"pure_triple_chow", "triple_pung"})


def _rank(kept: list[tuple[Fan, Hit]]) -> tuple[int, bool]:
    """How a reading's fans compare: the total, then whether it holds a FAVOURED_AT_TIES fan."""
    return sum([f.points for f, _ in kept]), any([f.key in FAVOURED_AT_TIES for f, _ in kept])


def _preference(d: Decomposition) -> tuple:
    """Order in which equal totals are decided (the first wins, after FAVOURED_AT_TIES): regular
    readings first; then the reading whose concealed sets, listed by lowest tile with pungs before
    chows, come first; then the winning tile read as 边张, 嵌张, 单钓将, anything else.  This is
    the order of the reference calculator pymahjonggb, so equal-total alternatives (就高 cannot
    choose) come out as its fan list does."""
    sets = tuple(sorted((u.tile, u.kind == "chow") for u in d.units if not u.declared and u.is_set))
    return (_FORM_RANK[d.form], sets, _placement_rank(d))


def _placement_rank(d: Decomposition) -> int:
    u = d.units[d.winning_unit]
    if u.kind == "chow":
        return {"edge": 0, "closed": 1, "two_sided": 3}[chow_wait(u, d.winning)]
    return 2 if u.kind == "pair" else 3


def evaluate(hand: Hand, ctx: WinContext, options: MCROptions) -> Result:
    return _evaluate(hand, ctx, options, FanScore, Result)


def evaluate_json(hand: Hand, ctx: WinContext, options: MCROptions) -> dict:
    """evaluate(...).to_json(), written straight from the scoring (see RuleSet.evaluate_json)."""
    return _evaluate(hand, ctx, options, fan_json, result_json)


def _evaluate(hand: Hand, ctx: WinContext, options: MCROptions, make_fan: Callable, make_result: Callable):
    """Score a hand; the result is made by make_result from Result's fields, each fan by make_fan
    from FanScore's (the objects themselves, or their JSON forms)."""
    ctx = derive_context(hand, ctx)
    flowers = len(hand.flowers)
    decs = decompositions(hand)
    if not decs:
        return make_result("mcr", False, NOT_WINNING, (), 0, flowers, False, dict(NO_PAYMENTS),
                           {"fan_total": 0, "flower_points": flowers, "base": options.base,
                            "minimum": options.minimum})
    s = Situation(hand, ctx, options, _facts(hand, ctx, options))
    best_d = decs[0]
    best_kept = score_decomposition(best_d, s)
    if len(decs) > 1:  # 就高 (a lone reading needs no ranking)
        scored = [(_rank(best_kept), best_kept, best_d)]
        for d in decs[1:]:
            kept = score_decomposition(d, s)
            scored.append((_rank(kept), kept, d))
        best = max([rank for rank, _, _ in scored])
        tied = [(kept, d) for rank, kept, d in scored if rank == best]
        # the preference order decides only between equal ranks, so only those readings need it
        best_kept, best_d = min(tied, key=lambda c: _preference(c[1])) if len(tied) > 1 else tied[0]
    best_total = sum([f.points for f, _ in best_kept])
    unit_codes = [u.codes for u in best_d.units]
    fans = [make_fan(fan.key, fan.zh, fan.en, fan.points, len(groups), tuple(groups))
            for fan, groups in _fan_groups(unit_codes, best_kept)]
    if flowers:
        flower = BY_KEY["flower_tiles"]
        fans.append(make_fan(flower.key, flower.zh, flower.en, flower.points, flowers,
                             tuple((c,) for c in hand.flowers)))
    total = best_total + flowers
    met = best_total >= options.minimum
    return make_result("mcr", True, None if met else BELOW_MINIMUM, tuple(fans), total, flowers, met,
                       payments(ctx, total, options.base) if met else dict(NO_PAYMENTS),
                       {"fan_total": best_total, "flower_points": flowers, "base": options.base,
                        "minimum": options.minimum, "form": best_d.form},
                       tuple(unit_codes))


def flower_note(breakdown: dict) -> str:
    """What the flowers add to the total: a fan each."""
    return "+" + counted(breakdown["flower_points"], "fan")


def shortfall(b: dict) -> str:
    """Why a hand below the minimum does not score: the minimum counts fans without flowers."""
    return f"{counted(b['fan_total'], 'fan')} without flowers; MCR needs {b['minimum']}."
