"""Table mode in the window: a 4-deal match clip, each deal bid by clicking the New deal panel
(the camera fills in the open card), scored onto the sheet from what the camera saw."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPushButton

from hakam.engine.bidding import calls_for
from hakam.engine.contract import Contract
from hakam.gui.controllers import DisputeController
from hakam.gui.match_store import MatchStore
from hakam.gui.models import EntryError
from hakam.gui.table_feed import SetupQueue
from hakam.gui.views.main_window import MainWindow, make_app
from hakam.vision.match import MatchPipeline
from hakam.vision.matchvideo import render_match, write_match_clip
from hakam.vision.oracle import LabelDetector
from hakam.vision.sources import Frame


@pytest.fixture(scope="module")
def match4():
    """Four deals (the first three of seed 3) and, as deal 3, one all four passed."""
    return render_match(3, 5, pixels=False, voids={3})


def frames(m):
    for i, image in enumerate(m.frames):
        yield Frame(i, i / m.fps, image)


def bid_in_panel(qtbot, window, deal):
    """Click the panel's buttons for a bidding that buys the deal's contract, then start it."""
    record = deal.record
    view = window.setup_view
    if record["contract"] is None:  # all pass, twice round, and the deal goes on
        calls = [c for _, c in record["bids"]]
    else:
        calls = [c for _, c in calls_for(Contract.from_json(record["contract"]),
                                         record["open_card"][-1])]  # fmt: skip
    for call in calls:
        # The panel's buttons for this call, as shown (the last call's are deleted later).
        def shown(call=call):
            return [b for b in view.findChildren(QPushButton, f"call-{call}") if b.isVisible()]

        qtbot.waitUntil(lambda: len(shown()) == 1, timeout=2000)
        qtbot.mouseClick(shown()[0], Qt.MouseButton.LeftButton)
    if record["contract"] is None:
        assert window.setup.phase == "void"
        qtbot.waitUntil(lambda: bool(void_button(view)), timeout=2000)
        qtbot.mouseClick(void_button(view)[0], Qt.MouseButton.LeftButton)
        return
    assert window.setup.contract().to_json() == record["contract"]
    qtbot.mouseClick(view.record_button, Qt.MouseButton.LeftButton)


def void_button(view):
    return [b for b in view.findChildren(QPushButton, "record-void") if b.isVisible()]


def test_a_match_in_the_window_with_the_bids_tapped_in_the_panel(qtbot, data_dir, match4):
    """Five deals, one all passed, each bid by clicking the panel: the sheet is the truth's."""
    make_app()
    store = MatchStore()
    first = match4.deals[0].record["dealer"]
    match_id = store.new_match(first)
    w = MainWindow(store, "en")
    qtbot.addWidget(w)
    w.show()
    setups = SetupQueue()
    match = MatchPipeline(LabelDetector(match4.labels), setups, calibration=match4.calibration,
                          fps=match4.fps)  # fmt: skip
    feed = w.table_feed(match, frames(match4), (match_id, "test", str(data_dir)), setups)
    assert w.setup.dealer == first and w.setup.table_mode
    bid = idle = 0
    for item in feed:  # the worker thread's job, done inline so the test is deterministic
        w.feed_item(item)
        idle = idle + 1 if item.frame is None else 0
        assert idle < 20, "the feed waits for a set-up the panel did not get"
        if w.setup.phase == "bidding" and not w.setup.bids and bid < 5:
            deal = match4.deals[bid]
            # The camera read the open card on the stock and the panel opened with it.
            assert w.setup.open_card == deal.record["open_card"] == w.setup.camera_open_card
            assert w.setup.dealer == deal.record["dealer"]
            assert w.tabs.currentWidget() is w.live_view and w.setup_view.isVisible()
            assert w.tabs.indexOf(w.setup_view) < 0  # docked under the picture
            bid_in_panel(qtbot, w, deal)
            bid += 1
    assert bid == 5
    truth = match4.sheet()
    rows = w.sheet.rows()
    assert [list(r.result) for r in rows] == [d["result"] for d in truth["deals"]]
    assert list(w.sheet.totals) == truth["match"]
    assert rows[2].entry.void and list(rows[2].result) == [0, 0]
    assert [r.entry.bids for r in rows] == [
        tuple(tuple(b) for b in d.record["bids"]) if d.record["contract"] is None
        else tuple(calls_for(Contract.from_json(d.record["contract"]), d.record["open_card"][-1]))
        for d in match4.deals
    ]  # fmt: skip
    # The store has the sheet and the match's state (what a restart goes on from).
    again = MatchStore()
    assert [list(r.result) for r in again.load(match_id).rows()] == [list(r.result) for r in rows]
    assert again.table_run("test") is not None


