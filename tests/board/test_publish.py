"""Tables publishing to a broker of the test's own and a board hearing them: every event once,
through a broker restart, a table restarted with events it had not sent, a board started late;
and ``hakam run --match --publish`` end to end."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import pytest

from hakam.board.mqtt import Broker
from hakam.board.publisher import Publisher
from hakam.board.server import BoardFeed
from hakam.board.simulate import deal_events, wait_for
from hakam.vision.matchvideo import render_match, write_match_clip


def address(local):
    return Broker.parse(local.url)


def feed_of(broker, tournament="cup"):
    feed = BoardFeed(address(broker), tournament)
    feed.start()
    wait_for(feed.connected.is_set, what="the board's connection")
    return feed


def table(broker, tmp_path, name, tournament="cup"):
    pub = Publisher(address(broker), name, tmp_path / "outbox" / name, tournament, ["A", "B"], 1)
    wait_for(pub.connected.is_set, what=f"table {name}'s connection")
    return pub


def test_three_tables_scored_deal_by_deal_on_the_board(broker, tmp_path):
    feed = feed_of(broker)
    tables = [table(broker, tmp_path, f"T{i}") for i in (1, 2, 3)]
    try:
        for deal in (1, 2):
            for i, pub in enumerate(tables):
                pub.update(deal_events(deal, [10 * (i + 1), 16], ruling="suspected" if i else None))
        want = {f"T{i + 1}": [20 * (i + 1), 32] for i in range(3)}
        wait_for(lambda: {t["table"]: t["totals"] for t in feed.snapshot()["tables"]} == want)
        shown = {t["table"]: t for t in feed.snapshot()["tables"]}
        assert shown["T1"]["disputes"] == [] and len(shown["T2"]["disputes"]) == 2
        assert shown["T3"]["contract"]["kind"] == "hokum" and shown["T3"]["deal"] == 2
        assert shown["T1"]["teams"] == ["A", "B"]
        assert [d["table"] for d in feed.snapshot()["disputes"]] == ["T2", "T2", "T3", "T3"]
        assert feed.hall.duplicates == 0
    finally:
        for pub in tables:
            pub.close()
        feed.stop()


def test_a_broker_restart_loses_nothing_and_counts_nothing_twice(broker, tmp_path):
    feed = feed_of(broker)
    pub = table(broker, tmp_path, "T1")
    try:
        pub.update(deal_events(1, [26, 0]))
        wait_for(lambda: pub.outbox.acked == pub.outbox.seq, what="the broker's acknowledgement")
        broker.stop()
        pub.update(deal_events(2, [0, 16]))  # the broker away: on disk, queued
        assert pub.outbox.acked < pub.outbox.seq
        broker.start()
        pub.update(deal_events(3, [10, 6]))
        wait_for(lambda: feed.snapshot()["tables"] and feed.snapshot()["tables"][0]["seq"] == 9)
        shown = feed.snapshot()["tables"][0]
        assert shown["totals"] == [36, 22] and shown["deals"] == 3
        wait_for(lambda: pub.outbox.acked == pub.outbox.seq, what="every event acknowledged")
    finally:
        pub.close()
        feed.stop()


def test_a_table_restarted_sends_what_the_broker_never_had(broker, tmp_path):
    feed = feed_of(broker)
    pub = table(broker, tmp_path, "T4")
    pub.update(deal_events(1, [26, 0]))
    assert pub.wait_sent(10)
    broker.stop()
    pub.update(deal_events(2, [0, 26]))
    pub.close(timeout=0.2)  # the table stops with deal 2 on disk only
    broker.start()
    again = Publisher(address(broker), "T4", tmp_path / "outbox" / "T4", "cup", ["A", "B"], 1)
    try:
        assert again.wait_sent(10)
        wait_for(lambda: feed.snapshot()["tables"][0]["totals"] == [26, 26])
        assert feed.snapshot()["tables"][0]["seq"] == 6
    finally:
        again.close()
        feed.stop()


def test_a_board_started_late_shows_every_table_and_gets_their_events_again(broker, tmp_path):
    pub = table(broker, tmp_path, "T9")
    try:
        for deal in (1, 2, 3):
            pub.update(deal_events(deal, [10, 6], ruling="suspected" if deal == 2 else None))
        assert pub.wait_sent(10)
        feed = feed_of(broker, "cup")  # never connected before: the broker kept nothing for it
        try:
            wait_for(lambda: feed.snapshot()["tables"], what="the retained view")
            first = feed.snapshot()["tables"][0]
            assert first["totals"] == [30, 18]  # at once, from the retained view
            # then the events themselves, asked of the table (a replay from seq 1)
            wait_for(lambda: feed.hall.tables["T9"].view.seq == 10, timeout=15)
            shown = feed.snapshot()["tables"][0]
            assert not shown["catching_up"] and shown["totals"] == [30, 18]
            assert len(shown["disputes"]) == 1
        finally:
            feed.stop()
    finally:
        pub.close()


def test_hakam_run_match_publishes_its_sheet(broker, tmp_path):
    m = render_match(3, 3, pixels=False, voids={2})
    clip = write_match_clip(m, tmp_path / "clip.mp4", black=True)
    feed = feed_of(broker)
    try:
        cmd = [sys.executable, "-m", "hakam", "run", "--source", clip["video"], "--headless",
               "--match", clip["setup"], "--calibration", clip["calibration"],
               "--detector", "oracle", "--labels", clip["labels"], "--out", str(tmp_path / "out"),
               "--publish", broker.url, "--table-id", "hall-3", "--tournament", "cup",
               "--teams", "Lana,Lahum"]  # fmt: skip
        env = {**os.environ, "HAKAM_DATA_DIR": str(tmp_path / "data")}
        done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        sheet = json.loads((tmp_path / "out" / "sheet.json").read_text())
        wait_for(lambda: feed.snapshot()["tables"]
                 and feed.snapshot()["tables"][0]["totals"] == sheet["match"])  # fmt: skip
        shown = feed.snapshot()["tables"][0]
        assert shown["table"] == "hall-3" and shown["teams"] == ["Lana", "Lahum"]
        assert shown["deals"] == 3 and sheet["match"] == m.sheet()["match"]
        outbox = tmp_path / "data" / "board" / "cup" / "hall-3"
        assert (outbox / "acked").read_text() == str(shown["seq"])  # all acknowledged
    finally:
        feed.stop()


def test_a_table_killed_mid_match_and_run_again_gives_the_board_its_sheet(broker, tmp_path):
    """``kill -9`` after a random play, the same command again: the board's totals are the
    sheet's, each deal once (the events made again after the crash are taken as repeats)."""
    m = render_match(3, 3, pixels=False)
    clip = write_match_clip(m, tmp_path / "clip.mp4", black=True)
    feed = feed_of(broker)
    cmd = [sys.executable, "-m", "hakam", "run", "--source", clip["video"], "--headless",
           "--match", clip["setup"], "--calibration", clip["calibration"],
           "--detector", "oracle", "--labels", clip["labels"], "--out", str(tmp_path / "out"),
           "--publish", broker.url, "--table-id", "T5", "--tournament", "cup"]  # fmt: skip
    env = {**os.environ, "HAKAM_DATA_DIR": str(tmp_path / "data")}
    try:
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                text=True)  # fmt: skip
        plays = 0
        for line in proc.stdout:
            plays += json.loads(line)["type"] == "play"
            if plays == 45:  # in deal 2
                proc.send_signal(signal.SIGKILL)
                break
        proc.stdout.close()
        proc.wait()
        done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        want = m.sheet()["match"]
        wait_for(lambda: feed.snapshot()["tables"]
                 and feed.snapshot()["tables"][0]["totals"] == want)  # fmt: skip
        assert feed.snapshot()["tables"][0]["deals"] == 3
    finally:
        feed.stop()


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--publish", "mqtt://127.0.0.1:1"], "--publish: needs --table-id"),
        (["--publish", "http://x", "--table-id", "T1"], "not mqtt://HOST"),
        (["--publish", "mqtt://x:99999", "--table-id", "T1"], "the port is not a number"),
        (["--publish", "mqtt://x", "--table-id", "T/#"], "--table-id 'T/#': use 1-64"),
        (["--publish", "mqtt://x", "--table-id", "T1", "--teams", "A"], "two names"),
    ],
)
def test_bad_publish_options_are_one_line_errors(tmp_path, extra, message, capsys, monkeypatch):
    from hakam.cli import main

    monkeypatch.setenv("HAKAM_DATA_DIR", str(tmp_path / "data"))
    m = render_match(3, 1, pixels=False)
    clip = write_match_clip(m, tmp_path / "clip.mp4", black=True)
    args = ["run", "--source", clip["video"], "--headless", "--match", clip["setup"],
            "--calibration", clip["calibration"], "--detector", "oracle",
            "--labels", clip["labels"], "--out", str(tmp_path / "out"), *extra]  # fmt: skip
    assert main(args) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and "\n" not in err
    assert not (tmp_path / "data" / "board").exists()


def test_a_ruling_links_its_deals_shared_evidence(broker, tmp_path):
    feed = feed_of(broker)
    pub = Publisher(address(broker), "T6", tmp_path / "T6", "cup", None, 1,
                    evidence_url="http://10.0.0.6:8000/runs/tonight/")  # fmt: skip
    try:
        pub.update(deal_events(4, [0, 26], ruling="proven"))
        wait_for(lambda: feed.snapshot()["tables"]
                 and feed.snapshot()["tables"][0]["last_ruling"] is not None)  # fmt: skip
        ruling = feed.snapshot()["tables"][0]["last_ruling"]
        assert ruling["evidence"] == "http://10.0.0.6:8000/runs/tonight/deal-04/"
        assert ruling["status"] == "proven" and ruling["card"] == "AC"
    finally:
        pub.close()
        feed.stop()
