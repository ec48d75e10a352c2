"""What the camera pipeline hands the overlay: frames, card reads and referee events.

``FeedItem`` is the unit the GUI worker thread consumes. ``demo_feed`` produces the same items
from a recorded match (``hakam.engine.replay``) with drawn frames, so the overlay can be seen and
tested
before the camera pipeline lands; its reads are exact by construction (conf 1.0).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from hakam.engine.replay import load_match, replay_match

FRAME_W, FRAME_H = 960, 600
CARD_W, CARD_H = 80, 112
FELT_BGR = (40, 95, 30)
# Where each seat's card lands in the play area: seat 0 near the camera (bottom), then to the
# right round the table (seat 1 right, 2 far side, 3 left), as the play goes.
SEAT_OFFSETS = {0: (0, 90), 1: (130, 0), 2: (0, -90), 3: (-130, 0)}
PLAY_AREA = (0.28, 0.18, 0.72, 0.82)  # x1, y1, x2, y2 as fractions of the frame


@dataclass
class FeedItem:
    """One step of the feed: a BGR frame, the cards read in it, and the events it produced.

    ``detector_ms`` is the detector's own time when the pipeline measures it; otherwise the
    worker reports the time it waited for the item.
    """

    frame: np.ndarray | None
    detections: list[dict[str, Any]] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    detector_ms: float | None = None
    state: dict[str, Any] | None = None  # table mode: the match's state to store (a restart)


def card_box(seat: int) -> list[float]:
    dx, dy = SEAT_OFFSETS[seat]
    cx, cy = FRAME_W // 2 + dx, FRAME_H // 2 + dy
    return [cx - CARD_W / 2, cy - CARD_H / 2, cx + CARD_W / 2, cy + CARD_H / 2]


@lru_cache(maxsize=1)
def _felt() -> np.ndarray:
    """The empty table: felt colour with a fixed grain (drawn once)."""
    frame = np.empty((FRAME_H, FRAME_W, 3), np.uint8)
    frame[:] = FELT_BGR
    noise = np.random.default_rng(0).integers(0, 12, (FRAME_H, FRAME_W, 1), dtype=np.uint8)
    return cv2.add(frame, np.repeat(noise, 3, axis=2))


def draw_table(cards: list[tuple[int, str]]) -> np.ndarray:
    """A top-down felt table with the played cards face up in front of their seats."""
    frame = _felt().copy()
    for seat, card in cards:
        x1, y1, x2, y2 = (int(v) for v in card_box(seat))
        cv2.rectangle(frame, (x1 + 3, y1 + 4), (x2 + 3, y2 + 4), (20, 50, 15), -1)
        cv2.rectangle(frame, (x1, y1), (x2, y2), (245, 245, 240), -1)
        cv2.rectangle(frame, (x1, y1), (x2, y2), (60, 60, 60), 1)
        red = card[-1] in "HD"
        colour = (30, 30, 200) if red else (20, 20, 20)
        rank, suit = card[:-1], card[-1]
        cv2.putText(frame, rank, (x1 + 8, y1 + 34), cv2.FONT_HERSHEY_SIMPLEX, 0.9, colour, 2)
        cv2.putText(frame, suit, (x1 + 28, y1 + 88), cv2.FONT_HERSHEY_SIMPLEX, 1.4, colour, 3)
    return frame


def demo_feed(
    match: dict[str, Any] | None = None, evidence_dir: str | Path | None = None
) -> Iterator[FeedItem]:
    """The bundled demo match as the camera would report it, one item per played card.

    With ``evidence_dir`` each card read is also saved as a JPEG crop and its path put in the
    ``play`` event (``"evidence"``), as the dispute view expects from the pipeline.
    """
    out_dir = Path(evidence_dir) if evidence_dir is not None else None
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
    on_table: list[tuple[int, str]] = []
    pending: list[dict[str, Any]] = []
    frame = draw_table([])
    for event in replay_match(match if match is not None else load_match()):
        kind = event["event"]
        if kind in ("play", "deal") and pending:
            yield _item(frame, on_table, pending)
            pending = []
        if kind == "deal":
            on_table = []
            frame = draw_table([])
        elif kind == "play":
            if len(on_table) == 4:
                on_table = []
            on_table.append((event["seat"], event["card"]))
            frame = draw_table(on_table)
            if out_dir is not None:
                x1, y1, x2, y2 = (int(v) for v in card_box(event["seat"]))
                path = out_dir / f"deal{event['deal']}_trick{event['trick']}_{event['card']}.jpg"
                cv2.imwrite(str(path), frame[y1 - 6 : y2 + 6, x1 - 6 : x2 + 6])
                event = {**event, "evidence": str(path)}
        pending.append(event)  # a violation stays with the play that proved it
    if pending:
        yield _item(frame, on_table, pending)


def _item(frame: np.ndarray, cards: list[tuple[int, str]], events: list[dict]) -> FeedItem:
    dets = [{"card": c, "conf": 1.0, "box": card_box(s), "seat": s} for s, c in cards]
    return FeedItem(frame, dets, list(events))
