"""Issue 48: a person corrects a complete deal. A card the person names for a seat's play in a
trick replaces it; where the record holds that card at another place, the two are exchanged,
and the other place's card is a deduction, weighed against a three-way mix-up (asked where one
is possible), never the person's word."""

from __future__ import annotations

import cv2

from hakam.engine.cards import CARD_NAMES
from hakam.vision.decoder import FINAL_P
from hakam.vision.oracle import LabelDetector
from hakam.vision.pipeline import Pipeline
from hakam.vision.settings import DealSetup, PipelineSettings
from hakam.vision.sources import Frame

from .test_pipeline import CAL, HOKUM, _demo_with_unread, lying, of, run_labels, scripted

# The demo deal with 8D (seat 1, trick 4) read surely as 9D and 9D (seat 1, trick 7) as 8D:
# the record puts 9D in trick 4 and names 8D, the card left, in trick 7.
SWAPPED = {"9D": {"8D": 0.9, "9D": 0.05}, "8D": {"9D": 0.9, "8D": 0.05}}
# ... and 7D (seat 0, trick 7) read with a doubt of 9D: it may be 9D too.
DOUBTED_7D = {**SWAPPED, "7D": {"7D": 0.6, "9D": 0.35}}


def at(pipe, trick, seat):
    (play,) = [p for p in pipe.plays if (p.trick, p.seat) == (trick, seat)]
    return play


def fixes(events):
    return [(e["card"], e["replaces"], e["trick"], e["by"]) for e in of(events, "correction")]


def test_a_card_the_record_holds_elsewhere_is_exchanged_with_the_play_corrected():
    truth, pipe, _ = _demo_with_unread(set(), misread=SWAPPED)
    assert CARD_NAMES[at(pipe, 4, 1).card] == "9D" and pipe.record["tricks"] != truth["tricks"]
    events = pipe.table_correction("8D", seat=1, trick=4)
    assert fixes(events) == [("8D", "9D", 4, "table"), ("9D", "8D", 7, "displaced")]
    assert pipe.record["tricks"] == truth["tricks"]
    mine, left = at(pipe, 4, 1), at(pipe, 7, 1)
    assert mine.provenance == "person"
    # The card left over is a deduction: every other card was read surely, so no three-way
    # mix-up is likely, and it says so.
    assert (left.provenance, left.source) == ("named", "displaced")
    assert left.probability >= FINAL_P
    (displaced,) = [e for e in of(events, "correction") if e["by"] == "displaced"]
    assert displaced["probability"] == left.probability
    assert of(events, "score")[-1]["named"][0]["named_by"] == "displaced"


def test_where_a_third_card_may_be_misread_too_the_trick_is_asked():
    truth, pipe, _ = _demo_with_unread(set(), misread=DOUBTED_7D)
    events = pipe.table_correction("8D", seat=1, trick=4)
    assert pipe.record["tricks"] == truth["tricks"]
    left = at(pipe, 7, 1)
    # 7D's reads doubted it for 9D: the card left over may be 7D, and 7D be 9D.
    assert 0.5 < left.probability < FINAL_P
    assert of(events, "score")[-1]["status"] == "provisional"
    (asked,) = [e for e in of(events, "uncertain") if e.get("confirm_trick") == 7]
    assert "a card named is not known surely" in asked["text"]
    # The person confirms the card there (its own card names it): the deal is final.
    events = pipe.table_correction("9D", seat=1, trick=7)
    assert fixes(events) == [("9D", None, 7, "confirmed")]
    assert of(events, "score")[-1]["status"] == "final"
    assert pipe.record["tricks"] == truth["tricks"]


def test_a_persons_later_word_exchanges_their_earlier_one_which_is_asked_again():
    # The person put 8D in trick 4 (seat 1); then says seat 0 played it there. The later word
    # stands; seat 1's play then holds the card left over, a deduction, asked again (it was
    # refused: "correct that trick first", and the window had no way to: a dead end).
    _, pipe, _ = _demo_with_unread(set(), misread=SWAPPED)
    pipe.table_correction("8D", seat=1, trick=4)
    events = pipe.table_correction("8D", seat=0, trick=4)
    assert fixes(events) == [("8D", "KH", 4, "table"), ("KH", "8D", 4, "overruled")]
    assert (at(pipe, 4, 0).provenance, at(pipe, 4, 1).provenance) == ("person", "named")
    assert [e["confirm_trick"] for e in of(events, "uncertain") if e.get("confirm_trick")] == [4]
    # And back: the two are exchanged again.
    events = pipe.table_correction("8D", seat=1, trick=4)
    assert fixes(events)[0] == ("8D", "KH", 4, "table")


