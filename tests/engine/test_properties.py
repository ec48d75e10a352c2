"""Property tests over random legal deals (hypothesis draws the seeds)."""

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from hakam.engine.play import legal_plays
from hakam.engine.referee import Referee, audit_plays
from hakam.engine.scoring import score_deal
from hakam.engine.simulate import random_deal

SEEDS = st.integers(min_value=0, max_value=2**32 - 1)
FAST = settings(max_examples=60, deadline=None)


@FAST
@given(SEEDS)
def test_card_points_sum_to_162_or_130(seed):
    contract, _, tricks, ekka = random_deal(random.Random(seed))
    ref = audit_plays(contract, tricks, ekka)
    assert sum(ref.card_points) == (130 if contract.is_sun else 162)
    assert sum(ref.tricks_won) == 8


@FAST
@given(SEEDS)
def test_undoubled_non_kaboot_game_points_sum_to_16_or_26(seed):
    contract, _, tricks, ekka = random_deal(random.Random(seed))
    ref = audit_plays(contract, tricks, ekka)
    out = score_deal(contract, ref.card_points, ref.tricks_won)
    if out.kaboot is None:
        assert sum(out.game_points) == (26 if contract.is_sun else 16)


@FAST
@given(SEEDS)
def test_random_legal_deal_audited_has_no_violations(seed):
    contract, _, tricks, ekka = random_deal(random.Random(seed))
    assert audit_plays(contract, tricks, ekka).violations == []


@FAST
@given(SEEDS, st.randoms(use_true_random=False))
def test_injected_illegal_play_is_caught_with_the_right_proof(seed, pick):
    contract, _, tricks, ekka = random_deal(random.Random(seed))
    seats = _seats(contract, tricks)
    # every (play, illegal alternative from the same hand) pair
    options = []
    for n, trick in enumerate(tricks):
        for i, card in enumerate(trick):
            seat = seats[n][i]
            later = [(m, j) for m in range(n + 1, 8) for j in range(4) if seats[m][j] == seat]
            hand = [card] + [tricks[m][j] for m, j in later]
            played = [c for t in tricks[:n] for c in t]
            ok = legal_plays(hand, trick[:i], contract, played, n + 1 in ekka)
            for m, j in later:
                if tricks[m][j] not in ok:
                    options.append((n, i, m, j))
    if not options:
        return
    n, i, m, j = pick.choice(options)
    bad = [list(t) for t in tricks]
    bad[n][i], bad[m][j] = bad[m][j], bad[n][i]
    seat = seats[n][i]
    # the expected proof: the first later card of that seat that makes the play illegal
    played = [c for t in tricks[:n] for c in t]
    proof = None
    for mm in range(n + 1, 8):
        jj = seats[mm].index(seat)
        hand = [bad[n][i], bad[mm][jj]]
        if bad[n][i] not in legal_plays(hand, bad[n][:i], contract, played, n + 1 in ekka):
            proof = (mm + 1, bad[mm][jj])
            break
    ref = Referee(contract)
    for k, trick in enumerate(bad):
        for x, card in enumerate(trick):
            ref.push(card, seats[k][x], x == 0 and k + 1 in ekka)
    duty_rules = {"follow-suit", "must-trump", "must-overtrump", "third-player", "locked-lead"}
    found = [
        v for v in ref.violations if v.trick == n + 1 and v.seat == seat and v.rule in duty_rules
    ]
    assert found and found[0].card == bad[n][i]
    assert found[0].proof == proof


def _seats(contract, tricks):
    """Seats of each card in the legal deal (explicit, so the swap cannot shift them)."""
    ref = audit_plays(contract, tricks)
    return [list(t.seats) for t in ref.tricks]
