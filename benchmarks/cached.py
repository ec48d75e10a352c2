"""What two benchmarks share: reads replayed from a cache, and a person answering notices.

``CachedDetector`` replays the reads a detector made of a clip, so a change to the pipeline is
scored again on the same reads in seconds; ``answer_as_the_table`` plays the person at the table
who answers each notice with the card really lying there.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

import numpy as np

from hakam.engine.cards import CARD_NAMES
from hakam.vision.detections import Detections
from hakam.vision.detector import drop_ruled_out
from hakam.vision.pipeline import Pipeline
from hakam.vision.reader import collected_in_sight, name_boxes
from hakam.vision.sources import Frame


class CachedDetector:
    """Replays cached reads, frame by frame, above a confidence threshold.

    A two-stage detector's cache holds each frame's boxes and probabilities (``boxes``), so
    the cards a live run rules out are ruled out here the same way (``name_boxes``).
    """

    name = "cached"

    def __init__(self, reads: list[tuple[np.ndarray, ...]], conf: float, boxes: bool = False,
                 told: tuple | None = None):  # fmt: skip
        self.reads, self.conf, self.frame, self.boxes = reads, conf, 0, boxes
        self.in_sight = Detections.empty()  # as ``TwoStageDetector``: collected cards in sight
        # A checked reader's reads: the frame where the cards were found to read more like
        # another reader, what was told, the reader chosen and the other (``_ToldAt``).
        self.deck_check = None if told is None else _ToldAt(self, *told)

    def detect(self, image: np.ndarray, ruled_out: Collection[int] = ()) -> Detections:
        read = self.reads[self.frame]
        self.frame += 1
        if self.boxes:
            self.in_sight = collected_in_sight(read[0], read[1], ruled_out)
            return name_boxes(*read, self.conf, ruled_out)
        xyxy, conf, cls = read
        keep = conf >= self.conf
        return drop_ruled_out(Detections(xyxy[keep], conf[keep], cls[keep]), ruled_out)


class _ToldAt:
    """A deck check replayed: its notice told (``tell``) once the replay reaches its frame.
    ``name``: the deck chosen, ``like``: the one the cards read more like (None: the standard
    readers; a cache kept before the check named it has none)."""

    def __init__(self, replay: CachedDetector, frame: int, text: str, name: str | None,
                 like: str | None = None) -> None:  # fmt: skip
        self.replay, self.at, self.text, self.name, self.like = replay, frame, text, name, like

    def tell(self) -> str | None:
        if self.text is None or self.replay.frame <= self.at:
            return None
        text, self.text = self.text, None
        return text


def answer_as_the_table(
    pipe: Pipeline, frames: list[Frame], plays: list[tuple[int, int, int]]
) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """Run ``frames`` with a person at the table answering each notice where the deal waits:
    one click on the card really lying there for the seat on turn (from the truth ``plays``),
    sent as the overlay sends it (``Pipeline.table_correction``). Returns the events and the
    answers: asked, the notice's first offer right (``offered_first``), refused."""
    truth_of = {(t, s): c for t, s, c in plays}
    events = pipe.start_events()
    n = {"asked": 0, "offered_first": 0, "refused": 0}

    def take(queue: list[dict[str, Any]]) -> None:
        while queue:  # an answer's own events may ask the next question at once
            e = queue.pop(0)
            events.append(e)
            text = e.get("text", "")
            if e["type"] != "uncertain" or "waits" not in text or text.startswith("correction:"):
                continue
            card = truth_of.get((pipe.referee.trick_number, pipe.seat_waited_for))
            if card is None or pipe.referee.is_over:
                continue
            n["asked"] += 1
            n["offered_first"] += (e.get("guesses") or [None])[0] == CARD_NAMES[card]
            got = pipe.table_correction(CARD_NAMES[card], pipe.seat_waited_for, by="benchmark")
            n["refused"] += any(
                g["type"] == "uncertain" and g["text"].startswith("correction:") for g in got
            )
            queue += got

    for f in frames:
        take(pipe.process(f))
    take(pipe.finish())
    return events, n
