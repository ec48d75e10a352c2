"""Card detectors: one protocol, ``detect(image, ruled_out) -> Detections``, and its back-ends.

The model is a YOLO exported by ultralytics: input 1x3xSxS RGB in 0..1 (letterboxed), output
``(1, 4 + 32, N)``: box centre, width, height at the input size, then one score per card class
(``hakam.engine.cards.DECK`` order). OpenVINO and ONNX Runtime run it on a CPU without torch;
ultralytics only when it is installed and asked for. Every back-end shares the same decoding:
undo the letterbox, class-aware NMS, and one box per card per frame (the deck holds each card
once, so a second box of a card is a misread). ``ruled_out`` are cards the deal proves cannot
be in sight (collected with their trick): no back-end names a box one of them.

``LabelDetector`` reads the renderer's ground-truth labels: an oracle for tests and tracker
tuning only, never a default.
"""

from __future__ import annotations

import importlib.util
import math
import os
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import cv2
import numpy as np

from hakam.engine.cards import CARD_NAMES
from hakam.vision.backends import DetectorError, onnx_session, openvino_model, static_size
from hakam.vision.detections import Detections

ROOT = Path(__file__).resolve().parent.parent
MODELS_DIR = Path(os.environ.get("HAKAM_MODELS_DIR", ROOT / "models"))
ONNX_MODEL = "hakam-cards.onnx"
OPENVINO_DIR = "hakam-cards_openvino"
ULTRALYTICS_MODEL = "hakam-cards.pt"
READER_ONNX = "hakam-reader.onnx"
READER_OPENVINO = "hakam-reader_openvino"
MODEL_CARD = "hakam-cards.json"
NUM_CLASSES = len(CARD_NAMES)
BACKENDS: tuple[str, ...] = ("openvino", "onnx", "ultralytics")


class Detector(Protocol):
    def detect(self, image: np.ndarray, ruled_out: Collection[int] = ()) -> Detections: ...


def drop_ruled_out(d: Detections, ruled_out: Collection[int]) -> Detections:
    """Reads of cards that cannot be in sight are misreads: drop them."""
    if not len(ruled_out) or not len(d):
        return d
    return d[~np.isin(d.class_id, np.fromiter(ruled_out, np.int64))]


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


