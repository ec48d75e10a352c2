"""Issue 48: a person corrects a complete deal from the window. A trick in doubt is confirmed as
recorded, or a card of it corrected: the seat whose card is wrong, then the card (all 32: in a
complete deal every card is played); a card the record holds elsewhere is exchanged with it."""

from __future__ import annotations

import json

import cv2
import pytest
from PySide6.QtWidgets import QLabel, QMessageBox, QPushButton

from hakam.gui.feed import FeedItem, demo_feed
from hakam.gui.match_store import MatchStore
from hakam.gui.models import EntryError
from hakam.gui.views import live_view
from hakam.gui.views.main_window import MainWindow, make_app
from hakam.vision.correction_queue import CorrectionQueue
from hakam.vision.oracle import Misreading
from hakam.vision.pipeline import Pipeline, run_frames
from hakam.vision.seats import Calibration
from hakam.vision.settings import DealSetup
from hakam.vision.sources import (
    DEMO_CALIBRATION,
    DEMO_LABELS,
    DEMO_RECORD,
    ArraySource,
    demo_clip_available,
)

# 8D (seat 1, trick 4) read surely as 9D, and 9D (seat 1, trick 7) as 8D: the record puts 9D
# in trick 4 and names 8D, the card left, in trick 7, a trick the deal asks.
SWAPPED = {"9D": {"8D": 0.9, "9D": 0.05}, "8D": {"9D": 0.9, "8D": 0.05}}


def swapped_deal(misread=SWAPPED):
    """The demo deal read with ``misread``: its truth, the pipeline and its events."""
    if not demo_clip_available():
        pytest.skip("demo clip not installed")
    truth = json.loads(DEMO_RECORD.read_text())
    frames = json.loads(DEMO_LABELS.read_text())["frames"]
    pipe = Pipeline(DealSetup.from_record(truth), Misreading(frames, misread),
                    calibration=Calibration.load(DEMO_CALIBRATION))  # fmt: skip
    images = [cv2.UMat(1, 1, cv2.CV_8UC3).get()] * len(frames)
    return truth, pipe, run_frames(pipe, ArraySource(images, 15.0))


def window_on(qtbot, events: list[dict]) -> MainWindow:
    """A fresh window (English) fed ``events``."""
    make_app()
    w = MainWindow(MatchStore(), "en")
    qtbot.addWidget(w)
    w.feed_item(FeedItem(None, events=events))
    return w


def click(dialog, name: str) -> int:
    """A dialog's ``exec`` that clicks its button ``name``, as a person would."""
    dialog.findChild(QPushButton, name).click()
    return dialog.result()


def test_no_to_a_trick_in_doubt_picks_the_seat_then_the_card(qtbot, data_dir, monkeypatch):
    truth, pipe, events = swapped_deal()
    w = window_on(qtbot, events)
    answers: list[dict] = []
    w.live.subscribe_corrections(answers.append)
    assert w.sheet.rows()[0].entry.provisional
    (notice,) = [n for n in w.live.open_notices() if n.confirm_trick == 7]
    titles: list[str] = []

    def answer(box):  # the question: "Correct a card", not "Confirm"
        (fix,) = [b for b in box.buttons() if b.text() == "Correct a card"]
        fix.click()
        return 0

    def pick_seat(dialog):
        shown = sorted(b.text() for b in dialog.findChildren(QPushButton))
        assert shown == ["Cancel", "Seat 0: 7♦", "Seat 1: 8♦", "Seat 2: A♦", "Seat 3: K♦"]
        return click(dialog, "seat-1-8D")

    def pick_card(dialog):
        titles.append(dialog.findChild(QLabel, "picker-title").text())
        assert len(dialog.findChildren(QPushButton)) == 33  # every card is played, and Cancel
        return click(dialog, "pick-9D")

    monkeypatch.setattr(live_view.QMessageBox, "exec", answer)
    monkeypatch.setattr(live_view.SeatPicker, "exec", pick_seat)
    monkeypatch.setattr(live_view.CardPicker, "exec", pick_card)
    w.live_view.correct(notice.id)
    assert titles == ["Seat 1, trick 7: pick the card played"]
    answer = {"event": "correction", "deal": 1, "trick": 7, "seat": 1, "card": "9D"}
    assert answers == [{**answer, "replaces": "8D", "answer": notice.id}]
    # The pipeline takes it (the feed's job): 9D is seat 1's in trick 7, 8D, left over, in
    # trick 4, and the deal goes on the sheet final, as the truth.
    back = pipe.table_correction("9D", 1, 1, "table", 7, "8D")
    w.feed_item(FeedItem(None, events=back))
    assert pipe.record["tricks"] == truth["tricks"]
    assert not w.sheet.rows()[0].entry.provisional
    trick4 = {p.seat: p for p in w.live.deals[1].tricks[3].plays}
    assert (trick4[1].card, trick4[1].provenance) == ("8D", "named")
    trick7 = {p.seat: p for p in w.live.deals[1].tricks[6].plays}
    assert (trick7[1].card, trick7[1].provenance) == ("9D", "person")
    assert notice.status == "corrected"


