"""The oracle: a detector that reads the renderer's labels, for tests and tuning only.

``LabelDetector`` gives frame k's labels on the k-th call, optionally with seeded faults
(``ReadNoise``: reads dropped, misread, jittered); ``unsure_labels`` makes chosen cards seen but
never read surely, as a reader that cannot name a design's court cards. Never a default.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from hakam.engine.cards import CARD_NAMES
from hakam.vision.detections import Detections
from hakam.vision.detector import drop_ruled_out
from hakam.vision.yolo import NUM_CLASSES


@dataclass(frozen=True)
class ReadNoise:
    """Detector faults to simulate on top of the oracle: how the tracker copes is measurable."""

    drop: float = 0.0  # share of reads lost (flicker)
    misread: float = 0.0  # share of reads given another card's class
    jitter_px: float = 0.0  # box corner noise (sigma, pixels)


# A renderer label seen by its body only, its corner index hidden: a weak read
# (``Detections.from_labels``), as of a court card of a design the reader never saw.
UNSURE_LABEL = {"visible": 0.4, "index_visible": 0.0}


def unsure_labels(
    frames: Sequence[Sequence[dict]], cards: Collection[str], read_as: dict[str, str] | None = None
) -> list[list[dict]]:
    """Renderer labels per frame with ``cards`` seen but never read surely (``UNSURE_LABEL``),
    each taken for ``read_as[card]`` where given (a reader unsure and wrong). Tests and tuning
    only, with ``LabelDetector``."""
    read_as = read_as or {}
    return [
        [{**lb, **UNSURE_LABEL, "card": read_as.get(lb["card"], lb["card"])}
         if lb["card"] in cards else lb for lb in f]
        for f in frames
    ]  # fmt: skip


class LabelDetector:
    """Oracle: the renderer's labels of frame k on the k-th call (from ``start``: a run that
    goes on after a restart). Tests and tuning only.

    With ``noise`` it drops, misreads and jitters reads (seeded), like a real detector would.
    """

    name = "oracle"

    def __init__(
        self,
        labels_per_frame: Sequence[Sequence[Any]],
        noise: ReadNoise | None = None,
        seed: int = 0,
        start: int = 0,
    ) -> None:
        self.labels = labels_per_frame
        self.frame = start
        self.noise = noise
        self.rng = np.random.default_rng(seed)

    def detect(self, image: np.ndarray, ruled_out: Collection[int] = ()) -> Detections:
        labels = self.labels[self.frame] if self.frame < len(self.labels) else []
        self.frame += 1
        d = Detections.from_labels(labels)
        n = self.noise
        if n is None or not len(d):
            return drop_ruled_out(d, ruled_out)
        keep = self.rng.random(len(d)) >= n.drop
        d = d[keep]
        wrong = self.rng.random(len(d)) < n.misread
        if wrong.any():
            shift = self.rng.integers(1, NUM_CLASSES, wrong.sum())
            d.class_id[wrong] = (d.class_id[wrong] + shift) % NUM_CLASSES
            d.confidence[wrong] = self.rng.uniform(0.5, 0.8, wrong.sum()).astype(np.float32)
        if n.jitter_px:
            d.xyxy += self.rng.normal(0, n.jitter_px, d.xyxy.shape).astype(np.float32)
        # Ruled out last: a simulated misread must not name a collected card either, and the
        # seeded faults fall on the same reads whatever the deal has collected.
        return drop_ruled_out(d, ruled_out).best_per_card()


class Misreading(LabelDetector):
    """The oracle with the reader's beliefs: each read sure of its card (0.95), except the
    cards of ``misread``, read with the beliefs given (a reader sure and wrong, or doubting),
    in frames ``since`` to ``until``. Tests only."""

    def __init__(
        self, frames: Sequence[Sequence[Any]], misread: dict[str, dict[str, float]],
        until: int | None = None, since: int = 0,
    ) -> None:  # fmt: skip
        super().__init__(frames)
        self.misread = misread
        self.since, self.until = since, until  # misread only in the frames from since to until

    def detect(self, image: np.ndarray, ruled_out: Collection[int] = ()) -> Detections:
        now = self.since <= self.frame and (self.until is None or self.frame < self.until)
        misread = self.misread if now else {}
        d = super().detect(image, ruled_out)
        d.probs = np.zeros((len(d), len(CARD_NAMES)), np.float32)
        for i, c in enumerate(d.class_id.tolist()):
            belief = misread.get(CARD_NAMES[c], {CARD_NAMES[c]: 0.95})
            for name, p in belief.items():
                d.probs[i, CARD_NAMES.index(name)] = p
            d.class_id[i] = int(d.probs[i].argmax())
            d.confidence[i] = d.probs[i].max() if c != d.class_id[i] else d.confidence[i]
        return d
