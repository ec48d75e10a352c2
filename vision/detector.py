"""Card detectors: one protocol, ``detect(image, ruled_out) -> Detections``, and its back-ends.

The finder is a YOLO exported by ultralytics (its tensors in and out: ``hakam.vision.yolo``).
OpenVINO and ONNX Runtime run it on a CPU without torch; ultralytics only when it is installed
and asked for. Every back-end shares the same decoding: undo the letterbox, class-aware NMS, and
one box per card per frame (the deck holds each card once, so a second box of a card is a
misread). ``ruled_out`` are cards the deal proves cannot be in sight (collected with their
trick): no back-end names a box one of them. ``make_detector`` builds the run's detector from
the shipped files (``models/``) and their model card.

``LabelDetector`` (``hakam.vision.oracle``) reads the renderer's ground-truth labels: an oracle
for tests and tracker tuning only, never a default."""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from hakam.vision.backends import DetectorError, onnx_session, openvino_model, static_size
from hakam.vision.detections import Detections
from hakam.vision.yolo import (
    STRIDE,
    Letterbox,
    class_aware_nms,
    decode_boxes,
    decode_yolo,
    model_frame,
    to_tensor,
)

ROOT = Path(__file__).resolve().parent.parent
MODELS_DIR = Path(os.environ.get("HAKAM_MODELS_DIR", ROOT / "models"))
ONNX_MODEL = "hakam-cards.onnx"
OPENVINO_DIR = "hakam-cards_openvino"
ULTRALYTICS_MODEL = "hakam-cards.pt"
READER_ONNX = "hakam-reader.onnx"
READER_OPENVINO = "hakam-reader_openvino"
MODEL_CARD = "hakam-cards.json"
BACKENDS: tuple[str, ...] = ("openvino", "onnx", "ultralytics")


class Detector(Protocol):
    def detect(self, image: np.ndarray, ruled_out: Collection[int] = ()) -> Detections: ...


def drop_ruled_out(d: Detections, ruled_out: Collection[int]) -> Detections:
    """Reads of cards that cannot be in sight are misreads: drop them."""
    if not len(ruled_out) or not len(d):
        return d
    return d[~np.isin(d.class_id, np.fromiter(ruled_out, np.int64))]


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
