"""Core of the scoring engine: validation errors, notation, decomposition, waits, stdlib-only."""

from __future__ import annotations

import ast
import json
import sys
from pathlib import Path

import pytest

import scoring
from scoring.decompose import decompositions
from scoring.tiles import PLAYING_TILES, TILE_CODES
from scoring.hand import Hand, Meld, WinContext, check_consistent

REPO = Path(__file__).resolve().parents[1]
TESTDATA = REPO.parent / "shared" / "testdata"


def _error(fn, *args) -> str:
    with pytest.raises(scoring.ScoringError) as info:
        fn(*args)
    assert info.value.message
    return info.value.code


BASE = {"concealed": "1m 2m 3m 4m 5m 6m 7m 8m 9m 1p 2p 3p 5p".split(), "winning_tile": "5p"}


@pytest.mark.parametrize(
    ("change", "code"),
    [
        ({"concealed": "1m 1m 1m 1m 2m 3m 4m 5m 6m 7m 8m 9m 5p".split(), "winning_tile": "1m"}, "too_many_copies"),
        ({"concealed": "1m 2m 3m 4m 5m 6m 7m 8m 9m 1p 2p 3p 5p 6p".split()}, "wrong_tile_count"),
        ({"concealed": BASE["concealed"][3:], "melds": [{"kind": "chow", "tiles": ["1z", "2z", "3z"]}]}, "bad_meld"),
        ({"concealed": BASE["concealed"][3:], "melds": [{"kind": "chow", "tiles": ["8m", "9m", "10m"]}]}, "bad_meld"),
        ({"concealed": BASE["concealed"][3:], "melds": [{"kind": "kong", "tiles": ["1m", "1m", "1m"]}]}, "bad_meld"),
        ({"concealed": BASE["concealed"][3:], "melds": [{"kind": "pung", "tiles": ["1m", "1m", "2m"]}]}, "bad_meld"),
        ({"concealed": ["1f", *BASE["concealed"][1:]]}, "flower_in_hand"),
        ({"winning_tile": "3f"}, "flower_in_hand"),
        ({"self_drawn": True, "robbing_kong": True}, "contradictory_flags"),
        ({"kong_replacement": True}, "contradictory_flags"),
        ({"self_drawn": True, "discarder": "S"}, "contradictory_flags"),
        ({"concealed": ["0m", *BASE["concealed"][1:]]}, "unknown_tile"),
        ({"winning_tile": "5x"}, "unknown_tile"),
        ({"flowers": ["1m"]}, "unknown_tile"),
        ({"flowers": ["1f", "1f"]}, "too_many_copies"),
        ({"seat_wind": "Q"}, "bad_wind"),
        ({"self_drawn": "yes"}, "bad_json"),
        ({"colour": "red"}, "bad_json"),
        ({"melds": "none"}, "bad_json"),
    ],
)
def test_malformed_json_hand_gives_error_code(change, code):
    assert _error(scoring.hand_from_json, BASE | change) == code


def test_flags_contradicting_tiles():
    hand, ctx = scoring.parse_notation("123m456m789m1p555p+5p | rob")
    assert _error(check_consistent, hand, ctx) == "contradictory_flags"
    hand, ctx = scoring.parse_notation("123m456m789m23p55p+1p | lastcopy")
    check_consistent(hand, ctx)  # no other concealed 1p: fine
    # a single wait can never be on the last copy: the hand holds the partner (seed 001)
    hand, ctx = scoring.parse_notation("123m456m789m1p555p+1p | lastcopy")
    assert _error(check_consistent, hand, ctx) == "contradictory_flags"


@pytest.mark.parametrize("args", [(None,), ("123m456m789m5p [EEE] +5p",), ("hand", {"self_drawn": True})],
                         ids=["none", "notation-string", "dict-context"])
def test_score_refuses_arguments_of_the_wrong_type_with_a_code(args):
    hand, _ = scoring.parse_notation("123m456m789m5p [EEE] +5p")
    args = tuple(hand if a == "hand" else a for a in args)
    with pytest.raises(scoring.ScoringError) as err:
        scoring.score(*args)
    assert err.value.code == "bad_argument"


def test_score_json_never_raises():
    for bad in [None, [], "x", {"concealed": 5}, BASE | {"winning_tile": 5}, {"melds": [1]}]:
        out = scoring.score_json(bad)
        assert out["ok"] is False and out["error"]["code"] == "bad_json"
    out = scoring.score_json(BASE, rules="nope")
    assert out["error"]["code"] == "unknown_rules"


def _nested(depth: int, inner: object = None) -> list:
    for _ in range(depth):
        inner = [inner]
    return inner


def _deep_tuple(depth: int) -> tuple:
    inner: tuple = ()
    for _ in range(depth):
        inner = (inner,)
    return inner


