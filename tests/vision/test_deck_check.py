"""Whether the cards in sight are of the deck chosen: the counts, the rule, and the notice a deal
gives once (``hakam.vision.deck_check``)."""

from __future__ import annotations

import numpy as np

from hakam.vision.dealvideo import render_deal
from hakam.vision.deck_check import LEAST, RATIO, DeckCheck
from hakam.vision.oracle import LabelDetector
from hakam.vision.pipeline import Pipeline, run_frames
from hakam.vision.reader import READER_CLASSES
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
    assert check.update(reads(False), reads(True))  # LEAST against, 1 for: said, once
    assert check.mismatch and not check.update(reads(False), reads(True))
    assert check.said().startswith("these cards do not read like deck majlis (the standard")


def test_the_notice_is_said_in_arabic():
    from hakam.gui.messages import arabic, known

    check = DeckCheck("majlis")
    check.update(reads(*[False] * LEAST), reads(*[True] * LEAST))
    assert known(check.said()), check.said()
    said = arabic(check.said())  # the deck's name kept apart, left to right
    assert said.startswith(f"هذه الأوراق لا تُقرأ كأوراق \u2066majlis\u2069 (القراءة العامة "
                           f"متأكدة من {LEAST} ورقة")  # fmt: skip


def test_a_deck_that_reads_its_share_surely_is_never_said_wrong():
    check = DeckCheck("majlis")
    for_it = int(np.ceil(2 * LEAST / RATIO))  # against at twice LEAST, for it above 1 / RATIO
    check.update(reads(*[True] * for_it), reads(*[False] * for_it))
    check.update(reads(*[False] * 2 * LEAST), reads(*[True] * 2 * LEAST))
    assert check.against < RATIO * check.for_deck and not check.mismatch


class _WrongDeck(LabelDetector):
    """The oracle's reads, and a deck check that has found the cards are not the deck's."""

    def __init__(self, labels) -> None:
        super().__init__(labels)
        self.deck_check = DeckCheck("majlis")
        self.deck_check.update(reads(*[False] * LEAST), reads(*[True] * LEAST))


def test_a_deal_tells_the_table_once_when_the_cards_are_not_the_deck_chosen():
    clip = render_deal(3, tricks=1)
    setup = DealSetup.from_record(clip.deal.record)
    det = _WrongDeck(clip.labels)
    events = run_frames(Pipeline(setup, det, calibration=clip.calibration),
                        ArraySource(clip.frames, clip.fps))  # fmt: skip
    told = [e for e in events if e.get("about") == "deck"]
    assert len(told) == 1 and told[0]["type"] == "uncertain" and told[0]["seat"] is None
    assert told[0]["text"] == det.deck_check.said() and told[0]["frame"] == 0
    # The deal goes on, read as before: the table chooses.
    assert [e["card"] for e in events if e["type"] == "play"] == [
        str(c) for _, _, c in clip.deal.plays[:4]
    ]
    # A deck that fits says nothing.
    det.deck_check = DeckCheck("majlis")
    events = run_frames(Pipeline(setup, det, calibration=clip.calibration),
                        ArraySource(clip.frames, clip.fps))  # fmt: skip
    assert not [e for e in events if e.get("about") == "deck"]
