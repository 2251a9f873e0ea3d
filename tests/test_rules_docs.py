"""The committed rule-set docs are exactly what `python -m scoring.rules.docs` generates from the
engine's tables (run it after changing a fan, an option or a decision)."""

from __future__ import annotations

from scoring.rules.docs import REPO, generate


def test_committed_docs_are_current():
    for path, text in generate().items():
        committed = (REPO / path).read_text(encoding="utf-8")
        assert committed == text, f"{path} is out of date: run python -m scoring.rules.docs"


def test_docs_list_every_fan_and_option():
    from scoring.rules import get_ruleset

    docs = generate()
    for path, rules in (("docs/sihai-3.1.md", "sihai"), ("docs/shanghai-old.md", "shanghai")):
        ruleset = get_ruleset(rules)
        for fan in ruleset.fans:
            assert f"| {fan.zh} | {fan.en} | {fan.points} |" in docs[path]
        for name in ruleset.options_type.__dataclass_fields__:
            assert f"| `{name}` |" in docs[path]
