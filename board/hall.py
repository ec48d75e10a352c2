"""Every table of a tournament as the board knows it (standard library; the server feeds it).

``Hall.take_event`` takes a table's board event as the broker delivers it: once per id, in
``seq`` order per table (an event that comes early waits for the ones before it; the board asks
the table for a gap it cannot close). ``Hall.take_state`` takes a table's retained view: shown
until the table's events reach it (a board started in the middle of a match shows every table
at once), and a ``seq`` ahead of the events is a gap to ask for. Each event applied is returned
with the table's new view, for the page. A message that is not a board event is dropped
(``rejected``): anyone can publish to a broker. A table's outbox has an ``epoch``: a table id
taken by another laptop (or a wiped data folder) starts the table afresh, not as repeats.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from hakam.board.tables import TableView, valid_event

GAP_S = 1.0  # an event missing this long is asked of its table; again after twice as long...
GAP_MAX_S = 16.0  # ... up to this long between asks while nothing arrives


@dataclass
class _Table:
    view: TableView  # folded from the events applied
    epoch: str | None = None
    sent: TableView | None = None  # the table's retained view, while ahead of the events
    early: dict[int, dict[str, Any]] = field(default_factory=dict)  # seq -> event, waiting
    gap_since: float | None = None
    asked_at: float = 0.0
    asked_seq: int = -1  # the view's seq when last asked (progress since: ask sooner)
    wait: float = GAP_S


class Hall:
    def __init__(self, tournament: str) -> None:
        self.tournament = tournament
        self.tables: dict[str, _Table] = {}
        self.duplicates = 0  # events delivered again and dropped (by id)
        self.rejected = 0  # messages that were not board events

    def _table(self, table: str, epoch: str | None) -> _Table:
        t = self.tables.get(table)
        if t is None or (epoch is not None and t.epoch is not None and epoch != t.epoch):
            t = self.tables[table] = _Table(TableView(table, self.tournament), epoch)
        elif t.epoch is None:
            t.epoch = epoch
        return t

    def take_event(self, table: str, ev: Any, now: float | None = None) -> list[dict[str, Any]]:
        """The events now applied (``ev`` and any that waited for it), each with ``view``."""
        if not valid_event(ev) or ev.get("table") != table:
            self.rejected += 1  # not a board event, or not under its own table's topic
            return []
        t = self._table(table, ev.get("epoch"))
        seq = int(ev["seq"])
        if seq <= t.view.seq or seq in t.early:
            self.duplicates += 1
            return []
        t.early[seq] = ev
        applied = []
        while t.view.seq + 1 in t.early:
            nxt = t.early.pop(t.view.seq + 1)
            t.view.apply(nxt)
            applied.append(nxt)
        if t.sent is not None and t.view.seq >= t.sent.seq:
            t.sent = None
        self._gap(t, now)
        view = self.view(table)
        return [{"event": e, "view": view} for e in applied]

    def take_state(self, table: str, state: Any, now: float | None = None) -> bool:
        """A table's retained view; True when the board shows it (it is ahead of the events)."""
        if not isinstance(state, dict) or state.get("table") != table:
            self.rejected += 1
            return False
        try:
            sent = TableView.from_json(state)
        except ValueError:
            self.rejected += 1
            return False
        t = self._table(table, state.get("epoch") if isinstance(state.get("epoch"), str) else None)
        if sent.seq <= t.view.seq:
            return False
        t.sent = sent
        self._gap(t, now)
        return True

    def _gap(self, t: _Table, now: float | None) -> None:
        missing = bool(t.early) or (t.sent is not None and t.sent.seq > t.view.seq)
        if not missing:
            t.gap_since, t.wait = None, GAP_S
        elif t.gap_since is None:
            t.gap_since = time.monotonic() if now is None else now

    def asks(self, now: float | None = None) -> list[tuple[str, int, int]]:
        """(table, from, to) for each table whose events have had a gap for ``GAP_S``: ask it to
        send them again, that range only. Asked again only after a wait that doubles while
        nothing arrives (up to ``GAP_MAX_S``), sooner once something has."""
        now = time.monotonic() if now is None else now
        out = []
        for name, t in self.tables.items():
            if t.gap_since is None or now - t.gap_since < GAP_S:
                continue
            if t.view.seq != t.asked_seq:
                t.wait = GAP_S  # progress since the last ask
            elif now - t.asked_at < t.wait:
                continue
            else:
                t.wait = min(2 * t.wait, GAP_MAX_S)
            t.asked_at, t.asked_seq = now, t.view.seq
            last = min(t.early) - 1 if t.early else t.sent.seq if t.sent else t.view.seq
            out.append((name, t.view.seq + 1, last))
        return out

    def view(self, table: str) -> dict[str, Any]:
        """What the page shows of ``table``: its events' view, or its retained one while that
        is ahead (``catching_up``)."""
        t = self.tables[table]
        shown = t.sent if t.sent is not None else t.view
        return {**shown.to_json(), "catching_up": t.sent is not None}

    def snapshot(self) -> dict[str, Any]:
        """Every table (a page that opens)."""
        return {"tournament": self.tournament,
                "tables": [self.view(name) for name in sorted(self.tables)]}  # fmt: skip

    def disputes(self) -> list[dict[str, Any]]:
        """The suspected rulings waiting across tables (the director's list), oldest first."""
        out = []
        for name in sorted(self.tables):
            view = self.view(name)
            out += [{**d, "table": name} for d in view["disputes"]]
        return out
