"""The overlay window: totals always on top, then Live, New deal, Score sheet and Dispute."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from PySide6.QtCore import QLibraryInfo, Qt, QTranslator
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QApplication,
    QFrame,
    QLabel,
    QMainWindow,
    QPushButton,
    QScrollArea,
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
from hakam.gui.messages import say
from hakam.gui.views import theme
from hakam.gui.views.deal_setup_view import DealSetupView
from hakam.gui.views.dispute_view import DisputeView
from hakam.gui.views.live_view import LiveView
from hakam.gui.views.score_sheet_view import ScoreSheetView, TotalsBar
from hakam.gui.views.sound import AlertSound
from hakam.gui.views.worker import FeedWorker

TABS = ("tab_live", "tab_setup", "tab_sheet", "tab_dispute")


def scrolling(view: QWidget) -> QScrollArea:
    """``view`` in a scroll area that fills what room there is and scrolls when there is
    less: a panel taller than the screen never grows the window past it."""
    area = QScrollArea()
    area.setWidgetResizable(True)
    area.setFrameShape(QFrame.Shape.NoFrame)
    area.setWidget(view)
    return area


# The room a window manager's frame takes around the window (borders; the title bar).
FRAME_ROOM = (16, 48)


def fit_to_screen(window: QWidget, width: int, height: int) -> None:
    """``window`` at ``width`` x ``height`` where its screen has room for it and its frame,
    else the room there is."""
    room = window.screen().availableGeometry()
    window.resize(min(width, room.width() - FRAME_ROOM[0]),
                  min(height, room.height() - FRAME_ROOM[1]))  # fmt: skip


class Pages(QTabWidget):
    """Tabs whose pages scroll (``scrolling``); asked by page, answered by page."""

    def __init__(self) -> None:
        super().__init__()
        self.areas: dict[QWidget, QScrollArea] = {}

    def add_page(self, view: QWidget, scroll: bool = True) -> None:
        """``scroll`` False: a page that scrolls its own part (the New deal steps, above their
        buttons) and keeps the rest in sight."""
        self.areas[view] = scrolling(view) if scroll else view
        self.addTab(self.areas[view], "")

    def take_page(self, view: QWidget) -> QWidget:
        """The page out of the tabs, in its scroll area (table mode docks it elsewhere)."""
        self.removeTab(self.indexOf(view))
        return self.areas[view]

    def indexOf(self, widget: QWidget) -> int:
        return super().indexOf(self.areas.get(widget, widget))

    def setCurrentWidget(self, widget: QWidget) -> None:
        super().setCurrentWidget(self.areas.get(widget, widget))

    def currentWidget(self) -> QWidget:
        area = super().currentWidget()
        return next((v for v, a in self.areas.items() if a is area), area)


class MainWindow(QMainWindow):
    """Builds the controllers on one match store and wires the views to them."""

    def __init__(self, store: MatchStore | None = None, language: str | None = None) -> None:
        super().__init__()
        self.store = store or MatchStore()
        code = language or self.store.setting("language", "en") or "en"
        self.lang = Language(code, self.store.setting("digits", "western") or "western")
        self.sheet = ScoreSheetController(self.store)
        self.setup = DealSetupController(self.sheet)
        self.live = LiveController(self.sheet, self.setup)
        self.sound = AlertSound(self)
        self.worker: FeedWorker | None = None
        self.table_run: tuple[int, str, str] | None = None  # table mode: (match id, key, out)
        self._calibration_source: str | None = None
        self._on_stop: Any = None
        self._deck: str | None = None  # the learnt deck the camera reads with (table mode)
        self._events_log: Any = None  # table mode: out/events.jsonl, appended
        self.publisher: Any = None  # table mode with --publish: the tournament's broker

        central = QWidget()
        layout = QVBoxLayout(central)
        layout.setContentsMargins(6, 6, 6, 0)
        self.totals = TotalsBar(self.sheet, self.lang)
        layout.addWidget(self.totals)
        self.tabs = Pages()
        self.live_view = LiveView(self.live, self.lang)
        self.setup_view = DealSetupView(self.setup, self.lang)
        self.sheet_view = ScoreSheetView(self.sheet, self.lang, on_edit=self.edit_deal)
        self.dispute_view = DisputeView(self.live, self.lang)
        for view in (self.live_view, self.setup_view, self.sheet_view, self.dispute_view):
            # The live view fits as it is (its picture shrinks); New deal scrolls its steps.
            self.tabs.add_page(view, scroll=view not in (self.live_view, self.setup_view))
        layout.addWidget(self.tabs, 1)
        self.setCentralWidget(central)

        self.rate = QLabel()
        self.lang_button = QPushButton()
        self.lang_button.setObjectName("language")
        self.lang_button.clicked.connect(self.toggle_language)
        self.digits_button = QPushButton()  # Arabic: ٠-٩ or 0-9, the user's choice
        self.digits_button.setObjectName("digits")
        self.digits_button.clicked.connect(self.toggle_digits)
        self.statusBar().addWidget(self.rate, 1)
        self.statusBar().addPermanentWidget(self.digits_button)
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

    def show_on_screen(self) -> None:
        """Shown at its size where the screen has room for it and its frame, else maximised: a
        window manager places a 1600x960 window as asked on a 1366x768 laptop, past the
        screen's edges (its title bar's height and more below the screen)."""
        room = self.screen().availableGeometry()
        if (
            self.width() + FRAME_ROOM[0] > room.width()
            or self.height() + FRAME_ROOM[1] > room.height()
        ):
            self.showMaximized()
        else:
            self.show()

    def toggle_full_screen(self) -> None:
        self.showNormal() if self.isFullScreen() else self.showFullScreen()

    def _alert(self, _w: Warning) -> None:
        self.sound.play()
        if self.tabs.currentWidget() is not self.dispute_view:  # a dispute being settled stays
            self.tabs.setCurrentWidget(self.live_view)

    def edit_deal(self, index: int) -> None:
        self.setup.edit(index)
        if self.tabs.indexOf(self.setup_view) < 0:  # table mode: the panel is in the live view
            self._panel(True)
            self.tabs.setCurrentWidget(self.live_view)
            return
        self.tabs.setCurrentWidget(self.setup_view)

    def toggle_digits(self) -> None:
        self.lang.set_digits("western" if self.lang.digits == "arabic" else "arabic")
        self.store.set_setting("digits", self.lang.digits)

    def toggle_language(self) -> None:
        self.lang.toggle()
        self.store.set_setting("language", self.lang.code)

    def retranslate(self) -> None:
        rtl = self.lang.rtl
        direction = Qt.LayoutDirection.RightToLeft if rtl else Qt.LayoutDirection.LeftToRight
        app = QApplication.instance()
        if isinstance(app, QApplication):
            app.setLayoutDirection(direction)
            use_qt_language(self.lang.code)
        self.setLayoutDirection(direction)
        self.setWindowTitle(self.lang.tr("app_title"))
        views = (self.live_view, self.setup_view, self.sheet_view, self.dispute_view)
        for view, key in zip(views, TABS, strict=True):
            i = self.tabs.indexOf(view)
            if i >= 0:  # in table mode the bidding is docked in the live view
                self.tabs.setTabText(i, self.lang.tr(key))
        self.lang_button.setText(self.lang.tr("language"))
        self.digits_button.setVisible(self.lang.rtl)
        # the button shows the style it switches to
        self.digits_button.setText("0-9" if self.lang.digits == "arabic" else "٠-٩")
        self.totals.refresh()
        self._show_rate()

    def show_deck(self, name: str | None) -> None:
        """Say in the status bar which learnt deck the camera reads with (None: the standard
        readers, said by nothing)."""
        self._deck = name
        self._show_rate()

    def _show_rate(self) -> None:
        if self.live.fps is None or self.live.detector_ms is None:
            text = self.lang.tr("no_feed")
        else:
            text = self.lang.tr("fps", fps=self.live.fps, ms=self.live.detector_ms)
        if self._deck is not None:  # the name kept left to right inside Arabic
            text += " · " + self.lang.tr("reading_deck", name=f"\u2066{self._deck}\u2069")
        self.rate.setText(text)

    # --- the camera feed ------------------------------------------------------------------

    def feed_item(self, item: FeedItem) -> None:
        """One item from the pipeline (GUI thread): the frame first, then its events, then (in
        table mode) the match's state, committed to the store."""
        # A tournament's outbox first: nothing the state commits is missing from it. A crash
        # between the two sends the events made again after it too; the board's view takes
        # them as repeats (a deal's score replaces its last; rulings are keyed).
        if item.events and self.publisher is not None:
            self.publisher.update(item.events)
        # The match's state first: a crash after it loses nothing (a deal scored in it that
        # the sheet has not yet is written at the restart), never a deal counted twice.
        if item.state is not None and self.table_run is not None:
            match_id, key, out = self.table_run
            self.store.save_table_run(match_id, key, out, item.state)
            first = item.state.get("first_dealer")
            if self._calibration_source is not None and first is not None:
                from hakam.gui.start import bind_calibration_seat

                # A calibration clicked for this match: its second click was this match's
                # first dealer's seat, and says so to the matches after it.
                bind_calibration_seat(self.store, self._calibration_source, int(first))
                self._calibration_source = None
        if item.events and self._events_log is not None:  # the Dispute tab after a restart
            for e in item.events:
                self._events_log.write(json.dumps(e, ensure_ascii=False) + "\n")
            self._events_log.flush()
        if item.frame is not None:
            self.live.on_frame(item.frame, item.detections)
        if item.events:
            self.live.on_events(item.events)
            self._follow_match(item.events)

    def _follow_match(self, events: list[dict[str, Any]]) -> None:
        """Table mode: the panel comes up when the next deal's open card is read, the live
        view when its play starts; the winner is said when the match is decided."""
        for e in events:
            if e.get("type") in ("score", "void") and e.get("deal") in self.live.not_counted:
                deal = e["deal"]
                self.statusBar().showMessage(self.lang.tr("not_counted", deal=deal))
        if self.table_run is None:
            return
        for e in events:
            kind = e.get("type")
            if (kind == "open_card" and e.get("waiting")) or kind in ("end", "void"):
                # the next deal is bid (its open card read, or to be picked by hand)
                self.tabs.setCurrentWidget(self.live_view)
                self._panel(True)
            elif kind == "deal" and e.get("contract") is not None:  # the deal is played
                self.tabs.setCurrentWidget(self.live_view)
                self._panel(False)
            elif kind == "source" and e.get("text"):  # the camera lost, or back
                self.statusBar().showMessage(say(self.lang, str(e["text"])))
            elif kind == "match":  # decided: no deal after it, no panel for one
                self._panel(False)
                a, b = e["match"]
                team = self.lang.team(int(e["winner"]))
                self.statusBar().showMessage(self.lang.tr("match_won", team=team, a=a, b=b))

    def table_feed(
        self,
        match: Any,
        frames: Iterable[Any],
        run: tuple[int, str, str],
        setups: Any,
        hold: bool = True,
        keep_open: bool = False,
    ) -> Iterator[FeedItem]:
        """Table mode: the feed of ``match`` (a ``MatchPipeline`` set up by ``setups``, a
        ``SetupQueue``) on ``frames``, each deal bid in the New deal panel and played on
        camera; ``run`` is (match id, key, out folder) of the match in the store; ``hold``: a
        recording waits while the table bids. ``start_table`` runs it on the worker."""
        import queue

        from hakam.gui.table_feed import table_feed

        match_id, _, _ = run
        if self.sheet.match_id != match_id:
            self.sheet.open_match(match_id)
        self.table_run = run
        self._catch_up(match)
        log = Path(run[2]) / f"match-{run[0]}.events.jsonl"  # this match's, not another's
        if log.is_file() and (match.rows or match.current is not None):
            self.live.restore(_read_events(log))
        log.parent.mkdir(parents=True, exist_ok=True)
        self._events_log = log.open("a", encoding="utf-8")
        # The rotation's dealer; the first deal's is the table's choice (tapped in the panel).
        # Before the first deal is played, the seats' names where the dealer picked sits; once
        # it is sent, where its dealer sits (the panel has moved on to the next dealer, and the
        # camera's thread says the match's first dealer when it takes the deal).
        first: list[int] = []

        def send(line: dict) -> None:
            if match.first_dealer is None and not first:
                first.append(int(line["dealer"]))
            setups.put(line)

        def seats() -> None:
            dealer = first[0] if first else self.setup.dealer
            self.live.seats_before_play(match.table_geometry(dealer))

        self.setup.play_on_camera(send, match.next_dealer)
        self.setup.subscribe(seats)
        seats()
        corrections: queue.Queue = queue.Queue()
        self.live.subscribe_corrections(corrections.put)
        if self.tabs.indexOf(self.setup_view) >= 0:  # the bidding panel under the picture
            self.live_view.dock(self.tabs.take_page(self.setup_view))
        self._panel(match.current is None)
        self.tabs.setCurrentWidget(self.live_view)
        return table_feed(match, frames, setups, corrections, hold, keep_open)

    def _panel(self, shown: bool) -> None:
        """Table mode: the bidding panel docked under the picture, up or away."""
        area = self.tabs.areas[self.setup_view]
        area.setVisible(shown)

    def _catch_up(self, match: Any) -> None:
        """After a restart: the deals the match scored that the sheet does not have yet (the
        process ended between the two) go on the sheet as the camera scored them."""
        from hakam.gui.models import row_entry

        for row in match.rows[len(self.sheet.sheet.deals) :]:
            self.sheet.add(row_entry(row))

    def publish_to(self, publisher: Any) -> None:
        """Table mode in a tournament: the match's events and the table's decisions on rulings
        go to ``publisher`` (``hakam.board.publisher.Publisher``)."""
        self.publisher = publisher
        self.live.subscribe_decisions(publisher.update)

    def start_table(
        self,
        *args: Any,
        max_fps: float | None = None,
        on_stop: Any = None,
        calibration_source: str | None = None,
        **kw: Any,
    ) -> FeedWorker:
        """``table_feed`` on the worker thread; ``on_stop`` (closing the camera, so that a
        camera being waited for stops being waited for) is called when the feed is stopped;
        ``calibration_source``: the source whose saved calibration was clicked for this match
        (the seat it marks is bound once the first deal says who dealt it)."""
        self._on_stop = on_stop
        self._calibration_source = calibration_source
        # The window's run: a dispute may correct a deal after the match or recording ends.
        return self.start_feed(self.table_feed(*args, **{"keep_open": True, **kw}), max_fps)

    def _stats(self, fps: float, ms: float) -> None:
        self.live.on_stats(fps, ms)
        self._show_rate()

    def start_feed(self, feed: Iterable[FeedItem], max_fps: float | None = None) -> FeedWorker:
        """Consume ``feed`` on a worker thread; items arrive here by queued signal."""
        self.stop_feed()
        self.worker = FeedWorker(feed, max_fps)
        self.worker.item.connect(self.feed_item)
        self.worker.stats.connect(self._stats)
        # Corrections reach a pipeline while its feed runs (it runs on after the deal).
        self.live.feed_running(True)
        worker = self.worker  # a feed stopped for another: its end says nothing of the new one
        worker.finished.connect(
            lambda: self.live.feed_running(False) if self.worker in (None, worker) else None
        )
        self.worker.start()
        return self.worker

    def stop_feed(self) -> None:
        on_stop, self._on_stop = self._on_stop, None
        if on_stop is not None and self.worker is not None:
            on_stop()
        if self.worker is not None:
            self.worker.requestInterruption()
            self.worker.wait(5000)
            self.worker = None

    def closeEvent(self, event) -> None:
        self.stop_feed()
        if self._events_log is not None:
            self._events_log.close()
            self._events_log = None
        super().closeEvent(event)


def _read_events(path: Path) -> list[dict[str, Any]]:
    """The events a table-mode window logged (a line cut short by a crash is left out)."""
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return out


_QT_TRANSLATOR: list[QTranslator] = []  # Qt's own strings (file dialogs, message boxes)


def use_qt_language(code: str) -> bool:
    """Qt's own dialogs in ``code`` (its translations ship with PySide6); True if found."""
    app = QApplication.instance()
    for old in _QT_TRANSLATOR:
        app.removeTranslator(old)
    _QT_TRANSLATOR.clear()
    if code == "en":
        return True
    translator = QTranslator()
    folder = QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)
    if not translator.load(f"qtbase_{code}", folder):
        return False
    app.installTranslator(translator)
    _QT_TRANSLATOR.append(translator)
    return True


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
    window.show_on_screen()
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
