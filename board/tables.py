"""What a tournament sees of one table: its match events and the view folded from them.

A table's referee (``hakam run``/``hakam table`` with ``--publish``) turns the pipeline's events
into **board events** (``board_events``): small JSON objects a scoreboard needs, each with an id
(``TABLE:SEQ``; ``seq`` counts up from 1 for the table, across its matches), the table, the match
and ``at`` (the table's clock when the event was made, seconds since the epoch). Kinds:

- ``deal``: a deal is played (``deal``, ``dealer``, ``contract``);
- ``trick``: a trick is won (``deal``, ``trick``, ``winner``);
- ``ruling``: a violation ruled or its footing changed (``status``: proven, suspected, accepted,
  dismissed or withdrawn; ``rule``, ``seat``, ``trick``, ``card``, ``text``, ``question``);
- ``correction``: a play named or changed (``by`` whom);
- ``score``: a deal's score (``result``, ``status`` final or provisional; a void deal 0-0);
- ``match``: the match is decided (``totals``, ``winner``).

``TableView`` folds them in order into what the board shows. A deal's score replaces the one
before it for that deal (a provisional score made final is not added twice), so the totals are
the same whatever was sent twice. Standard library only: the table runtime needs nothing more.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

# The pipeline's event types that become board events, and the kind they become.
_KINDS = {
    "deal": "deal",
    "trick": "trick",
    "violation": "ruling",
    "violation_status": "ruling",
    "withdrawn": "ruling",
    "correction": "correction",
    "score": "score",
    "void": "score",
    "match": "match",
}
RULING_STATUSES = ("proven", "suspected", "accepted", "dismissed", "withdrawn")
KINDS = ("deal", "trick", "ruling", "correction", "score", "match")


def board_events(events: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The board events (without id, table or time: ``Outbox.add`` gives them) of the
    pipeline's ``events``; events a scoreboard has no use for (plays, reads, notices) left out."""
    out: list[dict[str, Any]] = []
    for ev in events:
        kind = _KINDS.get(str(ev.get("type") or ev.get("event") or ""))
        if kind is None or (kind == "deal" and ev.get("contract") is None):
            continue  # a deal not yet bid is not played
        deal = ev.get("deal")
        if kind == "deal":
            out.append({"kind": kind, "deal": deal, "dealer": ev.get("dealer"),
                        "contract": _contract(ev["contract"])})  # fmt: skip
        elif kind == "trick":
            out.append({"kind": kind, "deal": deal, "trick": ev.get("trick"),
                        "winner": ev.get("winner")})  # fmt: skip
        elif kind == "ruling":
            status = "withdrawn" if ev.get("type") == "withdrawn" else ev.get("status", "proven")
            if status not in RULING_STATUSES:
                continue
            out.append({"kind": kind, "deal": deal, "trick": ev.get("trick"),
                        "seat": ev.get("seat"), "rule": ev.get("rule"), "card": ev.get("card"),
                        "status": status, "text": ev.get("text", ""),
                        "question": ev.get("question")})  # fmt: skip
        elif kind == "correction":
            out.append(
                {
                    "kind": kind,
                    "deal": deal,
                    "trick": ev.get("trick"),
                    "seat": ev.get("seat"),
                    "card": ev.get("card"),
                    "by": ev.get("by"),
                }
            )
        elif kind == "score":
            void = ev.get("type") == "void"
            result = [0, 0] if void else ev.get("result")
            if result is None:
                continue  # an incomplete deal: no score yet
            out.append({"kind": kind, "deal": deal, "result": [int(x) for x in result],
                        "status": "final" if void else ev.get("status") or "final",
                        "void": void})  # fmt: skip
        else:
            out.append({"kind": kind, "totals": list(ev.get("match", [0, 0])),
                        "winner": ev.get("winner")})  # fmt: skip
    return out


def _contract(contract: dict[str, Any]) -> dict[str, Any]:
    """The contract's words a board shows: Sun or Hokum (and trump), who bought it, doubling."""
    keep = ("kind", "trump", "declarer", "level")
    return {k: contract[k] for k in keep if k in contract}


