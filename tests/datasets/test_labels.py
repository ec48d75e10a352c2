"""The label test: boxes found by OpenCV in the pixels agree with the generator's label boxes."""

from __future__ import annotations

import json
import math

import cv2
import numpy as np
import pytest

from hakam.datasets import art
from hakam.datasets.generator import SynthConfig, generate, sample_camera
from hakam.datasets.inspect import label_boxes, read_labels, stats
from hakam.datasets.scene import CardPlacement, Renderer
from hakam.engine.cards import CARD_NAMES

pytestmark = pytest.mark.skipif(not art.available_decks(), reason="card art not installed")


def iou(a, b) -> float:
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union else 0.0


def outline_box(img: np.ndarray, box, pad: float = 0.25):
    """Find the card in a padded crop around ``box`` by Otsu threshold; its bounding box."""
    h, w = img.shape[:2]
    x1, y1, x2, y2 = box
    px, py = (x2 - x1) * pad, (y2 - y1) * pad
    cx1, cy1 = int(max(x1 - px, 0)), int(max(y1 - py, 0))
    cx2, cy2 = int(min(x2 + px, w)), int(min(y2 + py, h))
    crop = cv2.cvtColor(img[cy1:cy2, cx1:cx2], cv2.COLOR_BGR2GRAY)
    crop = cv2.GaussianBlur(crop, (3, 3), 0)
    _, mask = cv2.threshold(crop, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((9, 9), np.uint8))
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return None
    c = max(contours, key=cv2.contourArea)
    bx, by, bw, bh = cv2.boundingRect(c)
    return (bx + cx1, by + cy1, bx + bw + cx1, by + bh + cy1)


@pytest.mark.parametrize("seed", range(12))
def test_label_box_matches_card_outline_in_controlled_scene(seed):
    """Tilted camera, lens distortion, bent cards: the box is the projected outline."""
    rng = np.random.default_rng(seed)
    deck = art.available_decks()[seed % len(art.available_decks())]
    renderer = Renderer(art.load_deck_images(deck))
    cam = sample_camera(rng, 640, 480, (0.18, 0.3))
    cam.k1 = [0.0, -0.2, 0.05][seed % 3]
    names = rng.choice(CARD_NAMES, 3, replace=False)
    cards = [
        CardPlacement(
            str(n),
            110 * math.cos(a),
            110 * math.sin(a),
            float(rng.uniform(0, 360)),
            bend=float(rng.uniform(-0.04, 0.04)),
        )
        for n, a in zip(names, (0.3, 2.4, 4.4), strict=True)
    ]
    background = np.full((64, 64, 3), 25, np.uint8)
    fx = {
        "light": False,
        "temperature": False,
        "glare": 0,
        "motion": False,
        "defocus": False,
        "noise": 0,
    }
    img, labels = renderer.render(rng, cam, background, cards, [], fx)
    assert {lb.card for lb in labels} <= set(names)
    checked = 0
    for lb in labels:
        x1, y1, x2, y2 = lb.box
        if lb.visible < 0.97 or x1 <= 1 or y1 <= 1 or x2 >= 639 or y2 >= 479:
            continue  # touching the frame edge or covered: outline not fully in the pixels
        found = outline_box(img, lb.box)
        assert found is not None
        assert iou(found, lb.box) > 0.88, (lb.card, lb.box, found)
        checked += 1
    assert checked >= 1


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    out = tmp_path_factory.mktemp("synth")
    summary = generate(SynthConfig(out, 200, seed=7, imgsz=640, workers=2), progress=False)
    return out, summary


def test_sample_of_200_is_a_valid_yolo_dataset(sample):
    out, summary = sample
    assert summary["images"] == 200
    assert (out / "data.yaml").read_text().count(":") >= 32
    for split in ("train", "val", "holdout"):
        imgs = sorted((out / split / "images").glob("*.jpg"))
        assert imgs, split
        for p in imgs:
            rows = read_labels(out / split / "labels" / (p.stem + ".txt"))
            cards = [r[0] for r in rows]
            assert len(cards) == len(set(cards)), "a card appears twice in one image"
            for cls, cx, cy, w, h in rows:
                assert 0 <= cls < 32
                assert cx - w / 2 >= -1e-4 and cx + w / 2 <= 1 + 1e-4
                assert cy - h / 2 >= -1e-4 and cy + h / 2 <= 1 + 1e-4
                assert w > 0 and h > 0
            meta = json.loads((out / split / "meta" / (p.stem + ".json")).read_text())
            assert len(meta["boxes"]) == len(rows)
            held = {d.name for d in art.DECKS if d.holdout}
            assert (meta["deck"] in held) == (split == "holdout")
    report = stats(out)
    assert report["train"]["boxes"] > 200