def test_jsonl_refuses_win_flag_options_that_would_apply_to_no_hand(capsys):
    from vision.cli import main

    assert main(["score", "--jsonl", "--seat", "S", "--self-drawn"]) == 2
    assert capsys.readouterr().err == ("mjlens score: --seat, --self-drawn: --jsonl takes the win flags from each "
                                       "JSON hand; give them there [bad_argument]\n")
    assert main(["score", "--jsonl", "123m456m789m5p [EEE] +5p"]) == 2
    assert capsys.readouterr().err.endswith("give no hand argument [bad_argument]\n")


@pytest.mark.parametrize("build", [
    lambda h: scoring.Hand(None, h.melds, h.winning_tile),
    lambda h: scoring.Hand(h.concealed, None, h.winning_tile),
    lambda h: scoring.Hand(h.concealed, h.melds, h.winning_tile, None),
    lambda h: scoring.Meld("pung", None),
    lambda h: scoring.Meld.from_tiles(7),
], ids=["concealed", "melds", "flowers", "meld-tiles", "from-tiles"])
def test_none_or_a_number_where_a_list_belongs_is_a_coded_error(build):
    hand, _ = scoring.parse_notation("123m456m789m5p [EEE] +5p")
    with pytest.raises(scoring.ScoringError) as err:
        build(hand)
    assert err.value.code == "bad_argument" and "must be a list, got " in err.value.message


@pytest.mark.parametrize("tiles, named", [([1, 2, 3], "got 1"), ([["1m"]] * 3, "got a list")])
def test_a_meld_of_things_that_are_not_codes_is_a_coded_error(tiles, named):
    with pytest.raises(scoring.ScoringError) as err:
        scoring.Meld.from_tiles(tiles)
    assert err.value.code == "unknown_tile" and err.value.message.endswith(named)


def test_a_long_unknown_code_is_named_by_its_start():
    error = scoring.score_json({"concealed": ["x" * 200_000] + ["1m"] * 12, "winning_tile": "1m"})["error"]
    assert error["code"] == "unknown_tile" and len(error["message"]) < 300


def test_a_result_shared_through_the_cache_cannot_be_changed_by_one_caller():
    hand, context = scoring.parse_notation("123m456m789m11p23s +4s")
    first = scoring.score(hand, context)
    for mapping in (first.payments, first.breakdown):
        with pytest.raises(TypeError):
            mapping["E"] = 999
    mine = first.to_json()
    mine["payments"]["E"] = 999
    assert scoring.score(hand, context).payments == first.payments and first.payments["E"] != 999


def test_a_hand_of_things_that_are_not_melds_is_a_coded_error():
    hand, _ = scoring.parse_notation("123m456m789m5p [EEE] +5p")
    with pytest.raises(scoring.ScoringError) as err:
        scoring.Hand(hand.concealed, ("EEE",), hand.winning_tile)
    assert err.value.code == "bad_argument" and "got str" in err.value.message


def test_a_wind_flag_given_twice_differently_is_refused():
    with pytest.raises(scoring.ScoringError) as err:
        scoring.parse_notation("123m456m789m5p [EEE] +5p | seat=S seat=N")
    assert err.value.code == "contradictory_flags" and "seat= is given twice, as S and N" in err.value.message
    assert scoring.parse_notation("123m456m789m5p [EEE] +5p | seat=S seat=S")[1].seat_wind == "S"


def test_jsonl_goes_on_after_json_python_cannot_read():
    """A line nested past Python's recursion limit, or holding a number past its 4300-digit
    limit, is well-formed JSON the decoder still refuses: a bad_json line, then the next hand."""
    import io

    from scoring.cli import run_jsonl

    good = json.dumps(BASE)
    bad = ["[" * 100_000, '{"concealed": ' + "[" * 3000 + "]" * 3000 + ', "winning_tile": "5p"}',
           '{"concealed": ' + "1" * 5000 + "}", "[[[", "  "]
    sink = io.StringIO()
    assert run_jsonl(io.BytesIO(("\n".join([good, *bad, good]) + "\n").encode()), sink, "mcr", None) == len(bad)
    lines = [json.loads(line) for line in sink.getvalue().splitlines()]
    assert [line["ok"] for line in lines] == [True, *[False] * len(bad), True]
    assert all(line["error"]["code"] == "bad_json" for line in lines[1:-1])
    assert lines[-2]["error"]["message"] == "an empty line: give one JSON hand per line"


def test_jsonl_reads_a_first_line_behind_a_byte_order_mark_and_refuses_a_key_given_twice():
    """Windows editors start a UTF-8 file with a BOM; a hand that names its concealed tiles twice
    is an error, not the last list silently scored."""
    import io

    from scoring.cli import run_jsonl

    good = json.dumps(BASE)
    twice = good[:-1] + ', "concealed": ["1m"]}'
    sink = io.StringIO()
    assert run_jsonl(io.BytesIO(b"\xef\xbb\xbf" + f"{good}\r\n{twice}\n".encode()), sink, "mcr", None) == 1
    first, second = (json.loads(line) for line in sink.getvalue().splitlines())
    assert first["ok"] and first["total"] == scoring.score_json(BASE)["total"]
    assert second["error"] == {"code": "bad_json", "message": "'concealed' is given twice in one object"}


