"""The window driven offscreen through a full deal: bidding, live events, warning, sheet,
edit, undo, restart from disk, language switch."""

from __future__ import annotations

import itertools

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QPushButton

from hakam.engine.replay import load_match, replay_match
from hakam.gui.feed import FeedItem, demo_feed
from hakam.gui.match_store import MatchStore
from hakam.gui.views.main_window import MainWindow, make_app


@pytest.fixture
def window(qtbot, data_dir):
    make_app()
    w = MainWindow(MatchStore(), "en")
    qtbot.addWidget(w)
    w.show()
    yield w
    w.stop_feed()


def click_call(qtbot, w: MainWindow, call: str) -> None:
    button = w.setup_view.findChild(QPushButton, f"call-{call}")
    assert button is not None, f"{call} is not offered"
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)


def offered(w: MainWindow) -> list[str]:
    return sorted(
        b.objectName()[5:]
        for b in w.setup_view.findChildren(QPushButton)
        if b.objectName().startswith("call-")
    )


def test_bidding_entry_by_taps_and_bad_points_change_nothing(qtbot, window):
    w = window
    w.tabs.setCurrentWidget(w.setup_view)
    qtbot.mouseClick(w.setup_view.dealer_buttons[3], Qt.MouseButton.LeftButton)
    qtbot.mouseClick(w.setup_view.card_buttons["9H"], Qt.MouseButton.LeftButton)
    assert offered(w) == ["hokum", "pass", "sun"]
    click_call(qtbot, w, "pass")
    click_call(qtbot, w, "hokum")
    assert offered(w) == ["pass", "sun"]
    for _ in range(3):
        click_call(qtbot, w, "pass")
    assert w.setup.phase == "play"
    qtbot.keyClicks(w.setup_view.points_edit, "2x")
    qtbot.mouseClick(w.setup_view.record_button, Qt.MouseButton.LeftButton)
    assert "not a whole number" in w.setup_view.message.text()
    assert w.setup_view.message.kind == "error"
    assert w.sheet.rows() == []
    w.setup_view.points_edit.clear()
    qtbot.keyClicks(w.setup_view.points_edit, "62")
    qtbot.keyClick(w.setup_view.points_edit, Qt.Key.Key_Return)
    rows = w.sheet.rows()
    assert len(rows) == 1 and rows[0].entry.card_points == (62, 100)
    # The word of a done deed is not an error's, and the next action clears it.
    assert (w.setup_view.message.kind, w.setup_view.message.text()) == ("saved", "Saved")
    qtbot.mouseClick(w.setup_view.restart_button, Qt.MouseButton.LeftButton)
    assert w.setup_view.message.text() == ""
    assert w.sheet_view.table.rowCount() == 1
    assert w.totals.totals[1].text() == str(rows[0].result[1])


def test_full_demo_match_warning_sheet_edit_undo_restart_arabic(qtbot, window, data_dir):
    w = window
    events = list(replay_match(load_match()))
    final = events[-1]
    banner_seen = None
    for item in demo_feed():
        w.feed_item(item)
        if any(e["event"] == "violation" for e in item.events):
            banner_seen = (w.live_view.banner.isVisible(), w.live_view.banner.title.text())
            assert w.tabs.currentWidget() is w.live_view
    assert banner_seen is not None
    assert banner_seen[0] and "Revoke — Seat 1, trick 1" in banner_seen[1]
    assert w.sound.played == 1
    assert w.live.detections and w.live.frame is not None
    # the warning waits in the list until the table decides
    assert w.live_view.warnings.count() == 1
    qtbot.mouseClick(w.live_view.banner.accept_button, Qt.MouseButton.LeftButton)
    assert not w.live_view.banner.isVisible()
    assert MatchStore().warnings(w.sheet.match_id)[0]["status"] == "accepted"
    # the score sheet after the match equals the replay's sheet
    table = w.sheet_view.table
    assert table.rowCount() == len(final["deals"])
    written = [table.item(r, 9).text() for r in range(table.rowCount())]
    assert written == [f"{d['result'][0]} – {d['result'][1]}" for d in final["deals"]]
    assert w.totals.totals[0].text() == str(final["match"][0])
    assert "win the match" in w.totals.middle.text()
    # edit deal 2 through the set-up, then undo
    table.selectRow(1)
    qtbot.mouseClick(w.sheet_view.edit_button, Qt.MouseButton.LeftButton)
    assert w.tabs.currentWidget() is w.setup_view and w.setup.editing == 1
    w.setup_view.points_edit.clear()
    qtbot.keyClicks(w.setup_view.points_edit, "120")
    qtbot.mouseClick(w.setup_view.record_button, Qt.MouseButton.LeftButton)
    assert w.sheet.rows()[1].entry.card_points == (120, 42)
    edited = table.item(1, 3).text()
    assert edited == "120 – 42"
    qtbot.mouseClick(w.sheet_view.undo_button, Qt.MouseButton.LeftButton)
    assert table.item(1, 3).text() == "83 – 79"
    assert "edit deal 2" in w.sheet_view.message.text()
    # restart: a new window on the same data folder restores the match
    before = [(r.result, r.match) for r in w.sheet.rows()]
    w.close()
    again = MainWindow(MatchStore(), None)
    qtbot.addWidget(again)
    assert [(r.result, r.match) for r in again.sheet.rows()] == before
    assert again.sheet_view.table.rowCount() == len(before)
    # language switch at run time
    qtbot.mouseClick(again.lang_button, Qt.MouseButton.LeftButton)
    assert again.layoutDirection() == Qt.LayoutDirection.RightToLeft
    assert again.tabs.tabText(2) == "ورقة الحساب"
    assert again.sheet_view.table.horizontalHeaderItem(7).text() == "كبوت"
    assert MatchStore().setting("language") == "ar"


