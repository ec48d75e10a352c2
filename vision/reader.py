"""Two-stage card reading: a card finder gives boxes, a classifier reads each card's crop.

The one-stage detector finds almost every card of a deck design it never saw, but names it wrong
more often than right (measured on the hold-out decks: 98% of cards found, 36% of them named
right). Reading a card is easier from its own crop, taken from the full-resolution frame and
scaled to a fixed size, by a classifier trained on many designs and on real photos: the corner
index and the pip layout are the same in every standard deck.

The reader's input is ``card_crop``: the finder's box, widened by a margin and stretched to a
square (a card's own pixels fill the crop, whatever its rotation). Training crops are cut by the
same function, from jittered true boxes, so training and the live pipeline see one thing.
Output: one probability per Baloot card (``hakam.engine.cards.DECK`` order) and a last class, "not a
Baloot card" (ranks 2-6, card backs, hands, cups).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from hakam.engine.cards import CARD_NAMES
from hakam.vision.deck_check import DeckCheck
from hakam.vision.detections import Detections

OTHER = len(CARD_NAMES)  # the class "not a Baloot card face"
READER_CLASSES = len(CARD_NAMES) + 1
CROP_SIZE = 112
CROP_MARGIN = 0.06
# A box whose reads lie this much on cards already collected is one of them still in sight.
RULE_OUT_SHARE = 0.5
TURNS = (1, 2, 4)  # views per crop the reader may average (``CardReader.read``)


def check_turns(turns: int) -> None:
    """Refuse a number of reader views other than ``TURNS``."""
    if turns not in TURNS:
        raise ValueError(f"turns: {turns} (one of {', '.join(map(str, TURNS))})")


def check_mix(mix: float, have_corners: bool) -> None:
    """Refuse a corner-reader weight outside 0..1, or above 0 with no corner reader."""
    if not 0 <= mix <= 1:
        raise ValueError(f"corner reader weight: {mix} (0 to 1)")
    if mix > 0 and not have_corners:
        raise ValueError(f"corner reader weight {mix} but no corner reader")


def weighted_product(a: np.ndarray, b: np.ndarray, w: float) -> np.ndarray:
    """``a`` and ``b`` (rows of probabilities) combined as a^(1-w) b^w, rows summing to one.

    A product and not an average: two readers that each doubt a card rule it out, and a card
    one of them is sure is not there stays unlikely (measured on the tuning set: J/Q/K read
    right 84% with the product, 82% with the average; the other cards 93% and 91%).
    """
    log = (1 - w) * np.log(np.clip(a, 1e-9, None)) + w * np.log(np.clip(b, 1e-9, None))
    log -= log.max(1, keepdims=True)
    out = np.exp(log)
    return out / out.sum(1, keepdims=True)


def card_crop(
    image: np.ndarray,
    box: np.ndarray | list[float],
    size: int = CROP_SIZE,
    margin: float = CROP_MARGIN,
) -> np.ndarray:
    """The box widened by ``margin`` of its sides, cut from ``image`` and resized to a square.

    Parts outside the frame are filled by replicating its border, as a camera's edge would be.
    """
    x1, y1, x2, y2 = (float(v) for v in box)
    bw, bh = max(x2 - x1, 1.0), max(y2 - y1, 1.0)
    x1, x2 = x1 - margin * bw, x2 + margin * bw
    y1, y2 = y1 - margin * bh, y2 + margin * bh
    h, w = image.shape[:2]
    ix1, iy1 = int(np.floor(x1)), int(np.floor(y1))
    ix2, iy2 = max(int(np.ceil(x2)), ix1 + 1), max(int(np.ceil(y2)), iy1 + 1)
    cx1, cy1, cx2, cy2 = max(ix1, 0), max(iy1, 0), min(ix2, w), min(iy2, h)
    if cx2 <= cx1 or cy2 <= cy1:
        return np.zeros((size, size, 3), np.uint8)
    part = image[cy1:cy2, cx1:cx2]
    if (cx1, cy1, cx2, cy2) != (ix1, iy1, ix2, iy2):
        part = cv2.copyMakeBorder(
            part, cy1 - iy1, iy2 - cy2, cx1 - ix1, ix2 - cx2, cv2.BORDER_REPLICATE
        )
    shrink = part.shape[0] > size or part.shape[1] > size
    return cv2.resize(
        part, (size, size), interpolation=cv2.INTER_AREA if shrink else cv2.INTER_LINEAR
    )


def crops_tensor(crops: Sequence[np.ndarray] | np.ndarray) -> np.ndarray:
    """BGR uint8 crops to the reader's input: N x 3 x S x S RGB float32 in 0..1."""
    arr = np.stack(crops)[..., ::-1].astype(np.float32) / 255.0
    return np.ascontiguousarray(arr.transpose(0, 3, 1, 2))


