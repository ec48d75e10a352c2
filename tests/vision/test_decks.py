"""Learning the deck a table brought (issue 51): finding its cards, the person's answers, the
deck's read, keeping decks, and reading with one; the command line end to end."""

from __future__ import annotations

import dataclasses
import json
import multiprocessing
import os
import re
import subprocess
import sys
import threading
import time
import warnings

import cv2
import numpy as np
import pytest

from hakam.cli import main
from hakam.cli.common import with_deck
from hakam.datasets import arabic_deck, art
from hakam.datasets.spread import labelled_names, learning_spread
from hakam.engine.cards import CARD_NAMES
from hakam.errors import UserError
from hakam.vision import deck_store, decks, fine_tune
from hakam.vision.calibration import Calibration
from hakam.vision.detector import make_detector
from hakam.vision.reader import READER_CLASSES

needs_font = pytest.mark.skipif(not arabic_deck.available(), reason="fonts-dejavu-core missing")


def test_check_cards_says_what_is_missing_and_what_is_twice():
    names = [*CARD_NAMES[:31], "7C", None]
    with pytest.raises(decks.DeckError, match=r"missing AS; twice 7C; nothing saved"):
        decks.check_cards(names)
    with pytest.raises(decks.DeckError, match="not Baloot cards: 5H"):
        decks.check_cards([*CARD_NAMES[:31], "5H"])
    assert decks.check_cards([None, *CARD_NAMES]) == list(CARD_NAMES)


def test_a_quad_a_quarter_turn_round_is_turned_upright():
    """The outline network now and then starts a card's corners on a long edge: the face
    would show the card sideways, squeezed into a face's shape."""
    card = np.float32([[100, 100], [163, 100], [163, 188], [100, 188]])  # 63 x 88, upright
    assert np.array_equal(decks.upright(card), card)
    sideways = np.roll(card, 1, axis=0)  # from the bottom-left: its first edge the long one
    assert np.array_equal(decks.upright(sideways), np.roll(sideways, -1, axis=0))
    seen = card * np.float32([1.0, 0.7])  # a camera low over the table: foreshortened
    assert np.array_equal(decks.upright(seen), seen)


def test_the_cards_found_wait_with_their_reads(tmp_path):
    """Kept while a person answers: each find's probabilities too, to propose the rest again
    as the person names finds; cards kept before that have none, and are read as they are."""
    read = np.full(READER_CLASSES, 1 / READER_CLASSES, np.float32)
    face = np.zeros((decks.FACE_H, decks.FACE_W, 3), np.uint8)
    found = [decks.Candidate(0, np.float32([1, 2, 3, 4]), np.zeros((4, 2), np.float32), face,
                             "7C", 0.5, read)]  # fmt: skip
    deck_store.keep_pending(tmp_path, [np.zeros((8, 8, 3), np.uint8)], found)
    _, again = deck_store.pending(tmp_path)
    assert np.allclose(again[0].read, read) and again[0].proposed == "7C"
    rows = json.loads((tmp_path / "found.json").read_text())
    del rows[0]["read"]
    (tmp_path / "found.json").write_text(json.dumps(rows))
    assert deck_store.pending(tmp_path)[1][0].read is None


def test_the_finds_a_person_named_are_kept_with_the_cards_waiting(tmp_path):
    """Named in the window (even as proposed), or corrected by hand in the answers file: never
    proposed again when the window opens anew."""
    from types import SimpleNamespace

    from hakam.cli import deck as deck_cli

    found = [SimpleNamespace(proposed=c) for c in ("7C", "8C", "9C", "10C")]
    assert deck_cli._named(tmp_path, found, ["7C", "8C", "JC", "10C"]) == {2}  # by hand
    deck_cli._keep_answers(tmp_path, ["7C", "8C", "JC", "10C"], {0, 2})  # 7C named as proposed
    assert json.loads((tmp_path / "proposals.json").read_text()) == ["7C", "8C", "JC", "10C"]
    assert deck_cli._named(tmp_path, found, ["7C", "8C", "JC", "10C"]) == {0, 2}
    # The window's own re-proposals (10C proposed again as QC) are not the person's; a hand
    # correction of the answers file since is.
    deck_cli._keep_answers(tmp_path, ["7C", "8C", "JC", "QC"], {2})
    assert deck_cli._named(tmp_path, found, ["7C", "8C", "JC", "QC"]) == {2}
    assert deck_cli._named(tmp_path, found, ["7C", "KC", "JC", "QC"]) == {1, 2}
    (tmp_path / "named.json").write_text('[0, "x", 99, -1]')  # damaged: what is a find stays
    assert deck_cli._named(tmp_path, found, ["7C", "8C", "9C", "10C"]) == {0}


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
    with pytest.raises(decks.DeckError, match=r"^deck name: give the deck a name \(1 to 40"):
        decks.check_name("")


