"""Whether the cards in sight are of the deck chosen: the counts, the rule, and the notice a deal
gives once (``hakam.vision.deck_check``)."""

from __future__ import annotations

import dataclasses

import numpy as np

from hakam.vision.dealvideo import render_deal
from hakam.vision.deck_check import EVERY, LEAST, DeckCheck
from hakam.vision.oracle import LabelDetector
from hakam.vision.pipeline import Pipeline, run_frames
from hakam.vision.reader import READER_CLASSES, TwoStageDetector
from hakam.vision.settings import DealSetup
from hakam.vision.sources import ArraySource


def reads(*sure: bool) -> np.ndarray:
    """One row a box: sure (0.95) of card 0, or not (0.5), as a network reads it."""
    rows = np.full((len(sure), READER_CLASSES), 0.0, np.float32)
    rows[:, 0] = [0.95 if s else 0.5 for s in sure]
    rows[:, 1] = 1 - rows[:, 0]
    return rows


def test_the_boxes_only_the_shipped_network_reads_surely_speak_against_the_deck():
    check = DeckCheck("majlis")
    # Box 1 both sure, box 2 only the deck, box 3 only the shipped network, box 4 neither.
    assert not check.update(reads(True, True, False, False), reads(True, False, True, False))
    assert (check.for_deck, check.against) == (1, 1)
    against = reads(*[False] * (LEAST - 2))
    assert not check.update(against, reads(*[True] * (LEAST - 2)))  # LEAST - 1: not yet
    assert check.update(reads(False), reads(True))  # LEAST against, 1 for: found, once
    assert check.mismatch and not check.update(reads(False), reads(True))
    assert check.said().startswith("these cards do not read like deck majlis (the standard")
    assert check.tell() == check.said() and check.tell() is None  # told once


class _Deck(LabelDetector):
    """The oracle's reads, and a deck check given ``against`` boxes only the shipped network
    reads surely and ``for_it`` only the deck does."""

    def __init__(self, labels, against: int, for_it: int) -> None:
        super().__init__(labels)
        self.deck_check = DeckCheck("majlis")
        sure = [True] * against + [False] * for_it
        self.deck_check.update(reads(*[not s for s in sure]), reads(*sure))


def _deal(clip, det, deal: int = 1):
    setup = dataclasses.replace(DealSetup.from_record(clip.deal.record), deal=deal)
    pipe = Pipeline(setup, det, calibration=clip.calibration)
    return run_frames(pipe, ArraySource(clip.frames, clip.fps))


def test_a_match_tells_the_table_once_when_the_cards_are_not_the_deck_chosen():
    clip = render_deal(3, tricks=1)
    det = _Deck(clip.labels, against=LEAST, for_it=1)
    events = _deal(clip, det)
    told = [e for e in events if e.get("about") == "deck"]
    assert len(told) == 1 and told[0]["type"] == "uncertain" and told[0]["seat"] is None
    assert told[0]["text"] == det.deck_check.said() and told[0]["frame"] == 0
    assert told[0]["deck"] == "majlis"
    # The deal goes on, read as before: the table chooses.
    assert [e["card"] for e in events if e["type"] == "play"] == [
        str(c) for _, _, c in clip.deal.plays[:4]
    ]
    # The next deal of the match, read by the same reader: not told again.
    assert not [e for e in _deal(clip, det, deal=2) if e.get("about") == "deck"]
    # A deck its cards fit says nothing, though as many reads speak against it.
    fits = _Deck(clip.labels, against=LEAST, for_it=LEAST)
    assert not [e for e in _deal(clip, fits) if e.get("about") == "deck"]


class _Corners:
    """A corner reader that reads every box surely (``sure``) or not, counting its reads."""

    def __init__(self, sure: bool, index: str = "shipped") -> None:
        self.sure, self.index, self.reads = sure, index, 0

    def quads(self, image, boxes) -> np.ndarray:
        return np.zeros((len(boxes), 4, 2), np.float32)

    def read(self, image, boxes, quads=None) -> np.ndarray:
        self.reads += 1
        return reads(*[self.sure] * len(boxes))

    def with_index(self, index) -> _Corners:
        return _Corners(True, index)


class _Finder:
    def find(self, image, conf) -> np.ndarray:
        return np.float32([[10, 10, 60, 90], [100, 10, 150, 90]])


class _Reader:
    size = 32

    def read(self, crops, turns) -> np.ndarray:
        return np.full((len(crops), READER_CLASSES), 1 / READER_CLASSES, np.float32)


class _Learnt:
    name = "majlis"

    def check_reader(self, detector) -> None:
        pass

    def index_reader(self, index) -> str:
        return f"majlis over {index}"


def test_one_frame_with_cards_in_every_is_read_by_both_networks():
    shipped = _Corners(sure=False)
    generic = TwoStageDetector(_Finder(), _Reader(), corners=shipped, mix=0.5)
    reading = generic.with_deck(_Learnt())
    assert reading.corners.index == "majlis over shipped" and generic.deck_check is None
    image = np.zeros((120, 160, 3), np.uint8)
    for _ in range(2 * EVERY + 1):
        reading.read(image)
    assert shipped.reads == 3 and reading.corners.reads == 2 * EVERY + 1  # frames 1, 11, 21
    assert (reading.deck_check.for_deck, reading.deck_check.against) == (6, 0)  # 2 boxes each
    # A deck chosen again over a deck's reader is read against the shipped network still.
    again = reading.with_deck(_Learnt())
    assert again._shipped_corners is shipped and again.corners.index == "majlis over shipped"