def test_a_long_bad_notation_is_shown_by_its_start():
    with pytest.raises(scoring.ScoringError) as err:
        scoring.parse_notation("[" * 5000)
    assert err.value.code == "bad_notation" and "(5,000 characters)" in err.value.message
    assert len(err.value.message) < 200


@pytest.mark.parametrize("rules", scoring.available_rulesets())
def test_score_json_names_no_value_it_cannot_show(rules):
    """Error messages name a value from outside by its kind: its repr would recurse past the limit
    (nested thousands deep) or fail (a number of thousands of digits)."""
    deep, key = _nested(100_000), _deep_tuple(100_000)
    fields = scoring.get_ruleset(rules).options_type.__dataclass_fields__.values()
    option = next(f.name for f in fields if type(f.default) is not int)  # so that a number is refused
    cases = [
        (deep, rules, None, "bad_json"),
        (BASE | {"concealed": deep}, rules, None, "bad_json"),
        (BASE | {"melds": [{"kind": "pung", "tiles": deep}]}, rules, None, "bad_json"),
        (BASE | {key: 1}, rules, None, "bad_json"),
        (BASE | {"melds": [{"kind": "pung", "tiles": ["1z"] * 3, key: 1}]}, rules, None, "bad_json"),
        (BASE, deep, None, "unknown_rules"),
        (BASE, {"a": deep}, None, "unknown_rules"),
        (BASE, key, None, "unknown_rules"),
        (BASE, rules, deep, "bad_option"),
        (BASE, rules, {option: deep}, "bad_option"),
        (BASE, rules, {option: 10 ** 5000}, "bad_option"),
        (BASE, rules, {key: 1}, "bad_option"),
    ]
    for hand, name, options, code in cases:
        out = scoring.score_json(hand, name, options)
        assert out["ok"] is False and out["error"]["code"] == code, out


def test_a_chow_code_of_thousands_of_digits_is_an_unknown_tile():
    """The 8-9-10 check reads a chow code's rank; past 4300 digits int() raises ValueError."""
    chow = {"kind": "chow", "tiles": ["1" * 5000 + "m", "2m", "3m"]}
    out = scoring.score_json(BASE | {"concealed": BASE["concealed"][3:], "melds": [chow]})
    assert out["error"]["code"] == "unknown_tile"


@pytest.mark.parametrize(
    ("change", "shown"),
    [
        ({"\ud800": 1}, "unknown key(s) '\\ud800'"),
        ({"melds": [{"kind": "pung", "tiles": ["1z"] * 3, "\ud800": 1}]}, "meld 0: unknown key(s) '\\ud800'"),
        ({"melds": [{"kind": "pung", "tiles": ["1z"] * 3, "claimed": "\ud800"}]}, "claimed tile '\\ud800'"),
        ({"melds": [{"kind": "chow", "tiles": ["10m", "\ud800", "2m"]}]}, "unknown tile code '10m'"),
    ],
    ids=["key", "meld-key", "claimed", "chow-rank"],
)
def test_a_lone_surrogate_from_the_input_is_escaped_in_the_message(change, shown):
    """JSON may hold a lone surrogate, which no output encodes (the HTTP answer, the --jsonl line):
    a message names such a value escaped, as it names an unknown tile code."""
    out = scoring.score_json(BASE | {"concealed": BASE["concealed"][3:]} | change)
    message = out["error"]["message"]
    message.encode("utf-8")  # raises on a lone surrogate
    assert message.startswith(shown), message


@pytest.mark.parametrize(("rules", "option"), [("mcr", "base"), ("mcr", "minimum"), ("shanghai", "limit")])
def test_a_whole_number_option_is_bounded(rules, option):
    """A total or payment made from an option of thousands of digits cannot be printed."""
    from scoring.rules import MAX_OPTION_INT

    assert scoring.score_json(BASE, rules, {option: MAX_OPTION_INT})["ok"]
    for value in (MAX_OPTION_INT + 1, 10 ** 4299, -10 ** 4299):
        assert scoring.score_json(BASE, rules, {option: value})["error"] == {
            "code": "bad_option",
            "message": f"{rules} option {option!r} takes a whole number up to 1,000,000, got one larger in size"}


def test_the_command_refuses_an_option_of_thousands_of_digits(capsys):
    status, out, err = _cli(capsys, "123456789m789m8m +8m", "--rules", "shanghai", "--option", "base=1" + "0" * 4299)
    assert status == 2 and not out and err.endswith(" [bad_option]\n")


