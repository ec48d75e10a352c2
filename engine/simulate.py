"""Random and simple-bot deals: for property tests, benchmarks and the bundled demo record."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from hakam.engine.bidding import Bidding
from hakam.engine.cards import Card
from hakam.engine.contract import Contract
from hakam.engine.dealing import deal_first_round, deal_second_round, shuffled_deck
from hakam.engine.play import DealState
from hakam.engine.projects import best_split, holds_baloot
from hakam.engine.rules import SAUDI, RuleProfile

Chooser = Callable[[DealState, list[Card], random.Random], Card]


def random_choice(state: DealState, legal: list[Card], rng: random.Random) -> Card:
    return rng.choice(legal)


def random_contract(rng: random.Random, dealer: int | None = None) -> Contract:
    """A random undoubled contract (Hokum in a random suit or Sun)."""
    dealer = rng.randrange(4) if dealer is None else dealer
    declarer = rng.randrange(4)
    if rng.random() < 0.35:
        return Contract("sun", declarer, dealer)
    return Contract("hokum", declarer, dealer, trump=rng.choice("CDHS"))


def random_hands(rng: random.Random) -> list[list[Card]]:
    deck = shuffled_deck(rng)
    return [deck[i * 8 : i * 8 + 8] for i in range(4)]


def play_out(
    hands: Sequence[Sequence[Card]],
    contract: Contract,
    rng: random.Random,
    profile: RuleProfile = SAUDI,
    chooser: Chooser = random_choice,
    ekka_rate: float = 0.5,
) -> tuple[DealState, list[int]]:
    """Play a deal to the end with legal cards; returns the state and the Ekka tricks."""
    state = DealState(hands, contract, profile)
    ekka_tricks = []
    while not state.is_over:
        legal = state.legal_moves()
        card = chooser(state, legal, rng)
        ekka = bool(not state.trick and state.can_ekka(card) and rng.random() < ekka_rate)
        if ekka:
            ekka_tricks.append(len(state.tricks) + 1)
        state.push(card, ekka)
    return state, ekka_tricks


def random_deal(
    rng: random.Random, profile: RuleProfile = SAUDI
) -> tuple[Contract, list[list[Card]], list[list[Card]], list[int]]:
    """A random legal deal: (contract, original hands, tricks in play order, Ekka tricks)."""
    contract = random_contract(rng)
    hands = random_hands(rng)
    state, ekka = play_out(hands, contract, rng, profile)
    return contract, hands, [list(t.cards) for t in state.tricks], ekka


# --- a simple bot, good enough for a believable demo ---------------------------------------


def greedy_choice(state: DealState, legal: list[Card], rng: random.Random) -> Card:
    """Win the trick cheaply when possible, else throw the least valuable card."""
    from hakam.engine.play import trick_points, trick_winner_index
    from hakam.engine.rules import POINTS

    t = state.trump
    row = POINTS[t + 1]
    if not state.trick:
        return max(legal, key=lambda c: (row[c.index], rng.random()))
    best_win = None
    for c in legal:
        cards = [*state.trick, c.index]
        if trick_winner_index(cards, t) == len(cards) - 1:
            key = (trick_points([c.index], t), c.index)
            if best_win is None or key < best_win[0]:
                best_win = (key, c)
    partner_winning = (len(state.trick) - trick_winner_index(state.trick, t)) % 2 == 0
    if partner_winning:
        return max(legal, key=lambda c: (row[c.index], -c.index))
    if best_win is not None:
        return best_win[1]
    return min(legal, key=lambda c: (row[c.index], c.index))


def bot_call(hand: Sequence[Card], open_card: Card, legal: list[str]) -> str:
    """A plain bidding heuristic: Sun with three Aces, Hokum with J or 9 and length."""
    aces = sum(c.rank == "A" for c in hand)
    tens = sum(c.rank == "10" for c in hand)
    if ("sun" in legal and aces >= 3) or (aces >= 2 and tens >= 2 and "sun" in legal):
        return "sun"
    for call in legal:
        if not call.startswith("hokum"):
            continue
        suit = open_card.suit if call == "hokum" else call[6:]
        mine = (
            [c for c in [*hand, open_card] if c.suit == suit]
            if call == "hokum"
            else [c for c in hand if c.suit == suit]
        )
        strong = {c.rank for c in mine} & {"J", "9"}
        if strong and len(mine) >= 3:
            return call
    return "pass"


def bot_deal(rng: random.Random, dealer: int, profile: RuleProfile = SAUDI) -> dict[str, Any]:
    """A whole deal played by bots, as a ``hakam-deal/1`` record (without ``match``)."""
    deck = shuffled_deck(rng)
    five, open_card = deal_first_round(deck, dealer)
    auction = Bidding(dealer, open_card.suit)
    while not auction.done:
        seat = auction.turn
        assert seat is not None
        auction.push(seat, bot_call(five[seat], open_card, auction.legal_calls()))
    record: dict[str, Any] = {
        "format": "hakam-deal/1",
        "dealer": dealer,
        "open_card": str(open_card),
        "bids": [[s, c] for s, c in auction.calls],
    }
    contract = auction.contract
    if contract is None:
        record["tricks"] = []
        return record
    hands = deal_second_round(deck, five, dealer, contract.declarer)
    state, ekka = play_out(hands, contract, rng, profile, greedy_choice, ekka_rate=0.8)
    record["contract"] = contract.to_json()
    record["tricks"] = [[str(c) for c in t.cards] for t in state.tricks]
    record["ekka"] = ekka
    projects = []
    for seat in range(4):
        for p in best_split(seat, hands[seat], contract.is_sun):
            projects.append({"seat": seat, "kind": p.kind, "cards": [str(c) for c in p.cards]})
    record["projects"] = projects
    if not contract.is_sun:
        record["baloot"] = [s for s in range(4) if holds_baloot(hands[s], contract.trump)]
    return record
