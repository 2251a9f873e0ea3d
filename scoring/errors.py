"""The one error family of the engine: malformed input, with a machine-readable code.

A valid hand that does not win is *not* an error (it is a result with a reason); these errors mean
the input itself cannot be a real mahjong hand or cannot be read.
"""

from __future__ import annotations

# code -> what it means (documentation; also the complete list of codes the engine raises)
ERROR_CODES: dict[str, str] = {
    "unknown_tile": "a tile code that does not exist",
    "too_many_copies": "more than four copies of a tile, or a flower twice",
    "wrong_tile_count": "the hand does not have 14 tiles (kongs counted as 3) with the winning tile",
    "bad_meld": "a meld that is no chow, pung or kong (honour chow, 8-9-10, kong of three...)",
    "contradictory_flags": "win flags that contradict each other or the tiles",
    "flower_in_hand": "a flower among the concealed tiles, melds or winning tile",
    "bad_json": "a JSON hand that does not follow the schema",
    "bad_notation": "a one-line notation string that cannot be read",
    "bad_wind": "a seat or wind that is not E, S, W or N",
    "bad_option": "an unknown rule-set option, or a value of the wrong type or out of range",
    "unknown_rules": "a rule-set name that is not registered",
    "bad_argument": "an argument of the wrong type, or one that does not apply (score() takes a Hand and a WinContext; --jsonl takes no --seat)",
}


# How an error message names a value of each JSON kind it did not expect
JSON_KINDS: dict[type, str] = {
    bool: "true or false", int: "a whole number", float: "a number", str: "a string",
    list: "a list", dict: "an object", type(None): "null",
}


def shown(value: object) -> str:
    """`value` as an error message names it: a string as written (its start, when long: a message
    that echoed a megabyte sent as a rule set's name would bury the error), true and false as JSON
    writes them (their kind, "true or false", reads as a riddle after "got"), a number as written
    up to SHOWN_CHARS, anything else by its kind. Input from outside may be nested thousands deep
    or be a number thousands of digits long, whose repr fails (past the recursion limit, past the
    4300 digits Python converts)."""
    if isinstance(value, str):
        return repr(value) if len(value) <= SHOWN_CHARS else f"{value[:SHOWN_CHARS]!r}... ({len(value):,} characters)"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) or (isinstance(value, int) and -10 ** SHOWN_CHARS < value < 10 ** SHOWN_CHARS):
        return repr(value)
    kind = type(value)
    # numpy's bool_ is named "bool" too: "must be true or false, got a bool" would read as a riddle
    named = kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__name__}"
    return JSON_KINDS.get(kind, f"a {named}")


SHOWN_CHARS = 40


class ScoringError(ValueError):
    """Malformed input. `code` is one of ERROR_CODES, `message` says what to fix."""

    def __init__(self, code: str, message: str):
        if code not in ERROR_CODES:
            raise ValueError(f"undocumented error code {code!r}")
        super().__init__(message)
        self.code = code
        self.message = message

    def to_json(self) -> dict:
        return {"ok": False, "error": {"code": self.code, "message": self.message}}