def test_the_command_refuses_an_option_given_twice_with_two_values(capsys):
    hand = "123456789m789m8m +8m"
    status, out, err = _cli(capsys, hand, "--rules", "shanghai", "--option", "limit=500", "--option", "limit=600")
    assert status == 2 and not out
    assert err.endswith("--option limit is given twice, as 500 and 600: give it once [bad_option]\n")
    assert _cli(capsys, hand, "--rules", "shanghai", "--option", "limit=500", "--option", "limit=500")[0] == 0
    # Equal in Python, not the same option value: named as given twice, not refused for the value
    status, _, err = _cli(capsys, hand, "--rules", "shanghai", "--option", "base=10", "--option", "base=10.0")
    assert status == 2 and err.endswith("--option base is given twice, as 10 and 10.0: give it once [bad_option]\n")


def test_winning_means_a_winning_shape_in_every_rule_set():
    """`winning` is whether the tiles form a winning shape, the same in every rule set: a hand
    below a rule set's minimum is winning, with reason below_minimum and no payments."""
    below = scoring.parse_notation("123m123m456p678s9p +9p")  # MCR 4 fan, Sihai H 15 on a discard
    no_shape = scoring.parse_notation("123m123m456p678s9p +1z")
    missed = set()
    for rules in scoring.available_rulesets():
        ruleset = scoring.get_ruleset(rules)
        for hand, ctx in (below, no_shape):
            result = ruleset.score_uncached(hand, ctx).to_json()
            assert result == scoring.score_json(scoring.hand_to_json(hand, ctx), rules)
            shape = (result["winning"], result["reason"], result["minimum_met"])
            if hand is no_shape[0]:
                assert shape == (False, "not_winning", False), rules
            elif result["minimum_met"]:
                assert shape == (True, None, True), rules
            else:
                missed.add(rules)
                assert shape == (True, "below_minimum", False), rules
                assert set(result["payments"].values()) == {0}
    assert missed == {"mcr", "sihai"}  # Shanghai has no minimum


def test_result_reason_agrees_with_winning_and_minimum_met():
    from scoring.result import Result

    Result("mcr", True, "below_minimum", (), 4, 0, False)
    for winning, reason, met in [(False, "below_minimum", False), (True, "not_winning", False),
                                 (True, None, False), (False, None, True)]:
        with pytest.raises(ValueError):
            Result("mcr", winning, reason, (), 0, 0, met)


@pytest.mark.parametrize("rules", scoring.available_rulesets())
def test_text_table_marks_provisional_fans(rules):
    """Whatever the rule set, a provisional fan gets the mark and the table a footnote."""
    import dataclasses

    from scoring.cli import PROVISIONAL_MARK, PROVISIONAL_NOTE, format_table

    hand, ctx = scoring.parse_notation("123m456m789m5p [EEE] +5p | self")
    result = scoring.score(hand, ctx, rules)
    plain = dataclasses.replace(result, fans=tuple(f._replace(provisional=False) for f in result.fans))
    assert PROVISIONAL_NOTE not in format_table(plain, "").splitlines()
    first, *rest = result.fans
    marked = format_table(dataclasses.replace(result, fans=(first._replace(provisional=True), *rest)), "")
    assert PROVISIONAL_NOTE in marked.splitlines()
    assert f"{first.zh} {first.en}{PROVISIONAL_MARK}" in marked


def test_score_json_cache_tells_inputs_apart(monkeypatch):
    """The result cache is keyed on the exact input: a tuple where the schema wants a list, or 1
    where it wants true, is still refused after the valid hand was scored; and it stays bounded."""
    assert scoring.score_json(BASE)["ok"]
    assert scoring.score_json(BASE | {"concealed": tuple(BASE["concealed"])})["error"]["code"] == "bad_json"
    assert scoring.score_json(BASE | {"self_drawn": True})["ok"]
    assert scoring.score_json(BASE | {"self_drawn": 1})["error"]["code"] == "bad_json"
    monkeypatch.setattr(scoring, "RESULT_CACHE_SIZE", 3)
    for seat in "ESWN":
        scoring.score_json(BASE | {"seat_wind": seat})
    assert len(scoring._RESULTS) <= 3


def test_score_json_does_not_cache_a_body_far_beyond_any_hand(monkeypatch):
    """Bodies of megabytes, cached, would stay resident; a real hand still is."""
    monkeypatch.setattr(scoring, "_RESULTS", {})
    huge = BASE | {"concealed": ["1m"] * 100_000}
    for _ in range(2):
        assert scoring.score_json(huge)["error"]["code"] == "wrong_tile_count"
    assert not scoring._RESULTS
    scoring.score_json(BASE)
    assert len(scoring._RESULTS) == 1


def test_the_cache_key_depends_on_the_hand_alone(monkeypatch):
    """Holding another reference to one of the hand's lists (as a caller or a cache may) must not
    change its key: marshal's default format marks objects by their reference count."""
    monkeypatch.setattr(scoring, "_RESULTS", {})
    hand = BASE | {"concealed": list(BASE["concealed"])}
    scoring.score_json(hand)
    held = hand["concealed"]
    scoring.score_json(hand)
    assert held and len(scoring._RESULTS) == 1
    assert next(iter(scoring._RESULTS.values())), "the second sighting stores the result"


