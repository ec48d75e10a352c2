"""How a play and a ruling are known: seen, named or person; proven or suspected."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from hakam.engine.cards import CARD_NAMES, parse_card
from hakam.engine.record import InputError, parse_deal_record
from hakam.engine.referee import Violation
from hakam.vision.events import event, standing_violations
from hakam.vision.provenance import (
    Play,
    doubted_plays,
    question,
    score_status,
    violation_status,
)


def play(trick, seat, card, source="camera", seat_seen=True, **kw) -> Play:
    return Play(trick, seat, CARD_NAMES.index(card), 0, 0.0, source, belief=0.9,
                seat_seen=seat_seen, **kw)  # fmt: skip


# Trick 1: seat 0 leads 7C, seat 1 plays AS without following clubs; trick 2 proves it (10C).
TRICK1 = [play(1, 0, "7C"), play(1, 1, "AS"), play(1, 2, "8C"), play(1, 3, "9C")]
PROOF = play(2, 1, "10C")
REVOKE = Violation(1, 1, parse_card("AS"), "follow-suit", (2, parse_card("10C")), "revoke")


def test_a_ruling_on_cards_seen_in_front_of_their_seats_is_proven():
    assert violation_status(REVOKE, [*TRICK1, PROOF]) == "proven"
    assert question(REVOKE, [*TRICK1, PROOF]) is None


@pytest.mark.parametrize(
    ("plays", "asked"),
    [
        # the card that broke the rule lay between two seats: the turn gave it its seat
        ([TRICK1[0], play(1, 1, "AS", seat_seen=False), *TRICK1[2:], PROOF], "seat 1 play AS"),
        # the proof was named by elimination
        ([*TRICK1, play(2, 1, "10C", source="elimination")], "seat 1 play 10C in trick 2"),
        # the lead (the suit to follow) was named by the rules
        ([play(1, 0, "7C", source="rules"), *TRICK1[1:], PROOF], "seat 0 play 7C in trick 1"),
    ],
)
def test_a_ruling_resting_on_a_play_not_seen_surely_is_suspected_and_asked(plays, asked):
    assert violation_status(REVOKE, plays) == "suspected"
    assert question(REVOKE, plays).startswith(f"Did {asked}")
    assert "The ruling depends on it" in question(REVOKE, plays)


def test_a_person_confirming_the_doubtful_play_makes_the_ruling_proven():
    doubtful = play(1, 1, "AS", seat_seen=False)
    plays = [TRICK1[0], doubtful, *TRICK1[2:], PROOF]
    doubtful.confirmed = True
    assert doubtful.provenance == "person" and violation_status(REVOKE, plays) == "proven"


def test_cards_after_the_broken_rule_in_its_trick_do_not_matter():
    plays = [*TRICK1[:2], play(1, 2, "8C", source="rules"), TRICK1[3], PROOF]
    assert violation_status(REVOKE, plays) == "proven"


def test_provenance_in_words_for_each_kind_of_play():
    assert play(1, 0, "7C").to_json() == {"provenance": "seen", "belief": 0.9}
    named = play(1, 0, "7C", source="fewest").to_json()
    assert named["provenance"] == "named" and named["named_by"] == "fewest"
    assert "breaks the fewest" in named["reason"]
    assert play(1, 0, "7C", source="correction").to_json() == {"provenance": "person"}


def test_a_score_is_final_only_when_complete_with_nothing_suspected_or_guessed():
    seen = [*TRICK1, PROOF]
    assert score_status(True, 0, seen) == "final"
    assert score_status(False, 0, seen) == "provisional"
    assert score_status(True, 1, seen) == "provisional"
    assert score_status(True, 0, seen, waiting=[3]) == "provisional"
    assert score_status(True, 0, [*seen, play(3, 0, "JD", source="reader")]) == "provisional"
    assert score_status(True, 0, [*seen, play(3, 0, "JD", source="elimination")]) == "final"


def test_standing_violations_carry_their_last_status():
    v = {"deal": 1, "trick": 1, "seat": 1, "rule": "follow-suit", "card": "AS"}
    told = event("violation", time=1.0, **v, status="suspected", question="Did seat 1 ...?")
    later = event("violation_status", time=5.0, **v, status="proven", question=None)
    assert standing_violations([told])[0]["status"] == "suspected"
    (now,) = standing_violations([told, later])
    assert (now["status"], now["question"]) == ("proven", None)


RECORD = {
    "format": "hakam-deal/1", "dealer": 3, "contract": {"kind": "sun", "declarer": 0, "dealer": 3},
    "tricks": [{"cards": ["7C", "8C"], "seats": [0, 1]}],
}  # fmt: skip


@pytest.mark.parametrize(
    ("provenance", "message"),
    [
        ([["seen"]], "provenance[0]: wrong count, one per card of the trick"),
        ([["seen", "guessed"]], "provenance[0][1]: 'guessed' (seen, named or person)"),
        ([["seen", "seen"], ["seen"]], "provenance: wrong count, one list per trick"),
    ],
)
def test_a_record_with_bad_provenance_is_a_one_line_error(provenance, message):
    assert parse_deal_record({**RECORD, "provenance": [["seen", "named"]]})
    with pytest.raises(InputError, match=re.escape(message)):
        parse_deal_record({**RECORD, "provenance": provenance})


OUT_OF_TURN = Violation(1, 1, parse_card("AS"), "out-of-turn", None, "out of turn")


def test_a_card_out_of_turn_puts_its_trick_in_doubt_until_a_person_confirms_it():
    plays = [*TRICK1, PROOF]
    assert violation_status(OUT_OF_TURN, plays, [OUT_OF_TURN]) == "suspected"
    assert doubted_plays([OUT_OF_TURN], plays) == TRICK1
    # A revoke in that trick rests on the trick's order: asked too.
    assert violation_status(REVOKE, plays, [OUT_OF_TURN, REVOKE]) == "suspected"
    assert score_status(True, 0, plays, violations=[OUT_OF_TURN]) == "provisional"
    confirmed = play(1, 1, "AS", confirmed=True)
    plays = [TRICK1[0], confirmed, *TRICK1[2:], PROOF]
    assert violation_status(OUT_OF_TURN, plays, [OUT_OF_TURN]) == "proven"
    assert doubted_plays([OUT_OF_TURN], plays) == []


@pytest.mark.parametrize(("source", "seat_seen"), [("camera", False), ("camera", True),
                                                   ("rules", False)])  # fmt: skip
def test_two_plays_at_one_place_leave_its_rulings_asked(source, seat_seen):
    # A person moves seat 3's 9C to seat 2, where the camera's 8C lies: 9C is out of turn.
    # Which card lay at seat 2 is not known, so the ruling rests on both plays and is asked
    # (until 2026-12-06 it rested on one of them, and a person's card there made it proven).
    plays = [*TRICK1[:2], play(1, 2, "8C", source, seat_seen), play(1, 2, "9C", "correction")]
    moved = Violation(1, 2, parse_card("9C"), "out-of-turn", None, "out of turn")
    assert violation_status(moved, plays, [moved]) == "suspected"
    assert score_status(True, 0, plays, violations=[moved]) == "provisional"
    assert plays[2] in doubted_plays([moved], plays)


def test_a_seat_the_turn_gave_is_in_doubt_in_a_trick_where_a_card_was_named():
    between = play(1, 2, "8C", seat_seen=False)  # lay between two seats
    named = play(1, 3, "9C", source="elimination")
    plays = [*TRICK1[:2], between, named, PROOF]
    assert doubted_plays([], plays) == [between]
    assert score_status(True, 0, plays) == "provisional"
    # Without a card named in its trick, the turn giving a seat is how a deal is read.
    assert doubted_plays([], [*TRICK1[:2], between, TRICK1[3], PROOF]) == []


def test_where_the_camera_saw_each_place_a_held_card_is_not_in_doubt():
    # Seat 1's card never read; seats 2 and 3 played while the deal waited (held), each lying
    # clearly in front of its own seat.
    lead = play(1, 0, "7C")
    held = [play(1, 2, "8C", landed=0), play(1, 3, "9C", landed=0)]
    held = [replace(p, frame=40) for p in held]  # read at frame 0, played at frame 40
    assert held[0].held and held[1].held
    blind = play(1, 1, "AS", source="elimination")  # nothing seen where it lay
    assert doubted_plays([], [lead, blind, *held]) == held
    seen_there = play(1, 1, "AS", source="elimination", place_seen=True)  # an unread card lay there
    plays = [lead, seen_there, *held]
    assert doubted_plays([], plays) == []
    assert score_status(True, 0, plays) == "final"
    assert seen_there.to_json()["place_seen"] is True
    # Three places seen: the fourth card's seat is the one left, even between two seats.
    between = play(1, 0, "7C", seat_seen=False)
    assert doubted_plays([], [between, seen_there, *held]) == []
    # Two places not seen: both may be each other's.
    assert doubted_plays([], [between, blind, *held]) == [between, *held]


def test_a_false_project_rests_on_where_the_claimed_card_was_played():
    # Seat 0 claimed a project with QH; seat 2 played QH in trick 3.
    false = Violation(1, 0, parse_card("QH"), "false-project", (3, parse_card("QH")), "false")
    seen = [*TRICK1, play(3, 2, "QH")]
    assert violation_status(false, seen) == "proven"
    named = [*TRICK1, play(3, 2, "QH", source="reader")]  # placed there by a guess
    assert violation_status(false, named) == "suspected"
    assert question(false, named).startswith("Did seat 2 play QH in trick 3?")
    # Never played by the claimant: each of his plays counts.
    never = Violation(1, 0, parse_card("QH"), "false-baloot", None, "never played")
    assert violation_status(never, [*TRICK1, play(2, 0, "8D")]) == "proven"
    assert violation_status(never, [*TRICK1, play(2, 0, "8D", source="rules")]) == "suspected"


def test_a_card_named_by_the_rules_below_final_p_leaves_the_score_provisional():
    from hakam.vision.decoder import FINAL_P
    from hakam.vision.provenance import Play, score_status

    def named(p):
        return Play(1, 2, 5, 100, 6.7, "rules", probability=p)

    seen = [Play(1, s, c, 90, 6.0, "camera", seat_seen=True) for s, c in ((0, 1), (1, 2), (3, 4))]
    assert score_status(True, 0, [*seen, named(0.999)]) == "final"
    assert score_status(True, 0, [*seen, named(FINAL_P - 0.001)]) == "provisional"
    assert score_status(True, 0, [*seen, named(None)]) == "final"  # "rules" with no decoder
