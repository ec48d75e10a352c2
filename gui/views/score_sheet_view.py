"""The score sheet: the running totals to 152 in big type, one row per deal, edit/undo/export."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QTextDocument
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from hakam.gui.controllers import ScoreSheetController
from hakam.gui.export import row_cells, to_csv, to_html, write_text
from hakam.gui.i18n import Language
from hakam.gui.match_store import exports_dir
from hakam.gui.messages import say
from hakam.gui.models import MATCH_TARGET, EntryError
from hakam.gui.views import theme
from hakam.gui.views.status_line import StatusLine

COLUMNS = (
    ("col_deal", "deal"), ("col_dealer", "dealer"), ("col_contract", "contract"),
    ("col_card_points", "card_points"), ("col_game_points", "game_points"),
    ("col_projects", "projects"), ("col_baloot", "baloot"), ("kaboot", "kaboot"),
    ("col_winner", "winner"), ("col_result", "result"), ("col_total", "total"),
)  # fmt: skip


class TotalsBar(QWidget):
    """Both teams' totals with progress to 152 and the next dealer: always in sight."""

    def __init__(self, sheet: ScoreSheetController, lang: Language, parent=None) -> None:
        super().__init__(parent)
        self.sheet, self.lang = sheet, lang
        row = QHBoxLayout(self)
        row.setContentsMargins(8, 4, 8, 4)
        self.names: list[QLabel] = []
        self.totals: list[QLabel] = []
        self.bars: list[QProgressBar] = []
        for team in (0, 1):
            box = QVBoxLayout()
            name = QLabel()
            name.setWordWrap(True)  # a narrow (portrait) screen puts the seats below the name
            name.setStyleSheet(f"color: {theme.TEAM_COLOURS[team]}; font-size: 18pt;")
            total = QLabel("0")
            total.setProperty("role", "big")
            total.setStyleSheet(f"color: {theme.TEAM_COLOURS[team]};")
            bar = QProgressBar()
            bar.setRange(0, MATCH_TARGET)
            bar.setStyleSheet(f"QProgressBar::chunk {{ background: {theme.TEAM_COLOURS[team]}; }}")
            head = QHBoxLayout()
            head.addWidget(name)
            head.addStretch(1)
            head.addWidget(total)
            box.addLayout(head)
            box.addWidget(bar)
            row.addLayout(box, 3)
            self.names.append(name)
            self.totals.append(total)
            self.bars.append(bar)
            if team == 0:
                middle = QVBoxLayout()
                self.middle = QLabel()
                self.middle.setWordWrap(True)
                self.middle.setAlignment(Qt.AlignmentFlag.AlignCenter)
                self.middle.setProperty("role", "title")
                middle.addWidget(self.middle)
                # as the sheet marks a provisional line: the totals are not final either
                self.provisional = QLabel()
                self.provisional.setObjectName("totals-provisional")
                self.provisional.setAlignment(Qt.AlignmentFlag.AlignCenter)
                self.provisional.setStyleSheet(f"color: {theme.ACCENT}; font-weight: bold;")
                middle.addWidget(self.provisional)
                row.addLayout(middle, 2)
        sheet.subscribe(self.refresh)
        self.refresh()

    def refresh(self) -> None:
        totals = self.sheet.totals
        for team in (0, 1):
            self.names[team].setText(self.lang.tr(f"team{team}_seats"))
            self.totals[team].setText(self.lang.num(totals[team]))
            self.bars[team].setValue(min(MATCH_TARGET, max(0, totals[team])))
            self.bars[team].setFormat(self.lang.tr("to_target", total=totals[team]))
        done = self.sheet.finished
        if done is not None and done.match_winner is not None:
            self.middle.setText(
                self.lang.tr(
                    "match_won",
                    team=self.lang.team(done.match_winner),
                    a=done.match[0],
                    b=done.match[1],
                )
            )
        else:
            self.middle.setText(
                self.lang.tr("next_dealer", seat=self.lang.seat(self.sheet.next_dealer))
            )
        self.provisional.setVisible(self.counts_provisional())
        self.provisional.setText(f"({self.lang.tr('provisional')})")
        self.provisional.setToolTip(self.lang.tr("provisional_totals"))

    def counts_provisional(self) -> bool:
        """Whether a deal counted in the totals is provisional (a ruling suspected or a card
        guessed): the totals are not final until it is. Deals after the match was decided do
        not count, so they do not make the totals provisional."""
        rows = self.sheet.rows()
        done = self.sheet.finished
        counted = rows[: done.number] if done is not None else rows
        return any(row.entry.provisional for row in counted)


