"""Per-fan table tests for the MCR engine: every fan scored at least once, every exclusion shown.

Each case is a hand with its complete expected fan list (Chinese names, `*n` for a count above
one).  `absent` names fans that the hand's tiles would form but that a scoring fan excludes (不计):
listing one there is a claim about the hand that the exact expected list then proves.  The
coverage tests check that every fan of FAN_POINTS has a positive case and every exclusion pair of
EXCLUDES is shown by some case.

The expectations were written from the rule text (seeds 001/003, ../shared/rules/mcr.md) and
checked one by one against pymahjonggb 1.4.0; `test_cases_agree_with_oracle` repeats that check
when the oracle is installed, except for the divergences of docs/mcr-divergences.md.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

import pytest

# The 81 MCR fans (花牌 included) plus the current-practice 明暗杠, with points.
FAN_POINTS: dict[str, int] = {
    "大四喜": 88, "大三元": 88, "绿一色": 88, "九莲宝灯": 88, "四杠": 88, "连七对": 88, "十三幺": 88,
    "清幺九": 64, "小四喜": 64, "小三元": 64, "字一色": 64, "四暗刻": 64, "一色双龙会": 64,
    "一色四同顺": 48, "一色四节高": 48,
    "一色四步高": 32, "三杠": 32, "混幺九": 32,
    "七对": 24, "七星不靠": 24, "全双刻": 24, "清一色": 24, "一色三同顺": 24, "一色三节高": 24,
    "全大": 24, "全中": 24, "全小": 24,
    "清龙": 16, "三色双龙会": 16, "一色三步高": 16, "全带五": 16, "三同刻": 16, "三暗刻": 16,
    "全不靠": 12, "组合龙": 12, "大于五": 12, "小于五": 12, "三风刻": 12,
    "花龙": 8, "推不倒": 8, "三色三同顺": 8, "三色三节高": 8, "无番和": 8, "妙手回春": 8, "海底捞月": 8,
    "杠上开花": 8, "抢杠和": 8,
    "碰碰和": 6, "混一色": 6, "三色三步高": 6, "五门齐": 6, "全求人": 6, "双暗杠": 6, "双箭刻": 6,
    "明暗杠": 5,
    "全带幺": 4, "不求人": 4, "双明杠": 4, "和绝张": 4,
    "箭刻": 2, "圈风刻": 2, "门风刻": 2, "门前清": 2, "平和": 2, "四归一": 2, "双同刻": 2, "双暗刻": 2,
    "暗杠": 2, "断幺": 2,
    "一般高": 1, "喜相逢": 1, "连六": 1, "老少副": 1, "幺九刻": 1, "明杠": 1, "缺一门": 1, "无字": 1,
    "边张": 1, "嵌张": 1, "单钓将": 1, "自摸": 1, "花牌": 1,
}

# Fan -> fans it excludes (不计) whose tiles can be present in a hand that scores it.  From the
# 1998 rule list (seed 003) and current practice (../shared/rules/mcr.md); exclusions that no
# hand can show (e.g. 平和 and 无字's honour pair) are left out because no case could prove them.
EXCLUDES: dict[str, tuple[str, ...]] = {
    "大四喜": ("圈风刻", "门风刻", "三风刻", "碰碰和", "幺九刻"),
    "大三元": ("箭刻", "双箭刻"),
    "绿一色": ("混一色",),
    "九莲宝灯": ("清一色", "门前清", "不求人", "无字", "幺九刻"),
    "四杠": ("三杠", "双明杠", "明杠", "双暗杠", "暗杠", "明暗杠", "碰碰和", "单钓将"),
    "连七对": ("七对", "清一色", "门前清", "不求人", "单钓将", "无字"),
    "十三幺": ("五门齐", "门前清", "不求人", "单钓将"),
    "清幺九": ("混幺九", "碰碰和", "全带幺", "幺九刻", "无字", "双同刻"),
    "小四喜": ("三风刻", "幺九刻"),
    "小三元": ("箭刻", "双箭刻"),
    "字一色": ("混幺九", "碰碰和", "全带幺", "幺九刻"),
    "四暗刻": ("三暗刻", "双暗刻", "碰碰和", "门前清", "不求人"),
    "一色双龙会": ("七对", "清一色", "平和", "一般高", "老少副", "无字"),
    "一色四同顺": ("一色三同顺", "一般高", "四归一", "一色三节高"),
    "一色四节高": ("一色三同顺", "一色三节高", "碰碰和"),
    "一色四步高": ("一色三步高", "连六", "老少副"),
    "三杠": ("双明杠", "明杠", "双暗杠", "暗杠", "明暗杠"),
    "混幺九": ("碰碰和", "幺九刻", "全带幺"),
    "七对": ("门前清", "不求人", "单钓将"),
    "七星不靠": ("全不靠", "五门齐", "门前清", "不求人", "单钓将"),
    "全双刻": ("碰碰和", "断幺", "无字"),
    "清一色": ("无字",),
    "一色三同顺": ("一色三节高", "一般高"),
    "一色三节高": ("一色三同顺",),
    "全大": ("大于五", "无字"),
    "全中": ("断幺", "无字"),
    "全小": ("小于五", "无字"),
    "清龙": ("连六", "老少副"),
    "三色双龙会": ("喜相逢", "老少副", "无字", "平和"),
    "全带五": ("断幺", "无字"),
    "三同刻": ("双同刻",),
    "三暗刻": ("双暗刻",),
    "全不靠": ("五门齐", "门前清", "不求人", "单钓将"),
    "大于五": ("无字",),
    "小于五": ("无字",),
    "三风刻": ("幺九刻",),
    "推不倒": ("缺一门",),
    "三色三同顺": ("喜相逢",),
    "妙手回春": ("自摸",),
    "杠上开花": ("自摸",),
    "抢杠和": ("和绝张",),
    "全求人": ("单钓将",),
    "双暗杠": ("暗杠", "双暗刻"),
    "双箭刻": ("箭刻",),
    "明暗杠": ("明杠", "暗杠"),
    "不求人": ("自摸", "门前清"),
    "双明杠": ("明杠",),
    "箭刻": ("幺九刻",),
    "圈风刻": ("幺九刻",),
    "门风刻": ("幺九刻",),
    "平和": ("无字",),
    "断幺": ("无字",),
}

_TILE_RUN = re.compile(r"(\d+)([mpsz])")


def tiles(text: str) -> list[str]:
    """Riichi-style tile run: "123m55z" -> ["1m", "2m", "3m", "5z", "5z"]."""
    assert _TILE_RUN.sub("", text) == "", f"not a tile run: {text}"
    return [f"{d}{suit}" for digits, suit in _TILE_RUN.findall(text) for d in digits]


def chow(first: str) -> dict:
    n, suit = int(first[0]), first[1]
    return {"kind": "chow", "tiles": [f"{n + i}{suit}" for i in range(3)], "concealed": False}


def pung(tile: str) -> dict:
    return {"kind": "pung", "tiles": [tile] * 3, "concealed": False}


def kong(tile: str, concealed: bool = False) -> dict:
    return {"kind": "kong", "tiles": [tile] * 4, "concealed": concealed}


@dataclass(frozen=True)
class Case:
    concealed: str
    win: str
    expected: str  # "清一色 幺九刻*2 ..."; " | " separates equal-total readings, the oracle's first
    absent: str = ""  # excluded fans whose tiles are present (see module docstring)
    melds: tuple[dict, ...] = ()
    context: dict = field(default_factory=dict)

    def hand(self) -> dict:
        return {
            "concealed": tiles(self.concealed),
            "melds": list(self.melds),
            "winning_tile": self.win,
            "self_drawn": False,
            "seat_wind": "S",
            "round_wind": "E",
            "flowers": [],
            "last_tile": False,
            "kong_replacement": False,
            "robbing_kong": False,
            "last_copy": False,
            **self.context,
        }

    def expected_options(self) -> list[Counter]:
        options = []
        for text in self.expected.split(" | "):
            fans: Counter = Counter()
            for item in text.split():
                name, _, count = item.partition("*")
                fans[name] += int(count or 1)
            options.append(fans)
        return options

    def expected_fans(self) -> Counter:
        return self.expected_options()[0]

    def absent_fans(self) -> list[str]:
        return self.absent.split()

    def label(self) -> str:
        melds = " ".join("[" + "".join(m["tiles"]) + ("]c" if m["concealed"] else "]") for m in self.melds)
        return f"{self.concealed} {melds} +{self.win} {self.context or ''}".strip()


def C(concealed: str, win: str, expected: str, absent: str = "", *melds: dict, **context) -> Case:
    return Case(concealed, win, expected, absent, tuple(melds), context)


SELF = {"self_drawn": True}

CASES: list[Case] = [
    # ---- 88 ----
    C("333z444z5p", "5p", "大四喜 混一色 双暗刻 单钓将", "圈风刻 门风刻 三风刻 碰碰和 幺九刻", pung("1z"), pung("2z"), seat_wind="E"),
    C("123m9m777z", "9m", "大三元 混一色 全带幺 单钓将", "箭刻 双箭刻", pung("5z"), pung("6z")),
    C("234234666888s6z", "6z", "绿一色 门前清 双暗刻 一般高 单钓将", "混一色"),
    C("2342346668882s", "2s", "绿一色 清一色 门前清 四归一 双暗刻 断幺 一般高", ""),
    C("1112345678999m", "5m", "九莲宝灯 双暗刻 幺九刻", "清一色 门前清 无字"),
    C("1112345678999m", "1m", "九莲宝灯 清龙 四归一 自摸", "不求人 幺九刻", **SELF),
    C("5p", "5p", "四杠 全求人 箭刻 幺九刻*2", "三杠 双明杠 明杠 碰碰和 单钓将", kong("1m"), kong("9p"), kong("2s"), kong("6z")),
    C("5p", "5p", "四杠 三暗刻 箭刻 幺九刻*2", "双暗杠 暗杠 明暗杠", kong("1m", True), kong("9p", True), kong("2s"), kong("6z", True)),
    C("2233445566778m", "8m", "连七对 断幺", "七对 清一色 门前清 单钓将 无字"),
    C("2233445566778m", "8m", "连七对 断幺 自摸", "不求人", **SELF),
    C("119m19p19s123456z", "7z", "十三幺", "五门齐 门前清 单钓将"),
    C("19m19p19s1234567z", "1m", "十三幺 自摸", "不求人", **SELF),
    # ---- 64 ----
    C("111p999s9p", "9p", "清幺九 双暗刻 单钓将", "混幺九 碰碰和 全带幺 幺九刻 无字 双同刻", pung("1m"), pung("9m")),
    C("111s999m9p", "9p", "清幺九 三同刻 双暗刻 单钓将", "", pung("1m"), pung("1p")),
    C("111m99m11p99p11s99s", "1m", "清幺九 七对 四归一", ""),
    C("333z4z123m", "4z", "小四喜 混一色 全带幺 圈风刻 门风刻 单钓将", "三风刻 幺九刻", pung("1z"), pung("2z")),
    C("7z123m456p", "7z", "小三元 缺一门 单钓将", "箭刻 双箭刻", pung("5z"), pung("6z")),
    C("333z555z6z", "6z", "字一色 三风刻 箭刻 圈风刻 门风刻 双暗刻 单钓将", "混幺九 碰碰和 全带幺 幺九刻", pung("1z"), pung("2z")),
    C("1122334455667z", "7z", "字一色 七对", ""),
    C("111m333p555s777z9p", "9p", "四暗刻 箭刻 幺九刻 单钓将", "三暗刻 双暗刻 碰碰和 门前清"),
    C("111m333p555s777z9p", "9p", "四暗刻 箭刻 幺九刻 单钓将 自摸", "不求人", **SELF),
    C("1122337788995m", "5m", "一色双龙会 门前清 单钓将", "七对 清一色 平和 一般高 老少副 无字"),
    # ---- 48 ----
    C("111122223333m4m", "4m", "一色四同顺 清一色 小于五 门前清 平和", "一色三同顺 一般高 四归一 一色三节高"),
    C("333m444m5p", "5p", "一色四节高 双暗刻 幺九刻 缺一门 无字 单钓将", "一色三节高 碰碰和", pung("1m"), pung("2m")),
    C("111222333444m5p", "5p", "四暗刻 一色四节高 幺九刻 缺一门 无字 单钓将", "一色三同顺 三暗刻 双暗刻 碰碰和"),
    # ---- 32 ----
    C("122333444556m9p", "9p", "一色四步高 门前清 平和 缺一门 单钓将", "一色三步高 连六"),
    C("123345567789m5p", "5p", "一色四步高 门前清 平和 缺一门 单钓将", "老少副"),
    C("234s6z", "6z", "三杠 双暗刻 幺九刻*2 单钓将", "双明杠 明杠 双暗杠 暗杠 明暗杠", kong("1m"), kong("5p", True), kong("9s", True)),
    C("234s6z", "6z", "三杠 幺九刻*2 单钓将", "", kong("1m"), kong("5p"), kong("9s", True)),
    C("111z99s77z", "9s", "混幺九 五门齐 圈风刻 双同刻", "碰碰和 幺九刻 全带幺", pung("1m"), pung("9p")),
    # ---- 24 ----
    C("1155m2288p3366s4z", "4z", "七对", "门前清 单钓将"),
    C("1155m2288p3366s4z", "4z", "七对 自摸", "不求人", **SELF),
    C("14m25p369s123456z", "7z", "七星不靠", "全不靠 五门齐 门前清 单钓将"),
    C("14m25p369s123456z", "7z", "七星不靠 自摸", "不求人", **SELF),
    C("666s888m2p", "2p", "全双刻 双暗刻 单钓将", "碰碰和 断幺 无字", pung("2m"), pung("4p")),
    C("345m567m999m2m", "2m", "清一色 一色三步高 幺九刻", "无字", chow("1m")),
    C("333444555m345s5p", "5p", "一色三同顺 全带五 不求人 平和 喜相逢 单钓将", "一色三节高 一般高", **SELF),  # seed 001's 就高 example: 48
    C("333444555m789p5s", "5s", "一色三节高 三暗刻 门前清 无字 单钓将", "一色三同顺"),
    C("789m999p8s", "8s", "全大 三色三同顺 四归一 幺九刻 单钓将", "大于五 无字", chow("7p"), chow("7s")),
    C("456m555p4s", "4s", "全中 三色三同顺 四归一 单钓将", "断幺 无字", chow("4p"), chow("4s")),
    C("123m111p2s", "2s", "全小 三色三同顺 四归一 幺九刻 单钓将", "小于五 无字", chow("1p"), chow("1s")),
    # ---- 16 ----
    C("456789m2p", "2p", "清龙 平和 喜相逢 单钓将", "连六 老少副", chow("1m"), chow("4s")),
    C("123789m123789p5s", "5s", "三色双龙会 门前清 单钓将", "喜相逢 老少副 无字 平和"),
    C("234m345m456m789s9p", "9p", "一色三步高 门前清 平和 单钓将", ""),
    C("345m555p456s5m", "5m", "全带五 四归一 喜相逢", "断幺 无字", chow("4m")),
    C("222p222s4z", "4z", "三同刻 双暗刻 单钓将", "双同刻", pung("2m"), chow("7s")),
    C("222p444s666m7z", "7z", "三暗刻 单钓将", "双暗刻", chow("1s")),
    # ---- 12 ----
    C("147m25p369s12345z", "6z", "全不靠", "五门齐 门前清 单钓将"),
    C("147m25p369s12345z", "6z", "全不靠 自摸", "不求人", **SELF),
    C("147m258p369s5m", "5m", "组合龙 平和 单钓将", "", chow("4s")),
    C("678m888p9s", "9s", "大于五 四归一 喜相逢 单钓将", "无字", chow("6p"), chow("7s")),
    C("123m444p1s", "1s", "小于五 四归一 喜相逢 单钓将", "无字", chow("2p"), chow("2s")),
    C("333z123m5p", "5p", "三风刻 圈风刻 门风刻 缺一门 单钓将", "幺九刻", pung("1z"), pung("2z")),
    # ---- 8 ----
    C("456p789s1z", "1z", "花龙 单钓将", "", chow("1m"), chow("3s")),
    C("234999p456888s5z", "5z", "推不倒 门前清 双暗刻 幺九刻 单钓将", "缺一门"),
    C("123p123s5z", "5z", "三色三同顺 连六 单钓将", "喜相逢", chow("1m"), chow("4m")),
    C("333p444s7z", "7z", "三色三节高 双暗刻 单钓将", "", pung("2m"), chow("5s")),
    C("567p45s888m22z", "3s", "无番和", "", chow("2m")),
    C("567p45s888m22z", "3s", "妙手回春", "自摸", chow("2m"), self_drawn=True, last_tile=True),
    C("567p45s888m22z", "3s", "海底捞月", "", chow("2m"), last_tile=True),
    C("234m567p45s22z", "3s", "杠上开花 明杠", "自摸", kong("8m"), self_drawn=True, kong_replacement=True),
    C("567p45s888m22z", "3s", "抢杠和", "和绝张", chow("2m"), robbing_kong=True),
    # ---- 6 ----
    C("777s88s33z", "8s", "碰碰和", "", pung("2m"), pung("5p")),
    C("456m789m111z5z", "5z", "清龙 混一色 圈风刻 单钓将", "", chow("1m")),
    C("456s789p5z", "5z", "三色三步高 单钓将", "", chow("2m"), chow("3p")),
    C("234m567p789s1z", "1z", "五门齐 箭刻 单钓将", "", pung("7z")),
    C("5z", "5z", "全求人", "单钓将", chow("2m"), chow("5p"), pung("8s"), chow("3s")),
    C("345s789p9m", "9m", "双暗杠 门前清 无字 单钓将", "暗杠 双暗刻", kong("2m", True), kong("6p", True)),
    C("123m456p9s", "9s", "双箭刻 单钓将", "箭刻", pung("5z"), pung("6z")),
    # ---- 5, 4 ----
    C("345s789p9m", "9m", "无字 单钓将 明暗杠", "明杠 暗杠", kong("2m"), kong("6p", True)),
    C("789p123s999s1z", "1z", "全带幺 喜相逢 幺九刻 单钓将", "", chow("1m")),
    C("234m567p45s888m22z", "3s", "不求人", "自摸 门前清", **SELF),
    C("345s789p9m", "9m", "双明杠 无字 单钓将", "明杠", kong("2m"), kong("6p")),
    C("567p45s888m22z", "3s", "和绝张", "", chow("2m"), last_copy=True),
    # ---- 2 ----
    C("234m567p345s9s", "9s", "箭刻 单钓将", "幺九刻", pung("5z")),
    C("234m567p345s9s", "9s", "圈风刻 单钓将", "幺九刻", pung("1z")),
    C("234m567p345s9s", "9s", "门风刻 单钓将", "幺九刻", pung("2z")),
    C("234m567p45s888m22z", "3s", "门前清", ""),
    C("567p45s678m99p", "3s", "平和", "无字", chow("2m")),
    C("222m567p45s88p", "3s", "四归一 断幺", "", chow("2m")),
    C("333p567s45p77z", "6p", "双同刻", "", pung("3m")),
    C("444p777s45m11z", "6m", "双暗刻", "", chow("2m")),
    C("234m567s45m77z", "6m", "门前清 暗杠", "", kong("4p", True)),
    C("567p45s678m88p", "3s", "平和 断幺", "无字", chow("2m")),
    # ---- 1 ----
    C("234m567p12s77z", "3s", "一般高 边张", "", chow("2m")),
    C("123m789m45p22s", "6p", "平和 喜相逢 老少副", "", chow("4s")),
    # 不相同 / 套算一次: the seed's 双老少副 has exactly three 1-fan combination fans, either way.
    C("123789m123789p2s", "2s", "门前清 平和 喜相逢*2 老少副 单钓将 | 门前清 平和 老少副*2 喜相逢 单钓将", ""),
    C("234s223344567p1z", "1z", "门前清 一般高 喜相逢 连六 缺一门 单钓将 | 门前清 喜相逢*2 连六 缺一门 单钓将", ""),
    C("234m567p13s77z", "2s", "一般高 嵌张 花牌*2", "", chow("2m"), flowers=["1f", "6f"]),
]


def _fans_of(result: dict) -> Counter:
    return Counter({f["zh"]: f["count"] for f in result["fans"]})


@pytest.mark.parametrize("case", CASES, ids=[c.label() for c in CASES])
def test_case_scores_expected_fans(case: Case) -> None:
    from scoring import score_json

    result = score_json(case.hand())
    assert result["ok"], result
    assert _fans_of(result) in case.expected_options()
    for fan in result["fans"]:
        assert fan["points"] == FAN_POINTS[fan["zh"]], fan
    assert result["total"] == sum(f["points"] * f["count"] for f in result["fans"])


def test_every_fan_has_a_positive_case() -> None:
    scored = {name for case in CASES for name in case.expected_fans()}
    assert set(FAN_POINTS) - scored == set()
    assert scored - set(FAN_POINTS) == set()


def test_every_exclusion_is_shown() -> None:
    shown = {(a, b) for case in CASES for a in case.expected_fans() for b in case.absent_fans()}
    missing = [(a, b) for a, excluded in EXCLUDES.items() for b in excluded if (a, b) not in shown]
    assert missing == []


def test_absent_fans_are_excluded_by_a_scored_fan() -> None:
    """`absent` only lists fans that some fan of the expected list excludes."""
    for case in CASES:
        for expected in case.expected_options():
            for name in case.absent_fans():
                assert name not in expected, (case.label(), name)
                assert any(name in EXCLUDES.get(a, ()) for a in expected), (case.label(), name)


def test_cases_agree_with_oracle() -> None:
    """The fixed expectations are pymahjonggb's answers (no case here is a known divergence)."""
    oracle = pytest.importorskip("tests.oracle")
    if not oracle.available():
        pytest.skip("pymahjonggb is not installed")
    disagreements = [
        (case.label(), dict(oracle.oracle_multiset(case.hand())))
        for case in CASES
        if oracle.oracle_multiset(case.hand()) != case.expected_fans()
    ]
    assert disagreements == []
