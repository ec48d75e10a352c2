"""The deal decoder's weighing of the ways of placing cards the camera did not read."""

from __future__ import annotations

import math

import pytest

from hakam.vision.decoder import FINAL_P, VIOLATION, Way, decode, likelihood


def way(card, new=0, oot=False, result="r", exchanged=False):
    return Way(card, new, oot, result, exchanged)


def test_the_only_way_that_keeps_the_rules_is_named_by_the_rules_whatever_the_reads():
    found = decode([way(1), way(2, new=1), way(3, new=2)], scores={})
    assert (found.card, found.by) == (1, "rules")
    assert found.probability > 0.99 and found.margin > 100
    assert sum(found.posterior.values()) == pytest.approx(1.0)
    # the reads took it surely for card 2: still the rules' card, but less sure (below FINAL_P:
    # the deal stays provisional until a person confirms it)
    against = decode([way(1), way(2, new=1), way(3, new=2)], scores={2: 4.0})
    assert (against.card, against.by) == (1, "rules") and 0.9 < against.probability < FINAL_P


def test_among_clean_ways_the_reads_decide_and_say_how_likely():
    found = decode([way(1, result="a"), way(2, result="b")], scores={2: 2.0})
    assert (found.card, found.by) == (2, "reader")
    assert found.probability == pytest.approx(2.1 / 2.2)  # (0.1 + 2) against 0.1
    assert found.margin == pytest.approx(21.0)
    unsure = decode([way(1, result="a"), way(2, result="b")], scores={2: 0.5, 1: 0.5})
    assert unsure.card is None and unsure.by is None  # a person decides
    assert unsure.probability == pytest.approx(0.5)
    no_read = decode([way(1, result="a"), way(2, result="b"), way(2, new=1, result="c")], {})
    assert no_read.by is None  # the rules lean to card 1, the reads say nothing: not enough


def test_ways_that_score_alike_name_a_card_by_the_result():
    found = decode([way(1, result="same"), way(2, result="same")], scores={})
    assert found.by == "same-result" and found.result_probability == pytest.approx(1.0)
    assert found.probability == pytest.approx(0.5)  # the card itself is a guess


def test_where_every_way_breaks_a_rule_the_fewest_is_named_only_as_the_reads_say():
    ways = [way(1, new=1), way(2, new=2)]
    assert decode(ways, scores={}).by is None  # no read says so: a person decides
    found = decode(ways, scores={1: 2.0})
    assert (found.card, found.by) == (1, "fewest")
    assert decode(ways, scores={1: 2.0}, fewest=False).by is None
    assert decode([way(1, new=1, oot=True), way(2, new=2)], scores={1: 2.0}).by is None


def test_a_cards_ways_are_averaged_and_weighed_by_what_they_break():
    # card 1: two ways on (a later card either way), one clean; card 2: one clean way
    found = decode([way(1), way(1, new=1), way(2)], scores={})
    assert found.posterior[1] == pytest.approx((1 + VIOLATION) / 2 / ((1 + VIOLATION) / 2 + 1))
    assert found.card == 2 and found.by == "same-result"  # every clean way: result "r"
    assert decode([way(1, exchanged=True), way(2)], scores={}).posterior[1] < 0.1


def test_no_read_leaves_every_card_alike():
    assert likelihood([1, 2, 3], {}) == {1: 1 / 3, 2: 1 / 3, 3: 1 / 3}
    only = decode([way(5)], scores={})
    assert (only.card, only.probability, only.margin) == (5, 1.0, math.inf)
    assert decode([], scores={}).card is None
