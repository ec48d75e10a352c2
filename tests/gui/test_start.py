"""Table mode's start screen: the camera, the language, go on or start anew, and the calibration
clicked on the camera's frame, saved for that camera and reused."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QFont, QFontMetrics

from hakam.gui.match_store import MatchStore
from hakam.gui.models import EntryError
from hakam.gui.start import StartController, last_source, table_key
from hakam.gui.views.main_window import make_app
from hakam.gui.views.start_view import StartView


def test_start_needs_a_calibration_and_saves_the_one_clicked(data_dir):
    store = MatchStore()
    start = StartController(store, "0")
    with pytest.raises(EntryError, match="click the table's centre, then the first dealer"):
        start.start()
    start.click(320, 240, (640, 480))
    with pytest.raises(EntryError, match=r"^calibration: click"):
        start.start()  # one click is half a calibration
    start.click(320, 420, (640, 480))
    choice = start.start()
    assert choice.calibration.centre == (320, 240) and choice.calibration.dealer == (320, 420)
    assert choice.calibration.frame_size == (640, 480) and not choice.new_match
    again = StartController(MatchStore(), "0")  # another day: the saved one is used
    assert again.start().calibration == choice.calibration
    assert StartController(MatchStore(), "1").saved_calibration() is None  # another camera
    with pytest.raises(EntryError, match="language"):
        again.set_language("fr")


def test_the_start_screen_opens_on_the_source_last_started_with(data_dir):
    assert last_source(MatchStore()) == "0"  # the first time: camera 0
    start = StartController(MatchStore(), "0")
    start.set_source("/srv/clips/table2.mp4")
    start.click(320, 240, (640, 480))
    start.click(320, 420, (640, 480))
    start.start()
    assert last_source(MatchStore()) == "/srv/clips/table2.mp4"


def test_start_offers_the_match_in_progress_of_that_camera(data_dir):
    store = MatchStore()
    match_id = store.new_match(1)
    row = {"deal": 1, "dealer": 1, "setup": {}, "result": [0, 18]}
    store.save_table_run(match_id, table_key("0"), "out", {"rows": [row], "over": False,
                                                           "frame": 10})  # fmt: skip
    start = StartController(store, "0")
    going = start.in_progress()
    assert going is not None
    assert (going.match_id, going.deals, going.totals) == (match_id, 1, (0, 18))
    start.set_source("video.mp4")
    assert start.in_progress() is None


def test_the_start_screen_calibrates_with_two_clicks_on_the_frame(qtbot, data_dir):
    make_app()
    frame = np.zeros((480, 640, 3), np.uint8)
    view = StartView(StartController(MatchStore(), "0"), lambda source: frame)
    qtbot.addWidget(view)
    view.resize(900, 700)
    view.show()
    qtbot.waitExposed(view)
    qtbot.mouseClick(view.go, Qt.MouseButton.LeftButton)
    assert view.choice is None and "click the table's centre" in view.message.text()
    scale, ox, oy = view.frame._fit()
    for x, y in ((320, 240), (320, 400)):  # the centre, then the first dealer's seat
        qtbot.mouseClick(view.frame, Qt.MouseButton.LeftButton,
                         pos=QPoint(round(ox + x * scale), round(oy + y * scale)))  # fmt: skip
    assert len(view.frame.points) == 2
    qtbot.mouseClick(view.go, Qt.MouseButton.LeftButton)
    assert view.choice is not None
    cx, cy = view.choice.calibration.centre
    assert abs(cx - 320) < 2 / scale and abs(cy - 240) < 2 / scale


def test_a_camera_that_does_not_open_is_said_on_the_start_screen(qtbot, data_dir):
    make_app()

    def grab(source):
        raise OSError(f"camera {source}: cannot be opened (no such device or it is busy)")

    view = StartView(StartController(MatchStore(), "3"), grab)
    qtbot.addWidget(view)
    assert "Camera 3: cannot be opened" in view.message.text()
    assert view.message.kind == "error"
    view._language("ar")  # said again in the language chosen after it (seen in a walk-through)
    assert view.message.text() == "الكاميرا 3: لا تُفتح (غير موجودة أو مشغولة)"
    view._language("en")
    assert view.message.text().startswith("Camera 3: cannot be opened")
    view.show()  # the small screen with no picture: the chosen language's button, bold, fits
    qtbot.waitExposed(view)
    for b in view.lang_buttons:
        bold = QFont(b.font())
        bold.setBold(True)
        assert b.width() >= QFontMetrics(bold).horizontalAdvance(b.text()) + 32


def test_the_deck_started_with_is_offered_again_for_that_camera(data_dir):
    start = StartController(MatchStore(), "0", decks=["majlis", "diwan"])
    assert start.deck is None  # the standard readers until a deck is chosen
    with pytest.raises(EntryError, match="'other' is not learnt here"):
        start.set_deck("other")
    start.set_deck("diwan")
    start.click(320, 240, (640, 480))
    start.click(320, 420, (640, 480))
    assert start.start().deck == "diwan"
    again = StartController(MatchStore(), "0", decks=["majlis", "diwan"])
    assert again.deck == "diwan" and again.start().deck == "diwan"
    again.set_source("1")  # a camera never started with: the deck chosen stays
    assert again.deck == "diwan"
    MatchStore().set_setting(f"deck|{table_key('2')}", "")  # started with the standard readers
    again.set_source("2")
    assert again.deck is None
    again.set_source("0")  # its own again
    assert again.deck == "diwan"
    forgotten = StartController(MatchStore(), "0", decks=["majlis"])  # diwan was forgotten
    assert forgotten.deck is None


def test_the_start_screen_offers_the_decks_learnt(qtbot, data_dir):
    make_app()
    frame = np.zeros((480, 640, 3), np.uint8)
    start = StartController(MatchStore(), "0", decks=["majlis"])
    view = StartView(start, lambda source: frame)
    qtbot.addWidget(view)
    view.show()
    qtbot.waitExposed(view)
    assert [view.deck.itemText(i) for i in range(view.deck.count())] == [
        "none: the standard readers", "majlis"]  # fmt: skip
    view.deck.setCurrentIndex(1)
    view.deck.activated.emit(1)
    assert start.deck == "majlis"
    view._language("ar")
    assert view.deck.itemText(0) == "بلا ورق متعلَّم: القراءة العامة"
    assert view.deck.currentIndex() == 1


def test_a_camera_started_with_a_deck_reads_with_it_again(data_dir, capsys):
    from hakam.cli.table import table_deck

    store = MatchStore()
    key = table_key("0")
    assert table_deck(store, key, None) is None  # nothing kept: the standard readers
    assert table_deck(store, key, "majlis") == "majlis"  # asked: as asked
    store.set_setting(f"deck|{key}", "majlis")
    assert table_deck(store, key, None) is None  # kept, but not learnt (forgotten since)
    (data_dir / "decks" / "majlis").mkdir(parents=True)
    (data_dir / "decks" / "majlis" / "deck.json").write_text("{}")
    assert table_deck(store, key, None) == "majlis"
    assert "reading with deck majlis" in capsys.readouterr().out
    assert table_deck(store, table_key("1"), None) is None  # another camera


def test_table_deck_is_shown_on_the_start_screen_or_refused_before_it(data_dir, monkeypatch):
    import argparse

    from hakam.cli import table
    from hakam.errors import UserError
    from hakam.gui.start import StartChoice
    from hakam.vision.deck_store import DeckStore

    monkeypatch.setattr(DeckStore, "names", lambda self: ["majlis", "diwan"])
    store = MatchStore()
    store.set_setting(f"deck|{table_key('0')}", "majlis")  # the camera's deck last time
    shown = []

    def leave(view):  # the person leaves the screen as it shows the deck
        shown.append(view.deck.currentText())
        view.choice = StartChoice("0", "en", False, None, None, view.start.deck)
        return 1

    monkeypatch.setattr(StartView, "exec", leave)
    args = argparse.Namespace(deck="diwan", lang="en", camera_size=None)
    assert table._start_screen(args, store).deck == "diwan" and shown == ["diwan"]
    args.deck = None  # no --deck: the camera's own
    assert table._start_screen(args, store).deck == "majlis" and shown[-1] == "majlis"
    args.deck = "nope"
    with pytest.raises(UserError, match=r"--deck nope: not learnt here \(`hakam deck list`\)"):
        table._start_screen(args, store)
    assert len(shown) == 2  # refused before the screen opened
    args.deck = None
    monkeypatch.setattr(StartView, "exec", lambda view: 0)  # the person closes it
    assert table._start_screen(args, store) is None
    from hakam.cli import main

    monkeypatch.setattr(DeckStore, "names", lambda self: [])
    assert main(["table"]) == 0  # closed by the person: not an error


def test_a_deck_learnt_from_the_start_screen_is_offered_and_chosen(qtbot, data_dir, monkeypatch):
    """*Learn a deck*: the name asked, the camera's frame handed to the learning; learnt, the
    deck is offered and chosen; the window closed first, or a refusal, changes nothing."""
    from PySide6.QtWidgets import QApplication

    from hakam.errors import UserError

    make_app()
    frame = np.full((480, 640, 3), 7, np.uint8)
    start = StartController(MatchStore(), "0", decks=["majlis"])
    asked: list[tuple] = []
    answers = iter(["  diwan ", "salon", "bad", None])
    outcomes = {"diwan": "diwan", "salon": None}

    def learn(grab, name, language, retake):
        asked.append((grab() is frame, name, language))
        if name == "bad":
            raise UserError("only 12 of the 32 cards found: lay out all 32 face up, not "
                            "touching, and learn the deck again")  # fmt: skip
        return outcomes[name]

    view = StartView(start, lambda source: frame, learn=learn)
    qtbot.addWidget(view)
    monkeypatch.setattr(view, "_ask_deck_name", lambda typed="", why=None: next(answers))
    view.show()
    qtbot.waitExposed(view)
    assert view.learn_deck.isVisible() and view.learn_deck.text() == "Learn a deck…"
    view.learn_deck.click()  # learnt and saved in the deck window
    assert asked == [(True, "diwan", "en")]
    assert start.decks == ["diwan", "majlis"] and start.deck == "diwan"
    assert [view.deck.itemText(i) for i in range(view.deck.count())] == [
        "none: the standard readers", "diwan", "majlis"]  # fmt: skip
    assert view.deck.currentText() == "diwan"
    assert view.message.text() == "Deck diwan learnt and chosen." and view.message.kind == "saved"
    view.learn_deck.click()  # the deck window closed before learning
    assert asked[-1] == (True, "salon", "en") and start.decks == ["diwan", "majlis"]
    assert "Deck salon not learnt: the cards found wait" in view.message.text()
    view._language("ar")
    assert QApplication.layoutDirection() == Qt.LayoutDirection.RightToLeft  # "…" on the left
    view.learn_deck.click()  # refused: said in the window's language, nothing changed
    assert asked[-1] == (True, "bad", "ar") and start.deck == "diwan"
    assert view.message.kind == "error" and view.message.text().startswith("لم يُعثر إلا على")
    view.learn_deck.click()  # the name's dialog cancelled: nothing learnt
    assert len(asked) == 3 and view.learn_deck.text() == "تعلَّم ورقًا…"
    view._language("en")
    assert QApplication.layoutDirection() == Qt.LayoutDirection.LeftToRight
    no_learning = StartView(StartController(MatchStore(), "0"), lambda source: frame)
    qtbot.addWidget(no_learning)
    assert no_learning.learn_deck.isHidden()


def test_the_start_screen_fits_its_screen_and_a_long_message_below_the_picture(qtbot, data_dir):
    make_app()
    view = StartView(StartController(MatchStore(), "0"), lambda source: np.zeros((720, 1280, 3),
                     np.uint8), learn=lambda *a: None)  # fmt: skip
    qtbot.addWidget(view)
    view.fit_screen()
    view.show()
    qtbot.waitExposed(view)
    room = view.screen().availableGeometry()
    assert view.width() <= room.width() and view.height() <= room.height()
    view.message.say("deck walk3: " + "cards found earlier wait for answers; " * 4, "error")
    qtbot.waitUntil(lambda: view.message.height() > 2 * view.fontMetrics().height())
    assert view.frame.geometry().bottom() < view.go.geometry().top()
    assert view.go.geometry().bottom() < view.message.geometry().top()


def test_a_stop_while_a_deck_is_learnt_closes_the_start_screen_and_stops(qtbot, data_dir):
    """Ctrl+C or SIGTERM while the deck window was open (``learn`` raises it): the screen
    closes and ``hakam table`` stops as stopped, not left open with a traceback."""
    from hakam.errors import Terminated

    make_app()

    def learn(grab, name, language, retake):
        raise Terminated

    view = StartView(StartController(MatchStore(), "0"), lambda s: np.zeros((8, 8, 3), np.uint8),
                     learn=learn)  # fmt: skip
    qtbot.addWidget(view)
    view._ask_deck_name = lambda *asked: "majlis"
    view.show()
    view.learn_deck.click()
    assert isinstance(view.stopped, Terminated) and view.result() == StartView.DialogCode.Rejected
    assert not view.isVisible()


def test_a_camera_whose_deck_was_forgotten_keeps_the_deck_chosen(data_dir):
    store = MatchStore()
    store.set_setting(f"deck|{table_key('1')}", "gone")  # learnt then forgotten
    start = StartController(store, "0", decks=["majlis"])
    start.set_deck("majlis")
    start.set_source("1")
    assert start.deck == "majlis"


def test_a_name_whose_cards_wait_asks_to_go_on_with_them_or_take_a_new_picture(qtbot, data_dir):
    make_app()
    calls: list[tuple[str, bool]] = []

    def learn(grab, name, language, retake):
        calls.append((name, retake))

    view = StartView(StartController(MatchStore(), "0"), lambda s: np.zeros((8, 8, 3), np.uint8),
                     learn=learn, waiting=lambda name: name == "diwan")  # fmt: skip
    qtbot.addWidget(view)
    view._ask_deck_name = lambda *asked: "diwan"
    for choice in (False, True, None):  # go on, take a new picture, cancel
        view._ask_retake = lambda name, choice=choice: choice
        view.learn_deck.click()
    assert calls == [("diwan", False), ("diwan", True)]  # cancelled: nothing asked of it
    view._ask_deck_name = lambda *asked: "majlis"  # nothing waits: not asked
    view._ask_retake = lambda name: pytest.fail("asked")
    view.learn_deck.click()
    assert calls[-1] == ("majlis", False)


def test_a_refused_deck_name_is_asked_again_with_why_and_the_name_typed(qtbot, data_dir):
    """A name a deck cannot take (not a deck name, or learnt here already, even with cards
    waiting) asks again, saying why, the name as typed in the box; cancelled: nothing learnt."""
    make_app()
    calls: list[str] = []
    view = StartView(StartController(MatchStore(), "0", decks=["diwan"]),
                     lambda s: np.zeros((8, 8, 3), np.uint8),
                     learn=lambda grab, name, language, retake: calls.append(name),
                     waiting=lambda name: name == "diwan")  # fmt: skip
    qtbot.addWidget(view)
    view._ask_retake = lambda name: pytest.fail("asked")
    asked: list[tuple] = []
    answers = iter(["majlis hall", " diwan", "majlis", "x/y", None])

    def ask(typed="", why=None):
        asked.append((typed, why))
        return next(answers)

    view._ask_deck_name = ask
    view.learn_deck.click()
    assert calls == ["majlis"]
    assert asked[0] == ("", None) and asked[1][0] == "majlis hall"
    assert "1 to 40 Latin letters, digits" in asked[1][1]
    assert asked[2] == ("diwan", "deck diwan: learnt here already; give another name (or "
                                 "`hakam deck forget diwan`)")  # fmt: skip
    view.learn_deck.click()  # refused, then cancelled: nothing learnt
    assert calls == ["majlis"] and asked[-1][0] == "x/y"


def test_escape_on_the_start_screen_asks_before_it_closes(qtbot, data_dir):
    make_app()
    view = StartView(StartController(MatchStore(), "0"), lambda s: np.zeros((8, 8, 3), np.uint8))
    qtbot.addWidget(view)
    view.show()
    qtbot.waitExposed(view)
    answers = iter([False, True])
    view._ask_close = lambda: next(answers)
    qtbot.keyClick(view, Qt.Key.Key_Escape)  # stays
    assert view.isVisible()
    qtbot.keyClick(view, Qt.Key.Key_Escape)  # closes
    assert not view.isVisible() and view.result() == StartView.DialogCode.Rejected


def test_the_close_question_says_so_in_the_window_language(qtbot, data_dir):
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication, QMessageBox

    make_app()
    view = StartView(StartController(MatchStore(), "0", "ar"),
                     lambda s: np.zeros((8, 8, 3), np.uint8))  # fmt: skip
    qtbot.addWidget(view)
    seen: list[tuple[str, list[str]]] = []

    def answer(press: str) -> None:
        box = QApplication.activeModalWidget()
        assert isinstance(box, QMessageBox)
        seen.append((box.text(), [b.text() for b in box.buttons()]))
        next(b for b in box.buttons() if b.text() == press).click()

    QTimer.singleShot(0, lambda: answer("ابقَ"))
    assert view._ask_close() is False
    QTimer.singleShot(0, lambda: answer("أغلق"))
    assert view._ask_close() is True
    assert seen[0][0] == "أتغلق دون أن تبدأ المباراة؟" and set(seen[0][1]) == {"ابقَ", "أغلق"}


# In a process of its own, as the table's is (a signal sent to the test run itself, after
# other tests' threads, crashed it).
SIGNALLED = """
import os, signal, sys
import numpy as np
from PySide6.QtCore import QTimer
from hakam.cli.table import _exec_stoppable
from hakam.gui.match_store import MatchStore
from hakam.gui.start import StartController
from hakam.gui.views.main_window import make_app
from hakam.gui.views.start_view import StartView