@dataclass
class TableView:
    """One table as the board shows it, folded from its board events in ``seq`` order."""

    table: str
    tournament: str = ""
    teams: list[str] = field(default_factory=lambda: ["", ""])
    match: Any = None
    seq: int = 0
    deal: int | None = None  # the deal in progress (or the last one)
    contract: dict[str, Any] | None = None
    trick: int = 0  # tricks won so far in the deal in progress
    results: dict[str, dict[str, Any]] = field(default_factory=dict)  # deal -> result, status
    over: bool = False
    winner: int | None = None
    last_ruling: dict[str, Any] | None = None
    disputes: dict[str, dict[str, Any]] = field(default_factory=dict)  # suspected, waiting
    at: float = 0.0  # the time of the last event folded

    @property
    def totals(self) -> list[int]:
        a = sum(r["result"][0] for r in self.results.values())
        b = sum(r["result"][1] for r in self.results.values())
        return [a, b]

    def apply(self, ev: dict[str, Any]) -> None:
        """Fold one board event (the next ``seq``; the caller orders and dedups them)."""
        if ev.get("match") != self.match:  # a new match at this table (its teams come anew)
            self.match, self.results, self.disputes = ev.get("match"), {}, {}
            self.over, self.winner, self.last_ruling = False, None, None
            self.deal, self.contract, self.trick, self.teams = None, None, 0, ["", ""]
        self.seq, self.at = int(ev["seq"]), float(ev.get("at", 0.0))
        if ev.get("teams"):
            self.teams = list(ev["teams"])
        kind = ev["kind"]
        if kind == "deal":
            self.deal, self.contract, self.trick = ev["deal"], ev.get("contract"), 0
        elif kind == "trick":
            self.deal, self.trick = ev["deal"], int(ev.get("trick") or 0)
        elif kind == "ruling":
            key = _key(ev)
            self.last_ruling = {
                k: ev.get(k)
                for k in (
                    "deal",
                    "trick",
                    "seat",
                    "rule",
                    "card",
                    "status",
                    "text",
                    "question",
                    "evidence",
                )
            }
            if ev.get("status") == "suspected":
                self.disputes[key] = {**self.last_ruling, "id": ev["id"]}
            else:
                self.disputes.pop(key, None)
        elif kind == "score":
            self.results[str(ev["deal"])] = {"result": ev["result"], "status": ev["status"]}
        elif kind == "match":
            self.over, self.winner = True, ev.get("winner")

    def to_json(self) -> dict[str, Any]:
        """What the board's page is sent of the table."""
        return {
            "table": self.table, "tournament": self.tournament, "teams": self.teams,
            "match": self.match, "seq": self.seq, "deal": self.deal, "contract": self.contract,
            "trick": self.trick, "totals": self.totals,
            "provisional": sorted((int(d) for d, r in self.results.items()
                                   if r["status"] != "final"), key=int),
            "deals": len(self.results), "over": self.over, "winner": self.winner,
            "last_ruling": self.last_ruling, "disputes": list(self.disputes.values()),
            "results": self.results, "at": self.at,
        }  # fmt: skip

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TableView:
        """A view sent as ``to_json`` (a table's retained state): shown until its events are.
        ValueError where its fields are not what a view's are."""
        try:
            view = cls._from_json(data)
        except (KeyError, TypeError, AttributeError) as exc:
            raise ValueError(f"not a table's view ({exc})") from None
        fields = {"kind": "ruling", "seq": max(view.seq, 1), "table": view.table}
        rulings = [*view.disputes.values(), view.last_ruling]
        checks = [isinstance(d, dict) and valid_event({**d, **fields})
                  for d in rulings if d is not None]  # fmt: skip
        checks.append(valid_event({"kind": "trick", "seq": 1, "table": view.table,
                                   "deal": view.deal if view.deal is not None else 0,
                                   "teams": view.teams}))  # fmt: skip
        checks += [_two_ints(r.get("result")) for r in view.results.values()]
        if not all(checks) or not isinstance(view.contract, dict | None):
            raise ValueError("not a table's view (a field of the wrong type)")
        return view

    @classmethod
    def _from_json(cls, data: dict[str, Any]) -> TableView:
        view = cls(str(data["table"]), str(data.get("tournament", "")))
        view.teams = list(data.get("teams") or ["", ""])
        view.match, view.seq = data.get("match"), int(data.get("seq", 0))
        view.deal, view.contract = data.get("deal"), data.get("contract")
        view.trick, view.over = int(data.get("trick") or 0), bool(data.get("over"))
        view.winner, view.at = data.get("winner"), float(data.get("at", 0.0))
        view.last_ruling = data.get("last_ruling")
        view.disputes = {_key(d): d for d in data.get("disputes") or []}
        view.results = {str(k): dict(v) for k, v in (data.get("results") or {}).items()}
        return view

    def copy(self) -> TableView:
        return copy.deepcopy(self)


def valid_event(ev: Any) -> bool:
    """A board event whose fields have the types ``TableView.apply`` and the page rely on (a
    broker carries whatever anyone sends: one malformed message must not stop the board)."""
    if not isinstance(ev, dict) or ev.get("kind") not in KINDS:
        return False
    seq = ev.get("seq")
    if not isinstance(seq, int) or isinstance(seq, bool) or seq < 1:
        return False
    if not isinstance(ev.get("at", 0.0), int | float) or not isinstance(ev.get("table"), str):
        return False
    for name in ("deal", "trick", "seat", "dealer", "winner"):
        value = ev.get(name)
        if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
            return False
    for name in ("card", "rule", "status", "text", "question", "by", "evidence", "epoch"):
        if ev.get(name) is not None and not isinstance(ev.get(name), str):
            return False
    teams = ev.get("teams")
    if teams is not None and not (isinstance(teams, list) and len(teams) == 2
                                  and all(isinstance(t, str) for t in teams)):  # fmt: skip
        return False
    if ev.get("contract") is not None and not isinstance(ev.get("contract"), dict):
        return False
    pair = ev.get("result") if ev["kind"] == "score" else ev.get("totals")
    if ev["kind"] in ("score", "match") and not _two_ints(pair):
        return False
    return ev["kind"] not in ("deal", "trick", "score") or isinstance(ev.get("deal"), int)


def _two_ints(value: Any) -> bool:
    return isinstance(value, list) and len(value) == 2 and all(
        isinstance(x, int) and not isinstance(x, bool) for x in value)  # fmt: skip


def _key(ruling: dict[str, Any]) -> str:
    """What names one ruling across its events: deal, trick, seat, rule."""
    return f"{ruling.get('deal')}/{ruling.get('trick')}/{ruling.get('seat')}/{ruling.get('rule')}"
