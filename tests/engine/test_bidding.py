"""Bidding, doubling and dealing rules."""

import random

import pytest

from hakam.engine.bidding import Bidding, BiddingError
from hakam.engine.cards import DECK, parse_card
from hakam.engine.contract import Contract, ContractError
from hakam.engine.dealing import deal_first_round, deal_second_round, first_dealer, next_dealer
from hakam.engine.doubling import DoublingError, raise_contract
from hakam.engine.rules import PROFILES


def auction(calls, dealer=3, open_suit="H"):
    b = Bidding(dealer, open_suit)
    for call in calls:
        b.push(b.turn, call)
    return b


def test_round_one_hokum_in_the_open_suit():
    b = auction(["hokum", "pass", "pass", "pass"])
    assert b.done and b.contract == Contract("hokum", 0, 3, trump="H")


def test_sun_beats_hokum_even_from_a_player_who_passed():
    # seat 0 passes, seat 1 Hokum, seats 2 3 pass; seat 0 (earlier) may still say Sun
    b = auction(["pass", "hokum", "pass", "pass", "sun"])
    assert b.contract == Contract("sun", 0, 3)


def test_sun_taken_over_only_by_an_earlier_seat():
    b = auction(["pass", "pass", "sun", "pass"])  # seat 2 Sun; seat 3 (later) may only pass
    assert b.turn == 0 and b.legal_calls() == ["pass", "sun"]
    b.push(0, "pass")
    b.push(1, "sun")
    assert b.contract == Contract("sun", 1, 3)
    with pytest.raises(BiddingError):
        auction(["pass", "pass", "sun", "sun"])


def test_ashkal_only_third_speaker_or_dealer_after_passes():
    b = auction(["pass", "pass", "ashkal", "pass", "pass", "pass"])
    assert b.contract == Contract("sun", 0, 3, ashkal=True)  # partner of seat 2 declares
    with pytest.raises(BiddingError):
        auction(["pass", "ashkal"])
    with pytest.raises(BiddingError):
        auction(["hokum", "pass", "ashkal"])


def test_round_two_hokum_names_another_suit_and_sun_ends_it():
    b = auction(["pass"] * 4 + ["pass", "hokum:S", "pass", "pass"])
    assert b.contract == Contract("hokum", 1, 3, trump="S")
    with pytest.raises(BiddingError):
        auction(["pass"] * 4 + ["hokum:H"])  # the open card's suit
    with pytest.raises(BiddingError):
        auction(["pass"] * 4 + ["hokum"])
    b = auction(["pass"] * 4 + ["hokum:S", "sun"])
    assert b.done and b.contract == Contract("sun", 1, 3)


def test_round_two_passed_player_may_not_say_sun_later():
    b = auction(["pass"] * 4 + ["pass", "hokum:C", "pass", "pass"])
    assert b.done  # seat 0 passed in round 2: no second chance


def test_round_two_has_no_ashkal():
    with pytest.raises(BiddingError):
        auction(["pass"] * 4 + ["pass", "pass", "ashkal"])


def test_all_pass_twice_void_deal():
    b = auction(["pass"] * 8)
    assert b.done and b.void and b.contract is None


def test_dealing_three_then_two_open_card_21():
    deck = list(DECK)
    five, open_card = deal_first_round(deck, dealer=3)
    assert open_card == deck[20]
    assert five[0] == deck[0:3] + deck[12:14]  # dealer's right gets the first cards
    full = deal_second_round(deck, five, 3, taker=2)
    assert all(len(h) == 8 for h in full) and full[2][5] == deck[20]
    assert sorted(c.index for h in full for c in h) == list(range(32))


def test_dealer_moves_to_the_right_and_first_is_random():
    assert next_dealer(3) == 0
    assert {first_dealer(random.Random(s)) for s in range(40)} == {0, 1, 2, 3}


def test_doubling_chain_and_open_or_locked():
    c = Contract("hokum", 0, 3, trump="H")
    d = raise_contract(c, 1, "double", locked=True)
    assert d.level == "double" and d.locked
    t = raise_contract(d, 0, "triple")
    assert not t.locked
    q = raise_contract(t, 1, "quadruple")
    g = raise_contract(q, 0, "gahwa")
    assert g.raised_by == (1, 0, 1, 0)
    with pytest.raises(DoublingError):
        raise_contract(c, 2, "double")  # partner of the declarer
    with pytest.raises(DoublingError):
        raise_contract(t, 3, "quadruple")  # not the same doubler
    with pytest.raises(DoublingError):
        raise_contract(d, 0, "triple", locked=True)
    with pytest.raises(DoublingError):
        raise_contract(d, 2, "triple")
    assert raise_contract(d, 2, "triple", profile=PROFILES["saudi"].with_options(
        raise_by_declarer_only=False)).level == "triple"  # fmt: skip


def test_sun_only_doubled_when_declarer_over_100_and_doublers_under():
    s = Contract("sun", 0, 3)
    with pytest.raises(DoublingError):
        raise_contract(s, 1, "double", match=(90, 50))
    d = raise_contract(s, 1, "double", match=(110, 50))
    with pytest.raises(DoublingError):
        raise_contract(d, 0, "triple", match=(110, 50))
    with pytest.raises(DoublingError):
        raise_contract(s, 1, "double", locked=True, match=(110, 50))


def test_contract_rejects_impossible_contracts():
    for kwargs in (
        {"kind": "sun", "declarer": 0, "dealer": 0, "trump": "H"},
        {"kind": "hokum", "declarer": 0, "dealer": 0},
        {"kind": "hokum", "declarer": 4, "dealer": 0, "trump": "H"},
        {"kind": "sun", "declarer": 0, "dealer": 0, "level": "triple"},
        {"kind": "hokum", "declarer": 0, "dealer": 0, "trump": "H", "locked": True},
        {"kind": "hokum", "declarer": 0, "dealer": 0, "trump": "H", "level": "double",
         "raised_by": (2,)},
    ):  # fmt: skip
        with pytest.raises(ContractError):
            Contract(**kwargs)
    assert parse_card("TH") == parse_card("10H")