def test_score_json_caches_a_hand_from_its_second_sighting(monkeypatch):
    """A hand seen once is not encoded for the cache; seen again, its result is stored, and later
    calls are answered from the cache with equal, independent dicts."""
    monkeypatch.setattr(scoring, "_RESULTS", {})
    scored = []
    real = scoring._score_json
    monkeypatch.setattr(scoring, "_score_json", lambda *args: scored.append(args) or real(*args))
    outs = [scoring.score_json(BASE) for _ in range(4)]
    assert len(scored) == 2
    assert all(out == outs[0] for out in outs) and outs[0]["ok"]
    outs[2]["fans"].clear()  # a cached answer is the caller's own to change
    assert scoring.score_json(BASE) == outs[0] and len(scored) == 2


@pytest.mark.parametrize(
    "text",
    [
        "123m456p78s11z [555z] +9s",
        "19m19p19s1234567z +1z | self seat=S round=W",
        "1122m [234p] [5555s] {7777z} +1m 1f2f5f | self kong dealer=S",
        "12345678m99m [123s] +9m | last from=W seat=N",
        "147m258p369s2345s +5s | lastcopy",
    ],
)
def test_notation_round_trip(text):
    hand, ctx = scoring.parse_notation(text)
    again = scoring.parse_notation(scoring.to_notation(hand, ctx))
    assert again == (hand, ctx)
    assert scoring.hand_from_json(json.loads(json.dumps(scoring.hand_to_json(hand, ctx)))) == (hand, ctx)


def test_notation_reads_honour_letters_and_flowers():
    hand, ctx = scoring.parse_notation("EEE SS PPP FF C 1m2m +C 18f | self seat=N")
    assert hand.concealed == ("1m", "2m", "1z", "1z", "1z", "2z", "2z", "5z", "5z", "5z", "6z", "6z", "7z")
    assert hand.winning_tile == "7z" and hand.flowers == ("1f", "8f")
    assert ctx == WinContext(self_drawn=True, seat_wind="N")


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("123m +", "bad_notation"),
        ("123m456p789s11z [555z +3m", "bad_notation"),
        ("123m456p789s11z [555z] +3m +4m", "bad_notation"),
        ("123m456p789s11z [555z] 3m", "bad_notation"),
        ("123m456p789s11z [555z] +3m | fast", "bad_notation"),
        ("123m456p789s11z {555z} +3m", "bad_meld"),
        ("123m456p789s11z [5f55z] +3m", "flower_in_hand"),
        ("123m456p789s11x [555z] +3m", "unknown_tile"),
        ("123m456p789s11z ? +3m", "bad_notation"),
    ],
)
def test_bad_notation(text, code):
    assert _error(scoring.parse_notation, text) == code


def _forms(text: str) -> list[str]:
    return sorted({d.form for d in decompositions(scoring.parse_notation(text)[0])})


def test_decomposition_forms():
    assert _forms("19m19p19s1234567z +1z") == ["thirteen_orphans"]
    assert _forms("147m258p369s1234z +5z") == ["honours_knitted"]
    assert _forms("147m258p369s2345s +5s") == ["knitted_straight"]
    assert _forms("1122334455667m +7m") == ["regular", "seven_pairs"]
    assert _forms("1111m2233p5566s7z +7z") == ["seven_pairs"]  # four identical tiles = two pairs
    assert _forms("1234m456p789s111z +5z") == []


def test_winning_tile_placements_are_separate_decompositions():
    hand, _ = scoring.parse_notation("333444555m345s5p +5p")
    # three pungs or three chows; the 5p is the pair in both
    assert len(decompositions(hand)) == 2
    hand, _ = scoring.parse_notation("11123m456p789s55z +1m")
    kinds = sorted(d.units[d.winning_unit].kind for d in decompositions(hand))
    assert kinds == ["chow", "pung"]


