"""Sihai 3.1: every fan, the category rule (同类别不复用), 满贯线, thresholds and payments.

The fan cases are a table: for each fan a hand that scores it (`POSITIVE`), and for each fan that
is not the top of its category either the higher fan whose hand also satisfies it yet replaces it
(`REPLACED_BY`), or the reason no hand can hold both (`EXCLUSIVE`).  Hands are in the one-line
notation (see scoring/notation.py); the default is a discard win, seat East.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings, strategies as st

import scoring
from scoring.fans import Situation
from scoring.rules import get_ruleset
from scoring.rules.sihai.fans import CATEGORIES, TABLE
from scoring.rules.sihai.score import Options, best_arrangement, payments

from .handgen import random_hand

RULES = get_ruleset("sihai")
FANS = {f.zh: f for f in RULES.fans}

POSITIVE: dict[str, str] = {
    # 花色
    "五门齐": "123m456p789sEEEC +C",
    "混一色": "123m456m789mEEEC +C",
    "清一色": "123m123m456m789m5m +5m",
    "九莲明灯": "[111m]2345678999m +5m",
    "字一色": "EEESSSWWWCCCP +P",
    "九莲宝灯": "1112345678999m +5m",
    # 牌型
    "平和": "123m456p789s234s5p +5p",
    "对对和": "111m333p555sEEE9s +9s",
    "七对": "1133557799m22p4s +4s",
    "连七对": "2233445566778m +8m",
    "大七星": "EESSWWNNPPFFC +C",
    "杠七对": "1111m33557799m2p +2p",
    "双杠七对": "11113333m5577m9p +9p",
    "三杠七对": "111133335555m7m +7m",
    "全不靠": "147m258p36sESWNP +C",
    "七星不靠": "147m25p36sESWNPF +C",
    "组龙不靠": "147m258p369sESWN +P",
    "十三幺": "19m19p19sESWNPFC +C",
    "筋不靠": "147m147p25sESWNP +C",
    # 序数
    "断幺": "234m345p456s678s5p +5p",
    "混带幺": "123m789pEEE999s1m +1m",
    "清带幺": "123m789p123s999s1m +1m",
    "混幺九": "111m999pEEECCC9s +9s",
    "清幺九": "111m999p111s999s9m +9m",
    "混全带": "345m555p456sEEE5s +5s",
    "清全带": "345m555p456s456m5s +5s",
    "全称": "345m345p444s345s4m +4m",
    "混全单": "111m333p555sEEE7s +7s",
    "混全双": "222m444p666sEEE8s +8s",
    "全单": "111m333p555s777s9m +9m",
    "全双": "222m444p666s888s2p +2p",
    "全筋": "222m888m222p888p2s +2s",
    "混全连": "11m222p345mEEE67s +8s",
    "全连": "11m222p345m666p78s +9s",
    # 刻杠
    "一杠": "[1111m]234p567s789s5p +5p",
    "双杠": "[1111m][2222p]567s789s5p +5p",
    "三杠": "[1111m][2222p][3333s]789s5p +5p",
    "四杠": "[1111m][2222p][3333s][4444s]5p +5p",
    # 字牌
    "番牌": "CCC123m456p789s5p +5p",
    "三元对": "PPFFCC1133m55p7s +7s",
    "小三元": "CCCFFFP123m456p +P",
    "大三元": "CCCFFFPPP123m5p +5p",
    "小三风": "EEESSSW123m456p +W",
    "大三风": "EEESSSWWW123m5p +5p",
    "小四喜": "EEESSSWWWN123m +N",
    "大四喜": "EEESSSWWWNNN5p +5p",
    "三风对": "EESSWW1133m55p7s +7s",
    "四喜对": "EESSWWNN1133m5p +5p",
    # 一色
    "一般高": "123m123m456p789sE +E",
    "双般高": "123m123m456p456pE +E",
    "三同顺": "123m123m123m456pE +E",
    "四同顺": "123m123m123m123mE +E",
    "一般低": "234m345m789p111sE +E",
    "三步高": "123m234m345m789pE +E",
    "四步高": "123m234m345m456mE +E",
    "银梯": "123m234m345m456m7m +7m",
    "双般低": "234m345m567p678pE +E",
    "老少副": "123m789m456pEEES +S",
    "一条龙": "123m456m789mEEES +S",
    "连环龙": "123m345m567m789mE +E",
    "双龙会": "123m123m789m789m5m +5m",
    "连六": "234m567m789pEEES +S",
    "双连六": "123m456m345p678pE +E",
    "镜连六": "234m567m234p567pE +E",
    "连刻": "444m555m123p789sE +E",
    "小三连刻": "444m555m123p789s6m +6m",
    "三连刻": "[444m]555m666m789s7m +7m",  # exposed: 444555666 would read as 三同顺
    "双连刻": "222m333m666p777pE +E",
    "四连刻": "222m333m444m555mE +E",
    "金梯": "111m222m333m444m5m +5m",
    "四归一": "111m123m456p789sE +E",
    "双四归": "111m123m777p789pE +E",
    "八归": "111m222m123m789pE +E",
    "十二归": "[111m]222m333m123mE +E",  # exposed: 111122223333 would read as 四同顺
    "连丁": "234m555m789pEEES +S",
    "双飞燕": "123m444m567mEEES +S",
    "双边高": "111m234m555mEEES +S",
    "四连丁": "111m234m555m678mE +E",
    "玉琮": "123m444m666m789mE +E",
    "玉璧": "111m234m678m999mE +E",
    "大中华": "111m234m678m999m5m +5m",
    "双连丁": "123m444m567p888pE +E",
    "王龙": "123m456m789m999mE +E",
    # 三色
    "喜相逢": "123m123p789sEEES +S",
    "三色同顺": "123m123p123sEEES +S",
    "双同刻": "555m555p123sEEES +S",
    "小三同刻": "555m555p123sEEE5s +5s",
    "三同刻": "555m555p555sEEES +S",
    "镜同": "123m567m123p567pE +E",
    "镜同顺刻": "123m555m123p555p5s +5s",
    "镜同刻": "222m666m222p666pE +E",
    "花龙": "123m456p789sEEES +S",
    "三色连刻": "444m555p666sEEES +S",
    # 偶然
    "海底捞月": "123m456p789sEEES +S | self last",
    "河底摸鱼": "123m456p789sEEES +S | last",
    "人和": "123m456p789sEEES +S | human seat=S",
    "地和": "123m456p789sEEES +S | self earthly seat=S",
    "天和": "123m456p789sEEES +S | self heavenly",
    "金鸡夺食": "123m456p78sEEESS +9s | rob",
    "岭上开花": "[1111m]456p789sEEES +S | self kong",
}

# lower fan -> a higher fan of the same category whose POSITIVE hand (or the hand given) also
# satisfies the lower one.
REPLACED_BY: dict[str, str | tuple[str, str]] = {
    "清一色": "九莲宝灯",
    "七对": "连七对", "杠七对": "双杠七对", "双杠七对": "三杠七对",
    "全不靠": "七星不靠", "筋不靠": "全不靠",
    "混带幺": "混幺九", "清带幺": "清幺九", "混幺九": "清幺九",
    "清全带": "全称",
    "全单": ("全筋", "111m777m111p777p1s +1s"), "全双": "全筋",
    "一杠": "双杠", "双杠": "三杠", "三杠": "四杠",
    "番牌": "小三元",
    "小三风": "小四喜", "大三风": "大四喜", "三风对": "四喜对",
    "一般高": "双般高", "双般高": "四同顺", "三同顺": "四同顺",
    "一般低": "三步高", "三步高": "四步高", "双般低": "四步高", "四步高": "银梯",
    "老少副": "一条龙", "连六": "一条龙", "双连六": "镜连六",
    "连刻": "小三连刻", "小三连刻": "三连刻", "三连刻": "四连刻", "双连刻": "四连刻", "四连刻": "金梯",
    "四归一": "双四归", "双四归": "八归", "八归": "十二归",
    "连丁": "双飞燕", "双飞燕": "四连丁", "双边高": "四连丁", "双连丁": "玉璧",
    "喜相逢": "三色同顺", "双同刻": "小三同刻", "小三同刻": "镜同顺刻",
}

# lower fans that no hand can hold together with a higher fan of their category.
EXCLUSIVE: dict[str, str] = {
    "五门齐": "needs all five tile types; every higher 花色 fan allows at most one suit",
    "混一色": "needs honours and one suit; 清一色/九莲 forbid honours, 字一色 forbids suits",
    "九莲明灯": "defined as the nine-gates shape that is not 九莲宝灯",
    "字一色": "the only higher fan, 九莲宝灯, has no honours",
    "平和": "four chows; every higher 牌型 fan is pungs, pairs or singles",
    "对对和": "four pungs; every higher 牌型 fan is pairs or singles",
    "连七对": "seven distinct pairs: no quad (三杠七对), no honours (大七星)",
    "三杠七对": "three quads leave room for one pair: no 大七星",
    "十三幺": "no higher 牌型 fan",
    "断幺": "no terminals; every higher 幺九 fan needs them",
    "混全带": "needs honours; 清全带 and 全称 forbid them",
    "混全单": "needs honours; every higher 单双 fan forbids them",
    "混全双": "needs honours; every higher 单双 fan forbids them",
    "混全连": "needs honours; 全连 forbids them",
    "七星不靠": "seven honours leave seven number tiles, never 组龙不靠's nine",
    "组龙不靠": "every higher 牌型 fan is seven pairs or 十三幺",
    "三元对": "seven pairs; 小三元/大三元 need pungs",
    "小三元": "its third dragon is a pair, 大三元's a pung",
    "小四喜": "its fourth wind is a pair, 大四喜's a pung",
    "四喜对": "seven pairs; 小四喜 and 大四喜 need pungs",
    "一条龙": "连环龙 has no 456, 双龙会 no 456",
    "连环龙": "双龙会 has neither 345 nor 567",
    "镜连六": "two suits; 连环龙 and 双龙会 are one suit",
    "四连丁": "玉琮, 玉璧, 大中华 and 王龙 leave a gap or overlap in the run",
    "玉琮": "its four sets differ from those of every higher fan",
    "玉璧": "its pair is not a 5; 大中华's is",
    "王龙": "only 大中华 is higher, and it has no 456",
    "三色同顺": "three suits of chows leave one set: no 镜同 pair of suits, no 三同刻",
    "三同刻": "three suits of pungs leave one set: no 镜同刻",
    "镜同": "four chows: no pung for 镜同顺刻 or 镜同刻",
    "镜同顺刻": "two chows: 镜同刻 needs four pungs",
    "花龙": "three chows leave one set: 三色连刻 needs three pungs",
    "海底捞月": "天和, 地和, 人和 are won in the first go-around, not on the last tile",
    "河底摸鱼": "天和, 地和, 人和 are won in the first go-around, not on the last discard",
    "人和": "地和 and 天和 are other ways of winning in the first go-around",
    "地和": "天和 is the dealer's, 地和 a non-dealer's",
    "金鸡夺食": "robbing a kong is a discard-like win; 岭上开花 is self-drawn",
}


def _score(text: str, **options) -> dict:
    hand, ctx = scoring.parse_notation(text)
    return scoring.score(hand, ctx, "sihai", options or None).to_json()


def _names(result: dict) -> list[str]:
    return [f["zh"] for f in result["fans"]]


def _top(category: str) -> int:
    return max(f.points for f in RULES.fans if f.category == category)


def test_table_covers_every_fan():
    assert len(RULES.fans) == 100
    assert {f.category for f in RULES.fans} == set(CATEGORIES) and len(CATEGORIES) == 19
    assert set(POSITIVE) == set(FANS)
    for f in RULES.fans:
        is_top = f.points == _top(f.category) and f.zh not in REPLACED_BY
        assert is_top or (f.zh in REPLACED_BY) != (f.zh in EXCLUSIVE), f.zh
    assert set(TABLE) == {f.key for f in RULES.fans}


@pytest.mark.parametrize("zh", list(POSITIVE))
def test_fan_scores(zh):
    result = _score(POSITIVE[zh])
    assert result["ok"] and result["winning"], result
    assert zh in _names(result)
    counted = [FANS[n].category for n in _names(result)]
    assert len(counted) == len(set(counted)), "one fan per category"
    fan = next(f for f in result["fans"] if f["zh"] == zh)
    assert fan["points"] == FANS[zh].points and fan["count"] == 1 and fan["tiles"]
    assert fan.get("provisional", False) == FANS[zh].provisional


@pytest.mark.parametrize(("lower", "higher"), list(REPLACED_BY.items()))
def test_category_rule_keeps_the_higher_fan(lower, higher):
    """The higher fan's hand satisfies the lower fan on the very arrangement scored, yet only the
    higher one counts."""
    higher, text = higher if isinstance(higher, tuple) else (higher, POSITIVE[higher])
    assert FANS[lower].category == FANS[higher].category and FANS[lower].points <= FANS[higher].points
    hand, ctx = scoring.parse_notation(text)
    sit = Situation(hand, ctx, Options())
    best = best_arrangement(sit)
    assert list(FANS[lower].detect(best.decomposition, sit)), f"{lower} should apply to the {higher} hand"
    names = _names(_score(text))
    assert higher in names and lower not in names


@pytest.mark.parametrize(("fan", "replaced", "text"), [
    ("镜同刻", "对对和", POSITIVE["镜同刻"]),
    ("混幺九", "混全单", POSITIVE["混幺九"]),
    ("混幺九", "混全单", POSITIVE["十三幺"]),
    ("清幺九", "全单", POSITIVE["清幺九"]),
    ("全双", "断幺", POSITIVE["全双"]),
    ("全双", "断幺", "22m44m66p88p22s44s6s +6s"),
])
def test_fans_that_replace_a_fan_of_another_category(fan, replaced, text):
    """The replaced fan applies to the hand (its predicate holds) but is not counted."""
    assert FANS[replaced].key in FANS[fan].excludes
    hand, ctx = scoring.parse_notation(text)
    sit = Situation(hand, ctx, Options())
    assert list(FANS[replaced].detect(best_arrangement(sit).decomposition, sit))
    names = _names(_score(text))
    assert fan in names and replaced not in names


# The seed's table of all-pungs hands (section 3: 番种 / 计分 / 合计), one hand per row: each
# total is the row's, with no other fan beside (断幺 and 混全单 are replaced where the row leaves
# them out).
SEED_ALL_PUNGS_LADDER = [
    ("对对和", "111m444p777s222p5s +5s", 30),
    ("混全单", "111m333p555sEEE9p +9p", 50),
    ("混一色对对和", "111m444m777mSSS2m +2m", 60),
    ("混全双", "222m444p666sSSS8m +8m", 60),
    ("全单", "111m333p555s777m9p +9p", 90),
    ("混幺九", "111m999pSSSWWW9s +9s", 110),
    ("全双", "222m444p666s888m2p +2p", 110),
    ("清一色对对和", "111m444m777m999m2m +2m", 90),
]


@pytest.mark.parametrize(("row", "text", "total"), SEED_ALL_PUNGS_LADDER)
def test_the_seeds_all_pungs_ladder(row, text, total):
    assert _score(text)["total"] == total, row


# ---------------------------------------------------------------- the seed's special definitions


def test_nine_gates_self_drawn_needs_only_the_fourteen_tiles():
    # 13 tiles 1123456789999m are not the nine-gates wait, but all were drawn: 九莲宝灯 when self-drawn.
    assert "九莲宝灯" in _names(_score("1123456789999m +1m | self"))
    discard = _names(_score("1123456789999m +1m"))
    assert "九莲明灯" in discard and "九莲宝灯" not in discard


def test_nine_gates_on_a_discard_needs_the_nine_sided_wait():
    assert "九莲宝灯" in _names(_score("1112345678999m +9m"))


def test_one_suji_line_beats_all_even():
    """The seed's own example: all 2 and 8 is 全筋 only, never 全筋 + 全双."""
    names = _names(_score("222m888m222p888p2s +2s"))
    assert "全筋" in names and "全双" not in names