def test_dispute_view_shows_evidence_or_says_there_is_none(qtbot, window, tmp_path):
    w = window
    for item in itertools.islice(demo_feed(evidence_dir=tmp_path / "ev"), 10):
        w.feed_item(item)
    # a play without evidence, as a pipeline without crops would send it
    w.live.on_event({"event": "play", "deal": 1, "trick": 3, "seat": 0, "card": "7C"})
    view = w.dispute_view
    w.tabs.setCurrentWidget(view)
    view.select(1, 1)
    images = [view.findChild(type(view.ruling), f"evidence-{c}") for c in ("JS", "QS")]
    assert all(i is not None and i.pixmap() is not None and not i.pixmap().isNull() for i in images)
    view.select(1, 3)
    missing = view.findChild(type(view.ruling), "evidence-7C")
    assert missing.text() == "no evidence frame"
    assert "No rule broken" in view.ruling.text()


def test_uncertain_read_corrected_from_the_live_view(qtbot, window):
    w = window
    w.feed_item(next(iter(demo_feed())))
    w.live.on_event({"event": "uncertain", "seat": 0, "trick": 1, "text": "seat 0 not read"})
    assert w.live_view.notices.count() == 1
    nid = w.live.open_notices()[0].id
    w.live_view.correct(nid, "8C")
    assert w.live_view.notices.count() == 0


def test_worker_thread_feeds_the_window_and_reports_the_rate(qtbot, window):
    w = window
    feed = itertools.islice(demo_feed(), 12)
    worker = w.start_feed(feed)
    qtbot.waitUntil(lambda: worker.isFinished(), timeout=20_000)
    qtbot.waitUntil(lambda: w.live.fps is not None and w.live.fps > 0, timeout=5_000)
    assert "fps" in w.rate.text() and "detector" in w.rate.text()
    assert w.live.current is not None and w.live.current.tricks


def test_exports_csv_html_pdf(qtbot, window, tmp_path):
    w = window
    for item in demo_feed():
        w.feed_item(item)
    n = len(w.sheet.rows())
    csv_path = w.sheet_view.export("csv", str(tmp_path / "m.csv"))
    lines = csv_path.read_text(encoding="utf-8").splitlines()
    assert len(lines) == n + 1 and lines[0].startswith("deal,dealer,contract")
    html = w.sheet_view.export("html", str(tmp_path / "m.html")).read_text(encoding="utf-8")
    assert html.count("<tr>") == n + 2 and "Them win the match" in html
    pdf = w.sheet_view.export("pdf", str(tmp_path / "m.pdf"))
    assert pdf.read_bytes()[:5] == b"%PDF-"
    # Each export says where it wrote, as a done deed; a folder that cannot be written, why.
    message = w.sheet_view.message
    assert (message.kind, message.text()) == ("saved", f"Saved to {pdf}")
    assert w.sheet_view.export("csv", str(tmp_path / "no" / "m.csv")) is None
    assert message.kind == "error" and message.text().startswith("Export: cannot write")


