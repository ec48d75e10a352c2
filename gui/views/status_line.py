"""One status line a panel: what the last action said, coloured by kind."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtWidgets import QLabel

KINDS = ("error", "saved", "info")


class StatusLine(QLabel):
    """A refusal in red (``error``), a done deed in green (``saved``), anything else plain
    (``info``); the panel clears it when the next action starts."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setWordWrap(True)
        self.kind = "info"
        self._make: Callable[[Any], str] | None = None
        self.setProperty("role", "status")
        self._restyle()

    def say(self, text: str | Callable[[Any], str], kind: str = "info", lang: Any = None) -> None:
        """``text``, or ``text(lang)``: then said again in another language (``retranslate``)."""
        if kind not in KINDS:
            raise ValueError(f"status kind {kind!r}: one of {', '.join(KINDS)}")
        if callable(text) and lang is None:
            raise ValueError("status text(lang): give the language it is said in")
        self.kind = kind
        self._make = text if callable(text) else None
        self._restyle()
        self.setText(text(lang) if callable(text) else text)

    def retranslate(self, lang: Any) -> None:
        """The line in ``lang`` (the window's language changed), where it was said so."""
        if self._make is not None:
            self.setText(self._make(lang))

    def clear_line(self) -> None:
        self.say("", "info")

    def _restyle(self) -> None:
        self.setProperty("kind", self.kind)
        self.style().unpolish(self)
        self.style().polish(self)
