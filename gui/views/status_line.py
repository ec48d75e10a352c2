"""One status line a panel: what the last action said, coloured by kind."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel

KINDS = ("error", "saved", "info")


class StatusLine(QLabel):
    """A refusal in red (``error``), a done deed in green (``saved``), anything else plain
    (``info``); the panel clears it when the next action starts."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setWordWrap(True)
        self.kind = "info"
        self.setProperty("role", "status")
        self._restyle()

    def say(self, text: str, kind: str = "info") -> None:
        if kind not in KINDS:
            raise ValueError(f"status kind {kind!r}: one of {', '.join(KINDS)}")
        self.kind = kind
        self._restyle()
        self.setText(text)

    def clear_line(self) -> None:
        self.say("", "info")

    def _restyle(self) -> None:
        self.setProperty("kind", self.kind)
        self.style().unpolish(self)
        self.style().polish(self)
