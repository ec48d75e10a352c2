"""A tournament's broker with log-ins, an access list that lets a table publish only under its
own id, and TLS: the tables and the board use them as the broker offers."""

from __future__ import annotations

import shutil
import subprocess
import time

import pytest

from hakam.board.localbroker import LocalBroker, mosquitto
from hakam.board.mqtt import Broker
from hakam.board.publisher import Publisher
from hakam.board.server import BoardFeed
from hakam.board.simulate import deal_events, wait_for

# Each table logs in with its id; the board reads every table and asks them for replays.
ACL = """user board
topic read hakam/#
topic write hakam/+/tables/+/replay

pattern write hakam/+/tables/%u/events
pattern write hakam/+/tables/%u/state
pattern read hakam/+/tables/%u/replay
"""
USERS = {"board": "b-secret", "T1": "t1-secret", "T2": "t2-secret"}


@pytest.fixture
def secured(tmp_path):
    pytest.importorskip("paho.mqtt")
    if mosquitto() is None or shutil.which("mosquitto_passwd") is None:
        pytest.skip("mosquitto is not installed (board/install_debian.sh)")
    with LocalBroker(tmp_path / "broker", users=USERS, acl=ACL) as local:
        yield local


def at(local, user, password):
    return Broker.parse(f"mqtt://{user}:{password}@127.0.0.1:{local.port}")


def test_a_table_publishes_only_under_its_own_id(secured, tmp_path):
    feed = BoardFeed(at(secured, "board", "b-secret"), "cup")
    feed.start()
    honest = Publisher(at(secured, "T1", "t1-secret"), "T1", tmp_path / "T1", "cup")
    # T2's laptop, set up with T1's id: the broker drops what it sends under T1
    posing = Publisher(at(secured, "T2", "t2-secret"), "T1", tmp_path / "posing", "cup")
    try:
        assert wait_for(feed.connected.is_set) and wait_for(honest.connected.is_set)
        assert wait_for(posing.connected.is_set)
        posing.update(deal_events(1, [0, 162]))
        honest.update(deal_events(1, [26, 0]))
        assert wait_for(lambda: [t["totals"] for t in feed.snapshot()["tables"]] == [[26, 0]])
        time.sleep(1.0)  # what the posing table sent would have arrived by now
        assert [t["totals"] for t in feed.snapshot()["tables"]] == [[26, 0]]
    finally:
        posing.close(0.5)
        honest.close()
        feed.stop()


def test_a_wrong_password_keeps_the_events_on_disk(secured, tmp_path):
    pub = Publisher(at(secured, "T1", "wrong"), "T1", tmp_path / "T1", "cup")
    try:
        pub.update(deal_events(1, [26, 0]))
        assert not pub.connected.wait(1.5)
        assert pub.outbox.seq == 3 and pub.outbox.acked == 0  # waiting, not lost
    finally:
        pub.close(0.1)
    again = Publisher(at(secured, "T1", "t1-secret"), "T1", tmp_path / "T1", "cup")
    try:
        assert again.wait_sent(10)  # the password put right: sent
    finally:
        again.close()


def test_tables_and_board_over_tls(tmp_path):
    pytest.importorskip("paho.mqtt")
    if mosquitto() is None or shutil.which("openssl") is None:
        pytest.skip("mosquitto or openssl is not installed")
    ca, cert, key = (str(tmp_path / n) for n in ("ca.pem", "server.pem", "server.key"))

    def openssl(*args):
        subprocess.run(["openssl", *args], check=True, capture_output=True, cwd=tmp_path)

    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj",
            "/CN=Hakam test CA", "-keyout", "ca.key", "-out", ca)  # fmt: skip
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1", "-keyout", key,
            "-out", "server.csr")  # fmt: skip
    (tmp_path / "san.ext").write_text("subjectAltName=IP:127.0.0.1\n")
    openssl("x509", "-req", "-in", "server.csr", "-CA", ca, "-CAkey", "ca.key",
            "-CAcreateserial", "-days", "2", "-extfile", "san.ext", "-out", cert)  # fmt: skip
    with LocalBroker(tmp_path / "broker", tls=(ca, cert, key)) as local:
        assert local.url.startswith("mqtts://")
        feed = BoardFeed(Broker.parse(local.url, ca_file=ca), "cup")
        feed.start()
        pub = Publisher(Broker.parse(local.url, ca_file=ca), "T1", tmp_path / "T1", "cup")
        untrusting = Publisher(Broker.parse(local.url), "T2", tmp_path / "T2", "cup")
        try:
            pub.update(deal_events(1, [10, 16]))
            assert pub.wait_sent(10)
            assert wait_for(lambda: [t["totals"] for t in feed.snapshot()["tables"]] == [[10, 16]])
            # a table that does not trust the hall's certificate sends nothing, keeps it all
            untrusting.update(deal_events(1, [0, 26]))
            assert not untrusting.connected.wait(1.5)
            assert untrusting.outbox.acked == 0 and untrusting.outbox.seq == 3
        finally:
            untrusting.close(0.1)
            pub.close()
            feed.stop()