def test_feed_item_without_frame_only_moves_events(qtbot, window):
    w = window
    w.feed_item(FeedItem(None, [], [{"event": "deal", "deal": 1, "dealer": 1, "open_card": "9C"}]))
    assert w.live.frame is None
    assert w.setup.open_card == "9C" and w.setup.dealer == 1  # pre-filled from the camera


def test_a_suspected_ruling_is_asked_in_the_banner_confirmed_then_decided(qtbot, window):
    w = window
    w.feed_item(next(iter(demo_feed())))
    sent = []
    w.live.subscribe_corrections(sent.append)
    question = "Did seat 1 play 7S in trick 1? The ruling depends on it"
    w.live.on_event({"event": "violation", "deal": 1, "trick": 1, "seat": 1, "card": "7S",
                     "rule": "follow-suit", "proof": {"trick": 2, "card": "7C"},
                     "text": "no clubs", "status": "suspected", "question": question})  # fmt: skip
    banner = w.live_view.banner
    assert banner.isVisible() and banner.title.text().startswith("? Suspected: Revoke")
    asked = "Did seat 1 play 7♠ in trick 1? The ruling depends on it"  # cards as written
    assert asked in banner.text.text() and banner.accept_button.text() == "Confirm"
    assert "suspected" in w.live_view.warnings.item(0).text()
    qtbot.mouseClick(banner.accept_button, Qt.MouseButton.LeftButton)
    assert sent and sent[0]["event"] == "confirm" and sent[0]["rule"] == "follow-suit"
    # The question answered, the ruling is a proven one: still the table's to accept or dismiss.
    assert banner.isVisible() and banner.title.text().startswith("⚠ Revoke")
    assert (banner.accept_button.text(), banner.dismiss_button.text()) == ("Accept", "Dismiss")
    assert asked not in banner.text.text() and banner.property("known") == "proven"
    assert "suspected" not in w.live_view.warnings.item(0).text()
    qtbot.mouseClick(banner.dismiss_button, Qt.MouseButton.LeftButton)
    assert not banner.isVisible() and len(sent) == 1
    assert MatchStore().warnings(w.sheet.match_id)[0]["status"] == "dismissed"


