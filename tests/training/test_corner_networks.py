"""The corner reader's two networks: losses, augmentation, training, export (torch only; the
samples, which need no torch, are tested in test_corner_training)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from hakam.vision.corners import OUTLINE_SIZE, PATCH_H, PATCH_W
from hakam.vision.indices import STRIP_SIZE
from hakam.vision.reader import READER_CLASSES

torch = pytest.importorskip("torch", reason="the train extra is not installed")

ROOT = Path(__file__).resolve().parents[2]


def train_corners(*args: str) -> subprocess.CompletedProcess:
    """``hakam model train-corners ARGS`` in a fresh process, as a user types it."""
    return subprocess.run(
        [sys.executable, "-m", "hakam", "model", "train-corners", *args],
        capture_output=True, text=True, cwd=ROOT, timeout=120,
    )  # fmt: skip


def test_outline_loss_takes_either_start_of_the_corners():
    from hakam.training.corners import outline_loss

    target = torch.rand(3, 8)
    turned = torch.roll(target.view(3, 4, 2), 2, 1).reshape(3, 8)
    assert float(outline_loss(target, target)) == 0.0
    assert float(outline_loss(turned, target)) == 0.0
    assert float(outline_loss(target[:, [2, 3, 0, 1, 6, 7, 4, 5]], target)) > 0  # tr first


def test_busy_paper_paints_art_on_the_paper_and_leaves_the_glyph():
    from hakam.training.corners import busy_paper

    x = torch.ones(32, 3, 96, 64)  # white paper
    x[:, :, 10:30, 8:20] = 0.05  # a black glyph
    g = torch.Generator().manual_seed(3)
    out = busy_paper(x, 1.0, g)
    assert torch.allclose(out[:, :, 10:30, 8:20], x[:, :, 10:30, 8:20], atol=1e-6)
    changed = (out - x).abs().mean((1, 2, 3)) > 0.01
    assert changed.float().mean() > 0.75  # art on the paper (a white ink may hide it)
    # the top-left of each tile (where the index is) keeps its paper
    assert torch.equal(out[:, :, :4, :4], x[:, :, :4, :4])
    assert torch.equal(busy_paper(x, 0.0, g), x)


def test_photometric_shows_the_grey_share_of_inputs_without_colour():
    from hakam.training.corners import index_augment
    from hakam.training.reader import augment, photometric

    x = torch.zeros(400, 3, 8, 8)
    x[:, 0] = 0.8  # red ink: only its colour tells hearts from spades
    g = torch.Generator().manual_seed(5)

    def grey_share(out):
        flat = (out.max(1).values - out.min(1).values) < 1e-6
        return float(flat.all(-1).all(-1).float().mean())

    assert grey_share(photometric(x, g, grey=0.0)) == 0.0
    assert grey_share(photometric(x, g, grey=1.0)) == 1.0
    assert 0.15 < grey_share(photometric(x, g, grey=0.25)) < 0.35
    patches = torch.zeros(400, PATCH_H, PATCH_W, 3, dtype=torch.uint8)
    patches[..., 2] = 200  # BGR red
    assert grey_share(index_augment(patches, g, grey=1.0)) == 1.0
    assert grey_share(index_augment(patches, g, grey=0.0)) == 0.0
    crops = torch.zeros(400, 112, 112, 3, dtype=torch.uint8)
    crops[..., 2] = 200  # the whole-card reader's crops, BGR red
    assert grey_share(augment(crops, 32, g, grey=1.0)) == 1.0
    assert grey_share(augment(crops, 32, g, grey=0.0)) == 0.0


def test_strip_augment_turns_each_crop_by_a_quarter_and_keeps_it_in_range():
    """A strip of a fan lies every way up: the augmented crops of one index come in the four
    quarter turns; shape and range are the reader's input."""
    from hakam.training.corners import strip_augment

    crop = np.zeros((1, STRIP_SIZE, STRIP_SIZE, 3), np.uint8)
    crop[0, :10, :10] = 255  # a bright top-left corner shows which way up it is
    batch = torch.from_numpy(np.repeat(crop, 64, 0))
    x = strip_augment(batch, torch.Generator().manual_seed(0), grey=0.0)
    assert x.shape == (64, 3, STRIP_SIZE, STRIP_SIZE) and 0 <= float(x.min()) <= float(x.max()) <= 1
    q = STRIP_SIZE // 4
    corners = torch.stack([x[:, :, :q, :q], x[:, :, :q, -q:], x[:, :, -q:, -q:], x[:, :, -q:, :q]])
    brightest = corners.mean((2, 3, 4)).argmax(0)
    assert set(brightest.tolist()) == {0, 1, 2, 3}