class ScoreSheetView(QWidget):
    """The table of deals; a row is chosen to edit or delete; undo reverts the last change."""

    def __init__(
        self,
        sheet: ScoreSheetController,
        lang: Language,
        on_edit: Callable[[int], None] | None = None,
        parent=None,
    ) -> None:
        super().__init__(parent)
        self.sheet, self.lang, self.on_edit = sheet, lang, on_edit
        layout = QVBoxLayout(self)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.doubleClicked.connect(lambda _i: self.edit_selected())
        layout.addWidget(self.table, 1)
        self.message = StatusLine()
        layout.addWidget(self.message)
        buttons = QHBoxLayout()
        self.edit_button = QPushButton()
        self.delete_button = QPushButton()
        self.delete_button.setProperty("role", "danger")
        self.undo_button = QPushButton()
        self.csv_button = QPushButton()
        self.html_button = QPushButton()
        self.pdf_button = QPushButton()
        self.new_button = QPushButton()
        for b in (self.edit_button, self.delete_button, self.undo_button):
            buttons.addWidget(b)
        buttons.addStretch(1)
        for b in (self.csv_button, self.html_button, self.pdf_button, self.new_button):
            buttons.addWidget(b)
        layout.addLayout(buttons)
        self.edit_button.clicked.connect(self.edit_selected)
        self.delete_button.clicked.connect(lambda: self.delete_selected())
        self.undo_button.clicked.connect(self.undo)
        self.csv_button.clicked.connect(lambda: self.export("csv"))
        self.html_button.clicked.connect(lambda: self.export("html"))
        self.pdf_button.clicked.connect(lambda: self.export("pdf"))
        self.new_button.clicked.connect(self.new_match)
        sheet.subscribe(self.refresh)
        lang.subscribe(self.refresh)
        self.refresh()

    def refresh(self) -> None:
        lang = self.lang
        self.message.retranslate(lang)
        self.table.setHorizontalHeaderLabels([lang.tr(k) for k, _ in COLUMNS])
        for b, key in (
            (self.edit_button, "edit"), (self.delete_button, "delete"), (self.undo_button, "undo"),
            (self.csv_button, "export_csv"), (self.html_button, "export_html"),
            (self.pdf_button, "export_pdf"), (self.new_button, "new_match"),
        ):  # fmt: skip
            b.setText(lang.tr(key))
        rows = self.sheet.rows()
        self.table.setRowCount(len(rows))
        for r, row in enumerate(rows):
            cells = row_cells(row, lang)
            o = row.outcome
            contract = cells["contract"]
            if cells["penalty"]:
                contract += f"\n{cells['penalty']}"
            if row.entry.provisional:  # a suspected ruling or a guessed card: not final yet
                contract += f"\n({lang.tr('provisional')})"
            values = {
                "deal": cells["deal"],
                "dealer": cells["dealer"],
                "contract": contract,
                "card_points": ""
                if not cells["card_points_0"]
                else f"{cells['card_points_0']} – {cells['card_points_1']}",
                "game_points": "" if o is None else f"{o.game_points[0]} – {o.game_points[1]}",
                "projects": cells["projects"],
                "baloot": cells["baloot"],
                "kaboot": cells["kaboot"],
                "winner": cells["winner"],
                "result": f"{row.result[0]} – {row.result[1]}",
                "total": f"{row.match[0]} – {row.match[1]}",
            }
            for c, (_, key) in enumerate(COLUMNS):
                item = QTableWidgetItem(lang.num(values[key]))
                item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
                if key == "winner" and row.winner_team is not None:
                    item.setForeground(QColor(theme.TEAM_COLOURS[row.winner_team]))
                if key == "total":
                    item.setForeground(QColor(theme.ACCENT))
                if row.entry.penalty and key == "contract":
                    item.setForeground(QColor("#ff6b6b"))
                self.table.setItem(r, c, item)
        self.table.resizeRowsToContents()
        if rows:
            self.table.scrollToBottom()
        self.undo_button.setEnabled(self.sheet.store.last_action(self.sheet.match_id) is not None)

    def selected(self) -> int | None:
        rows = self.table.selectionModel().selectedRows()
        if rows:
            return rows[0].row()
        return self.table.rowCount() - 1 if self.table.rowCount() else None

    def edit_selected(self) -> None:
        index = self.selected()
        if index is not None and self.on_edit is not None:
            self.on_edit(index)

    def delete_selected(self, sure: bool = False) -> None:
        """Delete the selected deal after asking (``sure``: without asking, as tests do)."""
        index = self.selected()
        if index is None:
            return
        if not sure:
            answer = QMessageBox.question(
                self, self.lang.tr("delete"), self.lang.tr("confirm_delete", n=index + 1)
            )
            if answer != QMessageBox.StandardButton.Yes:
                return
        try:
            self.sheet.delete(index)
        except EntryError as exc:
            self.message.say(lambda lang, why=str(exc): say(lang, why), "error", self.lang)
            return
        self.message.say(lambda lang: lang.tr("deleted", n=index + 1), "saved", self.lang)

    def undo(self) -> None:
        action = self.sheet.undo()
        if action:
            self.message.say(lambda lang: lang.tr("undone", action=action), "saved", self.lang)
        else:
            self.message.say(lambda lang: lang.tr("nothing_to_undo"), "info", self.lang)

    def new_match(self) -> None:
        self.sheet.new_match(self.sheet.next_dealer)

    def export(self, kind: str, path: str | None = None) -> Path | None:
        """Write the sheet as CSV, printable HTML or PDF; asks for a file unless given one."""
        if path is None:
            filters = {"csv": "CSV (*.csv)", "html": "HTML (*.html)", "pdf": "PDF (*.pdf)"}
            folder = exports_dir()
            try:
                folder.mkdir(parents=True, exist_ok=True)
            except OSError:
                folder = Path.home()
            path, _ = QFileDialog.getSaveFileName(
                self, self.lang.tr(f"export_{kind}"), str(folder / f"hakam-match.{kind}"),
                filters[kind],
            )  # fmt: skip
            if not path:
                return None
        rows = self.sheet.rows()
        self.message.clear_line()
        try:
            if kind == "csv":
                out = write_text(path, to_csv(rows, self.lang))
            else:
                html = to_html(rows, self.lang, self.lang.tr("app_title"), for_pdf=kind == "pdf")
                out = write_text(path, html) if kind == "html" else print_pdf(html, Path(path))
        except OSError as exc:
            why = f"export: cannot write {path} ({exc.strerror or exc})"
            self.message.say(lambda lang: say(lang, why), "error", self.lang)
            return None
        self.message.say(lambda lang: lang.tr("exported", path=str(out)), "saved", self.lang)
        return out


def print_pdf(html: str, path: Path) -> Path:
    """The printable sheet through QTextDocument and QPrinter (PDF output, A4 landscape)."""
    from PySide6.QtGui import QPageLayout, QPageSize
    from PySide6.QtPrintSupport import QPrinter

    printer = QPrinter(QPrinter.PrinterMode.HighResolution)
    printer.setOutputFormat(QPrinter.OutputFormat.PdfFormat)
    printer.setOutputFileName(str(path))
    printer.setPageSize(QPageSize(QPageSize.PageSizeId.A4))
    printer.setPageOrientation(QPageLayout.Orientation.Landscape)
    doc = QTextDocument()
    if ' dir="rtl"' in html[:300]:  # Arabic: every paragraph and the table right to left
        option = doc.defaultTextOption()
        option.setTextDirection(Qt.LayoutDirection.RightToLeft)
        doc.setDefaultTextOption(option)
    doc.setHtml(html)
    doc.print_(printer)
    return path