class _YoloBase:
    """Shared letterbox + decode; a back-end only implements ``_infer``.

    A model exported with a fixed input is fed that size; one exported with a free height and
    width (``dynamic``) is fed each frame at ``imgsz`` on its long side, padded only to the stride.
    """

    imgsz: int | tuple[int, int] = 640  # square side, or (height, width) of a static model
    dynamic = False
    name = "yolo"

    def __init__(
        self,
        path: str | Path,
        conf: float = 0.25,
        iou: float = 0.5,
        threads: int = 0,
        imgsz: int = 640,
    ) -> None:
        self.conf, self.iou = conf, iou
        fixed = static_size(self._load(path, threads))
        self.dynamic = fixed is None
        self.imgsz = imgsz if fixed is None else fixed

    def _load(self, path: str | Path, threads: int) -> Sequence[Any]:
        """Load the model; return its input shape as (..., H, W), -1 where a side is free."""
        raise NotImplementedError

    def _infer(self, tensor: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def _input(self, padded: np.ndarray) -> np.ndarray:
        return to_tensor(padded)

    def _run(self, image: np.ndarray) -> tuple[np.ndarray, Letterbox]:
        padded, box = model_frame(image, self.imgsz, self.dynamic)
        return self._infer(self._input(padded)), box

    def detect(self, image: np.ndarray, ruled_out: Collection[int] = ()) -> Detections:
        return decode_yolo(*self._run(image), self.conf, self.iou, ruled_out=ruled_out)

    def find(self, image: np.ndarray, conf: float = 0.05, iou: float = 0.6) -> np.ndarray:
        """Card boxes of any class (the first stage of ``hakam.vision.reader.TwoStageDetector``)."""
        return decode_boxes(*self._run(image), conf, iou)


class OnnxDetector(_YoloBase):
    """ONNX Runtime on the CPU."""

    name = "onnx"

    def _load(self, path: str | Path, threads: int) -> Sequence[Any]:
        self.session = onnx_session(path, threads)
        inp = self.session.get_inputs()[0]
        self.input_name = inp.name
        return inp.shape

    def _infer(self, tensor: np.ndarray) -> np.ndarray:
        return self.session.run(None, {self.input_name: tensor})[0]


class OpenVinoDetector(_YoloBase):
    """OpenVINO on the CPU (an ``*_openvino`` folder with one ``.xml`` or an ``.onnx``)."""

    name = "openvino"

    def _load(self, path: str | Path, threads: int) -> Sequence[Any]:
        self.compiled = openvino_model(path, threads, bgr_u8=True)
        self.request = self.compiled.create_infer_request()
        shape = self.compiled.input(0).get_partial_shape()  # N, H, W, C after the preprocessing
        return [d.get_length() if d.is_static else -1 for d in list(shape)[:3]]

    def _input(self, padded: np.ndarray) -> np.ndarray:
        return padded[None]

    def _infer(self, tensor: np.ndarray) -> np.ndarray:
        result = self.request.infer({0: tensor})
        return np.asarray(next(iter(result.values())))


class UltralyticsDetector:
    """ultralytics (PyTorch) when installed: for comparison, never needed at run time."""

    name = "ultralytics"

    def __init__(self, path: str | Path, conf: float = 0.25, iou: float = 0.5) -> None:
        if importlib.util.find_spec("ultralytics") is None:
            raise DetectorError("ultralytics: not installed (pip install -e '.[train]')")
        from ultralytics import YOLO

        self.model = YOLO(str(path))
        self.conf, self.iou = conf, iou

    def detect(self, image: np.ndarray, ruled_out: Collection[int] = ()) -> Detections:
        result = self.model.predict(image, conf=self.conf, iou=self.iou, verbose=False)[0]
        d = class_aware_nms(Detections.from_ultralytics(result), self.iou)
        return drop_ruled_out(d, ruled_out).best_per_card()


def model_path(backend: str, models_dir: Path | None = None) -> Path:
    base = models_dir or MODELS_DIR
    return (
        base
        / {"onnx": ONNX_MODEL, "openvino": OPENVINO_DIR, "ultralytics": ULTRALYTICS_MODEL}[backend]
    )


def available_backends(models_dir: Path | None = None) -> list[str]:
    """Back-ends whose model is in ``models/`` (and, for ultralytics, whose package is)."""
    out = []
    for b in BACKENDS:
        if not model_path(b, models_dir).exists():
            continue
        if b == "ultralytics" and importlib.util.find_spec("ultralytics") is None:
            continue
        out.append(b)
    return out


def shipped_settings(models_dir: Path | None = None) -> dict:
    """The settings chosen on the tuning sets, stored with the model (threshold, stages...)."""
    import json

    try:
        return json.loads(((models_dir or MODELS_DIR) / MODEL_CARD).read_text())
    except (OSError, ValueError):
        return {}


def shipped_threshold(models_dir: Path | None = None, stages: int | None = None) -> float:
    """The confidence threshold chosen on the tuning sets, stored with the model."""
    settings = shipped_settings(models_dir)
    stages = stages or int(settings.get("stages", 1))
    if stages == 2:
        return float(settings.get("two_stage", {}).get("threshold", 0.25))
    return float(settings.get("threshold", 0.25))


def reader_path(backend: str, models_dir: Path | None = None) -> Path:
    base = models_dir or MODELS_DIR
    return base / (READER_ONNX if backend == "onnx" else READER_OPENVINO)


def corner_paths(backend: str, models_dir: Path | None = None) -> tuple[Path, Path]:
    """The corner reader's outline and index networks (``hakam.vision.corners``) for ``backend``."""
    base = models_dir or MODELS_DIR
    ext = ".onnx" if backend == "onnx" else "_openvino"
    return base / f"hakam-outline{ext}", base / f"hakam-index{ext}"


def make_detector(
    backend: str | None = None,
    models_dir: Path | None = None,
    conf: float | None = None,
    threads: int = 0,
    stages: int | None = None,
    imgsz: int | None = None,
    indices: bool | None = False,
) -> Detector:
    """The detector for ``backend`` (None: OpenVINO, else ONNX Runtime, whichever has a model).

    ``stages`` 2 names the finder's boxes with the card reader (``hakam.vision.reader``); None takes
    the shipped choice from the model card file, and ``conf`` None its tuned threshold.
    ``imgsz``: the input's long side for a model exported with a free input size (None: the
    shipped one); a model with a fixed input refuses another size.
    ``indices``: add the finder of corner indices (``hakam.vision.indices``; photos, not the live
    pipeline); None where the model card asks for it.
    """
    card = shipped_settings(models_dir)
    det = _make_cards(backend, models_dir, conf, threads, stages, imgsz, card)
    settings = card.get("indices")
    if indices is None:
        indices = bool(settings)
    if not indices:
        return det
    from hakam.vision.indices import WithIndices

    chosen = settings or {}
    min_conf = float(chosen.get("threshold", 0.5))
    size = int(chosen.get("imgsz", 640))
    if chosen.get("strip"):
        finder = strip_detector(backend, models_dir, min_conf, size, threads)
    else:
        finder = index_finder(backend, models_dir, min_conf, size, threads)
    return WithIndices(det, finder, min_conf)


STRIP_FIND_CONF = 0.05  # the finder of corner indices' floor when the strip reader names its boxes


def strip_detector(
    backend: str | None, models_dir: Path | None, min_prob: float, imgsz: int = 640,
    threads: int = 0,
):  # fmt: skip
    """The finder of corner indices' boxes of any class named by the strip reader
    (``hakam.vision.indices``): a ``TwoStageDetector`` of index boxes."""
    from hakam.vision.indices import STRIP_MARGIN, strip_path
    from hakam.vision.reader import CardReader, TwoStageDetector

    kind = "onnx" if backend == "onnx" else "openvino"
    finder = index_finder(backend, models_dir, STRIP_FIND_CONF, imgsz, threads)
    path = strip_path(kind, models_dir or MODELS_DIR)
    if not path.exists():
        raise DetectorError(
            f"no strip reader at {path} (`hakam model train-corners strip`, then "
            "`hakam model export-corners`)"
        )
    return TwoStageDetector(
        finder, CardReader(path, kind, threads), find_conf=STRIP_FIND_CONF, min_prob=min_prob,
        margin=STRIP_MARGIN,
    )  # fmt: skip


def index_finder(
    backend: str | None, models_dir: Path | None, conf: float, imgsz: int = 640, threads: int = 0
) -> _YoloBase:
    """The finder of corner indices (``hakam.vision.indices``): ONNX Runtime for ``backend`` "onnx",
    else OpenVINO."""
    from hakam.vision.indices import indices_path

    kind = "onnx" if backend == "onnx" else "openvino"
    path = indices_path(kind, models_dir or MODELS_DIR)
    if not path.exists():
        raise DetectorError(
            f"no finder of corner indices at {path} (`hakam model export BEST --stem "
            "hakam-indices`)"
        )
    return (OnnxDetector if kind == "onnx" else OpenVinoDetector)(
        path, conf, threads=threads, imgsz=imgsz
    )


def _make_cards(
    backend: str | None,
    models_dir: Path | None,
    conf: float | None,
    threads: int,
    stages: int | None,
    imgsz: int | None,
    settings: dict,
) -> Detector:
    if backend is None:
        found = [b for b in available_backends(models_dir) if b != "ultralytics"]
        if not found:
            base = models_dir or MODELS_DIR
            raise DetectorError(
                f"no detector model in {base} (needs {ONNX_MODEL} or {OPENVINO_DIR}/); "
                "train and export one first (`hakam model --help`)"
            )
        backend = found[0]
    if backend not in BACKENDS:
        raise DetectorError(f"--detector: unknown back-end {backend!r}")
    path = model_path(backend, models_dir)
    if not path.exists():
        raise DetectorError(f"{backend}: no model at {path}")
    if stages is None:
        stages = int(settings.get("stages", 1))
    if stages not in (1, 2):
        raise DetectorError(f"--stages: {stages} (1 or 2)")
    two = settings.get("two_stage", {})
    shipped_size = (two if stages == 2 else {}).get("imgsz") or settings.get("imgsz", 640)
    asked, imgsz = imgsz, int(imgsz or shipped_size)
    if imgsz < STRIDE or imgsz % STRIDE:
        raise DetectorError(f"--imgsz {imgsz}: a multiple of {STRIDE}")
    if conf is None:
        conf = float((two if stages == 2 else settings).get("threshold", 0.25))
    if stages == 2:
        if backend == "ultralytics":
            raise DetectorError("--stages 2 runs on openvino or onnx, not ultralytics")
        rpath = reader_path(backend, models_dir)
        if not rpath.exists():
            raise DetectorError(
                f"{backend}: no card reader at {rpath} (`hakam model train-reader`)"
            )
        from hakam.vision.reader import CardReader, TwoStageDetector

        finder = _fits(
            (OnnxDetector if backend == "onnx" else OpenVinoDetector)(
                path, conf, threads=threads, imgsz=imgsz
            ),
            asked,
        )
        mix, corners = float(two.get("corners", 0.0)), None
        if mix > 0:
            outline, index = corner_paths(backend, models_dir)
            if not (outline.exists() and index.exists()):
                raise DetectorError(
                    f"{backend}: the model card asks for the corner reader, and there is no "
                    f"{outline.name} and {index.name} (`hakam model train-corners`)"
                )
            from hakam.vision.corners import CornerReader

            passes = int(two.get("outline_passes", 1))
            trim = float(two.get("outline_trim", 0.0))
            try:
                corners = CornerReader(
                    outline, index, backend, threads=threads, passes=passes, trim=trim
                )
            except ValueError as exc:
                raise DetectorError(f"{MODEL_CARD}: {exc}") from exc
        return TwoStageDetector(
            finder,
            CardReader(rpath, backend, threads=threads),
            find_conf=float(two.get("find_conf", 0.05)),
            min_prob=conf,
            turns=int(two.get("turns", 1)),
            corners=corners,
            mix=mix,
        )
    if backend == "onnx":
        return _fits(OnnxDetector(path, conf, threads=threads, imgsz=imgsz), asked)
    if backend == "openvino":
        return _fits(OpenVinoDetector(path, conf, threads=threads, imgsz=imgsz), asked)
    if asked is not None:
        raise DetectorError("--imgsz: runs on openvino or onnx, not ultralytics")
    return UltralyticsDetector(path, conf)


def _fits(det: _YoloBase, asked: int | None) -> _YoloBase:
    if asked is not None and not det.dynamic and det.imgsz != asked:
        raise DetectorError(
            f"--imgsz {asked}: this model has a fixed input {det.imgsz} "
            "(`hakam model export` it again without --static)"
        )
    return det
