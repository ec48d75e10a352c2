"""The cards found while learning a deck, each with the name proposed for it: the person
confirms or corrects each (or drops a find that is no card), and *Save* is offered only when the
answers are the 32 Baloot cards once each (``hakam deck learn --window``). Given ``learn``, the
deck is then learnt here, off the window's thread, with its progress and time left shown, and
can be stopped (nothing saved); once saved, the window says so until the person closes it."""

from __future__ import annotations

import traceback
from collections.abc import Callable, Sequence

import numpy as np
from PySide6.QtCore import Qt, QThread, QTimer, Signal
from PySide6.QtGui import QPixmap
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QStyle,
    QStyleOptionComboBox,
    QStylePainter,
    QVBoxLayout,
    QWidget,
)

from hakam.engine.cards import CARD_NAMES
from hakam.errors import UserError
from hakam.gui.deck_answers import DeckAnswers, LearningProgress, LearningStopped
from hakam.gui.i18n import Language
from hakam.gui.messages import say, sentence
from hakam.gui.views.live_view import to_qimage

COLUMNS = 6  # fits 1366x768 with the theme's 15-16 pt text
TILE_W, TILE_H = 120, 168
# One bar for the whole learning: each stage's share of it (about even on 2 cores: 70 s drawing,
# 85 s training for the tuning design).
STAGES = {"scenes": (0, 50), "training": (50, 100)}


# ``more()``: another picture taken, the finds in it added to the answers (``DeckAnswers.extend``);
# returns their faces, or raises a one-line ``UserError``.
More = Callable[[], list]
# ``learn(answers, progress)``: learns and saves the deck from the person's answers, calling
# ``progress(stage, done, total)`` as it goes; returns the deck's name, or raises a one-line
# ``UserError``.
Learn = Callable[[list, Callable[[str, int, int], None]], str]
# ``ahead(answers)``: the answers as they now stand, before *Learn and save* (the learning's
# scenes are drawn ahead with them: ``hakam.vision.deck_ahead``).
Ahead = Callable[[list], None]


class _Learning(QThread):
    """``learn`` off the window's thread; ``ended`` carries the deck's name (None: stopped or
    refused) and the refusal's line."""

    ended = Signal(object, str)

    def __init__(self, learn: Learn, answers: list, progress: LearningProgress) -> None:
        super().__init__()
        self._learn, self._answers, self._progress = learn, answers, progress

    def run(self) -> None:
        try:
            self.ended.emit(self._learn(self._answers, self._progress.update), "")
        except (LearningStopped, KeyboardInterrupt):
            self._progress.stop()
            self.ended.emit(None, "")
        except UserError as exc:
            self.ended.emit(None, str(exc))
        except Exception as exc:  # said in the window: never left waiting
            traceback.print_exc()
            self.ended.emit(None, f"learning failed: {type(exc).__name__}: {exc}")


class _CardChoice(QComboBox):
    """A find's card: chosen by a click or the keys, never by the mouse wheel (the wheel
    scrolls the finds; over a tile it would change a card unseen). Closed, it shows the card
    alone (``Qt.UserRole``), not which other finds it is given to: that is for the list."""

    def wheelEvent(self, event) -> None:
        event.ignore()

    def paintEvent(self, event) -> None:
        painter = QStylePainter(self)
        option = QStyleOptionComboBox()
        self.initStyleOption(option)
        shown = self.itemData(self.currentIndex(), Qt.ItemDataRole.UserRole)
        if shown:
            option.currentText = shown
        painter.drawComplexControl(QStyle.ComplexControl.CC_ComboBox, option)
        painter.drawControl(QStyle.ControlElement.CE_ComboBoxLabel, option)

    def shown(self) -> str:
        """What the closed choice shows."""
        return self.itemData(self.currentIndex(), Qt.ItemDataRole.UserRole) or self.currentText()