def test_a_trick_in_doubt_left_unanswered_changes_nothing(qtbot, data_dir, monkeypatch):
    _, _, events = swapped_deal()
    w = window_on(qtbot, events)
    answers: list[dict] = []
    w.live.subscribe_corrections(answers.append)
    (notice,) = [n for n in w.live.open_notices() if n.confirm_trick == 7]
    monkeypatch.setattr(live_view.QMessageBox, "exec", lambda box: box.button(
        QMessageBox.StandardButton.Cancel).click())  # fmt: skip
    w.live_view.correct(notice.id)
    assert answers == [] and notice.status == "open"


def test_the_notices_get_room_as_they_come(qtbot, data_dir):
    # At the window's first size, one ruling and three long notices: the notices' list is the
    # taller of the two (it held two and a half lines under a near-empty list of rulings).
    make_app()
    w = MainWindow(MatchStore(), "en")
    qtbot.addWidget(w)
    w.show()
    w.feed_item(next(iter(demo_feed())))
    live = w.live
    live.on_event({"event": "violation", "deal": 1, "trick": 1, "seat": 1, "card": "KC",
                   "rule": "follow-suit", "text": "no spades", "status": "proven"})  # fmt: skip
    for seat in range(3):
        text = f"card in front of seat {seat} not read (trick 4); the deal waits for it (9C held)"
        live.on_event({"event": "uncertain", "deal": 1, "seat": seat, "text": text})
    view = w.live_view
    qtbot.waitUntil(lambda: view.notices.count() >= 3)
    qtbot.wait(50)  # laid out again
    assert view.notices.height() > view.warnings.height()
    row = view.notices.visualItemRect(view.notices.item(0)).height()
    assert view.notices.viewport().height() >= 2 * row


def test_a_persons_exchange_and_its_refusals_are_said_in_arabic():
    from .test_said_in_arabic import assert_arabic

    _, pipe, _ = swapped_deal()
    events = pipe.table_correction("8D", seat=1, trick=4)
    events += pipe.table_correction("JC", seat=1, trick=4, replaces="QS")  # not its card
    said = [e["text"] for e in events if e["type"] == "uncertain"]
    assert "correction: seat 1 played no QS in trick 4" in said
    # The refusals of a seat with two plays in a trick, or none (tests/vision pins them).
    said += ["correction: seat 1 has two cards in trick 1 (8C, 10C): say which",
             "correction: seat 3 has no card in trick 1, and JC is not in it"]  # fmt: skip
    assert any("a person placed the card recorded here elsewhere" in t for t in said)
    assert_arabic(said)


def test_the_sheet_takes_the_score_of_a_deal_corrected_after_it(qtbot, data_dir):
    # The demo deal read right, on the sheet; a person then says seat 3 played JC in trick 1
    # (the record has KC there, JC in trick 3): the two are exchanged, trick winners and card
    # points change, and the sheet's line is the new score's (it kept the old points before).
    _, pipe, events = swapped_deal({})
    w = window_on(qtbot, events)
    before = list(w.sheet.rows()[0].result), list(w.sheet.rows()[0].entry.card_points)
    back = pipe.table_correction("JC", 3, 1, "table", 1)
    w.feed_item(FeedItem(None, events=back))
    score = [e for e in back if e["type"] == "score"][-1]
    row = w.sheet.rows()[0]
    assert list(row.entry.card_points) == score["card_points"] != before[1]
    assert list(row.result) == score["result"] != before[0]
    assert row.entry.provisional == (score["status"] == "provisional")
    assert [t.winner for t in w.live.deals[1].tricks] == [t["winner"] for t in score["tricks"]]