def test_sample_boxes_agree_with_card_outlines_in_the_pixels(sample):
    """Fully visible cards standing alone on a contrasting table: OpenCV's outline box matches."""
    out, _ = sample
    checked, good = 0, 0
    for p in sorted((out / "train" / "images").glob("*.jpg")):
        img = cv2.imread(str(p))
        h, w = img.shape[:2]
        meta = json.loads((out / "train" / "meta" / (p.stem + ".json")).read_text())
        rows = read_labels(out / "train" / "labels" / (p.stem + ".txt"))
        gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
        for (_cls, cx, cy, bw, bh), m in zip(rows, meta["boxes"], strict=True):
            box = ((cx - bw / 2) * w, (cy - bh / 2) * h, (cx + bw / 2) * w, (cy + bh / 2) * h)
            if m["visible"] < 0.99 or min(box[:2]) < 3 or box[2] > w - 3 or box[3] > h - 3:
                continue
            pad = (
                box[0] - 0.2 * bw * w,
                box[1] - 0.2 * bh * h,
                box[2] + 0.2 * bw * w,
                box[3] + 0.2 * bh * h,
            )
            others = [o for o in meta["objects"] if iou(o, box) < 0.95 and iou(o, pad) > 0]
            if others:
                continue  # another card, a pile or a hand is close: not a clean outline
            x1, y1, x2, y2 = (int(v) for v in box)
            inside = gray[y1:y2, x1:x2].mean()
            ring = np.concatenate(
                [gray[max(y1 - 12, 0) : y1, x1:x2].ravel(), gray[y2 : y2 + 12, x1:x2].ravel()]
            )
            if ring.size == 0 or inside - ring.mean() < 60:
                continue  # a white card on a white table: no outline for OpenCV to find
            checked += 1
            found = outline_box(img, box, pad=0.15)
            good += found is not None and iou(found, box) > 0.8
    assert checked >= 5
    assert good / checked >= 0.8, f"{good}/{checked} label boxes matched the card outline"


@pytest.mark.parametrize("angle", [0.0, 37.0, 90.0, 200.0])
def test_label_corners_start_at_the_printed_top_left_and_bound_the_box(angle):
    """The face's corners: clockwise from the corner printed top-left (where an index is),
    whatever the card's turn; the box is the card's outline inside them."""
    face = np.full((420, 300, 4), 255, np.uint8)
    face[:120, :90, :3] = (0, 0, 255)  # the printed top-left, red (BGR)
    renderer = Renderer({"QH": face})
    rng = np.random.default_rng(1)
    cam = sample_camera(rng, 640, 480, (0.5, 0.5))
    cam.tilt, cam.k1 = 0.0, 0.0
    fx = dict.fromkeys(("light", "temperature", "motion", "defocus"), False) | {
        "glare": 0,
        "noise": 0,
    }
    img, labels = renderer.render(
        rng, cam, np.full((64, 64, 3), 25, np.uint8), [CardPlacement("QH", 0, 0, angle)], [], fx
    )
    (lb,) = labels
    quad = np.array(lb.corners)
    assert quad.shape == (4, 2)
    centre = quad.mean(0)
    for k, red in ((0, True), (1, False), (2, False), (3, False)):
        x, y = (quad[k] + 0.12 * (centre - quad[k])).round().astype(int)
        is_red = img[y, x, 2] > 150 and img[y, x, 0] < 100
        assert is_red == red, (k, img[y, x])
    (ax, ay), (bx, by) = quad[1] - quad[0], quad[2] - quad[1]
    assert ax * by - ay * bx > 0  # clockwise on screen (y down): the face, not its mirror image
    qx1, qy1 = quad.min(0)
    qx2, qy2 = quad.max(0)
    assert iou(lb.box, (qx1, qy1, qx2, qy2)) > 0.93  # only the rounded corners differ


