"""Table mode in the window: a 4-deal match clip, each deal bid by clicking the New deal panel
(the camera fills in the open card), scored onto the sheet from what the camera saw."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPushButton

from hakam.engine.bidding import calls_for
from hakam.engine.contract import Contract
from hakam.gui.match_store import MatchStore
from hakam.gui.table_feed import SetupQueue
from hakam.gui.views.main_window import MainWindow, make_app
from hakam.vision.match import MatchPipeline
from hakam.vision.matchvideo import render_match
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
            assert w.tabs.currentWidget() is w.setup_view
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
