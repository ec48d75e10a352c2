"""The corner reader's samples (no torch; its networks are tested in test_corner_networks)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from hakam.datasets.scene import Label
from hakam.engine.cards import CARD_NAMES
from hakam.training.corners import (
    MIN_INDEX_SHOWN,
    finder_match,
    jitter_quad,
    joined_box,
    random_quad,
    readable,
    scene_samples,
    touches,
    widened_box,
)
from hakam.training.reader import MIN_VISIBLE, _iou
from hakam.vision.corners import OUTLINE_SIZE, PATCH_H, PATCH_W, UNIT, crop_to_quad
from hakam.vision.reader import OTHER


@pytest.fixture
def decks():
    """The training deck designs; the tests that render scenes skip where the art is missing."""
    from hakam.datasets import art

    found = art.available_decks(holdout=False)
    if not found:
        pytest.skip("card art not installed")
    return found


def test_jitter_quad_moves_corners_a_little_and_half_the_time_starts_bottom_right():
    rng = np.random.default_rng(0)
    quad = UNIT * [100, 140] + [50, 50]
    diag = float(np.hypot(100, 140))
    turned = 0
    for _ in range(400):
        q = jitter_quad(rng, quad, 0.02)
        a = np.linalg.norm(q - quad, axis=1).mean()
        b = np.linalg.norm(q - np.roll(quad, 2, 0), axis=1).mean()
        turned += b < a
        assert min(a, b) < 0.15 * diag
    assert 150 < turned < 250


def test_random_quad_is_a_card_shape_inside_the_object():
    rng = np.random.default_rng(1)
    for _ in range(50):
        q = random_quad(rng, (10, 20, 110, 220))
        assert np.all(q[:, 0] >= 10 - 1e-6) and np.all(q[:, 0] <= 110 + 1e-6)
        assert np.all(q[:, 1] >= 20 - 1e-6) and np.all(q[:, 1] <= 220 + 1e-6)
        w, h = np.linalg.norm(q[1] - q[0]), np.linalg.norm(q[3] - q[0])
        assert h == pytest.approx(1.4 * w, rel=1e-6)


def test_scene_samples_give_every_visible_card_its_true_corners(decks):
    from hakam.datasets.generator import render_one

    for i in range(4):
        s = scene_samples(3, i, decks)
        _img, labels, _meta = render_one(3, "train", i, 640, decks)
        shown = [lb for lb in labels if readable(lb)]
        assert len(s["outline"]) == len(s["quad"]) == len(shown)
        assert s["visible"] == [lb.visible for lb in shown]
        named = [c for c in s["card"] if c != OTHER]
        assert named == [CARD_NAMES.index(lb.card) for lb in shown]
        assert all(o.shape == (OUTLINE_SIZE, OUTLINE_SIZE, 3) for o in s["outline"])
        assert all(p.shape == (2 * PATCH_H, 2 * PATCH_W, 3) for p in s["index"])
        for lb, q in zip(shown, s["quad"], strict=True):
            # The crop's box was moved at random, so go back through a box the size of the
            # card's: the corners' shape survives, whatever the box.
            box = [*np.min(lb.corners, 0), *np.max(lb.corners, 0)]
            back = crop_to_quad(q, box)
            sides = np.linalg.norm(np.roll(back, -1, 0) - back, axis=1)
            true = np.linalg.norm(np.roll(np.array(lb.corners), -1, 0) - lb.corners, axis=1)
            assert np.allclose(sides / sides.sum(), true / true.sum(), atol=0.05)


def test_readable_cards_are_those_mostly_in_sight_and_fan_strips_whose_index_shows():
    corners = ((0, 0), (10, 0), (10, 14), (0, 14))
    shown = Label("QS", (0, 0, 10, 14), MIN_VISIBLE, 0.0, corners=corners)
    strip = Label("QS", (0, 0, 10, 14), 0.1, MIN_INDEX_SHOWN, corners=corners)
    covered = Label("QS", (0, 0, 10, 14), 0.35, MIN_INDEX_SHOWN - 0.01, corners=corners)
    assert readable(shown) and readable(strip) and not readable(covered)
    assert readable(shown, strips=False) and not readable(strip, strips=False)
    assert not readable(Label("QS", (0, 0, 10, 14), 1.0, 1.0))  # no corners to cut along


def test_scene_samples_teach_the_strips_of_fans_too(decks):
    visible = [v for i in range(12) for v in scene_samples(3, i, decks)["visible"]]
    without = [v for i in range(12) for v in scene_samples(3, i, decks, strips=False)["visible"]]
    assert any(v < MIN_VISIBLE for v in visible)
    assert not any(v < MIN_VISIBLE for v in without)


def test_finder_match_takes_the_box_overlapping_the_card_most_if_enough():
    found = np.array([[0, 0, 10, 10], [50, 50, 90, 110], [48, 52, 100, 100]], np.float32)
    assert np.array_equal(finder_match((50, 50, 90, 110), found), found[1])
    assert finder_match((200, 200, 240, 260), found) is None
    assert finder_match((0, 0, 10, 10), np.zeros((0, 4))) is None


def test_scene_samples_add_an_outline_sample_from_each_finder_box_on_a_card(decks, monkeypatch):
    from hakam.training import corners as corner_training

    moved = []
    off = np.array([3, -2, 4, 1], np.float32)

    class Finder:
        """Boxes every card a little off, as a finder would."""

        def boxes(self, image):
            out = np.array([np.add(lb.box, off) for lb in moved], np.float32)
            return out.reshape(-1, 4)

    monkeypatch.setattr(corner_training, "shipped_finder", Finder)
    from hakam.datasets.generator import render_one

    for i in range(3):
        _img, labels, _meta = render_one(3, "train", i, 640, decks)
        moved[:] = labels
        s = scene_samples(3, i, decks, finder_boxes=True)
        shown = [lb for lb in labels if readable(lb)]
        assert len(s["outline"]) == len(s["quad"]) == 2 * len(shown)
        for lb, q in zip(shown, s["quad"][1::2], strict=True):
            theirs = np.add(lb.box, off)
            assert np.allclose(crop_to_quad(q, theirs), lb.corners, atol=1e-3)


def test_widened_box_reaches_past_the_card_on_one_side_as_a_box_holding_a_hand_does():
    rng = np.random.default_rng(4)
    box = np.array([100.0, 100.0, 200.0, 240.0])
    size = np.array([100.0, 140.0, 100.0, 140.0])
    sides = set()
    for _ in range(200):
        moved = (widened_box(rng, box, widen=(0.5, 0.6)) - box) * [-1, -1, 1, 1] / size
        far = np.flatnonzero(moved > 0.25)  # jitter_box moves a side by ~0.06 of the size
        assert len(far) == 1 and moved[far[0]] < 0.9
        sides.add(int(far[0]))
    assert sides == {0, 1, 2, 3}


def test_scene_samples_add_an_outline_sample_from_a_widened_box_of_each_card(decks):
    plain = scene_samples(3, 1, decks)
    wide = scene_samples(3, 1, decks, wide_boxes=True)
    n = len(plain["outline"])
    assert len(wide["outline"]) == len(wide["quad"]) == 2 * n
    assert wide["card"] == plain["card"] and wide["visible"] == plain["visible"]
    for q in wide["quad"][1::2]:  # the card's corners lie inside the widened box's crop
        assert np.all((q > -0.05) & (q < 1.05))


def test_joined_box_reaches_toward_what_overlaps_the_card_and_no_further():
    rng = np.random.default_rng(5)
    card = np.array([100.0, 100.0, 200.0, 240.0])
    hand = np.array([180.0, 200.0, 400.0, 260.0])  # over the card's bottom-right, far right
    for _ in range(200):
        moved = (joined_box(rng, card, hand, most=0.4) - card) * [-1, -1, 1, 1]
        assert abs(moved[0]) < 30 and abs(moved[1]) < 40  # left and top: jitter alone
        assert moved[2] < 0.4 * 100 + 30  # right: toward the hand, at most 0.4 of the width
        assert moved[3] < 20 + 40  # bottom: no further than the hand reaches
    right = [joined_box(rng, card, hand)[2] - 200 for _ in range(200)]
    assert np.mean(right) > 15


def test_touches_tells_overlapping_boxes_from_apart_ones():
    assert touches((0, 0, 10, 10), (5, 5, 20, 20))
    assert not touches((0, 0, 10, 10), (10, 0, 20, 10)) and not touches((0, 0, 1, 1), (5, 5, 6, 6))


def test_scene_samples_add_an_outline_sample_from_a_box_joined_with_a_neighbour(decks):
    from hakam.datasets.generator import render_one

    plain = [len(scene_samples(3, i, decks)["outline"]) for i in range(6)]
    joined = [len(scene_samples(3, i, decks, joined_boxes=True)["outline"]) for i in range(6)]
    touching = []
    for i in range(6):
        _img, labels, meta = render_one(3, "train", i, 640, decks)
        touching.append(sum(
            any(touches(o, lb.box) and _iou(o, lb.box) < 0.6 for o in meta["objects"])
            for lb in labels if readable(lb)
        ))  # fmt: skip
    assert [j - p for j, p in zip(joined, plain, strict=True)] == touching
    assert sum(touching) > 0


class BoxOutline:
    """An outline network that draws each box's own rectangle as the card."""

    def __init__(self, *args, **kwargs) -> None:
        pass

    def quads(self, image, boxes):
        return np.array([[[x1, y1], [x2, y1], [x2, y2], [x1, y2]] for x1, y1, x2, y2 in boxes])