def drive(qtbot, w, feed, match5, bid, stop=None):
    """Feed the window inline, bidding each deal through the panel when the camera has read
    its open card; returns the deals bid so far. ``stop(w)``: break off there (a crash)."""
    idle = 0
    for item in feed:
        w.feed_item(item)
        idle = idle + 1 if item.frame is None else 0
        assert idle < 20, "the feed waits for a set-up the panel did not get"
        if stop is not None and stop(w):
            return bid
        if w.setup.phase == "bidding" and not w.setup.bids and bid < len(match5.deals):
            assert w.setup.open_card == match5.deals[bid].record["open_card"]
            if w.setup.dealer != match5.deals[bid].record["dealer"]:
                assert bid == 0  # the first deal's dealer is the table's to tap, then it rotates
                w.setup.set_dealer(match5.deals[bid].record["dealer"])
            bid_in_panel(qtbot, w, match5.deals[bid])
            bid += 1
    return bid


def window_on(store, match_id, match5, state=None):
    out = Path(store.path).parent / "table-out"
    w = MainWindow(store, "en")
    w.show()
    setups = SetupQueue()
    start = 0 if state is None else state["frame"] + 1
    match = MatchPipeline(LabelDetector(match5.labels, start=start), setups,
                          calibration=match5.calibration, fps=match5.fps, state=state,
                          calibration_seat=match5.deals[0].record["dealer"])  # fmt: skip
    frames = (Frame(i, i / match5.fps, im) for i, im in enumerate(match5.frames) if i >= start)
    return w, w.table_feed(match, frames, (match_id, "crash", str(out)), setups)


def test_a_window_killed_mid_match_goes_on_to_the_same_sheet(qtbot, data_dir, match4):
    """The window is dropped (as by kill -9) mid deal 2 with deal 1 on the sheet, and again
    with the bids of deal 4 half tapped, and once its last deal's score is in the store's state
    but not yet on its sheet: each time a new window on the stored state ends the match with
    the truth's sheet, the half-tapped bids kept, no deal written twice."""
    make_app()
    store = MatchStore()
    match_id = store.new_match(match4.deals[0].record["dealer"])
    w, feed = window_on(store, match_id, match4)
    qtbot.addWidget(w)
    bid = drive(qtbot, w, feed, match4, 0, stop=lambda w: w.live.current is not None
                and w.live.current.number == 2 and len(w.live.current.tricks) >= 3)  # fmt: skip
    assert bid == 2
    state = store.table_run("crash")[2]
    w, feed = window_on(MatchStore(), match_id, match4, state)
    qtbot.addWidget(w)
    assert len(w.sheet.rows()) == 1

    def half_bid(w):
        if w.setup.phase == "bidding" and w.setup.open_card == match4.deals[3].record["open_card"]:
            w.setup.call("pass")  # the first call of deal 4, then the crash
            return True
        return False

    bid = drive(qtbot, w, feed, match4, bid, stop=half_bid)
    assert bid == 3
    state = store.table_run("crash")[2]
    w, feed = window_on(MatchStore(), match_id, match4, state)
    qtbot.addWidget(w)
    assert len(w.setup.bids) == 1  # the half-tapped bidding was kept
    w.setup.undo_call()  # the test's panel helper taps the whole bidding
    bid = drive(qtbot, w, feed, match4, bid, stop=lambda w: len(w.sheet.rows()) == 5)
    # The last deal scored: take it off the sheet as if the process had died before writing
    # it (the state has it), then start again.
    sheet = MatchStore().load(match_id)
    sheet.deals.pop()
    MatchStore().save(match_id, sheet, "test", sheet)
    state = store.table_run("crash")[2]
    w, feed = window_on(MatchStore(), match_id, match4, state)
    qtbot.addWidget(w)
    drive(qtbot, w, feed, match4, bid)
    truth = match4.sheet()
    assert [list(r.result) for r in w.sheet.rows()] == [d["result"] for d in truth["deals"]]
    assert [list(r.result) for r in MatchStore().load(match_id).rows()] == [
        d["result"] for d in truth["deals"]
    ]
    # Every deal played opens in the Dispute tab, those before the restarts too.
    dispute = DisputeController(w.live)
    assert dispute.deal_numbers() == [1, 2, 4, 5]
    assert all(len(dispute.tricks(n)) == 8 for n in (1, 2, 4, 5))
    assert all(dispute.audit(n).agrees for n in (1, 2, 4, 5))


