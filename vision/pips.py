"""How many pips a straightened face shows: the rank of a number card, whatever its indices.

A 7, 8, 9 or 10 prints as many pips of its suit between its index columns, in every design we
draw, while the generic readers, on indices they do not know (the Arabic ١٠ ٩ ٨ ٧), read one
for another. Counted on a face straightened while learning a deck (``hakam.vision.decks``,
``FACE_W`` x ``FACE_H``): the ink whatever its colour (``hakam.vision.index_glyphs.ink``) in
the middle of the face's width, its blobs of about one size. Tuning design's spreads
(seeds 0, 7, 8, 11-15): 7, 8, 9, 10 counted right 28, 30, 31 and 29 times of 32; court cards and
aces never counted 7 to 10 (docs/experiments/2026-12-05-learning-a-deck.md).
"""

from __future__ import annotations

import cv2
import numpy as np

from hakam.engine.cards import CARD_NAMES
from hakam.vision import index_glyphs

COLUMNS = (0.2, 0.8)  # the share of the face's width between its index columns
ROWS = (0.05, 0.95)
INK = 0.4  # ink this dark or darker (of half the paper's brightness)
LEAST = 30  # pixels: smaller blobs are specks
ONE_SIZE = (0.5, 1.6)  # a pip is this many times the pips' median size
COUNTS = (7, 8, 9, 10)  # the counts that name a rank
WEIGHT = (
    5.0  # a read's cards of the rank counted, times this (tuning spreads: 29 -> 23 corrections)
)


def count(face: np.ndarray) -> int | None:
    """The pips of a straightened BGR face (None: no ink there)."""
    h, w = face.shape[:2]
    middle = face[int(ROWS[0] * h) : int(ROWS[1] * h), int(COLUMNS[0] * w) : int(COLUMNS[1] * w)]
    if middle.size == 0:
        return None
    inked = index_glyphs.ink(middle) > INK
    n, _, stats, _ = cv2.connectedComponentsWithStats(inked.astype(np.uint8))
    areas = stats[1:n, cv2.CC_STAT_AREA]
    areas = areas[areas >= LEAST]
    if not len(areas):
        return None
    typical = float(np.median(areas[areas >= 0.3 * areas.max()]))
    return int(((areas >= ONE_SIZE[0] * typical) & (areas <= ONE_SIZE[1] * typical)).sum())


def weigh(read: np.ndarray, face: np.ndarray) -> np.ndarray:
    """``read`` (the 32 cards, then no card) with the cards of the rank the pips count weighed
    ``WEIGHT`` times, summing to 1; as it is where the count names no rank."""
    pips = count(face)
    if pips not in COUNTS:
        return read
    p = np.asarray(read, np.float64).copy()
    for k, card in enumerate(CARD_NAMES):
        if card[:-1] == str(pips):
            p[k] *= WEIGHT
    return (p / p.sum()).astype(np.float32)