def test_scene_samples_cut_an_index_sample_along_the_outline_drawn_on_each_finder_box(
    decks, monkeypatch
):
    from hakam.datasets.generator import render_one
    from hakam.training import corners as corner_training
    from hakam.vision.corners import corner_patches

    img, labels, _meta = render_one(3, "train", 0, 640, decks)
    shown = [lb for lb in labels if readable(lb)]
    boxes = np.array([lb.box for lb in shown], np.float32)

    class Finder:
        def boxes(self, image):
            return boxes

    monkeypatch.setattr(corner_training, "shipped_finder", Finder)
    monkeypatch.setattr(corner_training, "outline_net", lambda path: BoxOutline())
    plain = scene_samples(3, 0, decks)
    cut = scene_samples(3, 0, decks, cut_along="outline.onnx")
    assert len(cut["outline"]) == len(plain["outline"])  # outline samples only with finder_boxes
    extra = range(1, 2 * len(shown), 2)  # each card: its jittered sample, then the cut one
    assert [cut["card"][k] for k in extra] == [CARD_NAMES.index(lb.card) for lb in shown]
    for k, b in zip(extra, boxes, strict=True):
        x1, y1, x2, y2 = b
        rect = np.array([[x1, y1], [x2, y1], [x2, y2], [x1, y2]])
        assert np.array_equal(cut["index"][k], corner_patches(img, rect))


