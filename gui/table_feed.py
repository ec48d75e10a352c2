"""Table mode's feed: the camera's match (``hakam.vision.match.MatchPipeline``) run off the GUI
thread, each deal set up by the bidding panel.

The panel's set-up lines come through a queue (``DealSetupController.play_on_camera``). While
the match waits for one, a camera goes on (the live view shows the table, the open card is
read and put in the panel); a recorded video or folder holds still once the open card is read,
until the table has bid, so no play goes by unrefereed. Every item that changed the match
carries its state (``MatchPipeline.checkpoint``): the window commits it to the match store, so
a crash loses nothing (``hakam table`` goes on from there).
"""

from __future__ import annotations

import queue
from collections.abc import Iterable, Iterator
from typing import Any

from hakam.gui.feed import FeedItem
from hakam.vision.correction_queue import CorrectionQueue
from hakam.vision.events import event
from hakam.vision.match import MatchError, MatchPipeline
from hakam.vision.sources import Frame, SourceNotice

IDLE_S = 0.2  # how often a held feed looks for the set-up (and lets the window stop it)


class SetupQueue:
    """The set-up lines the panel sends, handed to the match one deal at a time."""

    def __init__(self) -> None:
        self.queue: queue.Queue = queue.Queue()
        self._ready: list[dict[str, Any]] = []

    def put(self, line: dict[str, Any]) -> None:
        """From the GUI thread: the panel's ``start_deal``."""
        self.queue.put(line)

    def take(self, timeout: float | None = None) -> bool:
        """Move what the panel sent to the match's side (waiting up to ``timeout`` seconds
        for a first line); True if a line came."""
        got: list[dict[str, Any]] = []
        try:
            if timeout:
                got.append(self.queue.get(timeout=timeout))
            while True:
                got.append(self.queue.get_nowait())
        except queue.Empty:
            pass
        self._ready += got
        return bool(got)

    def __call__(self, deal: int) -> dict[str, Any] | None:
        """``MatchPipeline``'s ``setups``: deal ``deal``'s line, None while the table bids."""
        return self._ready.pop(0) if self._ready else None


def table_feed(
    match: MatchPipeline,
    frames: Iterable[Frame | SourceNotice],
    setups: SetupQueue,
    corrections: queue.Queue | None = None,
    hold: bool = True,
    keep_open: bool = False,
) -> Iterator[FeedItem]:
    """``FeedItem``s of the match on ``frames`` (``hold``: a recording waits for the bidding);
    ``item.state`` is the match's state after each item that changed it. ``keep_open``: after
    the match (or the recording) ends, the corrections go on being taken (the window, where a
    dispute may correct a deal of the match), an idle item every ``IDLE_S`` meanwhile."""
    feed = CorrectionQueue(match, corrections)
    events = match.start_events()
    yield FeedItem(None, [], events, None, match.checkpoint())
    for frame in frames:
        if isinstance(frame, SourceNotice):  # the camera unplugged (the deal waits), or back
            notice = event("source", text=frame.text, lost=frame.lost)
            yield FeedItem(None, [], [notice], None, None)
            continue
        setups.take()
        events = feed.take()  # the table's answers: their events reach the window whatever
        try:
            events += match.process(frame)
        except MatchError as exc:  # a set-up the match refuses: said, the match waits on
            events.append(event("source", text=str(exc), error=True))
        state = match.checkpoint() if events else None
        yield FeedItem(frame.image, match.last_detections.to_json(), events,
                       match.last_detect_ms, state)  # fmt: skip
        while hold and match.waiting and match.open_card is not None and not match.over:
            if setups.take(timeout=IDLE_S):  # the table has bid: play the deal
                break
            yield FeedItem(None, [], feed.take(), None, None)  # idle: the worker may stop here
        if match.over:
            break
    end = match.finish()
    yield FeedItem(None, [], end, None, match.checkpoint())
    for events in feed.waiting(IDLE_S, lambda: keep_open):
        yield FeedItem(None, [], events or [], None, match.checkpoint() if events else None)
