"""The JSON hand schema, read strictly (unknown keys and wrong types are errors, not ignored).

    {"concealed": ["1m", ...],                 # without the winning tile
     "melds": [{"kind": "chow"|"pung"|"kong", "tiles": [...], "concealed": false,
                "claimed": "3m"}],             # concealed: true only for a concealed kong;
                                               # claimed (optional): the tile taken
     "winning_tile": "9s", "self_drawn": false, "seat_wind": "E", "round_wind": "E",
     "flowers": ["1f"], "last_tile": false, "kong_replacement": false, "robbing_kong": false,
     "last_copy": false, "discarder": "N",      # discarder: discard wins only; default the seat before
     "dealer": "E", "heavenly": false, "earthly": false, "human": false}

Only `concealed` and `winning_tile` are required; everything else has the default shown.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from functools import lru_cache
from itertools import repeat
from typing import Any

from .errors import ScoringError, shown
from .hand import MELD_KINDS, Hand, Meld, WinContext

_CONTEXT_KEYS = {
    "self_drawn": bool, "seat_wind": str, "round_wind": str, "last_tile": bool,
    "kong_replacement": bool, "robbing_kong": bool, "last_copy": bool, "discarder": str,
    "dealer": str, "heavenly": bool, "earthly": bool, "human": bool,
}
# what an error message says each key takes
_EXPECTED = {bool: "true or false", str: 'a wind, "E", "S", "W" or "N"'}
_HAND_KEYS = {"concealed", "melds", "winning_tile", "flowers"}
_MELD_KEYS = {"kind", "tiles", "concealed", "claimed"}
_KEYS = _HAND_KEYS | set(_CONTEXT_KEYS)


def hand_json_schema() -> dict[str, Any]:
    """The JSON hand as a JSON Schema (for the web API's OpenAPI document), from the same key
    tables that `hand_from_json` reads; the codes and counts are checked by the reader alone."""
    code = {"type": "string", "examples": ["5p"]}
    tiles = {"type": "array", "items": code}
    wind = {"type": "string", "enum": ["E", "S", "W", "N"]}
    meld = {"type": "object", "additionalProperties": False, "required": ["kind", "tiles"], "properties": {
        "kind": {"type": "string", "enum": list(MELD_KINDS)}, "tiles": tiles,
        "concealed": {"type": "boolean"}, "claimed": {"anyOf": [code, {"type": "null"}]}}}
    flags = {key: {"type": "boolean"} if typ is bool else wind for key, typ in _CONTEXT_KEYS.items()}
    flags["discarder"] = {"anyOf": [wind, {"type": "null"}]}
    return {"type": "object", "additionalProperties": False, "required": ["concealed", "winning_tile"],
            "properties": {"concealed": tiles, "melds": {"type": "array", "items": meld}, "winning_tile": code,
                           "flowers": tiles, **flags}}


def loads(text: str) -> Any:
    """Parse one JSON document; whatever Python cannot read is ScoringError(bad_json): malformed
    text, and well-formed JSON past Python's limits: nested deeper than the recursion limit (the
    decoder recurses once per [ or {), or a whole number of more than 4300 digits."""
    if not text.strip():
        raise ScoringError("bad_json", "an empty line: give one JSON hand per line")
    try:
        return json.loads(text, object_pairs_hook=_once_each)
    except json.JSONDecodeError as e:
        raise ScoringError("bad_json", f"not JSON: {e.msg} at character {e.pos + 1}") from None
    except RecursionError:
        raise ScoringError("bad_json", "JSON nested too deeply to be a hand") from None
    except ScoringError:  # _once_each's, a ValueError too
        raise
    except ValueError:  # for str input the decoder's only other error: the digit limit
        raise ScoringError("bad_json", "a number with more digits than Python reads (4300)") from None


def _once_each(pairs: list[tuple[str, Any]]) -> dict:
    """A JSON object whose keys are each given once: a repeated key is an error, not the last
    one silently kept (a hand edited by hand may say its concealed tiles twice)."""
    seen = dict(pairs)
    if len(seen) < len(pairs):
        twice = next(k for k in seen if sum(key == k for key, _ in pairs) > 1)
        raise ScoringError("bad_json", f"{shown(twice)} is given twice in one object")
    return seen


def _names(keys: Iterable[object]) -> str:
    """Unknown keys for an error message, quoted and escaped as an unknown tile code is: a key may
    hold a lone surrogate, which no output can encode (a Python caller's keys need not be strings)."""
    return ", ".join(sorted(map(shown, keys)))


def _tile_list(obj: dict, key: str) -> list[str]:
    value = obj.get(key, [])
    if not isinstance(value, list) or not all(map(isinstance, value, repeat(str))):
        raise ScoringError("bad_json", f"{key!r} must be a list of tile codes such as \"1m\"")
    return value


def _meld(obj: Any, n: int) -> Meld:
    if not isinstance(obj, dict):
        raise ScoringError("bad_json", f"meld {n} must be an object with kind and tiles")
    if not obj.keys() <= _MELD_KEYS:
        extra = obj.keys() - _MELD_KEYS
        raise ScoringError("bad_json", f"meld {n}: unknown key(s) {_names(extra)}")
    if "kind" not in obj or "tiles" not in obj:
        raise ScoringError("bad_json", f"meld {n} needs \"kind\" and \"tiles\"")
    concealed = obj.get("concealed", False)
    claimed = obj.get("claimed")
    if not isinstance(concealed, bool) or not (claimed is None or isinstance(claimed, str)):
        raise ScoringError("bad_json", f"meld {n}: concealed is true/false, claimed a tile code")
    if not isinstance(obj["kind"], str):
        raise ScoringError("bad_json", f"meld {n}: kind is a string")
    return _shared_meld(obj["kind"], tuple(_tile_list(obj, "tiles")), concealed, claimed)


# Melds and contexts are immutable, and a few thousand of each cover nearly every hand, so the
# reader shares one object per distinct value instead of building and checking it for every hand
# (the values reach these only after the type checks above, so true and 1 never meet in a key).
_shared_meld = lru_cache(maxsize=4096)(Meld)
_shared_context = lru_cache(maxsize=4096)(WinContext)


def hand_from_json(obj: Any) -> tuple[Hand, WinContext]:
    """Read a JSON hand (already parsed into a dict); raises ScoringError on any problem."""
    if not isinstance(obj, dict):
        raise ScoringError("bad_json", "a hand is a JSON object")
    if not obj.keys() <= _KEYS:
        extra = obj.keys() - _KEYS
        raise ScoringError("bad_json", f"unknown key(s) {_names(extra)}")
    for key in ("concealed", "winning_tile"):
        if key not in obj:
            raise ScoringError("bad_json", f"missing {key!r}")
    if not isinstance(obj["winning_tile"], str):
        raise ScoringError("bad_json", f"winning_tile must be one tile code such as \"5p\", got {shown(obj['winning_tile'])}")
    melds = obj.get("melds", [])
    if not isinstance(melds, list):
        raise ScoringError("bad_json", f"melds must be a list of melds, got {shown(melds)}")
    ctx_args = {}
    for key, typ in _CONTEXT_KEYS.items():
        if key in obj and not (key == "discarder" and obj[key] is None):
            if not isinstance(obj[key], typ):
                or_null = " (or null)" if key == "discarder" else ""
                raise ScoringError("bad_json", f"{key} must be {_EXPECTED[typ]}{or_null}, got {shown(obj[key])}")
            ctx_args[key] = obj[key]
    ctx = _shared_context(**ctx_args)
    hand = Hand(
        tuple(_tile_list(obj, "concealed")),
        tuple(_meld(m, n) for n, m in enumerate(melds)),
        obj["winning_tile"],
        tuple(_tile_list(obj, "flowers")),
    )
    return hand, ctx


def hand_to_json(hand: Hand, ctx: WinContext) -> dict[str, Any]:
    """The JSON hand for (hand, ctx); context fields at their defaults are left out."""
    out: dict[str, Any] = {
        "concealed": list(hand.concealed),
        "melds": [
            {"kind": m.kind, "tiles": list(m.tiles), "concealed": m.concealed}
            | ({"claimed": m.claimed} if m.claimed else {})
            for m in hand.melds
        ],
        "winning_tile": hand.winning_tile,
        "flowers": list(hand.flowers),
    }
    default = WinContext()
    for key in _CONTEXT_KEYS:
        if getattr(ctx, key) != getattr(default, key):
            out[key] = getattr(ctx, key)
    return out
