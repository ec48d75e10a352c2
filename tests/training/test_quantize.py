"""`hakam model quantize`: 8-bit OpenVINO models rebuilt from the ONNX files (no torch)."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
pytest.importorskip("nncf")

from hakam.training import quantize  # noqa: E402
from hakam.vision.corners import OUTLINE_SIZE, PATCH_H, PATCH_W  # noqa: E402
from hakam.vision.detector import OpenVinoDetector  # noqa: E402
from hakam.vision.reader import CROP_SIZE, READER_CLASSES, CardReader  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def conv_net(path: Path, shape: list, out_shape: list, out: str, consts: dict) -> None:
    """A small real graph: a 3x3 convolution (what quantization turns to 8 bits), the mean of
    its 8 channels, a projection ``proj`` to the outputs; 'output0' adds YOLO's last axis."""
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(0)
    w = numpy_helper.from_array(rng.normal(0, 0.3, (8, 3, 3, 3)).astype(np.float32), "w")
    b = numpy_helper.from_array(np.zeros(8, np.float32), "b")
    proj = out if out != "output0" else "o"
    nodes = [
        helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c"], ["r"]),
        helper.make_node("ReduceMean", ["r"], ["m"], axes=[2, 3], keepdims=0),
        helper.make_node("MatMul", ["m", "proj"], [proj]),
    ]
    if out == "output0":
        nodes.append(helper.make_node("Unsqueeze", ["o", "last"], ["output0"]))
        consts = {**consts, "last": np.array([2], np.int64)}
    graph = helper.make_graph(
        nodes,
        "tiny",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
        [helper.make_tensor_value_info(out, TensorProto.FLOAT, out_shape)],
        [w, b, *[numpy_helper.from_array(v, k) for k, v in consts.items()]],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, str(path))


def tiny_models(folder: Path) -> None:
    """A models folder as `hakam model export` and `export-reader` write it: a dynamic 'finder'
    (1 x 36 x 1: four box numbers and 32 scores) and a 'reader' (33 logits), with their json."""
    rng = np.random.default_rng(1)
    conv_net(folder / "hakam-cards.onnx", [1, 3, "h", "w"], [1, 36, 1], "output0",
             {"proj": rng.normal(0, 1, (8, 36)).astype(np.float32)})  # fmt: skip
    conv_net(folder / "hakam-reader.onnx", ["n", 3, CROP_SIZE, CROP_SIZE], ["n", 33], "logits",
             {"proj": rng.normal(0, 1, (8, 33)).astype(np.float32)})  # fmt: skip
    (folder / "hakam-cards_openvino").mkdir()
    (folder / "hakam-reader_openvino").mkdir()
    (folder / "hakam-cards_openvino" / "stale.xml").write_text("<old/>")
    finder = {"onnx": "hakam-cards.onnx", "openvino": "hakam-cards_openvino", "imgsz": 64}
    (folder / "hakam-cards.json").write_text(json.dumps({**finder, "two_stage": {"imgsz": 64}}))
    (folder / "hakam-reader.json").write_text(
        json.dumps({"onnx": "hakam-reader.onnx", "openvino": "hakam-reader_openvino"})
    )


def with_outline(folder: Path) -> None:
    """The corner reader's outline network beside them, as `export-corners` writes it."""
    rng = np.random.default_rng(2)
    conv_net(folder / "hakam-outline.onnx", ["n", 3, OUTLINE_SIZE, OUTLINE_SIZE], ["n", 8],
             "corners", {"proj": rng.normal(0, 1, (8, 8)).astype(np.float32)})  # fmt: skip
    (folder / "hakam-outline_openvino").mkdir()
    (folder / "hakam-outline.json").write_text(
        json.dumps(
            {"kind": "outline", "onnx": "hakam-outline.onnx", "openvino": "hakam-outline_openvino"}
        )
    )


def fake_calibration(n, real, progress=False, crop_sizes=(CROP_SIZE,)):
    # the reader's side as hakam-reader.json gives it (112 when it says none), the outline's
    assert set(crop_sizes) <= {CROP_SIZE, OUTLINE_SIZE}
    rng = np.random.default_rng(3)
    frames = [rng.integers(0, 255, (48, 64, 3), np.uint8) for _ in range(n)]
    crops = {
        s: [rng.integers(0, 255, (s, s, 3), np.uint8) for _ in range(2 * n)] for s in crop_sizes
    }
    return frames, crops


