"""A table's board events on disk, before and after the broker has them (nothing lost).

Every board event is appended to ``events.jsonl`` (flushed and synced) before it is sent; the
highest ``seq`` up to which the broker acknowledged every event is kept in ``acked``. A table
that loses the broker, or is restarted, sends what is after ``acked`` again when it can; the
board drops what it already has by id, so nothing is lost and nothing is counted twice.
The table's view (``TableView``) is folded again from the file when the table restarts.
"""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path
from typing import Any

from hakam.board.tables import TableView


class OutboxError(ValueError):
    """The outbox folder cannot be used (another table's, or not writable)."""


class Outbox:
    """The events of table ``table`` in ``folder`` (created); thread-safe."""

    def __init__(self, folder: Path | str, table: str, tournament: str = "") -> None:
        self.folder = Path(folder)
        self.table, self.tournament = table, tournament
        self._lock = threading.Lock()
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            self.events: list[dict[str, Any]] = self._read()
            self._file = (self.folder / "events.jsonl").open("a", encoding="utf-8")
        except OSError as exc:
            raise OutboxError(
                f"outbox {self.folder}: cannot write there ({exc.strerror})"
            ) from None
        wrong = [e["table"] for e in self.events if e.get("table") != table]
        if wrong:
            self._file.close()
            raise OutboxError(f"outbox {self.folder}: holds table {wrong[0]!r}'s events, "
                              f"not {table!r}'s")  # fmt: skip
        self.epoch = self._epoch()
        try:
            self.acked = min(int((self.folder / "acked").read_text()), len(self.events))
        except (OSError, ValueError):
            self.acked = 0  # none yet, or cut by a power loss: sending again is harmless
        self._done: set[int] = set()  # acknowledged above ``acked`` (out of order)
        self.view = TableView(table, tournament)
        for ev in self.events:
            self.view.apply(ev)

    def _read(self) -> list[dict[str, Any]]:
        path = self.folder / "events.jsonl"
        if not path.is_file():
            return []
        out, good = [], 0
        data = path.read_bytes()
        for line in data.splitlines(keepends=True):
            try:
                out.append(json.loads(line))
            except (json.JSONDecodeError, UnicodeDecodeError):
                break  # a line cut by a crash mid-write: the events before it stand
            if not line.endswith(b"\n"):
                out.pop()  # its end of line not written: never sent (sending follows)
                break
            good += len(line)
        if good != len(data):  # the cut line goes, so the next event starts a line of its own
            with path.open("r+b") as f:
                f.truncate(good)
        return out

    def _epoch(self) -> str:
        """This outbox's id (random, kept): the board tells a table id's new laptop, or a wiped
        data folder, from repeats of what it has."""
        path = self.folder / "epoch"
        try:
            found = path.read_text().strip()
        except OSError:
            found = ""
        if not found:
            found = os.urandom(8).hex()
            path.write_text(found)
        return found

    @property
    def seq(self) -> int:
        return len(self.events)

    def add(self, event: dict[str, Any], match: Any, teams: list[str] | None = None,
            at: float | None = None) -> dict[str, Any]:  # fmt: skip
        """Give ``event`` (a board event) its id, table, match and time; write it; fold it."""
        with self._lock:
            seq = len(self.events) + 1
            ev = {"id": f"{self.table}:{seq}", "seq": seq, "table": self.table,
                  "tournament": self.tournament, "match": match, "epoch": self.epoch,
                  "at": time.time() if at is None else at, **event}  # fmt: skip
            if teams:
                ev["teams"] = list(teams)
            self._file.write(json.dumps(ev, ensure_ascii=False) + "\n")
            self._file.flush()
            os.fsync(self._file.fileno())
            self.events.append(ev)
            self.view.apply(ev)
            return ev

    def unacked(self) -> list[dict[str, Any]]:
        """The events the broker has not acknowledged, in order."""
        with self._lock:
            return [e for e in self.events[self.acked :] if e["seq"] not in self._done]

    def since(self, seq: int, last: int | None = None) -> list[dict[str, Any]]:
        """The events from ``seq`` to ``last`` (the end: None), a board that missed them asks."""
        with self._lock:
            return list(self.events[max(seq, 1) - 1 : last])

    def ack(self, seq: int) -> None:
        """The broker has event ``seq``; ``acked`` moves on over every event acknowledged."""
        with self._lock:
            if seq <= self.acked:
                return  # sent again (a replay): acknowledged before
            self._done.add(seq)
            moved = self.acked
            while moved + 1 in self._done:
                moved += 1
                self._done.discard(moved)
            if moved != self.acked:
                self.acked = moved
                tmp = self.folder / "acked.tmp"
                with tmp.open("w") as f:
                    f.write(str(moved))
                    f.flush()
                    os.fsync(f.fileno())
                tmp.replace(self.folder / "acked")

    def state(self) -> dict[str, Any]:
        """The table's view as the board shows it (sent retained), with the outbox's epoch."""
        with self._lock:
            return {**self.view.to_json(), "epoch": self.epoch}

    def close(self) -> None:
        self._file.close()
