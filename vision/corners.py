"""Reading a card by its corner indices: the card's outline from its box, then its four corners
straightened.

The whole-card reader (``hakam.vision.reader``) learns the court figures of the designs it was
trained on and names an unseen design's king by its colours. The corner index (rank letter and
suit pip) is drawn alike in every standard deck, but in a card lying at any angle it is a few
pixels the whole-card reader does not learn to use. Here the card is straightened first:

1. the *outline* network sees the finder's box (``card_crop``) and gives the card's four
   corners in the crop (printed top-left first, clockwise; a card is the same turned by half a
   turn, so it may as well start from the bottom-right);
2. ``corner_patches`` cuts the four corners of the straightened card from the full-resolution
   frame, each turned upright, into one small image: the index is always at the same place and
   size, and nothing of the figure is left to learn instead of it;
3. the *index* network names the card (32 cards + "not a Baloot card") from that image.

Both networks run on OpenVINO or ONNX Runtime; training is in ``hakam.training.corners``.
"""

from __future__ import annotations

import copy
from pathlib import Path

import cv2
import numpy as np

from hakam.vision.reader import CROP_MARGIN, READER_CLASSES, card_crop, softmax

BALOOT_CARDS = READER_CLASSES - 1  # the reader's last class: "not a Baloot card"

OUTLINE_SIZE = 64  # side of the outline network's input crop
# Share of the card's width and height that holds a corner index and its pip, with room for an
# outline a little off (``hakam.datasets.art.INDEX_CORNER`` is the index alone).
INDEX_REGION = (0.27, 0.33)
PATCH_W, PATCH_H = 32, 48  # one straightened corner in the index network's input
UNIT = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]], np.float32)  # tl tr br bl
MAX_PASSES = 3  # outline passes a model card may ask for (``CornerReader.passes``)
MIN_BOX = 4.0  # a box narrower or lower than this many pixels is not drawn again
MAX_TRIM = 0.4  # the most of a box's side ``CornerReader.trim`` may cut away
TRIMS = 5  # boxes an outline is drawn from with a trim: the box, and each side cut in turn
# With a trim, a card read from its box as found at least this surely is not drawn again: a
# sure read is straightened right, and a frame's cards cost one read each, not five.
TRIM_BELOW = 0.9


def crop_frame(box, margin: float = CROP_MARGIN) -> tuple[float, float, float, float]:
    """The frame rectangle that ``card_crop`` stretches to its square (x1, y1, x2, y2)."""
    x1, y1, x2, y2 = (float(v) for v in box)
    bw, bh = max(x2 - x1, 1.0), max(y2 - y1, 1.0)
    return x1 - margin * bw, y1 - margin * bh, x2 + margin * bw, y2 + margin * bh


def quad_to_crop(quad: np.ndarray, box, margin: float = CROP_MARGIN) -> np.ndarray:
    """A card's corners (4 x 2 frame pixels) in the unit coordinates of its box's crop."""
    x1, y1, x2, y2 = crop_frame(box, margin)
    return (np.asarray(quad, np.float32) - [x1, y1]) / [x2 - x1, y2 - y1]


def crop_to_quad(unit: np.ndarray, box, margin: float = CROP_MARGIN) -> np.ndarray:
    """The inverse of ``quad_to_crop``: crop unit coordinates back to frame pixels."""
    x1, y1, x2, y2 = crop_frame(box, margin)
    return np.asarray(unit, np.float32).reshape(4, 2) * [x2 - x1, y2 - y1] + [x1, y1]


def _region(x0: float, y0: float, turned: bool) -> np.ndarray:
    """Card unit coordinates of one corner region's patch corners (tl tr br bl of the patch);
    ``turned``: the region is read upside down (the card's lower corners)."""
    rw, rh = INDEX_REGION
    pts = np.array([[x0, y0], [x0 + rw, y0], [x0 + rw, y0 + rh], [x0, y0 + rh]], np.float32)
    return pts[[2, 3, 0, 1]] if turned else pts