def test_a_refused_answer_opens_its_notice_again(qtbot, data_dir):
    # The person corrects trick 7, naming a card seat 0 did not play there: refused, nothing
    # changed; the trick's notice is open again and the refusal is said in one line (not as a
    # notice: there is nothing to answer in it).
    _, pipe, events = swapped_deal()
    w = window_on(qtbot, events)
    w.feed_item(FeedItem(None, events=pipe.table_correction("8D", 1, 1, "table", 4)))
    (notice,) = [n for n in w.live.open_notices() if n.confirm_trick == 7]  # asked once
    sent: list[dict] = []
    w.live.subscribe_corrections(sent.append)
    w.live.correct(notice.id, "8D", seat=0, replaces="QS")
    assert notice.status == "corrected"
    # A second answer before the pipeline replied to the first: the refusal of the first
    # opens the first's notice again, not the last one answered.
    w.live.on_event({"event": "uncertain", "deal": 1, "seat": 2, "trick": 8, "text": "other"})
    (other,) = [n for n in w.live.open_notices() if n.text == "other"]
    w.live.correct(other.id, "KS")
    w.feed_item(FeedItem(None, events=CorrectionQueue(pipe, None).take(sent[:1])))
    assert (notice.status, other.status) == ("open", "corrected")
    why = "correction: seat 0 played no QS in trick 7"
    assert w.live.refusal == why and not [n for n in w.live.notices if n.text == why]
    assert "Not taken: correction: seat 0 played no Q♠ in trick 7" in (
        w.live_view.notices_title.text()
    )


def test_a_dispute_corrects_a_card_of_a_final_deal(qtbot, data_dir, monkeypatch):
    # The demo deal read right and final: nothing is asked. A player disputes trick 1 in the
    # dispute view: seat 0's card (the seat, then the card, through the dialogs) goes to the
    # pipeline, which a window keeps listening to (``iter_feed(keep_open=True)``).
    _, pipe, events = swapped_deal({})
    make_app()
    w = MainWindow(MatchStore(), "en")
    qtbot.addWidget(w)
    w.show()
    answers: list[dict] = []
    w.live.subscribe_corrections(answers.append)
    w.feed_item(FeedItem(None, events=events))
    assert not w.sheet.rows()[0].entry.provisional and not w.live.open_notices()
    view = w.dispute_view
    w.tabs.setCurrentWidget(view)
    assert not view.correct_button.isEnabled()  # no camera run takes corrections: a replay
    with pytest.raises(EntryError, match="no camera run takes corrections now"):
        w.live.correct_play(1, 1, 0, "JC")
    w.live.feed_running(True)  # as the window's feed does while it runs
    w.tabs.setCurrentWidget(view)
    view.select(1, 1)
    monkeypatch.setattr(live_view.SeatPicker, "exec", lambda d: click(d, "seat-0-KC"))
    monkeypatch.setattr(live_view.CardPicker, "exec", lambda d: click(d, "pick-JC"))
    view.correct_button.click()
    assert answers == [{"event": "correction", "deal": 1, "trick": 1, "seat": 0, "card": "JC",
                        "replaces": "KC"}]  # fmt: skip
    back = pipe.table_correction("JC", 0, 1, "table", 1, "KC")
    w.feed_item(FeedItem(None, events=back))
    assert [p.card for p in w.live.deals[1].tricks[0].plays if p.seat == 0] == ["JC"]
    score = [e for e in back if e["type"] == "score"][-1]
    assert list(w.sheet.rows()[0].result) == score["result"]


def test_a_line_a_person_edited_keeps_the_edit_after_a_correction(qtbot, data_dir):
    from dataclasses import replace

    _, pipe, events = swapped_deal({})
    w = window_on(qtbot, events)
    edited = replace(w.sheet.sheet.deals[0], card_points=(100, 62))
    w.sheet.replace(0, edited)  # the person's edit on the sheet
    w.feed_item(FeedItem(None, events=pipe.table_correction("JC", 3, 1, "table", 1)))
    assert w.sheet.sheet.deals[0].card_points == (100, 62)


def test_a_ruling_accepted_then_withdrawn_no_longer_scores(data_dir):
    from hakam.gui.controllers import DisputeController, LiveController

    from .test_controllers import demo_events, sheet_ctl

    live = LiveController(sheet_ctl())
    events = [e for e in demo_events() if e.get("deal") in (None, 1)]
    score = next(i for i, e in enumerate(events) if e["event"] == "score")
    ruling = {"deal": 1, "trick": 2, "seat": 1, "card": "10S", "rule": "follow-suit",
              "proof": None, "text": "no spades"}  # fmt: skip
    live.on_events([*events[:score], {"event": "violation", **ruling, "status": "proven"}])
    live.accept(live.warnings[0].id)
    live.on_events([{"event": "withdrawn", **ruling}, events[score]])
    assert live.warnings[0].status == "withdrawn" and live._penalty(1) is None
    assert DisputeController(live).audit(1).agrees


