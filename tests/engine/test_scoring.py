"""Scoring rules: rounding, ties, doubling, kaboot, projects in the score, match to 152."""

import pytest

from hakam.engine.cards import parse_card
from hakam.engine.contract import Contract
from hakam.engine.projects import make_project, project_from_top
from hakam.engine.rules import PROFILES
from hakam.engine.scoring import (
    ScoreError,
    check_score_input,
    game_points,
    match_status,
    round_hokum,
    round_sun,
    score_deal,
    score_kaboot,
    score_penalty,
    sun_double_allowed,
    tie_winner,
)

HOKUM = Contract("hokum", declarer=0, dealer=3, trump="H")
SUN = Contract("sun", declarer=0, dealer=3)


def raised(level, kind="hokum", locked=False):
    seats = (1, 0, 1, 0)[: ("none", "double", "triple", "quadruple", "gahwa").index(level)]
    trump = "H" if kind == "hokum" else None
    return Contract(kind, 0, 3, trump=trump, level=level, raised_by=seats, locked=locked)


def test_round_hokum_ending_5_rounds_down():
    assert [round_hokum(p) for p in (78, 75, 76, 74, 0, 162)] == [8, 7, 8, 7, 0, 16]


def test_round_sun_keeps_an_ending_5():
    assert [round_sun(p) for p in (65, 64, 66, 63, 130, 0)] == [13, 12, 14, 12, 26, 0]


def test_game_points_other_team_gets_the_rest_unrounded():
    assert game_points(HOKUM, 78) == (8, 8)  # counters are team 1
    assert game_points(HOKUM, 53) == (11, 5)
    assert game_points(SUN, 67) == (12, 14)


def test_counting_team_is_opposite_the_last_raiser():
    assert HOKUM.counting_team == 1
    assert raised("double").counting_team == 0  # defenders doubled: declarer's team counts
    assert raised("triple").counting_team == 1
    assert raised("quadruple").counting_team == 0
    assert raised("gahwa").counting_team == 1


def test_worked_example_b_undoubled_hokum_tie_goes_by_the_digit():
    # declarer 84, defenders 78: defenders count 78 -> 8, declarer 8; digit 8: counters lose
    out = score_deal(HOKUM, [84, 78], [4, 4])
    assert out.game_points == (8, 8)
    assert out.winner_team == 0 and out.declarer_won
    assert out.result == (8, 8)


@pytest.mark.parametrize(
    "digit_points,winner",
    [(82, 1), (83, 1), (84, 1), (85, 1), (86, 0), (80, 0), (81, 0)],
)
def test_tie_winner_hokum_digits(digit_points, winner):
    assert tie_winner(HOKUM, digit_points) == winner  # counters = team 1, declarer team 0


@pytest.mark.parametrize("points,winner", [(61, 1), (64, 1), (66, 0), (69, 0), (60, 0), (65, 0)])
def test_tie_winner_sun_digits(points, winner):
    assert tie_winner(SUN, points) == winner


def test_undoubled_declarer_loses_opponents_take_16_plus_projects_and_baloot():
    siri = make_project(0, [parse_card(c) for c in ("7S", "8S", "9S")], False)
    out = score_deal(HOKUM, [60, 102], [3, 5], [siri], baloot=[1])
    # team 0: 6 + 2 = 8; team 1: 10 + 2 = 12 -> declarer (team 0) loses
    assert not out.declarer_won
    assert out.result == (0, 16 + 2 + 2)


def test_undoubled_declarer_wins_each_team_writes_its_total():
    out = score_deal(HOKUM, [100, 62], [5, 3])
    assert out.result == (10, 6)


def test_doubled_winner_takes_everything_projects_x2_baloot_not_multiplied():
    fifty = project_from_top(1, "fifty", "KS", None, False)
    for level, mult in (("double", 2), ("triple", 3), ("quadruple", 4)):
        out = score_deal(raised(level), [120, 42], [6, 2], [fifty], baloot=[0])
        # team 0: the winner takes 16 x mult + projects x2 + Baloot 2
        assert out.winner_team == 0
        assert out.result == (16 * mult + 5 * 2 + 2, 0), level