def test_closeup_scenes_hold_a_card_near_the_camera_and_leave_the_other_scenes_as_they_were():
    from hakam.datasets.generator import render_one

    decks = art.available_decks(holdout=False)
    kinds = []
    for i in range(10):
        img, _labels, meta = render_one(5, "val", i, 640, decks)
        some, some_labels, some_meta = render_one(5, "val", i, 640, decks, closeups=0.5)
        kinds.append(some_meta["kind"])
        if some_meta["kind"] != "closeup":  # a scene not drawn close is the one it always was
            assert np.array_equal(img, some) and meta == some_meta
            continue
        assert 1 <= len(some_labels) <= 2
        longest = max(
            max(math.dist(lb.corners[0], lb.corners[3]), math.dist(lb.corners[0], lb.corners[1]))
            for lb in some_labels
        )
        # The table scenes draw a card at most 0.45 of the frame's height (before tilt).
        assert longest > 0.45 * some.shape[0]
    assert 0 < kinds.count("closeup") < len(kinds)


def _plain_fx() -> dict:
    return dict.fromkeys(("light", "temperature", "motion", "defocus"), False) | {
        "glare": 0,
        "noise": 0,
    }


@pytest.mark.parametrize("angle", [0.0, 63.0, 180.0])
def test_index_boxes_hold_the_printed_corner_indices_that_show(angle):
    """One box per corner index that shows, on the index printed there (red top-left, blue
    bottom-right); a corner covered by another card gives none; the label lines box them."""
    from hakam.datasets.generator import yolo_lines

    face = np.full((420, 300, 4), 255, np.uint8)
    face[8:100, 8:52, :3] = (0, 0, 255)  # inside the top-left index box, red (BGR)
    face[320:412, 248:292, :3] = (255, 0, 0)  # inside the bottom-right one, blue
    back = np.full((420, 300, 4), 255, np.uint8)
    back[:, :, :3] = (0, 160, 0)
    renderer = Renderer({"QH": face, "7C": back})
    rng = np.random.default_rng(2)
    cam = sample_camera(rng, 640, 480, (0.5, 0.5))
    cam.tilt, cam.k1 = 0.0, 0.0
    table = np.full((64, 64, 3), 25, np.uint8)
    img, labels = renderer.render(
        rng, cam, table, [CardPlacement("QH", 0, 0, angle)], [], _plain_fx()
    )
    (lb,) = labels
    assert len(lb.index_boxes) == 2
    for (x1, y1, x2, y2), channel in zip(lb.index_boxes, (2, 0), strict=True):
        inside = img[int(y1) : int(y2) + 1, int(x1) : int(x2) + 1]
        colour = (inside[:, :, channel] > 150) & (inside[:, :, 1] < 100)
        every = (img[:, :, channel] > 150) & (img[:, :, 1] < 100)
        assert colour.sum() >= 0.97 * every.sum() > 0  # the printed index lies in its box
        assert colour.mean() > 0.25  # and fills a good part of it
    w, h = img.shape[1], img.shape[0]
    assert len(yolo_lines(labels, w, h, "indices")) == 2
    assert len(yolo_lines(labels, w, h)) == 1
    # The same card with another one lying over its top-left corner: one index shows.
    tx, ty, tz = np.linalg.inv(cam.homography()) @ [*lb.corners[0], 1.0]  # on the table, mm
    cover = CardPlacement("7C", float(tx / tz), float(ty / tz), 0.0, face_up=False)
    _img, labels = renderer.render(
        rng, cam, table, [CardPlacement("QH", 0, 0, angle), cover], [], _plain_fx()
    )
    (lb,) = [x for x in labels if x.card == "QH"]
    assert len(lb.index_boxes) == 1


def test_label_boxes_reads_a_label_file_in_frame_pixels(tmp_path):
    f = tmp_path / "a.txt"
    f.write_text("12 0.5 0.5 0.1 0.2\n3 0.25 0.1 0.05 0.1\n")
    cls, boxes = label_boxes(f, 200, 100)
    assert cls.tolist() == [12, 3]
    np.testing.assert_allclose(boxes, [[90, 40, 110, 60], [45, 5, 55, 15]], atol=1e-4)
    f.write_text("12 0.5 0.5\n")  # a row without five fields is no box
    assert label_boxes(f, 200, 100)[0].shape == (0,)
    f.write_text("")
    assert label_boxes(f, 200, 100)[1].shape == (0, 4)
