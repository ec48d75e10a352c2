"""Event dicts of the live pipeline: JSON-serialisable, one ``type`` each.

They follow ``hakam.engine.replay``'s shapes where they overlap (``deal``, ``play``, ``violation``,
``trick``, ``score``), and carry the same name under ``event`` too, so a consumer written for
the replay (the GUI, a log reader) takes the live stream unchanged. Camera-only types:
``source``, ``open_card``, ``trick_collected``, ``uncertain``, ``correction``, ``withdrawn`` (a
violation that no longer stands once a correction has been refereed again), ``violation_status``
(a standing violation now ``proven`` or ``suspected``: a play it rests on was renamed, named or
confirmed), ``end``; in a match (``hakam.vision.match``) ``void`` (all passed) and ``match`` (the
match is over: its totals and winner).
"""

from __future__ import annotations

from typing import Any

# Types the pipeline emits, in the order they can first appear in a deal.
EVENT_TYPES: tuple[str, ...] = (
    "source", "deal", "void", "open_card", "play", "violation", "trick", "trick_collected",
    "uncertain", "correction", "withdrawn", "violation_status", "score", "end",
    "match",
)  # fmt: skip


def event(kind: str, **fields: Any) -> dict[str, Any]:
    """An event dict: ``{"type": kind, "event": kind, **fields}``."""
    if kind not in EVENT_TYPES:
        raise ValueError(f"unknown event type {kind!r}")
    return {"type": kind, "event": kind, **fields}


def with_type(replay_event: dict[str, Any]) -> dict[str, Any]:
    """Give an ``hakam.engine.replay`` event the ``type`` field of the live stream."""
    return {"type": replay_event["event"], **replay_event}


def standing_violations(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The ``violation`` events of a stream not ``withdrawn`` later: what the table is left with,
    each with its last status (``violation_status`` events: proven or suspected)."""
    keys = ("deal", "trick", "seat", "rule", "card")
    gone = [tuple(e.get(k) for k in keys) for e in events if e["type"] == "withdrawn"]
    out = []
    for e in events:
        if e["type"] != "violation":
            continue
        key = tuple(e.get(k) for k in keys)
        if key in gone:
            gone.remove(key)
        else:
            out.append(e)
    place = {id(e): i for i, e in enumerate(events)}
    for n, e in enumerate(events):
        if e["type"] != "violation_status":
            continue
        key = tuple(e.get(k) for k in keys)
        for i, v in enumerate(out):
            if tuple(v.get(k) for k in keys) == key and place.get(id(v), -1) < n:
                out[i] = {**v, "status": e["status"], "question": e.get("question")}
                place[id(out[i])] = n
    return out


def uncertain_text(seat: int | None, frames: int, fps: float) -> str:
    where = "on the table" if seat is None else f"in front of seat {seat}"
    return f"card {where} not read ({frames / fps:.1f} s without a sure read)"