def test_real_samples_cut_each_labelled_card_along_the_outline_network(tmp_path, monkeypatch):
    import cv2

    import hakam.vision.corners
    from hakam.training.corners import real_samples

    root = tmp_path / "rf"
    (root / "data.yaml").parent.mkdir()
    (root / "data.yaml").write_text("names: ['QH', '2C']\n")
    for split in ("train", "valid"):
        (root / split / "images").mkdir(parents=True)
        (root / split / "labels").mkdir(parents=True)
    cv2.imwrite(str(root / "train" / "images" / "a.jpg"), np.full((100, 100, 3), 128, np.uint8))
    (root / "train" / "labels" / "a.txt").write_text("0 0.3 0.5 0.2 0.3\n1 0.7 0.5 0.2 0.3\n")
    monkeypatch.setattr(hakam.vision.corners, "CornerReader", BoxOutline)
    patches, cards = real_samples(root, tmp_path / "outline.onnx", repeats=2)
    assert cards == [CARD_NAMES.index("QH")] * 2 + [OTHER] * 2  # rank 2: not a Baloot card
    assert all(p.shape == (2 * PATCH_H, 2 * PATCH_W, 3) for p in patches)


class BoxesFinder:
    """A finder of corner indices that always gives these boxes."""

    def __init__(self, boxes):
        self.boxes = np.array(boxes, np.float32).reshape(-1, 4)

    def find(self, image, conf):
        return self.boxes


def index_scene(root, name: str, rows: list[str]):
    """One scene of ``data synth --boxes indices``: a 200x100 grey JPEG and its label file."""
    import cv2

    (root / "train" / "images").mkdir(parents=True, exist_ok=True)
    (root / "train" / "labels").mkdir(parents=True, exist_ok=True)
    image = root / "train" / "images" / f"{name}.jpg"
    cv2.imwrite(str(image), np.full((100, 200, 3), 128, np.uint8))
    (root / "train" / "labels" / f"{name}.txt").write_text("\n".join(rows) + "\n")
    return image


