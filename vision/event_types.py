"""The events as types: what the window and other readers of the stream take.

The pipeline writes each event as one JSON object a line (``hakam.vision.events``; the shapes of
``hakam.engine.replay`` where they overlap). A reader turns each into its type with
``parse_event`` and reads attributes, never dict keys; ``to_json`` gives the JSON back, fields
of the stream that a type does not name kept in ``extra``. Every field a reader may miss (the
engine's replay sends fewer than the camera) has a default.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, ClassVar


@dataclass(frozen=True)
class Event:
    """An event of the stream; ``kind`` is its ``type``."""

    kind: ClassVar[str] = ""
    deal: int | None = None
    extra: dict[str, Any] = field(default_factory=dict, compare=False)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.kind, "event": self.kind}
        for f in fields(self):
            if f.name != "extra":
                value = getattr(self, f.name)
                out[f.name] = list(value) if isinstance(value, tuple) else value
        return {**out, **self.extra}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Event:
        names = {f.name for f in fields(cls)} - {"extra"}
        known = {k: v for k, v in data.items() if k in names}
        rest = {k: v for k, v in data.items() if k not in names and k not in ("type", "event")}
        return cls(**known, extra=rest)


@dataclass(frozen=True)
class DealStarted(Event):
    kind: ClassVar[str] = "deal"
    dealer: int = 0
    open_card: str | None = None
    bids: list[list[Any]] = field(default_factory=list)
    contract: dict[str, Any] | None = None
    table: dict[str, Any] | None = None  # the camera's calibration and play area, in pixels


@dataclass(frozen=True)
class DealVoid(Event):
    kind: ClassVar[str] = "void"


@dataclass(frozen=True)
class CardPlayed(Event):
    """A card played; ``provenance`` says how it is known (``hakam.vision.provenance``)."""

    kind: ClassVar[str] = "play"
    trick: int = 0
    seat: int = 0
    card: str = ""
    ekka: bool = False
    evidence: str | None = None
    provenance: str = "seen"
    belief: float | None = None
    named_by: str | None = None
    reason: str | None = None
    probability: float | None = None  # a named card's posterior, from the deal decoder
    turn: int | None = None  # the seat whose card the deal waits for next (None: not said)


@dataclass(frozen=True)
class TrickWon(Event):
    kind: ClassVar[str] = "trick"
    trick: int = 0
    winner: int = 0
    points: int = 0
    card_points: list[int] | None = None


@dataclass(frozen=True)
class ViolationRuled(Event):
    """A violation; ``status`` proven or suspected (then ``question`` is asked)."""

    kind: ClassVar[str] = "violation"
    trick: int = 0
    seat: int = 0
    card: str | None = None
    rule: str = ""
    proof: dict[str, Any] | None = None
    text: str = ""
    status: str = "proven"
    question: str | None = None

    @property
    def key(self) -> tuple[Any, ...]:
        """What names the same ruling across events: deal, trick, seat, rule, card."""
        return self.deal, self.trick, self.seat, self.rule, self.card


@dataclass(frozen=True)
class ViolationRestated(ViolationRuled):
    """A standing violation whose footing changed: now proven or suspected."""

    kind: ClassVar[str] = "violation_status"


@dataclass(frozen=True)
class ViolationWithdrawn(ViolationRuled):
    """A violation that no longer stands once the deal was refereed again."""

    kind: ClassVar[str] = "withdrawn"


# How an ``uncertain`` event that refuses a person's answer begins (it changed nothing).
REFUSED = ("correction:", "confirmation:")


@dataclass(frozen=True)
class Uncertain(Event):
    """What the pipeline cannot decide alone and tells a person (or why it refused)."""

    kind: ClassVar[str] = "uncertain"
    seat: int | None = None
    trick: int | None = None
    text: str = ""
    guesses: list[str] = field(default_factory=list)
    confirm_trick: int | None = None  # a complete deal's trick in doubt: confirm it as recorded
    answer: int | None = None  # a refusal: the id the window gave the answer it refuses


@dataclass(frozen=True)
class Correction(Event):
    """A play named or changed: ``by`` a person ("table", "caller", "confirmed") or the
    pipeline (``hakam.vision.provenance.NAMED_BY``, "conflict")."""

    kind: ClassVar[str] = "correction"
    trick: int | None = None
    seat: int | None = None
    card: str = ""
    by: str | None = None
    replaces: str | None = None
    probability: float | None = None  # a renaming's or an exchange's, where it was weighed
    from_seat: int | None = None  # a play moved from this seat to ``seat``
    answer: int | None = None  # the id the window gave the answer that made it


@dataclass(frozen=True)
class DealScored(Event):
    """The deal's score; ``status`` final or provisional (None: a replay, always final)."""

    kind: ClassVar[str] = "score"
    complete: bool | None = None
    result: list[int] | None = None
    card_points: list[int] | None = None
    kaboot: int | None = None
    projects: list[dict[str, Any]] = field(default_factory=list)
    baloot: list[int] = field(default_factory=list)
    penalty: dict[str, Any] | None = None
    status: str | None = None
    # The cards named at the deal's end, as the record gives them (trick, seat, card and their
    # provenance): the end weighs them again, so their probabilities may differ from the plays'.
    named: list[dict[str, Any]] = field(default_factory=list)
    # The tricks as the deal was refereed last (cards in play order, seats, winner, points): a
    # correction or the deal's end may have put a card in turn and changed who won a trick.
    tricks: list[dict[str, Any]] = field(default_factory=list)
    # A complete deal's tricks still asked of a person (None: not said): a trick asked before
    # and no longer in doubt is settled.
    asked: list[int] | None = None


@dataclass(frozen=True)
class OpenCardSeen(Event):
    """The open bidding card read on the stock; ``waiting``: before its deal was set up (table
    mode: the bidding panel opens with it)."""

    kind: ClassVar[str] = "open_card"
    card: str = ""
    waiting: bool = False
    read_as: str | None = None


@dataclass(frozen=True)
class MatchOver(Event):
    """The match is decided (152, or a won Gahwa): no deal after it counts."""

    kind: ClassVar[str] = "match"
    match: list[int] = field(default_factory=lambda: [0, 0])
    over: bool = True
    winner: int | None = None


@dataclass(frozen=True)
class OtherEvent(Event):
    """An event no reader needs a type for (source, trick_collected, end, ...)."""

    name: str = ""

    def to_json(self) -> dict[str, Any]:
        deal = {} if self.deal is None else {"deal": self.deal}
        return {"type": self.name, "event": self.name, **deal, **self.extra}


TYPES: dict[str, type[Event]] = {
    t.kind: t
    for t in (DealStarted, DealVoid, CardPlayed, TrickWon, ViolationRuled, ViolationRestated,
              ViolationWithdrawn, Uncertain, Correction, DealScored, OpenCardSeen, MatchOver)
}  # fmt: skip


def parse_event(data: dict[str, Any] | Event) -> Event:
    """The typed event of one JSON event (the pipeline's ``type`` or the replay's ``event``)."""
    if isinstance(data, Event):
        return data
    kind = str(data.get("event") or data.get("type") or "")
    cls = TYPES.get(kind)
    if cls is None:
        rest = {k: v for k, v in data.items() if k not in ("type", "event", "deal")}
        return OtherEvent(deal=data.get("deal"), extra=rest, name=kind)
    return cls.from_json(data)
