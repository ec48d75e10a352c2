"""Detector decoding on synthetic tensors, and a real tiny ONNX graph through both runtimes."""

from __future__ import annotations

import numpy as np
import pytest

from hakam.engine.cards import Card
from hakam.vision.detector import DetectorError, OnnxDetector, OpenVinoDetector, make_detector
from hakam.vision.oracle import LabelDetector, ReadNoise
from hakam.vision.yolo import Letterbox, decode_yolo, letterbox, rect_shape, to_tensor

C = 32


def raw(boxes: list[tuple[float, float, float, float, str, float]]) -> np.ndarray:
    """A (1, 36, N) YOLO output from (cx, cy, w, h, card, score) at the model input size."""
    out = np.zeros((1, 4 + C, len(boxes)), np.float32)
    for i, (cx, cy, w, h, card, score) in enumerate(boxes):
        out[0, :4, i] = (cx, cy, w, h)
        out[0, 4 + Card.parse(card).index, i] = score
    return out


def test_letterbox_keeps_aspect_and_centres():
    img = np.full((480, 640, 3), 200, np.uint8)
    padded, box = letterbox(img, 640)
    assert padded.shape == (640, 640, 3)
    assert (box.scale, box.pad_x, box.pad_y) == (1.0, 0, 80)
    assert padded[0, 0, 0] == 114 and padded[80, 0, 0] == 200 and padded[559, 0, 0] == 200
    assert padded[560, 0, 0] == 114
    small, box2 = letterbox(np.zeros((720, 1280, 3), np.uint8), 640)
    assert box2.scale == 0.5 and box2.pad_y == 140 and small.shape == (640, 640, 3)
    t = to_tensor(padded)
    assert t.shape == (1, 3, 640, 640) and t.dtype == np.float32 and t.max() <= 1.0


def test_decode_undoes_the_letterbox():
    box = Letterbox(scale=0.5, pad_x=0, pad_y=140, width=1280, height=720)
    d = decode_yolo(raw([(100, 240, 40, 60, "7H", 0.9)]), box)
    assert d.names == ["7H"]
    assert np.allclose(d.xyxy[0], [160, 140, 240, 260])  # (x - pad) / scale


def test_class_aware_nms_and_one_box_per_card():
    box = Letterbox(1.0, 0, 0, 640, 640)
    out = raw([
        (100, 100, 50, 70, "7H", 0.9),
        (104, 102, 50, 70, "7H", 0.8),  # same card, same place: suppressed by NMS
        (106, 100, 50, 70, "8H", 0.7),  # another card overlapping: kept (a trick overlaps)
        (400, 300, 50, 70, "7H", 0.6),  # 7H again elsewhere: impossible, the weaker goes
        (300, 300, 50, 70, "AS", 0.1),  # under the threshold
    ])  # fmt: skip
    d = decode_yolo(out, box, conf_threshold=0.25)
    assert sorted(d.names) == ["7H", "8H"]
    assert np.isclose(d.confidence[d.names.index("7H")], 0.9)
    every = decode_yolo(out, box, conf_threshold=0.25, one_per_card=False)
    assert sorted(every.names) == ["7H", "7H", "8H"]


def test_decode_names_a_box_its_best_card_not_ruled_out():
    box = Letterbox(1.0, 0, 0, 640, 640)
    out = raw([(100, 100, 50, 70, "KH", 0.8), (300, 300, 50, 70, "7S", 0.9)])
    out[0, 4 + Card.parse("KD").index, 0] = 0.6  # the first box's second guess
    ruled_out = {Card.parse("KH").index, Card.parse("7S").index}  # collected with their trick
    d = decode_yolo(out, box, conf_threshold=0.25, ruled_out=ruled_out)
    assert d.names == ["KD"]  # 7S had no other guess above the threshold