def test_gb_mahjong_waits():
    lines = (TESTDATA / "gb-mahjong-waits.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 20
    for line in lines:
        case = json.loads(line)
        melds = tuple(Meld(m["kind"], tuple(m["tiles"]), m["concealed"]) for m in case["hand"]["melds"])
        assert _waits(tuple(case["hand"]["concealed"]), melds) == case["waits"], case["source"]


def _waits(concealed: tuple[str, ...], melds: tuple[Meld, ...]) -> list[str]:
    """The tiles that make the 13 a winning hand (a fifth copy is no hand: a dead wait is left out)."""
    def wins(tile: str) -> bool:
        try:
            return scoring.score(Hand(concealed, melds, tile)).winning  # MCR refuses no winning shape
        except scoring.ScoringError:
            return False

    return [t for t in TILE_CODES[:PLAYING_TILES] if wins(t)]


def test_scoring_imports_only_the_standard_library():
    for path in (REPO / "scoring").rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                assert top == "scoring" or top in sys.stdlib_module_names, f"{path}: imports {name}"


def test_a_notation_line_of_hundreds_of_thousands_of_tiles_is_refused_by_its_count():
    # 600 KB: 11 s when each token copied the rest of the line (quadratic), 0.3 s now.
    with pytest.raises(scoring.ScoringError) as info:
        scoring.parse_notation("1m " * 200_000 + "+5p")
    assert info.value.code == "wrong_tile_count"


@pytest.mark.parametrize("flag", ["false", 1, None])
def test_a_meld_flag_that_is_not_true_or_false_is_refused(flag):
    """A truthy "false" was read as a concealed kong; WinContext refuses such flags the same way."""
    with pytest.raises(scoring.ScoringError) as info:
        Meld("kong", ("1z",) * 4, concealed=flag)
    assert info.value.code == "bad_json" and info.value.message.startswith("concealed must be true or false, got ")


def test_hand_is_normalised_and_hashable():
    a = Hand(("3m", "1m", "2m", *["5p"] * 3, *"1s 2s 3s 7s 8s 9s 9p".split()), (), "9p")
    b = Hand(tuple(sorted(a.concealed, reverse=True)), (), "9p")
    assert a == b and hash(a) == hash(b)
    assert a.is_concealed
    assert not Hand(a.concealed[3:], (Meld("chow", ("1m", "2m", "3m")),), "9p").is_concealed


def test_notation_round_trip_on_generated_hands():
    from tests.handgen import hand_corpus

    for obj in hand_corpus(7, 300):
        hand, ctx = scoring.hand_from_json(obj)
        text = scoring.to_notation(hand, ctx)
        assert scoring.parse_notation(text) == (hand, ctx), text


@pytest.mark.parametrize("rules", scoring.available_rulesets())
def test_score_json_is_the_results_json(rules):
    """score_json writes the JSON straight from the scoring where a rule set can
    (RuleSet.evaluate_json); it must be exactly the Result's to_json(), winning or not."""
    from tests.handgen import hand_corpus

    ruleset = scoring.get_ruleset(rules)
    for n, obj in enumerate(hand_corpus(11, 200)):
        if n % 4 == 0:  # some hands that do not win: the winning tile swapped for another
            obj = obj | {"winning_tile": "1z" if obj["winning_tile"] != "1z" else "9m"}
        try:
            hand, ctx = scoring.hand_from_json(obj)
            expected = ruleset.score_uncached(hand, ctx).to_json()
        except scoring.ScoringError as e:
            expected = e.to_json()
        assert scoring._score_json(obj, rules, None) == expected, obj


def _cli(capsys, *argv: str) -> tuple[int, str, str]:
    from scoring.cli import main

    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_the_example_asked_for_a_missing_hand_scores(capsys):
    """The hand the message offers is the one a first-time user types next: it must score."""
    import re

    status, _, err = _cli(capsys)
    assert status == 2 and "[bad_notation]" in err
    example = re.search(r'e\.g\. mjlens score "([^"]+)"', err).group(1)
    result = scoring.score(*scoring.parse_notation(example))
    assert result.winning and result.minimum_met
    assert _cli(capsys, example)[0] == 0


# One hand of each form of every rule set (the shared search's and Sihai's own 筋不靠); a rule set
# that does not accept the form refuses it. The 全不靠 hand is also 筋不靠, and is named once.
FORM_HANDS = {
    "seven_pairs": "1199m3377p55sEEP +P",
    "thirteen_orphans": "19m19p19s1234567z +1m",
    "honours_knitted": "147m258p369s1234z +5z",
    "knitted_straight": "147m258p369s678m5z +5z",
    "suji_knitted": "147m147p25sESWNP +C",
}


@pytest.mark.parametrize("rules", scoring.available_rulesets())
def test_refused_forms_name_a_shape_the_rule_set_does_not_accept(rules):
    """A hand that forms only shapes a rule set refuses is not winning, and says which shapes:
    in the Result, in score_json's JSON, and nowhere else (no shape at all: an empty list)."""
    ruleset = scoring.get_ruleset(rules)
    for form, text in FORM_HANDS.items():
        hand, ctx = scoring.parse_notation(text)
        result = scoring.score(hand, ctx, rules)
        out = scoring.score_json(scoring.hand_to_json(hand, ctx), rules)
        if form in ruleset.forms:
            assert result.winning and result.refused_forms == () and out["refused_forms"] == [], (rules, form)
        else:
            assert (result.winning, result.reason) == (False, "not_winning"), (rules, form)
            assert result.refused_forms == (form,) and out["refused_forms"] == [form], (rules, form)
    no_shape = scoring.score(*scoring.parse_notation("123m123m456p678s9p +1z"), rules)
    assert no_shape.reason == "not_winning" and no_shape.to_json()["refused_forms"] == []


def test_which_forms_each_rule_set_refuses():
    refused = {rules: set(FORM_HANDS) - set(scoring.get_ruleset(rules).forms) for rules in scoring.available_rulesets()}
    assert refused == {"mcr": {"suji_knitted"}, "sihai": {"knitted_straight"}, "shanghai": set(FORM_HANDS)}


def test_refused_forms_only_on_a_hand_that_does_not_win():
    from scoring.result import Result

    Result("shanghai", False, "not_winning", (), 0, 0, False, refused_forms=("seven_pairs",))
    with pytest.raises(ValueError):
        Result("mcr", True, "below_minimum", (), 4, 0, False, refused_forms=("seven_pairs",))


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (["123m456p678s2m [567m] +2m | seat=S", "--seat", "W"], ("--seat W", "seat=S")),
        (["123m456p678s2m [567m] +2m | round=S", "--round", "E"], ("--round E", "round=S")),
        (["123m456p678s2m [567m] +2m | from=N", "--self-drawn"], ("--self-drawn", "no discarder")),
        (["123m456p678s2m [567m] +2m | from=N", "--seat", "N"], ("--seat N", "own discard")),
    ],
)
def test_options_that_contradict_the_notation_are_refused(capsys, argv, named):
    status, out, err = _cli(capsys, *argv)
    assert status == 2 and not out and err.endswith("[contradictory_flags]\n")
    assert all(part in err for part in named), err


