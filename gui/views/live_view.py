"""The live table: the camera frame with each read card outlined and labelled, the play area
and seat directions, the current trick, whose turn it is, the contract, and the warnings."""

from __future__ import annotations

from html import escape

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QImage, QPainter, QPen, QPolygonF
from PySide6.QtWidgets import (
    QBoxLayout,
    QDialog,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from hakam.gui.controllers import DeckAdvice, LiveController, Notice, Warning, all_cards
from hakam.gui.feed import PLAY_AREA
from hakam.gui.i18n import Language
from hakam.gui.messages import say, violation
from hakam.gui.models import EntryError
from hakam.gui.views import theme


def to_qimage(frame: np.ndarray) -> QImage:
    """A BGR uint8 frame as a QImage (copied, so the numpy buffer may be reused)."""
    frame = np.ascontiguousarray(frame)
    h, w = frame.shape[:2]
    return QImage(frame.data, w, h, frame.strides[0], QImage.Format.Format_BGR888).copy()


def seat_rects(points: list[QPointF], sizes: list[tuple[float, float]],
               target: QRectF) -> list[QRectF]:  # fmt: skip
    """Where each seat's name is drawn: a box of its name's size (width, height) on the seat's
    point, kept inside the picture ``target``. As wide as the name, not more: in a small picture
    (the bidding docked under it) two names kept inside it do not run together."""
    rects = []
    for c, (w, h) in zip(points, sizes, strict=True):
        rect = QRectF(c.x() - w / 2, c.y() - h / 2, w, h)
        rect.moveLeft(min(max(rect.left(), target.left()), target.right() - rect.width()))
        rect.moveTop(min(max(rect.top(), target.top()), target.bottom() - rect.height()))
        rects.append(rect)
    return rects


class VideoWidget(QWidget):
    """Paints the frame scaled to fit, then the overlay in frame coordinates."""

    def __init__(self, live: LiveController, lang: Language, parent=None) -> None:
        super().__init__(parent)
        self.live, self.lang = live, lang
        self.image: QImage | None = None
        self.setMinimumSize(256, 144)  # 16:9, small: the bidding panel may sit below it
        live.subscribe_frame(self._new_frame)

    def _new_frame(self) -> None:
        frame = self.live.frame
        self.image = None if frame is None else to_qimage(frame)
        self.update()

    def paintEvent(self, _event) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        p.fillRect(self.rect(), QColor("#05080a"))
        if self.image is None:
            p.setPen(QColor(theme.MUTED))
            p.drawText(self.rect(), Qt.AlignmentFlag.AlignCenter, self.lang.tr("waiting"))
            return
        iw, ih = self.image.width(), self.image.height()
        scale = min(self.width() / iw, self.height() / ih)
        ox, oy = (self.width() - iw * scale) / 2, (self.height() - ih * scale) / 2
        target = QRectF(ox, oy, iw * scale, ih * scale)
        p.drawImage(target, self.image)

        def pt(x: float, y: float) -> QPointF:
            return QPointF(ox + x * scale, oy + y * scale)

        table = self.live.table or {}
        # play area: the pipeline's --roi polygon when there is one, else a nominal centre
        p.setPen(QPen(QColor(255, 255, 255, 110), 2, Qt.PenStyle.DashLine))
        if table.get("roi"):
            p.drawPolygon(QPolygonF([pt(x, y) for x, y in table["roi"]]))
        else:
            x1, y1, x2, y2 = PLAY_AREA
            area = QRectF(pt(x1 * iw, y1 * ih), pt(x2 * iw, y2 * ih))
            p.drawRoundedRect(area, 18, 18)
        # seat directions, smaller in a small picture (the bidding docked under it) so that
        # two seats' names do not run into each other
        font = QFont(p.font())
        font.setPointSize(max(9, min(15, round(target.height() / 24))))
        font.setBold(True)
        p.setFont(font)
        turn = self.live.turn
        texts = {}
        for seat in range(4):
            name = f"{self.lang.seat(seat)} · {self.lang.tr(f'dir{seat}')}"
            texts[seat] = f"▶ {name}" if seat == turn else name
        if table.get("seats"):  # calibrated: each seat's label where that seat sits
            names = p.fontMetrics()
            sizes = [(names.horizontalAdvance(texts[s]) + 16, names.height() + 8) for s in range(4)]
            points = [pt(sx, sy) for sx, sy in table["seats"]]
            places = dict(enumerate(seat_rects(points, sizes, target)))
        else:  # no calibration: seat 0 nearest the camera, then round to the right
            places = {
                0: QRectF(target.left(), target.bottom() - 44, target.width(), 40),
                1: QRectF(target.right() - 170, target.center().y() - 20, 165, 40),
                2: QRectF(target.left(), target.top() + 4, target.width(), 40),
                3: QRectF(target.left() + 5, target.center().y() - 20, 165, 40),
            }
        for seat, rect in places.items():
            on_turn = seat == turn
            if on_turn:
                inset = min(30, rect.width() / 8)
                p.fillRect(rect.adjusted(inset, 2, -inset, -2), QColor(255, 211, 77, 60))
            p.setPen(QColor(theme.ACCENT if on_turn else theme.TEXT))
            p.drawText(rect, Qt.AlignmentFlag.AlignCenter, texts[seat])
        # read cards: the card's name large, white on black, framed in the read's colour (sure
        # green, unsure amber), to be read from two metres; the size follows the picture's
        font.setPointSize(max(16, round(target.height() / 26)))
        p.setFont(font)
        metrics = p.fontMetrics()
        for d in self.live.detections:
            bx1, by1, bx2, by2 = d.box
            box = QRectF(pt(bx1, by1), pt(bx2, by2))
            colour = QColor(theme.OK if d.conf >= 0.8 else theme.ACCENT)
            p.setPen(QPen(colour, 4))
            p.drawRect(box)
            label = self.lang.card(d.card)
            w, h = metrics.horizontalAdvance(label) + 20, metrics.height() + 8
            tag = QRectF(box.center().x() - w / 2, box.top() - h - 4, w, h)
            tag.moveTop(max(tag.top(), target.top()))
            p.fillRect(tag, QColor("#000000"))
            p.setPen(QPen(colour, 3))
            p.drawRect(tag)
            p.setPen(QColor(theme.SUIT_RED if d.card[-1:] in "DH" else "#ffffff"))
            p.drawText(tag, Qt.AlignmentFlag.AlignCenter, label)


class Banner(QFrame):
    """The warning over the video: rule, who, which trick, the proof card; accept or dismiss
    (a suspected one: confirm what it rests on, and it is a proven one; or dismiss)."""

    def __init__(self, live: LiveController, lang: Language, parent=None) -> None:
        super().__init__(parent)
        self.live, self.lang = live, lang
        self.warning: Warning | None = None
        self.setStyleSheet(self._style(False))
        lay = QVBoxLayout(self)
        self.title = QLabel()
        self.title.setWordWrap(True)  # a narrow (portrait) window wraps, never widens
        self.title.setStyleSheet("font-size: 24pt; font-weight: bold;")
        self.text = QLabel()
        self.text.setWordWrap(True)
        self.text.setStyleSheet("font-size: 16pt;")
        self.proof = QLabel()
        self.proof.setWordWrap(True)
        self.proof.setStyleSheet("font-size: 18pt; font-weight: bold;")
        row = QHBoxLayout()
        self.accept_button = QPushButton()
        self.accept_button.setProperty("role", "ok")
        self.dismiss_button = QPushButton()
        self.accept_button.clicked.connect(lambda: self._decide(True))
        self.dismiss_button.clicked.connect(lambda: self._decide(False))
        row.addWidget(self.proof, 1)
        row.addWidget(self.accept_button)
        row.addWidget(self.dismiss_button)
        lay.addWidget(self.title)
        lay.addWidget(self.text)
        lay.addLayout(row)
        self.hide()

    @staticmethod
    def _style(suspected: bool) -> str:
        """Red for a proven violation; amber for a suspected one (a question to the table)."""
        back, edge = ("#8a5a00", "#ffe0a3") if suspected else (theme.DANGER, "#ffcdd2")
        return (
            f"Banner {{ background: {back}; border: 3px solid {edge}; border-radius: 10px; }}"
            "QLabel { background: transparent; color: white; }"
        )

    def show_warning(self, w: Warning | None) -> None:
        self.warning = w
        if w is None:
            self.hide()
            return
        lang = self.lang
        suspected = w.known == "suspected"
        title = "suspected_title" if suspected else "violation_title"
        self.title.setText(
            ("? " if suspected else "⚠ ")
            + lang.tr(title, rule=lang.rule(w.rule), seat=lang.seat(w.seat), trick=w.trick)
        )
        self.setProperty("known", w.known)
        self.setStyleSheet(self._style(suspected))
        text = violation(lang, w.as_violation())
        if suspected and w.question:  # asked, not asserted: no score counts it yet
            text += "\n" + say(lang, w.question)
        self.text.setText(text)
        if w.proof:
            self.proof.setText(
                lang.tr("proof", card=lang.card(w.proof.get("card")), trick=w.proof.get("trick"))
            )
        else:
            self.proof.setText(lang.card(w.card))
        self.accept_button.setText(lang.tr("confirm" if suspected else "accept"))
        self.dismiss_button.setText(lang.tr("dismiss"))
        self.show()
        self.raise_()

    def _decide(self, accept: bool) -> None:
        if self.warning is None:
            return
        w = self.warning
        if not accept:
            self.live.dismiss(w.id)
        elif w.known == "suspected":  # the question answered yes: proven, then accepted or not
            self.live.confirm_ruling(w.id)
        else:
            self.live.accept(w.id)


TITLE_ROOM = 120  # px beside a title bar's text: the window manager's icon and buttons


def deck_advice(lang: Language, advice: DeckAdvice) -> str:
    """The deck advice in ``lang``, rich text: the decks' names escaped and kept left to right
    in a line of either direction."""

    def name(deck: str | None) -> str:
        return f"\u2066{escape(deck or '?')}\u2069"

    if advice.like is None:
        return lang.tr("deck_misfit", name=name(advice.chosen))
    if advice.chosen is None:
        return lang.tr("deck_unchosen", like=name(advice.like))
    return lang.tr("deck_misfit_like", name=name(advice.chosen), like=name(advice.like))


def fit_title(dialog: QDialog, title: str) -> None:
    """Title ``dialog`` and make it wide enough to show the title whole: a picker's buttons
    are short, and a window manager cuts a title wider than its window (never wider than the
    screen, though)."""
    dialog.setWindowTitle(title)
    dialog.ensurePolished()  # measured in the theme's font, which the dialog has once polished
    need = QFontMetrics(dialog.font()).horizontalAdvance(title) + TITLE_ROOM
    dialog.setMinimumWidth(min(need, dialog.screen().availableGeometry().width()))


class CardPicker(QDialog):
    """One click to correct a read: the cards still possible first, or all 32; its title says
    whose card it is (the seat and trick, where the notice names them)."""

    def __init__(self, cards: list[str], lang: Language, parent=None, title: str = "") -> None:
        super().__init__(parent)
        self.choice: str | None = None
        fit_title(self, title or lang.tr("correct"))
        grid = QGridLayout(self)
        heading = QLabel(title or lang.tr("correct"))
        heading.setObjectName("picker-title")
        heading.setWordWrap(True)
        grid.addWidget(heading, 0, 0, 1, 8)
        for i, name in enumerate(cards):
            b = QPushButton(lang.card(name))
            b.setObjectName(f"pick-{name}")
            b.clicked.connect(lambda _c=False, n=name: self._pick(n))
            grid.addWidget(b, 1 + i // 8, i % 8)
        cancel = QPushButton(lang.tr("cancel"))
        cancel.setObjectName("pick-cancel")
        cancel.clicked.connect(self.reject)
        grid.addWidget(cancel, 2 + (len(cards) - 1) // 8, 0, 1, 8)

    def _pick(self, name: str) -> None:
        self.choice = name
        self.accept()


class SeatPicker(QDialog):
    """Which play of a trick in doubt is wrong: one button a play, with the card recorded, and
    one for each seat with no card there (a card read at another seat may be its)."""

    def __init__(
        self, plays: list[tuple[int, str | None]], trick: int, lang: Language, parent=None
    ) -> None:
        super().__init__(parent)
        self.choice: tuple[int, str | None] | None = None
        fit_title(self, lang.tr("pick_seat", trick=trick))
        box = QVBoxLayout(self)
        heading = QLabel(lang.tr("pick_seat", trick=trick))
        heading.setWordWrap(True)
        box.addWidget(heading)
        for seat, card in plays:
            b = QPushButton(f"{lang.seat(seat)}: {lang.card(card) if card else '—'}")
            b.setObjectName(f"seat-{seat}-{card or 'none'}")
            b.clicked.connect(lambda _c=False, s=seat, c=card: self._pick(s, c))
            box.addWidget(b)
        cancel = QPushButton(lang.tr("cancel"))
        cancel.setObjectName("seat-cancel")
        cancel.clicked.connect(self.reject)
        box.addWidget(cancel)

    def _pick(self, seat: int, card: str | None) -> None:
        self.choice = (seat, card)
        self.accept()


LIST_MIN_H = 48  # the side column's lists at their least: about one row


class LiveView(QWidget):
    """Video with the banner on top; beside it the contract, the trick, and the warning lists."""

    def __init__(self, live: LiveController, lang: Language, parent=None) -> None:
        super().__init__(parent)
        self.live, self.lang = live, lang
        row = QBoxLayout(QBoxLayout.Direction.LeftToRight, self)
        self.row = row  # side by side; one above the other on a portrait screen (resizeEvent)
        left = QVBoxLayout()
        self.left = left
        self.video = VideoWidget(live, lang)
        left.addWidget(self.video, 1)
        row.addLayout(left, 3)
        # The banner goes under the picture, not over it: it covers no seat and no card.
        self.banner = Banner(live, lang)
        left.addWidget(self.banner)
        # The cards do not read like the deck chosen: under the picture, where it has room.
        self.deck_line = QLabel()
        self.deck_line.setWordWrap(True)
        self.deck_line.setProperty("role", "error")
        self.deck_line.setVisible(False)
        self.deck_line.setTextFormat(Qt.TextFormat.RichText)
        self.deck_line.linkActivated.connect(lambda _: live.hide_deck_advice())
        left.addWidget(self.deck_line)
        side = QVBoxLayout()
        self.contract = QLabel()
        self.contract.setProperty("role", "title")
        self.contract.setWordWrap(True)
        self.turn = QLabel()
        self.turn.setWordWrap(True)
        self.turn.setStyleSheet(f"font-size: 24pt; font-weight: bold; color: {theme.ACCENT};")
        self.trick = QLabel()
        self.trick.setStyleSheet("font-size: 22pt;")
        self.trick.setWordWrap(True)
        self.warnings_title = QLabel()
        self.warnings_title.setWordWrap(True)
        self.warnings_title.setProperty("role", "muted")
        self.warnings = QListWidget()
        self.warnings.setWordWrap(True)
        self.warnings.itemClicked.connect(self._show_item)
        self.notices_title = QLabel()
        self.notices_title.setWordWrap(True)
        self.notices_title.setProperty("role", "muted")
        self.notices = QListWidget()
        self.notices.setWordWrap(True)
        self.notices.itemClicked.connect(
            lambda item: self.correct(item.data(Qt.ItemDataRole.UserRole))
        )
        for lst in (self.warnings, self.notices):
            # A list scrolls; the trick's text above cannot (at 1366x768 its last lines were cut).
            lst.setMinimumHeight(LIST_MIN_H)
        for w in (self.contract, self.turn, self.trick, self.warnings_title):
            side.addWidget(w)
        side.addWidget(self.warnings, 1)
        side.addWidget(self.notices_title)
        side.addWidget(self.notices, 1)
        self.side = side
        row.addLayout(side, 1)
        live.subscribe(self.refresh)
        live.subscribe_alert(lambda w: self.banner.show_warning(w))
        lang.subscribe(self.refresh)
        self.refresh()

    def dock(self, panel: QWidget) -> None:
        """Table mode: ``panel`` (the bidding) under the picture, so the table bids while it
        sees the camera; shown and hidden by the window as the match waits or plays."""
        self.left.addWidget(panel, 2)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        portrait = self.height() > self.width()
        want = QBoxLayout.Direction.TopToBottom if portrait else QBoxLayout.Direction.LeftToRight
        if self.row.direction() != want:
            self.row.setDirection(want)

    def _show_item(self, item: QListWidgetItem) -> None:
        wid = item.data(Qt.ItemDataRole.UserRole)
        w = next((x for x in self.live.warnings if x.id == wid), None)
        if w is not None and w.status == "open":
            self.banner.show_warning(w)

    def correct(
        self, nid: int, card: str | None = None, sure: bool = False, seat: int | None = None
    ) -> None:
        """Open the picker (or take ``card`` directly, as the tests do) for an uncertain read.
        A trick in doubt is confirmed as recorded, or a card of it corrected: the seat whose
        card is wrong, then its card (``sure``: confirm without asking; ``seat`` and ``card``:
        correct without asking)."""
        notice: Notice | None = next((n for n in self.live.notices if n.id == nid), None)
        if notice is None or notice.status != "open":
            return
        replaces = None
        if notice.confirm_trick is not None and seat is None:
            answer = "confirm" if sure else self._confirm_or_correct(notice)
            if answer == "confirm":
                self.live.confirm_trick(nid)
                return
            plays = self.live.trick_plays(notice.deal, notice.confirm_trick)
            picked = SeatPicker(plays, notice.confirm_trick, self.lang, self) if answer else None
            if picked is None or not picked.exec() or picked.choice is None:
                return
            seat, replaces = picked.choice
        if card is None:
            cards = self.live.possible_cards(notice)
            if seat is not None:  # a trick played: every card is possible, in deck order
                cards = all_cards()
            picker = CardPicker(cards or all_cards(), self.lang, self, self._whose(notice, seat))
            if not picker.exec() or picker.choice is None:
                return
            card = picker.choice
        try:
            self.live.correct(nid, card, seat, replaces)
        except EntryError as exc:
            self.notices_title.setText(say(self.lang, str(exc)))

    def _confirm_or_correct(self, notice: Notice) -> str | None:
        """Ask whether the notice's trick stands as recorded (its cards said again): "confirm",
        "correct" (a card of it is wrong) or None (not answered)."""
        box = QMessageBox(self)
        box.setWindowTitle(self.lang.tr("confirm"))
        box.setText(self.lang.tr("confirm_trick", trick=notice.confirm_trick))
        box.setInformativeText(say(self.lang, notice.text))
        yes = box.addButton(self.lang.tr("confirm"), QMessageBox.ButtonRole.YesRole)
        fix = box.addButton(self.lang.tr("correct_a_card"), QMessageBox.ButtonRole.NoRole)
        box.addButton(QMessageBox.StandardButton.Cancel)
        box.exec()
        return {id(yes): "confirm", id(fix): "correct"}.get(id(box.clickedButton()))

    def _whose(self, notice: Notice, seat: int | None) -> str:
        """The picker's title: whose card is picked, where the notice or the answer says."""
        seat = notice.seat if seat is None else seat
        if seat is not None and notice.trick is not None:
            return self.lang.tr("correct_for", seat=self.lang.seat(seat), trick=notice.trick)
        if seat is not None:
            return self.lang.tr("correct_seat", seat=self.lang.seat(seat))
        return self.lang.tr("correct")

    def refresh(self) -> None:
        live, lang = self.live, self.lang
        log = live.current
        contract = log.contract if log else None
        if log is None or contract is None:
            self.contract.setText(lang.tr("no_contract"))
        else:
            self.contract.setText(
                f"{lang.contract(contract)}\n{lang.tr('dealer')}: {lang.seat(log.dealer)}"
            )
        on_turn = log is not None and live.turn is not None  # none once the 8th trick is won
        self.turn.setText(lang.tr("turn", seat=lang.seat(live.turn)) if on_turn else "")
        self.turn.setVisible(on_turn)  # no blank gap once the 8th trick is won
        trick = live.current_trick() or live.last_trick()
        if trick is None:
            self.trick.setText("")
        else:
            ekka = " " + lang.tr("ekka")
            cards = "\n".join(
                f"{lang.seat(p.seat)}: {lang.card(p.card)}{ekka if p.ekka else ''}"
                for p in trick.plays
            )
            done = ""
            if trick.winner is not None:
                done = "\n→ " + lang.tr("won_by", seat=lang.seat(trick.winner), points=trick.points)
            self.trick.setText(f"{lang.tr('trick_n', n=trick.number)}\n{cards}{done}")
        self.warnings_title.setText(lang.tr("warnings"))
        self.warnings.clear()
        for w in live.warnings:
            if w.status == "withdrawn":
                continue  # no longer a ruling: the dispute view keeps it
            status = lang.tr(f"status_{w.status}")
            if w.known == "suspected" and w.status == "open":
                status = lang.tr("suspected")
            item = QListWidgetItem(
                f"{lang.rule(w.rule)} — {lang.seat(w.seat)} · {lang.tr('trick_n', n=w.trick)}"
                f" · {lang.tr('pick_deal')} {lang.num(w.deal)} [{status}]"
            )
            item.setData(Qt.ItemDataRole.UserRole, w.id)
            if w.status == "open":
                item.setForeground(QColor("#ff6b6b"))
            self.warnings.addItem(item)
        advice = live.deck_advice
        link = f'<a href="hide" style="color: {theme.ACCENT};">{lang.tr("hide")}</a>'
        self.deck_line.setText(f"{deck_advice(lang, advice)} {link}" if advice else "")
        if self.deck_line.isHidden() == bool(advice):  # a change lays the view out again
            self.deck_line.setVisible(bool(advice))
        title = lang.tr("notices")
        if live.refusal:  # the pipeline did not take the last answer: why, in one line
            title += "\n" + lang.tr("refused", text=say(lang, live.refusal, within=True))
        self.notices_title.setText(title)
        self.notices.clear()
        for n in live.open_notices():
            item = QListWidgetItem(lang.tr("uncertain", text=say(lang, n.text, within=True)))
            item.setData(Qt.ItemDataRole.UserRole, n.id)
            item.setForeground(QColor("#9fa8da"))
            self.notices.addItem(item)
        # The two lists share the column as their items do (the notices are long and asked of
        # the table: a list of one ruling does not keep them to two lines).
        for box, want in ((self.warnings, 1 + min(self.warnings.count(), 6)),
                          (self.notices, 2 + 2 * min(self.notices.count(), 6))):  # fmt: skip
            if self.side.stretch(self.side.indexOf(box)) != want:  # a change lays out again
                self.side.setStretchFactor(box, want)
        current = self.banner.warning
        if current is not None and current.status != "open":
            nxt = next(iter(live.open_warnings()), None)
            self.banner.show_warning(nxt)
        elif current is not None:
            self.banner.show_warning(current)