def test_a_save_cut_short_between_its_renames_is_finished_or_undone(tmp_path):
    """``DeckStore.save`` moves the old deck aside, then puts the new one in place: stopped or
    killed between the two, the next look finds a deck, the new one where it is whole."""
    store = deck_store.DeckStore(tmp_path)

    def deck(folder, said):
        folder.mkdir(parents=True)
        if said is not None:  # deck.json is written last: without it the folder is not whole
            (folder / "deck.json").write_text(json.dumps({"said": said}))

    deck(tmp_path / ".home.old", "old")
    deck(tmp_path / ".home.tmp", "new")
    assert store.names() == ["home"] and store.describe("home") == {"said": "new"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["home"]
    before = store.saved_as("home")
    (tmp_path / "home").rename(tmp_path / ".away.old")
    deck(tmp_path / ".away.tmp", None)
    assert store.describe("away") == {"said": "new"}  # the old one back: the new is not whole
    assert store.saved_as("home") is None and store.saved_as("away") == before
    assert store.saved_as("../x") is None


def test_cards_shown_one_at_a_time_at_one_place_are_each_kept(monkeypatch):
    """The generic read proposes every card 7C here: two cards shown in turn at one place stay
    two finds; the first, filmed again (shaken a pixel, noisier), is one."""
    box = np.float32([100, 80, 200, 220])

    def shown(seed: int) -> np.ndarray:
        rng = np.random.default_rng(seed)
        frame = np.full((300, 300, 3), 90, np.uint8)
        frame[80:220, 100:200] = 250
        for _ in range(8):
            at = (int(rng.integers(110, 190)), int(rng.integers(90, 210)))
            cv2.circle(frame, at, int(rng.integers(5, 14)), (20, 20, 200), -1)
        return frame

    class Corners:
        def quads(self, frame, boxes):
            return np.float32([[[b[0], b[1]], [b[2], b[1]], [b[2], b[3]], [b[0], b[3]]]
                               for b in boxes])  # fmt: skip

    class Reader:
        corners = Corners()

        def read_boxes(self, frame, boxes):
            probs = np.zeros((len(boxes), READER_CLASSES), np.float32)
            probs[:, 0] = 0.9  # 7C
            return probs

    monkeypatch.setattr(decks, "spread_boxes", lambda frame, detector: box[None])
    first, second = shown(1), shown(2)
    noise = np.random.default_rng(3).normal(0, 4, first.shape)
    again = np.clip(np.roll(first, 1, axis=1) + noise, 0, 255).astype(np.uint8)
    found = decks.find_cards([first, second, again], Reader())
    assert [c.frame for c in found] == [0, 1] and found[0].proposed == "7C"
    assert found[1].proposed != "7C"  # proposed together: a deck holds one 7C
    assert decks.same_view(first, again, box, box) and not decks.same_view(first, second, box, box)
    past = np.float32([296, 10, 330, 60])  # a box past the frame's edge: no view there
    assert not decks.same_view(first, first, past, past)
    flat = np.float32([5, 5, 60, 60])  # the cloth alone, no contrast: not called the same
    assert not decks.same_view(first, again, flat, flat)


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
    stages = []
    deck = decks.learn_deck("arabic", faces, detector, scenes=40,
                            progress=lambda stage, k, n: stages.append((stage, k, n)))  # fmt: skip
    assert deck.samples > 40 and stages[0] == ("scenes", 1, 40) and stages[-1][0] == "training"
    assert stages[-1][1] == stages[-1][2]  # every step of the training reported
    shipped = fine_tune.IndexTail.from_model(decks.index_onnx(detector.corners.index.path))
    assert not np.allclose(deck.tail.fw, shipped.fw)  # trained from the shipped weights
    assert deck.calibration is not None and deck.networks == decks.networks_of(detector)
    store = deck_store.DeckStore(tmp_path)
    store.save(deck, faces, [frame])
    assert store.names() == ["arabic"]
    again = store.load("arabic")
    pairs = zip(again.tail.params(), deck.tail.params(), strict=True)
    assert all(np.array_equal(a, b) for a, b in pairs)
    assert again.networks == deck.networks
    assert np.array_equal(again.calibration.weights, deck.calibration.weights)
    assert sorted(store.faces("arabic")) == sorted(CARD_NAMES)
    reading = detector.with_deck(again)
    boxes, probs = reading.read(frame)
    assert probs.shape == (len(boxes), READER_CLASSES)
    assert np.allclose(probs.sum(1), 1, atol=1e-4)
    # The shipped weights through the same path (32 bits, from the ONNX) read otherwise.
    untrained = decks.LearnedDeck("arabic", shipped, deck.networks)
    assert not np.allclose(probs, detector.with_deck(untrained).read_boxes(frame, boxes))
    assert reading.reader is detector.reader and reading.corners.outline is detector.corners.outline
    # The first frame is read by the shipped index network too: whether the cards are the deck's.
    assert reading._shipped_corners is detector.corners and reading._frames == 1
    assert reading.deck_check.name == "arabic" and detector.deck_check is None
    assert reading.with_deck(again)._shipped_corners is detector.corners
    assert detector.corners.index is not reading.corners.index  # the generic reading as it was
    # The whole-card reader's reads go through the deck's calibration.
    as_read = detector.with_deck(dataclasses.replace(again, calibration=None))
    assert not np.allclose(probs, as_read.read_boxes(frame, boxes))
    # A deck learnt before the calibration (no whole-card reader in its networks, no
    # calibration.npz) is read as it was; a calibration lost is a deck that cannot be read.
    meta = json.loads((store.root / "arabic" / "deck.json").read_text())
    del meta["networks"]["reader"]
    (store.root / "arabic" / "deck.json").write_text(json.dumps(meta))
    (store.root / "arabic" / "calibration.npz").rename(store.root / "calibration.npz")
    older = store.load("arabic")
    assert older.calibration is None and detector.with_deck(older).deck is older
    meta["networks"]["reader"] = deck.networks["reader"]
    (store.root / "arabic" / "deck.json").write_text(json.dumps(meta))
    with pytest.raises(decks.DeckError, match="deck 'arabic': cannot be read"):
        store.load("arabic")
    (store.root / "calibration.npz").rename(store.root / "arabic" / "calibration.npz")
    # Networks other than those it was learnt with: refused in one line, nothing read.
    stale = decks.LearnedDeck("arabic", deck.tail, {"outline": "0", "index": "0"})
    with pytest.raises(decks.DeckError, match="learn it again"):
        detector.with_deck(stale)
    other_index = dataclasses.replace(again, networks={**deck.networks, "index": "0"})
    with pytest.raises(decks.DeckError, match="learn it again"):
        detector.with_deck(other_index)
    # Another whole-card reader (a new one shipped): the deck reads on with its own index
    # network and the reads as they are, its calibration (of the old reader's reads) left out.
    assert again.for_reader(detector) is again
    other_reader = dataclasses.replace(again, networks={**deck.networks, "reader": "0"})
    reads_on = detector.with_deck(other_reader)
    assert reads_on.deck.calibration is None
    assert set(reads_on.deck.networks) == set(decks.CORNER_NETWORKS)
    assert np.allclose(reads_on.read_boxes(frame, boxes), as_read.read_boxes(frame, boxes))
    assert other_reader.calibration is not None  # the deck itself unchanged
    (store.root / "arabic" / "index.npz").write_bytes(b"PK\x03\x04 not a whole file")
    with pytest.raises(decks.DeckError, match="deck 'arabic': cannot be read"):
        store.load("arabic")
    store.forget("arabic")
    assert store.names() == []
    with pytest.raises(decks.DeckError, match="not learnt here"):
        store.load("arabic")


@needs_font
def test_scenes_drawn_ahead_are_the_scenes_the_learning_draws(detector):
    from hakam.vision.deck_ahead import LearningAhead

    faces = {n: cv2.resize(arabic_deck.draw_card(n)[:, :, :3], (decks.FACE_W, decks.FACE_H))
             for n in CARD_NAMES}  # fmt: skip
    here = decks.learning_samples(faces, detector, scenes=4, processes=0)
    ahead = LearningAhead(lambda k: faces[CARD_NAMES[k]], lambda drawn, tick: (
        decks.learning_samples(drawn, detector, 4, progress=tick, processes=0)))  # fmt: skip
    ahead.update(list(CARD_NAMES))
    how, there = ahead.take(list(CARD_NAMES), lambda stage, k, n: None)
    assert how == "samples" and len(here.classes) > 4
    assert all(np.array_equal(a, b) for a, b in zip(here, there, strict=True))


@needs_font
def test_scenes_drawn_by_other_processes_teach_the_same_and_stop_with_the_learning(detector):
    faces = {n: cv2.resize(arabic_deck.draw_card(n)[:, :, :3], (decks.FACE_W, decks.FACE_H))
             for n in CARD_NAMES}  # fmt: skip
    here = decks.learning_samples(faces, detector, scenes=6, processes=0)
    drawing = []
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # drawing here after all would warn
        there = decks.learning_samples(faces, detector, scenes=6, processes=2,
                                       progress=lambda k, n: drawing.append(
                                           len(multiprocessing.active_children())))  # fmt: skip
    assert len(here.classes) > 6 and drawing[0] >= 2  # drawn by two other processes
    assert len(here.reads) == len(here.read_classes) > 6  # the finder's boxes, whole
    assert np.allclose(here.reads.sum(1), 1, atol=1e-4)
    assert all(np.array_equal(a, b) for a, b in zip(here, there, strict=True))

    def stop(k, n):
        if k == 2:
            raise decks.DeckError("stopped")

    with pytest.raises(decks.DeckError, match="stopped"):
        decks.learning_samples(faces, detector, scenes=1000, progress=stop, processes=2)
    for _ in range(50):  # the drawing processes end with the scenes they hold
        if not multiprocessing.active_children():
            break
        time.sleep(0.1)
    assert not multiprocessing.active_children()


KILLED_PARENT = """
import numpy as np
from hakam.engine.cards import CARD_NAMES
from hakam.vision import deck_scenes, decks

if __name__ == "__main__":
    faces = {n: np.full((decks.FACE_H, decks.FACE_W, 3), 200, np.uint8) for n in CARD_NAMES}
    for k, _ in enumerate(deck_scenes.drawn_scenes(faces, 0, 1000, 2)):
        if k == 1:
            print("drawing", flush=True)
"""


def test_a_learning_killed_leaves_no_faces_behind(tmp_path):
    script = tmp_path / "parent.py"
    script.write_text(KILLED_PARENT)
    temp = tmp_path / "temp"
    temp.mkdir()
    env = {**os.environ, "TMPDIR": str(temp)}
    with subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, env=env,
                          text=True) as parent:  # fmt: skip
        assert parent.stdout.readline().strip() == "drawing"
        assert [p.name[:11] for p in temp.iterdir()] == ["hakam-deck-"]
        parent.kill()  # no clean-up of its own: SIGKILL
    for _ in range(100):  # the drawing processes see it gone and remove the faces
        if not any(temp.iterdir()):
            break
        time.sleep(0.1)
    assert not any(temp.iterdir())


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
    lines = (pending / "proposals.json").read_text().splitlines()
    assert len(lines) == len(proposals) + 2  # a find a line, between the brackets
    rows = -(-len(proposals) // 8)  # each face with its number and name under it, 8 a row
    assert cv2.imread(str(pending / "sheet.jpg")).shape[:2] == (198 * rows, 126 * 8)
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
    listed = capsys.readouterr().out.splitlines()[-1]
    assert listed.startswith("home  learnt ") and listed.endswith(
        "(learnt from 20 scenes, fewer than the 2000 its figures are for: hakam deck learn "
        "--again --name home)")  # fmt: skip
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
    assert main(["deck", "list"]) == 0  # cards found and never answered are not lost from view
    assert re.search(r"^other  3\d cards found, waiting for answers", capsys.readouterr().out, re.M)
    assert main(["deck", "forget", "other", "--yes"]) == 0
    assert "deck other: the cards found waiting for answers dropped" in capsys.readouterr().out
    assert main(["deck", "forget", "home", "--yes"]) == 0
    assert main(["deck", "forget", "home", "--yes"]) == 2
    assert "not learnt here, and no cards wait for it" in capsys.readouterr().err


def test_a_deck_reads_only_with_the_two_stage_reader_on_openvino(detector):
    deck = decks.LearnedDeck("d", fine_tune.IndexTail([], [], np.zeros(0), np.zeros(0)), {})

    class NoCorners:
        corners = None
        mix = 0.0

    with pytest.raises(decks.DeckError, match="needs the two-stage reader"):
        deck.check_reader(NoCorners())
    on_onnx = make_detector("onnx")
    with pytest.raises(decks.DeckError, match=r"deck d: reads on OpenVINO \(--detector openvino\)"):
        deck.check_reader(on_onnx)


def test_an_older_deck_is_refused_and_learnt_again_from_its_faces(tmp_path, monkeypatch, capsys):
    """A deck of format /1 (a regression on the networks' features, to 2026-12-07): one line
    says to learn it again, and ``--again`` does, from the faces it kept."""
    monkeypatch.setenv("HAKAM_DATA_DIR", str(tmp_path))
    old = tmp_path / "decks" / "majlis"
    (old / "faces").mkdir(parents=True)
    for card in CARD_NAMES:
        face = np.full((decks.FACE_H, decks.FACE_W, 3), 255, np.uint8)
        cv2.putText(face, card, (20, 60), cv2.FONT_HERSHEY_SIMPLEX, 1.5, (0, 0, 0), 3)
        cv2.imwrite(str(old / "faces" / f"{card}.png"), face)
    (old / "deck.json").write_text(json.dumps({"format": "hakam-deck/1", "name": "majlis"}))
    store = deck_store.DeckStore(tmp_path / "decks")
    assert main(["deck", "list"]) == 0
    assert "majlis  learnt ?  (by an older Hakam: hakam deck learn --again --name majlis)" in (
        capsys.readouterr().out)  # fmt: skip
    with pytest.raises(decks.DeckError, match=r"learnt by an older Hakam .*--again --name majlis"):
        store.load("majlis")
    (old / "deck.json").write_text(json.dumps({"format": "hakam-deck/9", "name": "majlis"}))
    with pytest.raises(decks.DeckError, match=r"not a hakam-deck/2 deck \(hakam-deck/9\)"):
        store.load("majlis")
    assert main(["deck", "learn", "--name", "majlis", "--again", "--scenes", "8"]) == 0
    out = capsys.readouterr().out
    assert "training steps" in out and "--scenes 8: fewer than the 2000" in out
    assert store.load("majlis").samples > 0
    # A deck learnt before the whole-card reader's reads were calibrated is said to be so.
    meta = json.loads((old / "deck.json").read_text())
    meta["networks"].pop("reader")
    (tmp_path / "decks" / "diwan").mkdir()
    (tmp_path / "decks" / "diwan" / "deck.json").write_text(json.dumps({**meta, "name": "diwan"}))
    assert main(["deck", "list"]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert listed[0].startswith("diwan  learnt") and listed[0].endswith(
        "(read surer if learnt again: hakam deck learn --again --name diwan)")  # fmt: skip
    assert listed[1].startswith("majlis  learnt") and listed[1].endswith(
        "corner samples  (learnt from 8 scenes, fewer than the 2000 its figures are for: hakam "
        "deck learn --again --name majlis)")  # fmt: skip
    learnt = json.loads((old / "deck.json").read_text())
    (old / "deck.json").write_text(json.dumps({k: v for k, v in learnt.items() if k != "scenes"}))
    assert main(["deck", "list"]) == 0  # a deck from before its scenes were kept: nothing said
    assert capsys.readouterr().out.splitlines()[1].endswith("corner samples")
    (tmp_path / "decks" / "diwan" / "deck.json").write_text(json.dumps({**meta, "networks": None}))
    (tmp_path / "decks" / "diwan" / "index.npz").write_bytes((old / "index.npz").read_bytes())
    assert main(["deck", "list"]) == 0 and store.load("diwan").networks == {}


@needs_font
def test_the_window_learns_the_deck_from_the_answers_given_there(spread, tmp_path, monkeypatch):
    """``--window``: the window's answers are written whatever follows; a refusal keeps the
    cards found waiting; learnt, the deck is kept and nothing waits. (The window is played by
    a stand-in that answers and asks to learn, as a person pressing *Learn and save*.)"""
    from hakam.cli import deck as deck_cli
    from hakam.errors import UserError

    frame, labels = spread
    monkeypatch.setenv("HAKAM_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setattr(deck_cli, "has_display", lambda: True)
    (tmp_path / "src").mkdir()
    cv2.imwrite(str(tmp_path / "src" / "spread.png"), frame)
    told: list[tuple[str, int, int]] = []

    def window(found, language, learn, answers, wrong=False, named=None, more=None):
        names = _answers(found, labels)
        if wrong:
            names = [CARD_NAMES[0]] * len(names)
        try:
            learn(names, lambda stage, k, n: told.append((stage, k, n)))
        except UserError:
            return names, False, None  # said in the window; the person closes it
        return names, True, None

    pending = tmp_path / "data" / "decks" / ".pending" / "home"
    argv = ["deck", "learn", "--source", str(tmp_path / "src"), "--name", "home", "--window",
            "--scenes", "10"]  # fmt: skip
    monkeypatch.setattr(deck_cli, "_confirm_in_window", lambda *a, **k: window(*a, wrong=True))
    assert main(argv) == 0
    assert json.loads((pending / "proposals.json").read_text()) == [CARD_NAMES[0]] * len(
        json.loads((pending / "proposals.json").read_text()))  # fmt: skip
    assert not (tmp_path / "data" / "decks" / "home").exists() and told == []
    # Answers naming what is no Baloot card are refused before the window opens.
    waiting = (pending / "proposals.json").read_text()
    (tmp_path / "typo.json").write_text(json.dumps(["TH"] * len(json.loads(waiting))))
    typo = ["deck", "learn", "--name", "home", "--answers", str(tmp_path / "typo.json"),
            "--window"]  # fmt: skip
    assert main(typo) == 2 and (pending / "proposals.json").read_text() == waiting
    # Back in the window with the answers given there (nothing found again), and learnt.
    given: list = []
    monkeypatch.setattr(deck_cli, "_confirm_in_window",
                        lambda *a, **k: given.append(a[3]) or window(*a))  # fmt: skip
    back = ["deck", "learn", "--name", "home", "--window", "--scenes", "10"]  # the cards waiting
    assert main(back) == 0
    assert given[0][:3] == [CARD_NAMES[0]] * 3  # the answers as the person left them
    assert (tmp_path / "data" / "decks" / "home" / "deck.json").is_file() and not pending.exists()
    assert told[0] == ("scenes", 1, 10) and told[-1][0] == "training"


@needs_font
def test_the_start_screen_learns_a_deck_from_the_cameras_frame(spread, tmp_path, monkeypatch):
    """``learn_from_frame`` (*Learn a deck*): the cards of the frame found and shown in the deck
    window; learnt there, the deck is kept and nothing waits; the window closed first, the
    cards found wait with the answers given; a frame without the 32 cards, a name taken or
    waiting: one line, nothing kept."""
    from hakam.cli import deck as deck_cli

    frame, labels = spread
    monkeypatch.setenv("HAKAM_DATA_DIR", str(tmp_path))
    store = deck_store.DeckStore(tmp_path / "decks")
    shown: list[str] = []

    drawn: list[str] = []  # the thread each learning's scenes were drawn in, and trained in

    def seen(done):
        return lambda *a, **k: drawn.append(threading.current_thread().name) or done(*a, **k)

    monkeypatch.setattr(decks, "learning_samples", seen(decks.learning_samples))
    monkeypatch.setattr(decks, "deck_from_samples", seen(decks.deck_from_samples))

    def window(
        found, language, learn, answers, close=False, named=None, more=None, ahead=None, **_
    ):
        shown.append((language, answers))
        names = _answers(found, labels)
        if close:
            return [*names[:-1], None], False, None
        ahead.update(names)  # the deck learnt while the person looks, then taken
        learn(names, lambda stage, k, n: None)
        return names, True, None

    monkeypatch.setattr(deck_cli, "_confirm_in_window", window)
    assert deck_cli.learn_from_frame(lambda: frame, "majlis", "ar", scenes=10) == "majlis"
    assert drawn == ["deck-learning-ahead"] * 2
    assert shown[0][0] == "ar" and store.names() == ["majlis"] and store.waiting() == []
    assert len(store.frames("majlis")) == 1 and store.load("majlis").samples > 0
    with pytest.raises(UserError, match="deck majlis: learnt here already; give another name"):
        deck_cli.learn_from_frame(lambda: frame, "majlis", "en", scenes=10)
    monkeypatch.setattr(deck_cli, "_confirm_in_window", lambda *a, **k: window(*a, close=True))
    assert deck_cli.learn_from_frame(lambda: frame, "diwan", "en", scenes=10) is None
    waiting = json.loads((store.waiting_folder("diwan") / "proposals.json").read_text())
    assert store.waiting() == ["diwan"] and waiting[-1] is None  # the answers as given
    # The same name again: back in the window with the answers given (the camera not asked).
    monkeypatch.setattr(deck_cli, "_confirm_in_window", window)
    blank = np.full_like(frame, 40)

    def no_camera():
        raise OSError("camera 0 does not open")

    assert deck_cli.learn_from_frame(no_camera, "diwan", "en", scenes=10) == "diwan"
    assert shown[-1][1] == waiting and store.waiting() == [] and len(store.frames("diwan")) == 1
    with pytest.raises(UserError, match="only 0 of the 32 cards found: lay out all 32"):
        deck_cli.learn_from_frame(lambda: blank, "salon", "en", scenes=10)
    # A new picture asked for: the cards waiting are dropped and the camera's frame looked at.
    monkeypatch.setattr(deck_cli, "_confirm_in_window", lambda *a, **k: window(*a, close=True))
    assert deck_cli.learn_from_frame(lambda: frame, "salon", "en", scenes=10) is None
    with pytest.raises(UserError, match="only 0 of the 32 cards found"):
        deck_cli.learn_from_frame(lambda: blank, "salon", "en", retake=True, scenes=10)
    assert "salon" in store.waiting()  # a picture without the cards replaces nothing
    assert deck_cli.learn_from_frame(lambda: frame, "salon", "en", retake=True, scenes=10) is None
    fresh = json.loads((store.waiting_folder("salon") / "found.json").read_text())
    assert shown[-1][1] == [row["proposed"] for row in fresh]  # the new picture's, not the old
    # Part of the cards in the frame: the window opens on them, *Add a picture* for the others
    # (a new picture of a name waiting replaces its cards only with all 32).
    half = frame.copy()
    half[:, frame.shape[1] // 2 :] = 40
    offered: list = []

    def closed(*a, **k):
        offered.append(k["more"])
        return window(*a, close=True)

    monkeypatch.setattr(deck_cli, "_confirm_in_window", closed)
    assert deck_cli.learn_from_frame(lambda: half, "hall", "en", scenes=10) is None
    some = json.loads((store.waiting_folder("hall") / "found.json").read_text())
    assert 0 < len(some) < 32 and offered[-1] is not None
    with pytest.raises(UserError, match=f"only {len(some)} of the 32 cards found"):
        deck_cli.learn_from_frame(lambda: half, "salon", "en", retake=True, scenes=10)
    assert json.loads((store.waiting_folder("salon") / "found.json").read_text()) == fresh
    del shown[-3:]
    with pytest.raises(UserError, match="deck name a b: 1 to 40"):
        deck_cli.learn_from_frame(lambda: frame, "a b", "en", scenes=10)
    assert store.names() == ["diwan", "majlis"] and store.waiting() == ["hall", "salon"]
    assert len(shown) == 3


def test_a_run_is_checked_against_every_deck_learnt_here_that_it_can_read_with(
    detector, tmp_path, monkeypatch
):
    """``hakam run`` and ``hakam table`` (``with_deck``): the standard readers, or the deck
    chosen, are checked against each other deck learnt here; a deck learnt with other
    networks is left out, not refused (it is not the one chosen)."""
    monkeypatch.setenv("HAKAM_DATA_DIR", str(tmp_path))
    store = deck_store.DeckStore(tmp_path / "decks")
    assert with_deck(detector, None) is detector  # nothing learnt: read as it is
    shipped = fine_tune.IndexTail.from_model(decks.index_onnx(detector.corners.index.path))
    faces = {card: np.full((decks.FACE_H, decks.FACE_W, 3), 255, np.uint8) for card in CARD_NAMES}
    for name, networks in [("majlis", decks.networks_of(detector)),
                           ("diwan", decks.networks_of(detector)),
                           ("old", {"outline": "0", "index": "0"})]:  # fmt: skip
        store.save(decks.LearnedDeck(name, shipped, networks), faces, [])
    standard = with_deck(detector, None)
    assert standard.deck is None and standard.deck_check.others == ["diwan", "majlis"]
    chosen = with_deck(detector, "majlis")
    assert chosen.deck.name == "majlis" and chosen.deck_check.others == [None, "diwan"]
    assert with_deck(detector, "majlis", []).deck_check.others == [None]  # as asked
    with pytest.raises(UserError, match="deck old: learnt with other networks"):
        with_deck(detector, "old")  # the deck chosen: refused in one line
    other = fine_tune.IndexTail(shipped.w, shipped.b, shipped.fw[:, :8], shipped.fb)
    store.save(decks.LearnedDeck("cut", other, decks.networks_of(detector)), faces, [])
    assert with_deck(detector, None).deck_check.others == ["diwan", "majlis"]  # left out
    with pytest.raises(UserError, match=r"deck 'cut': cannot be read \(linear layer of another"):
        with_deck(detector, "cut")


def test_a_deck_calibrated_for_another_whole_card_reader_reads_on_and_says_so(
    detector, tmp_path, monkeypatch, capsys
):
    """A new whole-card reader shipped: a deck calibrated for the old one reads on without its
    calibration, and says in one line that it reads surer learnt again; ``deck list`` says
    which decks read surer learnt again and which cannot be read."""
    monkeypatch.setenv("HAKAM_DATA_DIR", str(tmp_path))
    store = deck_store.DeckStore(tmp_path / "decks")
    shipped = fine_tune.IndexTail.from_model(decks.index_onnx(detector.corners.index.path))
    faces = {card: np.full((decks.FACE_H, decks.FACE_W, 3), 255, np.uint8) for card in CARD_NAMES}
    same = Calibration(np.eye(READER_CLASSES, dtype=np.float32),
                       np.zeros(READER_CLASSES, np.float32))  # fmt: skip
    here = decks.networks_of(detector)
    for name, networks in [("majlis", here), ("moved", {**here, "reader": "0"}),
                           ("older", {"outline": here["outline"], "index": here["index"]}),
                           ("stale", {**here, "outline": "0"})]:  # fmt: skip
        store.save(decks.LearnedDeck(name, shipped, networks, calibration=same), faces, [])
    assert with_deck(detector, "majlis").deck.calibration is not None
    assert capsys.readouterr().err == ""
    moved = with_deck(detector, "moved")
    assert moved.deck.calibration is None and moved.deck_check.others[0] is None
    assert capsys.readouterr().err == (
        "hakam: deck moved: learnt with another whole-card reader, read without its "
        "calibration; it reads surer learnt again (hakam deck learn --again --name moved)\n"
    )
    assert json.loads((store.root / "moved" / "deck.json").read_text())["networks"]["reader"] == "0"
    assert main(["deck", "list"]) == 0
    listed = dict(line.split("  ", 1) for line in capsys.readouterr().out.splitlines())
    assert listed["majlis"].endswith("corner samples")
    again = "read surer if learnt again: hakam deck learn --again --name"
    assert listed["moved"].endswith(f"({again} moved)")
    assert listed["older"].endswith(f"({again} older)")
    assert listed["stale"].endswith(
        "(learnt with other networks, cannot be read: hakam deck learn --again --name stale)"
    )


EXIT_WHILE_LEARNING = """
import sys, time
from hakam.engine.cards import CARD_NAMES
from hakam.vision import decks
from hakam.vision.deck_ahead import LearningAhead
from hakam.vision.detector import make_detector
import numpy as np


def main():
    det = make_detector("openvino")
    faces = [np.full((decks.FACE_H, decks.FACE_W, 3), 40 + 6 * k, np.uint8) for k in range(32)]
    ahead = LearningAhead.for_deck("x", faces.__getitem__, det, 40)
    ahead.update(list(CARD_NAMES))
    while ahead.stage != "training":
        time.sleep(0.02)
    if sys.argv[1] == "close":
        ahead.close()  # the window closed; the process ends at once


if __name__ == "__main__":
    main()
"""


@pytest.mark.parametrize("how", ["close", "left running"])
def test_a_process_ending_while_the_deck_is_learnt_ahead_exits_cleanly(tmp_path, how):
    """The deck window closed, or its process ending, while the deck trains ahead: the work is
    stopped and waited for at exit (a thread killed in the networks' native code aborted the
    process: exit 134, "terminate called without an active exception")."""
    script = tmp_path / "exit_while_learning.py"
    script.write_text(EXIT_WHILE_LEARNING)
    done = subprocess.run([sys.executable, str(script), how.split()[0]], capture_output=True,
                          text=True, timeout=300)  # fmt: skip
    assert done.returncode == 0 and "terminate called" not in done.stderr, done.stderr