def test_export_net_runs_on_both_runtimes(tmp_path):
    from hakam.training.corners import export_net, net
    from hakam.vision.reader import CardReader

    for kind, shape, outputs in (
        ("outline", (OUTLINE_SIZE, OUTLINE_SIZE), 8),
        ("index", (2 * PATCH_H, 2 * PATCH_W), READER_CLASSES),
        ("strip", (STRIP_SIZE, STRIP_SIZE), READER_CLASSES),
    ):
        ck = {"model": net(kind).state_dict(), "kind": kind, "epoch": 0, "score": 0.5}
        torch.save(ck, tmp_path / f"{kind}.pt")
        info = export_net(tmp_path / f"{kind}.pt", tmp_path)
        x = np.random.default_rng(0).integers(0, 256, (2, *shape, 3), np.uint8)
        onnx = CardReader(tmp_path / info["onnx"], "onnx").logits(x)
        ov = CardReader(tmp_path / info["openvino"], "openvino").logits(x)
        assert onnx.shape == (2, outputs)
        assert np.allclose(onnx, ov, atol=1e-3)


def test_train_net_trains_each_network_and_resumes(tmp_path):
    from hakam.training.corners import train_net

    rng = np.random.default_rng(0)
    data = tmp_path / "d"
    data.mkdir()
    n = 40
    np.save(
        data / "outline.npy", rng.integers(0, 255, (n, OUTLINE_SIZE, OUTLINE_SIZE, 3), np.uint8)
    )
    np.save(data / "quad.npy", rng.random((n, 8), np.float32))
    np.save(data / "index.npy", rng.integers(0, 255, (n, 2 * PATCH_H, 2 * PATCH_W, 3), np.uint8))
    np.save(data / "card.npy", rng.integers(0, READER_CLASSES, n).astype(np.int16))
    np.save(data / "strip.npy", rng.integers(0, 255, (n, STRIP_SIZE, STRIP_SIZE, 3), np.uint8))
    for kind in ("outline", "index", "strip"):
        best = train_net(kind, [data], tmp_path / kind, epochs=2, batch=16)
        ck = torch.load(tmp_path / kind / "last.pt", weights_only=False)
        assert best.exists() and ck["kind"] == kind and ck["epoch"] == 1
        rows = (tmp_path / kind / "results.csv").read_text().splitlines()
        assert len(rows) == 2
        # Resuming a finished run trains no more epochs and keeps its checkpoint.
        train_net(
            kind, [data], tmp_path / kind, epochs=2, batch=16, resume=tmp_path / kind / "last.pt"
        )
        assert len((tmp_path / kind / "results.csv").read_text().splitlines()) == 2


def test_train_corners_refuses_real_samples_cut_along_another_outline(tmp_path):
    real = tmp_path / "rf"
    real.mkdir()
    (real / "data.yaml").write_text("names: ['QH']\n")
    (tmp_path / "d").mkdir()
    np.save(tmp_path / "d" / "card.npy", np.zeros(1, np.int16))
    (tmp_path / "d-real").mkdir()
    (tmp_path / "d-real" / "summary.json").write_text(json.dumps({"outline": "old.onnx"}))
    (tmp_path / "new.onnx").write_bytes(b"")
    r = train_corners(
        "index", "--data", str(tmp_path / "d"), "--real", str(real),
        "--outline", str(tmp_path / "new.onnx"),
    )  # fmt: skip
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1
    assert f"{tmp_path / 'd-real'} was cut with another network than" in r.stderr
    assert sorted(p.name for p in (tmp_path / "d-real").iterdir()) == ["summary.json"]


