"""Bidding: two rounds of Hokum / Sun / Ashkal / pass, Sun overcalls, the void deal.

Calls are text: ``pass``, ``hokum`` (round 1: the open card's suit), ``hokum:S`` (round 2: a
suit other than the open card's), ``sun`` and ``ashkal``.
"""

from __future__ import annotations

from hakam.engine.cards import SUIT_SYMBOLS, SUITS
from hakam.engine.contract import Contract


class BiddingError(ValueError):
    """A call that the bidding rules do not allow now."""


class Bidding:
    """The auction of one deal; ``push`` calls in order, then read ``contract``.

    Round 1 goes once round from the dealer's right; then every earlier seat than the best bid
    may still say Sun (earliest first). Round 2 (all passed) is one round in which a Sun ends
    the bidding. ``contract`` is None after two passing rounds (a void deal).
    """

    def __init__(self, dealer: int, open_suit: str) -> None:
        if open_suit not in SUITS:
            raise BiddingError(f"open_card: unknown suit {open_suit!r}")
        self.dealer = dealer
        self.open_suit = open_suit
        self.round = 1
        self.second_chance = False
        self.calls: list[tuple[int, str]] = []
        self._queue = [self.seat_at(p) for p in range(4)]
        self._best: tuple[str, int, str | None] | None = None  # (kind, seat, trump|"ashkal")
        self.done = False
        self.void = False

    def seat_at(self, position: int) -> int:
        """The seat that speaks ``position``-th (0 = the dealer's right)."""
        return (self.dealer + 1 + position) % 4

    def position(self, seat: int) -> int:
        return (seat - self.dealer - 1) % 4

    @property
    def turn(self) -> int | None:
        return None if self.done else self._queue[0]

    def legal_calls(self) -> list[str]:
        """The calls the seat on turn may make."""
        if self.done:
            return []
        seat = self._queue[0]
        best = self._best
        if self.second_chance:
            return ["pass", "sun"]
        if self.round == 1:
            if best is None:
                calls = ["pass", "hokum", "sun"]
                if self.position(seat) >= 2:
                    calls.append("ashkal")  # only the third speaker or the dealer
                return calls
            return ["pass", "sun"] if best[0] == "hokum" else ["pass"]
        if best is None:
            return ["pass", *(f"hokum:{s}" for s in SUITS if s != self.open_suit), "sun"]
        return ["pass", "sun"]

    def _normal(self, call: str) -> str:
        if not isinstance(call, str):
            raise BiddingError(f"call must be text, got {type(call).__name__}")
        call = call.strip().lower()
        if call.startswith("hokum:"):
            suit = call[6:].strip()
            suit = SUIT_SYMBOLS.get(suit, suit.upper())
            if self.round == 1 and suit == self.open_suit and not self.second_chance:
                return "hokum"
            return f"hokum:{suit}"
        return call

    def push(self, seat: int, call: str) -> None:
        """Make ``call`` for ``seat``; raises ``BiddingError`` when it is not allowed."""
        if self.done:
            raise BiddingError("the bidding is over")
        if seat != self._queue[0]:
            raise BiddingError(f"seat {seat} spoke out of turn; seat {self._queue[0]} speaks")
        call = self._normal(call)
        if call not in self.legal_calls():
            if self.round == 2 and call == "hokum":
                raise BiddingError("round 2 Hokum must name a suit other than the open card's")
            raise BiddingError(f"{call!r} is not allowed for seat {seat} now")
        self.calls.append((seat, call))
        self._queue.pop(0)
        if call != "pass":
            if call == "hokum":
                self._best = ("hokum", seat, self.open_suit)
            elif call.startswith("hokum:"):
                self._best = ("hokum", seat, call[6:])
            else:
                self._best = ("sun", seat, "ashkal" if call == "ashkal" else None)
            if self.second_chance or (self.round == 2 and call == "sun"):
                self._finish()
                return
        if not self._queue:
            self._end_of_pass()

    def _end_of_pass(self) -> None:
        if self._best is None:
            if self.round == 1:
                self.round = 2
                self._queue = [self.seat_at(p) for p in range(4)]
                return
            self.done = self.void = True  # all passed twice: void deal, dealer moves on
            return
        if self.round == 1 and not self.second_chance:
            earlier = self.position(self._best[1])
            self.second_chance = True
            self._queue = [self.seat_at(p) for p in range(earlier)]
            if self._queue:
                return
        self._finish()

    def _finish(self) -> None:
        self.done = True
        self._queue = []

    def pass_rest(self) -> None:
        """Silence in the second chance counts as pass (records may omit those passes)."""
        while not self.done and self.second_chance:
            self.push(self._queue[0], "pass")

    @property
    def contract(self) -> Contract | None:
        """The contract bought (level none); None while bidding or after a void deal."""
        if not self.done or self._best is None:
            return None
        kind, seat, extra = self._best
        if kind == "hokum":
            return Contract("hokum", seat, self.dealer, trump=extra)
        if extra == "ashkal":
            return Contract("sun", (seat + 2) % 4, self.dealer, ashkal=True)
        return Contract("sun", seat, self.dealer)


def calls_for(contract: Contract, open_suit: str) -> list[tuple[int, str]]:
    """A bidding that buys ``contract`` (undoubled, not Ashkal) with this open card's suit: every
    other seat passes, its declarer calls it (Hokum in the open suit or Sun in round 1, Hokum in
    another suit in round 2). Raises ``BiddingError`` for a contract no bidding buys."""
    if contract.ashkal:
        raise BiddingError("calls_for: an Ashkal contract is bought by its declarer's partner")
    if contract.kind == "sun" or contract.trump == open_suit:
        want = contract.kind
    else:
        want = f"hokum:{contract.trump}"
    bidding = Bidding(contract.dealer, open_suit)
    while not bidding.done:
        seat = bidding.turn
        assert seat is not None
        call = want if seat == contract.declarer and want in bidding.legal_calls() else "pass"
        if call != "pass":
            want = ""  # said once
        bidding.push(seat, call)
    got = bidding.contract
    if got is None or (got.kind, got.declarer, got.trump) != (
        contract.kind, contract.declarer, contract.trump,
    ):  # fmt: skip
        raise BiddingError(f"calls_for: no bidding buys {contract.kind} by {contract.declarer}")
    return list(bidding.calls)
