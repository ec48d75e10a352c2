"""`hakam detect` and `hakam model eval` with the shipped model (runtime path, no torch)."""

import json
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from hakam.engine.cards import CARD_NAMES
from hakam.vision.detector import available_backends

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(not available_backends(), reason="no exported model in models/")


def hakam(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "hakam", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )


@pytest.fixture(scope="module")
def scenes(tmp_path_factory):
    from hakam.datasets import art
    from hakam.datasets.generator import SynthConfig, generate

    if not art.available_decks(holdout=False):
        pytest.skip("card art not installed")
    out = tmp_path_factory.mktemp("scenes")
    generate(
        SynthConfig(out, 12, seed=5, imgsz=640, workers=1, val_fraction=0, holdout_fraction=0),
        progress=False,
    )
    return out / "train"


def test_detect_json_prints_one_line_per_image_with_baloot_cards_only(scenes, tmp_path):
    images = sorted((scenes / "images").glob("*.jpg"))[:3]
    bad = tmp_path / "broken.jpg"
    bad.write_bytes(b"not a jpeg")
    r = hakam("detect", "--json", str(images[0]), str(bad), str(images[1]))
    assert r.returncode == 2
    lines = [json.loads(x) for x in r.stdout.splitlines()]
    assert [x["image"] for x in lines] == [str(images[0]), str(bad), str(images[1])]
    assert "error" in lines[1]
    assert len(r.stderr.strip().splitlines()) == 1 and "broken.jpg" in r.stderr
    for line in (lines[0], lines[2]):
        names = [c["card"] for c in line["cards"]]
        assert len(names) == len(set(names)), "the deck has each card once"
        for c in line["cards"]:
            assert c["card"] in CARD_NAMES and 0 <= c["conf"] <= 1 and len(c["box"]) == 4


@pytest.mark.parametrize("stages", [1, 2])
def test_detect_reads_a_large_clear_card(stages):
    """A card filling a plain frame is read as itself (the model's most basic promise)."""
    from hakam.datasets import art
    from hakam.vision.detector import reader_path

    if stages == 2 and not reader_path("openvino").exists():
        pytest.skip("no card reader in models/")
    from hakam.datasets.generator import sample_camera
    from hakam.datasets.scene import CardPlacement, Renderer

    decks = art.available_decks(holdout=False)
    if not decks:
        pytest.skip("card art not installed")
    renderer = Renderer(art.load_deck_images(decks[0]))
    rng = np.random.default_rng(0)
    cam = sample_camera(rng, 640, 480, (0.5, 0.5))
    cam.tilt, cam.k1 = 0.0, 0.0
    hits = 0
    for name in ("AS", "10H", "7C", "KD"):
        img, _ = renderer.render(
            rng,
            cam,
            np.full((64, 64, 3), (40, 110, 30), np.uint8),
            [CardPlacement(name, 0, 0, 0)],
            [],
            {
                "light": False,
                "glare": 0,
                "noise": 0,
                "motion": False,
                "defocus": False,
                "temperature": False,
            },
        )
        from hakam.vision.detector import make_detector

        d = make_detector(conf=0.25, stages=stages).detect(img)
        hits += name in [CARD_NAMES[int(c)] for c in d.class_id]
    assert hits >= 3


def test_model_eval_prints_box_and_set_metrics(scenes):
    r = hakam("model", "eval", "--data", str(scenes), "--json")
    assert r.returncode == 0, r.stderr
    rep = json.loads(r.stdout)[0]
    assert rep["images"] == len(list((scenes / "images").glob("*.jpg")))
    for key in ("map50", "map5095", "precision", "recall", "exact", "confusions"):
        assert key in rep
    assert 0 <= rep["precision"] <= 1 and 0 <= rep["map50"] <= 1


def test_model_eval_on_a_missing_folder_is_a_one_line_error(tmp_path):
    r = hakam("model", "eval", "--data", str(tmp_path / "nothing"))
    assert r.returncode == 2
    assert r.stderr.strip().startswith("hakam: error:") and "Traceback" not in r.stderr


def write_cv2_image(path: Path) -> None:
    cv2.imwrite(str(path), np.zeros((8, 8, 3), np.uint8))


