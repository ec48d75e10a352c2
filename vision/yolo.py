"""The YOLO export's tensors: a frame letterboxed in, card boxes out.

The finder is a YOLO exported by ultralytics: input 1x3xHxW RGB in 0..1 (letterboxed, or scaled
to a stride-sized rectangle for a model with a free input size), output ``(1, 4 + 32, N)``: box
centre, width and height at the input size, then one score per card class (``DECK`` order).
Every back-end of ``hakam.vision.detector`` shares this decoding: undo the letterbox, NMS within
each class, and one box per card per frame.
"""

from __future__ import annotations

import math
from collections.abc import Collection
from dataclasses import dataclass

import cv2
import numpy as np

from hakam.engine.cards import CARD_NAMES
from hakam.vision.backends import DetectorError
from hakam.vision.detections import Detections

NUM_CLASSES = len(CARD_NAMES)


@dataclass(frozen=True)
class Letterbox:
    """How a frame was fitted into the square model input: scale, then padding."""

    scale: float
    pad_x: float
    pad_y: float
    width: int
    height: int


def letterbox(
    image: np.ndarray, size: int | tuple[int, int], colour: int = 114
) -> tuple[np.ndarray, Letterbox]:
    """Resize keeping the aspect ratio, pad to ``size`` x ``size`` or to ``(height, width)`` of a
    rectangular model (ultralytics' way)."""
    sh, sw = (size, size) if isinstance(size, int) else size
    h, w = image.shape[:2]
    scale = min(sw / w, sh / h)
    nw, nh = round(w * scale), round(h * scale)
    resized = cv2.resize(image, (nw, nh), interpolation=cv2.INTER_LINEAR)
    px, py = (sw - nw) / 2, (sh - nh) / 2
    top, left = round(py - 0.1), round(px - 0.1)
    out = cv2.copyMakeBorder(
        resized, top, sh - nh - top, left, sw - nw - left, cv2.BORDER_CONSTANT,
        value=(colour, colour, colour),
    )  # fmt: skip
    return out, Letterbox(scale, left, top, w, h)


def to_tensor(image: np.ndarray) -> np.ndarray:
    """BGR uint8 HxWx3 to RGB float32 1x3xHxW in 0..1."""
    rgb = image[:, :, ::-1].transpose(2, 0, 1)
    return np.ascontiguousarray(rgb, dtype=np.float32)[None] / 255.0


def nms(xyxy: np.ndarray, scores: np.ndarray, iou: float) -> np.ndarray:
    """Indices kept by greedy non-maximum suppression, best first."""
    order = np.argsort(-scores, kind="stable")
    x1, y1, x2, y2 = xyxy.T
    area = (x2 - x1) * (y2 - y1)
    keep = []
    while len(order):
        i = order[0]
        keep.append(i)
        rest = order[1:]
        w = np.clip(np.minimum(x2[i], x2[rest]) - np.maximum(x1[i], x1[rest]), 0, None)
        h = np.clip(np.minimum(y2[i], y2[rest]) - np.maximum(y1[i], y1[rest]), 0, None)
        inter = w * h
        ov = inter / np.maximum(area[i] + area[rest] - inter, 1e-9)
        order = rest[ov <= iou]
    return np.array(keep, np.int64)


def class_aware_nms(d: Detections, iou: float) -> Detections:
    """NMS within each class only: two different cards may overlap in a trick."""
    if len(d) < 2:
        return d
    offset = d.class_id[:, None].astype(np.float32) * (float(d.xyxy.max()) + 1.0)
    keep = nms(d.xyxy + offset, d.confidence, iou)
    return d[np.sort(keep)]


def _candidates(
    output: np.ndarray, box: Letterbox, conf_threshold: float, ruled_out: Collection[int] = ()
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Raw YOLO output (1, 4+C, N) to frame-pixel boxes, best-class scores and classes; a box
    takes its best class among the cards not ``ruled_out`` (class scores are independent)."""
    out = np.asarray(output, np.float32)
    if out.ndim == 3:
        out = out[0]
    if out.ndim != 2 or NUM_CLASSES + 4 not in out.shape:
        raise DetectorError(
            f"model output shape {tuple(np.shape(output))} is not (1, {NUM_CLASSES + 4}, N)"
        )
    if out.shape[0] != NUM_CLASSES + 4:
        out = out.T
    scores = out[4:]
    if len(ruled_out):
        scores = scores.copy()
        scores[np.fromiter(ruled_out, np.int64)] = 0.0
    cls = scores.argmax(0)
    conf = scores[cls, np.arange(scores.shape[1])]
    keep = conf >= conf_threshold
    cx, cy, w, h = out[:4, keep]
    xyxy = np.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], 1).reshape(-1, 4)
    xyxy[:, [0, 2]] = (xyxy[:, [0, 2]] - box.pad_x) / box.scale
    xyxy[:, [1, 3]] = (xyxy[:, [1, 3]] - box.pad_y) / box.scale
    xyxy[:, [0, 2]] = xyxy[:, [0, 2]].clip(0, box.width)
    xyxy[:, [1, 3]] = xyxy[:, [1, 3]].clip(0, box.height)
    return xyxy, conf[keep], cls[keep]


def decode_yolo(
    output: np.ndarray,
    box: Letterbox,
    conf_threshold: float = 0.25,
    iou_threshold: float = 0.5,
    one_per_card: bool = True,
    ruled_out: Collection[int] = (),
) -> Detections:
    """Raw YOLO output (1, 4+C, N) to frame-pixel ``Detections``."""
    xyxy, conf, cls = _candidates(output, box, conf_threshold, ruled_out)
    if not len(conf):
        return Detections.empty()
    d = Detections(xyxy, conf, cls)
    d = class_aware_nms(d, iou_threshold)
    return d.best_per_card() if one_per_card else d


def decode_boxes(
    output: np.ndarray, box: Letterbox, conf_threshold: float = 0.05, iou_threshold: float = 0.6
) -> np.ndarray:
    """Where the cards are, whatever the model thinks they are: class-agnostic NMS, best first."""
    xyxy, conf, _ = _candidates(output, box, conf_threshold)
    if not len(conf):
        return np.zeros((0, 4), np.float32)
    return xyxy[nms(xyxy, conf, iou_threshold)]


STRIDE = 32  # a YOLO input side is a multiple of the network's largest stride


def rect_shape(height: int, width: int, long_side: int) -> tuple[int, int]:
    """The smallest model input that holds a frame scaled to ``long_side``: (H, W), stride-sized.

    A 640x480 frame runs as 480x640 instead of being padded to 640x640: the same scale, so the
    same detections, for three quarters of the work.
    """
    s = long_side / max(height, width)
    return (
        math.ceil(round(height * s) / STRIDE) * STRIDE,
        math.ceil(round(width * s) / STRIDE) * STRIDE,
    )


def model_frame(
    image: np.ndarray, imgsz: int | tuple[int, int], dynamic: bool
) -> tuple[np.ndarray, Letterbox]:
    """The frame letterboxed as the model takes it: to the model's fixed size, or, for a model
    with a free height and width, scaled to ``imgsz`` on its long side and padded to the stride."""
    size = imgsz
    if dynamic:
        side = imgsz if isinstance(imgsz, int) else max(imgsz)
        size = rect_shape(image.shape[0], image.shape[1], side)
    return letterbox(image, size)
