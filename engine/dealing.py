"""Dealing: 3 then 2 cards each from the dealer's right, card 21 face up, the rest after bidding."""

from __future__ import annotations

import random
from collections.abc import Sequence

from hakam.engine.cards import DECK, Card


def first_dealer(rng: random.Random) -> int:
    """The first dealer of a match is drawn at random."""
    return rng.randrange(4)


def next_dealer(dealer: int) -> int:
    """The deal passes to the right: the next dealer is the next seat in playing order."""
    return (dealer + 1) % 4


def shuffled_deck(rng: random.Random) -> list[Card]:
    deck = list(DECK)
    rng.shuffle(deck)
    return deck


def deal_first_round(deck: Sequence[Card], dealer: int) -> tuple[list[list[Card]], Card]:
    """Five cards each (3 then 2, starting at the dealer's right); card 21 is turned face up."""
    if len(deck) != 32 or len(set(deck)) != 32:
        raise ValueError("deck: needs the 32 different cards")
    hands: list[list[Card]] = [[], [], [], []]
    pos = 0
    for count in (3, 2):
        for k in range(1, 5):
            seat = (dealer + k) % 4
            hands[seat].extend(deck[pos : pos + count])
            pos += count
    return hands, deck[20]


def deal_second_round(
    deck: Sequence[Card], hands: Sequence[Sequence[Card]], dealer: int, taker: int
) -> list[list[Card]]:
    """After the bidding the taker gets the open card plus 2, the others 3 each.

    In Ashkal the taker is the buyer's partner (the declarer).
    """
    full = [list(h) for h in hands]
    full[taker].append(deck[20])
    pos = 21
    for k in range(1, 5):
        seat = (dealer + k) % 4
        count = 2 if seat == taker else 3
        full[seat].extend(deck[pos : pos + count])
        pos += count
    return full
