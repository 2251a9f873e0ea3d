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
    """Score a JSON hand; malformed input gives {"ok": false, "error": {...}}, never an exception."""
    try:
        hand, ctx = hand_from_json(obj)
        return score(hand, ctx, rules, options).to_json()
    except ScoringError as e:
        return e.to_json()