def test_quantize_models_rebuilds_both_openvino_models_in_8_bits(tmp_path):
    import openvino as ov

    tiny_models(tmp_path)
    done = quantize.quantize_models(tmp_path, scenes=6, calibration=fake_calibration)
    finder_dir, reader_dir = tmp_path / "hakam-cards_openvino", tmp_path / "hakam-reader_openvino"
    assert [p.name for p in finder_dir.glob("*.xml")] == ["hakam-cards.xml"]  # stale one gone
    for xml in (finder_dir / "hakam-cards.xml", reader_dir / "hakam-reader.xml"):
        ops = {op.get_type_name() for op in ov.Core().read_model(str(xml)).get_ops()}
        assert "FakeQuantize" in ops, f"{xml.name} was not quantized"
    assert json.loads((tmp_path / "hakam-cards.json").read_text())["openvino_precision"] == "int8"
    assert json.loads((tmp_path / "hakam-reader.json").read_text())["openvino_precision"] == "int8"
    assert set(done) == {"finder", "reader", "seconds"}
    # The 8-bit models load where the pipeline loads them and agree with the float graphs.
    frame = np.random.default_rng(4).integers(0, 255, (48, 64, 3), np.uint8)
    det = OpenVinoDetector(finder_dir, imgsz=64)
    ref = ov.Core().compile_model(str(tmp_path / "hakam-cards.onnx"), "CPU")
    out8 = det._run(frame)[0]
    out32 = ref(quantize.finder_input(frame, 64))[0]
    assert out8.shape == out32.shape == (1, 36, 1)
    assert np.abs(out8 - out32).max() < 0.1 * np.abs(out32).max()
    reader = CardReader(reader_dir)
    crop = np.random.default_rng(5).integers(0, 255, (CROP_SIZE, CROP_SIZE, 3), np.uint8)
    probs = reader.read([crop])
    assert probs.shape == (1, READER_CLASSES) and np.isclose(probs.sum(), 1, atol=1e-4)


def test_quantizing_twice_gives_the_same_model(tmp_path):
    tiny_models(tmp_path)
    quantize.quantize_models(tmp_path, scenes=4, calibration=fake_calibration)
    first = (tmp_path / "hakam-cards_openvino" / "hakam-cards.bin").read_bytes()
    quantize.quantize_models(tmp_path, scenes=4, calibration=fake_calibration)
    assert (tmp_path / "hakam-cards_openvino" / "hakam-cards.bin").read_bytes() == first


def test_quantize_without_the_onnx_original_is_a_one_line_error(tmp_path):
    tiny_models(tmp_path)
    (tmp_path / "hakam-cards.onnx").unlink()
    before = sorted(p.name for p in tmp_path.rglob("*"))
    r = subprocess.run(
        [sys.executable, "-m", "hakam", "model", "quantize", "--models-dir", str(tmp_path)],
        capture_output=True, text=True, cwd=ROOT, timeout=120,
    )  # fmt: skip
    assert r.returncode == 2
    assert r.stderr.strip().startswith("hakam: error: ") and "no such ONNX model" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    assert sorted(p.name for p in tmp_path.rglob("*")) == before  # nothing changed


def test_quantize_calibrates_the_reader_at_its_own_side(tmp_path):
    tiny_models(tmp_path)
    info = json.loads((tmp_path / "hakam-reader.json").read_text())
    (tmp_path / "hakam-reader.json").write_text(json.dumps({**info, "crop_size": 160}))
    asked = []

    def calibration(n, real, progress=False, crop_sizes=(CROP_SIZE,)):
        asked.append(crop_sizes)
        raise RuntimeError("stop here")

    with pytest.raises(RuntimeError, match="stop here"):
        quantize.quantize_models(tmp_path, scenes=2, calibration=calibration)
    assert asked == [(160,)]


def test_quantize_models_rebuilds_the_outline_network_and_only_what_is_asked(tmp_path):
    """The outline network is calibrated on crops at its own side; ``networks`` leaves the
    others' files as they were (a shipped finder is not re-quantized to mend an outline)."""
    import openvino as ov

    tiny_models(tmp_path)
    with_outline(tmp_path)
    quantize.quantize_models(tmp_path, scenes=4, calibration=fake_calibration)
    xml = tmp_path / "hakam-outline_openvino" / "hakam-outline.xml"
    assert "FakeQuantize" in {op.get_type_name() for op in ov.Core().read_model(str(xml)).get_ops()}
    assert json.loads((tmp_path / "hakam-outline.json").read_text())["openvino_precision"] == "int8"
    finder = (tmp_path / "hakam-cards_openvino" / "hakam-cards.bin").read_bytes()
    cards_json = (tmp_path / "hakam-cards.json").read_text()
    (tmp_path / "hakam-outline_openvino" / "hakam-outline.bin").unlink()
    (tmp_path / "hakam-outline_openvino" / "hakam-outline.xml").unlink()
    done = quantize.quantize_models(
        tmp_path, scenes=3, calibration=fake_calibration, networks=["outline"]
    )
    assert set(done) == {"outline", "seconds"} and xml.exists()
    assert (tmp_path / "hakam-cards_openvino" / "hakam-cards.bin").read_bytes() == finder
    assert (tmp_path / "hakam-cards.json").read_text() == cards_json
    unit = CardReader(tmp_path / "hakam-outline_openvino").logits(
        np.zeros((2, OUTLINE_SIZE, OUTLINE_SIZE, 3), np.uint8)
    )
    assert unit.shape == (2, 8)