class DeckView(QDialog):
    """``exec()`` it; accepted: ``answers.answers`` are the person's (and, given ``learn``, the
    deck ``learnt`` is saved). ``ahead`` is told the answers each time they may have changed,
    until the learning starts."""

    def __init__(
        self,
        faces: Sequence[np.ndarray],
        answers: DeckAnswers,
        language: str = "en",
        parent: QWidget | None = None,
        learn: Learn | None = None,
        more: More | None = None,
        ahead: Ahead | None = None,
        chosen: bool = False,
    ) -> None:
        super().__init__(parent)
        self.answers, self.lang = answers, Language(language)
        self.learn, self.learnt, self.more, self.ahead = learn, None, more, ahead
        self.chosen = chosen  # the deck is chosen for the table once saved (the start screen)
        self.progress = LearningProgress()
        self._job: _Learning | None = None
        self._asking: QMessageBox | None = None  # "Stop learning?", while it is asked
        self._timer = QTimer(self)
        self._timer.setInterval(250)
        self._timer.timeout.connect(self._show_progress)
        root = QVBoxLayout(self)
        self.hint = QLabel()
        self.hint.setWordWrap(True)
        root.addWidget(self.hint)
        grid_host = QWidget()
        self.grid = QGridLayout(grid_host)
        self.choices: list[QComboBox] = []
        self.numbers: list[QLabel] = []  # a find's number; "proposed again" while it is
        for face in faces:
            self._add_tile(face)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(grid_host)
        root.addWidget(scroll, 1)
        self.again = QLabel()  # the finds proposed again since the person may have looked
        self.again.setWordWrap(True)
        self.again.setProperty("role", "changed")
        root.addWidget(self.again)
        self.problem = QLabel()
        self.problem.setWordWrap(True)
        root.addWidget(self.problem)
        self.bar = QProgressBar()
        self.bar.setVisible(False)
        root.addWidget(self.bar)
        actions = QHBoxLayout()
        self.cancel = QPushButton()  # *Cancel*; while learning, *Stop learning*
        self.cancel.clicked.connect(self._cancel_clicked)
        self._stay = False  # stopped by *Stop learning*: back to the answers, not closed
        self.add = QPushButton()  # another picture: the cards missing laid out, or misshapen
        self.add.clicked.connect(self._add_picture)
        self.add.setVisible(more is not None)
        self.save = QPushButton()
        self.save.setProperty("role", "ok")
        self.save.clicked.connect(self._save)
        actions.addWidget(self.cancel)
        actions.addStretch(1)
        actions.addWidget(self.add)
        actions.addWidget(self.save)
        root.addLayout(actions)
        self.refresh()

    def _add_tile(self, face: np.ndarray) -> None:
        """A find's tile: its number, its face and the card chosen for it."""
        k = len(self.choices)
        tile = QVBoxLayout()
        picture = QLabel()
        image = QPixmap.fromImage(to_qimage(np.ascontiguousarray(face)))
        picture.setPixmap(image.scaled(TILE_W, TILE_H, Qt.AspectRatioMode.KeepAspectRatio,
                                       Qt.TransformationMode.SmoothTransformation))  # fmt: skip
        number = QLabel()
        number.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.numbers.append(number)
        choice = _CardChoice()
        choice.addItems(["—", *(self.lang.card(c) for c in CARD_NAMES)])
        now = self.answers.answers[k]
        choice.setCurrentIndex(0 if now is None else CARD_NAMES.index(now) + 1)
        choice.activated.connect(lambda i, k=k: self._chosen(k, i))
        self.choices.append(choice)
        tile.addWidget(number)
        tile.addWidget(picture)
        tile.addWidget(choice)
        holder = QWidget()
        holder.setLayout(tile)
        self.grid.addWidget(holder, k // COLUMNS, k % COLUMNS)

    def _add_picture(self) -> None:
        """Another picture of the cards laid out (those missing, or taken again): its finds
        are added after the others, proposed with them; the answers given stay."""
        self.setCursor(Qt.CursorShape.WaitCursor)
        try:
            faces = self.more()
        except UserError as exc:  # said above what the answers still need (or that they are whole)
            self.refresh()
            self.problem.setText(f"{say(self.lang, str(exc))}\n{self.problem.text()}")
            self._role(self.problem, "error")
            return
        finally:
            self.unsetCursor()
        for face in faces:
            self._add_tile(face)
        self.refresh()
        if faces:  # shown once laid out
            last, scroll = self.choices[-1], self.findChild(QScrollArea)
            QTimer.singleShot(0, scroll, lambda: scroll.ensureWidgetVisible(last))  # (not once
            # the window is gone)

    def fit_screen(self, width: int = 1100, height: int = 800) -> None:
        """``width`` x ``height`` where the screen has room for it and its frame, else the room
        there is: the buttons stay on a 1366x768 laptop's screen."""
        from hakam.gui.views.main_window import fit_to_screen

        fit_to_screen(self, width, height)

    def _save(self) -> None:
        if self.learnt is not None:  # learnt: *Close*
            self.accept()
            return
        if self.answers.changed and not self.ask_changed():  # to look at them first
            first = self.choices[min(self.answers.changed)]
            self.findChild(QScrollArea).ensureWidgetVisible(first)
            first.setFocus()
            return
        if self.learn is None:  # nothing to learn here: the answers are the caller's
            self.accept()
            return
        for widget in (*self.choices, self.save, self.add):
            widget.setEnabled(False)
        self.progress = LearningProgress()
        self.problem.setText(self.lang.tr("deck_learning"))
        self._role(self.problem, "ok")
        self.cancel.setText(self.lang.tr("deck_stop"))
        self.bar.setRange(0, 0)  # busy until the first step is counted
        self.bar.setVisible(True)
        self.again.setVisible(False)  # nothing can be changed while learning
        self._job = _Learning(self.learn, list(self.answers.answers), self.progress)
        self._job.ended.connect(self._ended)
        self._job.start()
        self._timer.start()

    def _show_progress(self) -> None:
        p = self.progress
        if p.stage is None or p.stopped:
            return
        if p.left is None:  # a stage's first step: its pace not known yet
            if p.stage == "training":  # the drawing's last count is done with
                self.problem.setText(self.lang.tr("deck_training_start"))
            return
        key = "deck_scenes" if p.stage == "scenes" else "deck_training"
        self.problem.setText(self.lang.tr(key, done=p.done, total=p.total, left=round(p.left)))
        start, end = STAGES[p.stage]
        self.bar.setRange(0, 100)
        self.bar.setValue(start + (end - start) * p.done // max(p.total, 1))

    def _ended(self, name: str | None, refused: str) -> None:
        self._timer.stop()
        self._job.wait()
        self._job = None
        self.bar.setVisible(False)
        self.cancel.setEnabled(True)
        if name is not None:
            self.learnt = name
            if self.progress.stopped:  # stopped while it was saving: saved, and closed as asked
                self.accept()
            else:
                self.refresh()
                self.save.setFocus()
        elif self.progress.stopped and not self._stay:
            super().reject()
        else:  # stopped by *Stop learning*, or refused: the answers stay, to learn again
            stopped, self._stay = self.progress.stopped, False
            for widget in (*self.choices, self.add):
                widget.setEnabled(True)
            self.refresh()
            self.problem.setText(self.lang.tr("deck_stopped") if stopped else refused)
            self._role(self.problem, "" if stopped else "error")

    def _cancel_clicked(self) -> None:
        """*Cancel* closes; *Stop learning* asks, then stops the learning and goes back to the
        answers (kept: to learn again, or to cancel)."""
        if self._job is None or self.learnt is not None:
            self.reject()
            return
        if not self.progress.stopped and self.ask_stop() and self._job is not None:
            self._stay = True  # (ended while asked: the answers, or the deck saved, are shown)
            self._stop_learning()

    def _stop_learning(self) -> None:
        self.progress.stop()
        self.cancel.setEnabled(False)
        self.problem.setText(self.lang.tr("deck_stopping"))

    def keyPressEvent(self, event) -> None:
        """Escape or Enter while learning does nothing: a stray key never throws minutes of
        learning away (*Stop learning* does, and closing the window asks)."""
        keys = (Qt.Key.Key_Escape, Qt.Key.Key_Return, Qt.Key.Key_Enter)  # (Enter: Stop's)
        if event.key() in keys and self._job is not None:
            event.accept()
            return
        super().keyPressEvent(event)

    def closeEvent(self, event) -> None:
        """The window's close button while learning asks first."""
        if self._job is not None and not self.progress.stopped and not self.ask_stop():
            event.ignore()
            return
        super().closeEvent(event)

    def ask_changed(self) -> bool:
        """Whether the person learns the deck with finds still marked ↻ (changed by their other
        answers after they may have checked them): a card swapped unseen would be misread all
        evening. Looking at them first is the default."""
        lang, comma = self.lang, "، " if self.lang.rtl else ", "
        box = QMessageBox(self)
        box.setLayoutDirection(self.layoutDirection())
        box.setWindowTitle(lang.tr("deck_title"))
        finds = comma.join(lang.num(k + 1) for k in sorted(self.answers.changed))
        box.setText(lang.tr("deck_ask_changed", finds=finds))
        learn = box.addButton(lang.tr("deck_learn_anyway"), QMessageBox.ButtonRole.AcceptRole)
        look = box.addButton(lang.tr("deck_look_first"), QMessageBox.ButtonRole.RejectRole)
        box.setDefaultButton(look)
        box.setEscapeButton(look)
        self._asking = box
        try:
            box.exec()
        finally:
            self._asking = None
        return box.clickedButton() is learn

    def ask_stop(self) -> bool:
        """Whether the person stops the learning under way (nothing of it is kept)."""
        box = QMessageBox(self)
        box.setLayoutDirection(self.layoutDirection())
        box.setWindowTitle(self.lang.tr("deck_title"))
        box.setText(self.lang.tr("deck_ask_stop"))
        stop = box.addButton(self.lang.tr("deck_stop"), QMessageBox.ButtonRole.DestructiveRole)
        go_on = box.addButton(self.lang.tr("deck_go_on"), QMessageBox.ButtonRole.RejectRole)
        box.setDefaultButton(go_on)  # Enter or Escape never throws the learning away
        box.setEscapeButton(go_on)
        self._asking = box  # a stop from outside (Ctrl+C, SIGTERM) closes it too
        try:
            box.exec()
        finally:
            self._asking = None
        return box.clickedButton() is stop

    def reject(self) -> None:
        """*Cancel*, or closing the window; while learning: stop it, then close. Once the deck
        is learnt and saved, closing is *Close*."""
        self._stay = False  # closing (the close button, Ctrl+C, SIGTERM): closed once stopped
        if self._asking is not None:  # the question, open: answered by this stop
            self._asking.reject()
        if self.learnt is not None:
            self.accept()
            return
        if self._job is not None:
            self._stop_learning()
            return
        super().reject()

    @staticmethod
    def _role(label: QLabel, role: str) -> None:
        """The theme's colour for ``role``, applied again (Qt styles a property once)."""
        label.setProperty("role", role)
        label.style().unpolish(label)
        label.style().polish(label)

    def _chosen(self, k: int, index: int) -> None:
        self.answers.set(k, None if index <= 0 else CARD_NAMES[index - 1])
        self.refresh()

    def _mark_taken(self) -> None:
        """Each find's choices say which other finds a card is given to ("K♠ (find 7)"): a
        card chosen again is seen before it is chosen."""
        lang, comma = self.lang, "، " if self.lang.rtl else ", "
        holders: dict[str, list[int]] = {}
        for k, card in enumerate(self.answers.answers):
            if card is not None:
                holders.setdefault(card, []).append(k)
        for k, choice in enumerate(self.choices):
            for i, card in enumerate(CARD_NAMES, 1):
                others = comma.join(lang.num(j + 1) for j in holders.get(card, ()) if j != k)
                text = lang.card(card)
                if others:
                    text = lang.tr("deck_taken", card=text, finds=others)
                if choice.itemText(i) != text:
                    choice.setItemText(i, text)
                    choice.setItemData(i, lang.card(card), Qt.ItemDataRole.UserRole)

    def refresh(self) -> None:
        lang = self.lang
        for k, (choice, now) in enumerate(zip(self.choices, self.answers.answers, strict=True)):
            shown = 0 if now is None else CARD_NAMES.index(now) + 1  # proposed again, maybe
            if choice.currentIndex() != shown:
                choice.setCurrentIndex(shown)
            again = k in self.answers.changed  # as short as the number: the columns stay put
            self.numbers[k].setText(f"{lang.num(k + 1)} ↻" if again else lang.num(k + 1))
            self.numbers[k].setToolTip(lang.tr("deck_proposed_again") if again else "")
            self._role(self.numbers[k], "changed" if again else "")
        self._mark_taken()
        if self.ahead is not None and self._job is None and self.learnt is None:
            self.ahead(list(self.answers.answers))
        changed = sorted(self.answers.changed)
        comma = "، " if lang.rtl else ", "
        finds = comma.join(lang.num(k + 1) for k in changed)
        self.again.setText(lang.tr("deck_look_again", finds=finds))
        self.again.setVisible(bool(changed) and self.learnt is None and self._job is None)
        self.setLayoutDirection(
            Qt.LayoutDirection.RightToLeft if lang.rtl else Qt.LayoutDirection.LeftToRight
        )
        self.setWindowTitle(lang.tr("deck_title"))
        self.hint.setText(lang.tr("deck_hint"))
        parts = []
        adding = self.more is not None and self.learnt is None  # *Add a picture* offered
        too_few = len(self.choices) < len(CARD_NAMES)  # no answer makes up the cards not found
        if too_few:
            key = "deck_too_few_add" if adding else "deck_too_few"
            parts.append(lang.tr(key, found=lang.num(len(self.choices))))
        if self.answers.missing():
            parts.append(
                lang.tr("deck_missing", cards=" ".join(map(lang.card, self.answers.missing())))
            )
            if adding and not too_few:
                parts[-1] += lang.tr("deck_missing_add")
            elif None in self.answers.answers:  # a find dropped may be one of them
                parts[-1] += lang.tr("deck_missing_give")
        if self.answers.twice():  # with the finds to look at: "7♣ (1, 32)"
            comma = "، " if lang.rtl else ", "
            cards = [f"{lang.card(c)} ({comma.join(map(lang.num, self.answers.finds(c)))})"
                     for c in self.answers.twice()]  # fmt: skip
            parts.append(lang.tr("deck_twice", cards=" ".join(cards)))
        problem = ("؛ " if lang.rtl else "; ").join(parts) or lang.tr("deck_complete")
        self.problem.setText(problem if lang.rtl else sentence(problem))
        self._role(self.problem, "error" if parts else "ok")
        self.save.setEnabled(not parts)
        self.save.setText(lang.tr("deck_save"))
        self.add.setText(lang.tr("deck_add"))
        self.cancel.setText(lang.tr("deck_stop" if self._job is not None else "deck_cancel"))
        if self.learnt is not None:  # saved: said here until the person closes the window
            saved = "deck_saved_chosen" if self.chosen else "deck_saved"
            self.problem.setText(lang.tr(saved, name=self.learnt))
            self._role(self.problem, "ok")
            self.cancel.setVisible(False)
            self.add.setVisible(False)
            self.save.setText(lang.tr("deck_close"))
            self.save.setEnabled(True)