def test_quad_in_seven_pairs_is_gang_qidui_not_tile_hog():
    names = _names(_score(POSITIVE["杠七对"]))
    assert "杠七对" in names and "四归一" not in names


def test_little_three_shifted_pungs_pair_in_the_middle():
    assert "小三连刻" in _names(_score("444m666m123p789s5m +5m"))


def test_seven_pairs_take_pair_fans_but_not_set_fans():
    names = _names(_score("EESSWW1133m55p7s +7s"))
    assert "三风对" in names and "七对" in names and "小三风" not in names


# ---------------------------------------------------------------- worked hands of sihai-3.1.md


def test_worked_full_flush_straight():
    result = _score("123m123m456m789m5m +5m")
    assert sorted(_names(result)) == sorted(["清一色", "一条龙", "一般高", "平和"])
    assert result["total"] == 115 and result["breakdown"]["sum"] == 115
    assert result["payments"] == {"E": 460, "N": -360, "S": -50, "W": -50}
    for level in ("IV", "V"):
        assert _score("123m123m456m789m5m +5m", level=level)["minimum_met"]


def test_worked_big_three_dragons_is_capped():
    result = _score("CCCFFFPPP555m2m +2m")
    assert sorted(_names(result)) == sorted(["大三元", "对对和", "混一色"])
    assert result["breakdown"]["sum"] == 220 and result["total"] == 200


