"""Deal set-up by tapping: dealer, open card, the bids the engine allows, raises, projects,
then one side's card points (the only thing typed, like a paper sheet)."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QPoint, QTimer
from PySide6.QtWidgets import (
    QApplication,
    QButtonGroup,
    QComboBox,
    QFrame,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLayout,
    QLineEdit,
    QListWidget,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from hakam.engine.cards import CARD_NAMES
from hakam.gui.controllers import DealSetupController
from hakam.gui.i18n import Language, card_label
from hakam.gui.messages import say
from hakam.gui.models import EntryError
from hakam.gui.views.status_line import StatusLine


def clear(layout: QLayout) -> None:
    while layout.count():
        item = layout.takeAt(0)
        w = item.widget()
        if w is not None:
            w.hide()
            w.setParent(None)
            w.deleteLater()


class DealSetupView(QWidget):
    """Shows only the step the deal is at, with only the choices the engine accepts."""

    def __init__(self, setup: DealSetupController, lang: Language, parent=None) -> None:
        super().__init__(parent)
        self.setup, self.lang = setup, lang
        # The steps scroll; the actions and the status line stay in sight below them.
        body = QWidget()
        root = QVBoxLayout(body)
        # editing a written deal: said, with a way out
        self.edit_bar = QWidget()
        edit_row = QHBoxLayout(self.edit_bar)
        edit_row.setContentsMargins(0, 0, 0, 0)
        self.edit_label = QLabel()
        self.edit_label.setProperty("role", "title")
        self.edit_cancel = QPushButton()
        self.edit_cancel.setObjectName("cancel-edit")
        self.edit_cancel.clicked.connect(lambda: self._do(self.setup.restart))
        edit_row.addWidget(self.edit_label, 1)
        edit_row.addWidget(self.edit_cancel)
        root.addWidget(self.edit_bar)
        # dealer
        self.dealer_box = QGroupBox()
        dealer_row = QHBoxLayout(self.dealer_box)
        self.dealer_buttons: list[QPushButton] = []
        group = QButtonGroup(self)
        for seat in range(4):
            b = QPushButton()
            b.setCheckable(True)
            b.setProperty("role", "call")
            b.clicked.connect(lambda _c=False, s=seat: self._do(self.setup.set_dealer, s))
            group.addButton(b)
            dealer_row.addWidget(b)
            self.dealer_buttons.append(b)
        root.addWidget(self.dealer_box)
        # open card
        self.open_box = QGroupBox()
        grid = QGridLayout(self.open_box)
        self.card_buttons: dict[str, QPushButton] = {}
        for i, name in enumerate(CARD_NAMES):
            b = QPushButton(card_label(name))
            b.setMinimumWidth(64)
            if name[-1] in "HD":
                b.setStyleSheet("color: #ff6b6b; font-weight: bold;")
            b.clicked.connect(lambda _c=False, n=name: self._do(self.setup.set_open_card, n))
            grid.addWidget(b, i // 8, i % 8)
            self.card_buttons[name] = b
        root.addWidget(self.open_box)
        # bidding
        self.bid_box = QGroupBox()
        bid_layout = QVBoxLayout(self.bid_box)
        self.bids_label = QLabel()
        self.bids_label.setWordWrap(True)
        bid_layout.addWidget(self.bids_label)
        self.calls_row = QHBoxLayout()
        bid_layout.addLayout(self.calls_row)
        root.addWidget(self.bid_box)
        # doubling
        self.raise_box = QGroupBox()
        raise_layout = QVBoxLayout(self.raise_box)
        self.contract_label = QLabel()
        self.contract_label.setProperty("role", "title")
        raise_layout.addWidget(self.contract_label)
        self.raise_row = QGridLayout()  # two a row (open, locked): it fits a narrow panel
        self.raise_row.setColumnStretch(2, 1)
        raise_layout.addLayout(self.raise_row)
        self.raise_refused = QLabel()  # why no doubling is offered (the engine's reason)
        self.raise_refused.setWordWrap(True)
        self.raise_refused.setProperty("role", "muted")
        raise_layout.addWidget(self.raise_refused)
        root.addWidget(self.raise_box)
        # projects and Baloot
        self.project_box = QGroupBox()
        proj = QVBoxLayout(self.project_box)
        pick = QHBoxLayout()
        self.project_seat = QComboBox()
        self.project_kind = QComboBox()
        self.project_shape = QComboBox()
        self.project_add = QPushButton()
        self.project_kind.currentIndexChanged.connect(self._fill_shapes)
        self.project_add.clicked.connect(self._add_project)
        for w in (self.project_seat, self.project_kind, self.project_shape, self.project_add):
            pick.addWidget(w)
        proj.addLayout(pick)
        self.project_list = QListWidget()
        self.project_list.setMaximumHeight(110)
        self.project_list.itemDoubleClicked.connect(lambda _i: self._remove_project())
        self.project_list.currentRowChanged.connect(lambda _r: self._project_chosen())
        proj.addWidget(self.project_list)
        self.project_remove = QPushButton()
        self.project_remove.setObjectName("remove-project")
        self.project_remove.clicked.connect(self._remove_project)
        proj.addWidget(self.project_remove)
        self.baloot_row = QHBoxLayout()
        self.baloot_label = QLabel()
        self.baloot_row.addWidget(self.baloot_label)
        self.baloot_buttons: list[QPushButton] = []
        for seat in range(4):
            b = QPushButton()
            b.setCheckable(True)
            b.clicked.connect(lambda _c=False, s=seat: self._do(self.setup.toggle_baloot, s))
            self.baloot_row.addWidget(b)
            self.baloot_buttons.append(b)
        proj.addLayout(self.baloot_row)
        root.addWidget(self.project_box)
        # card points
        self.points_box = QGroupBox()
        pts = QHBoxLayout(self.points_box)
        self.points_label = QLabel()
        pts.addWidget(self.points_label)
        self.team_buttons: list[QPushButton] = []
        team_group = QButtonGroup(self)
        for team in (0, 1):
            b = QPushButton()
            b.setCheckable(True)
            b.clicked.connect(lambda _c=False, t=team: self._set_team(t))
            team_group.addButton(b)
            pts.addWidget(b)
            self.team_buttons.append(b)
        self.points_edit = QLineEdit()
        self.points_edit.setMaximumWidth(140)
        self.points_edit.textEdited.connect(self._points_edited)
        self.points_edit.returnPressed.connect(self.record)
        pts.addWidget(self.points_edit)
        self.kaboot_label = QLabel()
        pts.addWidget(self.kaboot_label)
        self.kaboot_combo = QComboBox()
        self.kaboot_combo.activated.connect(self._kaboot_chosen)
        pts.addWidget(self.kaboot_combo)
        pts.addStretch(1)
        self.preview = QLabel()  # the sheet's line as the points are typed
        self.preview.setProperty("role", "title")
        pts.addWidget(self.preview)
        root.addWidget(self.points_box)
        # actions
        actions = QHBoxLayout()
        self.back_button = QPushButton()
        self.back_button.clicked.connect(lambda: self._do(self.setup.undo_call))
        self.restart_button = QPushButton()
        self.restart_button.clicked.connect(lambda: self._do(self.setup.restart))
        self.record_button = QPushButton()
        self.record_button.setProperty("role", "ok")
        self.record_button.clicked.connect(self.record)
        actions.addWidget(self.back_button)
        actions.addWidget(self.restart_button)
        actions.addStretch(1)
        actions.addWidget(self.record_button)
        root.addStretch(1)
        self.steps = QScrollArea()
        self.steps.setWidgetResizable(True)
        self.steps.setFrameShape(QFrame.Shape.NoFrame)
        self.steps.setWidget(body)
        outer = QVBoxLayout(self)
        outer.addWidget(self.steps, 1)
        outer.addLayout(actions)
        self.message = StatusLine()
        outer.addWidget(self.message)
        self._step_shown: QWidget | None = None
        setup.subscribe(self.refresh)
        lang.subscribe(self.refresh)
        self.refresh()

    # --- actions --------------------------------------------------------------------------

    def _do(self, fn, *args) -> bool:
        """Run a controller step; a refusal shows its one line and changes nothing."""
        self.message.clear_line()  # the last action's word goes with the next action
        try:
            fn(*args)
        except EntryError as exc:
            self.message.say(lambda lang, why=str(exc): say(lang, why), "error", self.lang)
            return False
        return True

    def _set_team(self, team: int) -> None:
        self._do(self.setup.set_points, team, self.points_edit.text())

    def _points_edited(self, text: str) -> None:
        self.setup.set_points(self.setup.points_team, text)

    def _kaboot_chosen(self, index: int) -> None:
        self._do(self.setup.set_kaboot, None if index == 0 else index - 1)

    def _remove_project(self) -> None:
        row = self.project_list.currentRow()
        if row >= 0:
            self._do(self.setup.remove_project, row)

    def _project_chosen(self) -> None:
        self.project_remove.setEnabled(self.project_list.currentRow() >= 0)

    def _add_project(self) -> None:
        choice = self.project_shape.currentData()
        if choice is None:
            return
        self._do(self.setup.announce, self.project_seat.currentIndex(), choice)

    def record(self) -> None:
        if self.setup.table_mode and self.setup.editing is None:
            if self._do(self.setup.start_deal):
                self.message.say(lambda lang: lang.tr("deal_started"), "saved", self.lang)
            return
        if self._do(self.setup.record):
            self.message.say(lambda lang: lang.tr("saved"), "saved", self.lang)

    def call(self, call: str) -> None:
        self._do(self.setup.call, call)

    # --- view ------------------------------------------------------------------------------

    def _fill_shapes(self) -> None:
        kind = self.project_kind.currentData()
        self.project_shape.clear()
        if kind is None:
            return
        for p in self.setup.project_choices(kind):
            text = (
                f"{self.lang.tr('four_of')} {p.four_of}"
                if p.four_of
                else f"{self.lang.tr('top_card')} {self.lang.card(p.top)}"
            )
            self.project_shape.addItem(text, p)

    def refresh(self) -> None:
        s, lang = self.setup, self.lang
        phase = s.phase
        self.message.retranslate(lang)
        if s.message:
            self.message.say(say(lang, s.message), "error")
        elif self.message.kind == "error":  # the refusal was put right
            self.message.clear_line()
        self.dealer_box.setTitle(lang.tr("dealer"))
        self.edit_bar.setVisible(s.editing is not None)
        if s.editing is not None:
            self.edit_label.setText("✎ " + lang.tr("editing_deal", n=s.editing + 1))
            self.edit_cancel.setText(lang.tr("cancel_edit"))
        for seat, b in enumerate(self.dealer_buttons):
            b.setText(f"{lang.seat(seat)}\n{lang.tr(f'dir{seat}')}")
            b.setChecked(s.dealer == seat)
        self.open_box.setVisible(phase == "open")
        self.open_box.setTitle(lang.tr("step_open"))
        # bidding
        self.bid_box.setVisible(s.open_card is not None and s.base_contract is None)
        opened = lang.card(s.open_card)
        for name, b in self.card_buttons.items():
            b.setText(lang.card(name))
        if s.camera_open_card and s.camera_open_card == s.open_card:
            opened += " " + lang.tr("from_camera")
        title = lang.tr("step_bidding", seat=lang.seat(s.turn)) if phase == "bidding" else ""
        self.bid_box.setTitle(title or lang.tr("step_open"))
        said = "  ·  ".join(f"{lang.seat(seat)}: {lang.call(c)}" for seat, c in s.bids)
        self.bids_label.setText(f"{lang.tr('step_open')}: {opened}\n{said}")
        clear(self.calls_row)
        for call in s.legal_calls():
            b = QPushButton(lang.call(call))
            b.setProperty("role", "call")
            b.setObjectName(f"call-{call}")
            b.clicked.connect(lambda _c=False, c=call: self.call(c))
            self.calls_row.addWidget(b)
        if phase == "void":
            b = QPushButton(lang.tr("start_void" if s.table_mode else "record_void"))
            b.setObjectName("record-void")
            b.setProperty("role", "ok")
            b.clicked.connect(self.record)
            self.calls_row.addWidget(b)
        self.calls_row.addStretch(1)
        # doubling, projects, points
        play = phase == "play"
        for box in (self.raise_box, self.project_box, self.points_box):
            box.setVisible(play)
        self.record_button.setVisible(play)
        on_camera = s.table_mode and s.editing is None
        self.points_box.setVisible(play and not on_camera)  # the camera counts the points
        self.record_button.setText(lang.tr("start_deal" if on_camera else "record_deal"))
        self.back_button.setText(lang.tr("undo_call"))
        self.restart_button.setText(lang.tr("restart_deal"))
        if play:
            self._refresh_play()
        step = {"dealer": self.dealer_box, "open": self.open_box, "play": self.raise_box}
        box = step.get(phase, self.bid_box)
        if box is not self._step_shown:  # a new step: scrolled into sight (a small screen)
            self._step_shown = box
            QTimer.singleShot(0, self._show_step)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        QTimer.singleShot(0, self._show_step)  # docked in table mode, it is sized late

    def _show_step(self) -> None:
        """The step the deal is at, scrolled into sight once laid out, from its top."""
        box, body = self._step_shown, self.steps.widget()
        if box is not None and box.isVisibleTo(self):
            body.layout().activate()  # and the panel sized to it, or the scroll is cut short
            QApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
            self.steps.verticalScrollBar().setValue(box.mapTo(body, QPoint(0, 0)).y())

    def _refresh_play(self) -> None:
        s, lang = self.setup, self.lang
        contract = s.contract()
        self.raise_box.setTitle(lang.tr("step_doubling"))
        self.contract_label.setText(lang.contract(None if contract is None else contract.to_json()))
        clear(self.raise_row)
        for i, option in enumerate(s.raise_options()):
            text = lang.tr("raise_by", call=lang.tr(option.call), seat=lang.seat(option.seat))
            if option.locked:
                text += f" · {lang.tr('locked')}"
            b = QPushButton(text)
            b.clicked.connect(lambda _c=False, o=option: self._do(s.say_raise, o))
            self.raise_row.addWidget(b, i // 2, i % 2)
        refused = s.raise_refused()
        self.raise_refused.setVisible(refused is not None)
        why = say(lang, refused, within=True) if refused else ""
        self.raise_refused.setText(lang.tr("raise_refused", why=why))
        self.project_box.setTitle(lang.tr("step_projects"))
        seat_index = max(0, self.project_seat.currentIndex())
        self.project_seat.clear()
        self.project_seat.addItems([lang.seat(x) for x in range(4)])
        self.project_seat.setCurrentIndex(seat_index)
        kind_index = max(0, self.project_kind.currentIndex())
        self.project_kind.blockSignals(True)
        self.project_kind.clear()
        for kind in s.project_kinds():
            self.project_kind.addItem(lang.tr(kind), kind)
        self.project_kind.setCurrentIndex(min(kind_index, self.project_kind.count() - 1))
        self.project_kind.blockSignals(False)
        self._fill_shapes()
        self.project_add.setText(lang.tr("add_project"))
        self.project_list.clear()
        for p in s.projects:
            shape = f"{lang.tr('four_of')} {p.four_of}" if p.four_of else lang.card(p.top)
            self.project_list.addItem(f"{lang.seat(p.seat)}: {lang.tr(p.kind)} ({shape})")
        self.project_remove.setText(lang.tr("remove_project"))
        self.project_remove.setVisible(bool(s.projects))
        self.project_remove.setEnabled(self.project_list.currentRow() >= 0)
        sun = contract is not None and contract.is_sun
        self.baloot_label.setText(lang.tr("baloot_by"))
        for seat, b in enumerate(self.baloot_buttons):
            b.setText(lang.seat(seat))
            b.setChecked(seat in s.baloot)
            b.setVisible(not sun)
        self.baloot_label.setVisible(not sun)
        self.points_box.setTitle(lang.tr("step_points"))
        self.points_label.setText(lang.tr("points_for"))
        for team, b in enumerate(self.team_buttons):
            b.setText(lang.team(team))
            b.setChecked(s.points_team == team)
        if self.points_edit.text() != s.points_text:
            self.points_edit.setText(s.points_text)
        self.kaboot_label.setText(lang.tr("kaboot_by"))
        self.kaboot_combo.clear()
        self.kaboot_combo.addItems([lang.tr("none"), lang.team(0), lang.team(1)])
        self.kaboot_combo.setCurrentIndex(0 if s.kaboot is None else s.kaboot + 1)
        shown = s.preview()
        if isinstance(shown, tuple):
            self.preview.setText(lang.tr("preview", us=shown[0], them=shown[1]))
        else:  # nothing typed yet (None), or why what is typed is not a score yet
            self.preview.setText(say(lang, shown) if shown else "")
