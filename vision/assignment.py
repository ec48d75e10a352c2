"""The cheapest one-to-one assignment of rows to columns (the Hungarian method, with potentials).

Used where each card of the deck can be named at most once: the proposals for the cards of a
spread (``hakam.vision.decks.find_cards``). Small tables (tens of rows): O(rows² × columns).
"""

from __future__ import annotations

import numpy as np


def min_cost_assignment(cost: np.ndarray) -> list[int]:
    """For a table of ``cost`` (rows ≤ columns, finite), the column of each row such that no
    column serves two rows and the sum of the costs is the least."""
    cost = np.asarray(cost, np.float64)
    n, m = cost.shape
    if n > m:
        raise ValueError(f"{n} rows for {m} columns: each row needs its own column")
    if not np.isfinite(cost).all():
        raise ValueError("costs that are not finite")
    # Rows and columns counted from 1; column 0 holds the row being placed.
    u, v = np.zeros(n + 1), np.zeros(m + 1)
    row_of = np.zeros(m + 1, np.int64)  # the row each column serves (0: none)
    for i in range(1, n + 1):
        row_of[0], j0 = i, 0
        least = np.full(m + 1, np.inf)
        came = np.zeros(m + 1, np.int64)
        used = np.zeros(m + 1, bool)
        while row_of[j0]:
            used[j0] = True
            i0 = row_of[j0]
            free = ~used[1:]
            reduced = cost[i0 - 1] - u[i0] - v[1:]
            better = free & (reduced < least[1:])
            least[1:][better] = reduced[better]
            came[1:][better] = j0
            j1 = int(np.argmin(np.where(free, least[1:], np.inf))) + 1
            delta = least[j1]
            u[row_of[used]] += delta
            v[used] -= delta
            least[1:][free] -= delta
            j0 = j1
        while j0:  # the augmenting path back to column 0
            j1 = came[j0]
            row_of[j0] = row_of[j1]
            j0 = j1
    column = [0] * n
    for j in range(1, m + 1):
        if row_of[j]:
            column[row_of[j] - 1] = j - 1
    return column