def test_options_that_agree_with_the_notation_or_add_to_it_are_taken(capsys):
    status, out, _ = _cli(capsys, "123m456p678s2m [567m] +2m | seat=S self", "--seat", "S", "--round", "W",
                          "--self-drawn")
    assert status == 0 and out.startswith("1223m456p678s [567m] +2m | self seat=S round=W ")


@pytest.mark.parametrize(("notation", "options", "same_as"), [
    ("123m456m789m5p [EEEE] +5p | kong", ["--self-drawn"], "123m456m789m5p [EEEE] +5p | self kong"),
    ("123m456m789m1122p +2p | from=E", ["--seat", "S"], "123m456m789m1122p +2p | from=E seat=S"),
    ("123m456m789m1122p +2p | earthly", ["--self-drawn", "--seat", "S"], "123m456m789m1122p +2p | earthly self seat=S"),
])
def test_options_that_make_the_notations_flags_consistent_are_taken_with_them(capsys, notation, options, same_as):
    status, out, err = _cli(capsys, notation, *options)
    assert status == 0 and not err
    assert (status, out) == _cli(capsys, same_as)[:2]


@pytest.mark.parametrize(("notation", "options", "told"), [
    ("123m456m789m1122p +2p | kong", ["--seat", "S"], "a kong replacement tile is drawn from the wall, so the win "
                                                      "must be self-drawn"),
    ("123m456m789m1122p +2p | from=E", ["--self-drawn"], "--self-drawn: a self-drawn win has no discarder"),
    ("123m456m789m1122p +2p | from=E", ["--seat", "S", "--self-drawn"],
     "--self-drawn --seat S: a self-drawn win has no discarder"),
])
def test_a_clash_is_told_as_the_notation_alone_or_with_the_options_makes_it(capsys, notation, options, told):
    status, _, err = _cli(capsys, notation, *options)
    assert status == 2 and err == f"mjlens score: {told} [contradictory_flags]\n"


SLIP = "unexpected character at position"
SUIT_AFTER_DIGITS = "digits need a lowercase suit letter (m p s z f) after them"


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        ("123m456p789s1122z +1z self", SLIP, "flags go after \" | \": '123m456p789s1122z +1z | self'"),
        ("123m456p789s1122z +1z seat=S kong", SLIP, "flags go after \" | \": '123m456p789s1122z +1z | seat=S kong'"),
        ("123m456p789s1122z self +1z", SLIP, "flags go after \" | \" at the end, e.g. '... +5p | self seat=S'"),
        ("123m456p789s11z eee +1z", SLIP, "honour letters are uppercase E S W N P F C (or digits with z: 1z-7z)"),
        ("123m456m789m5p [EEE] +5P", f"{SUIT_AFTER_DIGITS}, not 'P', at position 24 of", ""),
        ("123m456m789m5p [89T] +5p", f"{SUIT_AFTER_DIGITS}, not 'T', at position 19 of", ""),
        ("123m456m789m5p [EEE] +5", f"{SUIT_AFTER_DIGITS} at position 24 of", ""),
        ("123m456m789m5p [EEE] +55p", f"{SLIP} 22 of", ""),  # the suit is there: "+" takes one tile
    ],
)
def test_notation_errors_point_at_the_usual_slips(text, start, end):
    with pytest.raises(scoring.ScoringError) as info:
        scoring.parse_notation(text)
    assert info.value.code == "bad_notation"
    assert info.value.message.startswith(start) and info.value.message.endswith(end)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"self_drawn": "yes"}, "self_drawn must be true or false, got 'yes'"),
        ({"last_tile": 1}, "last_tile must be true or false, got 1"),
        ({"seat_wind": True}, 'seat_wind must be a wind, "E", "S", "W" or "N", got true'),
        ({"discarder": 3}, 'discarder must be a wind, "E", "S", "W" or "N" (or null), got 3'),
    ],
)
def test_a_context_value_of_the_wrong_type_names_the_key_and_the_type(change, message):
    assert scoring.score_json(BASE | change)["error"] == {"code": "bad_json", "message": message}


