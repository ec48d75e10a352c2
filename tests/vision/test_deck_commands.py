"""``hakam deck learn`` stopped, short of cards, or given a folder: what it says and keeps."""

from __future__ import annotations

import os
import subprocess
import sys

import cv2
import numpy as np
import pytest

from hakam.cli import deck as deck_cli
from hakam.cli import main
from hakam.engine.cards import CARD_NAMES

# Run in a fresh interpreter each: a signal sent to the pytest process itself, after tests that
# learnt with drawing processes, can crash it there (seen once, never outside pytest).
WINDOW = """
import os, signal, threading
from types import SimpleNamespace
import numpy as np
from hakam.cli import deck as deck_cli
from hakam.gui.views.main_window import make_app

make_app()
found = [SimpleNamespace(proposed="AS", face=np.zeros((176, 126, 3), np.uint8), read=None)]
for s in (signal.SIGINT, signal.SIGTERM):
    before = signal.getsignal(s)
    threading.Timer(0.5, os.kill, (os.getpid(), s)).start()  # from outside Qt, as a terminal
    names, learnt, by = deck_cli._confirm_in_window(found, "en", None, ["AS"])
    print(names, learnt, by == s, signal.getsignal(s) == before)
"""

# The window closed by a signal: the answers kept, then the stop said as for a learning, with the
# signal's exit status; a deck saved before the stop is said saved.
WINDOW_STOPPED = """
import signal, sys
from types import SimpleNamespace
import numpy as np
from hakam.cli import deck as deck_cli
from hakam.cli import main
from hakam.cli.common import decks_root
from hakam.vision import decks

signum, saved = getattr(signal, sys.argv[1]), sys.argv[2] == "saved"
again = sys.argv[2] == "again"  # back in the window with the answers waiting
found = [SimpleNamespace(proposed=c, face=np.zeros((176, 126, 3), np.uint8), frame=0, read=None,
                         box=np.zeros(4), quad=np.zeros((4, 2)), probability=0.9)
         for c in decks.CARD_NAMES]
decks.find_cards = lambda frames, detector: found
deck_cli._detector = lambda threads: None
deck_cli._frames = lambda *a: [np.zeros((8, 8, 3), np.uint8)]
deck_cli.has_display = lambda: True


def window(found, language, learn, answers, named=None, more=None, **_):  # (answered,
    # learnt, stopped)
    if saved:
        (decks_root() / "home").mkdir(parents=True)
        (decks_root() / "home" / "deck.json").write_text("{}")
    return ["AS"] * 32, saved, signum


deck_cli._confirm_in_window = window
answers = str(decks_root() / ".pending" / "home" / "proposals.json")
sys.exit(main(["deck", "learn", "--name", "home", "--answers", answers, "--window"] if again
              else ["deck", "learn", "--source", "x", "--name", "home", "--window", "--replace"]))
"""

HEADLESS = """
import os, signal, sys, threading, time
from hakam.cli import deck as deck_cli
from hakam.cli import main
from hakam.engine.cards import CARD_NAMES

deck_cli._learn_deck = lambda args: time.sleep(30)  # a learning under way
threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGTERM)).start()  # `kill`, a closed terminal
sys.exit(main(["deck", "learn", "--name", "home", "--answers", "a.json"]))
"""


def _run(script: str, tmp_path, **env) -> subprocess.CompletedProcess:
    path = tmp_path / "script.py"
    path.write_text(script)
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", **env}
    return subprocess.run([sys.executable, str(path)], capture_output=True, text=True, env=env,
                          timeout=120)  # fmt: skip


def test_ctrl_c_or_sigterm_in_the_window_is_its_cancel(tmp_path):
    done = _run(WINDOW, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["['AS'] False True True"] * 2  # by it; handlers back


@pytest.mark.parametrize(("signame", "code"), [("SIGINT", 130), ("SIGTERM", 143)])
def test_a_window_closed_by_a_signal_exits_as_stopped(tmp_path, signame, code):
    path = tmp_path / "script.py"
    path.write_text(WINDOW_STOPPED)
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "HAKAM_DATA_DIR": str(tmp_path)}
    pending = tmp_path / "decks" / ".pending" / "home"
    done = subprocess.run([sys.executable, str(path), signame, "answered"], capture_output=True,
                          text=True, env=env, timeout=120)  # fmt: skip
    assert done.returncode == code, done.stderr
    assert f"stopped: nothing learnt; the cards found wait in {pending}" in done.stdout
    assert (pending / "proposals.json").read_text().count('"AS"') == 32  # the answers kept
    done = subprocess.run([sys.executable, str(path), signame, "again"], capture_output=True,
                          text=True, env=env, timeout=120)  # fmt: skip
    assert done.returncode == code, done.stderr  # and the way back says the window again:
    assert "(go on with hakam deck learn --name home --window)" in done.stdout
    done = subprocess.run([sys.executable, str(path), signame, "saved"], capture_output=True,
                          text=True, env=env, timeout=120)  # fmt: skip
    assert done.returncode == code, done.stderr
    assert "stopped: deck home was learnt and saved before the stop" in done.stdout
    assert not pending.exists()


