"""The deal decoder: which card lay where the camera read none, and how likely it is.

When the deal waits for a card no read named (``hakam.vision.naming``), each card left is played
there on a copy of the deal and the deal played out to its end (a *way*; later cards not read
are placed the same way). ``decode`` weighs the ways:

- the reads in front of the seat while the card can have landed (``read_scores``: how much they
  took it for each card left) give each card a likelihood, ``(smoothing + score)`` normalised, so
  a seat with no read leaves every card equally likely;
- a way that breaks a rule the deal did not break before is unlikely: a misread elsewhere is
  likelier than a revoke, so each such violation multiplies the way by ``VIOLATION``, and a card
  out of turn (the sign of a card missing or in the wrong trick) by ``OUT_OF_TURN``; a way that
  takes a read for a misread (an exchange at the deal's end) by ``EXCHANGE``;
- a card's ways are averaged (the ways on from it differ in later cards, decided when they come).

The posterior of each card is the product, normalised; the result's (tricks, rulings, score)
sums the cards' posteriors by result. ``Decoding`` names the likeliest card with its probability
and its margin over the next (a ratio), and says how it is known: by the rules alone, by the
reads, by the result (every likely way scores the same), or by the fewest rules broken.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

VIOLATION = 1e-3  # a way's weight for each rule it breaks that the deal did not break before
OUT_OF_TURN = 1e-6  # ... for a card out of turn
EXCHANGE = 0.1  # ... for a read taken for a misread
SMOOTHING = 0.1  # read score added to every card left (no read: each card alike)
NAME_P = 0.6  # a card is named at this probability or more
RULES_P = 0.9  # ... "by the rules" when the rules alone give it this much (else by the reads)
FINAL_P = 0.99  # a deal with a card named below this stays provisional (a person confirms)


@dataclass(frozen=True)
class Way:
    """One way of playing the deal out: ``card`` named first, the rules it breaks that stood
    not before (``new``), whether one is out of turn, its result, whether it took a read for a
    misread."""

    card: int
    new: int
    out_of_turn: bool
    result: str
    exchanged: bool = False

    @property
    def weight(self) -> float:
        w = (OUT_OF_TURN if self.out_of_turn else 1.0) * VIOLATION ** (self.new - self.out_of_turn)
        return w * (EXCHANGE if self.exchanged else 1.0)


@dataclass(frozen=True)
class Decoding:
    """The likeliest card and how it is known (``by``: "rules", "reader", "same-result",
    "fewest", or None: not enough to name it, a person decides)."""

    card: int | None
    probability: float
    margin: float  # the likeliest card's probability over the next one's (inf: no other)
    by: str | None
    posterior: dict[int, float]
    result: str | None  # the likeliest result
    result_probability: float


def likelihood(cards: Collection[int], scores: Mapping[int, float]) -> dict[int, float]:
    """Each card's likelihood from the reads: (``SMOOTHING`` + its score), normalised."""
    raw = {c: SMOOTHING + float(scores.get(c, 0.0)) for c in cards}
    total = sum(raw.values())
    return {c: v / total for c, v in raw.items()}


def _posterior(ways: Sequence[Way], prior: Mapping[int, float]) -> dict[int, float]:
    by_card: dict[int, list[float]] = {}
    for w in ways:
        by_card.setdefault(w.card, []).append(w.weight)
    raw = {c: prior.get(c, 0.0) * sum(ws) / len(ws) for c, ws in by_card.items()}
    total = sum(raw.values())
    if total <= 0:
        return {c: 0.0 for c in raw}
    return {c: v / total for c, v in raw.items()}


def decode(
    ways: Sequence[Way],
    scores: Mapping[int, float],
    name_p: float | None = None,
    fewest: bool = True,
) -> Decoding:
    """The decoding of ``ways`` (each complete) with the reads' ``scores`` at the seat;
    ``fewest``: a card may be named where every way breaks a rule."""
    name_p = NAME_P if name_p is None else name_p
    cards = sorted({w.card for w in ways})
    if not cards:
        return Decoding(None, 0.0, 0.0, None, {}, None, 0.0)
    reads = likelihood(cards, scores)
    post = _posterior(ways, reads)
    ranked = sorted(post.items(), key=lambda kv: (-kv[1], kv[0]))
    best, p = ranked[0]
    second = ranked[1][1] if len(ranked) > 1 else 0.0
    margin = math.inf if second == 0 else p / second
    # the result: each card's posterior shared among its ways' results by their weights
    results: Counter[str] = Counter()
    for c in cards:
        mine = [w for w in ways if w.card == c]
        total = sum(w.weight for w in mine)
        for w in mine:
            results[w.result] += post[c] * (w.weight / total if total else 1 / len(mine))
    result, rp = results.most_common(1)[0]
    clean = min(w.new for w in ways if w.card == best) == 0
    by: str | None = None
    alone = _posterior(ways, dict.fromkeys(cards, 1.0))  # the rules without the reads
    if clean and alone[best] >= RULES_P:
        by = "rules"
    elif clean and p >= name_p and scores.get(best, 0) > 0 and reads[best] == max(reads.values()):
        by = "reader"
    elif clean and len({w.result for w in ways if w.new == 0}) == 1:
        by = "same-result"  # every way that keeps the rules gives one result: it is known
    elif (
        fewest and not clean and p >= name_p and _reads_favour(best, scores, cards)
        and not any(w.out_of_turn for w in ways if w.card == best)
    ):  # fmt: skip
        by = "fewest"  # every way breaks a rule: the one that breaks the fewest, as read
    return Decoding(best if by else None, p, margin, by, post, result, rp)


def _reads_favour(card: int, scores: Mapping[int, float], cards: Collection[int]) -> bool:
    """The reads took the card for ``card`` at least twice as much as for any other card left
    (a card named against the rules needs the reads' word too)."""
    mine = float(scores.get(card, 0.0))
    others = max((float(scores.get(c, 0.0)) for c in cards if c != card), default=0.0)
    return mine > 0 and mine >= 2 * others
