"""Errors shared by every package: a user's mistake is one line, never a traceback.

Each package raises its own typed errors (``CardError``, ``ScoreError``, ... deriving from
``ValueError``); a command turns what a user can cause into ``UserError``, which the command line
prints as one line with exit status 2.
"""

from __future__ import annotations


class UserError(ValueError):
    """A user error: printed as one line (see ``one_line``), exit status 2, nothing written."""


class Terminated(KeyboardInterrupt):
    """A SIGTERM: it stops a command as Ctrl+C does (its clean-up runs), then exits 143."""


def one_line(text: str) -> str:
    """An error is one line, whatever the user's input held (a field name with a newline)."""
    return text.replace("\r", "\\r").replace("\n", "\\n")
