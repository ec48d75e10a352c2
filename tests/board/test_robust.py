"""What the second read of the board found: messages anyone can publish, a table id taken by
a new laptop, a new match's teams, replays asked in ranges and not again, a board that stops
with pages open, and one-line errors for bad options."""

from __future__ import annotations

import itertools
import json
import threading
import time
import urllib.request

import paho.mqtt.client as mqtt
import pytest

from hakam.board.hall import GAP_MAX_S, GAP_S, Hall
from hakam.board.mqtt import Broker
from hakam.board.outbox import Outbox
from hakam.board.publisher import Publisher
from hakam.board.server import BackgroundServer, BoardFeed, make_app
from hakam.board.simulate import deal_events, wait_for
from hakam.board.tables import board_events


def numbered(events, table="T1", start=1, epoch="e1", match=1):
    return [{**e, "id": f"{table}:{k}", "seq": k, "table": table, "match": match,
             "epoch": epoch, "at": 0.0} for k, e in enumerate(events, start)]  # fmt: skip


def test_malformed_messages_are_dropped_and_the_board_goes_on(broker, tmp_path):
    feed = BoardFeed(Broker.parse(broker.url), "cup")
    feed.start()
    raw = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="rogue")
    raw.connect("127.0.0.1", broker.port)
    raw.loop_start()
    try:
        assert wait_for(feed.connected.is_set)
        t9 = {"table": "t9", "seq": 1}
        junk = [t9, {**t9, "seq": "1", "kind": "score"}, [1, 2], "text",
                {**t9, "kind": "score", "deal": 1, "result": ["a", 2]},
                {**t9, "kind": "deal", "deal": "<img>"}]  # fmt: skip
        for j in junk:
            raw.publish("hakam/cup/tables/t9/events", json.dumps(j), qos=1).wait_for_publish()
        bad_state = {"table": "t9", "seq": 5, "results": {"1": {"result": "x"}}}
        raw.publish("hakam/cup/tables/t9/state", json.dumps(bad_state), qos=1, retain=True)
        raw.publish("hakam/cup/tables/t9/events", b"\xff\xfe", qos=1).wait_for_publish()
        pub = Publisher(Broker.parse(broker.url), "t2", tmp_path / "t2", "cup")
        pub.update(deal_events(1, [26, 0]))
        assert wait_for(lambda: [t["table"] for t in feed.snapshot()["tables"]] == ["t2"])
        assert feed.snapshot()["rejected"] >= len(junk) + 2
        pub.close()
    finally:
        raw.loop_stop()
        feed.stop()


def test_a_table_id_on_a_new_laptop_starts_afresh_and_a_new_match_brings_its_teams(tmp_path):
    hall = Hall("cup")
    first = board_events(deal_events(1, [26, 0]))
    for ev in numbered(first, match=1) + numbered(first, start=4, match=2):
        hall.take_event("T1", {**ev, "teams": ["A", "B"]} if ev["seq"] == 1 else ev)
    assert hall.view("T1")["teams"] == ["", ""]  # match 2 came without its teams: not match 1's
    fresh = numbered(first, epoch="e2", match=3)  # another outbox: seq from 1 again
    hall.take_event("T1", {**fresh[0], "teams": ["C", "D"]})
    for ev in fresh[1:]:
        hall.take_event("T1", ev)
    view = hall.view("T1")
    assert view["match"] == 3 and view["teams"] == ["C", "D"] and view["totals"] == [26, 0]
    # the publisher sends the teams with each match's first event
    box = tmp_path / "o"
    pub = Publisher(Broker.parse("mqtt://127.0.0.1:9"), "T1", box, "cup", ["A", "B"], 1)
    pub.update(deal_events(1, [26, 0]))
    pub.update(deal_events(1, [0, 26]), match=2)
    teams = [e.get("teams") for e in pub.outbox.events]
    assert teams == [["A", "B"], None, None, ["A", "B"], None, None]
    epoch = pub.outbox.epoch
    pub.close(0.1)
    assert Outbox(box, "T1", "cup").epoch == epoch  # kept across a restart


def test_a_gap_is_asked_once_for_its_range_then_less_and_less_often():
    hall = Hall("cup")
    evs = numbered(board_events(deal_events(1, [26, 0]) + deal_events(2, [0, 26])))
    hall.take_event("T1", evs[0], now=0.0)
    hall.take_event("T1", evs[4], now=0.0)  # 2..4 missing
    assert hall.asks(now=GAP_S) == [("T1", 2, 4)]
    assert hall.asks(now=GAP_S + 0.5) == []
    assert hall.asks(now=GAP_S * 3) == [("T1", 2, 4)]  # after twice the wait
    assert hall.asks(now=GAP_S * 4) == []
    assert hall.asks(now=GAP_S * 7) == [("T1", 2, 4)]  # and twice again
    times = [t for t in range(8, 200) if hall.asks(now=float(t))]
    assert all(b - a <= GAP_MAX_S for a, b in itertools.pairwise(times))
    hall.take_event("T1", evs[1], now=200.0)  # progress: asked again at once for the rest
    assert hall.asks(now=201.5) == [("T1", 3, 4)]


def test_the_outbox_forgets_acknowledgements_it_has_and_survives_a_cut_acked_file(tmp_path):
    box = Outbox(tmp_path / "o", "T1")
    for e in board_events(deal_events(1, [26, 0])):
        box.add(e, 1)
    for seq in (1, 2, 3, 1, 2, 3):  # the second three: a replay acknowledged again
        box.ack(seq)
    assert box.acked == 3 and box._done == set()
    box.close()
    (tmp_path / "o" / "acked").write_text("")  # cut by a power loss
    again = Outbox(tmp_path / "o", "T1")
    assert again.acked == 0 and len(again.unacked()) == 3
    again.close()


def test_the_board_stops_with_a_page_open(broker):
    feed = BoardFeed(Broker.parse(broker.url), "cup")
    server = BackgroundServer(make_app(feed)).start()
    got = []

    def read():
        with urllib.request.urlopen(server.url + "/api/events", timeout=20) as stream:
            for line in stream:
                got.append(line)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    assert wait_for(lambda: got)
    t0 = time.monotonic()
    server.stop()
    assert time.monotonic() - t0 < 5 and not server.thread.is_alive()
    reader.join(5)
    assert not reader.is_alive() and not feed.connected.is_set()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["board", "--broker", "mqtts://127.0.0.1:1", "--mqtt-ca", "/nope.pem"],
         "--mqtt-ca /nope.pem: not a CA certificate"),
        (["board", "--broker", "ftp://x"], "not mqtt://HOST"),
    ],
)  # fmt: skip
def test_bad_board_options_are_one_line_errors(args, message, capsys):
    from hakam.cli import main

    assert main(args) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and "\n" not in err
