import numpy as np

from hakam.engine.cards import Card
from hakam.vision.detections import Detections, box_iou
from hakam.vision.zones import PolygonZone, ZoneError, parse_polygon

from .conftest import dets


def test_best_per_card_keeps_the_most_confident_copy_only():
    d = dets(("7H", (100, 100), 0.6), ("7H", (300, 100), 0.9), ("AS", (200, 200), 0.4))
    best = d.best_per_card()
    assert sorted(best.names) == ["7H", "AS"]
    i = best.names.index("7H")
    assert best.confidence[i] == np.float32(0.9) and best.centres[i][0] == 300


def test_selection_merge_and_json():
    d = dets(("7H", (100, 100), 0.6), ("AS", (200, 200), 0.4))
    assert len(d[d.confidence > 0.5]) == 1 and len(d[1]) == 1 and d[1].names == ["AS"]
    m = Detections.merge([d, Detections.empty(), d[0]])
    assert m.names == ["7H", "AS", "7H"]
    assert d.to_json()[0] == {"card": "7H", "conf": 0.6, "box": [70.0, 58.0, 130.0, 142.0]}


def test_from_labels_weak_when_no_index_is_visible():
    labels = [
        {"card": "QS", "box": [0, 0, 10, 10], "visible": 0.9, "index_visible": 1.0},
        {"card": "KD", "box": [5, 5, 20, 20], "visible": 0.35, "index_visible": 0.1},
        {"card": "5H", "box": [5, 5, 20, 20], "visible": 1.0, "index_visible": 1.0},
    ]
    d = Detections.from_labels(labels)
    assert d.names == ["QS", "KD"]  # 5H is no Baloot card
    assert d.confidence[0] > 0.5 > d.confidence[1]
    assert d.class_id[0] == Card.parse("QS").index


def test_box_iou():
    a = np.array([[0, 0, 10, 10]])
    b = np.array([[0, 0, 10, 10], [5, 0, 15, 10], [20, 20, 30, 30]])
    assert np.allclose(box_iou(a, b), [[1.0, 50 / 150, 0.0]])


def test_polygon_zone_filters_by_box_centre():
    zone = PolygonZone("0,0;200,0;200,200;0,200")
    d = dets(("7H", (100, 100), 0.9), ("8H", (300, 100), 0.9), ("9H", (200, 150), 0.9))
    assert zone.filter(d).names == ["7H", "9H"]  # on the edge counts as inside


def test_bad_polygons_are_one_line_errors():
    for text, why in (("1,2;3,4", "at least 3"), ("1,2;a,4;5,6", "not two numbers"),
                      ("1,2,3;4,5;6,7", "not x,y"), ("0,0;1,1;2,2", "no area")):  # fmt: skip
        try:
            parse_polygon(text)
        except ZoneError as exc:
            assert why in str(exc) and "\n" not in str(exc)
        else:
            raise AssertionError(text)


def test_detections_carry_their_beliefs_through_selection_and_merge():
    d = dets(("QC", (100, 100), 0.9), ("QS", (300, 100), 0.6))
    d.probs = np.eye(32, dtype=np.float32)[d.class_id]
    one = d[np.array([False, True])]
    assert one.probs.shape == (1, 32) and one.probs[0].argmax() == Card.parse("QS").index
    both = Detections.merge([one, d[0]])
    assert both.probs.argmax(1).tolist() == both.class_id.tolist()
    assert Detections.merge([one, dets(("7C", (50, 50), 0.9))]).probs is None
