"""Tracker unit tests on scripted detection streams (15 fps, default settings)."""

from __future__ import annotations

import numpy as np
import pytest

from hakam.engine.cards import Card
from hakam.vision.detections import Detections
from hakam.vision.tracker import CardState, CardTracker, TrackerSettings

from .conftest import dets

SEVEN_H = Card.parse("7H").index
NINE_S = Card.parse("9S").index


def feed(tracker: CardTracker, frames: list[Detections], start: int = 0):
    """Run frames through; returns [(frame, kind, card name)]."""
    out = []
    for k, d in enumerate(frames, start):
        for ev in tracker.update(d, k, k / 15):
            out.append((k, ev.kind, ev.name))
    return out


def test_defaults_in_frames_at_15_fps():
    t = CardTracker(fps=15)
    assert (t.window, t.votes_needed, t.lost_frames, t.uncertain_frames) == (8, 5, 15, 12)
    t30 = CardTracker(fps=30)
    assert (t30.window, t30.votes_needed, t30.lost_frames) == (15, 9, 30)  # same seconds


def test_a_steady_card_is_accepted_once_after_the_vote():
    t = CardTracker()
    events = feed(t, [dets(("7H", (200, 200), 0.9))] * 30)
    assert events == [(4, "accepted", "7H")]  # five votes of the 8-frame window
    assert t.state(SEVEN_H) is CardState.ON_TABLE


def test_flicker_still_accepts_and_a_one_frame_misread_never_does():
    t = CardTracker()
    frames = []
    for k in range(12):
        reads = [] if k in (2, 5) else [("7H", (200, 200), 0.9)]
        if k == 3:
            reads.append(("9S", (400, 100), 0.95))  # a lone misread elsewhere
        frames.append(dets(*reads))
    events = feed(t, frames + [Detections.empty()] * 10)
    assert events == [(6, "accepted", "7H")]  # votes at frames 0, 1, 3, 4, 6
    assert t.state(NINE_S) is CardState.UNSEEN  # the candidate expired with its window


def test_one_stray_read_elsewhere_does_not_reset_a_settling_card():
    t = CardTracker()
    frames = [dets(("7H", (200, 200), 0.9))] * 2 + [dets(("7H", (500, 400), 0.95))]
    frames += [dets(("7H", (200, 200), 0.9))] * 3
    assert feed(t, frames) == [(4, "accepted", "7H")]  # 5 votes; reads 0, 1, 3, 4 agree
    assert t.tracks[SEVEN_H].box[0] == 170


def test_a_card_in_flight_is_accepted_only_once_it_lies_still():
    t = CardTracker()
    frames = [dets(("7H", (100 + 25 * k, 200), 0.9)) for k in range(8)]  # moving
    frames += [dets(("7H", (300, 200), 0.9))] * 6  # at rest from frame 8
    events = feed(t, frames)
    assert events == [(10, "accepted", "7H")]  # three still reads: frames 8, 9, 10


def test_a_hand_passing_over_does_not_end_the_card():
    t = CardTracker()
    seen = [dets(("7H", (200, 200), 0.9))]
    events = feed(t, seen * 10 + [Detections.empty()] * 12 + seen * 10)
    assert events == [(4, "accepted", "7H")]  # 12 hidden frames < lost_s: nothing happens
    t2 = CardTracker()
    events = feed(t2, seen * 10 + [Detections.empty()] * 20 + seen * 5)
    assert events == [(4, "accepted", "7H"), (24, "hidden", "7H"), (30, "visible", "7H")]
    assert t2.state(SEVEN_H) is CardState.ON_TABLE  # never accepted twice


def test_two_identical_cards_in_one_frame_count_once():
    t = CardTracker()
    frame = dets(("7H", (200, 200), 0.9), ("7H", (420, 300), 0.7))
    events = feed(t, [frame] * 8)
    assert events == [(4, "accepted", "7H")]
    assert t.tracks[SEVEN_H].box[0] == 170  # the more confident copy
    assert t.stats["duplicate"] == 8


