"""Whether the cards in sight are of the deck chosen: the counts, the rule, and the notice a deal
gives once (``hakam.vision.deck_check``)."""

from __future__ import annotations

import dataclasses

import numpy as np

from hakam.vision.dealvideo import render_deal
from hakam.vision.deck_check import EVERY, LEAST, SETTLED, DeckCheck
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
    check = DeckCheck("majlis", [None])
    # Box 1 both sure, box 2 only the deck, box 3 only the shipped network, box 4 neither.
    assert not check.update(reads(True, True, False, False), None, reads(True, False, True, False))
    assert (check.for_chosen[None], check.against[None]) == (1, 1)
    against = reads(*[False] * (LEAST - 2))
    assert not check.update(against, None, reads(*[True] * (LEAST - 2)))  # LEAST - 1: not yet
    assert check.update(reads(False), None, reads(True))  # LEAST against, 1 for: found, once
    assert check.mismatch and check.like is None
    assert not check.update(reads(False), None, reads(True))
    assert check.said().startswith(
        "these cards do not read like deck majlis (41 reads the standard readers were sure of "
        "and deck majlis was not, 1 the other way round): if the table plays another deck"
    )
    assert check.tell() == check.said() and check.tell() is None  # told once


def test_each_other_reader_is_counted_apart_and_the_one_the_cards_read_like_is_named():
    check = DeckCheck(None, ["arabic", "paris", None, "arabic"])  # the choice and twice: once
    assert check.others == ["arabic", "paris"]
    sure, unsure = reads(*[True] * LEAST), reads(*[False] * LEAST)
    assert not check.update(unsure[1:], "paris", sure[1:])  # LEAST - 1 against: not yet
    assert not check.update(reads(*[True] * 20), "arabic", reads(*[False] * 20))  # for the choice
    assert not check.update(unsure, "arabic", sure)  # 40 against, 20 for: not 3 times
    assert check.update(reads(False), "paris", reads(True))  # paris: 40 against, 0 for
    assert check.like == "paris" and check.tell() == (
        "these cards read better with deck paris than with the standard readers (40 reads "
        "deck paris was sure of and the standard readers were not, 0 the other way round): if "
        "the table plays deck paris, read with it (the start screen's deck, or --deck paris)"
    )
    # Of the readers past the line at once, the one farthest past it is named.
    both = DeckCheck("majlis", [None, "arabic"])
    both.update(unsure, None, sure)
    assert both.like is None
    both = DeckCheck("majlis", ["arabic", None])
    both.update(reads(*[False] * 50), "arabic", reads(*[True] * 50))
    assert both.like == "arabic" and both.said().startswith(
        "these cards read more like deck arabic than deck majlis (50 reads deck arabic was sure "
        "of and deck majlis was not, 0 the other way round)"
    )


def test_the_other_readers_read_frames_spread_out_fewer_once_settled_none_once_told():
    check = DeckCheck("majlis", [None, "arabic"])
    due = [check.due(k) for k in range(2 * EVERY)]
    assert due[0] == [None] and due[1] == ["arabic"] and due[EVERY] == [None]
    assert sum(map(len, due)) == 4  # each one frame in EVERY
    # The counts speak for the deck against arabic (LEAST for, none against): read less.
    check.update(reads(*[True] * LEAST), "arabic", reads(*[False] * LEAST))
    due = [check.due(k) for k in range(EVERY * SETTLED)]
    assert sum(d == ["arabic"] for d in due) == 1 and sum(d == [None] for d in due) == SETTLED
    check.update(reads(*[False] * LEAST), None, reads(*[True] * LEAST))  # told: read no more
    assert check.mismatch and not any(check.due(k) for k in range(EVERY * SETTLED))


