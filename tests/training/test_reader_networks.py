"""The card reader's network: training, export, the command (torch only; the crop dataset,
which needs no torch, is tested in test_reader_training)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from hakam.training.reader import STORE_SIZE
from hakam.vision.reader import CROP_SIZE, READER_CLASSES

ROOT = Path(__file__).resolve().parents[2]

torch = pytest.importorskip("torch", reason="the train extra is not installed")


def test_reader_net_maps_crops_to_reader_classes():
    from hakam.training.reader import augment, center_input, reader_net

    stored = torch.randint(0, 255, (5, STORE_SIZE, STORE_SIZE, 3), dtype=torch.uint8)
    x = augment(stored, generator=torch.Generator().manual_seed(0))
    assert x.shape == (5, 3, CROP_SIZE, CROP_SIZE) and 0 <= float(x.min()) <= float(x.max()) <= 1
    assert center_input(stored).shape == x.shape
    assert reader_net().eval()(x).shape == (5, READER_CLASSES)


def test_train_reader_cli_refuses_a_missing_checkpoint(tmp_path):
    r = subprocess.run(
        [sys.executable, "-m", "hakam", "model", "train-reader", "--resume", str(tmp_path / "x")],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert r.returncode == 2
    assert r.stderr.strip() == f"hakam: error: --resume {tmp_path / 'x'}: no such checkpoint"


def test_export_reader_runs_on_both_runtimes_without_torch_at_run_time(tmp_path):
    from hakam.training.reader import export_reader, reader_net
    from hakam.vision.reader import CardReader

    torch.save({"model": reader_net().state_dict(), "val_acc": 0.5, "epoch": 0}, tmp_path / "r.pt")
    info = export_reader(tmp_path / "r.pt", tmp_path / "out")
    assert info["crop_size"] == CROP_SIZE and len(info["classes"]) == READER_CLASSES
    crops = [np.full((CROP_SIZE, CROP_SIZE, 3), v, np.uint8) for v in (0, 128, 255)]
    reads = []
    for backend, path in (("onnx", "hakam-reader.onnx"), ("openvino", "hakam-reader_openvino")):
        reader = CardReader(tmp_path / "out" / path, backend)
        assert reader.size == CROP_SIZE
        p = reader.read(crops)
        assert p.shape == (3, READER_CLASSES) and np.allclose(p.sum(1), 1, atol=1e-4)
        reads.append(p)
    assert np.allclose(reads[0], reads[1], atol=0.02)  # FP16 OpenVINO weights vs FP32 ONNX
    assert (tmp_path / "out" / "hakam-reader.pt").exists()


def test_leave_out_keeps_tuning_designs_out_of_the_reader_crops():
    from hakam.datasets import art
    from hakam.training import reader as reader_training

    decks = [d.name for d in art.available_decks(holdout=False)]
    if len(decks) < 2:
        pytest.skip("card art not installed")
    reader_training._init((decks[0],))
    assert [d.name for d in reader_training._DECKS] == decks[1:]
    reader_training._init()
    assert [d.name for d in reader_training._DECKS] == decks


def test_train_reader_refuses_a_hold_out_design_and_a_crop_folder_cut_otherwise(tmp_path):
    def run(*args):
        return subprocess.run([sys.executable, "-m", "hakam", "model", "train-reader", *args],
                              capture_output=True, text=True, cwd=ROOT, timeout=120)  # fmt: skip

    r = run("--leave-out", "kennard", "--data", str(tmp_path))
    assert r.returncode == 2 and r.stderr.strip().splitlines()[-1].endswith(
        "--leave-out: kennard is a hold-out design (evaluation only)"
    )
    (tmp_path / "crops.npy").write_bytes(b"")
    (tmp_path / "summary.json").write_text('{"left_out": ["anglo"]}')
    r = run("--data", str(tmp_path))
    assert r.returncode == 2 and "its crops leave out ['anglo'], not no design" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


def test_a_reader_trained_at_another_side_is_exported_and_read_at_it(tmp_path):
    from hakam.training.reader import checkpoint_size, export_reader, reader_net
    from hakam.vision.reader import CardReader

    assert checkpoint_size({"model": {}}) == CROP_SIZE  # checkpoints before the option
    torch.save({"model": reader_net().state_dict(), "crop_size": 160}, tmp_path / "r.pt")
    assert export_reader(tmp_path / "r.pt", tmp_path / "out")["crop_size"] == 160
    assert checkpoint_size(torch.load(tmp_path / "out" / "hakam-reader.pt")) == 160
    for backend, path in (("onnx", "hakam-reader.onnx"), ("openvino", "hakam-reader_openvino")):
        reader = CardReader(tmp_path / "out" / path, backend)
        assert reader.size == 160  # the pipeline cuts its crops at the reader's side
        assert reader.read([np.zeros((160, 160, 3), np.uint8)]).shape == (1, READER_CLASSES)


def test_train_reader_cli_refuses_another_size_on_resume(tmp_path):
    from hakam.training.reader import reader_net

    torch.save({"model": reader_net().state_dict()}, tmp_path / "last.pt")
    for size, message in (
        ("16", "--size 16: between 32 and 512 pixels"),
        ("160", f"--size 160: {tmp_path / 'last.pt'} was trained at 112"),
    ):
        r = subprocess.run(
            [sys.executable, "-m", "hakam", "model", "train-reader", "--resume",
             str(tmp_path / "last.pt"), "--size", size, "--data", str(tmp_path / "d")],
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=120,
        )  # fmt: skip
        assert r.returncode == 2
        assert r.stderr.strip() == f"hakam: error: {message}"
    assert not (tmp_path / "d").exists()