def test_the_end_renames_only_the_named_play_of_a_seat_with_two(data_dir):
    from hakam.gui.controllers import LiveController

    from .test_controllers import demo_events, sheet_ctl

    live = LiveController(sheet_ctl())
    events = [e for e in demo_events() if e.get("deal") in (None, 1)]
    first = next(i for i, e in enumerate(events) if e["event"] == "play")
    seat = events[first]["seat"]
    extra = {"event": "play", "deal": 1, "trick": 1, "seat": seat, "card": "8D",
             "provenance": "named"}  # fmt: skip
    live.on_events([*events[: first + 1], extra])
    named = [{"trick": 1, "seat": seat, "card": "9D", "provenance": "named"}]
    live.on_event({"event": "score", "deal": 1, "complete": False, "named": named})
    cards = [(p.card, p.provenance) for p in live.deals[1].tricks[0].plays]
    assert cards == [(events[first]["card"], "seen"), ("9D", "named")]


def test_a_correction_closes_the_notices_of_its_trick_only(qtbot, data_dir):
    # The deal waits for seat 1 in trick 7; a person corrects seat 1's card of trick 2 (the
    # dispute view): the trick 7 notice stays open (it was closed, and the deal stuck), and a
    # refusal said before is no longer shown once the table answers again.
    _, _, events = swapped_deal()
    waits = next(i for i, e in enumerate(events) if "not read (trick 7)" in e.get("text", ""))
    w = window_on(qtbot, events[: waits + 1])  # the deal waits there
    (notice,) = [n for n in w.live.open_notices() if n.trick == 7 and n.seat == 1]
    w.live.on_event({"event": "correction", "deal": 1, "trick": 2, "seat": 1, "card": "QH",
                     "replaces": "QH", "by": "confirmed"})  # fmt: skip
    assert notice.status == "open"
    w.live.on_event({"event": "uncertain", "deal": 1, "seat": 1,
                     "text": "correction: seat 1 played no QS in trick 2"})  # fmt: skip
    assert w.live.refusal
    w.live.correct(notice.id, "8D")
    assert w.live.refusal is None


def test_the_dispute_view_shows_the_rulings_that_stand_and_a_notice_once(qtbot, data_dir):
    # A ruling withdrawn after a correction is counted, not listed (a trick corrected back and
    # forth listed a dozen); a notice said again word for word while open is one notice.
    _, _, events = swapped_deal({})
    w = window_on(qtbot, events)
    w.show()
    ruling = {
        "deal": 1,
        "trick": 1,
        "seat": 2,
        "card": "AS",
        "rule": "out-of-turn",
        "proof": None,
        "text": "Seat 2 played AS in trick 1 out of turn; seat 1 was to play.",
    }
    w.live.on_events([{"event": "violation", **ruling, "status": "suspected"},
                      {"event": "withdrawn", **ruling}])  # fmt: skip
    view = w.dispute_view
    w.tabs.setCurrentWidget(view)
    view.select(1, 1)
    shown = view.ruling.text()
    assert "out of turn" not in shown and "1 ruling(s) withdrawn after a correction" in shown
    # Told again after the next correction (and confirmed by a person), it stands: listed
    # once, as confirmed, and no longer counted among the withdrawn.
    w.live.on_event({"event": "violation", **ruling, "status": "suspected", "question": "?"})
    w.live.confirm_ruling(w.live.warnings[-1].id)
    view.select(1, 1)
    shown = view.ruling.text()
    assert shown.count("out of turn") == 1 and "withdrawn" not in shown
    assert "confirmed by a person" in shown
    # Dismissed by the table, withdrawn (which leaves a dismissal be), then ruled again: the
    # ruling told last is listed, once, and the audit agrees with the record.
    w.live.dismiss(w.live.warnings[-1].id)
    w.live.on_events([{"event": "withdrawn", **ruling},
                      {"event": "violation", **ruling, "status": "proven"}])  # fmt: skip
    view.select(1, 1)
    shown = view.ruling.text()
    assert shown.count("out of turn") == 1 and "[open]" in shown and "dismissed" not in shown
    standing = view.dispute.standing(1, 1)[0]
    assert [x.status for x in standing if x.rule == "out-of-turn"] == ["open"]
    said = {"event": "uncertain", "deal": 1, "seat": 2, "text": "cards not read: QC, KD; ..."}
    w.live.on_events([said, said])
    assert [n.text for n in w.live.open_notices()].count(said["text"]) == 1