class _Deck(LabelDetector):
    """The oracle's reads, and a deck check given ``against`` boxes only the shipped network
    reads surely and ``for_it`` only the deck does."""

    def __init__(self, labels, against: int, for_it: int, chosen="majlis", other=None) -> None:
        super().__init__(labels)
        self.deck_check = DeckCheck(chosen, [other])
        sure = [True] * against + [False] * for_it
        self.deck_check.update(reads(*[not s for s in sure]), other, reads(*sure))


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
    assert told[0]["deck"] == "majlis" and told[0]["like"] is None
    # The deal goes on, read as before: the table chooses.
    assert [e["card"] for e in events if e["type"] == "play"] == [
        str(c) for _, _, c in clip.deal.plays[:4]
    ]
    # The next deal of the match, read by the same reader: not told again.
    assert not [e for e in _deal(clip, det, deal=2) if e.get("about") == "deck"]
    # The standard readers chosen, a deck learnt here surer: the event names both.
    learnt = _Deck(clip.labels, against=LEAST, for_it=0, chosen=None, other="arabic")
    (told,) = [e for e in _deal(clip, learnt) if e.get("about") == "deck"]
    assert (told["deck"], told["like"]) == (None, "arabic") and "with deck arabic" in told["text"]
    # A deck its cards fit says nothing, though as many reads speak against it.
    fits = _Deck(clip.labels, against=LEAST, for_it=LEAST)
    assert not [e for e in _deal(clip, fits) if e.get("about") == "deck"]


class _Corners:
    """A corner reader that reads every box surely (``sure``) or not, counting its reads."""

    def __init__(self, sure: bool, index: str = "shipped") -> None:
        self.sure, self.index, self.reads = sure, index, 0

    def quads(self, image, boxes) -> np.ndarray:
        return np.zeros((len(boxes), 4, 2), np.float32)

    def read(self, image, boxes, quads=None, trimmed=None) -> np.ndarray:
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
    def __init__(self, name: str = "majlis") -> None:
        self.name = name

    def check_reader(self, detector) -> None:
        pass

    def for_reader(self, detector) -> _Learnt:
        return self

    def index_reader(self, index) -> str:
        return f"{self.name} over {index}"


def test_one_frame_with_cards_in_every_is_read_by_both_networks():
    shipped = _Corners(sure=False)
    generic = TwoStageDetector(_Finder(), _Reader(), corners=shipped, mix=0.5)
    reading = generic.with_deck(_Learnt())
    assert reading.corners.index == "majlis over shipped" and generic.deck_check is None
    image = np.zeros((120, 160, 3), np.uint8)
    outs = [reading.read(image)[1] for _ in range(2 * EVERY + 1)]
    assert shipped.reads == 3 and reading.corners.reads == 2 * EVERY + 1  # frames 1, 11, 21
    # A frame checked is read as any other: the deck's corners with the whole-card reader.
    assert all(np.array_equal(out, outs[1]) for out in outs)
    check = reading.deck_check
    assert (check.for_chosen[None], check.against[None]) == (6, 0)  # 2 boxes each
    # A deck chosen again over a deck's reader is read against the shipped network still.
    again = reading.with_deck(_Learnt())
    assert again._shipped_corners is shipped and again.corners.index == "majlis over shipped"


def test_the_standard_readers_are_checked_against_the_decks_learnt_here():
    shipped = _Corners(sure=False)
    generic = TwoStageDetector(_Finder(), _Reader(), corners=shipped, mix=0.5)
    reading = generic.with_deck(None, [_Learnt("arabic"), _Learnt("paris")])
    assert reading.corners is shipped and reading.deck_check.others == ["arabic", "paris"]
    image = np.zeros((120, 160, 3), np.uint8)
    for _ in range(EVERY * LEAST // 2):  # each deck sure of 2 boxes a frame it reads
        reading.read(image)
    check = reading.deck_check
    assert check.like == "arabic"  # told at frame 190; paris last read at 181, then none
    assert check.against == {"arabic": LEAST, "paris": LEAST - 2}
    assert reading._others["paris"].index == "paris over shipped"
    # The deck chosen is not read against itself; the standard readers are read against it.
    chosen = generic.with_deck(_Learnt("arabic"), [_Learnt("arabic"), _Learnt("paris")])
    assert chosen.deck_check.name == "arabic" and chosen.deck_check.others == [None, "paris"]
    assert generic.with_deck(None).deck_check is None  # nothing to compare with