def softmax(logits: np.ndarray) -> np.ndarray:
    z = logits - logits.max(1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(1, keepdims=True)


def assign_cards(probs: np.ndarray, min_prob: float) -> list[tuple[int, int, float]]:
    """Name each box at most once and each card at most once (the deck holds each card once).

    Greedy on the joint table of probabilities: the surest (box, card) pair first. Returns
    (box index, card id, probability) for pairs at or above ``min_prob``; a box whose best
    remaining card is "not a Baloot card" stays unnamed.
    """
    p = probs.copy()
    out: list[tuple[int, int, float]] = []
    while p.size:
        i, c = np.unravel_index(int(p.argmax()), p.shape)
        if p[i, c] < min_prob:
            break
        if c != OTHER:
            out.append((int(i), int(c), float(p[i, c])))
            p[:, c] = -1
        p[i, :] = -1
    return out


def rule_out(
    probs: np.ndarray, cards: Collection[int], max_share: float = RULE_OUT_SHARE
) -> tuple[np.ndarray, np.ndarray]:
    """Read each box knowing that ``cards`` cannot be in sight (collected with their trick).

    Their share of each row goes to the cards still possible, in proportion (the reader's
    belief given what the deal proves): a paris king read 45% as a king already played and 35%
    as itself is then surely itself. A row mostly on ruled-out cards (share at least
    ``max_share``) is a collected card still in sight: the box is dropped, not renamed.
    Returns (rows kept, their probabilities).
    """
    idx = np.fromiter(cards, np.int64)
    if not len(idx) or not len(probs):
        return np.ones(len(probs), bool), probs
    gone = probs[:, idx].sum(1)
    keep = gone < max_share
    p = probs[keep].copy()
    p[:, idx] = 0.0
    return keep, p / np.clip(p.sum(1, keepdims=True), 1e-9, None)


def name_boxes(
    boxes: np.ndarray, probs: np.ndarray, min_prob: float, ruled_out: Collection[int] = ()
) -> Detections:
    """The reads of a frame's boxes: ``rule_out`` the impossible cards, then ``assign_cards``.
    Each read keeps its box's belief before ruling out (``Detections.probs``)."""
    if not len(boxes):
        return Detections.empty()
    raw = np.asarray(probs, np.float32).reshape(len(boxes), -1)[:, : len(CARD_NAMES)]
    keep, probs = rule_out(probs, ruled_out)
    boxes, raw = boxes[keep], raw[keep]
    named = assign_cards(probs, min_prob)
    if not named:
        return Detections.empty()
    idx = [i for i, _, _ in named]
    return Detections(
        boxes[idx].astype(np.float32),
        np.array([p for _, _, p in named], np.float32),
        np.array([c for _, c, _ in named], np.int64),
        probs=raw[idx],
    )


def collected_in_sight(
    boxes: np.ndarray, probs: np.ndarray, ruled_out: Collection[int],
    max_share: float = RULE_OUT_SHARE,
) -> Detections:  # fmt: skip
    """The boxes ``rule_out`` drops (read mostly as a ruled-out card), named as that card with
    its probability: a collected card still in sight, or a card misread earlier in the deal
    and now really played (``hakam.vision.pipeline`` weighs the two)."""
    idx = np.fromiter(ruled_out, np.int64)
    if not len(idx) or not len(boxes):
        return Detections.empty()
    drop = ~rule_out(probs, idx, max_share)[0]
    if not drop.any():
        return Detections.empty()
    raw = np.asarray(probs, np.float32).reshape(len(boxes), -1)[:, : len(CARD_NAMES)]
    best = idx[raw[drop][:, idx].argmax(1)]
    return Detections(boxes[drop].astype(np.float32), raw[drop, best], best, probs=raw[drop])


class CardReader:
    """The crop classifier on OpenVINO or ONNX Runtime (never torch at run time)."""

    def __init__(
        self, path: str | Path, backend: str = "openvino", threads: int = 0,
        transform: Callable[[Any], None] | None = None,
    ) -> None:  # fmt: skip
        """``transform``: changes the OpenVINO model before it is compiled (a learned deck's
        index network: ``hakam.vision.fine_tune.IndexTail.patch``)."""
        from hakam.vision.backends import onnx_session, openvino_model

        self.path = Path(path)
        self.backend, self.threads = backend, threads
        if backend == "onnx":
            if transform is not None:
                raise ValueError("a model changed before compiling is read by OpenVINO only")
            self._sess = onnx_session(self.path, threads)
            self._input = self._sess.get_inputs()[0].name
            side = self._sess.get_inputs()[0].shape[2]
        else:
            self._compiled = openvino_model(self.path, threads, bgr_u8=True, transform=transform)
            dim = self._compiled.input(0).get_partial_shape()[1]  # N, H, W, C: the crops as cut
            side = dim.get_length() if dim.is_static else None
        self.size = side if isinstance(side, int) else CROP_SIZE  # the side it was trained at

    def logits(self, crops: Sequence[np.ndarray] | np.ndarray) -> np.ndarray:
        """The network's raw outputs for BGR uint8 crops (a list, or N x H x W x 3). OpenVINO
        takes them as cut and converts inside, where it is cheaper than ``crops_tensor`` in
        numpy (which took a sixth of a busy frame's time to detect); ONNX Runtime takes the
        tensor."""
        if self.backend == "onnx":
            return np.asarray(self._sess.run(None, {self._input: crops_tensor(crops)})[0])
        return np.asarray(self._compiled(np.ascontiguousarray(np.stack(crops)))[0])

    def read(self, crops: list[np.ndarray], turns: int = 1) -> np.ndarray:
        """Probabilities, one row per crop, ``READER_CLASSES`` columns.

        ``turns`` 2 or 4 also reads each crop turned by a half or by each quarter turn and
        averages: the reader learnt cards at every turn, and an index can read better at one.
        """
        check_turns(turns)
        if not crops:
            return np.zeros((0, READER_CLASSES), np.float32)
        if turns == 1:
            return softmax(self.logits(crops))
        batch = np.stack(crops)
        views = [np.rot90(batch, k * 4 // turns, axes=(1, 2)) for k in range(turns)]
        probs = softmax(self.logits(np.concatenate(views)))
        return probs.reshape(turns, len(crops), -1).mean(0)


def checked_reads(chosen, others: dict, image: np.ndarray, boxes: np.ndarray):
    """``boxes`` read by the ``chosen`` corner reader and by each of ``others`` (corner readers
    with its outline network, by name), as the deck check compares them
    (``hakam.vision.deck_check``): the chosen one's probabilities, and the others' by name.
    The outlines are drawn once, those of trimmed boxes too (``CornerReader.read``)."""
    quads, trimmed = chosen.quads(image, boxes), {}
    mine = chosen.read(image, boxes, quads, trimmed)
    return mine, {name: r.read(image, boxes, quads, trimmed) for name, r in others.items()}


class TwoStageDetector:
    """Finder boxes (class ignored) named by the reader; same ``detect`` as the one-stage model.

    ``corners`` (a ``hakam.vision.corners.CornerReader``) also reads each card by its straightened
    corner indices; ``mix`` is the weight of that read in the two reads' ``weighted_product``
    (0: the whole-card reader alone, 1: the corners alone). ``margin``: the share of a box's
    sides added around it in the reader's crop (``card_crop``; the strip reader's is wider).
    ``deck``: the deck the table taught whose own index network reads the corners, and whose
    ``Calibration`` the whole-card reader's reads go through, set by ``with_deck``
    (``hakam.vision.decks.LearnedDeck``); None: the shipped one, the reads as they are.
    ``deck_check`` (``hakam.vision.deck_check.DeckCheck``), set by ``with_deck`` too, compares
    the reads with each other reader's (the shipped index network, other learnt decks) on the
    frames ``DeckCheck.due`` names: whether the cards read more like another deck.
    """

    name = "two-stage"

    def __init__(
        self,
        finder,
        reader: CardReader,
        find_conf: float = 0.05,
        min_prob: float = 0.05,
        turns: int = 1,
        corners=None,
        mix: float = 0.0,
        margin: float = CROP_MARGIN,
    ) -> None:
        check_turns(turns)
        check_mix(mix, corners is not None)
        self.finder, self.reader = finder, reader
        self.find_conf, self.min_prob, self.turns = find_conf, min_prob, turns
        self.corners, self.mix, self.margin = corners, mix, margin
        self.deck = None
        self.deck_check = None
        self._shipped_corners = None  # with a deck: the shipped index network's corner reader
        self._others: dict = {}  # the readers the check compares with, by deck name (None: shipped)
        self._frames = 0  # frames with cards read while checking
        self.in_sight = Detections.empty()

    def with_deck(self, deck, others: Sequence = ()) -> TwoStageDetector:
        """The same networks, the corners read by the learned deck ``deck``'s own index network
        (``hakam.vision.decks.LearnedDeck``; None: the shipped one), checked against the other
        readers: the shipped index network where a deck is chosen, and the learned decks
        ``others`` (``deck.check_reader`` refuses, in one line, a reader a deck cannot join: no
        corner reader, other corner networks, ONNX Runtime; ``deck.for_reader`` leaves out a
        calibration of another whole-card reader)."""
        chosen = None if deck is None else deck.name
        if deck is not None:
            deck = deck.for_reader(self)  # a calibration of another whole-card reader left out
        for d in others:
            d.check_reader(self)
        shipped = self._shipped_corners or self.corners
        corners = shipped if deck is None else shipped.with_index(deck.index_reader(shipped.index))
        readers = {None: shipped} if deck is not None else {}
        for d in others:
            if d.name != chosen and d.name not in readers:
                readers[d.name] = shipped.with_index(d.index_reader(shipped.index))
        mine = TwoStageDetector(self.finder, self.reader, self.find_conf, self.min_prob,
                                self.turns, corners, self.mix, self.margin)  # fmt: skip
        mine.deck, mine._shipped_corners, mine._others = deck, shipped, readers
        mine.deck_check = DeckCheck(chosen, list(readers)) if readers else None
        return mine

    def boxes(self, image: np.ndarray) -> np.ndarray:
        return self.finder.find(image, self.find_conf)

    def whole_crop(self, image: np.ndarray, box) -> np.ndarray:
        """The box's crop as the whole-card reader reads it."""
        return card_crop(image, box, self.reader.size, self.margin)

    def read_whole(self, crops: list[np.ndarray]) -> np.ndarray:
        """The whole-card reader's probabilities of ``whole_crop`` crops, as read (no deck's
        calibration: a deck's learning fits it on these)."""
        return self.reader.read(crops, self.turns)

    def read_boxes(self, image: np.ndarray, boxes: np.ndarray) -> np.ndarray:
        """Probabilities (``READER_CLASSES`` columns) for the cards in ``boxes``."""
        probs = None
        if self.mix < 1:
            probs = self.read_whole([self.whole_crop(image, b) for b in boxes])
            calibration = getattr(self.deck, "calibration", None)
            if calibration is not None:
                probs = calibration(probs)
        if self.corners is not None and self.mix > 0:
            boxes = np.asarray(boxes)
            due = [] if self.deck_check is None else self.deck_check.due(self._frames)
            if self.deck_check is not None:
                self._frames += 1
            if due:
                # The other readers due (``DeckCheck.due``) read the same corners.
                others = {other: self._others[other] for other in due}
                by_corners, theirs = checked_reads(self.corners, others, image, boxes)
                for other, read in theirs.items():
                    self.deck_check.update(by_corners, other, read)
            else:
                by_corners = self.corners.read(image, boxes)
            probs = by_corners if probs is None else weighted_product(probs, by_corners, self.mix)
        return probs

    def read(self, image: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The finder's boxes and each box's probabilities (``READER_CLASSES`` columns)."""
        boxes = self.boxes(image)
        if not len(boxes):
            return boxes, np.zeros((0, READER_CLASSES), np.float32)
        return boxes, self.read_boxes(image, boxes)

    def detect(self, image: np.ndarray, ruled_out: Collection[int] = ()) -> Detections:
        """The frame's cards; ``ruled_out`` cards cannot be in sight (``rule_out``). The boxes
        dropped as ruled-out cards in sight are kept in ``in_sight`` until the next call."""
        boxes, probs = self.read(image)
        self.in_sight = collected_in_sight(boxes, probs, ruled_out)
        return name_boxes(boxes, probs, self.min_prob, ruled_out)
