"""A deck learnt while the person still looks at the cards found.

Learning a deck draws 2,000 scenes with its faces and finds the cards in them, then trains its
index network on them. The scenes need each face's card only to label what is drawn: drawn with
the proposals as they stand, they serve any answers that give the same finds (the cards found
once each) their cards, the labels moved from the card proposed to the card answered
(``relabel``). So while the deck window is open, ``ScenesAhead`` draws them as soon as the
answers are the 32 Baloot cards once each (again from the start whenever they are complete with
other finds), then trains on them with the answers as they stand, and again each time the
answers change. *Learn and save* takes what fits its answers: the deck trained on them, or the
training under way for them, or the scenes drawn with the same finds (waiting for those not yet
drawn), and the learning goes on from there.

The scenes so drawn are those ``learning_samples`` draws (the same seed and count), with each
face where its proposed card is: a card corrected from one proposal to another trades places
with it in every scene, which teaches the same (each corner and box is learnt on its own).
The work runs at low priority (its thread and its processes), so the window answers first.
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
    """The work under way is not wanted any more."""


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
    """The learning done ahead of *Learn and save* (``update`` with the answers as they
    change; ``take`` what fits the answers given; ``pause`` while the detector is wanted
    elsewhere: it serves one thread at a time; ``close`` when the window closes).

    ``face(k)``: find ``k``'s face (the caller's finds may grow); ``draw(faces, progress)``:
    ``learning_samples`` of a deck's faces (card -> face), calling ``progress(done, total)``
    after each scene; ``train(samples, progress)``: the deck learnt from them, calling
    ``progress(done, total)`` after each step (None: nothing trained ahead)."""

    def __init__(self, face: Callable[[int], np.ndarray], draw: Callable,
                 train: Callable | None = None) -> None:  # fmt: skip
        self._face, self._draw, self._train = face, draw, train
        self._wake = threading.Condition()
        self._thread: threading.Thread | None = None
        self._drawn: dict[int, str] | None = None  # the finds and cards being drawn
        self._stop = threading.Event()
        self._wanted: dict[int, str] | None = None  # the answers to train on
        self.stage, self.done, self.total = "scenes", 0, 0
        self._samples = None
        self._trained: tuple[dict[int, str], object] | None = None  # answers, deck
        self._training_for: dict[int, str] | None = None  # the answers the training is for
        self._failed: BaseException | None = None

    def update(self, answers: Sequence[str | None]) -> None:
        """Answers as they now stand: drawn with, where complete with other finds than those
        being drawn; trained on, where complete with the same (the training under way for
        others stops). Otherwise the work under way goes on (the person may be trading two
        cards' names, or naming a find back)."""
        given = chosen(answers)
        if given is None:
            return
        if self._drawn is not None and set(given) == set(self._drawn):
            with self._wake:
                self._wanted = given
                self._wake.notify_all()
            return
        self.pause()
        self._drawn, self._wanted = given, given
        self.stage, self.done, self.total = "scenes", 0, 0
        self._samples = self._trained = self._failed = self._training_for = None
        self._stop = threading.Event()
        faces = {card: self._face(k) for k, card in given.items()}
        self._thread = threading.Thread(target=self._run, args=(faces, given, self._stop),
                                        daemon=True, name="deck-learning-ahead")  # fmt: skip
        self._thread.start()

    def _run(self, faces: dict[str, np.ndarray], drawn: dict[int, str],
             stop: threading.Event) -> None:  # fmt: skip
        # Below the window's thread (Linux: a thread's own priority; its processes' too).
        with contextlib.suppress(AttributeError, OSError):
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 10)

        def scene(done: int, total: int) -> None:
            if stop.is_set():
                raise _Stopped
            self.done, self.total = done, total

        try:
            self._samples = self._draw(faces, scene)
            while self._train is not None and not stop.is_set():
                with self._wake:
                    want = self._wanted
                    if self._trained is not None and self._trained[0] == want:
                        self._wake.wait()  # until the answers change, or a stop
                        continue

                def step(done: int, total: int, want=want) -> None:
                    if stop.is_set() or self._wanted != want:  # (read without the lock: a
                        raise _Stopped  # change seen a step late costs a step)
                    self.stage, self.done, self.total = "training", done, total

                self._training_for = want
                try:
                    deck = self._train(relabel(self._samples, drawn, want), step)
                except _Stopped:
                    continue
                with self._wake:
                    self._trained = (want, deck)
                    self._wake.notify_all()
        except _Stopped:
            return
        except Exception as exc:  # said when taken: the learning does it again and says it
            self._failed = exc

    def pause(self) -> None:
        """Stop the work under way and wait for it to end (what it did is dropped)."""
        thread, self._thread, self._drawn = self._thread, None, None
        if thread is not None:
            self._stop.set()
            with self._wake:
                self._wake.notify_all()
            thread.join()

    def close(self) -> None:
        """The window closed: the work under way stops at its next step, not waited for."""
        self._stop.set()
        with self._wake:
            self._wake.notify_all()
        self._thread = self._drawn = None

    def take(self, answers: Sequence[str | None], progress: Callable[[str, int, int], None]):
        """What was done ahead for ``answers``: ``("deck", deck)`` trained on them (waited for,
        where it is under way), or ``("samples", samples)``, the scenes drawn with the same finds
        labelled with them (where nothing is trained ahead, or the training failed), or None
        (nothing drawn with these finds, or the drawing failed: the learning does it all).
        ``progress(stage, done, total)`` as the work goes on; what it raises stops the work and
        is raised."""
        given = chosen(answers)
        thread, drawn = self._thread, self._drawn
        if given is None or thread is None or drawn is None or set(given) != set(drawn):
            self.pause()
            return None
        with self._wake:
            self._wanted = given
            self._wake.notify_all()
        shown = (None, 0)
        try:
            while True:
                trained = self._trained is not None and self._trained[0] == given
                alive = thread.is_alive() and self._failed is None
                ours = self.stage == "scenes" or self._training_for == given  # (not others')
                if ours and self.total and (self.stage, self.done) != shown:
                    shown = (self.stage, self.done)
                    progress(self.stage, self.done, self.total)
                if trained or not alive:
                    break
                if self._train is None and self._samples is not None:
                    break  # drawn, nothing to train here
                with self._wake:
                    self._wake.wait(0.2)
        except BaseException:
            self.pause()
            raise
        found, samples = self._trained, self._samples
        self.pause()
        if found is not None and found[0] == given:
            return "deck", found[1]
        if samples is None:
            return None
        return "samples", relabel(samples, drawn, given)
