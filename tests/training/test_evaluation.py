import numpy as np
import pytest

from hakam.engine.cards import CARD_NAMES
from hakam.training import evaluation as ev
from hakam.training.detector import (
    EvalOnlyDataError,
    build_data_yaml,
    check_not_eval_only,
    real_class_map,
)


def box(x1, y1, x2, y2):
    return np.array([x1, y1, x2, y2], float)


def result(truth: dict[str, np.ndarray], pred: list[tuple[str, float, np.ndarray]]):
    t = {CARD_NAMES.index(k): v for k, v in truth.items()}
    p = [(CARD_NAMES.index(k), s, b) for k, s, b in pred]
    return ev.ImageResult("img", set(t), t, p)


def test_perfect_reads_score_map_one_and_exact_sets():
    r = [
        result({"QH": box(0, 0, 10, 14)}, [("QH", 0.9, box(0, 0, 10, 14))]),
        result(
            {"7C": box(5, 5, 15, 19), "AS": box(30, 0, 40, 14)},
            [("7C", 0.8, box(5, 5, 15, 19)), ("AS", 0.7, box(30, 0, 40, 14))],
        ),
    ]
    rep = ev.evaluate(r, "t", 0.5, boxes=True)
    assert rep.map50 == pytest.approx(1.0)
    assert rep.map5095 == pytest.approx(1.0)
    assert (rep.precision, rep.recall, rep.exact) == (1.0, 1.0, 1.0)


def test_card_below_threshold_is_missed_and_wrong_card_is_a_confusion():
    r = [
        result(
            {"QH": box(0, 0, 10, 14), "8S": box(20, 0, 30, 14)},
            [("QH", 0.3, box(0, 0, 10, 14)), ("7S", 0.9, box(20, 0, 30, 14))],
        )
    ]
    rep = ev.evaluate(r, "t", 0.5, boxes=True)
    assert rep.recall == 0.0 and rep.precision == 0.0 and rep.exact == 0.0
    assert rep.confusions == [("8S", "7S", 1)]
    assert rep.missed == {"QH": 1, "8S": 1}


def test_a_read_on_a_non_baloot_card_is_a_false_card_and_missing_it_costs_nothing():
    # The photo holds 5H (not a Baloot card, so not in the truth) and KD.
    r = [
        result(
            {"KD": box(0, 0, 10, 14)},
            [("KD", 0.9, box(0, 0, 10, 14)), ("AH", 0.8, box(20, 0, 30, 14))],
        )
    ]
    rep = ev.evaluate(r, "t", 0.5, boxes=False)
    assert rep.recall == 1.0 and rep.precision == 0.5 and rep.exact == 0.0
    assert rep.invented == {"AH": 1}
    empty = ev.evaluate(
        [result({"KD": box(0, 0, 10, 14)}, [("KD", 0.9, box(0, 0, 10, 14))])], "t", 0.5, boxes=False
    )
    assert empty.exact == 1.0


def test_best_threshold_picks_the_most_exact_reads():
    r = [
        result(
            {"QH": box(0, 0, 1, 1)}, [("QH", 0.6, box(0, 0, 1, 1)), ("KH", 0.3, box(0, 0, 1, 1))]
        )
    ]
    thr = ev.best_threshold(r)
    assert 0.3 < thr <= 0.6


def test_evaluation_only_sets_are_refused_as_training_data(tmp_path):
    with pytest.raises(EvalOnlyDataError):
        check_not_eval_only(tmp_path / "cardcounter-real")
    with pytest.raises(EvalOnlyDataError):
        check_not_eval_only(tmp_path / "rf100-poker-cards" / "test")
    check_not_eval_only(tmp_path / "rf100-poker-cards" / "train")
    with pytest.raises(EvalOnlyDataError):
        build_data_yaml(tmp_path / "w", None, tmp_path / "cardcounter-real")


def test_real_class_map_keeps_only_baloot_cards():
    names = {0: "2C", 20: "7C", 34: "10H", 51: "AS", 52: "BACK", 53: "JOKER"}
    assert real_class_map(names) == {20: 0, 34: CARD_NAMES.index("10H"), 51: 31}


