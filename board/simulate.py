"""Simulated tables for the board's tests and load benchmark: a deal's pipeline events as a
table's referee emits them (only the kinds a board hears, and one play), sent through the real
``Publisher``."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any


def deal_events(deal: int, result: list[int], status: str = "final",
                ruling: str | None = None) -> list[dict[str, Any]]:  # fmt: skip
    """Deal ``deal`` played in Hokum and scored ``result``; ``ruling``: a revoke in trick 1
    with that status (proven, suspected)."""
    events: list[dict[str, Any]] = [
        {"type": "deal", "deal": deal, "dealer": (deal - 1) % 4,
         "contract": {"kind": "hokum", "trump": "S", "declarer": 1, "level": "none"}},
        {"type": "play", "deal": deal, "trick": 1, "seat": 0, "card": "7S"},
        {"type": "trick", "deal": deal, "trick": 1, "winner": 2, "points": 10},
    ]  # fmt: skip
    if ruling is not None:
        events.append({
            "type": "violation", "deal": deal, "trick": 1, "seat": 2, "rule": "follow-suit",
            "card": "AC", "status": ruling, "text": "seat 2 did not follow suit in trick 1",
            "question": "Did seat 2 play AC in trick 1? The ruling depends on it",
        })  # fmt: skip
    events.append({"type": "score", "deal": deal, "result": result, "status": status})
    return events


def wait_for(check: Callable[[], Any], timeout: float = 10.0, what: str = "") -> bool:
    """Poll ``check`` until it is true (True) or ``timeout`` seconds pass (AssertionError, saying
    ``what``): tables and a board talk through a broker, so tests wait for what they send."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if check():
            return True
        time.sleep(0.05)
    raise AssertionError(f"waited {timeout} s for {what or check}")