def test_a_card_a_person_confirmed_moved_by_a_later_word_is_asked_however_likely():
    # The person confirms 8D at seat 1 in trick 7 (the camera's misread), then says seat 1
    # played 8D in trick 4. The later word stands; the card left over in trick 7 is as likely
    # as in the first test (every other card read surely), but a person's word stood there
    # and is gone: it is asked, and the score is provisional until a person answers (it was
    # moved without a word, final).
    truth, pipe, _ = _demo_with_unread(set(), misread=SWAPPED)
    pipe.table_correction("8D", seat=1, trick=7)
    assert at(pipe, 7, 1).provenance == "person"
    events = pipe.table_correction("8D", seat=1, trick=4)
    assert fixes(events) == [("8D", "9D", 4, "table"), ("9D", "8D", 7, "overruled")]
    left = at(pipe, 7, 1)
    assert (left.provenance, left.source) == ("named", "overruled")
    assert left.probability >= FINAL_P and "later correction" in left.reason
    assert of(events, "score")[-1]["status"] == "provisional"
    (asked,) = [e for e in of(events, "uncertain") if e.get("confirm_trick") == 7]
    assert "later correction" in asked["text"]
    events = pipe.table_correction("9D", seat=1, trick=7)
    assert of(events, "score")[-1]["status"] == "final"
    assert pipe.record["tricks"] == truth["tricks"]


def test_an_exchange_undone_over_a_persons_confirmation_is_asked():
    # Two cards read right exchanged by a person (QC of trick 1 said to be trick 2's card X),
    # then QC, left over in trick 2, confirmed there by a person; then trick 1 said to be QC
    # after all. The card left over in trick 2 is the camera's own read there (X), but a
    # person confirmed QC there: it is asked ("overruled"), not the read silently back.
    truth, pipe, _ = _demo_with_unread(set())
    other = next(p for p in pipe.plays if p.trick == 2 and p.seat != 1)
    x = CARD_NAMES[other.card]
    pipe.table_correction(x, seat=1, trick=1)
    assert (CARD_NAMES[other.card], other.source) == ("QC", "displaced")
    pipe.table_correction("QC", seat=other.seat, trick=2)
    assert other.provenance == "person"
    events = pipe.table_correction("QC", seat=1, trick=1)
    assert fixes(events) == [("QC", x, 1, "table"), (x, "QC", 2, "overruled")]
    assert of(events, "score")[-1]["status"] == "provisional"
    assert [e for e in of(events, "uncertain") if e.get("confirm_trick") == 2]
    events = pipe.table_correction(x, seat=other.seat, trick=2)  # answered: the truth again
    assert of(events, "score")[-1]["status"] == "final"
    assert pipe.record["tricks"] == truth["tricks"]


def test_a_plays_own_card_confirms_it():
    truth, pipe, _ = _demo_with_unread(set())
    events = pipe.table_correction("QC", seat=1, trick=1)  # trick 1's lead, read right
    assert fixes(events) == [("QC", None, 1, "confirmed")] and at(pipe, 1, 1).confirmed
    assert pipe.record["tricks"] == truth["tricks"]


