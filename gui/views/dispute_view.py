"""Dispute view: any trick of any deal with the evidence image of every card, the ruling,
the rule text, and the audit of the whole deal re-run by the engine."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QPixmap
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from hakam.gui.controllers import DisputeController, LiveController
from hakam.gui.i18n import Language
from hakam.gui.messages import say, violation
from hakam.gui.models import EntryError
from hakam.gui.views import theme
from hakam.gui.views.deal_setup_view import clear
from hakam.vision.provenance import GUESSED


class DisputeView(QWidget):
    def __init__(self, live: LiveController, lang: Language, parent=None) -> None:
        super().__init__(parent)
        self.live, self.lang = live, lang
        self.dispute = DisputeController(live)
        self._stale = True
        root = QHBoxLayout(self)
        left = QVBoxLayout()
        self.deal_label = QLabel()
        self.deal_combo = QComboBox()
        self.deal_combo.currentIndexChanged.connect(self._deal_changed)
        self.trick_label = QLabel()
        self.trick_list = QListWidget()
        self.trick_list.currentRowChanged.connect(lambda _r: self.show_trick())
        for w in (self.deal_label, self.deal_combo, self.trick_label):
            left.addWidget(w)
        left.addWidget(self.trick_list, 1)
        root.addLayout(left, 1)
        right = QVBoxLayout()
        self.cards_row = QHBoxLayout()
        right.addLayout(self.cards_row)
        self.ruling_title = QLabel()
        self.ruling_title.setProperty("role", "title")
        self.ruling = QLabel()
        self.ruling.setWordWrap(True)
        self.ruling.setTextFormat(Qt.TextFormat.RichText)
        # A player disputes a card of the trick: the seat, then the card (the pipeline says why
        # in one line if it cannot take it).
        self.correct_button = QPushButton()
        self.correct_button.setObjectName("correct-trick")
        self.correct_button.clicked.connect(lambda: self.correct())
        # above the tricks: in reach however long the trick's rulings run
        left.insertWidget(left.indexOf(self.trick_list), self.correct_button)
        self.refused = QLabel()  # why the pipeline did not take the last correction
        self.refused.setWordWrap(True)
        self.refused.setStyleSheet("color: #ff6b6b;")
        self.refused.hide()
        self.audit_title = QLabel()
        self.audit_title.setProperty("role", "title")
        self.audit = QLabel()
        self.audit.setWordWrap(True)
        for w in (self.ruling_title, self.ruling, self.refused, self.audit_title, self.audit):
            right.addWidget(w)
        right.addStretch(1)
        root.addLayout(right, 3)
        live.subscribe(self.refresh)
        live.sheet.subscribe(self.refresh)
        lang.subscribe(self.refresh)
        self.refresh()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if self._stale:
            self.refresh()

    def refresh(self) -> None:
        """Rebuild only when on screen: evidence images are read from disk."""
        self._stale = not self.isVisible()
        if self._stale:
            return
        lang = self.lang
        self.deal_label.setText(lang.tr("pick_deal"))
        self.trick_label.setText(lang.tr("pick_trick"))
        self.ruling_title.setText(lang.tr("ruling"))
        self.correct_button.setText(lang.tr("correct_trick"))
        self.correct_button.setEnabled(self.live.listening)  # a camera run takes it
        refusal = self.live.refusal
        self.refused.setText(
            lang.tr("refused", text=say(lang, refusal, within=True)) if refusal else ""
        )
        if self.refused.isHidden() == bool(refusal):  # a change lays the view out again
            self.refused.setVisible(bool(refusal))
        self.audit_title.setText(lang.tr("audit"))
        deals = self.dispute.deal_numbers()
        current = self.deal_combo.currentData()
        labels = [f"{lang.tr('pick_deal')} {n}" for n in deals]
        shown = [self.deal_combo.itemText(i) for i in range(self.deal_combo.count())]
        if shown != labels:
            self.deal_combo.blockSignals(True)
            self.deal_combo.clear()
            for n, label in zip(deals, labels, strict=True):
                self.deal_combo.addItem(label, n)
            if current in deals:
                self.deal_combo.setCurrentIndex(deals.index(current))
            elif deals:
                self.deal_combo.setCurrentIndex(len(deals) - 1)
            self.deal_combo.blockSignals(False)
        self._deal_changed()

    def select(self, deal: int, trick: int) -> None:
        """Show ``trick`` of ``deal`` (1-based), as a tap in the lists would."""
        deals = self.dispute.deal_numbers()
        if deal in deals:
            self.deal_combo.setCurrentIndex(deals.index(deal))
            self._deal_changed()
            self.trick_list.setCurrentRow(trick - 1)

    def _deal_changed(self) -> None:
        deal = self.deal_combo.currentData()
        row = self.trick_list.currentRow()
        self.trick_list.blockSignals(True)
        self.trick_list.clear()
        if deal is not None:
            for t in self.dispute.tricks(deal):
                standing, _ = self.dispute.standing(deal, t.number)
                mark = " ⚠" if standing else ""
                self.trick_list.addItem(f"{self.lang.tr('trick_n', n=t.number)}{mark}")
        self.trick_list.setCurrentRow(min(max(row, 0), self.trick_list.count() - 1))
        self.trick_list.blockSignals(False)
        self.show_trick()
        self._show_audit(deal)

    def show_trick(self) -> None:
        lang = self.lang
        clear(self.cards_row)
        deal = self.deal_combo.currentData()
        number = self.trick_list.currentRow() + 1
        tricks = self.dispute.tricks(deal) if deal is not None else []
        if not 1 <= number <= len(tricks):
            self.ruling.setText(lang.tr("no_deals") if not tricks else "")
            return
        trick = tricks[number - 1]
        for play in trick.plays:
            box = QVBoxLayout()
            image = QLabel()
            image.setFixedSize(150, 190)
            image.setAlignment(Qt.AlignmentFlag.AlignCenter)
            image.setStyleSheet("background: #0b0e11; border: 1px solid #46525e;")
            pix = (
                QPixmap(play.evidence) if play.evidence and Path(play.evidence).is_file() else None
            )
            if pix is not None and not pix.isNull():
                image.setPixmap(pix.scaled(146, 186, Qt.AspectRatioMode.KeepAspectRatio))
            else:
                image.setText(lang.tr("no_evidence"))
                image.setWordWrap(True)
                image.setProperty("role", "muted")
            image.setObjectName(f"evidence-{play.card}")
            caption = QLabel(f"{lang.seat(play.seat)}\n{lang.card(play.card)}")
            caption.setAlignment(Qt.AlignmentFlag.AlignCenter)
            caption.setStyleSheet("font-size: 18pt; font-weight: bold;")
            box.addWidget(image)
            box.addWidget(caption)
            if how := known(lang, play):  # its own line, wrapped to the card's width
                line = QLabel(how)
                line.setAlignment(Qt.AlignmentFlag.AlignCenter)
                line.setWordWrap(True)
                line.setFixedWidth(150)
                line.setObjectName(f"known-{play.card}")
                box.addWidget(line)
            holder = QWidget()
            holder.setLayout(box)
            self.cards_row.addWidget(holder)
        self.cards_row.addStretch(1)
        parts = []
        if trick.winner is not None:
            parts.append(lang.tr("won_by", seat=lang.seat(trick.winner), points=trick.points))
        found, withdrawn = self.dispute.standing(deal, number)
        for w in found:
            status = "confirmed" if w.confirmed and w.status == "open" else w.status
            parts.append(
                f"<b style='color:#ff6b6b'>{lang.rule(w.rule)}</b> — "
                f"{violation(lang, w.as_violation())}"
                f"<br><span style='color:{theme.MUTED}'>{lang.rule_text(w.rule)}</span>"
                f" [{lang.tr('status_' + status)}]"
            )
        if not found:
            parts.append(lang.tr("legal_trick"))
        if withdrawn:
            said = lang.tr("withdrawn_n", n=lang.num(withdrawn))
            parts.append(f"<span style='color:{theme.MUTED}'>{said}</span>")
        self.ruling.setText("<br><br>".join(parts))

    def correct(
        self, seat: int | None = None, card: str | None = None, replaces: str | None = None
    ) -> None:
        """Correct a card of the trick shown: the play (each seat with its card, and the seats
        with none), then the card of all 32 (``seat`` and ``card``: without asking, as the
        tests do)."""
        from hakam.gui.controllers import all_cards
        from hakam.gui.views.live_view import CardPicker, SeatPicker

        deal, trick = self.deal_combo.currentData(), self.trick_list.currentRow() + 1
        if deal is None or trick < 1:
            return
        if seat is None:
            picked = SeatPicker(self.live.trick_plays(deal, trick), trick, self.lang, self)
            if not picked.exec() or picked.choice is None:
                return
            seat, replaces = picked.choice
        if card is None:
            title = self.lang.tr("correct_for", seat=self.lang.seat(seat), trick=trick)
            picker = CardPicker(all_cards(), self.lang, self, title)  # deck order: in place
            if not picker.exec() or picker.choice is None:
                return
            card = picker.choice
        try:
            self.live.correct_play(deal, trick, seat, card, replaces)
        except EntryError as exc:
            self.audit.setText(say(self.lang, str(exc)))

    def _show_audit(self, deal: int | None) -> None:
        if deal is None:
            self.audit.setText(self.lang.tr("no_deals"))
            return
        try:
            report = self.dispute.audit(deal)
        except EntryError as exc:
            self.audit.setText(say(self.lang, str(exc)))
            return
        lang = self.lang
        if report.violations:
            lines = [lang.tr("audit_line", n=deal, count=len(report.violations))]
            lines += [f"• {violation(lang, v)}" for v in report.violations]
        else:
            lines = [lang.tr("audit_clean", n=deal, tricks=report.tricks)]
        lines.append(
            f"{lang.tr('col_card_points')}: {lang.team(0)} {report.card_points[0]} · "
            f"{lang.team(1)} {report.card_points[1]}"
        )
        if report.result is not None:
            lines.append(
                f"{lang.tr('col_result')}: {lang.team(0)} {report.result[0]} · "
                f"{lang.team(1)} {report.result[1]}"
            )
        self.audit.setText(lang.num("\n".join(lines)))


def known(lang, play) -> str:
    """How a card of the trick is known, where the camera did not read it surely: named by
    the deal decoder (with its probability; a guess among ways, or a card a person's later
    word left over, asked), named by a person, or confirmed by one ("": read by the camera)."""
    if play.provenance == "person":
        return lang.tr("known_confirmed" if play.confirmed else "known_person")
    if play.provenance != "named":
        return ""
    if play.named_by == "overruled":  # two of a person's words disagreed: asked
        return lang.tr("known_overruled")
    if play.named_by in GUESSED:  # one of several ways: its probability is not the card's
        return lang.tr("known_guessed")
    if play.probability is None:
        return lang.tr("known_named")
    return lang.tr("known_named_p", p=lang.num(int(100 * play.probability)))