def test_win_context_names_a_flag_of_the_wrong_type():
    with pytest.raises(scoring.ScoringError) as info:
        WinContext(self_drawn="yes")
    assert (info.value.code, info.value.message) == ("bad_json", "self_drawn must be true or false, got 'yes'")


def test_score_help_says_prevailing_wind(capsys):
    with pytest.raises(SystemExit):
        _cli(capsys, "--help")
    out = capsys.readouterr().out
    assert "prevailing" in out and "prevalent" not in out


@pytest.mark.parametrize("rules", ["mcr", "sihai", "shanghai"])
def test_changing_a_results_json_leaves_the_cached_result_as_it_was(rules):
    hand, ctx = scoring.parse_notation("123m456m789m1122p +2p 1f | self")
    first = scoring.score(hand, ctx, rules).to_json()
    expected = json.loads(json.dumps(first))
    for value in (first["breakdown"], *first["breakdown"].values(), first["payments"], first["fans"], first["sets"]):
        if isinstance(value, dict):
            value["changed"] = 1
        elif isinstance(value, list):
            value.append("changed")
    assert scoring.score(hand, ctx, rules).to_json() == expected


@pytest.mark.parametrize(("notation", "rules", "options"), [
    ("9p [567m] [567p] [345s] [345p] +9p", "sihai", {"edition": "B", "level": "II"}),  # which 喜相逢
    ("5s [123m] [123m] [456p] [456p] +5s", "shanghai", {}),  # which 一般高
    ("5s [123m] [123m] [456p] [456p] +5s", "mcr", {}),
])
def test_the_order_melds_are_given_in_changes_nothing_in_the_result(notation, rules, options):
    import itertools

    hand, ctx = scoring.parse_notation(notation)
    results = {json.dumps(scoring.score(scoring.Hand(hand.concealed, melds, hand.winning_tile), ctx, rules,
                                        options).to_json(), ensure_ascii=False)
               for melds in itertools.permutations(hand.melds)}
    assert len(results) == 1


def test_a_json_hand_given_as_the_argument_is_pointed_to_jsonl(capsys):
    status, out, err = _cli(capsys, '{"concealed": ["1m", "1m"], "winning_tile": "1m"}')
    assert status == 2 and not out
    assert "the hand looks like JSON: JSON hands go on standard input with --jsonl" in err


@pytest.mark.parametrize(("rules", "noted"), [("mcr", True), ("shanghai", True), ("sihai", False)])
def test_a_flag_the_rule_set_has_no_fan_for_is_noted(capsys, rules, noted):
    status, out, _ = _cli(capsys, "123m456m789m5p EEE +5p | self heavenly", "--rules", rules)
    note = "has no fan for a heavenly (天和) hand: the heavenly flag changes nothing"
    assert status == 0 and (note in out) == noted
    assert note not in _cli(capsys, "123m456m789m5p EEE +5p | self", "--rules", rules)[1]


@pytest.mark.parametrize(("hand", "rules", "noted"), [
    ("123m456m789m11p23s +4s | self kong", "mcr", True),
    ("123m456m789m11p23s +4s | self kong", "sihai", True),
    ("123m456m789m11p23s +4s 1f | self kong", "shanghai", False),  # drawn after the flower
    ("123m456m789m1p [1111s] +1p | self kong", "mcr", False),
])
def test_a_kong_replacement_in_a_hand_without_a_kong_is_noted(capsys, hand, rules, noted):
    status, out, _ = _cli(capsys, hand, "--rules", rules)
    assert status == 0 and ("the hand shows no kong, so no tile was drawn after one" in out) == noted


@pytest.mark.parametrize("flags", ["heavenly self last", "heavenly self kong", "human seat=S last",
                                   "earthly self seat=S kong"])
def test_a_first_go_around_win_on_the_last_tile_or_after_a_kong_is_refused(flags):
    with pytest.raises(scoring.ScoringError) as err:
        scoring.parse_notation(f"123m456m789m11p23s +4s | {flags}")
    assert err.value.code == "contradictory_flags"


def test_a_long_value_is_shown_by_its_start_and_a_number_as_written():
    result = scoring.score_json(BASE, rules="x" * 100_000)
    assert result["error"]["message"] == (f"unknown rule set {'x' * 40!r}... (100,000 characters); "
                                          f"available: {', '.join(scoring.available_rulesets())}")
    assert scoring.score_json(BASE, "mcr", {"minimum": 8.5})["error"]["message"].endswith("got 8.5")
    assert scoring.score_json({**BASE, "melds": None})["error"]["message"] == "melds must be a list of melds, got null"


def test_a_value_of_a_library_type_is_named_with_its_module():
    import numpy as np

    from scoring.errors import shown

    assert shown(np.bool_(True)) == "a numpy.bool" and shown(3 + 4j) == "a complex"
