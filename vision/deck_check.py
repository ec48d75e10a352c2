"""Whether the cards in sight are of the deck chosen (``--deck``, the start screen's deck).

A learnt deck's own index network reads its deck's corners surely; on another standard design's
corners it is sure far less often than the shipped index network. A table that chose a deck with
Arabic indices and plays a standard deck (a deck chosen on an earlier evening, or the camera's
saved one) is read worse, asked more, and suspected of violations that did not happen
(benchmarks/README.md, "A deck chosen wrongly"). So on a frame in ``EVERY`` the boxes the deck
read are read by the shipped index network too, and the two are compared box by box: a box only
the shipped network reads surely speaks against the deck, one only the deck reads surely for it.
Once the boxes against it reach ``LEAST`` and ``RATIO`` times those for it, the table is told,
once (``DeckCheck.tell``); the deal goes on as read, and the table chooses. A standard deck
chosen over Arabic-index cards is not told: the shipped network is seldom sure of those either.

The constants are chosen on designs that are not evaluation sets: the tuning design's scenes
(its own deck, and decks of other designs, over it) and scenes of three training designs read
with a deck learnt from one of them and with the tuning design's and the Arabic design's decks
(docs/experiments/2026-12-05-learning-a-deck.md, "Is this the deck chosen?").
"""

from __future__ import annotations

import numpy as np

SURE = 0.9  # a read this sure of one Baloot card is sure (kept equal to corners.TRIM_BELOW)
EVERY = 10  # frames with cards: one in this many is read by both networks
LEAST = 40  # boxes against the deck before anything is said
RATIO = 3.0  # ... and this many times the boxes for it


class DeckCheck:
    """Counts, over the frames it is given, the reads that speak for and against the deck
    ``name``; ``update`` says when they first show it is not the deck on the table, ``tell``
    gives the table's notice once (the check lives as long as its reader: a match at a table)."""

    def __init__(self, name: str, least: int = LEAST, ratio: float = RATIO) -> None:
        self.name, self.least, self.ratio = name, least, ratio
        self.for_deck = self.against = 0
        self.mismatch = False
        self._told = False

    def update(self, deck: np.ndarray, shipped: np.ndarray) -> bool:
        """One frame's reads of the same boxes (rows), by the deck's index network and by the
        shipped one; True the first time the counts show the cards are not the deck's."""
        deck_sure = deck[:, :-1].max(axis=1) >= SURE  # the last class: not a Baloot card
        shipped_sure = shipped[:, :-1].max(axis=1) >= SURE
        self.for_deck += int((deck_sure & ~shipped_sure).sum())
        self.against += int((shipped_sure & ~deck_sure).sum())
        if self.mismatch:
            return False
        self.mismatch = self.against >= self.least and self.against >= self.ratio * self.for_deck
        return self.mismatch

    def tell(self) -> str | None:
        """The notice for the table (``said``) the first time it is asked after the counts
        showed the cards are not the deck's; else None."""
        if not self.mismatch or self._told:
            return None
        self._told = True
        return self.said()

    def said(self) -> str:
        """What the table is told. The counts are reads: a card read surely on ten frames
        checked counts ten."""
        return (
            f"these cards do not read like deck {self.name} (the standard readers were sure in "
            f"{self.against} reads where it was not, it in {self.for_deck} where they were not): "
            f"if the table plays another deck, choose it on the start screen, or none for the "
            f"standard readers"
        )
