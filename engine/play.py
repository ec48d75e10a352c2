"""Play: the duties of each player in a trick, the trick winner, and the full deal state.

A duty is a cascade of card classes ``[(mask, rule), ...]``: the player must play from the first
class his hand meets, and if it meets none he may play anything. Every Baloot duty has this shape,
which is what lets the referee prove a broken duty from a card played later
(``hakam.engine.referee``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from hakam.engine.cards import DECK, Card
from hakam.engine.contract import Contract
from hakam.engine.rules import (
    ACE,
    ALL_CARDS,
    BIT,
    FOLLOW_SUIT,
    HIGHER,
    KEY,
    LAST_TRICK_BONUS,
    LOCKED_LEAD,
    MUST_OVERTRUMP,
    MUST_TRUMP,
    POINTS,
    SAUDI,
    SUIT_MASK,
    THIRD_PLAYER,
    RuleProfile,
    cards_of,
)

Duty = list[tuple[int, str]]


class IllegalPlayError(ValueError):
    """A card that the rules do not allow here (not in hand, wrong turn, or a broken duty)."""


# --- named rules -------------------------------------------------------------------------


def trick_winner_index(cards: Sequence[int], trump: int) -> int:
    """Position of the winning card: the highest trump, else the highest card of the suit led."""
    row = KEY[(trump + 1) * 4 + (cards[0] >> 3)]
    best, best_key = 0, row[cards[0]]
    for i in range(1, len(cards)):
        k = row[cards[i]]
        if k > best_key:
            best, best_key = i, k
    return best


def trick_points(cards: Sequence[int], trump: int, last: bool = False) -> int:
    """Card points of a trick; the last trick carries the +10."""
    row = POINTS[trump + 1]
    return sum(row[c] for c in cards) + (LAST_TRICK_BONUS if last else 0)


def ekka_is_valid(card: int, played: int, trump: int) -> bool:
    """Ekka: a plain-suit lead with every higher card of its suit played in earlier tricks."""
    if card >> 3 == trump:
        return False
    return HIGHER[trump + 1][card] & ~played == 0


def locked_lead_duty(trump: int, locked: bool) -> Duty:
    """Locked game: no trump lead unless the hand holds only trumps."""
    if locked and trump >= 0:
        return [(ALL_CARDS & ~SUIT_MASK[trump], LOCKED_LEAD)]
    return []


def follow_suit_duty(led: int) -> Duty:
    """Follow suit when able (Sun: a void player may play anything, no duty to beat)."""
    return [(SUIT_MASK[led], FOLLOW_SUIT)]


def trump_led_duty(trick: Sequence[int], trump: int, profile: RuleProfile = SAUDI) -> Duty:
    """Trump led: beat the highest trump if an opponent is winning and you can; else any trump."""
    w = trick_winner_index(trick, trump)
    partner_winning = (len(trick) - w) % 2 == 0
    follow = [(SUIT_MASK[trump], FOLLOW_SUIT)]
    if partner_winning or not profile.overtrump_mandatory:
        return follow
    return [(HIGHER[trump + 1][trick[w]], MUST_OVERTRUMP), *follow]


def void_trump_duty(
    trick: Sequence[int], trump: int, ekka: bool, profile: RuleProfile = SAUDI
) -> Duty:
    """Void in the plain suit led (Hokum): when to trump and when to over-trump.

    2nd player must trump; 3rd or 4th with an opponent winning must beat with a trump if able
    (else discard anything); 4th with the partner winning is free; the 3rd with the leader
    winning follows the third-player rule.
    """
    trumps = SUIT_MASK[trump]
    n = len(trick)
    if n == 1:
        return [(trumps, MUST_TRUMP)]
    w = trick_winner_index(trick, trump)
    if (n - w) % 2 == 0:  # partner winning
        return third_player_duty(trick, trump, ekka) if n == 2 else []
    winning = trick[w]
    if winning >> 3 != trump or not profile.overtrump_mandatory:
        return [(trumps, MUST_TRUMP)]
    duty = [(HIGHER[trump + 1][winning], MUST_OVERTRUMP)]
    if profile.undertrump_when_cannot_overtrump:
        duty.append((trumps, MUST_TRUMP))
    return duty


def third_player_duty(trick: Sequence[int], trump: int, ekka: bool) -> Duty:
    """Third-player rule: partner (leader) winning frees a void 3rd only after an Ace or Ekka."""
    if trick[0] & 7 == ACE or ekka:
        return []
    return [(SUIT_MASK[trump], THIRD_PLAYER)]


def duties(
    trick: Sequence[int], trump: int, locked: bool, ekka: bool, profile: RuleProfile = SAUDI
) -> Duty:
    """The whole cascade for the next card of ``trick`` (``ekka``: a valid Ekka was led)."""
    if not trick:
        return locked_lead_duty(trump, locked)
    led = trick[0] >> 3
    if trump < 0:
        return follow_suit_duty(led)
    if led == trump:
        return trump_led_duty(trick, trump, profile)
    return follow_suit_duty(led) + void_trump_duty(trick, trump, ekka, profile)


def legal_mask(hand: int, duty: Duty) -> int:
    """The cards of ``hand`` that may be played under ``duty``."""
    for mask, _ in duty:
        allowed = hand & mask
        if allowed:
            return allowed
    return hand


def follow_mask(duty: Duty) -> int:
    """The suit-led class of a duty (0 when leading)."""
    for mask, rule in duty:
        if rule == FOLLOW_SUIT:
            return mask
    return 0


def broken_rule(card: int, hand: int, duty: Duty) -> str | None:
    """The rule that forbids ``card`` from ``hand`` (follow-suit first), or None if legal."""
    for i, (mask, _rule) in enumerate(duty):
        if hand & mask:
            if BIT[card] & mask:
                return None
            led_mask = follow_mask(duty)
            if hand & led_mask and not BIT[card] & led_mask:
                return FOLLOW_SUIT
            return duty[i][1]
    return None


# --- API on Card objects -------------------------------------------------------------------


def _mask(cards: Iterable[Card]) -> int:
    m = 0
    for c in cards:
        m |= BIT[c.index]
    return m


def _card_duty(
    trick: Sequence[Card],
    contract: Contract,
    played: Iterable[Card],
    ekka: bool,
    profile: RuleProfile,
):
    """The duty of the next player, from Card objects (the Ekka counts only when valid)."""
    t = [c.index for c in trick]
    valid_ekka = bool(ekka and t and ekka_is_valid(t[0], _mask(played), contract.trump_index))
    return duties(t, contract.trump_index, contract.locked, valid_ekka, profile)


def legal_plays(
    hand: Iterable[Card],
    trick: Sequence[Card],
    contract: Contract,
    played: Iterable[Card] = (),
    ekka: bool = False,
    profile: RuleProfile = SAUDI,
) -> list[Card]:
    """The legal cards of ``hand`` for the next play of ``trick`` (canonical ``DECK`` order).

    ``ekka`` says the leader announced Ekka; it frees the third player only if it is valid
    given ``played`` (the cards of earlier tricks).
    """
    duty = _card_duty(trick, contract, played, ekka, profile)
    return [DECK[i] for i in cards_of(legal_mask(_mask(hand), duty))]


def illegal_reasons(
    hand: Iterable[Card],
    trick: Sequence[Card],
    contract: Contract,
    played: Iterable[Card] = (),
    ekka: bool = False,
    profile: RuleProfile = SAUDI,
) -> dict[Card, str]:
    """For each illegal card of ``hand``, the name of the rule it would break."""
    duty = _card_duty(trick, contract, played, ekka, profile)
    h = _mask(hand)
    out = {}
    for c in cards_of(h):
        rule = broken_rule(c, h, duty)
        if rule:
            out[DECK[c]] = rule
    return out


def trick_winner(trick: Sequence[Card], contract: Contract) -> int:
    """Position (0-based, in play order) of the card that wins ``trick``."""
    return trick_winner_index([c.index for c in trick], contract.trump_index)


def perft(state: DealState, depth: int) -> int:
    """Number of play sequences of ``depth`` cards from ``state`` (no Ekka announced)."""
    if depth == 0 or state.is_over:
        return 1
    moves = cards_of(state.legal_mask())
    if depth == 1:
        return len(moves)
    return sum(perft(_after(state, c), depth - 1) for c in moves)


def _after(state: DealState, card: int) -> DealState:
    nxt = state.copy()
    nxt.push(DECK[card])
    return nxt


def first_leader(contract: Contract, profile: RuleProfile = SAUDI) -> int:
    """The player to the dealer's right leads the first trick, whoever declared."""
    if profile.bidder_leads_first_trick:
        return contract.buyer
    return (contract.dealer + 1) % 4