# Top row: the top-left and top-right corners as printed; bottom row: the bottom-right and
# bottom-left turned upright. So the left column holds the corners where most designs print
# the index, the right one where a few others do (KDE's oxygen decks), all the same way up.
_REGIONS = (
    _region(0.0, 0.0, False),
    _region(1 - INDEX_REGION[0], 0.0, False),
    _region(1 - INDEX_REGION[0], 1 - INDEX_REGION[1], True),
    _region(0.0, 1 - INDEX_REGION[1], True),
)
_PATCH = np.array([[0, 0], [PATCH_W, 0], [PATCH_W, PATCH_H], [0, PATCH_H]], np.float32)


def corner_patches(image: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """The card's four corners straightened and turned upright, as one (2*PATCH_H, 2*PATCH_W)
    BGR image: [top-left, top-right] over [bottom-right, bottom-left] turned by half a turn.

    ``quad``: the card's corners in frame pixels, printed top-left first, clockwise. The same
    quad started from its bottom-right gives the two rows swapped.
    """
    card = cv2.getPerspectiveTransform(UNIT, np.asarray(quad, np.float32))
    tiles = []
    for region in _REGIONS:
        src = cv2.perspectiveTransform(region[None], card)[0]
        m = cv2.getPerspectiveTransform(src.astype(np.float32), _PATCH)
        tiles.append(
            cv2.warpPerspective(
                image, m, (PATCH_W, PATCH_H), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE
            )
        )
    return np.vstack([np.hstack(tiles[:2]), np.hstack(tiles[2:])])


def check_passes(passes: int) -> None:
    if not 1 <= passes <= MAX_PASSES:
        raise ValueError(f"outline passes: {passes} (1 to {MAX_PASSES})")


def check_trim(trim: float) -> None:
    if not 0 <= trim <= MAX_TRIM:
        raise ValueError(f"outline trim: {trim} (0 to {MAX_TRIM})")


def check_trim_below(below: float) -> None:
    if not 0 < below <= 1:
        raise ValueError(f"outline trim below: {below} (above 0, at most 1)")


def trimmed_boxes(box, trim: float) -> np.ndarray:
    """The box (x1, y1, x2, y2), then the box with its left, top, right and bottom side in turn
    moved in by ``trim`` of its width or height (``TRIMS`` x 4)."""
    x1, y1, x2, y2 = (float(v) for v in box)
    dx, dy = trim * (x2 - x1), trim * (y2 - y1)
    return np.array(
        [[x1, y1, x2, y2], [x1 + dx, y1, x2, y2], [x1, y1 + dy, x2, y2],
         [x1, y1, x2 - dx, y2], [x1, y1, x2, y2 - dy]],
        np.float32,
    )  # fmt: skip


def surest_reads(probs: np.ndarray) -> np.ndarray:
    """Of each card's reads (N x K x classes: one per box its outline was drawn from), the one
    surest of a Baloot card: an outline drawn wrong straightens no index, and its read is
    spread over many cards or says "not a Baloot card"."""
    k = probs[:, :, :BALOOT_CARDS].max(axis=2).argmax(axis=1)
    return probs[np.arange(len(probs)), k]


def quad_boxes(quads: np.ndarray, shape: tuple[int, ...], boxes: np.ndarray) -> np.ndarray:
    """Each outline's box clipped to the frame, as the outline network's training boxes are
    (a card's whole face, not the part that shows); where that leaves less than ``MIN_BOX``
    pixels a side, the box it was drawn from."""
    h, w = shape[:2]
    lo = np.clip(quads.min(axis=1), 0, [w, h])
    hi = np.clip(quads.max(axis=1), 0, [w, h])
    out = np.concatenate([lo, hi], axis=1).astype(np.float32)
    small = ((hi - lo) < MIN_BOX).any(axis=1)
    out[small] = np.asarray(boxes, np.float32)[small]
    return out


class CornerReader:
    """The outline and index networks on OpenVINO or ONNX Runtime: boxes in, probabilities out
    (``READER_CLASSES`` columns, as ``CardReader.read``). Without ``index`` it only draws
    outlines (``quads``), as for cutting training samples.

    ``passes``: how many times the outline is drawn. The finder's box of a card in a fan or
    under another is often far from the card's own box; the outline drawn from it gives a box
    nearer the card's, from which the outline network, trained on the card's own boxes moved
    a little, draws it again.

    ``trim``: the outline is also drawn from the box with each side in turn moved in by that
    share (``trimmed_boxes``), and the surest of the five reads kept (``surest_reads``), for
    each card not read ``trim_below`` (default ``TRIM_BELOW``) surely from the box as found. A
    finder's box that holds a hand, or a neighbour's edge, on one side leads the outline
    network to a card of another shape or angle; the box without that side does not."""

    def __init__(
        self,
        outline: str | Path,
        index: str | Path | None = None,
        backend: str = "openvino",
        threads: int = 0,
        passes: int = 1,
        trim: float = 0.0,
        trim_below: float = TRIM_BELOW,
    ) -> None:
        from hakam.vision.reader import CardReader

        check_passes(passes)
        check_trim(trim)
        check_trim_below(trim_below)
        self.outline = CardReader(outline, backend, threads)
        self.index = None if index is None else CardReader(index, backend, threads)
        self.passes = passes
        self.trim, self.trim_below = trim, trim_below

    def with_index(self, index) -> CornerReader:
        """A copy reading the corners with another index network (a ``CardReader``: a
        learned deck's own, ``hakam.vision.decks``); the outline network shared."""
        out = copy.copy(self)
        out.index = index
        return out

    def quads(self, image: np.ndarray, boxes: np.ndarray) -> np.ndarray:
        """Each box's card corners in frame pixels (N x 4 x 2)."""
        if not len(boxes):
            return np.zeros((0, 4, 2), np.float32)
        boxes = np.asarray(boxes, np.float32)
        quads = self._draw(image, boxes)
        for _ in range(self.passes - 1):
            boxes = quad_boxes(quads, image.shape, boxes)
            quads = self._draw(image, boxes)
        return quads

    def _draw(self, image: np.ndarray, boxes: np.ndarray) -> np.ndarray:
        crops = [card_crop(image, b, OUTLINE_SIZE) for b in boxes]
        unit = self.outline.logits(crops)
        return np.stack([crop_to_quad(u, b) for u, b in zip(unit, boxes, strict=True)])

    def read(
        self,
        image: np.ndarray,
        boxes: np.ndarray,
        quads: np.ndarray | None = None,
        trimmed: dict[int, np.ndarray] | None = None,
    ) -> np.ndarray:
        """Each box's probabilities by its corners; ``quads``: the boxes' corners drawn already
        by this outline network (``quads``), for a second index network to read. ``trimmed``:
        the corners drawn from box k's trimmed boxes, by k, for the readers of the same boxes
        with the same outline network to share: those missing are drawn and added."""
        if self.index is None:
            raise ValueError("this corner reader has no index network")
        boxes = np.asarray(boxes, np.float32).reshape(-1, 4)
        if not len(boxes):
            return np.zeros((0, READER_CLASSES), np.float32)
        probs = self._read_quads(image, self.quads(image, boxes) if quads is None else quads)
        if not self.trim:
            return probs
        unsure = np.flatnonzero(probs[:, :BALOOT_CARDS].max(axis=1) < self.trim_below)
        if not len(unsure):
            return probs
        trimmed = {} if trimmed is None else trimmed
        todo = [int(k) for k in unsure if int(k) not in trimmed]
        if todo:
            tried = np.concatenate([trimmed_boxes(b, self.trim)[1:] for b in boxes[todo]])
            drawn = self.quads(image, tried).reshape(len(todo), TRIMS - 1, 4, 2)
            trimmed.update(zip(todo, drawn, strict=True))
        again = self._read_quads(image, np.concatenate([trimmed[int(k)] for k in unsure]))
        again = again.reshape(len(unsure), TRIMS - 1, -1)
        probs[unsure] = surest_reads(np.concatenate([probs[unsure, None], again], axis=1))
        return probs

    def _read_quads(self, image: np.ndarray, quads: np.ndarray) -> np.ndarray:
        return softmax(self.index.logits([corner_patches(image, q) for q in quads]))
