"""Scoring a hand under Sihai 3.1: category rule, 满贯线, win thresholds and payments.

1. Every arrangement of the hand is scored; the one with the highest H is kept (one arrangement
   per hand: fans of different categories may share its sets).
2. 同类别不复用: in each of the 19 categories only the highest fan that applies counts (on equal
   points the one listed first in the seed's row); categories add.
3. A few fans replace a fan of another category (`Fan.excludes`): 镜同刻 replaces 对对和, 混幺九
   混全单, 清幺九 全单, 全双 断幺.
4. 满贯线 200: H = max(largest counted fan, min(sum, 200)); option `cap` (`hard`, `none`).
5. H must reach the edition's line for how the hand was won (self-draw or discard).
6. Payments with F = 50 (25 in edition B), zero-sum over the four seats.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from ... import tiles as T
from ...decompose import Decomposition, Unit as CoreUnit, decompositions
from ...fans import Fan, Hit, Situation
from ...hand import Hand, WinContext
from ...result import BELOW_MINIMUM, NOT_WINNING, FanScore, Result
from .. import option
from .fans import CATEGORIES, FANS, SUJI_LINES
from .shape import FORMS, KNITTED, SUJI_KNITTED

# Our decisions where the seed is silent (shown in docs/sihai-3.1.md).
DECISIONS: tuple[str, ...] = (
    "**Categories (同类别不复用).** The unit is the seed table's 类别 (its 大类 where 类别 is blank): 19 "
    "categories. In each only the highest fan that applies counts; on equal points the one the seed lists "
    "first (全不靠 before 筋不靠). Fans of different categories add.",
    "**One arrangement.** The hand is scored on the one reading with the highest H (then the highest sum); "
    "fans of different categories may use the same sets (一般高 and 一条龙 may share 123m).",
    "**满贯线 200.** H = max(largest counted fan, min(sum, 200)): adding stops at 200, a single fan above "
    "200 keeps its value. Option `cap`: `hard` (H ≤ 200) or `none`.",
    "**Steps are one rank** in 一般低, 三步高, 双般低, 四步高; 123 345 567 789 of one suit is 连环龙.",
    "**番牌** is a dragon pung or kong, counted once; the higher 箭牌 fans replace it. Winds score only "
    "through the 风牌 category.",
    "**镜同刻 replaces 对对和** (the seed: its value already includes 对对和's). **混幺九 replaces 混全单 "
    "and 清幺九 replaces 全单**: terminals are odd, yet the seed's own ladder counts 混幺九 对对和 as "
    "30 + 80 = 110, without 混全单. **全双 replaces 断幺** by the same ladder: every even tile is a simple, "
    "and it counts 全双 对对和 as 30 + 80 = 110, without 断幺 (全筋 does not: 147 and 369 hold terminals; "
    "nor on the 258 line, which holds none, as a fan replaces the same fans in every hand it scores).",
    "**Seven pairs and knitted hands** take every fan that needs no sets (花色, 幺九, 单双, 全连, the pair "
    "fans 三风对/三元对/四喜对). Four identical tiles in seven pairs score 杠七对, not 四归一.",
    "**混 fans** (混全单, 混全双, 混全带, 混全连) need honours and number tiles both; 混幺九 also takes an "
    "all-honours hand (the seed's 大七星 example counts it).",
    "**九莲宝灯 / 九莲明灯** as the seed defines them: concealed 1112345678999 + one tile of the suit; "
    "self-drawn, only the 14 tiles matter; on a discard the 13 tiles must already be 1112345678999. "
    "Any other way to the same tiles is 九莲明灯.",
    "**Chance fans** come from flags: 海底捞月 `last_tile` + self-drawn; 河底摸鱼 `last_tile` on a "
    "discard; 金鸡夺食 `robbing_kong`; 岭上开花 `kong_replacement`, with a kong in the hand (as MCR's "
    "杠上开花); 天和 `heavenly` (dealer, dealt 14 tiles); 地和 `earthly` (non-dealer self-draws the first "
    "draw); 人和 `human` (non-dealer wins on a discard in the first go-around).",
    "**No concealment, self-draw, wait or flower fans**: self-draw matters only through the thresholds "
    "and payments. Flowers are counted in the result but score nothing.",
    "**Hand forms**: four sets and a pair, seven pairs, 十三幺, 全不靠 (MCR's knitted hand) and 筋不靠 "
    "(provisional). MCR's 组合龙 with a set and a pair is not a Sihai hand.",
    "**Below the threshold** the hand is reported (`winning: true`, `reason: below_minimum`, as in every "
    "rule set) with no payments.",
)

CAP = 200  # 满贯线
# Level -> (self-draw line 自摸线, discard line 点和线).
LEVEL_LINES: dict[str, tuple[int, int]] = {"I": (0, 0), "II": (5, 5), "III": (10, 10), "IV": (10, 20), "V": (20, 50)}
# Edition -> the levels it is played at (the seed's 适用级别 column).
EDITION_LEVELS: dict[str, tuple[str, ...]] = {"A": ("I", "II"), "B": ("II", "III"), "C": ("III", "IV"), "D": ("IV", "V")}
EDITION_NAMES = {"A": "入门版 (introductory)", "B": "基础版 (basic)", "C": "进阶版 (advanced)", "D": "标准版 (standard)"}
CAP_RULES = {
    "standard": "H = max(largest counted fan, min(sum, 200))",
    "hard": "H = min(sum, 200): no fan scores above the cap",
    "none": "H = sum of the counted fans, no cap",
}


@dataclass(frozen=True)
class Options:
    edition: str = option("D", "A 入门版, B 基础版 (分付线 F = 25), C 进阶版, D 标准版 (F = 50)", tuple(EDITION_LEVELS))
    level: str = option("", "I-V, the win thresholds: a level the edition is played at; empty: its lower one "
                            "(IV for D)", ("", *LEVEL_LINES))
    cap: str = option("standard", "how the 200 满贯线 applies: standard (no sum above 200, one bigger fan "
                                  "keeps its value), hard (nothing above 200) or none", tuple(CAP_RULES))
    provisional: bool = option(True, "score the fans without a primary source (marked provisional); "
                                      "false drops them and the 筋不靠 hand form")

    def __post_init__(self) -> None:
        if self.edition not in EDITION_LEVELS:
            raise ValueError(f"sihai edition must be one of {', '.join(EDITION_LEVELS)}, got {self.edition!r}")
        if self.level == "":  # a table that names only its edition plays the edition's lower level
            object.__setattr__(self, "level", EDITION_LEVELS[self.edition][0])
        if self.level not in EDITION_LEVELS[self.edition]:
            raise ValueError(f"sihai edition {self.edition} is played at level "
                             f"{' or '.join(EDITION_LEVELS[self.edition])}, not {self.level!r}")
        if self.cap not in CAP_RULES:
            raise ValueError(f"sihai cap must be one of {', '.join(CAP_RULES)}, got {self.cap!r}")

    @property
    def split_line(self) -> int:
        """F, the 分付线 of the payment table."""
        return 25 if self.edition == "B" else 50


# Fans of each category, best first: most points, then the seed's order.
BY_CATEGORY: dict[str, tuple[Fan, ...]] = {
    c: tuple(sorted((f for f in FANS if f.category == c), key=lambda f: -f.points)) for c in CATEGORIES
}


@dataclass(frozen=True)
class Arrangement:
    """One arrangement scored: the fans that count, with the units each uses."""

    decomposition: Decomposition
    fans: tuple[tuple[Fan, tuple[int, ...]], ...]
    sum: int
    h: int


def _h(points: list[int], cap: str) -> int:
    total = sum(points)
    if cap == "none":
        return total
    if cap == "hard":
        return min(total, CAP)
    return max(max(points, default=0), min(total, CAP))


def _suji_knitted(hand: Hand) -> list[Decomposition]:
    """筋不靠 (a Sihai form): 14 different tiles, each suit's ranks on one 筋 line, honours free.
    Hands that are also MCR's 全不靠 already come from the shared search."""
    counts = hand.counts
    if hand.melds or max(counts) > 1:
        return []
    for suit in range(3):
        ranks = {T.rank(i) for i in range(9 * suit, 9 * suit + 9) if counts[i]}
        if not any(ranks <= set(line) for line in SUJI_LINES):
            return []
    units = tuple(CoreUnit("single", i, (i,), (T.code(i),)) for i, n in enumerate(counts) if n)
    win = T.INDEX[hand.winning_tile]
    return [Decomposition(SUJI_KNITTED, units, next(k for k, u in enumerate(units) if u.tile == win), win)]