def test_a_collected_card_read_again_is_impossible_and_ignored():
    t = CardTracker()
    feed(t, [dets(("7H", (200, 200), 0.9))] * 6)
    t.collect(SEVEN_H)
    events = feed(t, [dets(("7H", (250, 250), 0.95))] * 20, start=6)
    assert events == [] and t.stats["collected_read"] == 20
    t.release(SEVEN_H)  # e.g. the open card, taken into a hand and played later
    assert feed(t, [dets(("7H", (250, 250), 0.95))] * 6, start=26) == [(30, "accepted", "7H")]


def test_a_misread_on_a_lying_card_is_a_ghost_not_a_new_card():
    t = CardTracker()
    feed(t, [dets(("7H", (200, 200), 0.9))] * 6)
    # Glare: the same card reads as 9S for a few frames at the same place.
    events = feed(t, [dets(("9S", (201, 200), 0.8))] * 5 + [dets(("7H", (200, 200), 0.9))] * 3, 6)
    assert events == [] and t.stats["ghost"] == 5
    assert t.state(NINE_S) is CardState.UNSEEN


def test_low_confidence_blob_becomes_one_uncertain_event():
    t = CardTracker()
    weak = [dets(("QD", (300, 300), 0.3))] * 11 + [dets(("QC", (302, 300), 0.3))] * 9
    out = []
    for k, d in enumerate(weak):
        out += [(k, ev) for ev in t.update(d, k, k / 15)]
    assert [(k, ev.kind) for k, ev in out] == [(11, "uncertain")]
    ev = out[0][1]
    assert ev.card is None and ev.detail["guesses"][0] == "QD" and "QC" in ev.detail["guesses"]
    assert ev.box == (272.0, 258.0, 332.0, 342.0)  # where the blob is now
    assert t.state(Card.parse("QD").index) is CardState.UNSEEN  # no guess is made


def test_weak_reads_on_a_known_card_are_not_uncertain():
    t = CardTracker()
    feed(t, [dets(("7H", (200, 200), 0.9))] * 6)
    events = feed(t, [dets(("7D", (200, 200), 0.3))] * 30, 6)
    assert [e for e in events if e[1] == "uncertain"] == [] and t.stats["weak"] == 0


def test_settings_are_named_and_change_behaviour():
    strict = CardTracker(TrackerSettings(window_s=1.0, vote_share=0.8))
    assert strict.votes_needed == 12
    assert feed(strict, [dets(("7H", (200, 200), 0.9))] * 20)[0] == (11, "accepted", "7H")


# --- a real detector: two classes on one card, an identity that flips ------------------------


def test_two_cards_read_on_one_spot_keep_the_surer_read():
    # The model reads the ace of hearts as AH (0.7) and AD (0.55) on the same box, every frame.
    t = CardTracker()
    frame = dets(("AH", (200, 200), 0.7), ("AD", (201, 200), 0.55))
    assert feed(t, [frame] * 10) == [(4, "accepted", "AH")]
    assert t.state(Card.parse("AD").index) is CardState.UNSEEN and t.stats["same_spot"] == 10
    off = CardTracker(TrackerSettings(same_spot_iou=0.0, identity_share=0.0))
    assert {e[2] for e in feed(off, [frame] * 10)} == {"AH", "AD"}  # the old behaviour: both


def test_an_identity_that_flips_is_not_accepted_until_one_name_holds_the_spot():
    t = CardTracker(TrackerSettings(identity_share=0.8))
    # Two reads in three say JC, one says QC: enough votes for JC, but the spot is disputed.
    flip = [dets(("QC" if k % 3 == 2 else "JC", (200, 200), 0.6)) for k in range(18)]
    assert feed(t, flip) == [] and t.stats["disputed"] > 0  # JC or QC: no guess
    steady = [dets(("JC", (200, 200), 0.6))] * 10
    events = feed(t, steady, 18)
    assert [e[1:] for e in events] == [("accepted", "JC")]  # once JC holds 80% of the window
    assert 18 < events[0][0] < 28


