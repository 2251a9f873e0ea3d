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
from ...decompose import Decomposition, decompositions
from ...fans import Situation
from ...hand import Hand, WinContext
from ...result import NOT_WINNING, FanScore, Result
from .fans import FANS, wait

WAIT_NAMES = {"pair": "吊麻将头 pair wait", "closed": "嵌张 closed wait", "edge": "边张 edge wait"}


@dataclass(frozen=True)
class Options:
    base: int = 10  # 基准和牌点数, the winning base
    self_draw_points: int = 2  # 自摸
    pair_wait_points: int = 2  # 吊麻将头, winning on the pair
    closed_wait_points: int = 2  # 嵌张
    edge_wait_points: int = 2  # 边张 (untested: the classical value)
    exposed_kong_points: int = 8  # exposed kong of simples; terminals/honours double it (untested)
    value_pair_points: int = 2  # pair of dragons, of the seat wind, of the round wind, each (untested)
    flower_points: int = 4  # per flower or season held
    discarder_pays_all: bool = False  # on a discard win only the discarder pays, three times the score
    limit: int = 0  # cap on the score (0 = no limit)

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


def _set_points(d: Decomposition, sit: Situation) -> list[tuple[int, str, int]]:
    opts: Options = sit.options
    ctx = sit.context
    out = []
    for k, u in enumerate(d.units):
        big = T.is_terminal_or_honour(u.tile)
        if u.kind == "pung":
            concealed = d.unit_is_concealed(k, ctx.self_drawn)
            points = (4 if concealed else 2) * (2 if big else 1)
            out.append((k, "concealed pung" if concealed else "exposed pung", points))
        elif u.kind == "kong":
            points = (16 if u.concealed else opts.exposed_kong_points) * (2 if big else 1)
            out.append((k, "concealed kong" if u.concealed else "exposed kong", points))
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
    kind = wait(d, sit.hand.winning_tile)
    points = {"pair": opts.pair_wait_points, "closed": opts.closed_wait_points, "edge": opts.edge_wait_points}
    if kind in points:
        out.append((WAIT_NAMES[kind], points[kind]))
    return out


def _fan_scores(d: Decomposition, sit: Situation) -> list[FanScore]:
    out = []
    for f in FANS:
        hits = list(f.detect(d, sit))
        if hits:
            groups = tuple(tuple(c for k in h.units for c in d.units[k].codes) + tuple(T.code(i) for i in h.tiles)
                           for h in hits)
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


def evaluate(hand: Hand, ctx: WinContext, options: Options) -> Result:
    sit = Situation(hand, ctx, options, tuple(hand.tile_counts()))
    readings = [score_reading(d, sit) for d in decompositions(hand) if d.form == "regular"]
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
