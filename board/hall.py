"""Every table of a tournament as the board knows it (standard library; the server feeds it).

``Hall.take_event`` takes a table's board event as the broker delivers it: once per id, in
``seq`` order per table (an event that comes early waits for the ones before it; the board asks
the table for a gap it cannot close). ``Hall.take_state`` takes a table's retained view: shown
until the table's events reach it (a board started in the middle of a match shows every table
at once), and a ``seq`` ahead of the events is a gap to ask for. Each event applied is returned
with the table's new view, for the page.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from hakam.board.tables import TableView

GAP_S = 1.0  # an event missing this long is asked of its table again (and again)


@dataclass
class _Table:
    view: TableView  # folded from the events applied
    sent: TableView | None = None  # the table's retained view, while ahead of the events
    early: dict[int, dict[str, Any]] = field(default_factory=dict)  # seq -> event, waiting
    gap_since: float | None = None
    asked_at: float = 0.0


class Hall:
    def __init__(self, tournament: str) -> None:
        self.tournament = tournament
        self.tables: dict[str, _Table] = {}
        self.duplicates = 0  # events delivered again and dropped (by id)

    def _table(self, table: str) -> _Table:
        if table not in self.tables:
            self.tables[table] = _Table(TableView(table, self.tournament))
        return self.tables[table]

    def take_event(self, table: str, ev: dict[str, Any], now: float | None = None
                   ) -> list[dict[str, Any]]:  # fmt: skip
        """The events now applied (``ev`` and any that waited for it), each with ``view``."""
        if ev.get("table") != table:
            return []  # a table publishes only under its own id
        t = self._table(table)
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

    def take_state(self, table: str, state: dict[str, Any], now: float | None = None) -> bool:
        """A table's retained view; True when the board shows it (it is ahead of the events)."""
        if state.get("table") != table:
            return False
        t = self._table(table)
        sent = TableView.from_json(state)
        if sent.seq <= t.view.seq:
            return False
        t.sent = sent
        self._gap(t, now)
        return True

    def _gap(self, t: _Table, now: float | None) -> None:
        missing = bool(t.early) or (t.sent is not None and t.sent.seq > t.view.seq)
        if not missing:
            t.gap_since = None
        elif t.gap_since is None:
            t.gap_since = time.monotonic() if now is None else now

    def asks(self, now: float | None = None) -> list[tuple[str, int]]:
        """(table, seq) for each table whose events have had a gap for ``GAP_S``: ask it to send
        them again from ``seq`` (asked again every ``GAP_S`` while the gap lasts)."""
        now = time.monotonic() if now is None else now
        out = []
        for name, t in self.tables.items():
            if t.gap_since is not None and now - t.gap_since >= GAP_S and now - t.asked_at >= GAP_S:
                t.asked_at = now
                out.append((name, t.view.seq + 1))
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
