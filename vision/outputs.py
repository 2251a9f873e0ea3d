"""Whether a command can write an output file, found before its work starts (a long run must not
fail at its end)."""

from __future__ import annotations

import os
from pathlib import Path


def write_problem(path: Path) -> str | None:
    """Why `path` cannot be written (an OSError's words, without the path: every caller names it
    as its option does), or None. Missing folders are created, as
    the write would; a file that was not there is opened once and removed again. Trying is the only
    sure test: permission bits say nothing for root, or for /proc."""
    try:
        existed = path.exists()
        path.parent.mkdir(parents=True, exist_ok=True)
        path.open("ab").close()  # appends nothing
        if not existed:
            path.unlink()
    except OSError as exc:
        return exc.strerror or str(exc)
    return None


def same_file(a: str | Path, b: str | Path) -> bool:
    """Whether the two paths name one existing file (an output that would write over an input)."""
    try:
        return os.path.samefile(a, b)
    except (OSError, ValueError):  # either missing: the input's own error comes when it is read
        return False