def test_sun_double_is_x2_and_needs_the_match_condition():
    out = score_deal(raised("double", "sun"), [100, 30], [6, 2], match=(110, 50))
    assert out.result == (52, 0)
    assert sun_double_allowed(SUN, (101, 99)) and not sun_double_allowed(SUN, (100, 50))
    assert not sun_double_allowed(SUN, (120, 100))


def test_gahwa_winning_the_deal_wins_the_match():
    out = score_deal(raised("gahwa"), [40, 122], [2, 6], match=(0, 0))
    assert out.winner_team == 1 and out.match_over and out.match_winner == 1


def test_gahwa_as_multiplier_variant():
    out = score_deal(raised("gahwa"), [40, 122], [2, 6], profile=PROFILES["gahwa-x4"])
    assert not out.match_over and out.result == (0, 64)


def test_kaboot_hokum_25_plus_own_projects_and_baloot():
    siri = project_from_top(0, "siri", "9S", None, False)
    other = project_from_top(1, "siri", "9C", None, False)  # equal: seat 0 speaks earlier
    out = score_deal(HOKUM, [162, 0], [8, 0], [siri, other], baloot=[2])
    assert out.kaboot == 0 and out.result == (25 + 2 + 2, 0)
    assert score_kaboot(HOKUM, 0, 0) == 25 and score_kaboot(SUN, 0, 0) == 44


def test_kaboot_own_projects_count_only_if_shown():
    siri = project_from_top(0, "siri", "9S", None, False)
    other = project_from_top(1, "siri", "AC", None, False)  # wins the comparison
    out = score_deal(HOKUM, [162, 0], [8, 0], [siri, other])
    assert out.result == (25, 0)


def test_kaboot_other_teams_projects_and_baloot_vanish():
    hundred = project_from_top(1, "hundred", None, "K", False)
    out = score_deal(HOKUM, [162, 0], [8, 0], [hundred], baloot=[1])
    assert out.result == (25, 0) and out.projects == () and out.baloot == ()


def test_kaboot_raised_multiplies_25_and_doubles_own_projects():
    siri = project_from_top(0, "siri", "9S", None, False)
    out = score_deal(raised("triple"), [162, 0], [8, 0], [siri], baloot=[0])
    assert out.result == (25 * 3 + 2 * 2 + 2, 0)
    sun = score_deal(raised("double", "sun"), [0, 130], [0, 8], match=(110, 10))
    assert sun.kaboot == 1 and sun.result == (0, 88)


def test_baloot_stays_with_owner_variant():
    out = score_deal(HOKUM, [60, 102], [3, 5], baloot=[0], profile=PROFILES["baloot-stays"])
    assert out.result == (2, 16)


def test_baloot_absorbed_by_shown_hundred_sequence_with_k_q():
    hundred = project_from_top(0, "hundred", "AH", None, False)  # A K Q J 10 of trump
    out = score_deal(HOKUM, [100, 62], [5, 3], [hundred], baloot=[0])
    assert out.baloot == () and out.result == (10 + 10, 6)
    siri = project_from_top(0, "siri", "KH", None, False)  # K Q J: Baloot still counts
    out = score_deal(HOKUM, [100, 62], [5, 3], [siri], baloot=[0])
    assert out.baloot == (0,) and out.result == (10 + 2 + 2, 6)


def test_match_status_152_higher_wins_equal_plays_on():
    assert match_status((152, 100)) == (True, 0)
    assert match_status((160, 170)) == (True, 1)
    assert match_status((155, 155)) == (False, None)
    assert match_status((150, 151)) == (False, None)


def test_penalty_gives_the_deal_to_the_innocent_team():
    fifty = project_from_top(1, "fifty", "KS", None, False)
    assert score_penalty(HOKUM, 0, [fifty])[0] == (0, 16 + 5)
    assert score_penalty(raised("double"), 1, [fifty])[0] == (32, 0)


def test_check_score_input_totals():
    check_score_input(HOKUM, [80, 82], [4, 4])
    with pytest.raises(ScoreError, match="card_points"):
        check_score_input(HOKUM, [80, 80], [4, 4])
    with pytest.raises(ScoreError, match="tricks_won"):
        check_score_input(SUN, [65, 65], [4, 3])