def test_quantize_refuses_a_network_the_folder_lacks_before_doing_anything(tmp_path):
    tiny_models(tmp_path)
    before = sorted(p.name for p in tmp_path.rglob("*"))
    with pytest.raises(ValueError, match=r"no hakam-outline\.json"):
        quantize.quantize_models(tmp_path, calibration=fake_calibration, networks=["outline"])
    with pytest.raises(ValueError, match=r"no hakam-index\.json"):
        quantize.quantize_models(tmp_path, calibration=fake_calibration, networks=["index"])
    with pytest.raises(ValueError, match="networks to quantize: strip"):
        quantize.quantize_models(tmp_path, calibration=fake_calibration, networks=["strip"])
    assert sorted(p.name for p in tmp_path.rglob("*")) == before


def with_index(folder: Path) -> None:
    """The corner reader's index network beside them, as `export-corners` writes it."""
    rng = np.random.default_rng(6)
    proj = rng.normal(0, 1, (8, READER_CLASSES)).astype(np.float32)
    conv_net(folder / "hakam-index.onnx", ["n", 3, 2 * PATCH_H, 2 * PATCH_W], ["n", READER_CLASSES],
             "logits", {"proj": proj})  # fmt: skip
    (folder / "hakam-index_openvino").mkdir()
    (folder / "hakam-index.json").write_text(
        json.dumps(
            {"kind": "index", "onnx": "hakam-index.onnx", "openvino": "hakam-index_openvino"}
        )
    )


def test_quantize_models_rebuilds_the_index_network_from_patches_cut_along_the_outlines(tmp_path):
    """Calibrated on one seed's patches and watched on another's, both cut along the outline
    network's full-precision ONNX; the other networks' files stay as they were."""
    import openvino as ov

    tiny_models(tmp_path)
    with_outline(tmp_path)
    with_index(tmp_path)
    asked = []

    def patches(n, seed, outline, progress=False):
        asked.append((n, seed, outline.name))
        rng = np.random.default_rng(seed)
        cut = [rng.integers(0, 255, (2 * PATCH_H, 2 * PATCH_W, 3), np.uint8) for _ in range(70)]
        return cut, rng.integers(0, READER_CLASSES, 70)

    finder = (tmp_path / "hakam-cards_openvino").glob("*")
    before = {p.name: p.read_bytes() for p in finder}
    done = quantize.quantize_models(
        tmp_path, scenes=5, calibration=fake_calibration, networks=["index"], patches=patches
    )
    assert set(done) == {"index", "seconds"}
    seeds = (quantize.CALIBRATION_SEED, quantize.VALIDATION_SEED)
    assert asked == [(5, seed, "hakam-outline.onnx") for seed in seeds]
    xml = tmp_path / "hakam-index_openvino" / "hakam-index.xml"
    assert "FakeQuantize" in {op.get_type_name() for op in ov.Core().read_model(str(xml)).get_ops()}
    assert json.loads((tmp_path / "hakam-index.json").read_text())["openvino_precision"] == "int8"
    after = {p.name: p.read_bytes() for p in (tmp_path / "hakam-cards_openvino").glob("*")}
    assert after == before
    probs = CardReader(tmp_path / "hakam-index_openvino").read(patches(1, 9, xml)[0][:2])
    assert probs.shape == (2, READER_CLASSES) and np.allclose(probs.sum(1), 1, atol=1e-4)


def test_quantize_refuses_the_index_network_without_the_outline_it_is_cut_along(tmp_path):
    tiny_models(tmp_path)
    with_index(tmp_path)
    with pytest.raises(ValueError, match="needs the outline network's ONNX"):
        quantize.quantize_models(tmp_path, calibration=fake_calibration, networks=["index"])


def test_mean_true_probability_is_what_the_network_gives_the_true_card():
    """The index network's accuracy control: a network sure of the wrong card scores 0."""

    def sure_of_card_2(batch):
        logits = np.full((len(batch), READER_CLASSES), -30.0, np.float32)
        logits[:, 2] = 30.0
        return [logits]

    x = np.zeros((4, 3, 2, 2), np.float32)
    score, _ = quantize.mean_true_probability(sure_of_card_2, [(x, np.array([2, 2, 2, 5]))])
    assert score == pytest.approx(0.75)