def test_worked_seven_stars_keeps_its_own_value():
    result = _score("EESSWWNNPPFFC +C")
    assert sorted(_names(result)) == sorted(["大七星", "字一色", "四喜对", "三元对", "混幺九"])
    assert result["breakdown"]["sum"] == 920 and result["total"] == 480


def test_worked_threshold_self_draw_vs_discard():
    self_drawn = _score("123m123m456p678s9p +9p | self")
    discard = _score("123m123m456p678s9p +9p")
    assert self_drawn["total"] == discard["total"] == 15
    assert self_drawn["minimum_met"] and self_drawn["reason"] is None
    assert not discard["minimum_met"] and discard["reason"] == "below_minimum"
    assert discard["payments"] == {"E": 0, "S": 0, "W": 0, "N": 0}
    assert discard["breakdown"]["line"] == 20 and self_drawn["breakdown"]["line"] == 10


def test_kong_replacement_needs_a_kong():
    """岭上开花 is a self-draw on the tile that replaces a kong: the flag alone, with no kong in the
    hand, scores nothing (as MCR's 杠上开花), so it cannot lift a hand over the line."""
    no_kong = _score("123m123m456p678s9p +9p | self kong", level="V")
    assert "岭上开花" not in _names(no_kong) and no_kong["total"] == 15
    assert no_kong["reason"] == "below_minimum"
    with_kong = _score("123m123m9p678s [4444p] +9p | self kong")
    assert "岭上开花" in _names(with_kong)