def test_strip_samples_name_true_index_boxes_and_the_finders_boxes_on_none(tmp_path, monkeypatch):
    """Each true index box gives a sample of its card; a finder box on it gives another; a
    finder box on no index (a 2-6, a figure) and index-sized patches away from every index
    give "not a Baloot card"; a finder box half on an index gives nothing (it is neither)."""
    from hakam.training import corners as ct
    from hakam.vision.indices import STRIP_SIZE

    image = index_scene(tmp_path, "s1", ["12 0.5 0.5 0.1 0.2"])  # JD at (90, 40, 110, 60)
    boxes = [[91, 41, 111, 61], [10, 10, 30, 30], [100, 40, 120, 60]]
    monkeypatch.setattr(ct, "_STRIP_FINDER", BoxesFinder(boxes))
    crops, cards = ct.strip_samples(str(image), 41)
    jd = CARD_NAMES.index("JD")
    assert cards[:3] == [jd, jd, OTHER]  # the true box, the finder's on it, the one on nothing
    assert set(cards[3:]) <= {OTHER} and len(cards) <= 3 + ct.STRIP_PATCHES
    assert all(c.shape == (STRIP_SIZE, STRIP_SIZE, 3) for c in crops)
    assert ct.strip_samples(str(image), 41)[1] == cards  # the same scene, the same samples


def test_strip_scene_files_leave_out_the_scenes_of_the_tuning_designs(tmp_path):
    """A strip reader judged on designs it never saw is cut without their scenes."""
    import json

    from hakam.training.corners import strip_scene_files

    (tmp_path / "train" / "meta").mkdir(parents=True)
    for name, deck in (("a", "anglo"), ("b", "orell"), ("c", "tigullio")):
        index_scene(tmp_path, name, ["12 0.5 0.5 0.1 0.2"])
        (tmp_path / "train" / "meta" / f"{name}.json").write_text(json.dumps({"deck": deck}))
    names = [Path(f).stem for f in strip_scene_files([tmp_path], ("orell", "tigullio"))]
    assert names == ["a"]
    assert [Path(f).stem for f in strip_scene_files([tmp_path])] == ["a", "b", "c"]


def test_build_strip_samples_refuses_folders_without_scenes(tmp_path):
    from hakam.training.corners import build_strip_samples

    with pytest.raises(FileNotFoundError, match="no training scenes"):
        build_strip_samples(tmp_path / "out", [tmp_path], tmp_path / "finder.onnx")
    assert not (tmp_path / "out").exists()


def test_strip_place_tells_an_index_corner_from_a_card_middle():
    from hakam.training.corners import strip_place

    assert strip_place((0.1, 0.1)) == "index" and strip_place((0.9, 0.92)) == "index"
    assert strip_place((0.5, 0.5)) == "middle" and strip_place((0.1, 0.5)) == "middle"
    assert strip_place((0.9, 0.1)) == "unsure"  # a corner some decks print no index in
    assert strip_place((0.3, 0.2)) == "unsure"  # the edge of an index region
    assert strip_place((1.2, 0.5)) == "outside"


def test_real_strip_samples_name_a_box_by_where_it_lies_in_one_card():
    """On an index corner of a Baloot card: that card, and moved copies; in its middle or on a
    2-6: "not a Baloot card"; on a corner without an index, where two cards overlap, or on no
    card: nothing."""
    from hakam.training.corners import STRIP_REAL_REPEATS, real_strip_samples
    from hakam.vision.indices import STRIP_SIZE

    img = np.full((300, 400, 3), 90, np.uint8)
    jd, two = CARD_NAMES.index("JD"), OTHER
    labelled = [(jd, (0, 0, 100, 140)), (two, (200, 0, 300, 140)), (jd, (80, 100, 180, 240))]
    quads = np.array([[[x1, y1], [x2, y1], [x2, y2], [x1, y2]] for _, (x1, y1, x2, y2) in
                      labelled], np.float32)  # fmt: skip
    found = [
        [5, 5, 20, 30],  # JD's printed top-left index
        [40, 40, 60, 60],  # JD's middle (and no other card's)
        [80, 5, 95, 30],  # JD's top-right corner: unsure
        [240, 60, 260, 80],  # on the 2-6
        [85, 105, 95, 135],  # in both JD boxes
        [330, 200, 350, 230],  # on no card
    ]
    crops, cards = real_strip_samples(img, labelled, np.array(found, np.float32), quads,
                                      np.random.default_rng(0))  # fmt: skip
    assert cards == [jd] * (1 + STRIP_REAL_REPEATS) + [OTHER, OTHER]
    assert all(c.shape == (STRIP_SIZE, STRIP_SIZE, 3) for c in crops)
