"""The 32 cards of a deck laid out face up, for a table to teach Hakam its deck (issue 51).

``learning_spread`` renders the 32 Baloot cards of one design in rows on a table, as a table would
lay them for ``hakam deck learn``: apart (or barely touching), each turned a little, under a
camera, light and cloth drawn from ``seed``. The same seed gives the same picture. Scenes to
score a learned deck come from other seeds (``hakam data synth``), so the light and the angle
the deck is learnt under are not those it is read under.
"""

from __future__ import annotations

import math

import numpy as np

from hakam.datasets.generator import N_TEXTURES
from hakam.datasets.scene import CARD_H_MM, CARD_W_MM, Camera, CardPlacement, Label, Renderer
from hakam.datasets.textures import make_texture
from hakam.engine.cards import CARD_NAMES

COLUMNS, ROWS = 8, 4


def spread_layout(rng: np.random.Generator) -> list[CardPlacement]:
    """The 32 cards in a shuffled order, ``COLUMNS`` x ``ROWS``, a few millimetres apart, each
    turned by a few degrees and nudged."""
    order = [CARD_NAMES[i] for i in rng.permutation(len(CARD_NAMES))]
    gap_x, gap_y = CARD_W_MM + rng.uniform(4, 14), CARD_H_MM + rng.uniform(4, 14)
    out = []
    for k, name in enumerate(order):
        col, row = k % COLUMNS, k // COLUMNS
        x = (col - (COLUMNS - 1) / 2) * gap_x + rng.normal(0, 1.5)
        y = (row - (ROWS - 1) / 2) * gap_y + rng.normal(0, 1.5)
        out.append(CardPlacement(name, x, y, float(rng.normal(0, 4)), tag="spread"))
    return out


def spread_camera(rng: np.random.Generator, w: int, h: int) -> Camera:
    """Above the spread, tilted up to 25 degrees, the spread's long side along the frame's, the
    whole spread in the frame with a margin."""
    fov = math.radians(rng.uniform(55, 70))
    focal = (w / 2) / math.tan(fov / 2)
    span_w, span_h = COLUMNS * (CARD_W_MM + 14), ROWS * (CARD_H_MM + 14)
    fill = rng.uniform(0.72, 0.85)  # of the frame the spread may fill
    tilt = float(rng.uniform(0, 25))
    stretch = 1 / math.cos(math.radians(tilt))  # the far side comes nearer the edge
    distance = focal * max(span_w / (fill * w), stretch * span_h / (fill * h))
    return Camera(w, h, focal, tilt, float(rng.choice([0.0, 180.0]) + rng.normal(0, 3)),
                  distance, (float(rng.normal(0, 8)), float(rng.normal(0, 8))))  # fmt: skip


def labelled_names(boxes, labels: list[Label], min_iou: float = 0.5) -> list[str | None]:
    """A person's answers for the cards found in a rendered spread, played by its labels: each
    box named as the card it lies on (overlap ``min_iou`` or more), else None (no card)."""
    from hakam.vision.detections import box_iou

    if not len(boxes) or not labels:
        return [None] * len(boxes)
    overlap = box_iou(np.asarray(boxes), np.asarray([lb.box for lb in labels]))
    best = overlap.argmax(1)
    return [labels[j].card if overlap[i, j] >= min_iou else None for i, j in enumerate(best)]


def learning_spread(
    images: dict[str, np.ndarray], seed: int, size: tuple[int, int] = (1920, 1080)
) -> tuple[np.ndarray, list[Label]]:
    """The spread of a deck's cards (``images``: card name -> BGRA raster, as
    ``art.load_deck_images``) as the camera sees it (BGR), and each card's label (box, corners)."""
    rng = np.random.default_rng([seed, 51])
    w, h = size
    cam = spread_camera(rng, w, h)
    cards = spread_layout(rng)
    texture = make_texture(seed * 1000 + int(rng.integers(N_TEXTURES)))[1]
    img, labels = Renderer(images).render(rng, cam, texture, cards, [])
    return img, labels
