"""Play rules: one test per named rule of engine.play."""

import pytest

from hakam.engine.cards import parse_card
from hakam.engine.contract import Contract
from hakam.engine.play import (
    DealState,
    IllegalPlayError,
    ekka_is_valid,
    first_leader,
    illegal_reasons,
    legal_plays,
    trick_points,
    trick_winner,
)
from hakam.engine.rules import PROFILES, SAUDI

HOKUM_H = Contract("hokum", declarer=0, dealer=3, trump="H")
SUN = Contract("sun", declarer=0, dealer=3)


def cards(text: str) -> list:
    return [parse_card(t) for t in text.split()]


def legal(hand, trick, contract=HOKUM_H, played="", ekka=False, profile=SAUDI):
    out = legal_plays(cards(hand), cards(trick), contract, cards(played), ekka, profile)
    return " ".join(str(c) for c in out)


def reasons(hand, trick, contract=HOKUM_H, played="", ekka=False):
    out = illegal_reasons(cards(hand), cards(trick), contract, cards(played), ekka)
    return {str(c): r for c, r in out.items()}


def test_trick_winner_highest_trump_else_highest_of_suit_led():
    assert trick_winner(cards("AC 10C 7H KC"), HOKUM_H) == 2
    assert trick_winner(cards("KC 10C AD AC"), HOKUM_H) == 3
    assert trick_winner(cards("9H JH AH 10H"), HOKUM_H) == 1  # trump order J 9 A 10
    assert trick_winner(cards("KS 10S JH 9H"), SUN) == 1  # Sun: no trump


def test_trick_points_card_values_and_last_trick_bonus():
    idx = [c.index for c in cards("JH 9H AC 10C")]
    assert trick_points(idx, 2) == 20 + 14 + 11 + 10
    assert trick_points(idx, -1, last=True) == 2 + 0 + 11 + 10 + 10


def test_follow_suit_duty_any_card_of_the_suit_led():
    assert legal("7C KC AD 7H", "AC") == "7C KC"
    assert reasons("7C KC AD 7H", "AC") == {"AD": "follow-suit", "7H": "follow-suit"}


def test_sun_void_player_may_play_anything_without_duty_to_beat():
    assert legal("7D 7H 8S", "AC", SUN) == "7D 7H 8S"
    assert legal("7C AC 8S", "KC", SUN) == "7C AC"


def test_trump_led_duty_must_overtrump_an_opponent():
    # seat 0 leads 9H, seat 1 holds JH and 7H: must beat the 9 with the J
    assert legal("7H JH AC", "9H") == "JH"
    assert reasons("7H JH AC", "9H") == {"7H": "must-overtrump", "AC": "follow-suit"}


def test_trump_led_duty_without_higher_trump_still_follows_trump():
    assert legal("7H 8H AC", "9H") == "7H 8H"


def test_trump_led_duty_partner_winning_any_trump():
    # leader (partner of the 3rd) wins with JH: any trump will do
    assert legal("7H 9H AC", "JH 8H") == "7H 9H"


def test_void_trump_duty_second_player_must_trump():
    assert legal("7H AD KS", "KC") == "7H"
    assert reasons("7H AD KS", "KC") == {"AD": "must-trump", "KS": "must-trump"}


def test_void_trump_duty_opponent_winning_must_overtrump_if_able():
    # 3rd: 2nd (opponent) trumped with 9H; 3rd holds JH and 7H
    assert legal("7H JH AD", "KC 9H") == "JH"
    assert reasons("7H JH AD", "KC 9H")["7H"] == "must-overtrump"


def test_void_trump_duty_cannot_overtrump_may_discard_anything():
    assert legal("7H 8H AD", "KC 9H") == "AD 7H 8H"


def test_void_trump_duty_fourth_player_partner_winning_is_free():
    # 4th: partner (2nd) won with 7H
    assert legal("8H AD", "KC 7H 8C") == "AD 8H"


def test_void_trump_duty_fourth_player_opponent_winning_must_trump():
    assert legal("8H AD", "KC 8C AC") == "8H"


def test_third_player_rule_must_trump_even_when_partner_wins():
    # worked example (a): A leads KC without Ekka, B plays 7C, C (no clubs) must trump
    assert legal("7H AD QS", "KC 7C") == "7H"
    assert reasons("7H AD QS", "KC 7C") == {"AD": "third-player", "QS": "third-player"}


def test_third_player_rule_ace_lead_frees_the_third():
    assert legal("7H AD QS", "AC 7C") == "AD 7H QS"


def test_third_player_rule_valid_ekka_frees_the_third():
    assert legal("7H AD QS", "KC 7C", played="AC 10C 8D 9D", ekka=True) == "AD 7H QS"
    # a false Ekka frees nobody
    assert legal("7H AD QS", "KC 7C", ekka=True) == "7H"


def test_ekka_is_valid_only_on_the_highest_remaining_plain_card():
    kc, ac, tc = (parse_card(t).index for t in ("KC", "AC", "10C"))
    assert not ekka_is_valid(kc, 1 << ac, 2)  # 10C still out
    assert ekka_is_valid(kc, (1 << ac) | (1 << tc), 2)
    assert ekka_is_valid(ac, 0, 2)
    assert not ekka_is_valid(parse_card("JH").index, 0, 2)  # a trump is never an Ekka


def test_ekka_never_excuses_following_suit():
    assert legal("7C 7H", "KC 8C", played="AC 10C 8D 9D", ekka=True) == "7C"


def test_locked_lead_duty_no_trump_lead_unless_only_trumps():
    locked = Contract("hokum", 0, 3, trump="H", level="double", raised_by=(1,), locked=True)
    assert legal("7H JH AD", "", locked) == "AD"
    assert reasons("7H JH AD", "", locked) == {"7H": "locked-lead", "JH": "locked-lead"}
    assert legal("7H JH", "", locked) == "7H JH"


def test_overtrump_not_mandatory_variant():
    free = PROFILES["free-overtrump"]
    assert legal("7H JH AC", "9H", profile=free) == "7H JH"
    assert legal("7H JH AD", "KC 9H", profile=free) == "7H JH"


def test_first_leader_is_the_dealers_right_whoever_declared():
    c = Contract("hokum", declarer=2, dealer=0, trump="S")
    assert first_leader(c) == 1
    assert first_leader(c, PROFILES["bidder-leads"]) == 2
    ashkal = Contract("sun", declarer=2, dealer=0, ashkal=True)
    assert first_leader(ashkal, PROFILES["bidder-leads"]) == 0  # the buyer, not the declarer


def test_deal_state_push_rejects_illegal_and_scores_tricks():
    hands = [cards("7C 8C 9C 10C JC QC KC AC"), cards("7D 8D 9D 10D JD QD KD AD"),
             cards("7H 8H 9H 10H JH QH KH AH"), cards("7S 8S 9S 10S JS QS KS AS")]  # fmt: skip
    state = DealState(hands, Contract("sun", 0, 3))
    assert state.turn == 0 and len(state.legal_moves()) == 8
    with pytest.raises(IllegalPlayError):
        state.push(parse_card("7D"))  # not in seat 0's hand
    while not state.is_over:
        state.push(state.legal_moves()[0])
    assert sum(state.card_points) == 130 and state.tricks_won == [8, 0]
