"""Argparse value types for every command and benchmark: a bad number is refused while the
options are parsed, with the usage line and a message naming the allowed range."""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from pathlib import Path


def whole(minimum: int, maximum: int | None = None) -> Callable[[str], int]:
    """A whole number from `minimum` to `maximum` (no upper bound when None)."""
    allowed = f"a whole number >= {minimum}" if maximum is None else f"a whole number from {minimum} to {maximum}"

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or value < minimum or (maximum is not None and value > maximum):
            raise argparse.ArgumentTypeError(f"{text!r} is not {allowed}")
        return value
    return parse


def number(above: float, high: float = math.inf, *, high_allowed: bool = False,
           low_allowed: bool = False) -> Callable[[str], float]:
    """A finite number above `above` (at least `above` with `low_allowed`) and below `high` (at most
    `high` with `high_allowed`)."""
    low = f"{'at least' if low_allowed else 'above'} {above:g}"
    if high == math.inf:
        allowed = f"a finite number {low}"
    else:
        allowed = f"a number {low} and {'at most' if high_allowed else 'below'} {high:g}"

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not (math.isfinite(value) and (above <= value if low_allowed else above < value)
                and (value <= high if high_allowed else value < high)):
            raise argparse.ArgumentTypeError(f"{text!r} is not {allowed}")
        return value
    return parse


def existing_file(text: str) -> Path:
    """The path of a file that is there (a model, a photo), checked before any work starts."""
    path = Path(text)
    try:
        ok = path.is_file()
    except OSError:  # a name too long, a folder not to be entered
        ok = False
    if not ok:
        raise argparse.ArgumentTypeError(f"{text!r} is not a file")
    return path
