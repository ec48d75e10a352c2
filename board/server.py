"""``hakam board``: the hall's scoreboard and the director's disputes, live, over the broker.

One paho client subscribes to every table's events and retained view (a persistent session:
while the board is away the broker keeps its events) and feeds the ``Hall``; the page opens a
server-sent-events stream (``/api/events``): every table at once, then each event applied with
its table's new view. A table's gap is asked for on its ``replay`` topic. Needs the ``board``
extra (``pip install hakam[board]``: paho-mqtt, starlette, uvicorn).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
import threading
from collections.abc import AsyncIterator
from importlib import resources
from typing import Any

import paho.mqtt.client as mqtt
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from hakam.board.hall import GAP_S, Hall
from hakam.board.localbroker import free_port
from hakam.board.mqtt import Broker, table_of, table_topic, tables_filter
from hakam.gui.i18n import RULE_NAMES

GRACE_S = 3  # seconds the server waits for open pages when it stops
KEEPALIVE_S = 15.0  # a comment line on a quiet stream, so that proxies keep it open


class BoardFeed:
    """The broker's side of the board: the hall, and the page streams it updates."""

    def __init__(self, broker: Broker, tournament: str, client_id: str | None = None) -> None:
        self.broker, self.tournament = broker, tournament
        self.hall = Hall(tournament)
        self._lock = threading.Lock()
        self._streams: list[tuple[asyncio.AbstractEventLoop, asyncio.Queue]] = []
        self.connected = threading.Event()
        self.client = mqtt.Client(
            mqtt.CallbackAPIVersion.VERSION2,
            client_id=client_id or f"hakam-{tournament}-board",
            clean_session=False,  # the broker keeps the events sent while the board is away
            protocol=mqtt.MQTTv311,
        )
        broker.configure(self.client)
        self.client.suppress_exceptions = True  # a message it cannot take never stops the board
        self.client.max_inflight_messages_set(200)
        self.client.reconnect_delay_set(min_delay=1, max_delay=4)
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
        self.client.on_message = self._on_message
        self._stop = threading.Event()
        self._asker = threading.Thread(target=self._ask_gaps, daemon=True)

    def start(self) -> None:
        self.client.connect_async(self.broker.host, self.broker.port, keepalive=10)
        self.client.loop_start()
        self._asker.start()

    def close_streams(self) -> None:
        """End every page's stream (a server stopping waits for them)."""
        self._stop.set()
        for loop, queue in list(self._streams):
            loop.call_soon_threadsafe(_offer, queue, STOP)

    def stop(self) -> None:
        """Close every page's stream, then the broker's side."""
        self.close_streams()
        self.client.disconnect()
        self.client.loop_stop()
        if self._asker.is_alive():
            self._asker.join(5)

    def _on_connect(self, client: Any, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        if reason.is_failure:
            return
        client.subscribe([(tables_filter(self.tournament, "events"), 1),
                          (tables_filter(self.tournament, "state"), 1)])  # fmt: skip
        self.connected.set()
        self._broadcast({"broker": True})

    def _on_disconnect(self, *args: Any) -> None:
        self.connected.clear()
        self._broadcast({"broker": False})

    def _on_message(self, client: Any, userdata: Any, msg: Any) -> None:
        try:
            self._take(msg)
        except Exception as exc:  # anyone may publish anything: count it, go on
            with self._lock:
                self.hall.rejected += 1
            print(f"[board] a message on {msg.topic} dropped: {type(exc).__name__}: {exc}",
                  file=sys.stderr, flush=True)  # fmt: skip

    def _take(self, msg: Any) -> None:
        where = table_of(msg.topic)
        if where is None:
            return
        try:
            data = json.loads(msg.payload)
        except (ValueError, UnicodeDecodeError):
            with self._lock:
                self.hall.rejected += 1
            return
        table, what = where
        with self._lock:
            if what == "events":
                updates = self.hall.take_event(table, data)
            elif what == "state" and self.hall.take_state(table, data):
                updates = [{"event": None, "view": self.hall.view(table)}]
            else:
                return
        for update in updates:
            self._broadcast(update)

    def _ask_gaps(self) -> None:
        while not self._stop.wait(GAP_S / 4):
            with self._lock:
                asks = self.hall.asks()
            for table, first, last in asks:
                topic = table_topic(self.tournament, table, "replay")
                self.client.publish(topic, json.dumps({"from": first, "to": last}), qos=1)

    def _broadcast(self, update: dict[str, Any]) -> None:
        data = json.dumps(update, ensure_ascii=False)
        for loop, queue in list(self._streams):
            loop.call_soon_threadsafe(_offer, queue, data)

    async def stream(self) -> AsyncIterator[str]:
        """One page's stream: the hall as it is, then each update; the hall again after the
        page fell ``STREAM_MAX`` updates behind (a stalled screen costs no memory)."""
        loop, queue = asyncio.get_running_loop(), asyncio.Queue(STREAM_MAX)
        with self._lock:
            first = json.dumps(self.snapshot_locked(), ensure_ascii=False)
            self._streams.append((loop, queue))
        try:
            yield f"event: snapshot\ndata: {first}\n\n"
            while not self._stop.is_set():
                try:
                    data = await asyncio.wait_for(queue.get(), KEEPALIVE_S)
                except TimeoutError:
                    yield ": still here\n\n"
                    continue
                if data is STOP:
                    return
                if data is RESYNC:
                    with self._lock:
                        again = json.dumps(self.snapshot_locked(), ensure_ascii=False)
                    yield f"event: snapshot\ndata: {again}\n\n"
                    continue
                yield f"event: update\ndata: {data}\n\n"
        finally:
            self._streams.remove((loop, queue))

    def snapshot_locked(self) -> dict[str, Any]:
        return {**self.hall.snapshot(), "broker": self.connected.is_set()}

    def snapshot(self) -> dict[str, Any]:
        with self._lock:
            return {**self.snapshot_locked(), "disputes": self.hall.disputes(),
                    "duplicates": self.hall.duplicates,
                    "rejected": self.hall.rejected}  # fmt: skip


STREAM_MAX = 2000  # updates a page may fall behind before it is sent the hall afresh
STOP, RESYNC = object(), object()


def _offer(queue: asyncio.Queue, data: Any) -> None:
    """Put ``data`` on a page's queue (on its loop); a full queue is emptied for a fresh
    snapshot (``RESYNC``), a stop always goes through."""
    if queue.full():
        while not queue.empty():
            queue.get_nowait()
        queue.put_nowait(STOP if data is STOP else RESYNC)
        return
    queue.put_nowait(data)


def page() -> str:
    return resources.files("hakam.board").joinpath("board.html").read_text(encoding="utf-8")


def make_app(feed: BoardFeed) -> Starlette:
    """The board's web app on ``feed`` (started and stopped with the app)."""

    async def index(request: Request) -> Response:
        return HTMLResponse(page())

    async def state(request: Request) -> Response:
        return JSONResponse(feed.snapshot())

    async def events(request: Request) -> Response:
        headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
        return StreamingResponse(feed.stream(), media_type="text/event-stream", headers=headers)

    async def words(request: Request) -> Response:
        return JSONResponse({"rules": RULE_NAMES})

    routes = [Route("/", index), Route("/director", index), Route("/api/state", state),
              Route("/api/events", events), Route("/api/words", words)]  # fmt: skip

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        feed.start()
        try:
            yield
        finally:
            feed.stop()

    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.feed = feed
    return app


class BackgroundServer:
    """The board's app served by uvicorn on a thread (tests, the load benchmark, screenshots):
    ``start`` returns once it listens; ``stop``."""

    def __init__(self, app: Starlette, host: str = "127.0.0.1", port: int = 0) -> None:
        import uvicorn

        self.host = host
        self.port = port or free_port(host)
        config = uvicorn.Config(app, host=host, port=self.port, log_level="warning",
                                timeout_graceful_shutdown=GRACE_S)  # fmt: skip
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def start(self, timeout: float = 10.0) -> BackgroundServer:
        self.thread.start()
        for _ in range(int(timeout / 0.05)):
            if self.server.started:
                return self
            threading.Event().wait(0.05)
        raise RuntimeError(f"the board did not start on {self.url} in {timeout} s")

    def stop(self) -> None:
        feed = getattr(self.server.config.app.state, "feed", None)
        if feed is not None:
            feed.close_streams()  # open pages would hold the server up
        self.server.should_exit = True
        self.thread.join(10)