def test_a_ruling_told_while_a_dispute_is_settled_keeps_the_dispute_view(qtbot, data_dir):
    # A correction made in the dispute view rules again: the view stays (the sound says so);
    # from another tab the window shows the ruling's banner.
    _, _, events = swapped_deal({})
    w = window_on(qtbot, events)
    w.show()
    ruling = {"event": "violation", "deal": 1, "trick": 3, "seat": 0, "card": "JC",
              "rule": "follow-suit", "proof": None, "text": "t", "status": "proven"}  # fmt: skip
    w.tabs.setCurrentWidget(w.dispute_view)
    w.live.on_event(ruling)
    assert w.tabs.currentWidget() is w.dispute_view
    w.tabs.setCurrentWidget(w.sheet_view)
    w.live.on_event({**ruling, "trick": 4})
    assert w.tabs.currentWidget() is w.live_view


def test_a_trick_asked_that_a_correction_settled_is_asked_no_more(qtbot, data_dir):
    # The score of a complete deal says which tricks are still asked: a trick asked only
    # because of a wrong exchange, undone, leaves the notices (it stayed, and the deal was
    # final beside it).
    _, _, events = swapped_deal({})
    w = window_on(qtbot, events)
    w.live.on_event({"event": "uncertain", "deal": 1, "seat": None, "trick": 3,
                     "confirm_trick": 3, "text": "trick 3 (...): asked"})  # fmt: skip
    (asked,) = [n for n in w.live.open_notices() if n.confirm_trick == 3]
    score = [e for e in events if e["type"] == "score"][-1]
    w.live.on_event({**score, "asked": [3]})
    assert asked.status == "open"
    w.live.on_event({**score, "asked": []})
    assert asked.status == "settled" and not w.live.open_notices()


def test_the_deck_advice_is_a_line_of_the_window_not_a_notice(qtbot, data_dir):
    # A deal read with a deck its cards do not fit (``hakam.vision.deck_check``): the window
    # says so under the picture, whole, in its language; nothing to tap, nothing asked.
    events = swapped_deal({})[2]
    text = ("these cards do not read like deck baloot (the standard readers were sure in 40 "
            "reads where it was not, it in 2 where they were not): if the table plays another "
            "deck, choose it on the start screen, or none for the standard readers")  # fmt: skip
    advice = {"type": "uncertain", "event": "uncertain", "deal": 1, "seat": None, "trick": None,
              "text": text, "about": "deck", "deck": "baloot", "frame": 3}  # fmt: skip
    w = window_on(qtbot, events)
    w.resize(1366, 768)
    w.show()
    assert w.live_view.deck_line.isHidden()
    w.feed_item(FeedItem(None, events=[advice]))
    line = w.live_view.deck_line
    assert line.isVisible() and line.text().startswith(
        "The cards on the table do not read like deck \u2066baloot\u2069: if the table plays"
    )
    qtbot.waitUntil(lambda: line.height() >= line.heightForWidth(line.width()))  # not cut
    trick = w.live_view.trick  # nor the trick beside it, the lists shrinking first
    assert trick.text().startswith("Trick 8") and trick.height() >= trick.heightForWidth(
        trick.width()
    )
    assert not [n for n in w.live.notices if n.text == text]
    arabic = MainWindow(MatchStore(), "ar")
    qtbot.addWidget(arabic)
    arabic.feed_item(FeedItem(None, events=[*events, advice]))
    assert arabic.live_view.deck_line.text().startswith(
        "الأوراق على الطاولة لا تبدو من الورق \u2066baloot\u2069"
    )
    # The standard readers chosen, and a deck learnt here reads the cards better: named.
    unchosen = {**advice, "deck": None, "like": "a<b"}
    w.feed_item(FeedItem(None, events=[unchosen]))
    assert line.isVisible() and line.text().startswith(
        "The cards on the table read better with deck \u2066a&lt;b\u2069, learnt here, than "
        "with the standard readers"
    )
    w.feed_item(FeedItem(None, events=[{**advice, "like": "majlis"}]))  # a deck over a deck
    assert line.text().startswith(
        "The cards on the table read more like deck \u2066majlis\u2069 than deck "
        "\u2066baloot\u2069: if the table plays deck \u2066majlis\u2069, choose it"
    )
    arabic.feed_item(FeedItem(None, events=[{**advice, "like": "majlis"}]))
    assert arabic.live_view.deck_line.text().startswith(
        "الأوراق على الطاولة أقرب إلى الورق \u2066majlis\u2069 منها إلى الورق \u2066baloot\u2069"
    )
    line.linkActivated.emit("hide")  # the table read it: said no more, in this match
    assert line.isHidden() and w.live.deck_advice is None
    again = MainWindow(MatchStore(), "en")  # the window after a restart: the log replayed
    qtbot.addWidget(again)
    again.feed_item(FeedItem(None, events=[*events, advice, {**advice, "like": "majlis"}]))
    assert again.live_view.deck_line.isHidden()