def accepted_forms(options: Options) -> Collection[str]:
    """筋不靠 is a provisional form: off with the provisional fans."""
    return FORMS if options.provisional else FORMS.keys() - {SUJI_KNITTED}


def own_forms(hand: Hand) -> list[str]:
    """筋不靠 where the hand's tiles take it and not MCR's 全不靠 (which names it already), for
    the rule sets that refuse such a hand."""
    if not _suji_knitted(hand) or any(d.form == KNITTED for d in decompositions(hand)):
        return []
    return [SUJI_KNITTED]


def arrangements(hand: Hand, sit: Situation) -> list[Decomposition]:
    """The distinct Sihai readings of the hand (where the winning tile sits does not matter)."""
    seen: dict[tuple, Decomposition] = {}
    for d in decompositions(hand):
        if d.form in FORMS:
            seen.setdefault((d.form, d.units), d)
    if sit.options.provisional and not any(form == "honours_knitted" for form, _ in seen):
        for d in _suji_knitted(hand):
            seen[(d.form, d.units)] = d
    return list(seen.values())


def score_arrangement(d: Decomposition, sit: Situation) -> Arrangement:
    counted: list[tuple[Fan, tuple[int, ...]]] = []
    for category in CATEGORIES:
        for f in BY_CATEGORY[category]:
            if f.provisional and not sit.options.provisional:
                continue
            hits = list(f.detect(d, sit))
            if hits:
                counted.append((f, hits[0].units))
                break
    replaced = {key for f, _ in counted for key in f.excludes}
    counted = [(f, units) for f, units in counted if f.key not in replaced]
    points = [f.points for f, _ in counted]
    return Arrangement(d, tuple(counted), sum(points), _h(points, sit.options.cap))


