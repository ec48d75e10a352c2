"""Scoring a deal and the match: card points to game points, ties, doubling, kaboot, 152.

Card points (162 Hokum / 130 Sun per deal) and game points (152 for the match) are different
scales; every name here says which one it holds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from hakam.engine.contract import Contract
from hakam.engine.projects import BALOOT_POINTS, Project, baloot_absorbed, counted_projects
from hakam.engine.rules import HOKUM_TOTAL, SAUDI, SUN_TOTAL, RuleProfile

HOKUM_GAME = 16
SUN_GAME = 26
HOKUM_KABOOT = 25
SUN_KABOOT = 44


class ScoreError(ValueError):
    """Score-sheet numbers that cannot come from a real deal."""


def total_card_points(contract: Contract) -> int:
    """162 in Hokum, 130 in Sun (the last-trick 10 included)."""
    return SUN_TOTAL if contract.is_sun else HOKUM_TOTAL


def round_hokum(card_points: int) -> int:
    """Hokum rounding: to the ten, an ending 5 rounds down, then divide by 10."""
    return (card_points + 4) // 10


def round_sun(card_points: int) -> int:
    """Sun rounding: to the ten but keep an ending 5, then divide by 5."""
    if card_points % 10 == 5:
        return card_points // 5
    return (card_points + 4) // 10 * 2


def game_points(contract: Contract, counter_card_points: int) -> tuple[int, int]:
    """(team 0, team 1) game points before projects: counters round, the other gets the rest."""
    if contract.is_sun:
        counted, base = round_sun(counter_card_points), SUN_GAME
    else:
        counted, base = round_hokum(counter_card_points), HOKUM_GAME
    out = [0, 0]
    out[contract.counting_team] = counted
    out[1 - contract.counting_team] = base - counted
    return out[0], out[1]


def tie_winner(contract: Contract, counter_card_points: int) -> int:
    """Equal totals: the last digit of the counters' card points decides the winning team.

    Hokum 2-5 counters win, 6-0 the other team, 1 the declarer's team; Sun 1-4 counters win,
    6-9 the other team, 0 and 5 the declarer's team.
    """
    digit = counter_card_points % 10
    counters = contract.counting_team
    if contract.is_sun:
        if digit in (1, 2, 3, 4):
            return counters
        if digit in (6, 7, 8, 9):
            return 1 - counters
        return contract.declarer_team
    if digit in (2, 3, 4, 5):
        return counters
    if digit == 1:
        return contract.declarer_team
    return 1 - counters


def sun_double_allowed(
    contract: Contract, match: Sequence[int], profile: RuleProfile = SAUDI
) -> bool:
    """Sun may be doubled only when the declarer's team has more than 100, the doublers less."""
    d = contract.declarer_team
    return match[d] > profile.sun_double_limit and match[1 - d] < profile.sun_double_limit


def match_status(
    totals: Sequence[int], gahwa_winner: int | None = None, profile: RuleProfile = SAUDI
) -> tuple[bool, int | None]:
    """Match to 152: the higher total wins once a team reaches it; equal totals play on."""
    if gahwa_winner is not None:
        return True, gahwa_winner
    if max(totals) >= profile.match_target and totals[0] != totals[1]:
        return True, 0 if totals[0] > totals[1] else 1
    return False, None


@dataclass(frozen=True, slots=True)
class Outcome:
    """The score of one deal in game points, and where the match stands after it."""

    game_points: tuple[int, int]
    projects: tuple[Project, ...]
    project_points: tuple[int, int]
    baloot: tuple[int, ...]
    baloot_points: tuple[int, int]
    winner_team: int
    declarer_won: bool
    kaboot: int | None
    result: tuple[int, int]
    match: tuple[int, int]
    match_over: bool
    match_winner: int | None
    counting_team: int
    sun: bool

    def to_json(self) -> dict[str, Any]:
        return {
            "game_points": list(self.game_points),
            "projects": [p.to_json(self.sun) for p in self.projects],
            "project_points": list(self.project_points),
            "baloot": list(self.baloot),
            "baloot_points": list(self.baloot_points),
            "winner_team": self.winner_team,
            "declarer_won": self.declarer_won,
            "kaboot": self.kaboot,
            "counting_team": self.counting_team,
            "result": list(self.result),
            "match": list(self.match),
            "match_over": self.match_over,
            "match_winner": self.match_winner,
        }


def _counted_baloot(
    contract: Contract, seats: Sequence[int], shown: Sequence[Project]
) -> tuple[list[int], list[int]]:
    if contract.is_sun:
        return [], [0, 0]
    counted = [s for s in sorted(set(seats)) if not baloot_absorbed(s, shown, contract.trump)]
    points = [0, 0]
    for s in counted:
        points[s % 2] += BALOOT_POINTS
    return counted, points