def test_cli_marks_provisional_fans(capsys):
    """A total resting on a fan no primary source defines says so in the text table, as the JSON does."""
    from scoring.cli import PROVISIONAL_MARK, PROVISIONAL_NOTE, main

    assert FANS["大中华"].provisional and _score("1112345678m [999m] +5m")["total"] == 480
    assert main(["1112345678m [999m] +5m", "--rules", "sihai"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert any("大中华 Great China" + PROVISIONAL_MARK in line for line in out)
    assert not any("九莲明灯 Open Nine Gates" + PROVISIONAL_MARK in line for line in out)
    assert PROVISIONAL_NOTE in out
    assert main(["123m123m456m789m5m +5m", "--rules", "sihai"]) == 0
    assert PROVISIONAL_NOTE not in capsys.readouterr().out


@pytest.mark.parametrize(("edition", "level", "self_line", "discard_line"), [
    ("A", "I", 0, 0), ("A", "II", 5, 5), ("B", "II", 5, 5), ("B", "III", 10, 10),
    ("C", "III", 10, 10), ("C", "IV", 10, 20), ("D", "IV", 10, 20), ("D", "V", 20, 50),
])
def test_thresholds_by_edition_and_level(edition, level, self_line, discard_line):
    b = _score("123m123m456p678s9p +9p", edition=edition, level=level)["breakdown"]
    assert (b["self_draw_line"], b["discard_line"]) == (self_line, discard_line)


def test_level_must_belong_to_the_edition():
    hand, ctx = scoring.parse_notation("123m123m456p678s9p +9p")
    with pytest.raises(scoring.ScoringError) as info:
        scoring.score(hand, ctx, "sihai", {"edition": "A", "level": "V"})
    assert info.value.code == "bad_option"


# ---------------------------------------------------------------- payments of sihai-3.1.md

@pytest.mark.parametrize(("h", "flags", "split", "expected"), [
    (40, "self", 50, {"E": 240, "S": -80, "W": -80, "N": -80}),
    (30, "", 50, {"E": 120, "N": -60, "S": -30, "W": -30}),
    (120, "", 50, {"E": 480, "N": -380, "S": -50, "W": -50}),
    (40, "", 25, {"E": 160, "N": -110, "S": -25, "W": -25}),
    (50, "from=W", 50, {"E": 200, "W": -100, "S": -50, "N": -50}),
])
def test_payment_table(h, flags, split, expected):
    _, ctx = scoring.parse_notation(f"123m123m456p678s9p +9p | {flags}")
    assert payments(h, ctx, split) == expected


def test_edition_b_pays_with_split_line_25():
    # 清一色 60 + 一条龙 40 + 一般高 10 + 平和 5 = 115 > 25.
    result = _score("123m123m456m789m5m +5m", edition="B", level="III")
    assert result["payments"] == {"E": 460, "N": -410, "S": -25, "W": -25}


# ---------------------------------------------------------------- options


def test_cap_options():
    assert _score("CCCFFFPPP555m2m +2m", cap="none")["total"] == 220
    assert _score("EESSWWNNPPFFC +C", cap="hard")["total"] == 200
    assert _score("EESSWWNNPPFFC +C", cap="none")["total"] == 920


def test_provisional_fans_switch_off():
    on = _score(POSITIVE["全称"])
    off = _score(POSITIVE["全称"], provisional=False)
    assert "全称" in _names(on) and next(f for f in on["fans"] if f["zh"] == "全称")["provisional"] is True
    assert all(not FANS[n].provisional for n in _names(off))
    # 筋不靠 is also a hand form: without provisional fans it does not win.
    off = _score(POSITIVE["筋不靠"], provisional=False)
    assert off["reason"] == "not_winning" and off["refused_forms"] == ["suji_knitted"]  # refused by name


def test_breakdown_lists_the_counted_category_of_each_fan():
    result = _score("123m123m456m789m5m +5m")
    assert result["breakdown"]["categories"] == {
        "花色": "清一色", "牌型": "平和", "一色/同顺": "一般高", "一色/龙顺": "一条龙"}


def test_not_winning_hand():
    result = _score("1234m5678p1357s9s +2s")
    assert result["ok"] and not result["winning"] and result["reason"] == "not_winning"


def test_cli_scores_sihai(capsys):
    from scoring.cli import main

    assert main(["123m123m456p678s9p +9p", "--rules", "sihai", "--option", "level=V"]) == 0
    out = capsys.readouterr().out
    assert "一般高" in out and "H 15 (fans sum to 15" in out and "a discard win needs 50 at edition D, level V" in out


def test_jsonl_scores_sihai():
    import io
    import json

    from scoring.cli import run_jsonl

    hand = {"concealed": ["1m", "2m", "3m", "1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m", "5m"],
            "winning_tile": "5m"}
    sink = io.StringIO()
    run_jsonl(io.BytesIO(json.dumps(hand).encode() + b"\nnot json\n"), sink, "sihai", None)
    first, second = (json.loads(line) for line in sink.getvalue().splitlines())
    assert first["rules"] == "sihai" and first["total"] == 115
    assert second["error"]["code"] == "bad_json"


@settings(max_examples=150, deadline=None)
@given(st.integers(min_value=0, max_value=2**32 - 1), st.booleans())
def test_random_hands_keep_the_category_rule_and_the_cap(seed, provisional):
    result = scoring.score_json(random_hand(random.Random(seed)), "sihai", {"provisional": provisional})
    if not result["winning"]:
        return
    counted = [FANS[f["zh"]] for f in result["fans"]]
    assert len({f.category for f in counted}) == len(counted)
    points = [f.points for f in counted]
    assert result["total"] == max(max(points, default=0), min(sum(points), 200))
    assert provisional or not any(f.provisional for f in counted)


def test_knitted_straight_with_a_set_and_a_pair_is_refused_by_name(capsys):
    """MCR's 组合龙 hand is a winning shape, just not a Sihai one: the result says so."""
    from scoring.cli import main

    text = "147m258p369s678m5z +5z"
    result = _score(text)
    assert (result["winning"], result["reason"], result["refused_forms"]) == (False, "not_winning",
                                                                              ["knitted_straight"])
    assert main([text, "--rules", "sihai"]) == 0
    line = capsys.readouterr().out.splitlines()[1]
    assert line.startswith("Not a winning hand under Sihai standard 3.1: a knitted straight 组合龙 with a set and "
                           "a pair is not a winning form there (only four sets and a pair; seven pairs; ")


def test_cli_says_why_a_hand_below_the_line_does_not_score(capsys):
    from scoring.cli import main

    assert main(["123m456p678s2m [567m] +2m 1f2f3f", "--rules", "sihai"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "Total: 5 (3 flowers, no points)" in lines
    assert "Below the minimum: hand score H 5 does not reach the discard line (20 at edition D, level IV)." in lines
