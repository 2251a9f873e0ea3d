"""mahjong-lens scoring engine (standard library only).

Public API:

- ``score(hand, context, rules="mcr", options=None) -> Result``
- ``score_json(obj, rules="mcr", options=None) -> dict``: a JSON hand (dict) in, a JSON result
  out; never raises on bad input, returns ``{"ok": false, "error": {"code", "message"}}`` instead.
- ``parse_notation(text) -> (Hand, WinContext)`` and ``to_notation(hand, context)``
- ``hand_from_json(obj)`` / ``hand_to_json(hand, context)``
- ``get_ruleset(name)``, ``available_rulesets()``; the types Tile, Meld, Hand, WinContext,
  Result, FanScore; the error ``ScoringError`` (``.code``, ``.message``).
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

from .errors import ERROR_CODES, ScoringError
from .hand import Hand, Meld, WinContext
from .jsonio import hand_from_json, hand_to_json
from .notation import parse_notation, to_notation
from .result import FanScore, Result
from .rules import available_rulesets, get_ruleset
from .tiles import Tile

__all__ = [
    "ERROR_CODES", "FanScore", "Hand", "Meld", "Result", "ScoringError", "Tile", "WinContext",
    "available_rulesets", "get_ruleset", "hand_from_json", "hand_to_json", "parse_notation",
    "score", "score_json", "to_notation",
]


def score(hand: Hand, context: WinContext | None = None, rules: str = "mcr", options: Any = None) -> Result:
    """Score a hand under a rule set; `options` is None, a dict, or the rule set's Options."""
    return get_ruleset(rules).score(hand, context or WinContext(), options)


def score_json(obj: Any, rules: str = "mcr", options: dict | None = None) -> dict:
    """Score a JSON hand; malformed input gives {"ok": false, "error": {...}}, never an exception.

    Footage scores the same hand on many frames, so results are remembered by the hand's JSON
    text: a repeated hand costs a JSON encode and decode."""
    try:
        hand_text = json.dumps(obj, sort_keys=True)
        options_text = json.dumps(options, sort_keys=True)
    except (TypeError, ValueError):  # not JSON data at all: let the reader name the problem
        return _score_json(obj, rules, options)
    if not isinstance(rules, str):
        return _score_json(obj, rules, options)
    return _fresh_copy(_score_json_memo(hand_text, rules, options_text))


@lru_cache(maxsize=8192)
def _score_json_memo(hand_text: str, rules: str, options_text: str) -> dict:
    return _score_json(json.loads(hand_text), rules, json.loads(options_text))


def _clone(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _clone(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_clone(v) for v in value]
    return value


def _fresh_copy(out: dict) -> dict:
    """A copy of a remembered JSON result that the caller may change freely (strings shared)."""
    if not out["ok"]:
        return {"ok": False, "error": dict(out["error"])}
    copy = dict(out)
    copy["fans"] = [dict(f, tiles=list(f["tiles"]), groups=[list(g) for g in f["groups"]]) for f in out["fans"]]
    copy["payments"] = dict(out["payments"])
    copy["breakdown"] = _clone(out["breakdown"])
    copy["sets"] = [list(s) for s in out["sets"]]
    return copy


def _score_json(obj: Any, rules: Any, options: Any) -> dict:
    try:
        hand, ctx = hand_from_json(obj)
        return score(hand, ctx, rules, options).to_json()
    except ScoringError as e:
        return e.to_json()
