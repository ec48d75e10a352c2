"""Every card of a deck laid out face up (``hakam deck learn``): the finder's boxes of a spread.

A spread holds 32 cards in one frame, each smaller than the cards the finder learnt, and of a
design the finder may never have seen. Three looks, each adding only boxes on no card found yet:

1. ``TILES`` overlapping tiles, in which each card is as large as in a scene of play;
2. the whole frame;
3. a closer look over the cards' extent (grown by a window each way): windows
   ``CLOSER_SCALE`` card lengths wide, half a card length apart (so that some window has each
   card near its middle, at about a third of its width), searched at the low threshold
   ``CLOSER_CONF``; a box is kept where it is card-sized (``CARD_SIZE``, against the median of
   the cards found) and lies on no card found; of two boxes on one card (``SAME_CARD_IOU``; one
   window's box may hold part of it), the one nearer a card's size.

The closer look costs about 2 s a 1920x1080 spread (a finder pass a window) and finds the
cards the first two looks pass over: court cards of an unseen design, dark faces on dark cloth
(``benchmarks/spreads.py``; figures in benchmarks/README.md).
"""

from __future__ import annotations

import numpy as np

from hakam.vision.detections import box_iou

TILES = (3, 2)  # columns and rows of tiles a spread's frame is also searched in
TILE_OVERLAP = 0.3
TILE_CONF = 0.25
MATCH_IOU = 0.5  # two boxes overlapping this much are one card
CLOSER_SCALE = 2.0  # a closer look's window, in card lengths (a card's longer side)
CLOSER_STEP = 0.5  # windows apart, in card lengths
CLOSER_CONF = 0.05  # the finder's threshold in a closer look
CLOSER_MIN_FOUND = 4  # cards found before a closer look (their size sets the windows')
CARD_SIZE = (0.5, 1.8)  # a closer look's box area, against the median card found
ON_FOUND_IOU = 0.3  # a closer look's box overlapping a card found this much is that card
SAME_CARD_IOU = MATCH_IOU  # two closer-look boxes on one card (a box across two cards: < 1/3)


def _cut(box: np.ndarray, window: tuple[int, int, int, int], w: int, h: int) -> bool:
    """Whether ``box`` touches an edge of ``window`` that is not the frame's: the card goes on
    outside it (and lies whole in another window)."""
    x0, y0, x1, y1 = window
    return bool((x0 > 0 and box[0] <= x0 + 2) or (x1 < w and box[2] >= x1 - 2)
                or (y0 > 0 and box[1] <= y0 + 2) or (y1 < h and box[3] >= y1 - 2))  # fmt: skip


def _search(frame: np.ndarray, finder, window: tuple[int, int, int, int], conf: float):
    """The finder's boxes in ``window`` (frame pixels), less those the window cuts."""
    h, w = frame.shape[:2]
    x0, y0, x1, y1 = window
    for b in finder.find(frame[y0:y1, x0:x1], conf):
        b = np.asarray(b[:4], np.float32) + np.float32([x0, y0, x0, y0])
        if not _cut(b, window, w, h):
            yield b


def _merge(first: list[np.ndarray], then: list[np.ndarray]) -> list[np.ndarray]:
    kept: list[np.ndarray] = []
    for b in [*first, *then]:
        if all(float(box_iou(b, k)[0, 0]) < MATCH_IOU for k in kept):
            kept.append(b)
    return kept


def spread_boxes(frame: np.ndarray, detector, closer: bool = True) -> np.ndarray:
    """The boxes of the cards a spread's frame shows (N x 4), by the three looks (``closer``
    False: the first two only)."""
    h, w = frame.shape[:2]
    cols, rows = TILES
    tw = w / (cols - (cols - 1) * TILE_OVERLAP)
    th = h / (rows - (rows - 1) * TILE_OVERLAP)
    tiled = []
    for i in range(cols):
        for j in range(rows):
            x0, y0 = int(i * tw * (1 - TILE_OVERLAP)), int(j * th * (1 - TILE_OVERLAP))
            tile = (x0, y0, min(int(x0 + tw), w), min(int(y0 + th), h))
            tiled += _search(frame, detector.finder, tile, TILE_CONF)
    whole = [np.asarray(b[:4], np.float32) for b in detector.boxes(frame)]
    # The tiles' boxes first (larger first), then the whole frame's where no tile found one.
    tiled.sort(key=lambda b: -_area(b))
    found = _merge(tiled, whole)
    more = closer_look(frame, found, detector.finder) if closer else []
    return np.asarray(found + more, np.float32).reshape(-1, 4)


def closer_look(frame: np.ndarray, found: list[np.ndarray], finder) -> list[np.ndarray]:
    """Card-sized boxes on no card of ``found``, from windows over the cards' extent (grown by
    a window each way: a row or column of cards the first looks missed whole lies inside)."""
    if len(found) < CLOSER_MIN_FOUND:
        return []
    boxes = np.asarray(found, np.float32)
    h, w = frame.shape[:2]
    sides = np.stack([boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]], 1)
    area = float(np.median(sides[:, 0] * sides[:, 1]))
    length = float(np.median(sides.max(1)))
    size, step = CLOSER_SCALE * length, CLOSER_STEP * length
    x0, y0 = max(0.0, boxes[:, 0].min() - size), max(0.0, boxes[:, 1].min() - size)
    x1, y1 = min(w, boxes[:, 2].max() + size), min(h, boxes[:, 3].max() + size)
    more: list[np.ndarray] = []
    for wy in np.arange(y0, max(y0 + 1, y1 - size + step), step):
        for wx in np.arange(x0, max(x0 + 1, x1 - size + step), step):
            window = (int(wx), int(wy), int(min(w, wx + size)), int(min(h, wy + size)))
            for b in _search(frame, finder, window, CLOSER_CONF):
                if not CARD_SIZE[0] * area <= _area(b) <= CARD_SIZE[1] * area:
                    continue
                if box_iou(b, boxes).max() >= ON_FOUND_IOU:
                    continue
                # Two windows' boxes on one card: the one nearer a card's size is kept.
                same = [k for k, m in enumerate(more) if box_iou(b, m)[0, 0] >= SAME_CARD_IOU]
                off = abs(np.log(_area(b) / area))
                if all(off < abs(np.log(_area(more[k]) / area)) for k in same):
                    more = [m for k, m in enumerate(more) if k not in same] + [b]
    return more


def _area(b: np.ndarray) -> float:
    return float((b[2] - b[0]) * (b[3] - b[1]))
