"""Table mode's start screen: the camera, the language, the deck to read with (*Learn a deck*
learns a new one from the camera), the match to go on with or a new one, and the calibration,
two clicks on the camera's frame (the table's centre, then the first dealer's seat), saved for
that camera and reused; *Calibrate again* clicks anew."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPen
from PySide6.QtWidgets import (
    QApplication,
    QCheckBox,
    QComboBox,
    QDialog,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from hakam.gui.i18n import Language
from hakam.gui.messages import say
from hakam.gui.models import EntryError
from hakam.gui.start import StartChoice, StartController
from hakam.gui.views.live_view import to_qimage
from hakam.gui.views.main_window import use_qt_language
from hakam.gui.views.status_line import StatusLine

BUTTON_PADDING = 2 * 16 + 2 * 2  # the theme's padding and focus border on each side


class ClickFrame(QWidget):
    """The source's frame, scaled to fit; a click is handed on in frame pixels."""

    def __init__(self, on_click: Callable[[float, float, tuple[int, int]], None]) -> None:
        super().__init__()
        self.on_click = on_click
        self.image = None
        self.size_px: tuple[int, int] | None = None
        self.points: list[tuple[float, float]] = []
        self.setMinimumSize(320, 180)

    def show_frame(self, frame: np.ndarray | None) -> None:
        self.image = None if frame is None else to_qimage(frame)
        self.size_px = None if frame is None else (int(frame.shape[1]), int(frame.shape[0]))
        self.update()

    def _fit(self) -> tuple[float, float, float]:
        assert self.size_px is not None
        w, h = self.size_px
        scale = min(self.width() / w, self.height() / h)
        return scale, (self.width() - w * scale) / 2, (self.height() - h * scale) / 2

    def mousePressEvent(self, event) -> None:
        if self.size_px is None:
            return
        scale, ox, oy = self._fit()
        pos = event.position()
        x, y = (pos.x() - ox) / scale, (pos.y() - oy) / scale
        if 0 <= x < self.size_px[0] and 0 <= y < self.size_px[1]:
            self.on_click(x, y, self.size_px)

    def paintEvent(self, _event) -> None:
        p = QPainter(self)
        p.fillRect(self.rect(), QColor("#0b0e12"))
        if self.image is None or self.size_px is None:
            return
        scale, ox, oy = self._fit()
        p.translate(ox, oy)
        p.scale(scale, scale)
        p.drawImage(0, 0, self.image)
        for i, (x, y) in enumerate(self.points):
            p.setPen(QPen(QColor("#ffd54f" if i == 0 else "#4fc3f7"), 4 / scale))
            p.drawEllipse(QPointF(x, y), 12 / scale, 12 / scale)
        if len(self.points) == 2:
            p.drawLine(QPointF(*self.points[0]), QPointF(*self.points[1]))


# *Learn a deck*: (what grabs the source's frame of the 32 cards laid out, the new deck's
# name, the language, whether to drop the cards waiting under that name and take a new
# picture) -> the deck's name once learnt and saved, None where the person closed its window
# first; an exception says in one line why not; a ``KeyboardInterrupt`` (Ctrl+C, SIGTERM while
# its window was open) stops table mode (``hakam.cli.deck.learn_from_frame``).
LearnDeck = Callable[[Callable[[], np.ndarray], str, str, bool], "str | None"]


