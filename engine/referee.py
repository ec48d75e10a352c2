"""The referee: rules on a deal from the plays alone, as the camera sees them.

Cards never return to a hand and nothing is drawn during play, so a player's hand at trick t is
exactly the cards he plays from trick t on. Each play leaves a *forbidden* mask: the cards that,
if he turns out to have held any of them, prove the play broke a duty. Every later card of the
same player is tested against it, and the violation is reported the moment the proof is seen.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from hakam.engine.cards import DECK, Card
from hakam.engine.contract import Contract
from hakam.engine.play import (
    Trick,
    duties,
    ekka_is_valid,
    first_leader,
    follow_mask,
    trick_winner_index,
)
from hakam.engine.projects import Project, ProjectError, make_project
from hakam.engine.rules import (
    BIT,
    DUPLICATE_CARD,
    FALSE_BALOOT,
    FALSE_EKKA,
    FALSE_PROJECT,
    FOLLOW_SUIT,
    HIGHER,
    LAST_TRICK_BONUS,
    LOCKED_LEAD,
    MUST_OVERTRUMP,
    MUST_TRUMP,
    OUT_OF_TURN,
    POINTS,
    SAUDI,
    THIRD_PLAYER,
    RuleProfile,
    cards_of,
)
from hakam.engine.scoring import Outcome, score_deal, score_penalty

SUIT_NAMES = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}


class RefereeError(ValueError):
    """A play the referee cannot place at all (a ninth trick, a seat out of range)."""


@dataclass(frozen=True, slots=True)
class Violation:
    """A proven rule violation: who, where, which rule, and the card that proves it.
    ``proves``: for a duty (follow suit, trump, overtrump), every card whose later play by the
    seat proves it, the ``proof`` the first played; a camera referee that did not read the
    proof may still hold the violation proven by another of them."""

    trick: int
    seat: int
    card: Card | None
    rule: str
    proof: tuple[int, Card] | None
    text: str
    proves: frozenset[Card] = field(default=frozenset(), compare=False, repr=False)

    @property
    def team(self) -> int:
        return self.seat % 2

    def to_json(self) -> dict[str, Any]:
        return {
            "trick": self.trick,
            "seat": self.seat,
            "card": None if self.card is None else str(self.card),
            "rule": self.rule,
            "proof": None
            if self.proof is None
            else {"trick": self.proof[0], "card": str(self.proof[1])},
            "text": self.text,
        }


@dataclass(frozen=True, slots=True)
class ProjectClaim:
    """A project (or Baloot, ``kind == "baloot"``) announced by ``seat`` with these cards."""

    seat: int
    kind: str
    cards: tuple[Card, ...]


def _duty_text(rule: str, seat: int, trick: int, card: int, proof: int, pt: int) -> str:
    c, d = DECK[card], DECK[proof]
    held = f"he held {d}, which he played in trick {pt}"
    if rule == FOLLOW_SUIT:
        return (
            f"Seat {seat} played {c} in trick {trick} without following {SUIT_NAMES[d.suit]}, "
            f"but {held}."
        )
    if rule == MUST_TRUMP:
        return f"Seat {seat} had to trump in trick {trick} but played {c}, and {held}."
    if rule == MUST_OVERTRUMP:
        return (
            f"Seat {seat} had to beat the winning trump in trick {trick} but played {c}, "
            f"and {held}."
        )
    if rule == THIRD_PLAYER:
        return (
            f"Seat {seat}, third to play in trick {trick} with no Ace or Ekka led, had to trump "
            f"but played {c}, and {held}."
        )
    if rule == LOCKED_LEAD:
        return (
            f"Seat {seat} led the trump {c} in trick {trick} in a locked game, but {held} "
            f"(not a trump)."
        )
    return f"Seat {seat} broke {rule} with {c} in trick {trick}; {held}."


class Referee:
    """Incremental referee for one deal: ``push`` each card as it is seen, get new violations.

    ``projects`` are the announced projects and Baloot claims (``ProjectClaim``); ``baloot``
    lists Baloot seats when declared (None: inferred from the plays).
    """

    def __init__(
        self,
        contract: Contract,
        profile: RuleProfile = SAUDI,
        projects: Iterable[ProjectClaim] = (),
        baloot: Sequence[int] | None = None,
    ) -> None:
        self.contract = contract
        self.profile = profile
        self.trump = contract.trump_index
        self.locked = contract.locked
        self.tricks: list[Trick] = []
        self.violations: list[Violation] = []
        self.card_points = [0, 0]
        self.tricks_won = [0, 0]
        self._leader = first_leader(contract, profile)
        self._cards: list[int] = []
        self._seats: list[int] = []
        self._ekka = False
        self._ekka_said = False
        self._played = 0  # cards of completed tricks
        self._seen: dict[int, tuple[int, int]] = {}
        self._seen_mask = 0
        self._by_seat = [0, 0, 0, 0]  # cards each seat has played (duplicates excluded)
        self._pending: list[list[tuple[int, int, list[tuple[int, str]], int]]] = [[], [], [], []]
        self._claims: list[tuple[ProjectClaim, int, Project | None]] = []
        self._false_claims: set[int] = set()
        self._claim_mask = 0
        self.baloot_declared = None if baloot is None else tuple(baloot)
        for seat in self.baloot_declared or ():
            if not contract.is_sun:
                kq = (Card("K", contract.trump), Card("Q", contract.trump))
                self.add_claim(ProjectClaim(seat, "baloot", kq))
        for claim in projects:
            self.add_claim(claim)

    # --- state -------------------------------------------------------------------------

    @property
    def trick_number(self) -> int:
        """1-based number of the trick being played (9 when the deal is over)."""
        return len(self.tricks) + 1

    @property
    def is_over(self) -> bool:
        return len(self.tricks) == 8

    @property
    def turn(self) -> int:
        """The seat expected to play next."""
        return self._leader if not self._cards else (self._seats[-1] + 1) % 4

    @property
    def current_trick(self) -> list[tuple[int, Card]]:
        return [(s, DECK[c]) for s, c in zip(self._seats, self._cards, strict=True)]

    def known_hand(self, seat: int, trick: int) -> list[Card]:
        """What the plays prove ``seat`` held at the start of ``trick``: the cards played since."""
        out = [
            DECK[c]
            for c, (t, s) in self._seen.items()
            if s == seat and t >= trick and self._by_seat[seat] & BIT[c]
        ]
        return sorted(out, key=lambda c: c.index)

    # --- claims ------------------------------------------------------------------------

    def add_claim(self, claim: ProjectClaim) -> list[Violation]:
        """Register an announced project or Baloot; a claim without the shape is false at once."""
        idx = len(self._claims)
        new: list[Violation] = []
        project = None
        if claim.kind != "baloot":
            try:
                project = make_project(claim.seat, claim.cards, self.contract.is_sun)
                if project.kind != claim.kind:
                    raise ProjectError(f"those cards are a {project.kind}, not a {claim.kind}")
            except ProjectError as exc:
                self._false_claims.add(idx)
                first = claim.cards[0] if claim.cards else None
                new.append(
                    Violation(
                        1, claim.seat, first, FALSE_PROJECT, None,
                        f"Seat {claim.seat} announced a {claim.kind} that is not one: {exc}.",
                    )
                )  # fmt: skip
        mask = 0
        for c in claim.cards:
            mask |= BIT[c.index]
        self._claims.append((claim, mask, project))
        self._claim_mask |= mask
        if idx not in self._false_claims:
            for c in cards_of(mask & self._seen_mask):
                t, s = self._seen[c]
                if s != claim.seat and idx not in self._false_claims:
                    new.append(self._false_claim(idx, c, t, s))
        self.violations.extend(new)
        return new

    def _false_claim(self, idx: int, card: int, trick: int, seat: int) -> Violation:
        claim = self._claims[idx][0]
        self._false_claims.add(idx)
        rule = FALSE_BALOOT if claim.kind == "baloot" else FALSE_PROJECT
        what = "Baloot" if claim.kind == "baloot" else f"a {claim.kind}"
        return Violation(
            1, claim.seat, DECK[card], rule, (trick, DECK[card]),
            f"Seat {claim.seat} announced {what} with {DECK[card]}, "
            f"but seat {seat} played {DECK[card]} in trick {trick}.",
        )  # fmt: skip

    # --- plays -------------------------------------------------------------------------

    def push(self, card: Card, seat: int | None = None, ekka: bool = False) -> list[Violation]:
        """Record the next card seen (``seat`` None: the seat on turn); returns new violations."""
        return self.push_index(card.index, seat, ekka)

    def push_index(self, c: int, seat: int | None = None, ekka: bool = False) -> list[Violation]:
        """``push`` with a ``DECK`` index (the hot path of the camera pipeline)."""
        if len(self.tricks) == 8:
            raise RefereeError("tricks: a deal has 8 tricks")
        n = len(self.tricks) + 1
        pos = len(self._cards)
        expected = self._leader if pos == 0 else (self._seats[-1] + 1) % 4
        new: list[Violation] = []
        if seat is None:
            seat = expected
        elif type(seat) is not int or not 0 <= seat <= 3:
            raise RefereeError(f"seat: must be 0..3, got {seat!r}")
        elif seat != expected:
            new.append(
                Violation(
                    n, seat, DECK[c], OUT_OF_TURN, None,
                    f"Seat {seat} played {DECK[c]} in trick {n} out of turn; "
                    f"seat {expected} was to play.",
                )
            )  # fmt: skip
        bit = BIT[c]
        trump = self.trump
        if pos == 0:
            valid = False
            if ekka:
                valid = ekka_is_valid(c, self._played, trump)
                if not valid:
                    new.append(self._false_ekka(n, seat, c))
            self._ekka, self._ekka_said = valid, ekka
        if self._seen_mask & bit:
            t0, s0 = self._seen[c]
            new.append(
                Violation(
                    n, seat, DECK[c], DUPLICATE_CARD, (t0, DECK[c]),
                    f"{DECK[c]} was seen twice: played by seat {seat} in trick {n} and by seat "
                    f"{s0} in trick {t0}.",
                )
            )  # fmt: skip
        else:
            pending = self._pending[seat]
            if pending:
                keep = []
                for rec in pending:
                    if rec[3] & bit:
                        new.append(self._duty_violation(rec, seat, c, n))
                    else:
                        keep.append(rec)
                self._pending[seat] = keep
            if self._claim_mask & bit:
                for idx, (claim, mask, _) in enumerate(self._claims):
                    if mask & bit and claim.seat != seat and idx not in self._false_claims:
                        new.append(self._false_claim(idx, c, n, seat))
            duty = duties(self._cards, trump, self.locked, self._ekka, self.profile)
            if duty:
                forbidden = 0
                for mask, _ in duty:
                    if mask & bit:
                        break
                    forbidden |= mask
                forbidden &= ~self._seen_mask
                if forbidden:
                    self._pending[seat].append((n, c, duty, forbidden))
            self._seen_mask |= bit
            self._seen[c] = (n, seat)
            self._by_seat[seat] |= bit
        self._cards.append(c)
        self._seats.append(seat)
        if pos == 3:
            self._complete_trick(n)
            if n == 8:
                new.extend(self._final_claims())
        self.violations.extend(new)
        return new

    def _false_ekka(self, n: int, seat: int, c: int) -> Violation:
        higher = [DECK[h] for h in cards_of(HIGHER[self.trump + 1][c] & ~self._played)]
        why = (
            "a trump is never an Ekka"
            if c >> 3 == self.trump
            else f"{', '.join(map(str, higher))} had not been played"
        )
        return Violation(
            n, seat, DECK[c], FALSE_EKKA, None,
            f"Seat {seat} announced Ekka on {DECK[c]} in trick {n}, but {why}.",
        )  # fmt: skip

    def _duty_violation(
        self, rec: tuple[int, int, list[tuple[int, str]], int], seat: int, proof: int, pt: int
    ) -> Violation:
        trick, card, duty, forbidden = rec
        fm = follow_mask(duty)

        def rule_of(c: int) -> str:
            if BIT[c] & fm and not BIT[card] & fm:
                return FOLLOW_SUIT
            return next(r for m, r in duty if m & BIT[c])

        rule = rule_of(proof)
        return Violation(
            trick,
            seat,
            DECK[card],
            rule,
            (pt, DECK[proof]),
            _duty_text(rule, seat, trick, card, proof, pt),
            frozenset(DECK[c] for c in cards_of(forbidden) if rule_of(c) == rule),
        )

    def _complete_trick(self, n: int) -> None:
        w = trick_winner_index(self._cards, self.trump)
        winner = self._seats[w]
        row = POINTS[self.trump + 1]
        pts = sum(row[c] for c in self._cards) + (LAST_TRICK_BONUS if n == 8 else 0)
        self.tricks.append(
            Trick(
                n,
                self._seats[0],
                tuple(DECK[c] for c in self._cards),
                tuple(self._seats),
                self._ekka_said,
                winner,
                pts,
            )
        )
        self.card_points[winner % 2] += pts
        self.tricks_won[winner % 2] += 1
        for c in self._cards:
            self._played |= BIT[c]
        self._cards = []
        self._seats = []
        self._leader = winner
        self._ekka = self._ekka_said = False

    def _final_claims(self) -> list[Violation]:
        """End of the deal: a claimed card its owner never played was not in his hand."""
        new = []
        for idx, (claim, mask, _) in enumerate(self._claims):
            if idx in self._false_claims:
                continue
            missing = mask & ~self._by_seat[claim.seat]
            if missing:
                c = cards_of(missing)[0]
                self._false_claims.add(idx)
                rule = FALSE_BALOOT if claim.kind == "baloot" else FALSE_PROJECT
                new.append(
                    Violation(
                        1, claim.seat, DECK[c], rule, None,
                        f"Seat {claim.seat} announced a {claim.kind} with {DECK[c]}, "
                        f"but never played it.",
                    )
                )  # fmt: skip
        return new

    # --- results -----------------------------------------------------------------------

    def valid_projects(self) -> list[Project]:
        """Announced projects not (yet) proven false."""
        return [
            p
            for i, (claim, _, p) in enumerate(self._claims)
            if p is not None and claim.kind != "baloot" and i not in self._false_claims
        ]

    def baloot_seats(self) -> list[int]:
        """Declared Baloot not proven false, else the seat that played both K and Q of trump."""
        if self.contract.is_sun:
            return []
        if self.baloot_declared is not None:
            return [
                c.seat
                for i, (c, _, _) in enumerate(self._claims)
                if c.kind == "baloot" and i not in self._false_claims
            ]
        kq = BIT[self.trump * 8 + 5] | BIT[self.trump * 8 + 6]
        return [s for s in range(4) if self._by_seat[s] & kq == kq]

    def outcome(self, match: Sequence[int] = (0, 0)) -> Outcome | None:
        """The score of the deal once all 8 tricks are played (None before)."""
        if not self.is_over:
            return None
        return score_deal(
            self.contract,
            self.card_points,
            self.tricks_won,
            self.valid_projects(),
            self.baloot_seats(),
            match,
            self.profile,
        )

    def penalty(
        self, violation: Violation, match: Sequence[int] = (0, 0)
    ) -> tuple[tuple[int, int], bool, int | None]:
        """The default penalty for ``violation``: (result, match_over, match_winner)."""
        return score_penalty(
            self.contract,
            violation.team,
            self.valid_projects(),
            self.baloot_seats(),
            match,
            self.profile,
        )

    def ruling(self, match: Sequence[int] = (0, 0)) -> dict[str, Any]:
        """The JSON ruling of ``hakam referee`` (see ``docs/formats.md``)."""
        tricks = [
            {
                "trick": t.number,
                "leader": t.leader,
                "cards": [str(c) for c in t.cards],
                "seats": list(t.seats),
                "ekka": t.ekka,
                "winner": t.winner,
                "points": t.points,
            }
            for t in self.tricks
        ]
        if self._cards:
            tricks.append(
                {
                    "trick": len(self.tricks) + 1,
                    "leader": self._seats[0],
                    "cards": [str(DECK[c]) for c in self._cards],
                    "seats": list(self._seats),
                    "ekka": self._ekka_said,
                    "winner": None,
                    "points": None,
                }
            )
        out: dict[str, Any] = {
            "contract": self.contract.to_json(),
            "complete": self.is_over,
            "tricks": tricks,
            "card_points": list(self.card_points),
            "tricks_won": list(self.tricks_won),
        }
        outcome = self.outcome(match)
        keys = (
            "game_points", "projects", "project_points", "baloot", "baloot_points", "winner_team",
            "declarer_won", "kaboot", "counting_team", "result", "match", "match_over",
            "match_winner",
        )  # fmt: skip
        if outcome is None:
            out.update(dict.fromkeys(keys))
            out["projects"] = [p.to_json(self.contract.is_sun) for p in self.valid_projects()]
            out["baloot"] = self.baloot_seats()
        else:
            out.update(outcome.to_json())
        violations = []
        for v in self.violations:
            result, over, winner = self.penalty(v, match)
            item = v.to_json()
            item["penalty"] = {
                "team": 1 - v.team,
                "result": list(result),
                "match_over": over,
                "match_winner": winner,
            }
            violations.append(item)
        out["violations"] = violations
        return out


def audit_plays(
    contract: Contract,
    tricks: Sequence[Sequence[Card]],
    ekka: Iterable[int] = (),
    profile: RuleProfile = SAUDI,
) -> Referee:
    """Referee a whole (or partial) deal given as tricks of cards in play order."""
    ref = Referee(contract, profile)
    ekka_tricks = set(ekka)
    for n, trick in enumerate(tricks, 1):
        for i, card in enumerate(trick):
            ref.push_index(card.index, None, i == 0 and n in ekka_tricks)
    return ref
