"""Shared helpers for the vision tests: scripted detection streams."""

from __future__ import annotations

import numpy as np

from hakam.engine.cards import Card
from hakam.vision.detections import Detections


def dets(*reads: tuple[str, tuple[float, float], float]) -> Detections:
    """Detections from (card, centre, confidence); every card box is 60 x 84 px."""
    if not reads:
        return Detections.empty()
    boxes = [(x - 30, y - 42, x + 30, y + 42) for _, (x, y), _ in reads]
    return Detections(
        np.array(boxes), np.array([c for *_, c in reads]), [Card.parse(n).index for n, *_ in reads]
    )