def best_arrangement(sit: Situation) -> Arrangement | None:
    """The arrangement with the highest H (then the highest sum); None if the hand does not win."""
    scored = [score_arrangement(d, sit) for d in arrangements(sit.hand, sit)]
    return max(scored, key=lambda a: (a.h, a.sum), default=None)


def payments(h: int, ctx: WinContext, split_line: int) -> dict[str, int]:
    """The seed's table: self-draw 2H from each; discard: the discarder 2H and the others H each,
    or, above F, the others F each and the discarder the rest of 4H."""
    pay = dict.fromkeys(T.WINDS, 0)
    losers = [w for w in T.WINDS if w != ctx.seat_wind]
    if ctx.self_drawn:
        for w in losers:
            pay[w] = -2 * h
    else:
        for w in losers:
            pay[w] = -min(h, split_line)
        pay[ctx.paying_discarder] = -(2 * h if h <= split_line else 4 * h - 2 * split_line)
    pay[ctx.seat_wind] = -sum(pay[w] for w in losers)
    return pay


def _fan_score(f: Fan, d: Decomposition, units: tuple[int, ...]) -> FanScore:
    group = Hit(units).codes(d.units)
    return FanScore(f.key, f.zh, f.en, f.points, 1, (group,), f.provisional)


def evaluate(hand: Hand, ctx: WinContext, options: Options) -> Result:
    sit = Situation(hand, ctx, options)
    self_line, discard_line = LEVEL_LINES[options.level]
    line = self_line if ctx.self_drawn else discard_line
    breakdown = {
        "edition": options.edition, "level": options.level,
        "self_draw_line": self_line, "discard_line": discard_line,
        "won_by": "self_draw" if ctx.self_drawn else "discard", "line": line,
        "split_line": options.split_line, "cap": CAP, "cap_rule": options.cap,
    }
    best = best_arrangement(sit)
    if best is None:
        return Result("sihai", False, NOT_WINNING, (), 0, len(hand.flowers), False, breakdown=breakdown)
    d = best.decomposition
    met = best.h >= line
    breakdown |= {
        "form": d.form,
        "sum": best.sum,
        "largest": max((f.points for f, _ in best.fans), default=0),
        "H": best.h,
        "categories": {f.category: f.zh for f, _ in best.fans},
    }
    return Result(
        rules="sihai",
        winning=True,
        reason=None if met else BELOW_MINIMUM,
        fans=tuple(_fan_score(f, d, units) for f, units in best.fans),
        total=best.h,
        flowers=len(hand.flowers),
        minimum_met=met,
        payments=payments(best.h, ctx, options.split_line) if met else dict.fromkeys(T.WINDS, 0),
        breakdown=breakdown,
        sets=tuple(u.codes for u in d.units),
    )


def summary(b: dict) -> str:
    """The CLI's line under the fans, from the breakdown: how H came about and the line it had to reach."""
    cap = "no cap" if b["cap_rule"] == "none" else f"满贯线 cap {b['cap']}, {b['cap_rule']} rule"
    return (f"Hand score H {b['H']} (fans sum to {b['sum']}; {cap}); "
            f"a {b['won_by'].replace('_', '-')} win needs {b['line']} at edition {b['edition']}, level {b['level']}")


def flower_note(breakdown: dict) -> str:
    """Flowers are counted in the result but score nothing."""
    return "no points"


def shortfall(b: dict) -> str:
    """Why a hand below the line does not score: H against the line for how it was won."""
    return (f"hand score H {b['H']} does not reach the {b['won_by'].replace('_', '-')} line "
            f"({b['line']} at edition {b['edition']}, level {b['level']}).")
