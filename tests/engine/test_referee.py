"""The referee from plays alone: each violation is proven by a later card, with its proof."""

from hakam.engine.cards import parse_card
from hakam.engine.contract import Contract
from hakam.engine.record import parse_deal_record, ruling_json
from hakam.engine.referee import ProjectClaim, Referee

HOKUM_H = Contract("hokum", declarer=0, dealer=3, trump="H")
SUN = Contract("sun", declarer=0, dealer=3)


def feed(ref, tricks, ekka=()):
    """Push tricks of card texts; returns the violations as (push number, violation)."""
    out = []
    k = 0
    for n, trick in enumerate(tricks, 1):
        for i, text in enumerate(trick.split()):
            k += 1
            for v in ref.push(parse_card(text), ekka=i == 0 and n in ekka):
                out.append((k, v))
    return out


def only(found):
    assert len(found) == 1, found
    return found[0]


def test_follow_suit_revoke_proven_by_a_later_card_of_that_suit():
    ref = Referee(SUN)
    # seat 1 shows a void in clubs in trick 1 (8D) and plays 10C in trick 2
    k, v = only(feed(ref, ["AC 8D 7C 9C", "KC 10C"]))
    assert k == 6  # reported the moment 10C is seen
    assert (v.trick, v.seat, str(v.card), v.rule) == (1, 1, "8D", "follow-suit")
    assert v.proof[0] == 2 and str(v.proof[1]) == "10C"
    assert "10C" in v.text and "clubs" in v.text


def test_a_duty_violation_knows_every_card_that_proves_it():
    # A camera referee that did not read the proof may still hold the revoke proven by another
    # card the seat played later: ``proves`` is every card unseen when the seat revoked whose
    # later play proves this rule (a heart, a trump, would prove must-trump instead).
    ref = Referee(HOKUM_H)
    _, v = only(feed(ref, ["AC 8D 7C 9C", "KC 10C"]))
    assert (v.rule, str(v.proof[1])) == ("follow-suit", "10C")
    assert sorted(map(str, v.proves)) == ["10C", "7C", "8C", "9C", "JC", "KC", "QC"]
    _, w = only(feed(Referee(HOKUM_H), ["AC 8D 7C 9C", "KS 7H"]))
    assert w.rule == "must-trump" and all(str(c).endswith("H") for c in w.proves)


def test_must_overtrump_trump_led_proven_later():
    ref = Referee(HOKUM_H)
    # trick 1: 9H led; seat 1 under-plays 7H though he holds JH (played in trick 2)
    _, v = only(feed(ref, ["9H 7H 8H 10H", "AC JH"]))
    assert (v.trick, v.seat, str(v.card), v.rule) == (1, 1, "7H", "must-overtrump")
    assert (v.proof[0], str(v.proof[1])) == (2, "JH")


def test_must_overtrump_void_player_opponent_trumped():
    ref = Referee(HOKUM_H)
    # seat 1 trumps with 9H; seat 2 (void) plays 7H though he holds JH
    found = feed(ref, ["KC 9H 7H 8C", "KS JH"])
    _, v = only([f for f in found if f[1].seat == 2])
    assert (v.trick, str(v.card), v.rule, str(v.proof[1])) == (1, "7H", "must-overtrump", "JH")


def test_must_trump_second_player_void():
    ref = Referee(HOKUM_H)
    _, v = only(feed(ref, ["AC 8D 7C 9C", "KS 7H"]))
    assert (v.trick, v.seat, str(v.card), v.rule) == (1, 1, "8D", "must-trump")
    assert str(v.proof[1]) == "7H"


def test_third_player_rule_worked_example_a():
    # seat 0 leads KC without Ekka, seat 1 7C, seat 2 (no clubs) must trump though the
    # partner is winning; seat 3 plays AC. Seat 2's heart in trick 2 proves the violation.
    ref = Referee(HOKUM_H)
    _, v = only(feed(ref, ["KC 7C 8D AC", "7S 8S 9S 7H"]))
    assert (v.trick, v.seat, str(v.card), v.rule) == (1, 2, "8D", "third-player")
    assert (v.proof[0], str(v.proof[1])) == (2, "7H")
    # played correctly, C trumps and wins the trick
    ref = Referee(HOKUM_H)
    assert feed(ref, ["KC 7C 7H AC"]) == []
    assert ref.tricks[0].winner == 2