def test_label_detector_drops_reads_of_ruled_out_cards():
    seen = {"visible": 1.0, "index_visible": 1.0}
    frame = [
        {"card": "7H", "box": [0, 0, 10, 10], **seen},
        {"card": "AS", "box": [20, 0, 30, 10], **seen},
    ]
    det = LabelDetector([frame])
    assert det.detect(np.zeros((1, 1, 3)), ruled_out={Card.parse("AS").index}).names == ["7H"]
    # A simulated misread never names a ruled-out card either (every read here is misread).
    noisy = LabelDetector([frame[:1]], ReadNoise(misread=1.0))
    seven = Card.parse("7H").index
    assert len(noisy.detect(np.zeros((1, 1, 3)), ruled_out=set(range(C)) - {seven})) == 0


def test_decode_accepts_transposed_output_and_rejects_wrong_shapes():
    box = Letterbox(1.0, 0, 0, 640, 640)
    out = raw([(100, 100, 50, 70, "KS", 0.9)])
    assert decode_yolo(out.transpose(0, 2, 1), box).names == ["KS"]
    with pytest.raises(DetectorError, match="not \\(1, 36, N\\)"):
        decode_yolo(np.zeros((1, 10, 5)), box)


def test_label_detector_reads_frame_after_frame():
    labels = [[{"card": "7H", "box": [0, 0, 10, 10], "visible": 1, "index_visible": 1}], []]
    det = LabelDetector(labels)
    assert det.detect(np.zeros((1, 1, 3))).names == ["7H"]
    assert len(det.detect(np.zeros((1, 1, 3)))) == 0
    assert len(det.detect(np.zeros((1, 1, 3)))) == 0  # past the end: nothing


def test_missing_model_is_a_one_line_error(tmp_path):
    with pytest.raises(DetectorError, match="no detector model in"):
        make_detector(None, tmp_path)
    with pytest.raises(DetectorError, match="onnx: no model at"):
        make_detector("onnx", tmp_path)


onnx = pytest.importorskip("onnx")


def tiny_yolo(path, imgsz: int = 64, height: int | None = None, dynamic: bool = False, reads=None):
    """A real ONNX graph with YOLO's I/O: scores = constant scores x mean pixel of the input."""
    from onnx import TensorProto, helper, numpy_helper

    const = raw(reads or [(20, 30, 10, 16, "QD", 1.0), (44, 30, 10, 16, "10S", 0.5)])
    boxes = numpy_helper.from_array(const[:, :4], "boxes")
    scores = numpy_helper.from_array(const[:, 4:], "scores")
    nodes = [
        helper.make_node("ReduceMean", ["images"], ["m"], axes=[1, 2, 3], keepdims=0),
        helper.make_node("Mul", ["scores", "m"], ["s"]),
        helper.make_node("Concat", ["boxes", "s"], ["output0"], axis=1),
    ]
    graph = helper.make_graph(
        nodes, "tiny-yolo",
        [helper.make_tensor_value_info("images", TensorProto.FLOAT,
                                       [1, 3, "h", "w"] if dynamic
                                       else [1, 3, height or imgsz, imgsz])],
        [helper.make_tensor_value_info("output0", TensorProto.FLOAT, [1, 36, const.shape[2]])],
        [boxes, scores],
    )  # fmt: skip
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, str(path))
    return const


@pytest.mark.parametrize("backend", [OnnxDetector, OpenVinoDetector])
def test_tiny_onnx_graph_end_to_end(tmp_path, backend):
    path = tmp_path / "tiny.onnx"
    tiny_yolo(path)
    det = backend(path, conf=0.25)
    assert det.imgsz == 64
    white = np.full((48, 64, 3), 255, np.uint8)  # letterboxed: pad 8 px top and bottom
    d = det.detect(white)
    mean = (48 * 1.0 + 16 * 114 / 255) / 64
    assert d.names == ["QD", "10S"]
    assert np.allclose(d.confidence, [mean, 0.5 * mean], atol=1e-3)
    assert np.allclose(d.xyxy[0], [15, 14, 25, 30])  # y shifted back by the 8 px pad
    assert len(det.detect(np.zeros((48, 64, 3), np.uint8))) == 0  # dark: scores under 0.25


