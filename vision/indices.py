"""The finder of corner indices: cards of a fan read by the strip of them that shows.

A card in a fan held or spread shows little more than the strip with its corner index, and a
whole-card box of that strip holds mostly its neighbours, so neither reader of the two-stage
detector (``hakam.vision.reader``, ``hakam.vision.corners``) can tell which card the box means. A
second
YOLO (``hakam-indices``), trained on synthetic scenes boxed index by index (``hakam data synth
--boxes indices``), finds and names each index that shows. ``WithIndices`` adds the cards it
names to the two-stage detector's reads, one read per card.

Photos only (``hakam detect``, ``hakam model eval``): at the table a played card lies apart and
shows whole, and a second network per frame would cost the live pipeline its frame rate.
"""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path

import numpy as np

from hakam.vision.detections import Detections

INDICES_ONNX = "hakam-indices.onnx"
INDICES_OPENVINO = "hakam-indices_openvino"
# The finder locates indices far better than it names them (validation mAP50 0.78 boxes of any
# class against 0.27 by card, 2026-12-02): its boxes can be named by a small classifier of the
# crop instead (``hakam-strip``, a ``hakam.vision.reader.CardReader`` of STRIP_SIZE crops).
STRIP_ONNX = "hakam-strip.onnx"
STRIP_OPENVINO = "hakam-strip_openvino"
STRIP_SIZE = 40  # side of the strip reader's input crop
STRIP_MARGIN = 0.2  # an index box widened by this share of its sides: the finder's boxes are off


def indices_path(backend: str, models_dir: Path) -> Path:
    """The finder of corner indices for ``backend`` (OpenVINO or ONNX Runtime)."""
    return models_dir / (INDICES_ONNX if backend == "onnx" else INDICES_OPENVINO)


def strip_path(backend: str, models_dir: Path) -> Path:
    """The strip reader, which names the finder's index boxes, for ``backend``."""
    return models_dir / (STRIP_ONNX if backend == "onnx" else STRIP_OPENVINO)


def add_index_reads(cards: Detections, indices: Detections, min_conf: float) -> Detections:
    """The cards read whole and the cards named by an index at ``min_conf`` or more, each card
    once: a card read both ways keeps its whole-card box with the higher confidence; a card
    only its index names (a strip) gets the index's box."""
    extra = indices[indices.confidence >= min_conf] if len(indices) else indices
    if not len(extra):
        return cards
    extra = extra.best_per_card()
    conf = cards.confidence.astype(np.float32).copy()
    new = np.ones(len(extra), bool)
    for k, (card, c) in enumerate(zip(extra.class_id, extra.confidence, strict=True)):
        same = np.flatnonzero(cards.class_id == card)
        if len(same):
            conf[same] = np.maximum(conf[same], c)
            new[k] = False
    kept = Detections(cards.xyxy, conf, cards.class_id) if len(cards) else cards
    return Detections.merge([kept, extra[new]])


class WithIndices:
    """A detector of whole cards plus the finder of corner indices, as one ``detect``."""

    def __init__(self, cards, indices, min_conf: float) -> None:
        if not 0 < min_conf <= 1:
            raise ValueError(f"index threshold {min_conf}: a confidence in (0, 1]")
        self.cards, self.indices, self.min_conf = cards, indices, min_conf
        self.name = f"{getattr(cards, 'name', 'cards')}+indices"

    def detect(self, image: np.ndarray, ruled_out: Collection[int] = ()) -> Detections:
        return add_index_reads(
            self.cards.detect(image, ruled_out),
            self.indices.detect(image, ruled_out),
            self.min_conf,
        )
