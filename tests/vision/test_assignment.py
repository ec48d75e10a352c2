"""The cheapest one-to-one assignment, and the proposals for a spread's finds made with it."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from hakam.engine.cards import CARD_NAMES
from hakam.vision.assignment import min_cost_assignment
from hakam.vision.decks import propose
from hakam.vision.reader import OTHER, READER_CLASSES


def _least(cost: np.ndarray) -> float:
    """The least total cost, by trying every way (small tables only)."""
    n, m = cost.shape
    return min(sum(cost[i, j] for i, j in enumerate(cols))
               for cols in itertools.permutations(range(m), n))  # fmt: skip


@pytest.mark.parametrize("seed", range(40))
def test_the_assignment_is_the_cheapest_of_all_ways(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 6))
    cost = rng.random((n, n + int(rng.integers(0, 3))))
    if seed % 4 == 0:
        cost = np.round(cost * 2)  # ties
    cols = min_cost_assignment(cost)
    assert len(set(cols)) == n
    assert sum(cost[i, j] for i, j in enumerate(cols)) == pytest.approx(_least(cost))


def test_more_rows_than_columns_or_costs_not_finite_are_refused():
    with pytest.raises(ValueError, match="3 rows for 2 columns"):
        min_cost_assignment(np.zeros((3, 2)))
    with pytest.raises(ValueError, match="not finite"):
        min_cost_assignment(np.array([[0.0, np.inf]]))


def _read(**cards: float) -> np.ndarray:
    p = np.full(READER_CLASSES, 1e-4)
    for name, share in cards.items():
        p[OTHER if name == "other" else CARD_NAMES.index(name)] = share
    return p / p.sum()


def test_proposals_name_each_card_once_and_leave_any_number_of_finds_on_no_card():
    reads = [
        _read(JD=0.6, AD=0.3),  # two finds both likeliest the jack of diamonds ...
        _read(JD=0.5, AD=0.45),  # ... this one is the ace: its second, nearly as likely
        _read(other=0.9, KS=0.05),  # a find on the cloth
        _read(other=0.8, QH=0.1),  # another
        _read(KS=0.7, other=0.2),
    ]
    names = [name for name, _ in propose(reads)]
    assert names == ["JD", "AD", None, None, "KS"]
    assert propose(reads)[1][1] == pytest.approx(reads[1][CARD_NAMES.index("AD")])  # its own
    assert propose([]) == []