def test_shortcuts_undo_delete_with_a_question_export_and_full_screen(
    qtbot, window, tmp_path, monkeypatch
):
    from PySide6.QtWidgets import QFileDialog, QMessageBox

    import hakam.gui.views.score_sheet_view as sheet_view

    w = window
    for item in demo_feed():
        w.feed_item(item)
    n = len(w.sheet.rows())
    w.tabs.setCurrentWidget(w.sheet_view)
    w.sheet_view.table.selectRow(0)
    answers = []

    def ask(*args):
        answers.append(args[2])
        no, yes = QMessageBox.StandardButton.No, QMessageBox.StandardButton.Yes
        return no if len(answers) == 1 else yes

    monkeypatch.setattr(sheet_view.QMessageBox, "question", ask)
    qtbot.keyClick(w, Qt.Key.Key_Delete)
    assert answers == ["Delete deal 1?"] and len(w.sheet.rows()) == n  # asked; "No" keeps it
    qtbot.keyClick(w, Qt.Key.Key_Delete)
    assert len(w.sheet.rows()) == n - 1
    qtbot.keyClick(w, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert len(w.sheet.rows()) == n  # undone
    target = tmp_path / "sheet.pdf"
    offered = []

    def save_as(_parent, _title, start, _filters):
        offered.append(start)
        return str(target), ""

    monkeypatch.setattr(QFileDialog, "getSaveFileName", save_as)
    qtbot.keyClick(w, Qt.Key.Key_E, Qt.KeyboardModifier.ControlModifier)
    assert target.read_bytes()[:5] == b"%PDF-"
    # The dialog opens in the exports folder (Documents/Hakam), not where Hakam was started.
    assert offered == [str(tmp_path / "exports" / "hakam-match.pdf")]
    qtbot.keyClick(w, Qt.Key.Key_F11)
    assert w.isFullScreen()
    qtbot.keyClick(w, Qt.Key.Key_F11)
    assert not w.isFullScreen()


def test_editing_is_announced_with_cancel_and_the_result_previewed(qtbot, window):
    """Issue 50, point 8: "Editing deal 1" with Cancel; a project removed with a visible
    button; in Sun the doubling box says why it offers nothing; the sheet's line previewed as
    the points are typed."""
    from hakam.engine.contract import Contract
    from hakam.gui.models import ProjectEntry, manual_entry

    w, view = window, window.setup_view
    w.sheet.add(manual_entry(0, Contract("sun", 1, 0), "70", 0))
    w.edit_deal(0)
    assert view.edit_bar.isVisible() and view.edit_label.text() == "✎ Editing deal 1"
    qtbot.mouseClick(view.edit_cancel, Qt.MouseButton.LeftButton)
    assert w.setup.editing is None and not view.edit_bar.isVisible()
    assert len(w.sheet.rows()) == 1  # the deal as it was
    w.setup.set_dealer(0)
    w.setup.set_open_card("9H")
    w.setup.call("sun")
    for _ in range(3):
        w.setup.call("pass")
    assert view.raise_refused.isVisible()
    assert "Sun may be doubled only when" in view.raise_refused.text()
    w.setup.announce(1, ProjectEntry(1, "siri", "9S"))
    assert view.project_remove.isVisible() and not view.project_remove.isEnabled()
    view.project_list.setCurrentRow(0)
    qtbot.mouseClick(view.project_remove, Qt.MouseButton.LeftButton)
    assert w.setup.projects == []
    qtbot.keyClicks(view.points_edit, "70")
    assert view.preview.text() == "On the sheet: Us 26 – Them 0"
    qtbot.keyClicks(view.points_edit, "0")  # 700: not a score, and the preview says why
    assert "700" in view.preview.text() and "130" in view.preview.text()


def test_arabic_writes_numbers_in_one_digit_style_the_user_chooses(qtbot, window):
    """Issue 50, point 4: one digit style in Arabic (the team names were ٠+٢ and the rest
    0-9), chosen with a button and kept; cards stay rank then suit inside Arabic text."""
    from PySide6.QtWidgets import QLabel, QTableWidget

    from hakam.engine.contract import Contract
    from hakam.gui.models import manual_entry

    w = window
    w.sheet.add(manual_entry(0, Contract("sun", 1, 0), "70", 0))
    w.toggle_language()
    assert w.digits_button.isVisible()

    def shown() -> str:
        texts = [x.text() for x in w.findChildren(QLabel) if x.isVisible()]
        texts += [
            b.text()
            for b in w.findChildren(QPushButton)
            if b.isVisible() and b is not w.digits_button
        ]  # (it shows the other style)
        table = w.sheet_view.findChild(QTableWidget)
        texts += [table.item(r, c).text() for r in range(table.rowCount())
                  for c in range(table.columnCount()) if table.item(r, c)]  # fmt: skip
        return " ".join(texts)

    w.tabs.setCurrentWidget(w.sheet_view)
    western = shown()
    assert any(d in western for d in "0123456789") and not any(d in western for d in "٠١٢٣٤٥٦٧٨٩")
    qtbot.mouseClick(w.digits_button, Qt.MouseButton.LeftButton)
    arabic = shown()
    assert any(d in arabic for d in "٠١٢٣٤٥٦٧٨٩")
    assert not any(d in arabic for d in "0123456789")
    assert MatchStore().setting("digits") == "arabic"
    said = w.lang.tr("exported", path="/home/a/2026/hakam-match.pdf")
    assert "/home/a/2026/hakam-match.pdf" in said  # a path keeps its digits
    w.tabs.setCurrentWidget(w.setup_view)
    w.setup.set_dealer(0)
    label = w.setup_view.card_buttons["AC"].text()
    assert label == "\u2066A♣\u2069"  # isolated: read A♣ in a right-to-left line


def test_qt_own_dialogs_speak_the_windows_language(window):
    """Issue 50, point 4: the save dialog was English in Arabic: Qt's own translations now."""
    from PySide6.QtCore import QCoreApplication

    assert QCoreApplication.translate("QFileDialog", "&Save") in ("&Save", "Save")
    window.toggle_language()
    arabic = QCoreApplication.translate("QFileDialog", "&Save")
    assert arabic != "&Save" and any("\u0600" <= ch <= "\u06ff" for ch in arabic)
    window.toggle_language()
    assert QCoreApplication.translate("QFileDialog", "&Save") == "&Save"


def test_a_tournament_table_publishes_the_feeds_events_and_its_decisions(qtbot, window):
    """``hakam table --publish``: the events of each feed item go to the publisher (the board
    takes the ones it needs), and so does the table's accepting or dismissing a ruling."""

    class Publisher:  # records what a ``hakam.board.publisher.Publisher`` would be given
        def __init__(self):
            self.got = []

        def update(self, events):
            self.got.append(list(events))

    w = window
    pub = Publisher()
    w.publish_to(pub)
    w.feed_item(next(iter(demo_feed())))
    ruling = {"event": "violation", "deal": 1, "trick": 1, "seat": 1, "card": "7S",
              "rule": "follow-suit", "proof": {"trick": 2, "card": "7C"}, "text": "no clubs",
              "status": "suspected", "question": "Did seat 1 play 7S in trick 1?"}  # fmt: skip
    w.feed_item(FeedItem(None, [], [ruling]))
    assert pub.got[-1] == [ruling]
    w.live.dismiss(w.live.warnings[0].id)
    said = {"type": "violation_status", "deal": 1, "trick": 1, "seat": 1, "rule": "follow-suit",
            "card": "7S", "status": "dismissed"}  # fmt: skip
    assert pub.got[-1][0] == said
    w.live.accept(w.live.warnings[0].id)
    assert pub.got[-1][0]["status"] == "accepted"
    from hakam.board.tables import board_events

    # Accepted, the suspected ruling was confirmed first (proven), then accepted.
    told = [ruling, *pub.got[-3], *pub.got[-2], *pub.got[-1]]
    assert [e["status"] for e in board_events(told) if e["kind"] == "ruling"] == [
        "suspected", "dismissed", "proven", "accepted"]  # fmt: skip


def test_the_dispute_tab_says_how_a_card_not_read_is_known(qtbot, window):
    """A card the deal decoder named shows its probability under it; a person's, who named it
    or that a person confirmed it; each on its own line, wrapped to the card's width."""
    w = window
    w.live.on_event({"event": "deal", "deal": 1, "dealer": 3,
                     "contract": {"kind": "sun", "declarer": 0, "dealer": 3}})  # fmt: skip
    plays = [(0, "7H", "seen", None), (1, "8H", "named", 0.834), (2, "9H", "person", None),
             (3, "10H", "named", None)]  # fmt: skip
    for seat, card, how, p in plays:
        w.live.on_event({"event": "play", "deal": 1, "trick": 1, "seat": seat, "card": card,
                         "provenance": how, "probability": p})  # fmt: skip
    w.tabs.setCurrentWidget(w.dispute_view)
    w.dispute_view.select(1, 1)

    def said() -> dict[str, str]:
        found = w.dispute_view.findChildren(QLabel)
        return {x.objectName()[6:]: x.text() for x in found if x.objectName().startswith("known-")}

    assert said() == {"8H": "not read: named, 83%", "9H": "named by a person",
                      "10H": "not read: named"}  # fmt: skip
    assert any(t.text().endswith("7♥") for t in w.dispute_view.findChildren(QLabel))
    # A read renamed (a conflict or an exchange) carries its probability, and the deal's end,
    # which weighs the named cards again, gives theirs; a card a person confirmed says so.
    w.live.on_event({"event": "correction", "deal": 1, "trick": 1, "seat": 0, "card": "JH",
                     "replaces": "7H", "by": "exchange", "probability": 0.971})  # fmt: skip
    w.live.on_event({"event": "score", "deal": 1, "complete": False, "named": [
        {"trick": 1, "seat": 1, "card": "8H", "provenance": "named", "probability": 0.9991},
        {"trick": 1, "seat": 2, "card": "9H", "provenance": "named", "probability": 0.5},
    ]})  # fmt: skip
    w.live.on_event({"event": "correction", "deal": 1, "trick": 1, "seat": 3, "card": "10H",
                     "by": "confirmed"})  # fmt: skip
    w.dispute_view.select(1, 1)
    assert said() == {"JH": "not read: named, 97%", "8H": "not read: named, 99%",
                      "9H": "named by a person", "10H": "confirmed by a person"}  # fmt: skip
    line = next(x for x in w.dispute_view.findChildren(QLabel) if x.objectName() == "known-10H")
    assert line.wordWrap() and line.width() <= 150
    # A guess among ways (its probability is the result's, not the card's) says it is a guess
    # asked (a walk read "named, 99%" under a wrong guess); a card a person's later word left
    # over says so.
    w.live.on_event({"event": "play", "deal": 1, "trick": 2, "seat": 0, "card": "QH",
                     "provenance": "named", "named_by": "same-result",
                     "probability": 0.995})  # fmt: skip
    w.live.on_event({"event": "play", "deal": 1, "trick": 2, "seat": 1, "card": "KH"})
    w.live.on_event({"event": "correction", "deal": 1, "trick": 2, "seat": 1, "card": "AH",
                     "replaces": "KH", "by": "overruled", "probability": 0.95})  # fmt: skip
    w.dispute_view.select(1, 2)
    assert said() == {"QH": "not read: a guess, asked",
                      "AH": "left over by a person's later word: asked"}  # fmt: skip


def test_the_pickers_are_wide_enough_for_their_titles_in_both_languages(qtbot, window):
    """A user under openbox found the seat picker's title cut: its buttons are short, and the
    window manager cuts a title wider than the window."""
    from PySide6.QtGui import QFontMetrics

    from hakam.gui.views.live_view import CardPicker, SeatPicker

    w = window
    for _ in ("en", "ar"):
        plays = [(0, "KC"), (1, None), (2, "7H"), (3, "AS")]
        title = w.lang.tr("correct_for", seat=w.lang.seat(1), trick=3)
        for picker in (SeatPicker(plays, 3, w.lang, w), CardPicker(["KC", "7H"], w.lang, w, title)):
            qtbot.addWidget(picker)
            picker.show()
            shown = QFontMetrics(picker.font()).horizontalAdvance(picker.windowTitle())
            assert picker.width() >= shown, (w.lang.code, picker.windowTitle())
            picker.close()
        w.toggle_language()


def test_the_totals_say_provisional_while_a_deal_counted_is(qtbot, window):
    """The header's totals were shown as final while a deal in them was provisional (a ruling
    suspected, a card guessed); the sheet's line said so, the header did not."""
    from dataclasses import replace

    from hakam.engine.contract import Contract
    from hakam.gui.models import manual_entry

    w = window
    mark = w.totals.provisional
    w.sheet.add(manual_entry(0, Contract("sun", 1, 0), "70", 0))
    assert mark.isHidden()
    w.sheet.add(replace(manual_entry(1, Contract("sun", 2, 1), "40", 1), provisional=True))
    assert not mark.isHidden()
    assert mark.text() == "(provisional)" and "Not final" in mark.toolTip()
    w.toggle_language()
    assert mark.text() == "(مؤقت)" and "غير نهائية" in mark.toolTip()
    w.sheet.replace(1, replace(w.sheet.rows()[1].entry, provisional=False))
    assert mark.isHidden()


def test_the_rate_stays_when_the_clip_ends(qtbot, window, monkeypatch):
    """After the clip, the feed's items without a frame (its end, a correction taken later)
    were counted as frames a long time apart: the rate shown fell towards 0, as if the program
    slowed. A clip at 10 frames a second still says 10 after it, however late the items."""
    from types import SimpleNamespace

    import numpy as np

    from hakam.gui.views import worker

    clock = [0.0]  # the worker's time, moved by the feed: no test waits a minute
    monkeypatch.setattr(worker, "time", SimpleNamespace(perf_counter=lambda: clock[0]))

    def feed():
        for _ in range(8):
            clock[0] += 0.1
            yield FeedItem(np.zeros((60, 96, 3), np.uint8), [], [], detector_ms=5.0)
        for _ in range(3):  # the clip ended: its end, then corrections a minute apart
            clock[0] += 60.0
            yield FeedItem(None, [], [], None, {"deals": []})

    w = window
    running = w.start_feed(feed())
    qtbot.waitUntil(running.isFinished, timeout=10_000)
    qtbot.waitUntil(lambda: w.live.fps is not None, timeout=5_000)
    qtbot.wait(50)  # the queued items and stats delivered
    assert w.rate.text() == "10.0 fps · detector 5 ms"


def test_the_status_bar_says_which_learnt_deck_the_camera_reads_with(window):
    assert "deck" not in window.rate.text()  # the standard readers: nothing said
    window.show_deck("majlis")
    assert window.rate.text() == "no camera · deck \u2066majlis\u2069"
    window.live.on_stats(7.5, 120.0)
    window._show_rate()
    assert window.rate.text() == "7.5 fps · detector 120 ms · deck \u2066majlis\u2069"
    window.toggle_language()
    assert window.rate.text().endswith("الورق \u2066majlis\u2069")
    window.show_deck(None)
    assert "majlis" not in window.rate.text()