@dataclass(frozen=True, slots=True)
class Trick:
    """One finished or running trick: who led, the cards in play order and their seats."""

    number: int
    leader: int
    cards: tuple[Card, ...]
    seats: tuple[int, ...]
    ekka: bool = False
    winner: int | None = None
    points: int | None = None


class DealState:
    """The full state of a deal (all hands known): ``push`` a card, ask ``legal_moves``.

    This is the dealer's view, used for simulation and tests; the referee (which knows only the
    plays) is ``hakam.engine.referee.Referee``.
    """

    def __init__(
        self,
        hands: Sequence[Iterable[Card]],
        contract: Contract,
        profile: RuleProfile = SAUDI,
    ) -> None:
        masks = [_mask(h) for h in hands]
        if len(masks) != 4 or any(m.bit_count() != 8 for m in masks):
            raise IllegalPlayError("hands: four hands of 8 cards are needed")
        if masks[0] | masks[1] | masks[2] | masks[3] != ALL_CARDS:
            raise IllegalPlayError("hands: a card is in two hands")
        self.contract = contract
        self.profile = profile
        self.hands = masks
        self.trump = contract.trump_index
        self.turn = first_leader(contract, profile)
        self.leader = self.turn
        self.trick: list[int] = []
        self.ekka = False
        self.played = 0
        self.tricks: list[Trick] = []
        self.card_points = [0, 0]
        self.tricks_won = [0, 0]

    @property
    def is_over(self) -> bool:
        return len(self.tricks) == 8

    def copy(self) -> DealState:
        """An independent copy (for search and perft)."""
        other = object.__new__(DealState)
        other.__dict__.update(self.__dict__)
        other.hands = list(self.hands)
        other.trick = list(self.trick)
        other.tricks = list(self.tricks)
        other.card_points = list(self.card_points)
        other.tricks_won = list(self.tricks_won)
        return other

    def _duty(self) -> Duty:
        return duties(self.trick, self.trump, self.contract.locked, self.ekka, self.profile)

    def legal_mask(self) -> int:
        return legal_mask(self.hands[self.turn], self._duty())

    def legal_moves(self) -> list[Card]:
        """The cards the player on turn may play, in ``DECK`` order."""
        return [DECK[i] for i in cards_of(self.legal_mask())]

    def is_legal(self, card: Card) -> bool:
        return bool(self.legal_mask() & BIT[card.index])

    def can_ekka(self, card: Card) -> bool:
        """Whether leading ``card`` now may be announced as Ekka."""
        return not self.trick and ekka_is_valid(card.index, self.played, self.trump)

    def push(self, card: Card, ekka: bool = False) -> Trick | None:
        """Play ``card`` for the player on turn; returns the trick when it completes."""
        if self.is_over:
            raise IllegalPlayError("the deal is over")
        c = card.index
        if not self.hands[self.turn] & BIT[c]:
            raise IllegalPlayError(f"{card} is not in the hand of seat {self.turn}")
        if not self.legal_mask() & BIT[c]:
            rule = broken_rule(c, self.hands[self.turn], self._duty())
            raise IllegalPlayError(f"{card} breaks {rule}")
        if ekka and not self.can_ekka(card):
            raise IllegalPlayError(f"{card} is not an Ekka")
        if not self.trick:
            self.ekka = ekka
        self.hands[self.turn] &= ~BIT[c]
        self.trick.append(c)
        self.turn = (self.turn + 1) % 4
        if len(self.trick) < 4:
            return None
        w = trick_winner_index(self.trick, self.trump)
        winner = (self.leader + w) % 4
        last = len(self.tricks) == 7
        pts = trick_points(self.trick, self.trump, last)
        done = Trick(
            number=len(self.tricks) + 1,
            leader=self.leader,
            cards=tuple(DECK[i] for i in self.trick),
            seats=tuple((self.leader + i) % 4 for i in range(4)),
            ekka=self.ekka,
            winner=winner,
            points=pts,
        )
        self.tricks.append(done)
        self.card_points[winner % 2] += pts
        self.tricks_won[winner % 2] += 1
        for i in self.trick:
            self.played |= BIT[i]
        self.trick = []
        self.ekka = False
        self.leader = self.turn = winner
        return done
