"""A table publishing its match to the tournament's broker (``--publish``; needs paho-mqtt).

``Publisher.update(events)`` takes the pipeline's events after the match state is committed:
the board events among them are written to the table's ``Outbox`` first, then sent (QoS 1),
then the table's view is sent retained. While the broker is away the events wait on disk; when
it is back (paho reconnects by itself), everything it has not acknowledged is sent again, in
order. A board that finds a gap in a table's ``seq`` asks on the ``replay`` topic and the table
sends those events again. Ids make every resend harmless.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt

from hakam.board.mqtt import Broker, BrokerError, check_name, table_topic
from hakam.board.outbox import Outbox
from hakam.board.tables import board_events

QOS = 1
REPLAY_S = 5.0  # the same range asked again within this long is not sent again


class Publisher:
    """Table ``table`` of ``tournament`` on ``broker``; its outbox in ``folder``."""

    def __init__(
        self, broker: Broker, table: str, folder: Path | str, tournament: str = "main",
        teams: list[str] | None = None, match: Any = None, evidence_url: str | None = None,
    ) -> None:  # fmt: skip
        self.broker = broker
        self.table = check_name(table, "--table-id")
        self.tournament = check_name(tournament, "--tournament")
        self.outbox = Outbox(folder, table, tournament)
        self.teams, self.match, self.evidence_url = teams, match, evidence_url
        self._lock = threading.Lock()  # never held while calling paho (its thread calls back)
        self._mids: dict[int, int | None] = {}  # paho's message id -> the event's seq
        self._early: set[int] = set()  # acknowledged before ``_publish`` had noted them
        self._replayed: tuple[int, int | None] | None = None  # the last range a board asked for
        self._replayed_at = 0.0
        self.connected = threading.Event()
        self.client = mqtt.Client(
            mqtt.CallbackAPIVersion.VERSION2,
            client_id=f"hakam-{tournament}-table-{table}",
            protocol=mqtt.MQTTv311,
        )
        try:
            broker.configure(self.client)
        except BrokerError:
            self.outbox.close()
            raise
        self.client.max_inflight_messages_set(200)
        self.client.max_queued_messages_set(0)
        self.client.reconnect_delay_set(min_delay=1, max_delay=4)
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
        self.client.on_publish = self._on_publish
        self.client.on_message = self._on_replay
        self.client.connect_async(broker.host, broker.port, keepalive=10)
        self.client.loop_start()
        for ev in self.outbox.unacked():  # from before a restart: paho sends them once connected
            self._send(ev)

    def _topic(self, what: str) -> str:
        return table_topic(self.tournament, self.table, what)

    def update(self, events: Iterable[dict[str, Any]], match: Any = None) -> list[dict[str, Any]]:
        """The board events of the pipeline's ``events``, written then sent; ``match``: the
        match they belong to (default: the one given before)."""
        if match is not None:
            self.match = match
        sent = []
        for ev in board_events(events):
            if ev["kind"] == "ruling" and self.evidence_url and ev.get("deal") is not None:
                ev["evidence"] = f"{self.evidence_url.rstrip('/')}/deal-{int(ev['deal']):02d}/"
            sent.append(self._add(ev))
        if sent:
            self._send_state()  # the view once, after the frame's events (it is retained)
        return sent

    def add(self, event: dict[str, Any], at: float | None = None) -> dict[str, Any]:
        """One board event: to disk, then to the broker (paho keeps it until the broker
        acknowledges it, across reconnections), then the table's view, retained."""
        ev = self._add(event, at)
        self._send_state()
        return ev

    def _add(self, event: dict[str, Any], at: float | None = None) -> dict[str, Any]:
        first = self.outbox.seq == 0 or self.outbox.view.match != self.match
        ev = self.outbox.add(event, self.match, self.teams if first else None, at)
        self._send(ev)
        return ev

    def _send(self, ev: dict[str, Any]) -> None:
        self._publish("events", json.dumps(ev, ensure_ascii=False), ev["seq"])

    def _send_state(self) -> None:
        self._publish("state", json.dumps(self.outbox.state(), ensure_ascii=False), None)

    def _publish(self, what: str, payload: str, seq: int | None) -> None:
        """Publish (paho keeps a message until the broker acknowledges it, across
        reconnections; queued while the broker is away); the event's ``seq`` is marked on disk
        once acknowledged. Every message's id is noted: paho reuses them."""
        info = self.client.publish(self._topic(what), payload, qos=QOS, retain=what == "state")
        if info.rc not in (mqtt.MQTT_ERR_SUCCESS, mqtt.MQTT_ERR_NO_CONN):
            return  # not queued: the event waits on disk for the next start
        with self._lock:
            acked = info.mid in self._early
            if acked:
                self._early.discard(info.mid)
            else:
                self._mids[info.mid] = seq
        if acked and seq is not None:
            self.outbox.ack(seq)

    # --- paho's thread -------------------------------------------------------------------

    def _on_connect(self, client: Any, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        if reason.is_failure:
            return  # refused (log-in): paho tries again; the events wait on disk
        client.subscribe(self._topic("replay"), qos=QOS)
        self.connected.set()

    def _on_disconnect(self, client: Any, userdata: Any, flags: Any, reason: Any,
                       props: Any) -> None:  # fmt: skip
        self.connected.clear()

    def _on_publish(self, client: Any, userdata: Any, mid: int, reason: Any, props: Any) -> None:
        with self._lock:
            if mid not in self._mids:
                self._early.add(mid)
                return
            seq = self._mids.pop(mid)
        if seq is not None:
            self.outbox.ack(seq)

    def _on_replay(self, client: Any, userdata: Any, msg: Any) -> None:
        try:
            ask = json.loads(msg.payload)
            start = int(ask["from"])
            last = None if ask.get("to") is None else int(ask["to"])
        except (ValueError, KeyError, TypeError):
            return  # not a replay request
        now = time.monotonic()
        if self._replayed == (start, last) and now - self._replayed_at < REPLAY_S:
            return  # that range is on its way already
        self._replayed, self._replayed_at = (start, last), now
        for ev in self.outbox.since(start, last):
            self._send(ev)

    def wait_sent(self, timeout: float) -> bool:
        """Wait until the broker has acknowledged every event (tests, a table closing)."""
        end = time.monotonic() + timeout
        while True:
            if not self.outbox.unacked() or time.monotonic() > end:
                return not self.outbox.unacked()
            time.sleep(0.05)

    def close(self, timeout: float = 2.0) -> None:
        """Send what can be sent in ``timeout``, then disconnect (the rest waits on disk)."""
        if self.connected.is_set():
            self.wait_sent(timeout)
        self.client.disconnect()
        self.client.loop_stop()
        self.outbox.close()