def test_a_card_held_for_its_seats_turn_is_not_put_at_another_play():
    # Seat 3's 10C lands before seat 2 played: held for its turn. A person saying seat 0 played
    # it is refused in one line; nothing changes.
    a, b, d = lying("7C", 0), lying("8C", 1), lying("10C", 3)
    frames = scripted([([a], 10), ([a, b], 10), ([a, b, d], 10)])
    pipe = Pipeline(DealSetup(3, HOKUM), LabelDetector(frames), calibration=CAL,
                    settings=PipelineSettings(read_open_card=False))  # fmt: skip
    image = cv2.UMat(1, 1, cv2.CV_8UC3).get()
    for k in range(len(frames)):  # the clip goes on: no end of it settles what is held
        pipe.process(Frame(k, k / 15.0, image))
    assert [e.card for e, _ in pipe._held] == [CARD_NAMES.index("10C")]
    before = [(p.trick, p.seat, p.card) for p in pipe.plays]
    refused = pipe.table_correction("10C", seat=0, trick=1)
    assert [e["text"] for e in refused] == [
        "correction: 10C was read and waits for its seat's turn"
    ]
    assert [(p.trick, p.seat, p.card) for p in pipe.plays] == before and not pipe.corrections


def two_at_seat_one():
    """Trick 1 with 10C read clearly in front of seat 1, who played 8C (seat 3's card, read at
    the wrong seat): seat 1 has two plays there, 10C out of turn."""
    a, b, c, d = lying("7C", 0), lying("8C", 1), lying("9C", 2), lying("10C", 1, r=0.6)
    pipe, _ = run_labels(scripted([([a], 10), ([a, b], 10), ([a, b, c], 10), ([a, b, c, d], 40)]),
                         settings=PipelineSettings(read_open_card=False))  # fmt: skip
    assert [(p.seat, CARD_NAMES[p.card]) for p in pipe.plays] == [
        (0, "7C"), (1, "8C"), (2, "9C"), (1, "10C"),
    ]  # fmt: skip
    return pipe


def test_a_seat_with_two_plays_in_a_trick_is_corrected_play_by_play():
    pipe = two_at_seat_one()
    # Its own card confirms that play only, not the other card at the seat.
    pipe.table_correction("10C", seat=1, trick=1)
    assert [p.confirmed for p in pipe.plays if p.seat == 1] == [False, True]
    # Another card: which of the two it replaces is asked, and nothing changes.
    refused = pipe.table_correction("JC", seat=1, trick=1)
    assert [e["text"] for e in refused] == [
        "correction: seat 1 has two cards in trick 1 (8C, 10C): say which"
    ]
    assert [CARD_NAMES[p.card] for p in pipe.plays] == ["7C", "8C", "9C", "10C"]
    # Said which (``replaces``, as the window's seat picker and a stdin line send it).
    events = pipe.table_correction("JC", seat=1, trick=1, replaces="8C")
    assert fixes(events) == [("JC", "8C", 1, "table")]


def test_a_seat_with_no_play_takes_the_card_read_at_another_seat():
    import queue

    from hakam.vision.correction_queue import CorrectionQueue

    pipe = two_at_seat_one()
    # A card not in the trick is refused for a seat with no play there; nothing changes.
    refused = pipe.table_correction("JC", seat=3, trick=1)
    assert [e["text"] for e in refused] == [
        "correction: seat 3 has no card in trick 1, and JC is not in it"
    ]
    assert not pipe.corrections
    # A person says seat 3 played 10C (a stdin line through the feed's queue): the play is
    # seat 3's, the trick is refereed again, and the card out of turn is withdrawn.
    answers: queue.Queue = queue.Queue()
    answers.put({"card": "10C", "seat": 3, "trick": 1, "by": "caller"})
    events = CorrectionQueue(pipe, answers).take()
    (moved,) = of(events, "correction")
    assert (moved["seat"], moved["from_seat"], moved["by"]) == (3, 1, "confirmed")
    assert [(v["rule"], v["seat"]) for v in of(events, "withdrawn")] == [("out-of-turn", 1)]
    assert [(p.seat, CARD_NAMES[p.card]) for p in pipe.plays] == [
        (0, "7C"), (1, "8C"), (2, "9C"), (3, "10C"),
    ]  # fmt: skip
    assert not pipe.referee.violations and len(pipe.referee.tricks) == 1


