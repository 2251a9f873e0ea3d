"""The one shape of a failure that vision/ reports: `code` for machines, `message` (also str()) for people."""

from __future__ import annotations


class CodedError(Exception):
    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message
