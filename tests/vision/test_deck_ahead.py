"""A deck learnt while the person looks at the cards found (``LearningAhead``)."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from hakam.engine.cards import CARD_NAMES
from hakam.gui.deck_answers import LearningProgress, LearningStopped
from hakam.vision.deck_ahead import LearningAhead, chosen, relabel
from hakam.vision.decks import Samples
from hakam.vision.reader import OTHER

STEPS = 5


class Drawing:
    """A stand-in for ``learning_samples``: each scene a step, held at ``gate`` until let go;
    its samples a patch of each face (filled with its find's number) labelled with the card it
    was drawn as, and one box on no card."""

    def __init__(self) -> None:
        self.gate = threading.Event()
        self.calls: list[dict] = []
        self.fail = False
        self.free = 0  # steps drawn without waiting for the gate

    def __call__(self, faces: dict, tick) -> Samples:
        self.calls.append(faces)
        for k in range(1, STEPS + 1):
            while k > self.free and not self.gate.wait(0.01):  # held: a stop is heard
                tick(k - 1, STEPS)
            tick(k, STEPS)
        if self.fail:
            raise RuntimeError("no card was found")
        cards = [*faces, None]
        patches = np.stack([faces[c] if c else np.full((2, 2, 3), 255, np.uint8) for c in cards])
        classes = np.array([OTHER if c is None else CARD_NAMES.index(c) for c in cards])
        return Samples(patches, classes, np.zeros((len(cards), OTHER + 1)), classes.copy())


def faces(n: int) -> list[np.ndarray]:
    return [np.full((2, 2, 3), k, np.uint8) for k in range(n)]


def test_answers_are_drawn_with_only_when_they_are_the_32_cards_once_each():
    assert chosen([*CARD_NAMES, None]) == dict(enumerate(CARD_NAMES))
    assert chosen([*CARD_NAMES[:31], None]) is None  # one missing
    assert chosen([*CARD_NAMES[:31], "7C"]) is None  # one twice


def test_scenes_drawn_with_the_proposals_are_labelled_with_the_answers():
    shown = faces(33)
    draw = Drawing()
    ahead = LearningAhead(shown.__getitem__, draw)
    proposals = [*CARD_NAMES[:30], CARD_NAMES[31], CARD_NAMES[30], None]  # two traded
    ahead.update([*CARD_NAMES[:31], None, None])  # not the 32: nothing drawn
    assert draw.calls == []
    ahead.update(proposals)
    ahead.update([*proposals[:30], CARD_NAMES[30], CARD_NAMES[31], None])  # the same finds
    told: list[tuple[int, int]] = []
    draw.gate.set()
    how, samples = ahead.take([*CARD_NAMES, None], lambda stage, k, n: told.append((stage, k, n)))
    assert how == "samples"  # nothing trained ahead here
    assert len(draw.calls) == 1 and told[-1] == ("scenes", STEPS, STEPS)
    # Each patch is labelled with its find's answer, not the card it was drawn as.
    for patch, label, read in zip(samples.patches, samples.classes, samples.read_classes,
                                  strict=True):  # fmt: skip
        find = int(patch[0, 0, 0])
        assert label == read == (OTHER if find == 255 else find)


def test_other_finds_draw_again_and_answers_for_other_finds_take_nothing():
    shown = faces(33)
    draw = Drawing()
    ahead = LearningAhead(shown.__getitem__, draw)
    ahead.update([*CARD_NAMES, None])
    ahead.update([*CARD_NAMES[:31], None, "AS"])  # the last card is find 33's now
    for _ in range(500):  # the second drawing's thread under way
        if len(draw.calls) == 2:
            break
        time.sleep(0.01)
    assert len(draw.calls) == 2 and draw.calls[1]["AS"] is shown[32]
    draw.gate.set()
    assert ahead.take([*CARD_NAMES, None], lambda stage, k, n: None) is None  # drawn with find 33
    ahead.update([*CARD_NAMES, None])
    assert ahead.take([*CARD_NAMES, None], lambda stage, k, n: None) is not None
    with pytest.raises(ValueError, match="other finds"):
        samples = draw(dict(zip(CARD_NAMES, shown[:32], strict=True)), lambda k, n: None)
        relabel(samples, dict(enumerate(CARD_NAMES)), {k + 1: c for k, c in enumerate(CARD_NAMES)})


def test_a_stop_while_waiting_stops_the_drawing_and_a_failure_draws_again():
    shown = faces(32)
    draw = Drawing()
    ahead = LearningAhead(shown.__getitem__, draw)
    draw.free = 2  # then held at the third scene
    ahead.update(list(CARD_NAMES))
    run = ahead._run
    progress = LearningProgress()
    progress.stop()  # the person stopped the learning: said at the next step shown
    with pytest.raises(LearningStopped):
        ahead.take(list(CARD_NAMES), progress.update)
    assert not run.thread.is_alive() and 0 < run.state[1] < STEPS  # stopped, not drawn out
    draw.gate.set()
    draw.fail = True
    ahead.update(list(CARD_NAMES))
    assert ahead.take(list(CARD_NAMES), lambda stage, k, n: None) is None  # the learning draws


def test_pause_or_close_ends_the_drawing_under_way():
    shown = faces(32)
    draw = Drawing()
    ahead = LearningAhead(shown.__getitem__, draw)
    ahead.update(list(CARD_NAMES))
    run = ahead._run
    ahead.pause()  # drawing: waited for (it uses the detector)
    assert not run.thread.is_alive() and run.samples is None
    assert ahead.take(list(CARD_NAMES), lambda stage, k, n: None) is None  # dropped
    ahead.update(list(CARD_NAMES))  # the window closed: stopped, not waited for
    run = ahead._run
    ahead.close()
    run.thread.join(5)
    assert not run.thread.is_alive() and run.samples is None


def test_the_pace_counts_from_the_first_step_seen():
    now = [0.0]
    progress = LearningProgress(lambda: now[0])
    progress.update("scenes", 1500, 2000)  # scenes drawn ahead: the pace from here
    now[0] = 10.0
    progress.update("scenes", 1600, 2000)
    assert progress.left == pytest.approx(40.0)


class Training:
    """A stand-in for the deck's training: a step at a time, held at ``gate`` until let go;
    the deck it learns is the classes it was given."""

    def __init__(self) -> None:
        self.gate = threading.Event()
        self.calls: list[np.ndarray] = []
        self.fail = False

    def __call__(self, samples: Samples, tick) -> dict:
        self.calls.append(samples.classes.copy())
        for k in range(1, STEPS + 1):
            while not self.gate.wait(0.01):
                tick(k - 1, STEPS)
            tick(k, STEPS)
        if self.fail:
            raise RuntimeError("training failed")
        return {"classes": samples.classes.copy()}


def labels(answers) -> list[int]:
    """The classes a deck drawn by ``Drawing`` from these answers is taught (and OTHER)."""
    return [*(CARD_NAMES.index(a) for a in answers if a), OTHER]


def test_the_deck_is_trained_ahead_on_the_answers_as_they_stand():
    shown = faces(32)
    draw, train = Drawing(), Training()
    draw.gate.set()
    ahead = LearningAhead(shown.__getitem__, draw, train)
    proposals = [*CARD_NAMES[:30], CARD_NAMES[31], CARD_NAMES[30]]  # two traded
    ahead.update(proposals)
    for _ in range(500):  # drawn, and training on the proposals
        if train.calls:
            break
        time.sleep(0.01)
    ahead.update(list(CARD_NAMES))  # the person trades them back: trained again on these
    train.gate.set()
    told: list[tuple] = []
    how, deck = ahead.take(list(CARD_NAMES), lambda stage, k, n: told.append((stage, k, n)))
    assert how == "deck" and list(deck["classes"]) == labels(CARD_NAMES)
    assert list(train.calls[0]) == labels(proposals) and list(train.calls[-1]) == labels(CARD_NAMES)
    assert told[-1] == ("training", STEPS, STEPS)


def test_answers_taken_that_were_not_trained_on_are_trained_on_then():
    shown = faces(32)
    draw, train = Drawing(), Training()
    draw.gate.set()
    train.gate.set()
    ahead = LearningAhead(shown.__getitem__, draw, train)
    ahead.update(list(CARD_NAMES))
    traded = [*CARD_NAMES[:30], CARD_NAMES[31], CARD_NAMES[30]]
    how, deck = ahead.take(traded, lambda stage, k, n: None)  # clicked before it was told
    assert how == "deck" and list(deck["classes"]) == labels(traded)
    # A training that fails: the scenes drawn are taken, the learning trains and says why.
    train.fail = True
    ahead.update(list(CARD_NAMES))
    how, samples = ahead.take(list(CARD_NAMES), lambda stage, k, n: None)
    assert how == "samples" and list(samples.classes) == labels(CARD_NAMES)


def test_a_run_trained_and_waiting_for_answers_ends_when_stopped():
    """Trained, the work waits for the answers to change: a stop always ends it (a stop between
    its look at the flag and its wait must not be lost)."""
    shown = faces(32)
    for _ in range(20):
        draw, train = Drawing(), Training()
        draw.gate.set()
        train.gate.set()
        ahead = LearningAhead(shown.__getitem__, draw, train)
        ahead.update(list(CARD_NAMES))
        run = ahead._run
        for _ in range(500):
            if run.trained is not None:
                break
            time.sleep(0.01)
        assert run.trained is not None
        ahead.pause()
        run.thread.join(3)
        assert not run.thread.is_alive()
