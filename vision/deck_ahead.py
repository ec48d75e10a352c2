"""A deck's learning scenes drawn while the person still looks at the cards found.

Learning a deck draws 2,000 scenes with its faces and finds the cards in them (about half the
learning), then trains. The scenes need each face's card, but only to label what is drawn:
drawn with the proposals as they stand, they serve any answers that give the same finds (the
cards found once each) their cards, the labels moved from the card proposed to the card
answered (``relabel``). So while the deck window is open, ``ScenesAhead`` draws them as soon as
the answers are the 32 Baloot cards once each, and again from the start whenever they are
complete with other finds; *Learn and save* takes the scenes drawn with the same finds (waiting
for those not yet drawn, their progress shown) and trains at once.

The scenes so drawn are those ``learning_samples`` draws (the same seed and count), with each
face where its proposed card is: a card corrected from one proposal to another trades places
with it in every scene, which teaches the same (each corner and box is learnt on its own).
The drawing runs at low priority (its thread and its processes), so the window answers first.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Sequence

import numpy as np

from hakam.engine.cards import CARD_NAMES
from hakam.vision.reader import OTHER


class _Stopped(Exception):
    """The drawing was stopped: its scenes are not wanted."""


def chosen(answers: Sequence[str | None]) -> dict[int, str] | None:
    """The finds each answered a Baloot card (find -> card), where the answers give each of
    the 32 cards to exactly one find; else None."""
    given = {k: a for k, a in enumerate(answers) if a is not None}
    if sorted(given.values()) != sorted(CARD_NAMES):
        return None
    return given


def relabel(samples, drawn: dict[int, str], answered: dict[int, str]):
    """``samples`` drawn with the cards ``drawn`` (find -> card) labelled as the cards
    ``answered`` for the same finds (``OTHER`` stays)."""
    if set(drawn) != set(answered):
        raise ValueError("answers for other finds than the scenes were drawn with")
    moved = np.arange(OTHER + 1)
    for find, card in drawn.items():
        moved[CARD_NAMES.index(card)] = CARD_NAMES.index(answered[find])
    return samples._replace(classes=moved[samples.classes],
                            read_classes=moved[samples.read_classes])  # fmt: skip


class ScenesAhead:
    """The learning scenes drawn ahead of *Learn and save* (``update`` with the answers as they
    change, ``take`` the scenes for the answers given, ``pause`` while the detector is wanted
    elsewhere: it serves one thread at a time; ``close`` when the window closes).

    ``face(k)``: find ``k``'s face (the caller's finds may grow); ``draw(faces, progress)``:
    ``learning_samples`` of a deck's faces (card -> face), calling ``progress(done, total)``
    after each scene."""

    def __init__(self, face: Callable[[int], np.ndarray], draw: Callable) -> None:
        self._face, self._draw = face, draw
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._drawn: dict[int, str] | None = None  # the finds and cards being drawn
        self._stop = threading.Event()
        self.done = self.total = 0
        self._result = None
        self._failed: BaseException | None = None

    def update(self, answers: Sequence[str | None]) -> None:
        """Answers as they now stand: drawn with, where complete with other finds than those
        being drawn; otherwise the drawing under way goes on (the person may be trading two
        cards' names, or naming a find back)."""
        given = chosen(answers)
        if given is None or (self._drawn is not None and set(given) == set(self._drawn)):
            return
        self.pause()
        self._drawn, self.done, self._result, self._failed = given, 0, None, None
        self._stop = threading.Event()
        faces = {card: self._face(k) for k, card in given.items()}
        self._thread = threading.Thread(target=self._run, args=(faces, self._stop), daemon=True,
                                        name="deck-scenes-ahead")  # fmt: skip
        self._thread.start()

    def _run(self, faces: dict[str, np.ndarray], stop: threading.Event) -> None:
        # Below the window's thread (Linux: a thread's own priority; its processes' too).
        with contextlib.suppress(AttributeError, OSError):
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 10)

        def tick(done: int, total: int) -> None:
            if stop.is_set():
                raise _Stopped
            self.done, self.total = done, total

        try:
            result = self._draw(faces, tick)
        except _Stopped:
            return
        except Exception as exc:  # said when taken: the learning draws again and says it
            self._failed = exc
            return
        self._result = result

    def pause(self) -> None:
        """Stop the drawing under way and wait for it to end (its scenes are dropped)."""
        thread, self._thread, self._drawn = self._thread, None, None
        if thread is not None:
            self._stop.set()
            thread.join()

    def close(self) -> None:
        """The window closed: the drawing under way stops at its next scene, not waited for."""
        self._stop.set()
        self._thread = self._drawn = None

    def take(self, answers: Sequence[str | None], progress: Callable[[int, int], None]):
        """The samples for ``answers``: the scenes drawn ahead with the same finds, waited for
        (``progress(done, total)`` as they are drawn; what it raises stops the drawing and is
        raised) and labelled with these answers; None where none were drawn with these finds,
        or the drawing failed (the learning then draws them itself)."""
        given = chosen(answers)
        thread, drawn = self._thread, self._drawn
        if given is None or thread is None or drawn is None or set(given) != set(drawn):
            self.pause()
            return None
        shown = 0
        try:
            while True:
                alive = thread.is_alive()
                if self.total and self.done != shown:
                    shown = self.done
                    progress(shown, self.total)
                if not alive:
                    break
                thread.join(0.2)
        except BaseException:
            self.pause()
            raise
        self._thread = self._drawn = None
        if self._result is None:
            return None
        return relabel(self._result, drawn, given)
