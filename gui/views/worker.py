"""The feed runs on its own thread so the window never waits for capture or detection."""

from __future__ import annotations

import time
from collections.abc import Iterable

from PySide6.QtCore import QThread, Signal

from hakam.gui.feed import FeedItem


class FeedWorker(QThread):
    """Pulls ``FeedItem``s from an iterator off the GUI thread and hands them over by signal.

    ``stats`` carries the measured frame rate (smoothed over the last frames) and the detector
    time: the item's own ``detector_ms`` when the pipeline reports it, else how long the worker
    waited for the item. ``max_fps`` paces a recorded feed to real time; it is not counted.

    Only frames are measured: an item without one (the match's end, a correction taken after
    the clip, the table bidding while a recording holds) is no frame of the camera's, and the
    time to it is not its rate. Counted, the rate fell towards 0 once the clip ended, as if the
    program slowed; so ``stats`` is sent for frames only, and the last rate stays shown.
    """

    item = Signal(object)
    stats = Signal(float, float)

    def __init__(self, feed: Iterable[FeedItem], max_fps: float | None = None, parent=None):
        super().__init__(parent)
        self._feed = feed
        self._min_gap = 1.0 / max_fps if max_fps else 0.0

    def run(self) -> None:
        it = iter(self._feed)
        last = None
        fps = 0.0
        while not self.isInterruptionRequested():
            t0 = time.perf_counter()
            try:
                item = next(it)
            except StopIteration:
                break
            if item.frame is None:
                last = None  # a pause (a hold, the clip's end): the next frame starts anew
                if item.events or item.state is not None:
                    self.item.emit(item)
                continue  # else the feed waits (for the table's corrections): nothing to show
            waited = (time.perf_counter() - t0) * 1000
            detector_ms = item.detector_ms if item.detector_ms is not None else waited
            if self._min_gap and last is not None:
                rest = self._min_gap - (time.perf_counter() - last)
                if rest > 0:
                    time.sleep(rest)
            now = time.perf_counter()
            if last is not None and now > last:
                fps = 1.0 / (now - last) if fps == 0 else 0.8 * fps + 0.2 / (now - last)
            last = now
            self.item.emit(item)
            self.stats.emit(fps, detector_ms)