def score_deal(
    contract: Contract,
    card_points: Sequence[int],
    tricks_won: Sequence[int],
    projects: Sequence[Project] = (),
    baloot: Sequence[int] = (),
    match: Sequence[int] = (0, 0),
    profile: RuleProfile = SAUDI,
) -> Outcome:
    """Score a finished deal like a paper score sheet (no checks; see ``check_score_input``)."""
    sun = contract.is_sun
    base = SUN_GAME if sun else HOKUM_GAME
    mult = contract.multiplier(profile)
    raised = contract.level != "none"
    d = contract.declarer_team
    c = contract.counting_team
    proj_team, shown = counted_projects(projects, contract.dealer, sun, profile)
    proj_pts = [0, 0]
    for p in shown:
        proj_pts[p.seat % 2] += p.value(sun)
    bal_seats, bal_pts = _counted_baloot(contract, baloot, shown)
    kaboot = 0 if tricks_won[1] == 0 else 1 if tricks_won[0] == 0 else None
    result = [0, 0]
    if kaboot is not None:
        winner = kaboot
        gp = [0, 0]
        gp[kaboot] = SUN_KABOOT if sun else HOKUM_KABOOT
        if proj_team != winner:
            shown, proj_pts = [], [0, 0]
            if not profile.kaboot_projects_only_if_shown:
                shown = [p for p in projects if p.seat % 2 == winner]
                proj_pts[winner] = sum(p.value(sun) for p in shown)
        result[winner] = score_kaboot(contract, proj_pts[winner], bal_pts[winner], profile)
        if profile.baloot_stays_with_owner:
            result[1 - winner] = bal_pts[1 - winner]
        else:
            bal_seats = [s for s in bal_seats if s % 2 == winner]
            bal_pts[1 - winner] = 0
    else:
        gp = list(game_points(contract, card_points[c]))
        totals = [gp[t] + proj_pts[t] + bal_pts[t] for t in (0, 1)]
        if totals[0] != totals[1]:
            winner = 0 if totals[0] > totals[1] else 1
        else:
            winner = tie_winner(contract, card_points[c])
        if not raised and winner == d:
            result = totals
        else:
            loser = 1 - winner
            keep = bal_pts[loser] if profile.baloot_stays_with_owner else 0
            factor = 2 if raised else 1
            result[winner] = base * mult + sum(proj_pts) * factor + sum(bal_pts) - keep
            result[loser] = keep
    gahwa = contract.level == "gahwa" and profile.gahwa_wins_match
    new_match = (match[0] + result[0], match[1] + result[1])
    over, match_winner = match_status(new_match, winner if gahwa else None, profile)
    return Outcome(
        game_points=(gp[0], gp[1]),
        projects=tuple(shown),
        project_points=(proj_pts[0], proj_pts[1]),
        baloot=tuple(bal_seats),
        baloot_points=(bal_pts[0], bal_pts[1]),
        winner_team=winner,
        declarer_won=winner == d,
        kaboot=kaboot,
        result=(result[0], result[1]),
        match=new_match,
        match_over=over,
        match_winner=match_winner,
        counting_team=c,
        sun=sun,
    )


def score_kaboot(
    contract: Contract, own_projects: int, own_baloot: int, profile: RuleProfile = SAUDI
) -> int:
    """Al-kaboot: 25 (Hokum) / 44 (Sun), raised x level; own projects (x2 raised); own Baloot."""
    base = SUN_KABOOT if contract.is_sun else HOKUM_KABOOT
    if contract.level == "none":
        return base + own_projects + own_baloot
    return base * contract.multiplier(profile) + own_projects * 2 + own_baloot


def score_penalty(
    contract: Contract,
    offending_team: int,
    projects: Sequence[Project] = (),
    baloot: Sequence[int] = (),
    match: Sequence[int] = (0, 0),
    profile: RuleProfile = SAUDI,
) -> tuple[tuple[int, int], bool, int | None]:
    """Penalty: the deal goes to the other team as a lost contract of the offenders.

    The innocent team gets 16/26 x multiplier plus its own counted projects (x2 when raised)
    and, by ``penalty_keeps_non_offender_baloot``, its Baloot. Returns (result, over, winner).
    """
    sun = contract.is_sun
    innocent = 1 - offending_team
    base = SUN_GAME if sun else HOKUM_GAME
    proj_team, shown = counted_projects(projects, contract.dealer, sun, profile)
    own = sum(p.value(sun) for p in shown) if proj_team == innocent else 0
    factor = 2 if contract.level != "none" else 1
    _bal_seats, bal_pts = _counted_baloot(contract, baloot, shown)
    points = base * contract.multiplier(profile) + own * factor
    if profile.penalty_keeps_non_offender_baloot:
        points += bal_pts[innocent]
    result = [0, 0]
    result[innocent] = points
    gahwa = contract.level == "gahwa" and profile.gahwa_wins_match
    new_match = (match[0] + result[0], match[1] + result[1])
    over, winner = match_status(new_match, innocent if gahwa else None, profile)
    return (result[0], result[1]), over, winner


def check_score_input(
    contract: Contract, card_points: Sequence[int], tricks_won: Sequence[int]
) -> None:
    """Card points must add up to 162/130 and tricks to 8; a team without tricks has 0 points."""
    total = total_card_points(contract)
    if sum(card_points) != total:
        raise ScoreError(f"card_points: must add up to {total}, got {sum(card_points)}")
    if sum(tricks_won) != 8:
        raise ScoreError(f"tricks_won: must add up to 8, got {sum(tricks_won)}")
    for t in (0, 1):
        if tricks_won[t] == 0 and card_points[t] != 0:
            raise ScoreError(f"card_points: team {t} won no trick but has {card_points[t]} points")
        if tricks_won[t] == 8 and card_points[t] != total:
            raise ScoreError(f"card_points: team {t} won every trick, points must be {total}")
