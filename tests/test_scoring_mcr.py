"""MCR engine: the GB-Mahjong golden cases, the seeds' worked examples, options, reasons,
payments, derived facts and the JSONL command."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

import scoring
from scoring.cli import CLOSED_PIPE
from scoring.fans import check_fan_table

REPO = Path(__file__).resolve().parents[1]
CASES = [json.loads(line) for line in
         (REPO.parent / "shared" / "testdata" / "gb-mahjong-cases.jsonl").read_text(encoding="utf-8").splitlines()]
# Our documented reading (README, MCR options, `knitted_tile_wait`): a winning tile that is one of the knitted straight's
# nine tiles gets no wait fan.  GB-Mahjong agrees; pymahjonggb adds 嵌张 (option knitted_tile_wait).
INTERPRETATION_CASES = {"GB-Mahjong unit_test.cpp line 290", "GB-Mahjong unit_test.cpp line 305"}


def fan_counts(result: dict | scoring.Result) -> Counter:
    fans = result["fans"] if isinstance(result, dict) else [f.to_json() for f in result.fans]
    return Counter({f["zh"]: f["count"] for f in fans})


def expected_counts(fans: list[dict]) -> Counter:
    return Counter({f["zh"]: f["count"] for f in fans})


def score(text: str, **options) -> scoring.Result:
    hand, ctx = scoring.parse_notation(text)
    return scoring.score(hand, ctx, "mcr", options or None)


@pytest.mark.parametrize("case", CASES, ids=[c["source"].rsplit(" ", 1)[-1] for c in CASES])
def test_gb_mahjong_case(case):
    out = scoring.score_json(case["hand"])
    assert out["ok"], out
    accepted = [expected_counts(case["expected"])]
    if "also_ok" in case:
        accepted.append(expected_counts(case["also_ok"]))
    assert fan_counts(out) in accepted, case["notation"]
    points = {f["zh"]: f["points"] for f in case["expected"]}
    for f in out["fans"]:
        assert f["points"] == points.get(f["zh"], f["points"])


def test_interpretation_cases_follow_documented_choice():
    case = next(c for c in CASES if c["source"] == "GB-Mahjong unit_test.cpp line 290")
    assert "嵌张" not in fan_counts(scoring.score_json(case["hand"]))
    with_wait = scoring.score_json(case["hand"], options={"knitted_tile_wait": True})
    assert fan_counts(with_wait)["嵌张"] == 1 and with_wait["total"] == 17
    assert len(INTERPRETATION_CASES) == 2


def test_seed_principles_worked_examples():
    # 就高: concealed, self-drawn 5p -> 一色三同顺 reading, 48
    r = score("333444555m345s5p +5p | self")
    assert r.total == 48
    assert fan_counts(r) == Counter({"一色三同顺": 1, "全带五": 1, "不求人": 1, "平和": 1, "喜相逢": 1, "单钓将": 1})
    # 套算一次: 双老少副 chows give exactly three 1-fan combination fans
    combos = {"老少副", "喜相逢", "一般高", "连六"}
    r = score("123789m123789p1z +1z")
    assert sum(n for zh, n in fan_counts(r).items() if zh in combos) == 3
    # 套算一次: 123m456p789s make 花龙; the extra 123p pairs once (喜相逢 or 连六, not both)
    r = score("123m456p789s123p5z +5z")
    counts = fan_counts(r)
    assert counts["花龙"] == 1 and counts["喜相逢"] + counts["连六"] == 1
    # 不相同: 333m444p555s666m is one 三色三节高
    assert fan_counts(score("333666m444p555s7z +7z"))["三色三节高"] == 1
    # 不相同: 123123456789m is one 清龙
    assert fan_counts(score("123123456789m5z +5z"))["清龙"] == 1
    # 不拆移: 一色四步高 123 345 567 789 is not also 老少副
    counts = fan_counts(score("123345567789m5z +5z"))
    assert counts["一色四步高"] == 1 and counts["老少副"] == 0


@pytest.mark.parametrize(("win", "expected"), [("5m", {"幺九刻": 1, "双暗刻": 1}), ("1m", {}), ("3m", {})])
def test_nine_gates_keeps_a_terminal_pung_only_on_2_5_8(win, expected):
    counts = fan_counts(score(f"1112345678999m +{win} | self"))
    assert counts["九莲宝灯"] == 1 and counts["自摸"] == 1 and counts["不求人"] == 0
    assert {k: counts[k] for k in ("幺九刻", "双暗刻") if counts[k]} == expected


def test_fan_table():
    fans = scoring.get_ruleset("mcr").fans
    check_fan_table(fans)
    assert len(fans) == 82  # 81 fans (花牌 included) + 明暗杠
    by_points = Counter(f.points for f in fans)
    assert by_points == Counter({88: 7, 64: 6, 48: 2, 32: 3, 24: 9, 16: 6, 12: 5, 8: 9, 6: 7, 5: 1, 4: 4, 2: 10, 1: 13})
    assert all(f.zh and f.en for f in fans)


def test_option_kong_1998():
    text = "123m5p [456s] [7777p] {2222s} +5p"
    assert fan_counts(score(text))["明暗杠"] == 1
    old = fan_counts(score(text, kong_1998=True))
    assert old["明暗杠"] == 0 and old["明杠"] == 1 and old["暗杠"] == 1


def test_option_strict_1998_pairs():
    text = "1122334455667z +7z"
    assert fan_counts(score(text)) == Counter({"字一色": 1, "七对": 1})
    assert "字一色" not in fan_counts(score(text, strict_1998_pairs=True))


def test_option_concealed_selfdraw_1998():
    text = "1199m2288p3355s6z +6z | self"
    assert fan_counts(score(text))["自摸"] == 1
    old = fan_counts(score(text, concealed_selfdraw_1998=True))
    assert old["不求人"] == 1 and old["自摸"] == 0


def test_bad_option_is_an_error():
    out = scoring.score_json(CASES[0]["hand"], options={"kong_1998": "yes"})
    assert out["error"]["code"] == "bad_option"
    assert scoring.score_json(CASES[0]["hand"], options={"colour": 1})["error"]["code"] == "bad_option"


def test_reasons():
    r = score("123m456p789s1235z +7z")
    assert (r.winning, r.reason, r.minimum_met, r.fans) == (False, "not_winning", False, ())
    assert set(r.payments.values()) == {0}
    r = score("234m789s99s46p [345p] +5p 1f2f3f4f5f6f7f8f")  # 平和 + 嵌张, 8 flowers
    assert r.winning and r.reason == "below_minimum" and not r.minimum_met and r.flowers == 8
    assert set(r.payments.values()) == {0}
    assert r.total == r.breakdown["fan_total"] + 8 and r.breakdown["fan_total"] < 8


def test_payments():
    r = score("333444555m345s5p +5p | self seat=W")
    assert r.payments == {"E": -56, "S": -56, "W": 168, "N": -56}
    r = score("333444555m345s5p +5p | seat=W")  # discard from the seat before the winner (S)
    assert r.payments == {"E": -8, "S": -8 - r.total, "W": 24 + r.total, "N": -8}
    r = score("333444555m345s5p +5p | seat=W from=N")
    assert r.payments["N"] == -8 - r.total and r.payments["S"] == -8
    assert sum(r.payments.values()) == 0


def test_flowers_do_not_count_toward_minimum():
    r = score("123m456p789s5p [123s] +5p 1f2f3f")
    assert r.flowers == 3 and fan_counts(r)["花牌"] == 3
    assert r.breakdown["fan_total"] + 3 == r.total


def test_derived_facts():
    # the other three 5p are in the winner's own pung: 和绝张 without the flag
    assert fan_counts(score("234m789s99s46p [555p] +5p"))["和绝张"] == 1
    assert fan_counts(score("234m789s99s46p [345p] +5p"))["和绝张"] == 0
    # kong replacement without any kong: no 杠上开花, plain 自摸
    counts = fan_counts(score("123m456p789s5p [123s] +5p | self kong"))
    assert counts["杠上开花"] == 0 and counts["自摸"] == 1
    counts = fan_counts(score("123m456p789s5p [1111s] +5p | self kong"))
    assert counts["杠上开花"] == 1 and counts["自摸"] == 0


def test_fan_table_runs_from_highest_points():
    """The MCR scorer sorts fans by table order alone, meaning highest points first."""
    points = [f.points for f in scoring.get_ruleset("mcr").fans]
    assert points == sorted(points, reverse=True)


def test_dead_wait_option():
    """1333m + [111m] also 'waits' on 1m, but all four 1m are in the hand: by default a single wait
    (嵌张 on 2m, GB-Mahjong); dead_wait_counts=true counts the dead 1m and drops it (pymahjonggb)."""
    text = "1333m456p789s [111m] +2m"
    assert fan_counts(score(text))["嵌张"] == 1
    assert fan_counts(score(text, dead_wait_counts=True))["嵌张"] == 0
    assert score(text, dead_wait_counts=True).total == score(text).total - 1


def test_repeated_hands_are_cached():
    hand, ctx = scoring.parse_notation("333444555m345s5p +5p | self")
    again = scoring.parse_notation("5p 345s 555444333m +5p | self")
    assert scoring.score(*again) is scoring.score(hand, ctx)


def test_jsonl_command():
    lines = [json.dumps(c["hand"]) for c in CASES[:5]] + ["{not json", json.dumps({"concealed": ["1m"]}), ""]
    proc = subprocess.run(
        [sys.executable, "-m", "scoring", "--rules", "mcr", "--jsonl"],
        input="\n".join(lines) + "\n", capture_output=True, text=True, cwd=REPO, timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    out = [json.loads(line) for line in proc.stdout.splitlines()]
    assert len(out) == len(lines)
    assert all(o["ok"] for o in out[:5])
    assert [o["error"]["code"] for o in out[5:]] == ["bad_json", "bad_json", "bad_json"]
    assert out[0]["total"] == sum(f["points"] * f["count"] for f in out[0]["fans"])


def test_jsonl_goes_on_after_a_line_that_is_not_utf8():
    """Under a strict decoder a text stdin raised at the first bad byte and lost the batch; a line
    whose key holds a lone surrogate could not be written back."""
    good = json.dumps(CASES[0]["hand"]).encode()
    lines = [good, b'{"a\xff": 1}', b'{"\\ud800": 1}', good]
    proc = subprocess.run([sys.executable, "-m", "scoring", "--jsonl"], input=b"\n".join(lines) + b"\n",
                          capture_output=True, cwd=REPO, timeout=60, env=os.environ | {"PYTHONIOENCODING": "utf-8"})
    assert proc.returncode == 0, proc.stderr
    out = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [o["ok"] for o in out] == [True, False, False, True]
    assert out[1]["error"] == {"code": "bad_json", "message": "not UTF-8 text: byte 0xff at byte 4 of the line"}
    assert out[2]["error"] == {"code": "bad_json", "message": "unknown key(s) '\\ud800'"}


def test_a_console_that_cannot_encode_the_fan_names_gets_escapes():
    proc = subprocess.run([sys.executable, "-m", "scoring", "123m456m789m5p [EEE] +5p"], capture_output=True,
                          cwd=REPO, timeout=60, env=os.environ | {"PYTHONIOENCODING": "cp1252"})
    assert proc.returncode == 0 and not proc.stderr, proc.stderr
    assert "\\u6e05\\u9f99 Pure Straight" in proc.stdout.decode("cp1252")


def test_closed_pipe_ends_the_command_quietly(tmp_path):
    """`python -m scoring --jsonl < hands | head -1`: no traceback once the reader has gone."""
    hands = tmp_path / "hands.jsonl"
    hands.write_text((json.dumps(CASES[0]["hand"]) + "\n") * 5000)
    with hands.open() as source:
        proc = subprocess.Popen([sys.executable, "-m", "scoring", "--jsonl"], stdin=source,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=REPO)
        assert json.loads(proc.stdout.readline())["ok"]
        proc.stdout.close()  # the reader goes away while thousands of lines are still to come
        stderr = proc.stderr.read().decode()
        proc.stderr.close()
        assert proc.wait(timeout=60) == CLOSED_PIPE
    assert stderr == ""


def test_score_command_table_and_json():
    cmd = [sys.executable, "-m", "scoring", "333444555m345s5p +5p", "--self-drawn"]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=REPO, timeout=60)
    assert proc.returncode == 0 and "一色三同顺" in proc.stdout and "Total: 48" in proc.stdout
    proc = subprocess.run(cmd + ["--json"], capture_output=True, text=True, cwd=REPO, timeout=60)
    assert json.loads(proc.stdout)["total"] == 48
    proc = subprocess.run([sys.executable, "-m", "scoring", "12m +3m"], capture_output=True, text=True,
                          cwd=REPO, timeout=60)
    assert proc.returncode == 2 and proc.stderr.startswith("mjlens score: ")
    assert proc.stderr.endswith(" [wrong_tile_count]\n") and proc.stderr.count("\n") == 1


def test_repeated_json_hands_give_independent_results():
    first = scoring.score_json(CASES[0]["hand"])
    first["fans"][0]["tiles"].append("changed")
    first["payments"]["E"] = 0
    again = scoring.score_json(CASES[0]["hand"])
    assert "changed" not in again["fans"][0]["tiles"] and again["payments"]["E"] != 0


def _table(argv: list[str], capsys) -> list[str]:
    from scoring.cli import main

    assert main(argv) == 0
    return capsys.readouterr().out.splitlines()


def test_below_the_minimum_says_why_in_fans_without_flowers(capsys):
    """Total 10 with 3 flowers, yet below 8: the lines say the minimum counts fans without flowers."""
    lines = _table(["123m456p678s5z [567m] +5z 1f2f3f"], capsys)
    assert "Total: 10 (3 flowers, +3 fans)" in lines
    assert "Below the minimum: 7 fans without flowers; MCR needs 8." in lines
    lines = _table(["123m456p678s5z [567m] +5z 1f", "--option", "minimum=10"], capsys)
    assert "Total: 8 (1 flower, +1 fan)" in lines
    assert "Below the minimum: 7 fans without flowers; MCR needs 10." in lines


def test_breakdown_carries_the_minimum():
    r = score("123m456p678s5z [567m] +5z", minimum=6)
    assert r.minimum_met and r.breakdown["minimum"] == 6 and r.breakdown["fan_total"] == 7
