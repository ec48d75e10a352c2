"""A deck's calibration of the whole-card reader's reads (``hakam.vision.calibration``)."""

from __future__ import annotations

import numpy as np
import pytest

from hakam.engine.cards import CARD_NAMES
from hakam.vision.calibration import SHARE, Calibration
from hakam.vision.reader import OTHER, READER_CLASSES

JD, AD, SEVEN_D = (CARD_NAMES.index(c) for c in ("JD", "AD", "7D"))


def reads_as(card: int, sure: float, other: float = 0.0) -> np.ndarray:
    """A read sure of ``card``, ``other`` on "not a Baloot card", the rest spread."""
    row = np.full(READER_CLASSES, (1 - sure - other) / (READER_CLASSES - 1 - (other > 0)))
    row[card] = sure
    if other:
        row[OTHER] = other
    return row.astype(np.float32)


def misread_deck(rng: np.random.Generator, n: int = 2000):
    """A deck whose jack of diamonds the reader reads as the ace, and the ace as the seven; the
    other cards as themselves; and boxes on no card read as none."""
    wrong = {JD: AD, AD: SEVEN_D}
    classes = rng.integers(0, READER_CLASSES, n)
    probs = np.stack([reads_as(wrong.get(int(c), int(c)), rng.uniform(0.5, 0.95))
                      for c in classes])  # fmt: skip
    return probs, classes


def test_a_reader_that_misreads_a_deck_is_read_as_the_deck_shows():
    calibration = Calibration.fit(*misread_deck(np.random.default_rng(0)))
    read = calibration(np.stack([reads_as(AD, 0.8), reads_as(SEVEN_D, 0.8), reads_as(9, 0.8)]))
    assert read[0].argmax() == JD and read[2].argmax() == 9
    # Read as the seven: the seven or the ace on this deck (as read: the ace 0.006), the pull
    # towards "as read" keeping the seven first; the corners will tell.
    assert read[1, AD] > 0.15 and read[1, SEVEN_D] > 0.5
    assert np.allclose(read.sum(1), 1, atol=1e-5)


def test_not_a_baloot_card_is_kept_as_read():
    # The learning scenes never show ranks 2-6 or backs: the calibration cannot learn they are
    # cards, whatever its weights say.
    calibration = Calibration.fit(*misread_deck(np.random.default_rng(1)))
    rng = np.random.default_rng(2)
    calibration.weights += rng.normal(0, 3, calibration.weights.shape).astype(np.float32)
    calibration.bias[OTHER] = -50.0
    probs = np.stack([reads_as(5, 0.02, other=0.97), reads_as(JD, 0.3, other=0.5)])
    read = calibration(probs)
    assert np.allclose(read[:, OTHER], probs[:, OTHER])
    assert np.allclose(read.sum(1), 1, atol=1e-5)
    # What the reader read keeps its share of the read as it was: it is never ruled out.
    assert (read[:, :OTHER] >= (1 - SHARE) * probs[:, :OTHER] - 1e-6).all()
    assert calibration(np.zeros((0, READER_CLASSES), np.float32)).shape == (0, READER_CLASSES)


def test_reads_of_exact_zeros_or_sure_of_no_card_stay_whole_rows():
    # A reader's softmax underflows to exact zeros; a calibration may lean hard on "no card".
    calibration = Calibration.fit(*misread_deck(np.random.default_rng(4)))
    calibration.bias[OTHER] = 120.0
    zeros = np.zeros((2, READER_CLASSES), np.float32)
    zeros[0, JD], zeros[1, OTHER] = 1.0, 1.0
    read = calibration(zeros)
    assert np.isfinite(read).all() and np.allclose(read.sum(1), 1, atol=1e-5)
    assert read[0, JD] >= 1 - SHARE and read[1, OTHER] == 1.0


def test_an_identity_calibration_changes_no_read():
    same = Calibration(
        np.eye(READER_CLASSES, dtype=np.float32), np.zeros(READER_CLASSES, np.float32)
    )
    probs = np.stack([reads_as(3, 0.6, other=0.1), reads_as(OTHER, 0.9)])
    assert np.allclose(same(probs), probs, atol=1e-5)


def test_a_calibration_is_kept_as_arrays_and_refused_if_cut():
    calibration = Calibration.fit(*misread_deck(np.random.default_rng(3), 300), steps=20)
    again = Calibration.from_arrays(calibration.arrays())
    assert np.array_equal(again.weights, calibration.weights)
    assert np.array_equal(again.bias, calibration.bias)
    with pytest.raises(ValueError, match="calibration of shapes"):
        Calibration.from_arrays({"weights": calibration.weights[:5], "bias": calibration.bias})
    broken = calibration.weights.copy()
    broken[3, 4] = np.nan
    with pytest.raises(ValueError, match="not numbers"):
        Calibration.from_arrays({"weights": broken, "bias": calibration.bias})