def test_worked_example_a_ekka_on_kc_would_be_false():
    ref = Referee(HOKUM_H)
    k, v = only(feed(ref, ["KC 7C 7H AC"], ekka={1}))
    assert k == 1 and v.rule == "false-ekka" and v.proof is None and "AC" in v.text


def test_valid_ekka_frees_the_third_player():
    tricks = ["AC 10C 7C 8C", "KC 9C 8D QC", "7S 8S 9H"]
    assert feed(Referee(HOKUM_H), tricks, ekka={2}) == []
    _, v = only(feed(Referee(HOKUM_H), tricks))
    assert (v.trick, v.seat, v.rule) == (2, 2, "third-player")


def test_locked_lead_trump_led_while_holding_another_suit():
    locked = Contract("hokum", 0, 3, trump="H", level="double", raised_by=(1,), locked=True)
    ref = Referee(locked)
    _, v = only(feed(ref, ["7H 8H 9H JH", "AC 7C 8C 9C", "KC 10C"]))
    # seat 0 led 7H in trick 1 and played a club later: the lead was forbidden
    assert (v.trick, v.seat, str(v.card), v.rule) == (1, 0, "7H", "locked-lead")
    assert str(v.proof[1]) == "7C" or str(v.proof[1]) == "10C"


def test_out_of_turn_seen_by_the_camera():
    rec = parse_deal_record(
        {
            "format": "hakam-deal/1",
            "dealer": 3,
            "contract": SUN.to_json(),
            "tricks": [{"cards": ["AC", "7C", "8C", "9C"], "seats": [0, 2, 1, 3]}],
        }
    )
    rules = [(v["rule"], v["seat"]) for v in ruling_json(rec)["violations"]]
    assert ("out-of-turn", 2) in rules


def test_duplicate_card_seen_twice_points_to_the_first_sighting():
    ref = Referee(SUN)
    k, v = only(feed(ref, ["AC 7C 8C 9C", "AC"]))
    assert k == 5
    assert v.rule == "duplicate-card" and (v.proof[0], str(v.proof[1])) == (1, "AC")


def test_false_project_claimed_card_played_by_another_seat():
    claim = ProjectClaim(0, "siri", tuple(parse_card(t) for t in ("7S", "8S", "9S")))
    ref = Referee(SUN, projects=[claim])
    k, v = only(feed(ref, ["AC 8S"]))
    assert k == 2
    assert (v.rule, v.seat, str(v.card), v.proof[0], str(v.proof[1])) == (
        "false-project", 0, "8S", 1, "8S",
    )  # fmt: skip
    assert ref.valid_projects() == []


def test_false_project_without_the_shape():
    claim = ProjectClaim(0, "fifty", tuple(parse_card(t) for t in ("7S", "8S", "9S")))
    ref = Referee(SUN, projects=[claim])
    assert [v.rule for v in ref.violations] == ["false-project"]


def test_false_baloot_claim():
    ref = Referee(HOKUM_H, baloot=[0])
    _, v = only(feed(ref, ["AC KH"]))
    assert v.rule == "false-baloot" and ref.baloot_seats() == []


def test_baloot_inferred_from_the_plays():
    ref = Referee(HOKUM_H)
    feed(ref, ["KH 7H 8H 9H", "7C QH"])
    assert ref.baloot_seats() == [0]


def test_partial_deal_rules_on_what_is_proven_so_far():
    ref = Referee(SUN)
    assert feed(ref, ["AC 8D 7C 9C", "KC"]) == []  # seat 1's void is not disproven yet
    assert ref.outcome() is None and ref.card_points == [11 + 0 + 0 + 0, 0]
    assert ref.known_hand(1, 1) == [parse_card("8D")]


def test_penalty_listed_with_each_violation():
    rec = parse_deal_record(
        {
            "format": "hakam-deal/1",
            "dealer": 3,
            "contract": SUN.to_json(),
            "tricks": [["AC", "8D", "7C", "9C"], ["KC", "10C"]],
        }
    )
    v = only(ruling_json(rec)["violations"])
    assert v["penalty"]["team"] == 0 and v["penalty"]["result"] == [26, 0]
    assert v["proof"] == {"trick": 2, "card": "10C"}