@pytest.mark.parametrize("backend", [OnnxDetector, OpenVinoDetector])
def test_rectangular_model_reads_a_4_3_frame_without_padding(tmp_path, backend):
    # A model exported at imgsz [48, 64] (height, width), as for 640x480 frames at 480x640.
    path = tmp_path / "rect.onnx"
    tiny_yolo(path, 64, height=48)
    det = backend(path, conf=0.25)
    assert det.imgsz == (48, 64)
    d = det.detect(np.full((48, 64, 3), 255, np.uint8))
    assert d.names == ["QD", "10S"] and np.allclose(d.confidence, [1.0, 0.5], atol=1e-3)
    assert np.allclose(d.xyxy[0], [15, 22, 25, 38])  # no pad: the model's own pixels


def test_letterbox_to_a_rectangle():
    out, box = letterbox(np.zeros((720, 1280, 3), np.uint8), (480, 640))
    assert out.shape == (480, 640, 3) and box.pad_x == 0 and box.pad_y == 60
    assert np.isclose(box.scale, 0.5)


def test_rect_shape_scales_the_long_side_and_pads_to_the_stride():
    assert rect_shape(480, 640, 640) == (480, 640)
    assert rect_shape(720, 1280, 640) == (384, 640)  # 360 rows, padded to the stride
    assert rect_shape(640, 640, 416) == (416, 416)
    assert rect_shape(1280, 720, 416) == (416, 256)  # portrait: 234 columns, padded


@pytest.mark.parametrize("backend", [OnnxDetector, OpenVinoDetector])
def test_dynamic_model_reads_each_frame_at_its_own_shape(tmp_path, backend):
    path = tmp_path / "dynamic.onnx"
    tiny_yolo(path, dynamic=True)
    det = backend(path, conf=0.25, imgsz=128)
    assert det.dynamic and det.imgsz == 128
    white = np.full((96, 128, 3), 255, np.uint8)  # 96 rows are a stride multiple: no pad
    d = det.detect(white)
    assert d.names == ["QD", "10S"] and np.allclose(d.confidence, [1.0, 0.5], atol=1e-3)
    assert np.allclose(d.xyxy[0], [15, 22, 25, 38])
    d = det.detect(np.full((48, 64, 3), 255, np.uint8))  # scaled up 2x to 96x128
    assert np.allclose(d.confidence[0], 1.0, atol=1e-3)
    assert np.allclose(d.xyxy[0], [7.5, 11, 12.5, 19])


def test_make_detector_takes_a_size_only_where_the_model_allows_it(tmp_path):
    fixed, free = tmp_path / "fixed", tmp_path / "free"
    fixed.mkdir(), free.mkdir()
    tiny_yolo(fixed / "hakam-cards.onnx")
    tiny_yolo(free / "hakam-cards.onnx", dynamic=True)
    with pytest.raises(DetectorError, match="fixed input 64"):
        make_detector("onnx", fixed, stages=1, imgsz=416)
    with pytest.raises(DetectorError, match="a multiple of 32"):
        make_detector("onnx", free, stages=1, imgsz=100)
    assert make_detector("onnx", fixed, stages=1).imgsz == 64
    det = make_detector("onnx", free, stages=1, imgsz=416)
    assert det.dynamic and det.imgsz == 416