def test_model_tune_refuses_evaluation_sets(tmp_path):
    for data in (tmp_path / "cardcounter-real", tmp_path / "synth" / "holdout"):
        r = hakam("model", "tune", "--data", str(data))
        assert r.returncode == 2, r.stderr
        assert "evaluation-only" in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_two_stages_without_a_reader_is_a_one_line_error(tmp_path):
    (tmp_path / "hakam-cards.onnx").symlink_to(ROOT / "models" / "hakam-cards.onnx")
    r = hakam("detect", "--models-dir", str(tmp_path), "--stages", "2", str(tmp_path / "x.jpg"))
    assert r.returncode == 2
    assert (
        r.stderr.startswith("hakam: error: onnx: no card reader at") and "Traceback" not in r.stderr
    )


@pytest.mark.parametrize(
    "flag, why",
    [("--court-swap", "must be between 0 and 1"), ("--disguise", "must be between 0 and 1"),
     ("--grey", "a share from 0 to 1")],
)  # fmt: skip
def test_train_reader_refuses_a_share_outside_0_to_1(tmp_path, flag, why):
    r = hakam("model", "train-reader", flag, "1.5", "--data", str(tmp_path / "d"))
    assert r.returncode == 2
    assert r.stderr.strip() == f"hakam: error: {flag} 1.5: {why}"
    assert not (tmp_path / "d").exists()


def test_tune_takes_the_smallest_finder_size_within_one_standard_error():
    from hakam.training.tuning import smallest_within_one_se

    rows = [
        {"imgsz": 640, "exact": 0.40, "recall": 0.6},
        {"imgsz": 512, "exact": 0.39, "recall": 0.6},
        {"imgsz": 416, "exact": 0.33, "recall": 0.5},
    ]
    # 300 images: one standard error of 0.40 is 0.028, so 512 is as good as the tuning set tells
    assert smallest_within_one_se(rows, 300)["imgsz"] == 512
    # 30,000 images tell 0.39 from 0.40 (one standard error 0.003)
    assert smallest_within_one_se(rows, 30000)["imgsz"] == 640


def test_tune_turns_the_reader_only_where_it_reads_more_than_noise():
    from hakam.training.tuning import smallest_within_one_se

    # round 5 on the 300 tuning scenes (2026-11-30): 46.5% with one view, 47.1% with four
    rows = [
        {"turns": 1, "exact": 0.465, "recall": 0.56},
        {"turns": 4, "exact": 0.471, "recall": 0.56},
    ]
    assert smallest_within_one_se(rows, 297, cost="turns")["turns"] == 1
    rows[1]["exact"] = 0.53
    assert smallest_within_one_se(rows, 297, cost="turns")["turns"] == 4


def test_tune_takes_the_corner_reader_where_it_reads_more_than_noise():
    from hakam.training.tuning import smallest_within_one_se

    # the shipped models with the first corner reader on the 297 tuning scenes (2026-11-30)
    rows = [
        {"corners": 0.0, "exact": 0.4646, "recall": 0.56},
        {"corners": 0.5, "exact": 0.5152, "recall": 0.58},
        {"corners": 1.0, "exact": 0.4478, "recall": 0.51},
    ]
    assert smallest_within_one_se(rows, 297, cost="corners")["corners"] == 0.5
    rows[1]["exact"] = 0.47
    assert smallest_within_one_se(rows, 297, cost="corners")["corners"] == 0.0


def test_a_model_card_asking_for_missing_corner_networks_is_a_one_line_error(tmp_path):
    for name in ("hakam-cards.onnx", "hakam-reader.onnx"):
        (tmp_path / name).symlink_to(ROOT / "models" / name)
    card = json.loads((ROOT / "models" / "hakam-cards.json").read_text())
    card["stages"], card["two_stage"]["corners"] = 2, 0.5
    (tmp_path / "hakam-cards.json").write_text(json.dumps(card))
    r = hakam("detect", "--models-dir", str(tmp_path), "--backend", "onnx", str(tmp_path / "x.jpg"))
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr.startswith("hakam: error: onnx: the model card asks for the corner reader")
    assert len(r.stderr.strip().splitlines()) == 1


