"""Shared helpers for the vision tests: scripted detection streams; the Arabic-index designs'
straightened faces."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from hakam.datasets import arabic_deck
from hakam.engine.cards import Card
from hakam.vision import decks
from hakam.vision.detections import Detections

# The Arabic-index designs are drawn with typefaces the set-up installs.
needs_font = pytest.mark.skipif(
    not (arabic_deck.available() and arabic_deck.available(arabic_deck.TUNING)),
    reason="fonts-dejavu-core missing",
)


def arabic_face(card: str, style) -> np.ndarray:
    """``card`` of an Arabic-index design (``style``) as a deck's face is straightened."""
    img = arabic_deck.draw_card(card, style)[..., :3]
    return cv2.resize(img, (decks.FACE_W, decks.FACE_H), interpolation=cv2.INTER_AREA)


def dets(*reads: tuple[str, tuple[float, float], float]) -> Detections:
    """Detections from (card, centre, confidence); every card box is 60 x 84 px."""
    if not reads:
        return Detections.empty()
    boxes = [(x - 30, y - 42, x + 30, y + 42) for _, (x, y), _ in reads]
    return Detections(
        np.array(boxes), np.array([c for *_, c in reads]), [Card.parse(n).index for n, *_ in reads]
    )
