"""The overlay window: totals always on top, then Live, New deal, Score sheet and Dispute."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QApplication,
    QLabel,
    QMainWindow,
    QPushButton,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from hakam.gui.controllers import (
    DealSetupController,
    LiveController,
    ScoreSheetController,
    Warning,
)
from hakam.gui.feed import FeedItem
from hakam.gui.i18n import Language
from hakam.gui.match_store import MatchStore
from hakam.gui.views import theme
from hakam.gui.views.deal_setup_view import DealSetupView
from hakam.gui.views.dispute_view import DisputeView
from hakam.gui.views.live_view import LiveView
from hakam.gui.views.score_sheet_view import ScoreSheetView, TotalsBar
from hakam.gui.views.sound import AlertSound
from hakam.gui.views.worker import FeedWorker

TABS = ("tab_live", "tab_setup", "tab_sheet", "tab_dispute")


class MainWindow(QMainWindow):
    """Builds the controllers on one match store and wires the views to them."""

    def __init__(self, store: MatchStore | None = None, language: str | None = None) -> None:
        super().__init__()
        self.store = store or MatchStore()
        code = language or self.store.setting("language", "en") or "en"
        self.lang = Language(code)
        self.sheet = ScoreSheetController(self.store)
        self.setup = DealSetupController(self.sheet)
        self.live = LiveController(self.sheet, self.setup)
        self.sound = AlertSound(self)
        self.worker: FeedWorker | None = None

        central = QWidget()
        layout = QVBoxLayout(central)
        layout.setContentsMargins(6, 6, 6, 0)
        self.totals = TotalsBar(self.sheet, self.lang)
        layout.addWidget(self.totals)
        self.tabs = QTabWidget()
        self.live_view = LiveView(self.live, self.lang)
        self.setup_view = DealSetupView(self.setup, self.lang)
        self.sheet_view = ScoreSheetView(self.sheet, self.lang, on_edit=self.edit_deal)
        self.dispute_view = DisputeView(self.live, self.lang)
        for view in (self.live_view, self.setup_view, self.sheet_view, self.dispute_view):
            self.tabs.addTab(view, "")
        layout.addWidget(self.tabs, 1)
        self.setCentralWidget(central)

        self.rate = QLabel()
        self.lang_button = QPushButton()
        self.lang_button.setObjectName("language")
        self.lang_button.clicked.connect(self.toggle_language)
        self.statusBar().addWidget(self.rate, 1)
        self.statusBar().addPermanentWidget(self.lang_button)
        self.live.subscribe_alert(self._alert)
        self.lang.subscribe(self.retranslate)
        self._shortcuts()
        self.resize(1600, 960)
        self.retranslate()

    # --- behaviour ----------------------------------------------------------------------

    def _shortcuts(self) -> None:
        """Ctrl+Z undoes the sheet's last change, Delete deletes the selected deal (after
        asking), Ctrl+E exports the sheet as PDF, F11 toggles full screen."""
        for keys, action in (
            (QKeySequence.StandardKey.Undo, self.sheet_view.undo),
            (QKeySequence(Qt.Key.Key_Delete), self._delete_key),
            (QKeySequence("Ctrl+E"), lambda: self.sheet_view.export("pdf")),
            (QKeySequence(Qt.Key.Key_F11), self.toggle_full_screen),
        ):
            QShortcut(keys, self, activated=action)

    def _delete_key(self) -> None:
        if self.tabs.currentWidget() is self.sheet_view:
            self.sheet_view.delete_selected()

    def toggle_full_screen(self) -> None:
        self.showNormal() if self.isFullScreen() else self.showFullScreen()

    def _alert(self, _w: Warning) -> None:
        self.sound.play()
        self.tabs.setCurrentWidget(self.live_view)

    def edit_deal(self, index: int) -> None:
        self.setup.edit(index)
        self.tabs.setCurrentWidget(self.setup_view)

    def toggle_language(self) -> None:
        self.lang.toggle()
        self.store.set_setting("language", self.lang.code)

    def retranslate(self) -> None:
        rtl = self.lang.rtl
        direction = Qt.LayoutDirection.RightToLeft if rtl else Qt.LayoutDirection.LeftToRight
        app = QApplication.instance()
        if isinstance(app, QApplication):
            app.setLayoutDirection(direction)
        self.setLayoutDirection(direction)
        self.setWindowTitle(self.lang.tr("app_title"))
        for i, key in enumerate(TABS):
            self.tabs.setTabText(i, self.lang.tr(key))
        self.lang_button.setText(self.lang.tr("language"))
        self.totals.refresh()
        self._show_rate()

    def _show_rate(self) -> None:
        if self.live.fps is None or self.live.detector_ms is None:
            self.rate.setText(self.lang.tr("no_feed"))
        else:
            self.rate.setText(self.lang.tr("fps", fps=self.live.fps, ms=self.live.detector_ms))

    # --- the camera feed ------------------------------------------------------------------

    def feed_item(self, item: FeedItem) -> None:
        """One item from the pipeline (GUI thread): the frame first, then its events."""
        if item.frame is not None:
            self.live.on_frame(item.frame, item.detections)
        if item.events:
            self.live.on_events(item.events)

    def _stats(self, fps: float, ms: float) -> None:
        self.live.on_stats(fps, ms)
        self._show_rate()

    def start_feed(self, feed: Iterable[FeedItem], max_fps: float | None = None) -> FeedWorker:
        """Consume ``feed`` on a worker thread; items arrive here by queued signal."""
        self.stop_feed()
        self.worker = FeedWorker(feed, max_fps)
        self.worker.item.connect(self.feed_item)
        self.worker.stats.connect(self._stats)
        self.worker.start()
        return self.worker

    def stop_feed(self) -> None:
        if self.worker is not None:
            self.worker.requestInterruption()
            self.worker.wait(5000)
            self.worker = None

    def closeEvent(self, event) -> None:
        self.stop_feed()
        super().closeEvent(event)


def make_app(argv: list[str] | None = None) -> QApplication:
    app = QApplication.instance()
    if not isinstance(app, QApplication):
        app = QApplication(argv or ["hakam"])
    app.setStyleSheet(theme.STYLE)
    return app


def run(
    data_dir: str | None = None,
    language: str | None = None,
    demo: bool = False,
    fps: float = 4.0,
    feed: Iterable[FeedItem] | None = None,
    on_correction: Callable[[dict[str, Any]], None] | None = None,
) -> int:
    """``hakam gui``: open the window; with ``demo`` the bundled match plays as if filmed, with
    ``feed`` (``hakam run`` without ``--headless``) the camera pipeline drives the live view."""
    app = make_app()
    store = MatchStore(Path(data_dir) / "matches.sqlite3" if data_dir else None)
    window = MainWindow(store, language)
    window.show()
    if on_correction is not None:  # the pipeline takes the table's one-click corrections
        window.live.subscribe_corrections(on_correction)
    if feed is not None:
        window.start_feed(feed, max_fps=fps or None)
    elif demo:
        import tempfile

        from hakam.gui.feed import demo_feed

        evidence = Path(tempfile.mkdtemp(prefix="hakam-evidence-"))
        window.start_feed(demo_feed(evidence_dir=evidence), max_fps=fps)
    return app.exec()