def test_a_misread_on_a_card_that_is_still_read_is_a_ghost():
    t = CardTracker()
    feed(t, [dets(("JC", (200, 200), 0.9))] * 6)
    # JC is read at 0.55, QC at 0.6 beside it on the same box: QC is JC misread, not a new card.
    both = dets(("JC", (200, 200), 0.45), ("QC", (202, 201), 0.6))
    assert feed(t, [both] * 12, 6) == [] and t.state(Card.parse("QC").index) is CardState.UNSEEN


def test_a_card_read_on_a_lying_card_read_too_is_kept_beside_it_not_voted():
    # QC lands 16 px from JC, over it (IoU 0.58): a ghost, never accepted. Where JC is read on
    # its own box in the same frame, QC's read is kept ``beside`` (the caller may weigh it);
    # where JC is not read, QC is a misread of it, and nothing is kept.
    t = CardTracker()
    feed(t, [dets(("JC", (200, 200), 0.9))] * 6)
    qc = Card.parse("QC").index
    both = dets(("JC", (200, 200), 0.9), ("QC", (216, 200), 0.9))
    assert feed(t, [both] * 12, 6) == [] and t.state(qc) is CardState.UNSEEN
    assert t.beside.class_id.tolist() == [qc] and t.beside.xyxy[0].tolist() == [186, 158, 246, 242]
    feed(t, [dets(("QC", (216, 200), 0.9))], 18)
    assert len(t.beside) == 0 and t.state(qc) is CardState.UNSEEN


def believed(read: Detections, beliefs: dict[str, float]) -> Detections:
    """``read`` with the same belief over the 32 cards on every row."""
    p = np.zeros((len(read), 32), np.float32)
    for name, v in beliefs.items():
        p[:, Card.parse(name).index] = v
    read.probs = p
    return read


def test_a_lying_cards_belief_counts_every_read_of_its_spot_whatever_it_names():
    # QC is accepted on reads that doubt it a little; while it lies, its spot is read as QS
    # too: both go into its belief (what weighs a later second read of QC, in the pipeline).
    t = CardTracker()
    qc, qs = Card.parse("QC").index, Card.parse("QS").index
    as_qc = [believed(dets(("QC", (200, 200), 0.7)), {"QC": 0.7, "QS": 0.2})] * 6
    as_qs = [believed(dets(("QS", (200, 200), 0.6)), {"QS": 0.6, "QC": 0.3})] * 4
    events = [k for k, kind, _ in feed(t, as_qc) if kind == "accepted"]
    assert events == [4] and t.belief(qc)[qc] == pytest.approx(0.7)
    feed(t, as_qs, start=6)
    b = t.belief(qc)
    assert b[qs] == pytest.approx((6 * 0.2 + 4 * 0.6) / 10) and b[qc] == pytest.approx(0.54)
    t.collect(qc)
    assert t.belief(qc) is not None  # kept: a later read of QC is weighed against it
    assert t.belief(Card.parse("7H").index) is None


def test_cards_stay_where_they_were_accepted_a_read_elsewhere_is_another_card():
    t = CardTracker()
    qc = Card.parse("QC").index
    feed(t, [dets(("QC", (200, 200), 0.9))] * 6)
    assert t.state(qc) is CardState.ON_TABLE
    # A hand over it: the box shrinks to the visible part, still around the accepted centre.
    feed(t, [Detections(np.array([[175, 180, 215, 242]]), np.array([0.9]), np.array([qc]))], 6)
    assert len(t.elsewhere) == 0 and t.tracks[qc].last_seen == 6
    # Read 90 px away (the box no longer covers that centre): another card read as QC.
    feed(t, [dets(("QC", (200, 290), 0.9))] * 3, start=7)
    assert t.elsewhere.names == ["QC"] and t.tracks[qc].last_seen == 6
    assert t.tracks[qc].box[1] == 180  # it has not moved
    off = CardTracker(TrackerSettings(cards_stay=False))
    feed(off, [dets(("QC", (200, 200), 0.9))] * 6 + [dets(("QC", (200, 290), 0.9))] * 3)
    assert len(off.elsewhere) == 0 and off.tracks[qc].last_seen == 8
