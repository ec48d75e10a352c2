"""The card reader's crop dataset (no torch; its network is tested in test_reader_networks)."""

from __future__ import annotations

import numpy as np
import pytest

from hakam.engine.cards import CARD_NAMES
from hakam.training.reader import (
    MIN_VISIBLE,
    STORE_SIZE,
    _iou,
    jitter_box,
    random_patch,
    scene_crops,
)
from hakam.vision.reader import OTHER


def test_jitter_box_moves_sides_by_a_share_of_the_size():
    rng = np.random.default_rng(0)
    boxes = np.array([jitter_box(rng, (100, 100, 200, 300), 0.05) for _ in range(2000)])
    moved = boxes - np.array([100, 100, 200, 300])
    assert abs(moved[:, 0].std() - 5) < 0.5  # 5% of the width
    assert abs(moved[:, 1].std() - 10) < 1.0  # 5% of the height


def test_random_patch_avoids_the_cards():
    rng = np.random.default_rng(1)
    card = (0, 0, 320, 480)
    patches = [random_patch(rng, 640, 480, [card]) for _ in range(50)]
    found = [p for p in patches if p is not None]
    assert len(found) > 25
    for patch in found:
        assert _iou(patch, card) < 0.25
        assert 0 <= patch[0] < patch[2] <= 640 and 0 <= patch[1] < patch[3] <= 480


def test_scene_crops_label_every_visible_card_and_some_negatives():
    from hakam.datasets import art
    from hakam.datasets.generator import render_one

    decks = art.available_decks(holdout=False)
    if not decks:
        pytest.skip("card art not installed")
    total = others = 0
    for i in range(6):
        crops, classes = scene_crops(3, i, decks)
        _img, labels, _meta = render_one(3, "train", i, 640, decks)
        named = [c for c in classes if c != OTHER]
        shown = [lb for lb in labels if lb.visible >= MIN_VISIBLE]
        assert sorted(named) == sorted(CARD_NAMES.index(lb.card) for lb in shown)
        assert all(c.shape == (STORE_SIZE, STORE_SIZE, 3) for c in crops)
        total += len(classes)
        others += len(classes) - len(named)
    assert 0 < others < total


def test_labelled_photos_reads_the_splits_asked_for_and_never_the_test_photos(tmp_path):
    import cv2

    from hakam.training.reader import labelled_photos
    from hakam.vision.reader import OTHER

    (tmp_path / "data.yaml").write_text("names: [2C, JD]\n")
    for split in ("train", "valid"):
        (tmp_path / split / "images").mkdir(parents=True)
        (tmp_path / split / "labels").mkdir(parents=True)
        cv2.imwrite(str(tmp_path / split / "images" / "a.jpg"), np.zeros((100, 200, 3), np.uint8))
        (tmp_path / split / "labels" / "a.txt").write_text("1 0.5 0.5 0.1 0.2\n0 0.2 0.2 0.1 0.1\n")
    both = list(labelled_photos(tmp_path))
    train = list(labelled_photos(tmp_path, ("train",)))
    assert len(both) == 2 and len(train) == 1
    assert [c for c, _ in train[0][1]] == [CARD_NAMES.index("JD"), OTHER]
    np.testing.assert_allclose(train[0][1][0][1], (90, 40, 110, 60), atol=1e-6)
    with pytest.raises(ValueError, match="evaluation-only"):
        list(labelled_photos(tmp_path, ("test",)))
