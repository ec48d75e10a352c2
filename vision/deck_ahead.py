"""A deck learnt while the person still looks at the cards found.

Learning a deck draws 2,000 scenes with its faces and finds the cards in them, then trains its
index network on them. The scenes need each face's card only to label what is drawn: drawn with
the proposals as they stand, they serve any answers that give the same finds (the cards found
once each) their cards, the labels moved from the card proposed to the card answered
(``relabel``). So while the deck window is open, ``LearningAhead`` draws them as soon as the
answers are the 32 Baloot cards once each (again from the start whenever they are complete with
other finds), then trains on them with the answers as they stand, and again each time the
answers change. *Learn and save* takes what fits its answers: the deck trained on them, or the
training under way for them, or the scenes drawn with the same finds (waiting for those not yet
drawn), and the learning goes on from there.

The scenes so drawn are those ``learning_samples`` draws (the same seed and count), with each
face where its proposed card is: a card corrected from one proposal to another trades places
with it in every scene, which teaches the same (each corner and box is learnt on its own).
The work runs at low priority (its thread and the processes drawing; the detector's own
threads, made before, keep theirs), so the window answers first.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import threading
import traceback
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


class _Run:
    """One run of the work ahead, for one set of finds: what it drew with, the answers it is
    to train on, and what it did. A run stopped keeps its own state: nothing it does after
    reaches the next run."""

    def __init__(self, drawn: dict[int, str]) -> None:
        self.drawn, self.wanted = drawn, drawn
        self.stop = threading.Event()
        self.wake = threading.Condition()
        self.state = ("scenes", 0, 0)  # stage, done, total: one assignment, read whole
        self.samples = None
        self.trained: tuple[dict[int, str], object] | None = None  # answers, deck
        self.training_for: dict[int, str] | None = None
        self.failed: BaseException | None = None
        self.thread: threading.Thread | None = None

    def want(self, given: dict[int, str]) -> None:
        with self.wake:
            self.wanted = given
            self.wake.notify_all()

    def halt(self) -> None:
        with self.wake:  # under the lock: a wait that checked ``stop`` is woken
            self.stop.set()
            self.wake.notify_all()


_LIVE: set[_Run] = set()  # the runs whose thread may still be working


@atexit.register
def _end_runs() -> None:
    """At exit, the runs still working are stopped and waited for (a while): a thread killed
    inside the networks' native code aborts the whole process ("terminate called...")."""
    for run in list(_LIVE):
        run.halt()
    for run in list(_LIVE):
        if run.thread is not None:
            run.thread.join(30)


class LearningAhead:
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
        self._run: _Run | None = None

    @classmethod
    def for_deck(cls, name: str, face: Callable[[int], np.ndarray], detector,
                 scenes: int) -> LearningAhead:  # fmt: skip
        """The deck ``name`` learnt ahead as ``hakam.vision.decks.learn_deck`` learns it: its
        ``scenes`` drawn and found with ``detector``, then its training."""
        from hakam.vision import decks

        return cls(
            face,
            lambda faces, tick: decks.learning_samples(faces, detector, scenes, progress=tick),
            lambda samples, tick: decks.deck_from_samples(name, samples, detector, scenes, tick),
        )

    @property
    def stage(self) -> str:
        return self._run.state[0] if self._run else "scenes"

    @property
    def done(self) -> int:
        return self._run.state[1] if self._run else 0

    @property
    def total(self) -> int:
        return self._run.state[2] if self._run else 0

    def update(self, answers: Sequence[str | None]) -> None:
        """Answers as they now stand: drawn with, where complete with other finds than those
        being drawn; trained on, where complete with the same (the training under way for
        others stops). Otherwise the work under way goes on (the person may be trading two
        cards' names, or naming a find back)."""
        given = chosen(answers)
        if given is None:
            return
        if self._run is not None and set(given) == set(self._run.drawn):
            self._run.want(given)
            return
        self.pause()
        run = self._run = _Run(given)
        faces = {card: self._face(k) for k, card in given.items()}
        run.thread = threading.Thread(target=self._work, args=(run, faces), daemon=True,
                                      name="deck-learning-ahead")  # fmt: skip
        _LIVE.add(run)
        run.thread.start()

    def _work(self, run: _Run, faces: dict[str, np.ndarray]) -> None:
        # Below the window's thread (Linux: a thread's own priority; its processes' too).
        with contextlib.suppress(AttributeError, OSError):
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 10)

        def scene(done: int, total: int) -> None:
            if run.stop.is_set():
                raise _Stopped
            run.state = ("scenes", done, total)

        try:
            run.samples = self._draw(faces, scene)
            while self._train is not None:
                with run.wake:
                    if run.stop.is_set():
                        return
                    want = run.wanted
                    if run.trained is not None and run.trained[0] == want:
                        run.wake.wait(1.0)  # until the answers change, or a stop
                        continue
                    run.training_for, run.state = want, ("training", 0, 0)

                def step(done: int, total: int, want=want) -> None:
                    if run.stop.is_set() or run.wanted != want:  # (a change seen a step late
                        raise _Stopped  # costs a step)
                    run.state = ("training", done, total)

                try:
                    deck = self._train(relabel(run.samples, run.drawn, want), step)
                except _Stopped:
                    continue
                with run.wake:
                    run.trained = (want, deck)
                    run.wake.notify_all()
        except _Stopped:
            return
        except Exception as exc:  # said here; the learning does it again, and says it there
            run.failed = exc
            traceback.print_exc()
        finally:
            _LIVE.discard(run)

    def pause(self) -> None:
        """Stop the work under way (what it did is dropped); wait for it to end where it is
        drawing, since then it uses the detector (training, it stops on its own)."""
        run, self._run = self._run, None
        if run is not None:
            run.halt()
            if run.state[0] == "scenes" and run.thread is not None:
                run.thread.join()

    def close(self) -> None:
        """The window closed: the work under way stops at its next step, not waited for."""
        run, self._run = self._run, None
        if run is not None:
            run.halt()

    def take(self, answers: Sequence[str | None], progress: Callable[[str, int, int], None]):
        """What was done ahead for ``answers``: ``("deck", deck)`` trained on them (waited for,
        where it is under way), or ``("samples", samples)``, the scenes drawn with the same finds
        labelled with them (where nothing is trained ahead, or the training failed), or None
        (nothing drawn with these finds, or the drawing failed: the learning does it all).
        ``progress(stage, done, total)`` as the work goes on; what it raises stops the work and
        is raised."""
        given, run = chosen(answers), self._run
        if given is None or run is None or set(given) != set(run.drawn):
            self.pause()
            return None
        run.want(given)
        shown = None
        try:
            while True:
                trained = run.trained is not None and run.trained[0] == given
                alive = run.thread.is_alive() and run.failed is None
                stage, done, total = run.state
                ours = stage == "scenes" or run.training_for == given  # (not others' steps)
                if ours and total and (stage, done) != shown:
                    shown = (stage, done)
                    progress(stage, done, total)
                if trained or not alive or (self._train is None and run.samples is not None):
                    break
                with run.wake:
                    run.wake.wait(0.2)
        except BaseException:
            self.pause()
            raise
        self.close()  # (done with: its thread ends on its own)
        if run.trained is not None and run.trained[0] == given:
            return "deck", run.trained[1]
        if run.samples is None:
            return None
        return "samples", relabel(run.samples, run.drawn, given)
