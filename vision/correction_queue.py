"""The table's corrections as a feed takes them: a queue the window or standard input fills,
taken in turn between frames, and after the clip while the feed stays open. The corrections one
of the window's answers made, or its refusal, give back the answer's id (``answer``): the window
then forgets the answer, or opens its notice again."""

from __future__ import annotations

import queue
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from hakam.vision.event_types import REFUSED

if TYPE_CHECKING:
    from hakam.vision.corrections import TableCorrections

# How often a feed waiting for the table's corrections after the clip hands back control.
IDLE_S = 0.25
# Put on a feed's corrections queue when no more will come (standard input closed).
NO_MORE_CORRECTIONS = None


class CorrectionQueue:
    """The corrections waiting in a feed's queue, taken in turn (``table_correction``)."""

    def __init__(self, pipeline: TableCorrections, corrections: queue.Queue | None) -> None:
        self.pipeline, self.queue, self.closed = pipeline, corrections, False

    def waiting(
        self, idle_s: float, go_on: Callable[[], bool]
    ) -> Iterator[list[dict[str, Any]] | None]:
        """After the clip: the events of each correction as it comes, None every ``idle_s``
        while none does (a feed's idle item), while ``go_on()`` and the queue is open."""
        while self.queue is not None and not self.closed and go_on():
            try:
                item = self.queue.get(timeout=idle_s)
            except queue.Empty:
                yield None
                continue
            yield self.take([item])

    def take(self, got: list[Any] | None = None) -> list[dict[str, Any]]:
        """The events of the corrections ``got`` and of those waiting in the queue."""
        items = list(got or [])
        while self.queue is not None:
            try:
                items.append(self.queue.get_nowait())
            except queue.Empty:
                break
        events: list[dict[str, Any]] = []
        for item in items:
            if item is NO_MORE_CORRECTIONS:
                self.closed = True
                continue
            new = self._answer(item)
            if item.get("answer") is not None:  # which of the window's answers: taken or refused
                for e in new:
                    refused = e["type"] == "uncertain" and str(e["text"]).startswith(REFUSED)
                    if refused or e["type"] == "correction":
                        e["answer"] = item["answer"]
            events += new
        return events

    def _answer(self, item: dict[str, Any]) -> list[dict[str, Any]]:
        seat, deal, trick = item.get("seat"), item.get("deal"), item.get("trick")
        if item.get("confirm"):
            return self.pipeline.table_confirmation(
                int(item["trick"]), None if seat is None else int(seat), item.get("rule"),
                None if deal is None else int(deal), item.get("card"),
            )  # fmt: skip
        return self.pipeline.table_correction(
            str(item.get("card")),
            None if seat is None else int(seat),
            None if deal is None else int(deal),
            str(item.get("by", "table")),
            None if trick is None else int(trick),
            item.get("replaces"),
        )
