"""Model files to run on the CPU: ONNX Runtime sessions and compiled OpenVINO models.

The finder (``hakam.vision.detector``), the whole-card reader (``hakam.vision.reader``) and the
corner reader (``hakam.vision.corners``) all load their networks here, so none of them imports
another to load a model. A model that cannot be loaded is one ``DetectorError`` line.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from hakam.errors import UserError


class DetectorError(UserError):
    """A detector that cannot be built (missing model, back-end not installed): one line."""


def static_size(shape: Sequence[Any]) -> int | tuple[int, int] | None:
    """The model input size from its (1, 3, H, W) shape: H for a square model, else (H, W);
    None when height and width are free (a dynamic export)."""
    try:
        h, w = int(shape[-2]), int(shape[-1])
    except (TypeError, ValueError, IndexError):
        return None
    if h <= 0 or w <= 0:
        return None
    return h if h == w else (h, w)


def onnx_session(path: str | Path, threads: int = 0):
    """An ONNX Runtime CPU session for a model file; DetectorError in one line if it cannot load."""
    import onnxruntime as ort

    p = Path(path)
    if not p.is_file():
        raise DetectorError(f"onnx: no model at {p}")
    opts = ort.SessionOptions()
    if threads:
        opts.intra_op_num_threads = threads
    opts.log_severity_level = 3
    try:
        return ort.InferenceSession(str(p), opts, providers=["CPUExecutionProvider"])
    except Exception as exc:  # onnxruntime raises its own exception types
        raise DetectorError(f"onnx: cannot load {p}: {str(exc).splitlines()[0]}") from None


def openvino_model(
    path: str | Path,
    threads: int = 0,
    bgr_u8: bool = False,
    extra_output: str | None = None,
    transform: Callable[[Any], None] | None = None,
):
    """An OpenVINO model compiled for the CPU, for latency; from an ``*_openvino`` folder with
    one ``.xml``, an ``.xml`` or an ``.onnx``. DetectorError in one line if it cannot load.

    ``bgr_u8``: the compiled model takes BGR uint8 images as they are (N x H x W x 3: the
    padded frame, or a batch of crops) and does the colour order, layout and 0..1 scaling
    inside, where it is cheaper than in numpy.
    ``extra_output``: the name of a layer whose output is added after the model's own
    (``hakam.vision.fine_tune``: the activations a deck's training starts from).
    ``transform``: changes the model read before it is compiled (a learned deck's weights put
    in: ``hakam.vision.fine_tune.IndexTail.patch``).
    """
    import openvino as ov

    p = Path(path)
    if p.is_dir():
        xmls = sorted(p.glob("*.xml"))
        if not xmls:
            raise DetectorError(f"openvino: no .xml model in {p}")
        p = xmls[0]
    if not p.is_file():
        raise DetectorError(f"openvino: no model at {p}")
    config = {"PERFORMANCE_HINT": "LATENCY"}
    if threads:
        config["INFERENCE_NUM_THREADS"] = str(threads)
    try:
        core = ov.Core()
        model = core.read_model(str(p))
        if extra_output is not None:
            layer = [o for o in model.get_ordered_ops() if o.get_friendly_name() == extra_output]
            if not layer:
                raise ValueError(f"no layer {extra_output}")
            model.add_outputs([layer[0].output(0)])
        if transform is not None:
            transform(model)
        if bgr_u8:
            ppp = ov.preprocess.PrePostProcessor(model)
            ppp.input().tensor().set_element_type(ov.Type.u8).set_layout(
                ov.Layout("NHWC")
            ).set_color_format(ov.preprocess.ColorFormat.BGR)
            ppp.input().model().set_layout(ov.Layout("NCHW"))
            ppp.input().preprocess().convert_element_type(ov.Type.f32).convert_color(
                ov.preprocess.ColorFormat.RGB
            ).scale(255.0)
            model = ppp.build()
        return core.compile_model(model, "CPU", config)
    except Exception as exc:  # openvino raises RuntimeError with long text
        raise DetectorError(f"openvino: cannot load {p}: {str(exc).splitlines()[0]}") from None
