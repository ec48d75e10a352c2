"""Learning the deck a table brought (issue 51): finding its cards, the person's answers, the
deck's read, keeping decks, and reading with one; the command line end to end."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from hakam.cli import main
from hakam.datasets import arabic_deck, art
from hakam.datasets.spread import labelled_names, learning_spread
from hakam.engine.cards import CARD_NAMES
from hakam.vision import deck_store, decks
from hakam.vision.detector import make_detector
from hakam.vision.reader import OTHER, READER_CLASSES

needs_font = pytest.mark.skipif(not arabic_deck.available(), reason="fonts-dejavu-core missing")


def test_check_cards_says_what_is_missing_and_what_is_twice():
    names = [*CARD_NAMES[:31], "7C", None]
    with pytest.raises(decks.DeckError, match=r"missing AS; twice 7C; nothing saved"):
        decks.check_cards(names)
    with pytest.raises(decks.DeckError, match="not Baloot cards: 5H"):
        decks.check_cards([*CARD_NAMES[:31], "5H"])
    assert decks.check_cards([None, *CARD_NAMES]) == list(CARD_NAMES)


def test_answers_must_be_one_per_card_found(tmp_path):
    path = tmp_path / "a.json"
    path.write_text(json.dumps(["as", None]))
    assert decks.read_answers(path, 2) == ["AS", None]
    with pytest.raises(decks.DeckError, match="2 answers for 3 cards found"):
        decks.read_answers(path, 3)
    path.write_text("[1, 2]")
    with pytest.raises(decks.DeckError, match="a list of card names or null"):
        decks.read_answers(path, 2)
    path.write_text("{")
    with pytest.raises(decks.DeckError, match="cannot be read"):
        decks.read_answers(path, 2)


def test_deck_names_are_plain_and_cannot_be_the_pending_folder():
    for bad in ("", ".pending", "a/b", "x" * 41, "..", "a b"):
        with pytest.raises(decks.DeckError):
            decks.check_name(bad)
    assert decks.check_name("home-deck_2.b") == "home-deck_2.b"


def test_the_regression_learns_classes_it_can_tell_apart():
    rng = np.random.default_rng(0)
    centres = rng.normal(0, 1, (READER_CLASSES, 40))
    y = np.repeat(np.arange(READER_CLASSES), 20)
    x = centres[y] + rng.normal(0, 0.3, (len(y), 40))
    x = (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)
    w, b = decks.fit_head(x, y)
    assert np.mean(np.argmax(x @ w + b, 1) == y) > 0.95
    w0, b0 = decks.fit_head(x, y, steps=0)  # not fitted: every class alike
    assert np.mean(np.argmax(x @ w0 + b0, 1) == y) < 0.1


@pytest.fixture(scope="module")
def spread():
    if not arabic_deck.available():
        pytest.skip("fonts-dejavu-core missing")
    images = {n: arabic_deck.draw_card(n) for n in (*art.ALL_FACE_NAMES, "BACK")}
    return learning_spread(images, 7)


@pytest.fixture(scope="module")
def detector():
    return make_detector("openvino")


def _answers(found, labels):
    return labelled_names([c.box for c in found], labels, decks.MATCH_IOU)


@needs_font
def test_a_spread_is_found_straightened_learnt_kept_and_read(spread, detector, tmp_path):
    frame, labels = spread
    found = decks.find_cards([frame], detector)
    names = _answers(found, labels)
    assert sorted(n for n in names if n) == sorted(CARD_NAMES)  # every card found once
    faces = {n: c.face for c, n in zip(found, names, strict=True) if n}
    assert all(f.shape == (decks.FACE_H, decks.FACE_W, 3) for f in faces.values())
    deck = decks.learn_deck("arabic", faces, detector, scenes=40)
    assert deck.samples > 40 and deck.w.shape[1] == READER_CLASSES
    store = deck_store.DeckStore(tmp_path)
    store.save(deck, faces, [frame])
    assert store.names() == ["arabic"]
    again = store.load("arabic")
    assert np.array_equal(again.w, deck.w) and again.networks == deck.networks
    assert sorted(store.faces("arabic")) == sorted(CARD_NAMES)
    reading = detector.with_deck(again)
    boxes, probs = reading.read(frame)
    assert probs.shape == (len(boxes), READER_CLASSES)
    assert np.allclose(probs.sum(1), 1, atol=1e-4)
    generic = detector.read_boxes(frame, boxes)
    assert not np.allclose(probs, generic)  # the deck's read joined the generic one
    # Networks other than those it was learnt with: refused in one line, nothing read.
    stale = decks.LearnedDeck("arabic", deck.w, deck.b, {"reader": "0", "index": "0"})
    with pytest.raises(decks.DeckError, match="learn it again"):
        detector.with_deck(stale)
    store.forget("arabic")
    assert store.names() == []
    with pytest.raises(decks.DeckError, match="not learnt here"):
        store.load("arabic")


@needs_font
def test_the_commands_learn_a_deck_only_from_confirmed_answers(spread, detector, tmp_path,
                                                               monkeypatch, capsys):  # fmt: skip
    frame, labels = spread
    monkeypatch.setenv("HAKAM_DATA_DIR", str(tmp_path / "data"))
    (tmp_path / "src").mkdir()
    cv2.imwrite(str(tmp_path / "src" / "spread.png"), frame)
    assert main(["deck", "learn", "--source", str(tmp_path / "src"), "--name", "home"]) == 0
    pending = tmp_path / "data" / "decks" / ".pending" / "home"
    proposals = json.loads((pending / "proposals.json").read_text())
    assert (pending / "sheet.jpg").is_file() and (pending / "frame-0.png").is_file()
    assert "cards found" in capsys.readouterr().out
    # Wrong answers: refused, nothing kept, the frames still waiting.
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(proposals[:-1]))
    assert main(["deck", "learn", "--name", "home", "--answers", str(bad)]) == 2
    bad.write_text(json.dumps([CARD_NAMES[0]] * len(proposals)))
    assert main(["deck", "learn", "--name", "home", "--answers", str(bad)]) == 2
    assert "not the 32 Baloot cards once each" in capsys.readouterr().err
    assert not (tmp_path / "data" / "decks" / "home").exists() and pending.is_dir()
    # The person's corrections: learnt and kept; the frames move into the deck.
    good = tmp_path / "good.json"  # answers to the cards found and kept, in their order
    good.write_text(json.dumps(_answers(deck_store.pending(pending)[1], labels)))
    argv = ["deck", "learn", "--name", "home", "--answers", str(good), "--scenes", "20"]
    assert main(argv) == 0
    assert not pending.exists()
    assert (tmp_path / "data" / "decks" / "home" / "frame-0.png").is_file()
    assert main(["deck", "list"]) == 0
    assert capsys.readouterr().out.splitlines()[-1].startswith("home  learnt ")
    # A deck kept is not learnt over, nor frames waiting taken over, without --replace.
    src = ["deck", "learn", "--source", str(tmp_path / "src"), "--name", "home"]
    assert main(src) == 2
    assert "deck home: learnt already" in capsys.readouterr().err
    assert main(["deck", "learn", "--source", str(tmp_path / "src"), "--name", "other"]) == 0
    assert main(["deck", "learn", "--source", str(tmp_path / "src"), "--name", "other"]) == 2
    assert "cards found earlier wait in" in capsys.readouterr().err
    assert main(["deck", "learn", "--name", "home", "--again", "--scenes", "20"]) == 0
    assert (tmp_path / "data" / "decks" / "home" / "frame-0.png").is_file()  # frames kept
    assert main(["run", "--source", "demo", "--deck", "nothere", "--headless"]) == 2
    assert "deck 'nothere': not learnt here (decks learnt: home)" in capsys.readouterr().err
    assert main(["deck", "forget", "home"]) == 0
    assert main(["deck", "forget", "home"]) == 2


def test_a_deck_reads_only_with_the_two_stage_reader():
    deck = decks.LearnedDeck(
        "d", np.zeros((352, READER_CLASSES), np.float32), np.zeros(READER_CLASSES, np.float32), {}
    )

    class NoCorners:
        corners = None
        mix = 0.0

    with pytest.raises(decks.DeckError, match="needs the two-stage reader"):
        deck.check_reader(NoCorners())
    deck.w[:192, 5] = 1.0  # a read that takes the whole-card features for card 5
    p = deck.probs(np.ones((2, 192)), np.ones((2, 160)))
    assert p.shape == (2, READER_CLASSES) and np.allclose(p.sum(1), 1)
    assert (p.argmax(1) == 5).all() and p[0, OTHER] < p[0, 5]


def test_the_generic_reading_is_compiled_as_it_was(detector):
    """Without a deck the networks give their logits alone (an extra output changes how the
    8-bit index network is compiled); the deck's copy gives the features too."""
    assert not detector.reader.has_features and not detector.corners.index.has_features
    assert len(detector.reader._compiled.outputs) == 1
    mine = detector.with_features()
    assert mine.reader.has_features and mine.corners.index.has_features
    assert detector.corners.outline is mine.corners.outline  # the outline network shared