def test_a_learning_stopped_headless_says_what_waits(tmp_path):
    pending = tmp_path / "decks" / ".pending" / "home"
    pending.mkdir(parents=True)
    done = _run(HEADLESS, tmp_path, HAKAM_DATA_DIR=str(tmp_path))
    assert done.returncode == 143, done.stderr  # 128 + SIGTERM, as a shell reports it
    assert f"stopped: nothing learnt; the cards found wait in {pending}" in done.stdout
    assert "(go on with hakam deck learn --name home --answers a.json)" in done.stdout
    assert pending.is_dir()


def test_every_image_of_a_folder_is_a_frame_unless_told(tmp_path, capsys):
    for k in range(3):
        cv2.imwrite(str(tmp_path / f"{k}.png"), np.full((40, 60, 3), 50 * k, np.uint8))
    assert len(deck_cli._frames(str(tmp_path), None, None)) == 3  # all of them
    assert len(deck_cli._frames(str(tmp_path), None, 2)) == 2
    assert capsys.readouterr().out == ""
    assert len(deck_cli._frames(str(tmp_path), 3, 2)) == 2
    assert "2 of the 3 frames asked for taken (one in 2: --every)" in capsys.readouterr().out


def test_too_few_cards_found_is_said_with_what_to_do(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("HAKAM_DATA_DIR", str(tmp_path / "data"))
    (tmp_path / "src").mkdir()
    cv2.imwrite(str(tmp_path / "src" / "cloth.png"), np.full((480, 640, 3), (40, 90, 30), np.uint8))
    assert main(["deck", "learn", "--source", str(tmp_path / "src"), "--name", "home"]) == 0
    out = capsys.readouterr().out
    assert "Only 0 of the 32 cards found: lay out all 32 face up" in out
    assert f"hakam deck learn --name home --source {tmp_path / 'src'}\n" in out
    assert not (tmp_path / "data" / "decks" / ".pending" / "home").exists()  # nothing to answer


def test_a_ten_written_t_is_refused_with_how_to_write_it():
    from hakam.vision import decks

    with pytest.raises(
        decks.DeckError, match=r"not Baloot cards: TS \(7, 8, 9, 10, J, Q, K, A .*10H, not TH\)"
    ):
        decks.check_cards(["TS", *CARD_NAMES[1:]])


def test_again_with_a_source_is_refused_in_one_line(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("HAKAM_DATA_DIR", str(tmp_path))
    assert main(["deck", "learn", "--name", "home", "--again", "--source", "0"]) == 2
    assert "--again learns from the faces kept" in capsys.readouterr().err


def test_forget_asks_at_the_terminal_and_refuses_where_nobody_is(tmp_path, monkeypatch, capsys):
    import io

    monkeypatch.setenv("HAKAM_DATA_DIR", str(tmp_path))
    deck = tmp_path / "decks" / "home"
    deck.mkdir(parents=True)
    (deck / "deck.json").write_text("{}")
    waiting = tmp_path / "decks" / ".pending" / "salon"
    waiting.mkdir(parents=True)
    monkeypatch.setattr(sys, "stdin", io.StringIO("y\n"))  # not a terminal
    assert main(["deck", "forget", "home"]) == 2
    err = capsys.readouterr().err
    assert "deck home: nobody at the terminal to ask; `hakam deck forget home --yes`" in err
    assert deck.is_dir()
    questions: list[str] = []
    replies = iter(["", "no", "Y"])

    def answer(question: str) -> str:
        questions.append(question)
        return next(replies)

    monkeypatch.setattr(sys.stdin, "isatty", lambda: True)
    monkeypatch.setattr("builtins.input", answer)
    for _ in range(2):  # Enter, then "no": kept
        assert main(["deck", "forget", "home"]) == 0
        assert capsys.readouterr().out == "deck home: kept\n" and deck.is_dir()
    assert questions[0].startswith("forget deck home (learning it again takes its 32 cards")
    assert questions[0].endswith("? [y/N] ")
    assert main(["deck", "forget", "home"]) == 0
    assert capsys.readouterr().out == "deck home: forgotten\n" and not deck.exists()
    monkeypatch.setattr("builtins.input", lambda q: questions.append(q) or "yes")
    assert main(["deck", "forget", "salon"]) == 0
    assert questions[-1] == "drop the cards found for deck salon and the answers given? [y/N] "
    assert not waiting.exists()
    assert main(["deck", "forget", "nope"]) == 2  # nothing to ask about: said at once
    assert "deck 'nope': not learnt here" in capsys.readouterr().err


def test_a_picture_added_in_the_window_waits_with_the_answers(tmp_path, monkeypatch):
    import json

    from hakam.errors import UserError
    from hakam.vision import deck_store, decks
    from hakam.vision.reader import OTHER

    store = deck_store.DeckStore(tmp_path / "decks")
    folder = store.waiting_folder("home")
    face = np.full((decks.FACE_H, decks.FACE_W, 3), 200, np.uint8)

    def find(frame: int, card: str) -> decks.Candidate:
        read = np.full(OTHER + 1, 0.001, np.float32)
        read[CARD_NAMES.index(card)] = 0.9
        return decks.Candidate(frame, np.float32([1, 2, 30, 40]), np.zeros((4, 2), np.float32),
                               face, card, 0.9, read)  # fmt: skip

    frames = [np.zeros((40, 60, 3), np.uint8)]
    found = [find(0, card) for card in CARD_NAMES[:31]]
    deck_store.keep_pending(folder, frames, found)
    pictures = [[], [find(0, "AS")]]
    monkeypatch.setattr(decks, "find_cards", lambda frames, detector: pictures.pop(0))
    shots = [np.ones((40, 60, 3), np.uint8)] * 3 + [np.ones((50, 60, 3), np.uint8)]
    more = deck_cli._more_finds(store, "home", frames, found, lambda: shots.pop(0), None)
    with pytest.raises(UserError, match="no card found in the new picture"):
        more(list(CARD_NAMES[:31]), {2})
    assert len(frames) == 1 and len(found) == 31 and not (folder / "frame-1.png").exists()
    new = more([*CARD_NAMES[:30], None], {30})  # the person dropped a find, then added
    assert [c.frame for c in new] == [1] and len(frames) == 2 and len(found) == 32
    kept_frames, kept = deck_store.pending(folder)  # a crash now loses nothing
    assert len(kept_frames) == 2 and len(kept) == 32 and kept[-1].frame == 1
    assert decks.read_answers(folder / "proposals.json", 32) == [*CARD_NAMES[:30], None, "AS"]
    # A picture that cannot be kept changes nothing; nor one of another size.
    pictures.append([find(0, "KS")])
    answers = [*CARD_NAMES[:30], None, "AS"]

    def full(*args):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(deck_store, "keep_pending", full)
    with pytest.raises(UserError, match="deck home: the new picture cannot be kept"):
        more(answers, {30})
    assert len(frames) == 2 and len(found) == 32
    assert decks.read_answers(folder / "proposals.json", 32) == answers
    with pytest.raises(UserError, match="the new picture is 60x50, the cards found are in 60x40"):
        more(answers, {30})
    assert len(frames) == 2 and len(found) == 32
    # Cut short after the answers were written: those beyond the finds kept are dropped.
    (folder / "proposals.json").write_text(json.dumps([*answers, "KS"]))
    assert decks.read_answers(folder / "proposals.json", 32, waiting=True) == answers
    with pytest.raises(decks.DeckError, match="33 answers for 32 cards found"):
        decks.read_answers(folder / "proposals.json", 32)  # a person's own file: as given
    assert json.loads((folder / "named.json").read_text()) == {
        "named": [30], "answers": [*CARD_NAMES[:30], None, "AS"], "changed": []}  # fmt: skip


def test_the_window_adds_the_finds_of_a_picture_to_the_answers(monkeypatch):
    from PySide6.QtCore import QObject

    from hakam.gui.views import deck_view
    from hakam.vision import decks
    from hakam.vision.reader import OTHER

    face = np.full((decks.FACE_H, decks.FACE_W, 3), 200, np.uint8)

    def find(card: str) -> decks.Candidate:
        read = np.full(OTHER + 1, 0.001, np.float32)
        read[CARD_NAMES.index(card)] = 0.9
        return decks.Candidate(0, np.float32([1, 2, 30, 40]), np.zeros((4, 2), np.float32),
                               face, card, 0.9, read)  # fmt: skip

    found = [find(card) for card in CARD_NAMES[:31]]
    asked: list = []

    def more(answers: list, named: set[int]) -> list:
        asked.append((answers, named))
        new = [find("AS"), find("KS")]
        found.extend(new)  # as ``_more_finds`` does
        return new

    class Window(QObject):  # the deck window: Add a picture pressed once, then closed
        def __init__(self, faces, answers, language, learn=None, more=None, **_):
            super().__init__()
            self.answers, self.learnt, self.more, self.faces = answers, None, more, faces

        def fit_screen(self):
            pass

        def exec(self):
            self.faces += self.more()
            return 0

    monkeypatch.setattr(deck_view, "DeckView", Window)
    confirm = deck_cli._confirm_in_window
    names, learnt, stopped = confirm(found, "en", None, list(CARD_NAMES[:31]), more=more)
    assert asked == [(list(CARD_NAMES[:31]), set())]
    assert names == [*CARD_NAMES[:31], "AS", None] and not learnt and stopped is None
    window_off = deck_cli._confirm_in_window  # without ``more``: not offered
    monkeypatch.setattr(Window, "exec", lambda self: 0 if self.more is None else pytest.fail())
    assert window_off(found, "en", None, [*CARD_NAMES[:31], "AS", None])[0][-1] is None


def test_a_camera_showing_some_cards_opens_the_window_to_add_the_others(tmp_path, monkeypatch):
    from hakam.vision import decks

    monkeypatch.setenv("HAKAM_DATA_DIR", str(tmp_path))
    face = np.full((decks.FACE_H, decks.FACE_W, 3), 200, np.uint8)
    some = [decks.Candidate(0, np.float32([1, 2, 30, 40]), np.zeros((4, 2), np.float32), face,
                            card, 0.9) for card in CARD_NAMES[:5]]  # fmt: skip
    monkeypatch.setattr(deck_cli, "_detector", lambda threads: None)
    monkeypatch.setattr(deck_cli, "_frames", lambda *a: [np.zeros((40, 60, 3), np.uint8)])
    monkeypatch.setattr(decks, "find_cards", lambda frames, detector: some)
    monkeypatch.setattr(deck_cli, "has_display", lambda: True)
    opened: list = []

    def window(found, language, learn, answers, named=None, more=None, **_):
        opened.append((len(found), more is not None))
        return answers, False, None

    monkeypatch.setattr(deck_cli, "_confirm_in_window", window)
    assert main(["deck", "learn", "--source", "0", "--name", "home", "--window"]) == 0
    assert opened == [(5, True)]  # a camera: the window, to add a picture of the others
    assert (tmp_path / "decks" / ".pending" / "home" / "found.json").is_file()
    monkeypatch.setattr(decks, "find_cards", lambda frames, detector: pytest.fail("found"))
    assert main(["deck", "learn", "--source", "0", "--name", "home", "--window"]) == 0
    assert opened == [(5, True)] * 2  # the same again: on with the cards waiting, adding
    monkeypatch.setattr(decks, "find_cards", lambda frames, detector: some)
    (tmp_path / "clip").mkdir()  # a video or a folder: no other frame to take, said at once
    cv2.imwrite(str(tmp_path / "clip" / "0.png"), np.zeros((40, 60, 3), np.uint8))
    argv = ["deck", "learn", "--source", str(tmp_path / "clip"), "--name", "hall", "--window"]
    assert main(argv) == 0 and opened == [(5, True)] * 2


def test_learning_from_the_window_keeps_which_finds_the_person_named(tmp_path):
    """Written before the learning, whatever follows (a refusal here; a crash mid-learning
    likewise): going on, the person's answers stay theirs and only theirs."""
    import json

    from hakam.errors import UserError
    from hakam.vision import deck_store

    store = deck_store.DeckStore(tmp_path / "decks")
    store.waiting_folder("home").mkdir(parents=True)
    named, changed = {3}, {7}
    learn = deck_cli._window_learning(store, "home", [], [], 10, None, named, None, changed)
    named.add(5)  # named in the window after it opened
    changed.add(9)  # and a find proposed again there
    with pytest.raises(UserError, match="not the 32 Baloot cards once each"):
        learn(["AS"] * 32, lambda stage, k, n: None)
    kept = json.loads((store.waiting_folder("home") / "named.json").read_text())
    assert kept == {"named": [3, 5], "answers": ["AS"] * 32, "changed": [7, 9]}
    # Going on: the marks stay where the window left them, but for a find named since.
    found = [None] * 32
    assert deck_cli._changed(store.waiting_folder("home"), found, {9}) == {7}
