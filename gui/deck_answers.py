"""A person's answers to the cards found while learning a deck (``hakam deck learn --window``),
as plain data: one card name a find, or None to drop it. No Qt here."""

from __future__ import annotations

from collections.abc import Sequence

from hakam.engine.cards import CARD_NAMES
from hakam.gui.models import EntryError


class DeckAnswers:
    """Starts from the proposals; ``complete`` once they are the 32 Baloot cards once each."""

    def __init__(self, proposals: Sequence[str | None]) -> None:
        self.answers: list[str | None] = list(proposals)

    def set(self, index: int, card: str | None) -> None:
        if not 0 <= index < len(self.answers):
            raise EntryError(f"card {index + 1}: no such find")
        if card is not None and card not in CARD_NAMES:
            raise EntryError(f"card {index + 1}: {card!r} is not a Baloot card")
        self.answers[index] = card

    def missing(self) -> list[str]:
        return [c for c in CARD_NAMES if c not in self.answers]

    def twice(self) -> list[str]:
        return [c for c in CARD_NAMES if self.answers.count(c) > 1]

    def complete(self) -> bool:
        return not self.missing() and not self.twice()
