"""The two-stage reader: crops, one name per card, and the finder + reader detector."""

from __future__ import annotations

import numpy as np
import pytest

from hakam.engine.cards import Card
from hakam.vision.reader import (
    OTHER,
    READER_CLASSES,
    CardReader,
    TwoStageDetector,
    assign_cards,
    card_crop,
    collected_in_sight,
    crops_tensor,
    name_boxes,
    rule_out,
)
from hakam.vision.yolo import Letterbox, decode_boxes


def test_card_crop_cuts_the_box_with_its_margin():
    img = np.zeros((100, 200, 3), np.uint8)
    img[20:60, 50:90] = 255  # the "card"
    crop = card_crop(img, [50, 20, 90, 60], size=40, margin=0.0)
    assert crop.shape == (40, 40, 3)
    assert crop.min() == 255
    wide = card_crop(img, [50, 20, 90, 60], size=60, margin=0.25)
    assert wide[0, 0, 0] == 0 and wide[30, 30, 0] == 255


def test_card_crop_replicates_the_frame_edge():
    img = np.zeros((50, 50, 3), np.uint8)
    img[:, :10] = 200
    crop = card_crop(img, [-20, 0, 20, 40], size=40, margin=0.0)
    assert crop[:, 0].min() == 200  # outside the frame: the border column repeated
    assert crop[:, -1].max() == 0


def test_card_crop_of_a_box_outside_the_frame_is_blank():
    assert card_crop(np.ones((20, 20, 3), np.uint8), [30, 30, 40, 40], 16).max() == 0


def test_crops_tensor_is_rgb_in_unit_range():
    bgr = np.zeros((8, 8, 3), np.uint8)
    bgr[..., 0] = 255  # blue
    t = crops_tensor([bgr, bgr])
    assert t.shape == (2, 3, 8, 8) and t.dtype == np.float32
    assert t[0, 2].min() == 1.0 and t[0, 0].max() == 0.0


def probs(rows: list[dict[int, float]]) -> np.ndarray:
    p = np.zeros((len(rows), READER_CLASSES), np.float32)
    for i, row in enumerate(rows):
        for c, v in row.items():
            p[i, c] = v
    return p


def test_assign_cards_names_each_card_once():
    qh = Card.parse("QH").index
    kh = Card.parse("KH").index
    # Both boxes look most like QH; the surer one keeps it, the other takes its next best.
    named = assign_cards(probs([{qh: 0.9, kh: 0.1}, {qh: 0.6, kh: 0.4}]), 0.05)
    assert sorted((i, c) for i, c, _ in named) == [(0, qh), (1, kh)]


def test_assign_cards_leaves_other_and_unsure_boxes_unnamed():
    qh = Card.parse("QH").index
    named = assign_cards(probs([{OTHER: 0.8, qh: 0.2}, {qh: 0.03}]), 0.05)
    assert named == []


def test_rule_out_gives_a_collected_cards_share_to_the_cards_still_in_play():
    kh, kd, qh = (Card.parse(n).index for n in ("KH", "KD", "QH"))
    keep, p = rule_out(probs([{kd: 0.4, kh: 0.35, qh: 0.15, OTHER: 0.1}]), {kd})
    assert keep.tolist() == [True]
    assert p[0, kd] == 0 and p.sum() == pytest.approx(1.0)
    assert p[0].argmax() == kh and p[0, kh] == pytest.approx(0.35 / 0.6)


def test_rule_out_drops_a_box_that_is_a_collected_card_in_sight():
    kh, kd = Card.parse("KH").index, Card.parse("KD").index
    table = probs([{kd: 0.9, kh: 0.1}, {kh: 0.7, kd: 0.3}])
    keep, p = rule_out(table, {kd})
    assert keep.tolist() == [False, True] and len(p) == 1
    keep, p = rule_out(table, [])  # nothing ruled out: the table as it was
    assert keep.all() and np.array_equal(p, table)


def test_name_boxes_keeps_each_reads_belief_before_ruling_out():
    kh, kd = Card.parse("KH").index, Card.parse("KD").index
    table = probs([{kd: 0.4, kh: 0.35, OTHER: 0.25}])
    d = name_boxes(np.array([[0, 0, 10, 10]], np.float32), table, 0.5, {kd})
    assert d.names == ["KH"] and d.probs.shape == (1, 32)
    assert d.probs[0, kd] == pytest.approx(0.4) and d.probs[0, kh] == pytest.approx(0.35)


def test_collected_in_sight_names_the_boxes_rule_out_drops_as_their_collected_card():
    kh, kd, qd = (Card.parse(n).index for n in ("KH", "KD", "QD"))
    boxes = np.array([[0, 0, 10, 10], [20, 0, 30, 10]], np.float32)
    table = probs([{kd: 0.8, kh: 0.2}, {kh: 0.7, kd: 0.3}])
    seen = collected_in_sight(boxes, table, {kd, qd})
    assert seen.names == ["KD"] and seen.xyxy[0].tolist() == [0, 0, 10, 10]
    assert seen.confidence[0] == pytest.approx(0.8) and seen.probs[0, kh] == pytest.approx(0.2)
    assert len(collected_in_sight(boxes, table, ())) == 0


