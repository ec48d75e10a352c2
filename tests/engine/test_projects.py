"""Projects and Baloot: shapes, values, best split, comparison, announcement."""

import pytest

from hakam.engine.cards import parse_card
from hakam.engine.projects import (
    ProjectError,
    baloot_absorbed,
    best_split,
    comparison_key,
    counted_projects,
    holds_baloot,
    make_project,
    may_announce,
    project_from_top,
    project_kind,
    project_value,
)


def cards(text):
    return [parse_card(t) for t in text.split()]


def test_project_kind_sequences_in_project_order():
    assert project_kind(cards("7S 8S 9S"), False) == "siri"
    assert project_kind(cards("10S JS QS KS"), False) == "fifty"
    assert project_kind(cards("9D 10D JD QD KD AD"), False) == "hundred"


def test_project_kind_four_of_a_kind():
    assert project_kind(cards("KC KD KH KS"), False) == "hundred"
    assert project_kind(cards("10C 10D 10H 10S"), True) == "hundred"
    assert project_kind(cards("AC AD AH AS"), False) == "hundred"  # four A in Hokum
    assert project_kind(cards("AC AD AH AS"), True) == "four_hundred"  # four A in Sun


@pytest.mark.parametrize("rank", ["9", "8", "7"])
def test_four_nines_eights_sevens_score_nothing(rank):
    with pytest.raises(ProjectError):
        project_kind(cards(f"{rank}C {rank}D {rank}H {rank}S"), False)


def test_project_kind_rejects_non_sequences():
    for bad in ("7S 8S 10S", "7S 8S 9H", "7S 8S", "KS KS QS"):
        with pytest.raises(ProjectError):
            project_kind(cards(bad), False)


def test_project_value_hokum_and_sun():
    assert [project_value(k, False) for k in ("siri", "fifty", "hundred")] == [2, 5, 10]
    assert [project_value(k, True) for k in ("siri", "fifty", "hundred", "four_hundred")] == [
        4, 10, 20, 40,
    ]  # fmt: skip
    with pytest.raises(ProjectError):
        project_value("four_hundred", False)


def test_project_from_top_score_sheet_form():
    assert [str(c) for c in project_from_top(0, "fifty", "KS", None, False).cards] == [
        "10S", "JS", "QS", "KS",
    ]  # fmt: skip
    assert project_from_top(0, "hundred", None, "K", False).four_of == "K"
    with pytest.raises(ProjectError):
        project_from_top(0, "fifty", "9S", None, False)  # nothing below 7
    with pytest.raises(ProjectError):
        project_from_top(0, "hundred", None, "9", False)


def test_best_split_a_card_counts_in_one_project_only():
    # eight spades: Hundred (5) + Siri (3) beats two Fifties
    split = best_split(0, cards("7S 8S 9S 10S JS QS KS AS"), False)
    assert sorted(p.kind for p in split) == ["hundred", "siri"]
    # four kings plus Q J of hearts: K used once -> four K (10) beats K Q J hearts (2)
    split = best_split(0, cards("KC KD KH KS QH JH 7C 8D"), False)
    assert [p.kind for p in split] == ["hundred"] and split[0].four_of == "K"


def test_comparison_value_then_four_kind_then_rank_then_earlier_seat():
    dealer = 3
    seq5 = project_from_top(0, "hundred", "AS", None, False)
    four = project_from_top(1, "hundred", None, "10", False)
    assert comparison_key(four, dealer, False) > comparison_key(seq5, dealer, False)
    high = project_from_top(2, "siri", "AC", None, False)
    low = project_from_top(1, "siri", "KD", None, False)
    assert comparison_key(high, dealer, False) > comparison_key(low, dealer, False)
    a = project_from_top(2, "siri", "KC", None, False)
    b = project_from_top(1, "siri", "KD", None, False)
    assert counted_projects([a, b], 3, False)[0] == 1  # dealer 3: seat 1 before seat 2
    assert counted_projects([a, b], 1, False)[0] == 0  # dealer 1: seat 2 speaks first


def test_counted_projects_best_team_scores_all_its_projects():
    a = project_from_top(0, "fifty", "AS", None, False)
    b = project_from_top(2, "siri", "9C", None, False)
    c = project_from_top(1, "siri", "AD", None, False)
    team, shown = counted_projects([a, b, c], 3, False)
    assert team == 0 and shown == [a, b]


def test_may_announce_only_if_no_higher_announced():
    a = project_from_top(0, "fifty", "AS", None, False)
    b = project_from_top(1, "siri", "AD", None, False)
    assert may_announce(a, [b], 3, False)
    assert not may_announce(b, [a], 3, False)


def test_holds_baloot_k_and_q_of_trump():
    assert holds_baloot(cards("KH QH 7C"), "H")
    assert not holds_baloot(cards("KH QS"), "H")


def test_baloot_absorbed_only_by_five_sequence_or_four_k_q():
    five = make_project(0, cards("10H JH QH KH AH"), False)
    siri = make_project(0, cards("QH KH AH"), False)
    four_q = make_project(0, cards("QC QD QH QS"), False)
    assert baloot_absorbed(0, [five], "H")
    assert baloot_absorbed(0, [four_q], "H")
    assert not baloot_absorbed(0, [siri], "H")
    assert not baloot_absorbed(1, [five], "H")
