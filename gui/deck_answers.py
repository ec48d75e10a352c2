"""A person's answers to the cards found while learning a deck (``hakam deck learn --window``),
as plain data: one card name a find, or None to drop it; and how far the learning is. No Qt
here."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence

from hakam.engine.cards import CARD_NAMES
from hakam.gui.models import EntryError


class DeckAnswers:
    """Starts from the proposals; ``complete`` once they are the 32 Baloot cards once each.
    Given each find's ``reads`` (the generic read's probabilities), the finds the person has not
    named are proposed again as they name others (``hakam.vision.decks.propose``: each card at
    most once; ``alike``: the finds printing the same rank, ``hakam.vision.index_glyphs``);
    ``named``: the finds already named by the person (their answers never change); ``changed``:
    the finds proposed again to another card since the person may have looked at them, not
    named since (the window marks them; given: those marked when the window closed before)."""

    # ``propose``'s ``keep``: a find's proposal as it stands is kept unless the others gain
    # more than e² times in probability by its change (the finds printing a named find's glyph
    # free to follow it). Chosen on the tuning spreads of seeds 0, 7, 8, 11-15, fewest right
    # proposals turned wrong, then fewest corrections (``benchmarks/proposals.py``): turned
    # wrong 8 -> 0, finds changed (marked ↻) 73 -> 47, corrections 23 -> 27.
    keep = 2.0

    def __init__(self, proposals: Sequence[str | None], reads: Sequence | None = None,
                 named: Iterable[int] = (), alike=None,
                 changed: Iterable[int] = ()) -> None:  # fmt: skip
        self.answers: list[str | None] = list(proposals)
        self.reads = None if reads is None else list(reads)
        # The caller's own set, where it gives one: it sees the finds named here as they are.
        self.named = named if isinstance(named, set) else set(named)
        self.alike = alike
        # The caller's own set too: the marks are kept with the cards waiting.
        self.changed = changed if isinstance(changed, set) else set(changed)

    def set(self, index: int, card: str | None) -> None:
        if not 0 <= index < len(self.answers):
            raise EntryError(f"card {index + 1}: no such find")
        if card is not None and card not in CARD_NAMES:
            raise EntryError(f"card {index + 1}: {card!r} is not a Baloot card")
        self.answers[index] = card
        self.named.add(index)
        self.changed.discard(index)
        if self.reads is not None:
            self._propose_again(len(self.answers))

    def extend(self, proposals: Sequence[str | None], reads: Sequence | None = None,
               alike=None) -> None:  # fmt: skip
        """Finds of another picture added after the others, with their proposals and reads
        (``alike``: of all the finds now). Where every find's read is known, the finds not named
        are proposed again together: a card found in both pictures is proposed once."""
        shown = len(self.answers)  # the finds the person may have looked at
        self.answers += list(proposals)
        if self.reads is None or reads is None:  # (cards found before reads were kept)
            self.reads = None
            return
        self.reads += list(reads)
        self.alike = alike
        self._propose_again(shown)

    def _propose_again(self, shown: int) -> None:
        """Every find not named proposed again, each held to its proposal as it stands by
        ``keep`` (re-proposing only the finds an answer bears on took the simulated person 43
        corrections against 29 on the tuning spreads; holding none turned 8 right ones wrong):
        those of the first ``shown`` whose proposal changed are marked for the person to look
        at again."""
        from hakam.vision.decks import propose

        named = {i: self.answers[i] for i in self.named}
        before = self.answers
        self.answers = [name for name, _ in propose(self.reads, named, self.alike, before,
                                                    self.keep)]  # fmt: skip
        now = self.answers[:shown]
        self.changed |= {i for i, (a, b) in enumerate(zip(before[:shown], now, strict=True))
                         if a != b and i not in self.named}  # fmt: skip

    def missing(self) -> list[str]:
        return [c for c in CARD_NAMES if c not in self.answers]

    def twice(self) -> list[str]:
        return [c for c in CARD_NAMES if self.answers.count(c) > 1]

    def finds(self, card: str) -> list[int]:
        """The finds (numbered from 1, as in the window) answered ``card``."""
        return [k + 1 for k, a in enumerate(self.answers) if a == card]

    def complete(self) -> bool:
        return not self.missing() and not self.twice()


class LearningStopped(Exception):
    """The person stopped the learning: nothing is saved."""


class LearningProgress:
    """Where learning a deck stands (``hakam.vision.decks.learn_deck``'s progress): the stage
    (``"scenes"`` drawn, then ``"training"`` steps), steps done of the stage's total, and the
    seconds left in the stage at its pace so far (None until two steps are done). ``stop``
    makes the next ``update`` raise ``LearningStopped`` (it is called from the learning)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.stage: str | None = None
        self.done = self.total = 0
        self.left: float | None = None
        self.stopped = False
        self._began: dict[str, tuple[float, int]] = {}

    def update(self, stage: str, done: int, total: int) -> None:
        if self.stopped:
            raise LearningStopped("stopped: nothing learnt")
        now = self.clock()
        # The stage's first step seen (the first, or where scenes drawn ahead had got to):
        # the pace from there.
        began, first = self._began.setdefault(stage, (now, done))
        left = (now - began) / (done - first) * (total - done) if done > first else None
        # One assignment: the window's timer reads these from another thread.
        self.stage, self.done, self.total, self.left = stage, done, total, left

    def stop(self) -> None:
        self.stopped = True
