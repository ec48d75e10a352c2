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
- a card's ways are averaged (the ways on from it differ in later cards, decided when they
  come); a card whose copy came to no end weighs as a way that breaks a rule.

The posterior of each card is the product, normalised. ``decode`` names a card only when it can
say how it is known (``Decoding.by``), with its probability and its margin over the next card;
else a person decides.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

VIOLATION = 1e-3  # a way's weight for each rule it breaks that the deal did not break before
OUT_OF_TURN = 1e-6  # ... for a card out of turn
EXCHANGE = 0.1  # ... for a read taken for a misread
SMOOTHING = 0.1  # read score added to every card left (no read: each card alike)
NAME_P = 0.6  # a card is named at this probability or more
FINAL_P = 0.99  # a deal with a card named below this stays provisional (a person confirms)
# A card named on reads kept beside a lying card (``CardTracker.beside``) is at most this likely:
# the finder's second box on the lying card, misread, gives the same reads.
BESIDE_P = 0.9


@dataclass(frozen=True)
class Way:
    """One way of playing the deal out: ``card`` named first, the rules it breaks that stood
    not before (``new``), whether one of those is out of turn, whether any card of the way is
    out of turn at all (``any_out_of_turn``), its result, whether it took a read for a
    misread."""

    card: int
    new: int
    out_of_turn: bool
    result: str
    exchanged: bool = False
    any_out_of_turn: bool = False

    @property
    def weight(self) -> float:
        w = (OUT_OF_TURN if self.out_of_turn else 1.0) * VIOLATION ** (self.new - self.out_of_turn)
        return w * (EXCHANGE if self.exchanged else 1.0)


@dataclass(frozen=True)
class Decoding:
    """The card named and how it is known (``by``: "rules", "reader", "same-result",
    "fewest", or None: not enough to name one, a person decides). ``probability``: the named
    card's posterior (None for "fewest": every way breaks a rule, so the likelier story, a
    misread elsewhere, is not among the ways weighed); ``margin``: its posterior over the next
    card's; ``likeliest``: the card of highest posterior, named or not."""

    card: int | None
    probability: float | None
    margin: float
    by: str | None
    posterior: dict[int, float]
    likeliest: int | None = None


def likelihood(cards: Collection[int], scores: Mapping[int, float]) -> dict[int, float]:
    """Each card's likelihood from the reads: (``SMOOTHING`` + its score), normalised."""
    raw = {c: SMOOTHING + float(scores.get(c, 0.0)) for c in cards}
    total = sum(raw.values())
    return {c: v / total for c, v in raw.items()}


def _posterior(ways: Sequence[Way], prior: Mapping[int, float]) -> dict[int, float]:
    """Each card's prior times its ways' mean weight, normalised; a card left with no way
    played out (its copy could not come to an end) weighs as a way that breaks a rule."""
    by_card: dict[int, list[float]] = {c: [] for c in prior}
    for w in ways:
        by_card.setdefault(w.card, []).append(w.weight)
    raw = {c: prior.get(c, 0.0) * (sum(ws) / len(ws) if ws else VIOLATION)
           for c, ws in by_card.items()}  # fmt: skip
    total = sum(raw.values())
    if total <= 0:
        return {c: 0.0 for c in raw}
    return {c: v / total for c, v in raw.items()}


def decode(
    ways: Sequence[Way],
    scores: Mapping[int, float],
    left: Collection[int] = (),
    name_p: float | None = None,
    fewest: bool = True,
) -> Decoding:
    """The decoding of ``ways`` (each complete) with the reads' ``scores`` at the seat; ``left``:
    every card the deal still waits for (those whose copy came to no end included);
    ``fewest``: a card may be named where every way breaks a rule.

    - **rules**: the one card with a way that keeps every rule, at ``name_p`` or more;
    - **reader**: of several such cards, the one the reads took it for at least twice as much
      as the next, at ``name_p`` or more among them;
    - **same-result**: several such cards, every way that keeps the rules with one result;
    - **fewest**: no way keeps every rule, one card's ways break the fewest, none of them has a
      card out of turn, and the reads took it for that card at least twice as much as any other.
    """
    name_p = NAME_P if name_p is None else name_p
    cards = sorted({w.card for w in ways} | set(left))
    if not ways:
        return Decoding(None, None, 0.0, None, {})
    post = _posterior(ways, likelihood(cards, scores))
    ranked = sorted(post.items(), key=lambda kv: (-kv[1], kv[0]))
    clean = sorted({w.card for w in ways if w.new == 0})
    card: int | None = None
    by: str | None = None
    if len(clean) == 1:
        if post[clean[0]] >= name_p:
            card, by = clean[0], "rules"
    elif clean:
        among = _posterior([w for w in ways if w.new == 0], likelihood(clean, scores))
        best = max(clean, key=lambda c: (among[c], post[c], -c))
        if among[best] >= name_p and _reads_favour(best, scores, clean):
            card, by = best, "reader"
        elif len({w.result for w in ways if w.new == 0}) == 1:
            card, by = best, "same-result"  # every way that keeps the rules: one result
    elif fewest:
        least = min(w.new for w in ways)
        lowest = {w.card for w in ways if w.new == least}
        if len(lowest) == 1:
            (only,) = lowest
            if _reads_favour(only, scores, cards) and not any(
                w.any_out_of_turn for w in ways if w.card == only
            ):
                card, by = only, "fewest"
    named = ranked[0][0] if card is None else card
    others = [p for c, p in ranked if c != named]
    margin = math.inf if not others or others[0] == 0 else post[named] / others[0]
    probability = None if card is None or by == "fewest" else post[card]
    return Decoding(card, probability, margin, by, post, ranked[0][0])


def _reads_favour(card: int, scores: Mapping[int, float], cards: Collection[int]) -> bool:
    """The reads took the card for ``card`` at least twice as much as for any other of
    ``cards`` (a card named against the rules, or among several, needs the reads' word)."""
    mine = float(scores.get(card, 0.0))
    others = max((float(scores.get(c, 0.0)) for c in cards if c != card), default=0.0)
    return mine > 0 and mine >= 2 * others
