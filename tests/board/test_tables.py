"""Board events from the pipeline's, a table's view folded from them, and the hall that takes
them from the broker once each and in order."""

from __future__ import annotations

import json

import pytest

from hakam.board.hall import GAP_S, Hall
from hakam.board.outbox import Outbox, OutboxError
from hakam.board.tables import TableView, board_events


def numbered(events, table="T1", match=1, start=1):
    return [{**e, "id": f"{table}:{i}", "seq": i, "table": table, "match": match, "at": 0.0}
            for i, e in enumerate(events, start)]  # fmt: skip


PIPELINE = [
    {"type": "deal", "deal": 1, "contract": None},  # bidding: not yet played
    {"type": "deal", "deal": 1, "dealer": 3, "contract": {"kind": "sun", "declarer": 0,
                                                          "level": "double", "raised_by": [1]}},
    {"type": "play", "deal": 1, "trick": 1, "seat": 0, "card": "AS"},
    {"type": "trick", "deal": 1, "trick": 1, "winner": 0, "points": 21},
    {"type": "violation", "deal": 1, "trick": 2, "seat": 1, "rule": "follow-suit", "card": "7H",
     "status": "suspected", "question": "Did seat 1 play 7H in trick 2?"},
    {"type": "uncertain", "deal": 1, "text": "cards not read"},
    {"type": "violation_status", "deal": 1, "trick": 2, "seat": 1, "rule": "follow-suit",
     "card": "7H", "status": "accepted"},
    {"type": "score", "deal": 1, "result": [0, 52], "status": "final"},
    {"type": "score", "deal": 2, "complete": False, "result": None},
    {"type": "void", "deal": 2},
    {"type": "match", "match": [152, 40], "winner": 0},
]  # fmt: skip


def test_the_board_hears_deals_tricks_rulings_scores_and_the_match_not_plays():
    got = board_events(PIPELINE)
    assert [e["kind"] for e in got] == ["deal", "trick", "ruling", "ruling", "score", "score",
                                        "match"]  # fmt: skip
    assert got[0]["contract"] == {"kind": "sun", "declarer": 0, "level": "double"}
    assert [e["status"] for e in got if e["kind"] == "ruling"] == ["suspected", "accepted"]
    assert got[5] == {"kind": "score", "deal": 2, "result": [0, 0], "status": "final",
                      "void": True}  # fmt: skip


def test_a_view_counts_a_deal_once_however_often_its_score_is_sent():
    view = TableView("T1")
    for ev in numbered(board_events([*PIPELINE[:5],
                                     {"type": "score", "deal": 1, "result": [0, 26],
                                      "status": "provisional"}])):  # fmt: skip
        view.apply(ev)
    assert view.totals == [0, 26] and view.to_json()["provisional"] == [1]
    assert len(view.disputes) == 1 and view.last_ruling["question"].startswith("Did seat 1")
    for ev in numbered(board_events(PIPELINE[6:8]), start=view.seq + 1):  # accepted, final
        view.apply(ev)
    assert view.totals == [0, 52] and view.to_json()["provisional"] == []
    assert view.disputes == {}  # accepted: no longer waiting
    again = TableView.from_json(json.loads(json.dumps(view.to_json())))
    assert again.to_json() == view.to_json()


def test_a_new_match_at_the_table_starts_from_nothing():
    view = TableView("T1")
    for ev in numbered(board_events(PIPELINE)):
        view.apply(ev)
    assert view.over and view.winner == 0 and view.totals == [0, 52]
    view.apply(numbered(board_events(PIPELINE[1:2]), match=2, start=view.seq + 1)[0])
    assert not view.over and view.totals == [0, 0] and view.deal == 1


def test_the_hall_applies_each_event_once_and_in_order_and_asks_for_a_gap():
    hall = Hall("cup")
    events = numbered(board_events(PIPELINE))
    assert [u["event"]["seq"] for u in hall.take_event("T1", events[0], now=0.0)] == [1]
    assert hall.take_event("T1", events[2], now=0.0) == []  # 2 is missing: 3 waits
    assert hall.asks(now=0.5) == []  # not yet: it may be on its way
    assert hall.asks(now=GAP_S) == [("T1", 2, 2)]  # that range only
    assert hall.asks(now=GAP_S + 0.1) == []  # asked; again only after GAP_S
    applied = hall.take_event("T1", events[1], now=1.2)
    assert [u["event"]["seq"] for u in applied] == [2, 3]
    assert hall.take_event("T1", events[1]) == [] and hall.duplicates == 1
    assert hall.asks(now=10.0) == []
    assert hall.take_event("T2", events[3]) == []  # T1's event under T2's topic: not taken
    for ev in events[3:]:
        hall.take_event("T1", ev)
    assert hall.view("T1")["totals"] == [0, 52] and hall.view("T1")["over"]


def test_a_board_started_late_shows_the_retained_view_until_the_events_arrive():
    table = TableView("T7")
    events = numbered(board_events(PIPELINE[:5]), table="T7")
    for ev in events:
        table.apply(ev)
    hall = Hall("cup")
    assert hall.take_state("T7", table.to_json(), now=0.0)
    shown = hall.view("T7")
    assert shown["catching_up"] and shown["seq"] == 3 and len(shown["disputes"]) == 1
    assert hall.asks(now=GAP_S) == [("T7", 1, 3)]  # the whole match, to the view's seq
    for ev in events:
        hall.take_event("T7", ev)
    assert not hall.view("T7")["catching_up"]
    assert hall.disputes()[0]["table"] == "T7"


def test_the_outbox_keeps_every_event_and_what_the_broker_acknowledged(tmp_path):
    box = Outbox(tmp_path / "o", "T1", "cup")
    sent = [box.add(e, match=5) for e in board_events(PIPELINE)]
    assert [e["id"] for e in sent] == [f"T1:{i}" for i in range(1, 8)]
    box.ack(2)
    assert box.acked == 0  # 1 is not acknowledged yet
    box.ack(1)
    assert box.acked == 2 and [e["seq"] for e in box.unacked()] == [3, 4, 5, 6, 7]
    box.close()
    with (tmp_path / "o" / "events.jsonl").open("a") as f:
        f.write('{"id": "T1:8", "se')  # a line cut by a crash
    again = Outbox(tmp_path / "o", "T1", "cup")  # a restart: the events, the acknowledged, the view
    assert again.seq == 7 and again.acked == 2 and again.state() == box.state()
    assert [e["seq"] for e in again.since(6)] == [6, 7]
    assert again.add({"kind": "trick", "deal": 3, "trick": 1, "winner": 0}, 5)["seq"] == 8
    again.close()
    assert Outbox(tmp_path / "o", "T1", "cup").seq == 8  # the cut line gone, the new one whole
    with pytest.raises(OutboxError, match="holds table 'T1'"):
        Outbox(tmp_path / "o", "T2", "cup")