def test_in_table_mode_the_dealer_is_the_rotations(qtbot, data_dir, match4):
    """The first deal's dealer is the table's choice; after it the deal passes to the right."""
    make_app()
    store = MatchStore()
    match_id = store.new_match(0)
    w, _ = window_on(store, match_id, match4)
    qtbot.addWidget(w)
    deal = match4.deals[0].record
    first = deal["dealer"]
    w.setup.set_dealer(first)  # any seat may deal first
    w.setup.set_open_card(deal["open_card"])
    for _, call in calls_for(Contract.from_json(deal["contract"]), deal["open_card"][-1]):
        w.setup.call(call)
    w.setup.start_deal()
    assert w.setup.dealer == (first + 1) % 4
    with pytest.raises(EntryError, match=f"seat {(first + 1) % 4} deals this deal"):
        w.setup.set_dealer(first)
    assert w.setup.dealer == (first + 1) % 4


def test_hakam_table_on_a_video_runs_the_match_in_the_window(qtbot, data_dir, tmp_path,
                                                              monkeypatch):  # fmt: skip
    """``hakam table --source VIDEO --calibration T`` end to end: the store's match, the window
    fed (inline here, bids through the panel), the sheet; run again, it goes on with it."""
    import hakam.gui.views.main_window as main_window
    from hakam.cli import main

    m = render_match(3, 2, pixels=False)
    video = tmp_path / "clip.mp4"
    write_match_clip(m, video, black=True)
    windows = []

    def start_table(self, *args, max_fps=None, on_stop=None, calibration_source=None, **kw):
        windows.append(self)
        drive(qtbot, self, self.table_feed(*args, **kw), m, 0)

    monkeypatch.setattr(main_window.MainWindow, "start_table", start_table)
    monkeypatch.setattr(main_window.QApplication, "exec", lambda self: 0)
    args = ["table", "--source", str(video), "--calibration", str(tmp_path / "clip.toml"),
            "--detector", "oracle", "--labels", str(tmp_path / "clip.labels.json"),
            "--out", str(tmp_path / "out")]  # fmt: skip
    assert main(args) == 0
    truth = m.sheet()
    assert [list(r.result) for r in windows[0].sheet.rows()] == [
        d["result"] for d in truth["deals"]
    ]
    assert (tmp_path / "out" / "deal-02" / "deal.json").is_file()
    assert list((tmp_path / "out").glob("match-*.events.jsonl"))  # the Dispute tab's log
    store = MatchStore()
    assert store.table_run(f"table|{video}") is not None
    assert main(args) == 0  # again: the same match, nothing more to play, nothing added
    assert [list(r.result) for r in windows[1].sheet.rows()] == [
        d["result"] for d in truth["deals"]
    ]


def test_a_lost_camera_is_said_in_table_mode(qtbot, data_dir, match4):
    """A feed item with events and no state (the camera unplugged, or a correction taken while
    the table bids) is shown, not dropped by an error."""
    from hakam.gui.feed import FeedItem

    make_app()
    store = MatchStore()
    w, _ = window_on(store, store.new_match(0), match4)
    qtbot.addWidget(w)
    text = "camera 0: stopped delivering frames after 12: the deal waits for the camera"
    w.feed_item(FeedItem(None, [], [{"type": "source", "event": "source", "text": text,
                                      "lost": True}], None, None))  # fmt: skip
    assert w.statusBar().currentMessage() == "C" + text[1:]  # a sentence in the window


