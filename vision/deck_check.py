"""Whether the cards in sight are of the deck chosen, or read more like another one.

The readers a table can choose: the standard ones (the shipped index network), or a deck learnt
here (``hakam deck learn``), whose own index network reads its deck's corners surely and other
designs' far less often. A table that chose a deck with Arabic indices and plays a standard deck
(a deck chosen on an earlier evening, or the camera's saved one) is read worse, asked more, and
suspected of violations that did not happen (benchmarks/README.md, "A deck chosen wrongly"); so
is a table that learnt its Arabic-index deck and did not choose it.

So the reader chosen is compared with each other reader there is (the standard one and every
other deck learnt here), one at a time, on one frame with cards in ``EVERY`` each (fewer once
the counts speak for the choice against it: ``DeckCheck.due``): the same boxes read by both,
box by box. A box only the other reads surely speaks against the choice,
one only the chosen reads surely for it. Once the boxes against it reach ``LEAST`` and
``RATIO`` times those for it, the table is told, once (``DeckCheck.tell``), which reader the
cards read more like; the deal goes on as read, and the table chooses.

The constants are chosen on designs that are not evaluation sets: the tuning design's scenes
(Arabic indices, drawn by the generator) and scenes of three training designs, read with each
reader and decks learnt from the tuning design, a training design and the hold-out designs
(docs/experiments/2026-12-05-learning-a-deck.md, "Is this the deck chosen?").
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

SURE = 0.9  # a read this sure of one Baloot card is sure (kept equal to corners.TRIM_BELOW)
EVERY = 10  # frames with cards: each other reader reads one in this many ...
SETTLED = 5  # ... and this many times fewer once the counts speak for the choice against it
LEAST = 40  # boxes against the choice before anything is said
RATIO = 3.0  # ... and this many times the boxes for it


def reader_name(deck: str | None) -> str:
    """A reader as the table's notice names it."""
    return "the standard readers" if deck is None else f"deck {deck}"


class DeckCheck:
    """Counts, for each reader in ``others`` (a learnt deck's name; None: the standard readers),
    the reads that speak for and against the reader chosen (``name``; None: the standard ones);
    ``update`` says when they first show the cards read more like one of the others, ``tell``
    gives the table's notice once (the check lives as long as its reader: a match at a table).
    """

    def __init__(
        self,
        name: str | None,
        others: Iterable[str | None],
        least: int = LEAST,
        ratio: float = RATIO,
    ) -> None:
        self.name, self.least, self.ratio = name, least, ratio
        self.others = [o for o in dict.fromkeys(others) if o != name]
        self.for_chosen = dict.fromkeys(self.others, 0)  # reads only the choice is sure of
        self.against = dict.fromkeys(self.others, 0)  # reads only the other reader is sure of
        self.mismatch = False
        self.like: str | None = None  # with ``mismatch``: the reader the cards read more like
        self._told = False

    def due(self, frame: int) -> list[str | None]:
        """The other readers that read frame ``frame`` (counted among the frames with cards):
        each one in ``EVERY``, spread over the frames; one the counts already speak for the
        choice against (``LEAST`` for, ``RATIO`` times those against), ``SETTLED`` times fewer;
        none once the table was told. A read of another design's cards is mostly unsure and
        drawn again from trimmed boxes, a third of a frame's reading: the readers that cannot
        change the outcome soon cost little."""
        if self.mismatch:
            return []
        return [o for k, o in enumerate(self.others)
                if (frame - k) % (EVERY * SETTLED if self._settled(o) else EVERY) == 0]  # fmt: skip

    def _settled(self, other: str | None) -> bool:
        chosen = self.for_chosen[other]
        return chosen >= self.least and chosen >= self.ratio * self.against[other]

    def update(self, chosen: np.ndarray, other: str | None, theirs: np.ndarray) -> bool:
        """One frame's reads of the same boxes (rows), by the chosen reader and by ``other``;
        True the first time the counts show the cards read more like another reader."""
        chosen_sure = chosen[:, :-1].max(axis=1) >= SURE  # the last class: not a Baloot card
        other_sure = theirs[:, :-1].max(axis=1) >= SURE
        self.for_chosen[other] += int((chosen_sure & ~other_sure).sum())
        self.against[other] += int((other_sure & ~chosen_sure).sum())
        if self.mismatch:
            return False
        passed = [o for o in self.others if self._passes(o)]
        if not passed:
            return False
        self.mismatch = True
        self.like = max(passed, key=lambda o: self.against[o] - self.for_chosen[o])
        return True

    def _passes(self, other: str | None) -> bool:
        against = self.against[other]
        return against >= self.least and against >= self.ratio * self.for_chosen[other]

    def tell(self) -> str | None:
        """The notice for the table (``said``) the first time it is asked after the counts
        showed the cards read more like another reader; else None."""
        if not self.mismatch or self._told:
            return None
        self._told = True
        return self.said()

    def said(self) -> str:
        """What the table is told. The counts are reads: a card read surely on ten frames
        checked counts ten."""
        like, chosen = reader_name(self.like), reader_name(self.name)
        counts = (
            f"{self.against[self.like]} reads {like} {_was(self.like)} sure of and {chosen} "
            f"{_was(self.name)} not, {self.for_chosen[self.like]} the other way round"
        )
        if self.like is None:
            return (
                f"these cards do not read like {chosen} ({counts}): if the table plays another "
                "deck, read with it (the start screen's deck, or --deck NAME), or with none for "
                "the standard readers"
            )
        advice = (
            f"if the table plays deck {self.like}, read with it (the start screen's deck, or "
            f"--deck {self.like})"
        )
        if self.name is None:
            return f"these cards read better with {like} than with {chosen} ({counts}): {advice}"
        return f"these cards read more like {like} than {chosen} ({counts}): {advice}"


def _was(deck: str | None) -> str:
    return "were" if deck is None else "was"
