"""Confirming the cards found while learning a deck: the answers and the window."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest
from PySide6.QtCore import Qt

from hakam.engine.cards import CARD_NAMES
from hakam.errors import UserError
from hakam.gui.deck_answers import DeckAnswers, LearningProgress, LearningStopped
from hakam.gui.models import EntryError
from hakam.gui.views.deck_view import DeckView
from hakam.gui.views.main_window import make_app


def test_the_answers_say_what_is_missing_and_what_is_twice():
    answers = DeckAnswers([*CARD_NAMES[:31], "7C", None])
    assert answers.missing() == ["AS"] and answers.twice() == ["7C"] and not answers.complete()
    answers.set(32, "AS")
    assert answers.missing() == [] and answers.twice() == ["7C"]
    answers.set(0, None)  # the first find is dropped: 7C once
    assert answers.complete()
    with pytest.raises(EntryError, match="card 34: no such find"):
        answers.set(33, "AS")
    with pytest.raises(EntryError, match="'5H' is not a Baloot card"):
        answers.set(0, "5H")


def test_the_window_offers_save_only_for_the_32_cards_once_each(qtbot):
    make_app()
    proposals = [*CARD_NAMES[:31], "7C"]  # the last find proposed as 7C; it is AS
    faces = [np.full((176, 126, 3), 40 + 6 * k, np.uint8) for k in range(len(proposals))]
    answers = DeckAnswers(proposals)
    view = DeckView(faces, answers)
    qtbot.addWidget(view)
    view.show()
    qtbot.waitExposed(view)
    assert not view.save.isEnabled()
    assert view.problem.text() == "Missing: A♠; more than once: 7♣ (1, 32)"
    assert view.choices[31].currentText() == "7♣ (find 1)"  # the other find given 7♣
    assert view.choices[31].shown() == "7♣"  # closed: the card alone (the list says more)
    assert view.choices[5].itemText(CARD_NAMES.index("7C") + 1) == "7♣ (find 1, 32)"
    assert view.choices[5].itemText(CARD_NAMES.index("AS") + 1) == "A♠"  # given to none
    view.choices[31].setCurrentIndex(CARD_NAMES.index("AS") + 1)
    view.choices[31].activated.emit(CARD_NAMES.index("AS") + 1)
    assert view.save.isEnabled() and view.problem.text() == "The 32 Baloot cards, once each."
    assert view.choices[31].currentText() == "A♠"  # given to this find alone now
    assert view.choices[0].itemText(CARD_NAMES.index("AS") + 1) == "A♠ (find 32)"
    qtbot.mouseClick(view.save, Qt.MouseButton.LeftButton)
    assert view.result() == DeckView.DialogCode.Accepted
    assert answers.answers == list(CARD_NAMES)


def test_the_window_in_arabic(qtbot):
    make_app()
    view = DeckView([np.zeros((176, 126, 3), np.uint8)], DeckAnswers(["AS"]), "ar")
    qtbot.addWidget(view)
    assert view.layoutDirection() == Qt.LayoutDirection.RightToLeft
    too_few, missing = view.problem.text().split("؛ ")  # an Arabic semicolon between the two
    assert too_few.startswith(f"لم يُعثر إلا على {view.lang.num(1)} من")
    assert missing.startswith("ناقصة: ")
    assert not view.save.isEnabled()
    assert view.save.text() == "تعلَّم الورق واحفظه"
    # A card given to a find is said in each other find's choices, in the window's digits.
    two = DeckView([np.zeros((176, 126, 3), np.uint8)] * 2, DeckAnswers(["AS", None]), "ar")
    qtbot.addWidget(two)
    assert two.choices[1].itemText(CARD_NAMES.index("AS") + 1) == (
        f"{two.lang.card('AS')} (الورقة {two.lang.num(1)})")  # fmt: skip


def test_the_pace_gives_the_time_left_of_each_stage():
    now = [100.0]
    progress = LearningProgress(clock=lambda: now[0])
    progress.update("scenes", 1, 2000)
    assert progress.left is None  # no pace yet
    now[0] += 10.0
    progress.update("scenes", 201, 2000)
    assert progress.left == pytest.approx(10.0 / 200 * 1799)
    now[0] += 1.0
    progress.update("training", 1, 352)
    assert progress.stage == "training" and progress.left is None  # a new stage, a new pace
    progress.stop()
    with pytest.raises(LearningStopped):
        progress.update("training", 2, 352)


def _answered(qtbot, learn):
    make_app()
    faces = [np.full((176, 126, 3), 40 + 6 * k, np.uint8) for k in range(32)]
    view = DeckView(faces, DeckAnswers(list(CARD_NAMES)), learn=learn)
    qtbot.addWidget(view)
    view.show()
    qtbot.waitExposed(view)
    return view


def test_the_answers_are_told_as_they_change_until_the_learning_starts(qtbot):
    told: list[list] = []
    make_app()
    faces = [np.full((176, 126, 3), 40, np.uint8)] * 32
    view = DeckView(faces, DeckAnswers(list(CARD_NAMES)), learn=lambda a, p: "majlis",
                    ahead=told.append, chosen=True)  # fmt: skip
    qtbot.addWidget(view)
    assert told == [list(CARD_NAMES)]  # as the window opens: drawn with at once
    view.choices[0].activated.emit(0)  # the first find dropped
    assert told[-1] == [None, *CARD_NAMES[1:]]
    view.choices[0].activated.emit(1)
    shown = len(told)
    qtbot.mouseClick(view.save, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: view.learnt == "majlis")
    assert len(told) == shown  # learning, then learnt: not told again
    # From the start screen the deck is chosen for the table as it is saved.
    assert view.problem.text() == "Deck majlis learnt and saved; the table reads with it."


def test_the_finds_marked_when_the_window_closed_are_marked_again(qtbot):
    make_app()
    view = DeckView([np.full((176, 126, 3), 40, np.uint8)] * 32,
                    DeckAnswers(list(CARD_NAMES), changed={1}))  # fmt: skip
    qtbot.addWidget(view)
    assert view.numbers[1].text() == "2 ↻" and not view.again.isHidden()
    assert "2. Look at these finds again" in view.again.text()


def test_the_deck_is_learnt_in_the_window_with_its_progress(qtbot):
    seen, first = threading.Event(), threading.Event()

    def learn(answers, progress):
        assert answers == list(CARD_NAMES)
        for k in range(1, 4):
            progress("scenes", k, 3)
            time.sleep(0.01)
        progress("training", 1, 10)
        first.wait(5)  # the drawing's count is not left up at the training's first step
        for k in range(2, 6):
            progress("training", k, 10)
        seen.wait(5)  # the window shows the training before it ends
        return "majlis"

    view = _answered(qtbot, learn)
    qtbot.mouseClick(view.save, Qt.MouseButton.LeftButton)
    assert not view.save.isEnabled() and view.cancel.text() == "Stop learning"
    qtbot.waitUntil(lambda: view.problem.text() == "Training the deck's index network…")
    first.set()
    qtbot.waitUntil(
        lambda: "Training the deck's index network: step 5 of 10" in view.problem.text()
    )
    # One bar for both stages: drawing is its first half, training its second.
    assert view.bar.isVisible() and view.bar.value() == 75 and view.bar.maximum() == 100
    seen.set()
    qtbot.waitUntil(lambda: view.learnt == "majlis")
    # Saying so in the window, until the person closes it: a table may not see the terminal.
    assert view.isVisible() and view.problem.text().startswith("Deck majlis learnt and saved")
    assert view.problem.property("role") == "ok" and not view.cancel.isVisible()
    assert view.save.text() == "Close" and view.save.isEnabled()
    qtbot.mouseClick(view.save, Qt.MouseButton.LeftButton)
    assert view.result() == DeckView.DialogCode.Accepted and not view.isVisible()


def test_a_deck_saved_is_kept_however_the_window_is_closed(qtbot):
    view = _answered(qtbot, lambda answers, progress: "majlis")
    qtbot.mouseClick(view.save, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: view.learnt == "majlis")
    view.close()  # the title bar's X, or Ctrl+C (``reject``), after the save
    assert not view.isVisible() and view.learnt == "majlis"
    assert view.result() == DeckView.DialogCode.Accepted


def test_a_stop_while_the_deck_is_saved_closes_the_window_with_it_saved(qtbot):
    saving, saved = threading.Event(), threading.Event()

    def learn(answers, progress):
        progress("training", 10, 10)  # the last step told: then the save, which asks nothing
        saving.set()
        saved.wait(5)
        return "majlis"

    view = _answered(qtbot, learn)
    qtbot.mouseClick(view.save, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(saving.is_set)
    view.reject()  # Ctrl+C, SIGTERM or *Stop learning*: too late to stop the save
    saved.set()
    qtbot.waitUntil(lambda: not view.isVisible())  # closed as asked, not left waiting
    assert view.learnt == "majlis" and view.result() == DeckView.DialogCode.Accepted


def test_learning_can_be_stopped_or_refused_and_the_answers_stay(qtbot):
    def forever(answers, progress):
        k = 0
        while True:  # until the person stops it
            k += 1
            progress("scenes", k, 10**6)
            time.sleep(0.005)

    view = _answered(qtbot, forever)
    qtbot.mouseClick(view.save, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: view.progress.done > 2)
    view.ask_stop = lambda: True  # the title bar's X, confirmed: stops the learning, and
    view.close()  # closes once it has stopped
    assert view.isVisible() and view.problem.text() == "Stopping…"
    assert not view.cancel.isEnabled()
    qtbot.waitUntil(lambda: not view.isVisible())
    assert view._job is None and view.learnt is None and view.progress.stopped

    def refused(answers, progress):
        raise UserError("deck majlis: cannot be written (disk full)")

    view = _answered(qtbot, refused)
    qtbot.mouseClick(view.save, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: view.problem.text() == "deck majlis: cannot be written (disk full)")
    assert view.problem.property("role") == "error"
    assert view.isVisible() and view.save.isEnabled() and view.choices[0].isEnabled()
    assert view.cancel.text() == "Cancel" and view.answers.answers == list(CARD_NAMES)
    # *Stop learning*, confirmed: the learning stops, the answers are back, to learn again.
    view = _answered(qtbot, forever)
    qtbot.mouseClick(view.save, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: view.progress.done > 2)
    assert view.again.isHidden()  # nothing to look at again while learning
    view.ask_stop = lambda: True
    qtbot.mouseClick(view.cancel, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: view._job is None)
    assert view.isVisible() and view.learnt is None and view.save.isEnabled()
    assert view.problem.text().startswith("Learning stopped: nothing of it is kept")
    assert view.cancel.text() == "Cancel" and view.choices[0].isEnabled()
    # *Stop learning*, then Ctrl+C or SIGTERM before it has stopped: the window closes.
    view = _answered(qtbot, forever)
    qtbot.mouseClick(view.save, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: view.progress.done > 2)
    view.ask_stop = lambda: True
    qtbot.mouseClick(view.cancel, Qt.MouseButton.LeftButton)
    view.reject()  # as the signal handlers do
    qtbot.waitUntil(lambda: not view.isVisible())


def test_the_window_fits_the_screen_and_says_when_cards_were_not_found(qtbot):
    make_app()
    view = DeckView([np.zeros((176, 126, 3), np.uint8)] * 3, DeckAnswers(["AS", "KS", None]))
    qtbot.addWidget(view)
    view.fit_screen(5000, 5000)
    room = view.screen().availableGeometry()
    assert view.width() <= room.width() - 16 and view.height() <= room.height() - 48
    assert view.problem.text().startswith("Only 3 of the 32 cards found: cancel, lay out")


def test_a_learning_interrupted_ends_in_the_window_as_stopped(qtbot):
    def interrupted(answers, progress):
        progress("scenes", 1, 10)
        raise KeyboardInterrupt  # seen ending the learning thread in a walk-through (Ctrl+C)

    view = _answered(qtbot, interrupted)
    qtbot.mouseClick(view.save, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not view.isVisible())
    assert view._job is None and view.learnt is None and view.progress.stopped


def test_the_wheel_over_a_find_scrolls_and_never_changes_its_card(qtbot):
    from PySide6.QtCore import QPoint, QPointF
    from PySide6.QtGui import QWheelEvent
    from PySide6.QtWidgets import QApplication, QComboBox

    make_app()
    proposals = list(CARD_NAMES)
    answers = DeckAnswers(proposals)
    view = DeckView([np.full((176, 126, 3), 90, np.uint8)] * 32, answers)
    qtbot.addWidget(view)
    view.show()
    qtbot.waitExposed(view)

    def wheel(widget) -> None:
        at = QPointF(5, 5)
        QApplication.sendEvent(widget, QWheelEvent(
            at, widget.mapToGlobal(at), QPoint(0, 0), QPoint(0, -120), Qt.MouseButton.NoButton,
            Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase, False))  # fmt: skip

    plain = QComboBox()  # what a plain one does with the same turn of the wheel
    plain.addItems([view.choices[4].itemText(i) for i in range(view.choices[4].count())])
    plain.setCurrentIndex(5)
    qtbot.addWidget(plain)
    wheel(plain)
    assert plain.currentIndex() != 5
    wheel(view.choices[4])
    assert view.choices[4].currentIndex() == 5 and answers.answers == proposals


def _read(**cards: float) -> np.ndarray:
    from hakam.vision.reader import OTHER, READER_CLASSES

    p = np.full(READER_CLASSES, 1e-4)
    for name, share in cards.items():
        p[OTHER if name == "other" else CARD_NAMES.index(name)] = share
    return p / p.sum()


def test_as_the_person_names_finds_the_others_are_proposed_again(qtbot):
    from hakam.vision.decks import propose

    reads = [_read(JD=0.6, AD=0.3), _read(JD=0.5, AD=0.45), _read(KS=0.8)]
    proposals = [name for name, _ in propose(reads)]
    assert proposals == ["JD", "AD", "KS"]
    answers = DeckAnswers(proposals, reads)
    answers.set(0, "AD")  # the person: the first find is the ace
    assert answers.answers == ["AD", "JD", "KS"]  # the second proposed again: the jack
    answers.set(1, "AD")  # the person's own answers never change, even twice the same
    assert answers.answers == ["AD", "AD", "KS"] and answers.twice() == ["AD"]
    fixed = DeckAnswers(proposals)  # no reads (cards found before 2026-12-07): as they are
    fixed.set(0, "AD")
    assert fixed.answers == ["AD", "AD", "KS"]
    # The window shows what is proposed again.
    make_app()
    view = DeckView([np.full((176, 126, 3), 90, np.uint8)] * 3, DeckAnswers(proposals, reads))
    qtbot.addWidget(view)
    view.choices[0].setCurrentIndex(CARD_NAMES.index("AD") + 1)
    view.choices[0].activated.emit(CARD_NAMES.index("AD") + 1)
    assert [c.currentText() for c in view.choices] == ["A♦", "J♦", "K♠"]
    # The find proposed again is marked until the person names it (here: as proposed).
    assert view.answers.changed == {1}
    assert [n.text() for n in view.numbers] == ["1", "2 ↻", "3"]
    assert [n.property("role") for n in view.numbers] == ["", "changed", ""]
    assert view.numbers[1].toolTip() == "proposed again" and not view.again.isHidden()
    assert view.again.text() == ("↻ Changed by your other answers after you may have checked "
                                 "them: 2. Look at these finds again; choosing a card for one "
                                 "clears its mark.")  # fmt: skip
    view.choices[1].activated.emit(CARD_NAMES.index("JD") + 1)
    assert view.answers.changed == set() and view.answers.answers == ["AD", "JD", "KS"]
    assert [n.text() for n in view.numbers] == ["1", "2", "3"]
    assert view.numbers[1].property("role") == "" and view.again.isHidden()


def test_escape_while_learning_does_nothing_and_closing_asks_first(qtbot, monkeypatch):
    release = threading.Event()

    def learn(answers, progress):
        for k in range(1, 400):
            progress("scenes", k, 400)  # raises once stopped
            if release.wait(0.01):
                break
        return "majlis"

    view = _answered(qtbot, learn)
    qtbot.mouseClick(view.save, Qt.MouseButton.LeftButton)
    for key in (Qt.Key.Key_Escape, Qt.Key.Key_Return, Qt.Key.Key_Enter):
        qtbot.keyClick(view, key)
    assert view.isVisible() and not view.progress.stopped  # a stray key: learning goes on
    asked: list[bool] = []
    monkeypatch.setattr(view, "ask_stop", lambda: asked.append(True) or False)
    view.close()  # the window's close button: asked, and the person goes on
    assert asked == [True] and view.isVisible() and not view.progress.stopped
    monkeypatch.setattr(view, "ask_stop", lambda: True)
    view.close()  # asked again: stopped, nothing saved
    qtbot.waitUntil(lambda: not view.isVisible())
    assert view.progress.stopped and view.learnt is None
    release.set()


def test_the_question_before_stopping_offers_to_stop_or_go_on(qtbot):
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    view = _answered(qtbot, lambda answers, progress: "majlis")
    texts: list[str] = []

    def press(label: str) -> None:
        box = QApplication.activeModalWidget()
        texts.append(box.text())
        next(b for b in box.buttons() if b.text() == label).click()

    QTimer.singleShot(50, lambda: press("Go on learning"))
    assert view.ask_stop() is False
    QTimer.singleShot(50, lambda: qtbot.keyClick(QApplication.activeModalWidget(),
                                                 Qt.Key.Key_Return))  # fmt: skip
    assert view.ask_stop() is False  # Enter is Go on learning: a stray key throws nothing away
    QTimer.singleShot(50, lambda: press("Stop learning"))
    assert view.ask_stop() is True
    assert texts[0].startswith("Stop learning the deck? Nothing of it is kept")


def test_a_stop_from_outside_answers_the_open_question(qtbot):
    """Ctrl+C or SIGTERM (the window's ``reject``) while "Stop learning?" is asked: the
    question closes and the learning stops; nothing waits for a click."""
    from PySide6.QtCore import QTimer

    release = threading.Event()

    def learn(answers, progress):
        for k in range(1, 400):
            progress("scenes", k, 400)
            if release.wait(0.01):
                break
        return "majlis"

    view = _answered(qtbot, learn)
    qtbot.mouseClick(view.save, Qt.MouseButton.LeftButton)
    QTimer.singleShot(100, view.reject)  # as the signal handler does
    assert view.ask_stop() is False and view._asking is None
    assert view.progress.stopped
    qtbot.waitUntil(lambda: not view.isVisible())
    release.set()


def test_a_picture_added_brings_its_finds_proposed_with_the_others(qtbot):
    """*Add a picture*: the cards missing laid before the camera; their finds come after the
    others, proposed together with them (a card found again proposed once), the answers given
    stay; a picture with no card is said, nothing changed."""
    from hakam.vision.decks import propose

    # 31 finds proposed right; AS is missing. The picture added shows AS and KS again.
    reads = [_read(**{card: 0.9}) for card in CARD_NAMES[:31]]
    proposals = [name for name, _ in propose(reads)]
    answers = DeckAnswers(proposals, reads)
    answers.set(3, CARD_NAMES[3])  # the person confirmed one
    pictures = [[], [(_read(AS=0.9), 60), (_read(KS=0.6), 90)]]
    asked: list[int] = []

    def more() -> list:
        asked.append(len(answers.answers))
        shown = pictures.pop(0)
        if not shown:
            raise UserError("no card found in the new picture: lay the cards face up before "
                            "the camera, not touching")  # fmt: skip
        answers.extend([name for name, _ in propose([r for r, _ in shown])],
                       [r for r, _ in shown])  # fmt: skip
        return [np.full((176, 126, 3), shade, np.uint8) for _, shade in shown]

    make_app()
    faces = [np.full((176, 126, 3), 40, np.uint8)] * 31
    view = DeckView(faces, answers, more=more)
    qtbot.addWidget(view)
    view.show()
    qtbot.waitExposed(view)
    assert view.add.isVisible() and view.add.text() == "Add a picture"
    assert view.problem.text() == (
        "Only 31 of the 32 cards found: lay the others before the camera, then Add a picture; "
        "missing: A♠")  # fmt: skip
    qtbot.mouseClick(view.add, Qt.MouseButton.LeftButton)  # a picture with no card in it
    assert view.problem.text().startswith("No card found in the new picture")
    assert len(view.choices) == 31
    from PySide6.QtWidgets import QScrollArea

    view.resize(900, 500)
    bar = view.findChild(QScrollArea).verticalScrollBar()
    bar.setValue(0)
    qtbot.mouseClick(view.add, Qt.MouseButton.LeftButton)
    assert len(view.choices) == 33 and asked == [31, 31]
    qtbot.waitUntil(lambda: bar.maximum() > 0 and bar.value() == bar.maximum())  # the new ones
    assert answers.answers == [*CARD_NAMES[:31], "AS", None]  # KS found again: proposed once
    assert [c.currentText() for c in view.choices[31:]] == ["A♠", "—"]
    assert answers.named == {3} and view.save.isEnabled()
    no_more = DeckView(faces, DeckAnswers(proposals))
    qtbot.addWidget(no_more)
    assert no_more.add.isHidden() and "Add a picture" not in no_more.problem.text()
    # 32 finds or more, a card missing: said with what to do.
    dropped = DeckAnswers([*CARD_NAMES[:31], None])
    view = DeckView([*faces, faces[0]], dropped, more=more)
    qtbot.addWidget(view)
    assert view.problem.text() == (
        "Missing: A♠ (give each to its find if it was found; else lay it before the camera, "
        "then Add a picture)")  # fmt: skip


def test_finds_added_to_answers_without_reads_keep_their_own_proposals():
    answers = DeckAnswers(["AS", "KS"])  # found before the reads were kept
    answers.extend(["QS"], [_read(QS=0.9)])
    assert answers.answers == ["AS", "KS", "QS"] and answers.reads is None
    answers.set(0, "JS")  # nothing proposed again
    assert answers.answers == ["JS", "KS", "QS"]
    named = {1}  # the caller's set sees the finds named (kept if the learning is cut short)
    DeckAnswers(["AS", "KS"], named=named).set(0, "AS")
    assert named == {0, 1}


def test_learning_with_finds_marked_to_look_at_asks_first(qtbot):
    """A find changed by the person's other answers after they may have checked it (↻): *Learn
    and save* asks, looking at them first the default; learning as it stands is their choice."""
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    make_app()
    learnt: list[list] = []
    view = DeckView([np.full((176, 126, 3), 40, np.uint8)] * 32,
                    DeckAnswers(list(CARD_NAMES), changed={30, 4}),
                    learn=lambda a, p: learnt.append(a) or "majlis")  # fmt: skip
    qtbot.addWidget(view)
    view.show()
    asked: list[str] = []

    def answer(key) -> None:
        box = QApplication.activeModalWidget()
        asked.append(box.text())
        qtbot.keyClick(box, key)

    QTimer.singleShot(50, lambda: answer(Qt.Key.Key_Return))  # the default: look first
    qtbot.mouseClick(view.save, Qt.MouseButton.LeftButton)
    assert asked[0].startswith("↻ Finds 5, 31 were changed by your other answers")
    assert view._job is None and learnt == [] and view.focusWidget() is view.choices[4]
    view.ask_changed = lambda: True  # learning as it stands
    qtbot.mouseClick(view.save, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: view.learnt == "majlis")
    assert learnt == [list(CARD_NAMES)]


def test_a_card_missing_with_a_find_dropped_says_to_give_it_its_find(qtbot):
    make_app()
    view = DeckView([np.full((176, 126, 3), 40, np.uint8)] * 32,
                    DeckAnswers([*CARD_NAMES[:31], None]))  # fmt: skip
    qtbot.addWidget(view)
    assert view.problem.text() == "Missing: A♠ (give each to its find if it was found)"