def test_correcting_a_cards_name_keeps_when_it_was_played():
    # Seat 2's 7C lands first, clearly, while seat 0 leads: out of turn; the others follow. A
    # person says it was JC: the card changes, not when it was played (before, a card a person
    # named had no time of its own and went when seat 2 was on turn: the ruling withdrawn).
    a, b, c, d = lying("7C", 2), lying("8C", 0), lying("9C", 1), lying("10C", 3)
    steps = [([a], 40), ([a, b], 10), ([a, b, c], 10), ([a, b, c, d], 10)]
    pipe, _ = run_labels(scripted(steps), settings=PipelineSettings(read_open_card=False))
    assert ("out-of-turn", 2, "7C") in [
        (v.rule, v.seat, str(v.card)) for v in pipe.referee.violations
    ]
    events = pipe.table_correction("JC", seat=2, trick=1)
    assert fixes(events) == [("JC", "7C", 1, "table")]
    assert ("out-of-turn", 2, "JC") in [
        (v.rule, v.seat, str(v.card)) for v in pipe.referee.violations
    ]


def test_a_trick_not_played_yet_or_a_card_not_there_is_refused():
    pipe = two_at_seat_one()  # trick 1 complete: the deal is at trick 2
    for card, seat, trick, replaces, why in [
        ("JC", 0, 6, "7S", "correction: trick 6 is not played yet (the deal is at trick 2)"),
        ("JC", 0, 2, "7S", "correction: seat 0 played no 7S in trick 2"),
    ]:  # fmt: skip
        refused = pipe.table_correction(card, seat=seat, trick=trick, replaces=replaces)
        assert [e["text"] for e in refused] == [why]
    assert len(pipe.plays) == 4 and not pipe.corrections


def test_a_window_feed_stays_open_for_a_dispute_after_a_final_deal():
    # The demo deal read right: nothing is asked at its end, so a feed ends there; the window's
    # (``keep_open``) goes on taking the table's corrections until its input closes.
    import json
    import queue

    from hakam.vision.correction_queue import NO_MORE_CORRECTIONS
    from hakam.vision.pipeline import iter_feed
    from hakam.vision.seats import Calibration
    from hakam.vision.sources import (
        DEMO_CALIBRATION,
        DEMO_LABELS,
        DEMO_RECORD,
        ArraySource,
        demo_clip_available,
    )

    if not demo_clip_available():
        import pytest

        pytest.skip("demo clip not installed")
    truth = json.loads(DEMO_RECORD.read_text())
    frames = json.loads(DEMO_LABELS.read_text())["frames"]
    images = [cv2.UMat(1, 1, cv2.CV_8UC3).get()] * len(frames)
    for keep_open in (False, True):
        pipe = Pipeline(DealSetup.from_record(truth), LabelDetector(frames),
                        calibration=Calibration.load(DEMO_CALIBRATION))  # fmt: skip
        answers: queue.Queue = queue.Queue()
        feed = iter_feed(pipe, ArraySource(images, 15.0), answers, keep_open=keep_open)
        items = [next(feed) for _ in range(len(frames))]
        assert [e["status"] for e in of(items[-1][2], "score")] == ["final"]
        answers.put({"card": "JC", "seat": 0, "deal": 1, "trick": 1, "replaces": "KC"})
        answers.put(NO_MORE_CORRECTIONS)
        rest = list(feed)
        fixed = [e for item in rest for e in of(item[2], "correction")]
        assert bool(fixed) is keep_open  # without: the feed had ended, the answer not taken


def test_an_exchange_undone_gives_the_camera_its_read_back():
    # The demo deal read right. A person says seat 0 played JC in trick 1 (KC there): JC's
    # place (trick 3) holds KC, a deduction. The person takes it back: trick 3's JC is the
    # camera's read again (it stayed "a person placed ... elsewhere", asked, the score flipped).
    truth, pipe, _ = _demo_with_unread(set())
    pipe.table_correction("JC", seat=0, trick=1)
    (jc,) = [p for p in pipe.plays if p.trick == 3 and p.seat == 0]
    assert (CARD_NAMES[jc.card], jc.source) == ("KC", "displaced")
    events = pipe.table_correction("KC", seat=0, trick=1)
    assert fixes(events) == [("KC", "JC", 1, "table"), ("JC", "KC", 3, "camera")]
    assert (CARD_NAMES[jc.card], jc.provenance, jc.probability) == ("JC", "seen", None)
    assert pipe.record["tricks"] == truth["tricks"]
    assert of(events, "score")[-1]["status"] == "final"