class StartView(QDialog):
    """``exec()`` it; after *Start* ``choice`` holds what was decided. ``learn``: *Learn a
    deck* (None: not offered)."""

    def __init__(
        self,
        start: StartController,
        grab: Callable[[str], np.ndarray],
        parent: QWidget | None = None,
        learn: LearnDeck | None = None,
        waiting: Callable[[str], bool] = lambda name: False,
    ) -> None:
        super().__init__(parent)
        self.start, self.grab_frame, self.learn = start, grab, learn
        self.waiting = waiting  # whether cards found earlier wait for that name's answers
        self.stopped: KeyboardInterrupt | None = None  # a stop while learning a deck
        self.lang = Language(start.language)
        self.choice: StartChoice | None = None
        root = QVBoxLayout(self)
        row = QHBoxLayout()
        self.source_label = QLabel()
        self.source = QComboBox()
        self.source.setEditable(True)
        sources = dict.fromkeys([start.source, "0", "1", *(m.source for m in start.matches())])
        self.source.addItems(list(sources))
        # Opened when chosen or typed and confirmed, not at every keystroke ("10" is not "1").
        self.source.activated.connect(lambda _i: self._source_changed(self.source.currentText()))
        self.source.lineEdit().editingFinished.connect(
            lambda: self._source_changed(self.source.currentText())
        )
        self.lang_buttons = [QPushButton("English"), QPushButton("العربية")]
        row.addWidget(self.source_label)
        row.addWidget(self.source, 1)
        for code, b in zip(("en", "ar"), self.lang_buttons, strict=True):
            b.setCheckable(True)
            b.clicked.connect(lambda _c=False, c=code: self._language(c))
            b.ensurePolished()  # the theme's font, not the default one
            bold = QFont(b.font())  # checked, the theme draws it bold: wider than its size hint
            bold.setBold(True)
            b.setMinimumWidth(QFontMetrics(bold).horizontalAdvance(b.text()) + BUTTON_PADDING)
            row.addWidget(b)
        root.addLayout(row)
        deck_row = QHBoxLayout()
        self.deck_label = QLabel()
        self.deck = QComboBox()  # item 0: the standard readers; then each deck learnt
        self.deck.addItems(["", *start.decks])
        self.deck.activated.connect(self._deck)
        deck_row.addWidget(self.deck_label)
        deck_row.addWidget(self.deck, 1)
        self.learn_deck = QPushButton()
        self.learn_deck.clicked.connect(self._learn_deck)
        self.learn_deck.setVisible(learn is not None)
        deck_row.addWidget(self.learn_deck)
        root.addLayout(deck_row)
        self.match_label = QLabel()
        self.new_match = QCheckBox()
        self.new_match.toggled.connect(self._new_match)
        root.addWidget(self.match_label)
        root.addWidget(self.new_match)
        self.hint = QLabel()
        self.hint.setWordWrap(True)
        root.addWidget(self.hint)
        self.frame = ClickFrame(self._click)
        root.addWidget(self.frame, 1)
        actions = QHBoxLayout()
        self.again = QPushButton()
        self.again.clicked.connect(self._again)
        self.go = QPushButton()
        self.go.setProperty("role", "ok")
        self.go.setObjectName("start")
        self.go.clicked.connect(self._start)
        actions.addWidget(self.again)
        actions.addStretch(1)
        actions.addWidget(self.go)
        root.addLayout(actions)
        self.message = StatusLine()
        root.addWidget(self.message)
        self._source_changed(start.source)

    def fit_screen(self, width: int = 1000, height: int = 720) -> None:
        """``width`` x ``height`` where the screen has room for it and its frame, else the room
        there is: the camera's picture large enough to click on, a two-line message below it."""
        from hakam.gui.views.main_window import fit_to_screen

        fit_to_screen(self, width, height)

    # --- actions --------------------------------------------------------------------------

    def _source_changed(self, text: str) -> None:
        if text.strip() == self.start.source and self.frame.image is not None:
            return
        self.start.set_source(text)
        self.message.clear_line()
        try:
            self.frame.show_frame(self.grab_frame(self.start.source) if self.start.source else None)
        except Exception as exc:  # a camera that does not open: said, nothing changed
            self.frame.show_frame(None)
            self._say_error(exc)
        self.refresh()

    def _say_error(self, exc: Exception) -> None:
        why = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        self.message.say(lambda lang: say(lang, why), "error", self.lang)

    def _language(self, code: str) -> None:
        self.start.set_language(code)
        self.lang = Language(code)
        self.message.retranslate(self.lang)
        self.refresh()

    def _deck(self, index: int) -> None:
        self.start.set_deck(None if index <= 0 else self.start.decks[index - 1])
        self.refresh()

    def _learn_deck(self) -> None:
        """The cards laid out before the camera, found and named in the deck window, learnt
        and saved there; then offered and chosen here."""
        assert self.learn is not None
        self.message.clear_line()
        name = self._deck_name()
        if name is None:
            return
        retake = False
        if self.waiting(name) and name not in self.start.decks:  # (a deck's name: refused)
            retake = self._ask_retake(name)
            if retake is None:
                return
        self.setCursor(Qt.CursorShape.WaitCursor)  # the cards are found: a few seconds
        source = self.start.source
        try:
            learn = self.learn
            learnt = learn(lambda: self._grab_shown(source), name, self.start.language, retake)
        except KeyboardInterrupt as stop:  # Ctrl+C or SIGTERM in the deck window: table mode
            self.stopped = stop  # stops, as the caller of ``exec`` says
            self.reject()
            return
        except Exception as exc:  # a camera that does not open, nothing found: said
            self._say_error(exc)
            return
        finally:
            self.unsetCursor()
        if learnt is None:
            self.message.say(lambda lang: lang.tr("start_deck_kept_waiting", name=name), "info",
                             self.lang)  # fmt: skip
            return
        self.start.deck_learnt(learnt)
        self.deck.clear()
        self.deck.addItems(["", *self.start.decks])
        self.message.say(lambda lang: lang.tr("start_deck_learnt", name=learnt), "saved",
                         self.lang)  # fmt: skip
        self.refresh()

    def _ask_retake(self, name: str) -> bool | None:
        """Cards found earlier wait for ``name``: go on with them (False), or drop them and
        take a new picture (True); None: cancelled."""
        box = QMessageBox(self)
        box.setLayoutDirection(self.layoutDirection())
        box.setWindowTitle(self.lang.tr("start_learn_deck"))
        box.setText(self.lang.tr("start_deck_waiting", name=f"\u2066{name}\u2069"))
        on = box.addButton(self.lang.tr("start_deck_go_on"), QMessageBox.ButtonRole.AcceptRole)
        again = box.addButton(self.lang.tr("start_deck_retake"),
                              QMessageBox.ButtonRole.DestructiveRole)  # fmt: skip
        box.addButton(QMessageBox.StandardButton.Cancel)
        box.exec()
        return {on: False, again: True}.get(box.clickedButton())

    def _deck_name(self) -> str | None:
        """The new deck's name, asked again with the reason and the name as typed until it is
        one a deck can take (None: the person cancelled)."""
        typed, why = "", None
        while True:
            asked = self._ask_deck_name(typed, why)
            if asked is None:
                return None
            typed = asked.strip()
            why = self.start.deck_name_problem(typed)
            if why is None:
                return typed

    def _ask_deck_name(self, typed: str = "", why: str | None = None) -> str | None:
        """The new deck's name, as typed (None: the person cancelled); ``why`` the last name
        typed was refused, said above the question."""
        box = QInputDialog(self)
        box.setLayoutDirection(self.layoutDirection())
        box.setWindowTitle(self.lang.tr("start_learn_deck"))
        label = self.lang.tr("start_deck_name")
        box.setLabelText(label if why is None else f"{say(self.lang, why)}\n\n{label}")
        box.setTextValue(typed)
        return box.textValue() if box.exec() else None

    def keyPressEvent(self, event) -> None:
        """Escape asks first: a stray Escape closes nothing."""
        if event.key() == Qt.Key.Key_Escape:
            event.accept()
            if self._ask_close():
                self.reject()
            return
        super().keyPressEvent(event)

    def closeEvent(self, event) -> None:
        """The window's close button asks first (a close from the code does not)."""
        if event.spontaneous() and not self._ask_close():
            event.ignore()
            return
        super().closeEvent(event)

    def _ask_close(self) -> bool:
        """Whether the person closes the screen without starting the match."""
        box = QMessageBox(self)
        box.setLayoutDirection(self.layoutDirection())
        box.setWindowTitle(self.lang.tr("start_title"))
        box.setText(self.lang.tr("start_ask_close"))
        close = box.addButton(self.lang.tr("start_close"), QMessageBox.ButtonRole.DestructiveRole)
        stay = box.addButton(self.lang.tr("start_stay"), QMessageBox.ButtonRole.RejectRole)
        box.setDefaultButton(stay)
        box.setEscapeButton(stay)
        box.exec()
        return box.clickedButton() is close

    def _new_match(self, on: bool) -> None:
        self.start.new_match = on
        self.refresh()

    def _click(self, x: float, y: float, size: tuple[int, int]) -> None:
        self.start.click(x, y, size)
        self.refresh()

    def _again(self) -> None:
        """*Calibrate again*, on a picture the camera takes now."""
        self.start.recalibrate()
        self.message.clear_line()
        try:
            self._grab_shown(self.start.source)
        except Exception as exc:  # a camera that no longer opens: said, the last picture kept
            self._say_error(exc)
        self.refresh()

    def _grab_shown(self, source: str) -> np.ndarray:
        """The camera's frame now, shown here too: what it saw (the deck learnt from it)."""
        frame = self.grab_frame(source)
        self.frame.show_frame(frame)
        return frame

    def _start(self) -> None:
        self.message.clear_line()
        try:
            self.choice = self.start.start()
        except EntryError as exc:
            self.message.say(lambda lang, why=str(exc): say(lang, why), "error", self.lang)
            return
        self.accept()

    # --- view ------------------------------------------------------------------------------

    def refresh(self) -> None:
        s, lang = self.start, self.lang
        direction = Qt.LayoutDirection.RightToLeft if lang.rtl else Qt.LayoutDirection.LeftToRight
        app = QApplication.instance()
        if isinstance(app, QApplication):  # the text's own direction (a button's "…") too
            app.setLayoutDirection(direction)
            use_qt_language(lang.code)  # the name dialog's own buttons
        self.setLayoutDirection(direction)
        self.setWindowTitle(lang.tr("start_title"))
        self.source_label.setText(lang.tr("start_source"))
        for code, b in zip(("en", "ar"), self.lang_buttons, strict=True):
            b.setChecked(s.language == code)
        self.deck_label.setText(lang.tr("start_deck"))
        self.deck.setItemText(0, lang.tr("start_deck_standard"))
        self.deck.setCurrentIndex(0 if s.deck is None else s.decks.index(s.deck) + 1)
        self.learn_deck.setText(lang.tr("start_learn_deck"))
        going = s.in_progress()
        if going is None:
            self.match_label.setText(lang.tr("start_new"))
            self.new_match.setVisible(False)
        else:
            a, b = going.totals
            self.match_label.setText(lang.tr("start_continue", match=going.match_id,
                                             deals=going.deals, a=a, b=b))  # fmt: skip
            self.new_match.setVisible(True)
        self.new_match.setText(lang.tr("start_new_instead"))
        saved = s.saved_calibration() is not None
        n = len(s.points)
        key = ("start_click_centre", "start_click_dealer", "start_clicked")[n]
        if saved and n == 0:
            key = "start_saved"
        self.hint.setText(lang.tr(key))
        self.frame.points = list(s.points)
        self.frame.update()
        self.again.setText(lang.tr("start_again"))
        self.again.setVisible(saved or n > 0)
        self.go.setText(lang.tr("start_go"))