def test_with_indices_adds_the_cards_named_by_their_corner_index_once_each(tmp_path):
    """The finder of corner indices adds the cards it names at its threshold or more; a card
    read both ways is read once, in its whole-card box at the higher confidence; the live
    pipeline's default is the whole-card detector alone."""
    import json

    tiny_yolo(tmp_path / "hakam-cards.onnx")  # QD 1.0 and 10S 0.5 on a white frame
    index_reads = [(8, 8, 4, 6, "KS", 0.9), (44, 26, 4, 6, "10S", 0.8), (30, 8, 4, 6, "7H", 0.4)]
    tiny_yolo(tmp_path / "hakam-indices.onnx", reads=index_reads)
    card = {"stages": 1, "threshold": 0.25, "indices": {"threshold": 0.6, "imgsz": 64}}
    (tmp_path / "hakam-cards.json").write_text(json.dumps(card))
    white = np.full((64, 64, 3), 255, np.uint8)
    assert make_detector("onnx", tmp_path).detect(white).names == ["QD", "10S"]
    d = make_detector("onnx", tmp_path, indices=None).detect(white)
    got = dict(zip(d.names, d.confidence, strict=True))
    assert set(got) == {"QD", "10S", "KS"}  # 7H's index read 0.4 is under the threshold 0.6
    assert np.isclose(got["10S"], 0.8, atol=1e-3)  # the index read beat the whole-card 0.5
    assert np.allclose(d.xyxy[d.names.index("10S")], [39, 22, 49, 38])  # the whole card's box
    assert np.allclose(d.xyxy[d.names.index("KS")], [6, 5, 10, 11])  # only its index showed
    (tmp_path / "hakam-indices.onnx").unlink()
    with pytest.raises(DetectorError, match="no finder of corner indices"):
        make_detector("onnx", tmp_path, indices=None)
    assert make_detector("onnx", tmp_path, indices=False).detect(white).names == ["QD", "10S"]


def tiny_strip_reader(path, card: str):
    """A real ONNX classifier of N x 3 x 40 x 40 crops that names every crop ``card``."""
    from onnx import TensorProto, helper, numpy_helper

    from hakam.engine.cards import Card
    from hakam.vision.indices import STRIP_SIZE
    from hakam.vision.reader import READER_CLASSES

    logits = np.zeros((1, READER_CLASSES), np.float32)
    logits[0, Card.parse(card).index] = 8.0
    nodes = [
        helper.make_node("ReduceMean", ["x"], ["m"], axes=[1, 2, 3], keepdims=1),
        helper.make_node("Reshape", ["m", "shape"], ["m2"]),
        helper.make_node("Mul", ["m2", "zero"], ["z"]),
        helper.make_node("Add", ["z", "logits"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes, "tiny-strip",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 3, STRIP_SIZE, STRIP_SIZE])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", READER_CLASSES])],
        [numpy_helper.from_array(np.array([-1, 1], np.int64), "shape"),
         numpy_helper.from_array(np.zeros((1, 1), np.float32), "zero"),
         numpy_helper.from_array(logits, "logits")],
    )  # fmt: skip
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, str(path))


def test_strip_reader_names_the_index_boxes_whatever_class_the_finder_gives(tmp_path):
    """With ``strip`` in the model card, the finder of corner indices gives only where the
    indices are and the strip reader names them: the finder's KS and 7H are both 8D there,
    and read once (one card per image)."""
    import json

    tiny_yolo(tmp_path / "hakam-cards.onnx")  # QD 1.0 and 10S 0.5 on a white frame
    index_reads = [(8, 8, 4, 6, "KS", 0.9), (40, 50, 4, 6, "7H", 0.4)]
    tiny_yolo(tmp_path / "hakam-indices.onnx", reads=index_reads)
    tiny_strip_reader(tmp_path / "hakam-strip.onnx", "8D")
    card = {"stages": 1, "threshold": 0.25,
            "indices": {"threshold": 0.6, "imgsz": 64, "strip": True}}  # fmt: skip
    (tmp_path / "hakam-cards.json").write_text(json.dumps(card))
    white = np.full((64, 64, 3), 255, np.uint8)
    d = make_detector("onnx", tmp_path, indices=None).detect(white)
    assert sorted(d.names) == ["10S", "8D", "QD"]
    e8 = np.exp(8.0)  # the strip reader's softmax of 8 against 32 zeros
    assert np.isclose(d.confidence[d.names.index("8D")], e8 / (e8 + 32), atol=1e-4)
    (tmp_path / "hakam-strip.onnx").unlink()
    with pytest.raises(DetectorError, match="no strip reader at"):
        make_detector("onnx", tmp_path, indices=None)
