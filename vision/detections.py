"""``Detections``: the one type every detector back-end returns and every tool consumes.

Same idea as the ``supervision`` library: parallel numpy arrays (``xyxy``, ``confidence``,
``class_id`` and an optional ``seat``), cheap boolean/index selection, and adapters from each
back-end, so the tracker and seat tools never care where a box came from.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from hakam.engine.cards import CARD_NAMES

_CLASS_OF = {name: i for i, name in enumerate(CARD_NAMES)}


@dataclass
class Detections:
    """N card reads of one frame: boxes in pixels (x1, y1, x2, y2), confidence, card class id.

    ``class_id`` is the ``hakam.engine.cards.DECK`` index; ``seat`` (when set) is the seat each card
    was attributed to, -1 where unknown. ``probs`` (when the back-end has them, shape (N, 32)) is
    each read's belief over the 32 cards before anything was ruled out: what the deal's later
    evidence weighs when two reads claim one card.
    """

    xyxy: np.ndarray
    confidence: np.ndarray
    class_id: np.ndarray
    seat: np.ndarray | None = None
    probs: np.ndarray | None = None

    def __post_init__(self) -> None:
        self.xyxy = np.asarray(self.xyxy, np.float32).reshape(-1, 4)
        n = len(self.xyxy)
        self.confidence = np.asarray(self.confidence, np.float32).reshape(n)
        self.class_id = np.asarray(self.class_id, np.int64).reshape(n)
        if self.seat is not None:
            self.seat = np.asarray(self.seat, np.int64).reshape(n)
        if self.probs is not None:
            self.probs = np.asarray(self.probs, np.float32).reshape(n, len(CARD_NAMES))

    @classmethod
    def empty(cls) -> Detections:
        return cls(np.zeros((0, 4)), np.zeros(0), np.zeros(0, np.int64))

    def __len__(self) -> int:
        return len(self.xyxy)

    def __getitem__(self, index: Any) -> Detections:
        """Select by boolean mask, index array or slice (always returns ``Detections``)."""
        if isinstance(index, int | np.integer):
            index = [int(index)]
        return Detections(
            self.xyxy[index],
            self.confidence[index],
            self.class_id[index],
            None if self.seat is None else self.seat[index],
            None if self.probs is None else self.probs[index],
        )

    def __iter__(self) -> Iterator[tuple[np.ndarray, float, int]]:
        for i in range(len(self)):
            yield self.xyxy[i], float(self.confidence[i]), int(self.class_id[i])

    @property
    def centres(self) -> np.ndarray:
        """Box centres, shape (N, 2)."""
        return (self.xyxy[:, :2] + self.xyxy[:, 2:]) / 2

    @property
    def names(self) -> list[str]:
        return [CARD_NAMES[int(c)] for c in self.class_id]

    def best_per_card(self) -> Detections:
        """Keep only the most confident read of each card: the deck holds every card once."""
        if len(self) < 2:
            return self
        order = np.lexsort((-self.confidence, self.class_id))
        cls = self.class_id[order]
        first = np.ones(len(order), bool)
        first[1:] = cls[1:] != cls[:-1]
        keep = order[first]
        return self[np.sort(keep)]

    @classmethod
    def merge(cls, items: Iterable[Detections]) -> Detections:
        items = [d for d in items if len(d)]
        if not items:
            return cls.empty()
        seat = probs = None
        if all(d.seat is not None for d in items):
            seat = np.concatenate([d.seat for d in items])  # type: ignore[misc]
        if all(d.probs is not None for d in items):
            probs = np.concatenate([d.probs for d in items])  # type: ignore[misc]
        return cls(
            np.concatenate([d.xyxy for d in items]),
            np.concatenate([d.confidence for d in items]),
            np.concatenate([d.class_id for d in items]),
            seat,
            probs,
        )

    # --- adapters -------------------------------------------------------------------------

    @classmethod
    def from_labels(
        cls, labels: Iterable[Any], confidence: Mapping[str, float] | None = None
    ) -> Detections:
        """From renderer labels (``hakam.datasets.scene.Label`` or their JSON dicts).

        The confidence stands in for a detector's: a read corner index is a sure read, a card
        seen only by its body is a weak one (see ``LabelDetector``).
        """
        conf = confidence or {}
        boxes, confs, ids = [], [], []
        for lb in labels:
            get = lb.get if isinstance(lb, dict) else lambda k, _lb=lb: getattr(_lb, k)
            name = get("card")
            if name not in _CLASS_OF:
                continue
            boxes.append(get("box"))
            idx = float(get("index_visible"))
            vis = float(get("visible"))
            sure = conf.get("sure", 0.9)
            weak = conf.get("weak", 0.3)
            confs.append(sure if idx >= 0.5 or vis >= 0.6 else weak)
            ids.append(_CLASS_OF[name])
        if not boxes:
            return cls.empty()
        return cls(np.array(boxes), np.array(confs), np.array(ids))

    @classmethod
    def from_ultralytics(cls, result: Any) -> Detections:
        """From one ``ultralytics`` ``Results`` object (its ``boxes``)."""
        boxes = result.boxes
        return cls(
            np.asarray(boxes.xyxy.cpu().numpy()),
            np.asarray(boxes.conf.cpu().numpy()),
            np.asarray(boxes.cls.cpu().numpy()).astype(np.int64),
        )

    def to_json(self) -> list[dict[str, Any]]:
        """``[{"card", "conf", "box", "seat"?}]``: what the GUI's live view draws."""
        out = []
        for i, (box, conf, cls) in enumerate(self):
            item = {
                "card": CARD_NAMES[cls],
                "conf": round(conf, 3),
                "box": [round(float(v), 1) for v in box],
            }
            if self.seat is not None:
                item["seat"] = int(self.seat[i])
            out.append(item)
        return out


def box_iou(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """IoU matrix of two box arrays (N, 4) x (M, 4)."""
    a = np.asarray(a, np.float32).reshape(-1, 4)
    b = np.asarray(b, np.float32).reshape(-1, 4)
    lt = np.maximum(a[:, None, :2], b[None, :, :2])
    rb = np.minimum(a[:, None, 2:], b[None, :, 2:])
    wh = np.clip(rb - lt, 0, None)
    inter = wh[..., 0] * wh[..., 1]
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    union = area_a[:, None] + area_b[None, :] - inter
    return np.where(union > 0, inter / np.maximum(union, 1e-9), 0.0)
