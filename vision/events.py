"""Event dicts of the live pipeline: JSON-serialisable, one ``type`` each.

They follow ``engine.replay``'s shapes where they overlap (``deal``, ``play``, ``violation``,
``trick``, ``score``), and carry the same name under ``event`` too, so a consumer written for
the replay (the GUI, a log reader) takes the live stream unchanged. Camera-only types:
``source``, ``open_card``, ``trick_collected``, ``uncertain``, ``correction``, ``end``.
"""

from __future__ import annotations

from typing import Any

# Types the pipeline emits, in the order they can first appear in a deal.
EVENT_TYPES: tuple[str, ...] = (
    "source", "deal", "open_card", "play", "violation", "trick", "trick_collected",
    "uncertain", "correction", "score", "end",
)  # fmt: skip


def event(kind: str, **fields: Any) -> dict[str, Any]:
    """An event dict: ``{"type": kind, "event": kind, **fields}``."""
    if kind not in EVENT_TYPES:
        raise ValueError(f"unknown event type {kind!r}")
    return {"type": kind, "event": kind, **fields}


def with_type(replay_event: dict[str, Any]) -> dict[str, Any]:
    """Give an ``engine.replay`` event the ``type`` field of the live stream."""
    return {"type": replay_event["event"], **replay_event}


def uncertain_text(seat: int | None, frames: int, fps: float) -> str:
    where = "on the table" if seat is None else f"in front of seat {seat}"
    return f"card {where} not read ({frames / fps:.1f} s without a sure read)"