signum = getattr(signal, sys.argv[1])
make_app()
view = StartView(StartController(MatchStore(), "0"), lambda s: np.zeros((8, 8, 3), np.uint8))
view._ask_close = lambda: sys.exit("asked")
before = signal.getsignal(signum)
QTimer.singleShot(50, lambda: os.kill(os.getpid(), signum))
code = _exec_stoppable(view)
print(code, type(view.stopped).__name__, view.isVisible(), signal.getsignal(signum) is before)
"""


@pytest.mark.parametrize(("signame", "stop"), [("SIGTERM", "Terminated"),
                                               ("SIGINT", "KeyboardInterrupt")])  # fmt: skip
def test_a_signal_closes_the_start_screen_without_asking_and_stops(tmp_path, signame, stop):
    import os
    import subprocess
    import sys

    script = tmp_path / "signalled.py"
    script.write_text(SIGNALLED)
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "HAKAM_DATA_DIR": str(tmp_path)}
    done = subprocess.run([sys.executable, str(script), signame], capture_output=True,
                          text=True, env=env, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    # Rejected, stopped as the signal says, closed, the handler given back.
    assert done.stdout.split() == ["0", stop, "False", "True"]


def test_the_picture_is_taken_again_to_calibrate_again_and_to_learn_a_deck(qtbot, data_dir):
    """The start screen shows what the camera sees when asked: *Calibrate again*, and the
    frame a deck is learnt from; a camera that no longer opens is said, the picture kept."""
    make_app()
    shots = iter([np.full((48, 64, 3), v, np.uint8) for v in (10, 20, 30)])

    def grab(source: str) -> np.ndarray:
        shot = next(shots, None)
        if shot is None:
            raise OSError("camera 0 does not open")
        return shot

    def learn(take, name, language, retake):
        take()
        return None

    view = StartView(StartController(MatchStore(), "0"), grab, learn=learn)
    qtbot.addWidget(view)
    assert view.frame.image.pixelColor(0, 0).red() == 10  # shown as the source opened
    view._again()
    assert view.frame.image.pixelColor(0, 0).red() == 20
    view._ask_deck_name = lambda *asked: "majlis"
    view.learn_deck.click()
    assert view.frame.image.pixelColor(0, 0).red() == 30  # the frame the deck was learnt from
    view._again()
    assert view.frame.image.pixelColor(0, 0).red() == 30 and view.message.kind == "error"


def test_the_calibration_window_fits_the_screen_and_clicks_in_frame_pixels(qtbot):
    """``hakam table --source X`` with no calibration saved: a 1920x1080 camera's frame fits the
    screen it opens on; the clicks are the frame's pixels; Escape closes it."""
    from PySide6.QtWidgets import QApplication

    from hakam.cli.common import click_window

    make_app()
    frame = np.zeros((1080, 1920, 3), np.uint8)
    window = click_window(frame, "ar")
    qtbot.addWidget(window)
    room = QApplication.primaryScreen().availableGeometry()
    assert window.width() <= room.width() and window.height() <= room.height()
    assert window.width() / window.height() == pytest.approx(1920 / 1080, rel=0.01)
    assert window.windowTitle() == "Hakam: المعايرة: انقر وسط الطاولة في الصورة"
    window.show()
    qtbot.mouseClick(window, Qt.MouseButton.LeftButton, pos=QPoint(window.width() // 2, 0))
    (x, y), scale = window.points[0], window.width() / 1920
    assert x == pytest.approx(960, abs=1 / scale) and y == 0
    qtbot.keyClick(window, Qt.Key.Key_Escape)
    assert not window.isVisible() and len(window.points) == 1
