"""The deal decoder's weighing of the ways of placing cards the camera did not read."""

from __future__ import annotations

import math

import pytest

from hakam.vision.decoder import FINAL_P, NAME_P, VIOLATION, Way, decode, likelihood


def way(card, new=0, oot=False, result="r", exchanged=False, anywhere=False):
    return Way(card, new, oot, result, exchanged, anywhere or oot)


def test_the_only_card_that_keeps_the_rules_is_named_by_the_rules():
    found = decode([way(1), way(2, new=1), way(3, new=2)], scores={})
    assert (found.card, found.by) == (1, "rules")
    assert found.probability > 0.99 and found.margin > 100
    assert sum(found.posterior.values()) == pytest.approx(1.0)
    # the reads took it surely for card 2: still the rules' card, less sure (below FINAL_P: the
    # deal stays provisional and a person is told)
    against = decode([way(1), way(2, new=1), way(3, new=2)], scores={2: 4.0})
    assert (against.card, against.by) == (1, "rules") and 0.9 < against.probability < FINAL_P
    # read so often as card 2 that card 2's revoke is the likelier story: a person decides
    revoke = decode([way(1), way(2, new=1)], scores={2: 200.0})
    assert revoke.card is None and revoke.likeliest == 2


def test_among_clean_ways_the_reads_decide_and_say_how_likely():
    found = decode([way(1, result="a"), way(2, result="b")], scores={2: 2.0})
    assert (found.card, found.by) == (2, "reader")
    assert found.probability == pytest.approx(2.1 / 2.2)  # (0.1 + 2) against 0.1
    assert found.margin == pytest.approx(21.0)
    unsure = decode([way(1, result="a"), way(2, result="b")], scores={2: 0.5, 1: 0.5})
    assert unsure.card is None and unsure.by is None  # a person decides
    close = decode([way(1, result="a"), way(2, result="b")], scores={1: 1.0, 2: 0.6})
    assert close.by is None  # the reads must take it for the card twice as much as the next


def test_ways_that_score_alike_name_a_card_by_the_result():
    found = decode([way(1, result="same"), way(2, result="same")], scores={})
    assert found.by == "same-result" and found.probability == pytest.approx(0.5)


def test_where_every_way_breaks_a_rule_the_fewest_is_named_only_as_the_reads_say():
    ways = [way(1, new=1), way(2, new=2)]
    assert decode(ways, scores={}).by is None  # no read says so: a person decides
    found = decode(ways, scores={1: 2.0})
    assert (found.card, found.by, found.probability) == (1, "fewest", None)
    assert decode(ways, scores={1: 2.0}, fewest=False).by is None
    assert decode([way(1, new=1, anywhere=True), way(2, new=2)], scores={1: 2.0}).by is None
    assert decode([way(1, new=1), way(2, new=1)], scores={1: 2.0}).by is None  # a tie
    # a card the reads favour, among cards whose copy came to no end: not enough
    assert decode(ways, scores={1: 2.0, 9: 3.0}, left=[1, 2, 9]).by is None


def test_fewest_never_fires_where_a_card_keeps_every_rule():
    found = decode([way(1, result="a"), way(2, new=1, result="b")], scores={2: 200.0})
    assert found.by != "fewest" and found.card != 2
    three = decode([way(1, result="s"), way(2, result="s"), way(3, new=1)], scores={3: 300.0})
    assert three.card in (1, 2) and three.by == "same-result"


def test_a_cards_ways_are_averaged_and_a_card_with_no_way_weighs_as_one_that_breaks_a_rule():
    found = decode([way(1), way(1, new=1), way(2)], scores={})
    assert found.posterior[1] == pytest.approx((1 + VIOLATION) / 2 / ((1 + VIOLATION) / 2 + 1))
    assert found.card == 2 and found.by == "same-result"  # every clean way: result "r"
    assert decode([way(1, exchanged=True), way(2)], scores={}).posterior[1] < 0.1
    lone = decode([way(5)], scores={}, left=[5, 6])  # 6's copy came to no end
    assert lone.by == "rules" and lone.probability == pytest.approx(1 / (1 + VIOLATION))
    assert lone.probability >= NAME_P


def test_no_read_leaves_every_card_alike():
    assert likelihood([1, 2, 3], {}) == {1: 1 / 3, 2: 1 / 3, 3: 1 / 3}
    only = decode([way(5)], scores={})
    assert (only.card, only.probability, only.margin) == (5, 1.0, math.inf)
    assert decode([], scores={}).card is None