def test_data_yaml_lists_real_train_photos_repeat_times(tmp_path):
    import yaml

    for sub in ("synth/train/images", "synth/val/images", "real/train/images", "real/valid/images"):
        (tmp_path / sub).mkdir(parents=True)
    p = build_data_yaml(tmp_path / "w", tmp_path / "synth", tmp_path / "real", real_repeat=3)
    data = yaml.safe_load(p.read_text())
    assert len(data["train"]) == 4 and data["train"][1] == data["train"][3]
    assert len(data["val"]) == 2 and len(data["names"]) == 32


def test_court_cards_and_each_design_are_scored_apart():
    a = result(
        {"QH": box(0, 0, 10, 14), "7C": box(20, 0, 30, 14)}, [("7C", 0.9, box(20, 0, 30, 14))]
    )
    b = result({"KS": box(0, 0, 10, 14)}, [("KS", 0.9, box(0, 0, 10, 14))])
    c = result({"AD": box(0, 0, 10, 14)}, [("AD", 0.9, box(0, 0, 10, 14))])
    a.design, b.design, c.design = "paris", "paris", "kennard"
    rep = ev.evaluate([a, b, c], "t", 0.5, boxes=False)
    assert (rep.court_recall, rep.pip_recall) == (0.5, 1.0)  # QH missed, KS read; 7C, AD read
    assert rep.per_design == {
        "kennard": {"images": 1, "exact": 1.0, "recall": 1.0, "court_recall": 1.0},
        "paris": {"images": 2, "exact": 0.5, "recall": 0.6667, "court_recall": 0.5},
    }
    assert "paris 50% exact (J/Q/K recall 0.50)" in ev.format_report(rep)


def colour_read(image, boxes):
    """Reads a box as the card whose index is its middle's red channel; green boxes are not
    cards."""
    out = np.zeros((len(boxes), len(CARD_NAMES) + 1))
    for i, (x1, y1, x2, y2) in enumerate(boxes):
        c = image[int((y1 + y2) / 2), int((x1 + x2) / 2)]
        out[i, len(CARD_NAMES) if c[1] > 100 else int(c[2])] = 1
    return out


def test_reader_on_truth_scores_the_reader_alone_on_true_boxes(tmp_path):
    import json

    import cv2

    (tmp_path / "images").mkdir()
    (tmp_path / "meta").mkdir()
    img = np.zeros((40, 100, 3), np.uint8)
    cards = [("QH", 10, 0.9), ("7C", 30, 0.9), ("KS", 50, 0.9), ("AD", 70, 0.3)]
    boxes = []
    for name, x, vis in cards:
        img[5:35, x : x + 15, 2] = CARD_NAMES.index(name)
        corners = [[x, 5], [x + 15, 5], [x + 15, 35], [x, 35]]
        boxes.append({"card": name, "visible": vis, "corners": corners})
    img[5:35, 50:65, 1] = 200  # KS reads as "not a card": a reader's miss
    cv2.imwrite(str(tmp_path / "images" / "s0.png"), img)
    meta = {"deck": "paris", "boxes": boxes}
    (tmp_path / "meta" / "s0.json").write_text(json.dumps(meta))
    out = ev.reader_on_truth(colour_read, tmp_path)
    # QH right, KS missed (J/Q/K 1 of 2); 7C right; AD too covered to count
    want = {"court": 0.5, "court_n": 2, "other": 1.0, "other_n": 1}
    assert out == {"all": want, "paris": want}


def test_training_on_a_cpu_turns_mixed_precision_off_and_keeps_our_data_keys_out():
    from hakam.training.detector import load_recipe, ultralytics_args

    recipe = load_recipe()
    on_gpu = ultralytics_args(recipe, hours=0.5)
    assert "amp" not in on_gpu and on_gpu["time"] == 0.5  # ultralytics' default: AMP on a GPU
    assert not {"model", "synth_images", "real_repeat"} & set(on_gpu)
    on_cpu = ultralytics_args(recipe, epochs=3, on_cpu=True)
    assert on_cpu["amp"] is False and on_cpu["epochs"] == 3 and "time" not in on_cpu
