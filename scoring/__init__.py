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

import marshal
import threading
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
    if not isinstance(hand, Hand):
        raise ScoringError("bad_argument", f"score() takes a scoring.Hand, got {type(hand).__name__} "
                                           "(hand, context = parse_notation(text); a JSON hand goes to score_json())")
    if context is not None and not isinstance(context, WinContext):
        raise ScoringError("bad_argument", f"context must be a scoring.WinContext, got {type(context).__name__}; "
                                           "flags in a dict go in as WinContext(**flags)")
    return get_ruleset(rules).score(hand, context or WinContext(), options)


def score_json(obj: Any, rules: str = "mcr", options: dict | None = None) -> dict:
    """Score a JSON hand; malformed input gives {"ok": false, "error": {...}}, never an exception.

    Footage scores the same hand on many frames, so results are remembered by the exact input.
    Both the key and the result are kept in `marshal` form (the standard library's fast encoding
    of plain data): each caller gets a fresh dict to change freely, the key tells a list from a
    tuple and true from 1 (which validation treats differently), and the cache holds bytes the
    garbage collector never scans (thousands of cached dicts and lists made its full passes the
    costliest part of scoring a new hand).  A result is stored on the hand's second sighting:
    encoding it costs about a twentieth of scoring, which a hand seen once (most photos) never
    repays, while footage repeats a hand on frame after frame."""
    try:
        # Format 0: later ones mark objects by their reference count, so the same hand would
        # give another key whenever something else holds one of its lists.
        key = marshal.dumps((obj, rules, options), 0)
    except ValueError:  # not plain data at all: let the reader name the problem
        return _score_json(obj, rules, options)
    if len(key) > MAX_CACHED_KEY:  # no real hand: kept, it would hold its size in memory for good
        return _score_json(obj, rules, options)
    data = _RESULTS.get(key)
    if data:
        return marshal.loads(data)
    out = _score_json(obj, rules, options)
    # first sighting: the key alone (b"", seen once); second: the result
    data = b"" if data is None else marshal.dumps(out)
    with _RESULTS_LOCK:  # the server scores from several threads
        if key not in _RESULTS:
            while len(_RESULTS) >= RESULT_CACHE_SIZE:
                del _RESULTS[next(iter(_RESULTS))]  # the oldest entry
        _RESULTS[key] = data
    return out


RESULT_CACHE_SIZE = 8192
# A real hand's key is a few hundred bytes (every key, four kongs, eight flowers and every option
# set: about 1 KB); a body of megabytes, cached, would stay resident for thousands of later hands.
MAX_CACHED_KEY = 4096
_RESULTS: dict[bytes, bytes] = {}  # b"" for a hand seen once
_RESULTS_LOCK = threading.Lock()


def _score_json(obj: Any, rules: Any, options: Any) -> dict:
    try:
        hand, ctx = hand_from_json(obj)
        # score_json keeps its own cache, so the rule set's cache of Result objects is skipped
        return get_ruleset(rules).score_json_uncached(hand, ctx, options)
    except ScoringError as e:
        return e.to_json()
