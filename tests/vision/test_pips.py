"""A face's pips name a number card's rank (``hakam.vision.pips``)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from hakam.datasets import arabic_deck
from hakam.engine.cards import CARD_NAMES
from hakam.vision import decks, pips
from hakam.vision.reader import OTHER

from .conftest import arabic_face, needs_font


@needs_font
@pytest.mark.parametrize("style", [arabic_deck.HOLDOUT, arabic_deck.TUNING])
def test_the_pips_of_a_number_card_are_its_rank_and_no_other_card_counts_seven_to_ten(style):
    for card in CARD_NAMES:
        counted = pips.count(arabic_face(card, style))
        if card[:-1] in ("7", "8", "9", "10"):
            assert counted == int(card[:-1]), card
        else:
            assert counted not in pips.COUNTS, card


def test_a_read_is_weighed_toward_the_rank_counted_only():
    read = np.full(OTHER + 1, 0.01, np.float32)
    read[CARD_NAMES.index("8H")] = 0.5
    read[CARD_NAMES.index("9H")] = 0.3
    read /= read.sum()
    nine = np.full((decks.FACE_H, decks.FACE_W, 3), 235, np.uint8)
    for k in range(9):  # nine pips between the index columns
        cv2.circle(nine, (90 + 70 * (k % 2), 50 + 30 * k), 9, (30, 30, 200), -1)
    assert pips.count(nine) == 9
    weighed = pips.weigh(read, nine)
    assert weighed.argmax() == CARD_NAMES.index("9H") and weighed.sum() == pytest.approx(1.0)
    blank = np.full((decks.FACE_H, decks.FACE_W, 3), 235, np.uint8)
    assert pips.count(blank) is None and pips.weigh(read, blank) is read
    assert pips.count(np.zeros((0, 0, 3), np.uint8)) is None