def detect_with_corner_setting(tmp_path, key: str, value) -> subprocess.CompletedProcess:
    """``hakam detect`` with the shipped ONNX networks and a model card whose two-stage
    ``key`` is ``value``."""
    for name in ("hakam-cards.onnx", "hakam-reader.onnx", "hakam-outline.onnx", "hakam-index.onnx"):
        (tmp_path / name).symlink_to(ROOT / "models" / name)
    card = json.loads((ROOT / "models" / "hakam-cards.json").read_text())
    card["two_stage"][key] = value
    (tmp_path / "hakam-cards.json").write_text(json.dumps(card))
    return hakam(
        "detect", "--models-dir", str(tmp_path), "--backend", "onnx", str(tmp_path / "x.jpg")
    )


def test_a_model_card_asking_for_outline_passes_out_of_range_is_a_one_line_error(tmp_path):
    r = detect_with_corner_setting(tmp_path, "outline_passes", 5)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr.strip() == "hakam: error: hakam-cards.json: outline passes: 5 (1 to 3)"


def test_tune_takes_the_best_outline_trim_only_where_it_reads_more_than_noise():
    from hakam.training.tuning import trim_or_none

    # 2,286 tuning scenes (2026-12-03): none 57.31%, trims 0.08 / 0.15 / 0.25 58.44 / 58.62 /
    # 57.66%; one standard error is 1.03 points, and every trim costs the same
    rows = [
        {"outline_trim": 0.0, "exact": 0.5731, "recall": 0.665},
        {"outline_trim": 0.08, "exact": 0.5844, "recall": 0.700},
        {"outline_trim": 0.15, "exact": 0.5862, "recall": 0.707},
        {"outline_trim": 0.25, "exact": 0.5766, "recall": 0.695},
    ]
    assert trim_or_none(rows, 2286)["outline_trim"] == 0.15
    assert trim_or_none(rows, 300)["outline_trim"] == 0.0  # 300 scenes cannot tell them apart
    assert trim_or_none(rows[:1], 2286)["outline_trim"] == 0.0


def test_a_model_card_asking_for_an_outline_trim_out_of_range_is_a_one_line_error(tmp_path):
    r = detect_with_corner_setting(tmp_path, "outline_trim", 0.6)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr.strip() == "hakam: error: hakam-cards.json: outline trim: 0.6 (0 to 0.4)"


def test_tune_of_outline_passes_without_the_corner_reader_is_a_one_line_error(tmp_path):
    for name in ("hakam-cards.onnx", "hakam-reader.onnx"):
        (tmp_path / name).symlink_to(ROOT / "models" / name)
    card = json.loads((ROOT / "models" / "hakam-cards.json").read_text())
    card["two_stage"]["corners"] = 0.0
    (tmp_path / "hakam-cards.json").write_text(json.dumps(card))
    before = (tmp_path / "hakam-cards.json").read_text()
    r = hakam("model", "tune", "--outline-only", "--models-dir", str(tmp_path), "--backend",
              "onnx", "--data", str(tmp_path / "tune"), "--write")  # fmt: skip
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr.strip() == (
        "hakam: error: the shipped two stages do not use the corner reader: nothing to choose"
    )
    assert (tmp_path / "hakam-cards.json").read_text() == before  # nothing written
    r = hakam("model", "tune", "--outline-only", "--indices-only", "--data", str(tmp_path / "t"))
    assert r.returncode == 2
    assert r.stderr.strip() == "hakam: error: --indices-only and --outline-only: one at a time"


def test_tune_of_the_index_finder_without_its_model_is_a_one_line_error(tmp_path):
    (tmp_path / "hakam-cards.onnx").symlink_to(ROOT / "models" / "hakam-cards.onnx")
    r = hakam("model", "tune", "--indices-only", "--models-dir", str(tmp_path), "--backend",
              "onnx", "--data", str(tmp_path / "tune"), "--write")  # fmt: skip
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr.startswith("hakam: error: no finder of corner indices at")
    assert not (tmp_path / "hakam-cards.json").exists()  # nothing written
