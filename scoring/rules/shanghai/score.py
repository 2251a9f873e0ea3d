"""Scoring a hand under Shanghai old-style rules: basic points x 2^fans, dealer double.

basic points = winning base (10) + win points + set points + flower points.  The seed gives the
fans and seven worked computations; the base-point values are read back from those computations
(they are the classical table with a winning base of 10).  Values no computation checks are the
classical ones and are options.  Only the regular form (four sets and a pair) wins.

Every reading of the hand, and every place the winning tile can sit in it, is scored; the highest
score is kept.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ... import tiles as T
from ...decompose import FORM_NAMES, Decomposition, decompositions
from ...errors import ScoringError
from ...fans import Situation
from ...hand import Hand, WinContext
from ...result import NOT_WINNING, FanScore, Result
from .. import counted, option
from .fans import FANS, wait

# The one hand form that wins (the seed knows no special hands)
FORMS = {"regular": FORM_NAMES["regular"]}

# Our readings where the seed is silent (shown in docs/shanghai-old.md).
DECISIONS: tuple[str, ...] = (
    "Only the regular form (four sets and a pair) wins: the seed names no special hands.",
    "All fans add; the seed lists no exclusions. 一般高 counts once however many pairs of chows.",
    "Each reading of the hand and each place the winning tile can take in it is scored; the highest score "
    "counts (so a two-sided reading that keeps 平和 beats a pair wait worth 2 points).",
    "A pung completed by the winning discard is exposed. A pair scores only for dragons, the seat wind and "
    "the round wind (twice when the seat wind is the round wind).",
    "杠头开花 also covers the tile drawn after a flower (flag `kong_replacement`); it needs a kong or a "
    "flower in the hand.",
    "Only the seat wind's pung is a fan (the seed's 方位字牌); the round wind's is not.",
    "The seed's example 1 does not say which sets were claimed; fully concealed and self-drawn it would "
    "also score 不求人, so our tests claim one chow.",
    "The dealer sits East (seed 4.3, 庄家为东风位: the seats are named from the dealer), so a hand whose "
    "`dealer` is another wind is refused (`contradictory_flags`); the dealer pays and receives double.",
)

WAIT_NAMES = {"pair": "吊麻将头 pair wait", "closed": "嵌张 closed wait", "edge": "边张 edge wait"}


@dataclass(frozen=True)
class Options:
    base: int = option(10, "基准和牌点数, the winning base")
    self_draw_points: int = option(2, "自摸, a self-drawn win")
    pair_wait_points: int = option(2, "吊麻将头, winning on the pair")
    closed_wait_points: int = option(2, "嵌张, winning in the middle of a chow")
    edge_wait_points: int = option(2, "边张, winning on the 3 of 12 or the 7 of 89 (untested: the classical value)")
    exposed_kong_points: int = option(8, "an exposed kong of simples; terminals and honours double it (untested)")
    value_pair_points: int = option(2, "a pair of dragons, of the seat wind, of the round wind: each (untested)")
    flower_points: int = option(4, "each flower or season held")
    discarder_pays_all: bool = option(False, "on a discard win only the discarder pays, three times the "
                                              "score (doubled when the dealer wins or discards)")
    limit: int = option(0, "the highest score a hand can reach; 0 = no limit")

    def __post_init__(self) -> None:
        for name, value in vars(self).items():
            if not isinstance(value, bool) and value < 0:
                raise ValueError(f"shanghai option {name} cannot be negative, got {value}")


@dataclass(frozen=True)
class Reading:
    """One reading scored: its basic points with their parts, and its fans."""

    decomposition: Decomposition
    win_points: tuple[tuple[str, int], ...]
    set_points: tuple[tuple[int, str, int], ...]  # (unit index, what, points)
    flower_points: int
    fans: tuple[FanScore, ...]
    basic: int
    fan_total: int
    score: int


# Points of a set of simples by (kind, concealed); terminals and honours score double.  The
# exposed kong is the option `exposed_kong_points` (no computation of the seed checks it).
SET_POINTS: dict[tuple[str, bool], int] = {("pung", False): 2, ("pung", True): 4, ("kong", True): 16}


def _set_points(d: Decomposition, sit: Situation) -> list[tuple[int, str, int]]:
    opts: Options = sit.options
    ctx = sit.context
    out = []
    for k, u in enumerate(d.units):
        if u.kind in ("pung", "kong"):
            # A pung completed by a discard counts as exposed; a kong is concealed only if declared so.
            concealed = d.unit_is_concealed(k, ctx.self_drawn)
            simple = opts.exposed_kong_points if (u.kind, concealed) == ("kong", False) else SET_POINTS[u.kind, concealed]
            points = simple * (2 if T.is_terminal_or_honour(u.tile) else 1)
            out.append((k, f"{'concealed' if concealed else 'exposed'} {u.kind}", points))
        elif u.kind == "pair":
            value = [T.is_dragon(u.tile), u.tile == T.WIND_TILES[ctx.seat_wind], u.tile == T.WIND_TILES[ctx.round_wind]]
            if any(value):
                out.append((k, "value pair", opts.value_pair_points * sum(value)))
    return out


def _win_points(d: Decomposition, sit: Situation) -> list[tuple[str, int]]:
    opts: Options = sit.options
    out = []
    if sit.context.self_drawn:
        out.append(("自摸 self-draw", opts.self_draw_points))
    kind = wait(d)
    points = {"pair": opts.pair_wait_points, "closed": opts.closed_wait_points, "edge": opts.edge_wait_points}
    if kind in points:
        out.append((WAIT_NAMES[kind], points[kind]))
    return out


def _fan_scores(d: Decomposition, sit: Situation) -> list[FanScore]:
    out = []
    for f in FANS:
        hits = list(f.detect(d, sit))
        if hits:
            groups = tuple(h.codes(d.units) for h in hits)
            out.append(FanScore(f.key, f.zh, f.en, f.points, len(hits), groups))
    return out


def score_reading(d: Decomposition, sit: Situation) -> Reading:
    opts: Options = sit.options
    win = _win_points(d, sit)
    sets = _set_points(d, sit)
    flowers = opts.flower_points * len(sit.hand.flowers)
    basic = opts.base + sum(p for _, p in win) + sum(p for _, _, p in sets) + flowers
    fans = _fan_scores(d, sit)
    fan_total = sum(f.points * f.count for f in fans)
    score = basic * 2 ** fan_total
    if opts.limit:
        score = min(score, opts.limit)
    return Reading(d, tuple(win), tuple(sets), flowers, tuple(fans), basic, fan_total, score)


def payments(score: int, ctx: WinContext, opts: Options) -> dict[str, int]:
    """Each loser pays the score, doubled between the dealer and anyone (庄位算番); with
    `discarder_pays_all` the discarder alone pays three times the score (doubled likewise)."""
    pay = dict.fromkeys(T.WINDS, 0)

    def owed(loser: str, amount: int) -> int:
        return amount * (2 if ctx.dealer in (loser, ctx.seat_wind) else 1)

    if opts.discarder_pays_all and not ctx.self_drawn:
        pay[ctx.paying_discarder] = -owed(ctx.paying_discarder, 3 * score)
    else:
        for w in T.WINDS:
            if w != ctx.seat_wind:
                pay[w] = -owed(w, score)
    pay[ctx.seat_wind] = -sum(pay.values())
    return pay


def _breakdown(r: Reading, ctx: WinContext, opts: Options) -> dict[str, Any]:
    d = r.decomposition
    return {
        "base": opts.base,
        "win_points": [{"what": what, "points": p} for what, p in r.win_points],
        "set_points": [{"tiles": list(d.units[k].codes), "what": what, "points": p} for k, what, p in r.set_points],
        "flower_points": r.flower_points,
        "basic_points": r.basic,
        "fans": r.fan_total,
        "multiplier": 2 ** r.fan_total,
        "limit": opts.limit or None,
        "dealer": ctx.dealer,
        "winner_is_dealer": ctx.dealer == ctx.seat_wind,
    }


def check_context(ctx: WinContext) -> None:
    """The dealer sits East: the seat winds and seat flowers are counted from the dealer, so a
    South dealer would make both the seat fans and the payments wrong."""
    if ctx.dealer != "E":
        raise ScoringError("contradictory_flags", f"under Shanghai old-style the dealer sits East (庄家为东风位), "
                                                  f"got dealer={ctx.dealer}: give the winner's seat counted from the dealer")


def evaluate(hand: Hand, ctx: WinContext, options: Options) -> Result:
    sit = Situation(hand, ctx, options)
    readings = [score_reading(d, sit) for d in decompositions(hand) if d.form in FORMS]
    if not readings:
        return Result("shanghai", False, NOT_WINNING, (), 0, len(hand.flowers), False,
                      breakdown={"base": options.base})
    best = max(readings, key=lambda r: (r.score, r.fan_total))
    return Result(
        rules="shanghai",
        winning=True,
        reason=None,
        fans=best.fans,
        total=best.score,
        flowers=len(hand.flowers),
        minimum_met=True,  # no minimum: every winning hand scores
        payments=payments(best.score, ctx, options),
        breakdown=_breakdown(best, ctx, options),
        sets=tuple(u.codes for u in best.decomposition.units),
    )


def summary(b: dict) -> str:
    """The CLI's line under the fans, from the breakdown: basic points by part, then the doubling."""
    wins = sum(w["points"] for w in b["win_points"])
    sets = sum(s["points"] for s in b["set_points"])
    limit = f", limit {b['limit']}" if b["limit"] else ""
    return (f"basic {b['basic_points']} = base {b['base']} + win {wins} + sets {sets} + flowers "
            f"{b['flower_points']}; × 2^{b['fans']}{limit}")


def flower_note(breakdown: dict) -> str:
    """What the flowers add: points to the basic points, before the doubling."""
    return "+" + counted(breakdown["flower_points"], "basic point")
