"""Errors of the photo -> hand -> score path, each with a machine-readable code.

The CLI maps each `kind` to an exit code, so a caller can tell "the photo could not be read"
from "no tiles" from "the tiles do not make a winning hand" without parsing messages.
"""

from __future__ import annotations

from vision.errors import CodedError

# kind -> exit code of `mjlens photo` (documented in the README and in --help).
EXIT_SCORED = 0
EXIT_BAD_INPUT = 2
EXIT_NO_TILES = 3
EXIT_NOT_WINNING = 4
EXIT_CODES: dict[str, int] = {
    "bad_input": EXIT_BAD_INPUT,
    "no_tiles": EXIT_NO_TILES,
    "not_winning": EXIT_NOT_WINNING,
}


class PhotoError(CodedError):
    """A photo that cannot be turned into a scored hand.

    `kind` is one of EXIT_CODES' keys (what the CLI exits with); `code` is the precise,
    machine-readable reason (e.g. `several_hands`, `tile_count`, `too_many_copies`).
    """

    def __init__(self, kind: str, code: str, message: str):
        if kind not in EXIT_CODES:
            raise ValueError(f"unknown error kind {kind!r}")
        super().__init__(code, message)
        self.kind = kind

    @property
    def exit_code(self) -> int:
        return EXIT_CODES[self.kind]

    def to_dict(self) -> dict:
        return {"kind": self.kind, "code": self.code, "message": self.message}
