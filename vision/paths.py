"""Why a path given as input names no file that can be read, found before a decoder opens it:
Pillow would block reading a pipe, and OpenCV takes any path for a video it cannot open."""

from __future__ import annotations

import os
import stat
from pathlib import Path


def file_problem(path: str | Path, kind: str) -> tuple[str, str] | None:
    """(code, message) for a `path` that names no readable regular file, or None; `kind` names
    what it should hold in the message ("image", "video")."""
    name = str(path)
    shown = shown_path(path)
    if not name:  # Path("") would be the current folder
        return "file_missing", f"the {kind}'s path is empty"
    try:
        info = os.stat(name)
    except FileNotFoundError:
        return "file_missing", f"{shown}: no such file"
    except OSError as exc:  # a name too long, a component that is a file, a folder not to be entered
        return "cannot_read", f"{shown}: cannot open it ({exc.strerror})"
    except ValueError:  # a NUL character, which no file name holds
        return "bad_argument", f"{name!r}: a file name cannot hold a NUL character"
    if stat.S_ISDIR(info.st_mode):
        return "not_a_file", f"{shown}: is a folder, not {_a(kind)} file"
    if not stat.S_ISREG(info.st_mode):
        return "not_a_file", f"{shown}: not {_a(kind)} file (a device or a pipe)"
    if not os.access(name, os.R_OK):
        return "cannot_read", f"{shown}: cannot open it (Permission denied)"
    if info.st_size == 0:
        return "empty_file", f"{shown}: the file is empty (0 bytes)"
    return None


def shown_path(path: str | Path) -> str:
    """The path as it can be printed: a name from a zip archive or a Windows share may hold bytes
    that are not UTF-8 (lone surrogates here), which no output can encode."""
    return str(path).encode("utf-8", "backslashreplace").decode("utf-8")


def one_line(exc: Exception) -> str:
    """A decoder's words for a one-line message (pillow-heif's end in a line break)."""
    return " ".join(str(exc).split())


def _a(kind: str) -> str:
    return f"an {kind}" if kind[0] in "aeiou" else f"a {kind}"