class FakeFinder:
    def __init__(self, boxes):
        self.boxes = np.array(boxes, np.float32)
        self.asked = None

    def find(self, image, conf):
        self.asked = conf
        return self.boxes


class FakeReader:
    size = 16

    def __init__(self, table):
        self.table = table

    def read(self, crops, turns=1):
        assert all(c.shape == (16, 16, 3) for c in crops)
        self.turns = turns
        return self.table[: len(crops)]


def test_two_stage_detector_names_finder_boxes():
    ah = Card.parse("AH").index
    finder = FakeFinder([[0, 0, 10, 10], [20, 20, 40, 40], [5, 30, 15, 45]])
    reader = FakeReader(probs([{ah: 0.7}, {OTHER: 0.9}, {Card.parse("7S").index: 0.5}]))
    d = TwoStageDetector(finder, reader, find_conf=0.07, min_prob=0.1, turns=4).detect(
        np.zeros((50, 50, 3), np.uint8)
    )
    assert finder.asked == 0.07 and reader.turns == 4
    assert [str(Card.from_index(int(c))) for c in d.class_id] == ["AH", "7S"]
    assert d.xyxy.tolist() == [[0, 0, 10, 10], [5, 30, 15, 45]]


def test_two_stage_detector_never_names_a_ruled_out_card():
    kh, kd = Card.parse("KH").index, Card.parse("KD").index
    finder = FakeFinder([[0, 0, 10, 10]])
    reader = FakeReader(probs([{kd: 0.45, kh: 0.35, OTHER: 0.2}]))
    det = TwoStageDetector(finder, reader, min_prob=0.5)
    image = np.zeros((50, 50, 3), np.uint8)
    assert len(det.detect(image)) == 0  # KD at 0.45: unsure
    assert det.detect(image, ruled_out={kd}).names == ["KH"]  # KD was collected: KH at 0.64
    assert len(det.in_sight) == 0  # 0.45 on KD: the box is not KD still in sight
    sure = TwoStageDetector(finder, FakeReader(probs([{kd: 0.9, kh: 0.1}])), min_prob=0.5)
    assert len(sure.detect(image, ruled_out={kd})) == 0 and sure.in_sight.names == ["KD"]


def test_decode_boxes_ignores_the_class():
    out = np.zeros((1, 36, 3), np.float32)
    out[0, :4, 0] = (50, 50, 20, 20)
    out[0, 4 + 3, 0] = 0.6
    out[0, :4, 1] = (51, 50, 20, 20)  # the same card, another class: one box
    out[0, 4 + 9, 1] = 0.5
    out[0, :4, 2] = (10, 10, 8, 8)
    out[0, 4 + 1, 2] = 0.02  # under the floor
    boxes = decode_boxes(out, Letterbox(1.0, 0, 0, 100, 100), 0.05, 0.6)
    assert boxes.shape == (1, 4)
    assert boxes[0].tolist() == pytest.approx([40, 40, 60, 60])


class CornerReader(CardReader):
    """A reader whose answer is the brightness of the crop's top-left pixel: turn-sensitive."""

    def __init__(self) -> None:
        self.size = 4

    def logits(self, crops):
        batch = np.stack(crops)  # BGR uint8 crops, as cut
        out = np.zeros((len(batch), READER_CLASSES), np.float32)
        out[:, 0] = 10 * batch[:, 0, 0, 0] / 255
        return out


def test_reader_turns_average_the_crop_read_at_each_turn():
    crop = np.zeros((4, 4, 3), np.uint8)
    crop[0, 0] = 255  # only the unturned view sees it
    r = CornerReader()
    views = [np.ascontiguousarray(np.rot90(crop, k)) for k in range(4)]
    each = np.concatenate([r.read([v]) for v in views])
    np.testing.assert_allclose(r.read([crop], turns=4)[0], each.mean(0), rtol=1e-5)
    np.testing.assert_allclose(r.read([crop], turns=2)[0], each[[0, 2]].mean(0), rtol=1e-5)
    assert r.read([crop], turns=4)[0, 0] < r.read([crop])[0, 0]
    with pytest.raises(ValueError, match="turns: 3"):
        r.read([crop], turns=3)


class CropKeeper(FakeReader):
    def read(self, crops, turns=1):
        self.crops = crops
        return super().read(crops, turns)


def test_two_stage_detector_cuts_its_crops_with_its_margin():
    """The strip reader's crops take more of the frame around an index box than the card
    reader's: the finder's index boxes are off by more of their size."""
    image = np.zeros((60, 60, 3), np.uint8)
    image[20:40, 20:40] = 255  # the box is all white; around it black
    box = [[20, 20, 40, 40]]
    tight = CropKeeper(probs([{OTHER: 1.0}]))
    TwoStageDetector(FakeFinder(box), tight, margin=0.0).detect(image)
    wide = CropKeeper(probs([{OTHER: 1.0}]))
    TwoStageDetector(FakeFinder(box), wide, margin=0.25).detect(image)
    assert tight.crops[0].min() == 255
    assert wide.crops[0][0, 0].max() == 0 and wide.crops[0][8, 8].min() == 255