def test_the_windows_table_feed_takes_corrections_after_the_recording_ends():
    # A recording over (here: no frames at all), the window's feed (``keep_open``) still takes
    # the table's corrections, each answered (here refused: no deal was refereed), until its
    # input closes; a feed that is not the window's ends with the recording.
    import queue

    from hakam.gui.table_feed import SetupQueue, table_feed
    from hakam.vision.correction_queue import NO_MORE_CORRECTIONS
    from hakam.vision.match import MatchPipeline
    from hakam.vision.oracle import LabelDetector

    for keep_open in (False, True):
        setups, answers = SetupQueue(), queue.Queue()
        match = MatchPipeline(LabelDetector([]), setups)
        feed = table_feed(match, iter(()), setups, answers, hold=False, keep_open=keep_open)
        first = [next(feed), next(feed)]  # the start, then the end of the recording
        assert first[1].state is not None
        answers.put({"card": "7S", "seat": 0, "deal": 1, "trick": 1})
        answers.put(NO_MORE_CORRECTIONS)
        said = [e["text"] for item in feed for e in item.events if e["type"] == "uncertain"]
        assert said == (["correction: deal 1 has not started"] if keep_open else [])


def test_before_the_first_deal_the_seats_are_where_the_dealer_picked_sits(qtbot, data_dir, match4):
    """A calibration not played with yet marks the first dealer's seat: the live picture names
    the seats as the dealer the table picks in the panel places them, before any deal."""
    from hakam.vision.seats import SeatMap

    make_app()
    store = MatchStore()
    match_id = store.new_match(0)
    w = MainWindow(store, "en")
    qtbot.addWidget(w)
    setups = SetupQueue()
    match = MatchPipeline(LabelDetector(match4.labels), setups, calibration=match4.calibration,
                          fps=match4.fps)  # fmt: skip
    w.table_feed(match, iter(()), (match_id, "seats", str(data_dir)), setups)
    for dealer in (w.setup.dealer, 2, 0):  # as the panel opens, then as the table picks
        w.setup.set_dealer(dealer)
        point = SeatMap(match4.calibration, dealer).seat_point(dealer, 0.9)
        assert w.live.table["seats"][dealer] == [round(v, 1) for v in point]
    # The deal bid and played on camera: the panel moves on to the next dealer, and the seats
    # stay where this deal's dealer placed them until the deal brings its own.
    before = w.live.table
    w.setup.set_open_card("9H")
    w.setup.call("hokum")
    for _ in range(3):
        w.setup.call("pass")
    w.setup.start_deal()
    assert w.setup.dealer == 1 and w.live.table == before


def test_the_seats_names_in_a_small_picture_do_not_run_together(qtbot):
    """The bidding docked under the picture at 1366x768 leaves it about 296x166: the four names,
    each as wide as itself and kept inside the picture, stay apart."""
    from PySide6.QtCore import QPointF, QRectF
    from PySide6.QtGui import QFont, QFontMetrics

    from hakam.gui.views.live_view import seat_rects

    make_app()
    target = QRectF(366, 194, 296, 166)
    font = QFont()
    font.setPointSize(9)
    font.setBold(True)
    metrics = QFontMetrics(font)
    names = ["Seat 0 · South", "Seat 1 · East", "▶ Seat 2 · North", "Seat 3 · West"]
    sizes = [(metrics.horizontalAdvance(n) + 16, metrics.height() + 8) for n in names]
    c = target.center()
    points = [QPointF(c.x(), target.bottom() + 40), QPointF(target.right() + 60, c.y()),
              QPointF(c.x(), target.top() - 40), QPointF(target.left() - 60, c.y())]  # fmt: skip
    rects = seat_rects(points, sizes, target)
    assert all(target.contains(r) for r in rects)
    assert not any(a.intersects(b) for i, a in enumerate(rects) for b in rects[i + 1 :])