def test_train_corners_leaves_tuning_designs_out_and_refuses_samples_cut_otherwise(tmp_path):

    def run(*args):
        return train_corners("index", "--real", "none", "--data", str(tmp_path), *args)

    r = run("--leave-out", "kennard")
    assert r.returncode == 2 and r.stderr.strip().splitlines()[-1].endswith(
        "--leave-out: kennard is a hold-out design (evaluation only)"
    )
    np.save(tmp_path / "card.npy", np.zeros(1, np.int16))
    (tmp_path / "summary.json").write_text(json.dumps({"left_out": ["anglo"]}))
    r = run()
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1
    assert "its samples leave out ['anglo'], not no design" in r.stderr
    # Real photos have no deck design: a folder of them goes with any --leave-out.
    (tmp_path / "summary.json").write_text(json.dumps({"real": "rf100"}))
    r = run("--leave-out", "anglo", "--epochs", "0")
    assert r.returncode == 2 and r.stderr.strip().splitlines() == [
        "hakam: error: --epochs 0: must be at least 1"
    ]
    r = run("--grey", "1.5")
    assert r.returncode == 2 and r.stderr.strip().splitlines() == [
        "hakam: error: --grey 1.5: a share from 0 to 1"
    ]


def test_train_corners_draws_lettering_once_and_refuses_a_folder_drawn_otherwise(tmp_path):

    def run(*args):
        return train_corners(*args, "--real", "none", "--data", str(tmp_path / "d"))

    (tmp_path / "d").mkdir()
    np.save(tmp_path / "d" / "card.npy", np.zeros(1, np.int16))
    (tmp_path / "d" / "summary.json").write_text(json.dumps({"left_out": []}))
    r = run("outline", "--lettering", "5")
    assert r.returncode == 2 and r.stderr.strip().splitlines() == [
        "hakam: error: --lettering 5: a number of index or strip samples (not outline)"
    ]
    drawn = tmp_path / "d-lettering"
    drawn.mkdir()
    (drawn / "summary.json").write_text(json.dumps({"lettering": 5, "seed": 2}))
    r = run("index", "--lettering", "5", "--seed", "3")
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1
    assert "holds 5 index lettering samples of seed 2, not 5 index ones of seed 3" in r.stderr
    assert sorted(p.name for p in drawn.iterdir()) == ["summary.json"]


def test_train_corners_strip_cuts_only_from_index_scenes_and_refuses_corner_samples(tmp_path):
    """The strip reader's samples are cut from index scenes; a folder of other samples or no
    scenes to cut from is a one-line error, and nothing is written."""
    corner = tmp_path / "corner"
    corner.mkdir()
    np.save(corner / "card.npy", np.zeros(2, np.int16))
    cut = tmp_path / "cut"
    cut.mkdir()
    np.save(cut / "strip.npy", np.zeros((2, STRIP_SIZE, STRIP_SIZE, 3), np.uint8))
    np.save(cut / "card.npy", np.zeros(2, np.int16))
    for args, said in (
        (["--data", str(tmp_path / "s")], "no strips there; give --index-scenes"),
        (["--data", str(tmp_path / "s"), "--index-scenes", str(tmp_path / "none")],
         "no train/labels"),
        (["--data", str(corner)], "holds corner samples, not strips"),
        (["--data", str(cut), "--data", str(tmp_path / "s")],
         "no strips there; only the first --data is cut"),
    ):  # fmt: skip
        r = train_corners("strip", *args, "--out", str(tmp_path / "out"))
        assert r.returncode == 2 and said in r.stderr, r.stderr
        assert len(r.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "s").exists() and not (tmp_path / "out").exists()


def test_train_corners_strip_refuses_real_strips_cut_with_another_finder(tmp_path):
    cut = tmp_path / "cut"
    cut.mkdir()
    np.save(cut / "strip.npy", np.zeros((2, STRIP_SIZE, STRIP_SIZE, 3), np.uint8))
    np.save(cut / "card.npy", np.zeros(2, np.int16))
    real = tmp_path / "cut-real"
    real.mkdir()
    (real / "summary.json").write_text(json.dumps({"finder_sha256": "another"}))
    (tmp_path / "photos").mkdir()
    (tmp_path / "photos" / "data.yaml").write_text("names: [7C]\n")
    root = Path(__file__).resolve().parents[2]
    r = train_corners("strip", "--data", str(cut), "--real", str(tmp_path / "photos"),
                      "--finder", str(root / "models" / "hakam-index.onnx"),
                      "--out", str(tmp_path / "out"))  # fmt: skip
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1
    assert f"{real} was cut with another network than" in r.stderr
    assert not (tmp_path / "out").exists()
