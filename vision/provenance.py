"""How each play and each ruling is known: a referee never accuses on a guess.

Every play of a deal has a *provenance*:

- ``seen``: the camera read it (the tracker's vote accepted it), with the belief of its reads;
- ``named``: the camera did not read it (or its read was taken for a misread) and the pipeline
  placed it from what the rest of the deal allows, with the reason in words (``NAMED_BY``);
- ``person``: a person named it or confirmed it at the table.

A violation is ``proven`` only when the plays it rests on are known surely: the card that broke
the rule and the card that proves it were seen, each lying clearly in front of the seat it is
ruled for (a seat the turn gave it is a guess), or a person confirmed them; the other cards of
the trick (the lead, what was winning) and, for a card out of turn, the trick before (its
winner leads) were seen or confirmed, none named; and no play it rests on is in doubt
(``doubted_plays``: a card out of turn is a card read at the wrong seat until a person says
otherwise). Anything less is ``suspected``: it is asked as
a question and changes no score until a person confirms it. A deal's score is ``final`` only
when the deal is complete and nothing suspected or guessed remains; otherwise ``provisional``.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from hakam.engine.cards import CARD_NAMES, DECK, Card
from hakam.engine.referee import Violation
from hakam.engine.rules import FALSE_BALOOT, FALSE_PROJECT, OUT_OF_TURN
from hakam.vision.decoder import FINAL_P

SEEN, NAMED, PERSON = "seen", "named", "person"
PROVEN, SUSPECTED = "proven", "suspected"
FINAL, PROVISIONAL = "final", "provisional"

# Why the pipeline named a card (a play's ``source`` other than "camera" and "correction").
NAMED_BY = {
    "elimination": "not read, the only card left",
    "exchange": "exchanged with a card not read: the deal breaks fewer rules so",
    "displaced": "a person placed the card recorded here elsewhere; the card that left over",
    "overruled": "a later correction moved the card a person had given here; the card left over",
    "rules": "not read; of the cards left, the only one that breaks no rule",
    "reader": "not read surely; of the ways that keep every rule, the one its reads named most",
    "same-result": "not read; one of several cards that keep every rule and give the same result",
    "fewest": "not read surely; no way of placing the cards left keeps every rule: the one that "
    "breaks the fewest, which its reads named most",
    "reads": "not accepted by the vote; read surely where it lay, as no other card",
}
# How a card not read is named without a person: the only one left, the only way that keeps the
# rules, the way the reads there favour among those, one of ways that give one result, or, when
# no way keeps the rules, the one way that breaks the fewest where the reads favour it too; or,
# during the deal, the one card its sure reads named where the vote accepted none.
DEDUCED = ("elimination", "rules", "reader", "same-result", "fewest", "reads")
UNREAD = (*DEDUCED, "correction")  # plays of cards the camera did not read (a person named some)
# A play renamed because its card was read surely again elsewhere (``PipelineSettings.
# resolve_conflicts``): its read was taken for a misread.
RENAMED = "read as a card seen again elsewhere; renamed as the likeliest card still unplayed"
# Names that are a choice among several ways the rules allow, not a deduction, or where two of a
# person's words disagreed (the later stood): the deal's score stays provisional until a person
# confirms them.
GUESSED = ("reader", "same-result", "fewest", "overruled")


@dataclass
class Play:
    """One card played in the deal, as the pipeline placed it."""

    trick: int
    seat: int
    card: int
    frame: int
    time: float
    source: str  # "camera", "correction" (a person) or why it was named (``NAMED_BY``)
    evidence: str | None = None
    box: tuple[float, ...] | None = None
    landed: int = -1  # the frame the camera accepted its card (-1: a card not read)
    belief: float | None = None  # the confidence of its accepted read (seen cards)
    seat_seen: bool = False  # it lay clearly in front of the seat it is played for
    confirmed: bool = False  # a person confirmed it at the table
    probability: float | None = None  # a named card's posterior (``hakam.vision.decoder``)
    # A named card: a card the reader could not read lay clearly in front of its seat while it
    # can have landed, and became no card read there, so the camera saw where it lay.
    place_seen: bool = False
    # The card the camera read there, where a person's exchange put another (``displaced``):
    # the read stands again when that card comes back.
    read_card: int | None = None

    @property
    def provenance(self) -> str:
        if self.confirmed or self.source == "correction":
            return PERSON
        return SEEN if self.source == "camera" else NAMED

    @property
    def held(self) -> bool:
        """Read before its seat was on turn, and held until then."""
        return 0 <= self.landed < self.frame

    @property
    def sure(self) -> bool:
        """Seen lying clearly in front of its seat, or confirmed by a person."""
        return self.provenance == PERSON or (self.provenance == SEEN and self.seat_seen)

    @property
    def reason(self) -> str | None:
        """Why it was named, in words (named plays only)."""
        if self.provenance != NAMED:
            return None
        return NAMED_BY.get(self.source, RENAMED)

    def to_json(self) -> dict:
        """The play's provenance as the record and the events give it."""
        out: dict = {"provenance": self.provenance}
        if self.provenance == SEEN and self.belief is not None:
            out["belief"] = round(float(self.belief), 3)
        if self.provenance == NAMED:
            out["named_by"] = self.source
            out["reason"] = self.reason
            if self.probability is not None:
                out["probability"] = round(float(self.probability), 4)
            if self.place_seen:
                out["place_seen"] = True
        return out


def _all_at(plays: Sequence[Play], trick: int, seat: int) -> list[Play]:
    """Every play at ``seat`` in ``trick``: one, but two where a person put a second card
    there (a ruling on that place rests on both: which lay there is not known)."""
    return [p for p in plays if p.trick == trick and p.seat == seat]


def _at(plays: Sequence[Play], trick: int, seat: int, card: Card | None = None) -> Play | None:
    """The play at ``seat`` in ``trick``; of two there, the one of ``card`` (the card a
    ruling names)."""
    here = _all_at(plays, trick, seat)
    mine = [p for p in here if card is not None and DECK[p.card] == card]
    return (mine or here or [None])[0]


# A false project or Baloot is ruled on a claim (trick 1, the claimant's seat), not on a play:
# it rests on where the claimed card was played, and (never played) on the claimant's plays.
CLAIMS = (FALSE_PROJECT, FALSE_BALOOT)


def _card_play(plays: Sequence[Play], card: Card | None) -> Play | None:
    return None if card is None else next((p for p in plays if DECK[p.card] == card), None)


def accused_plays(v: Violation, plays: Sequence[Play]) -> list[Play]:
    """The card that broke the rule and the card that proves it: each must be sure."""
    out = []
    broke = _card_play(plays, v.card) if v.rule in CLAIMS else _at(plays, v.trick, v.seat, v.card)
    if broke is not None:
        out.append(broke)
    if v.rule not in CLAIMS:  # a second play at that place: which lay there is not known
        out += [p for p in _all_at(plays, v.trick, v.seat) if p is not broke]
    proof = None if v.proof is None else _card_play(plays, v.proof[1])
    if proof is not None and proof not in out:
        out.append(proof)
    return out


def context_plays(v: Violation, plays: Sequence[Play]) -> list[Play]:
    """The other plays the ruling rests on: the trick's cards before the one that broke the
    rule (the lead, what was winning) and the trick before it (its winner leads, so it says
    whose turn each card was). None of them may be named or in doubt."""
    if v.rule in CLAIMS:  # never played by the claimant: each of his plays counts
        return [p for p in plays if p.seat == v.seat] if v.proof is None else []
    trick = [p for p in plays if p.trick == v.trick]
    broke = _at(plays, v.trick, v.seat, v.card)
    before = trick[: trick.index(broke)] if broke in trick else trick
    return [p for p in plays if p.trick == v.trick - 1] + before


def doubted_plays(violations: Sequence[Violation], plays: Sequence[Play]) -> list[Play]:
    """The plays the deal itself puts in doubt, whatever ruling rests on them:

    - a card ruled out of turn, with the other cards of its trick: the camera saw it in front
      of a seat not on turn, and a card read at the wrong seat is likelier than a player out
      of turn (its trick's cards were then put in order around it);
    - in a trick where a card was named, a card whose seat the turn gave it (not lying clearly
      in front of a seat), or a card held for its turn (read before its seat was on turn): the
      card named for the seat the deal waited for may be that card, read at the wrong seat.
      Not a held card lying clearly in front of its own seat where each card named in its
      trick lay where the camera saw a card it could not read (``place_seen``): then the
      camera saw both places, and the card waited only for the one not read. Nor the one card
      of a trick of four whose place was not seen, when the other three's were: its seat is
      the one left.

    A person's word is never in doubt."""
    out: list[Play] = []
    for v in violations:
        here = _all_at(plays, v.trick, v.seat)
        if v.rule == "out-of-turn" and (not here or any(p.provenance != PERSON for p in here)):
            out += [p for p in plays if p.trick == v.trick]
    for trick in sorted({p.trick for p in plays if p.provenance == NAMED}):
        cards = [p for p in plays if p.trick == trick]
        unplaced = any(p.provenance == NAMED and not p.place_seen for p in cards)
        loose = [p for p in cards if not _placed(p, unplaced)]
        if len(cards) == 4 and len(loose) == 1:
            loose = []  # three places seen: the fourth card's seat is the one left
        out += [p for p in loose if p.provenance == SEEN]
    once = {id(p): p for p in out if p.provenance != PERSON}  # in order, each play once
    return list(once.values())


def _placed(p: Play, unplaced: bool) -> bool:
    """Where ``p`` lay is known (``doubted_plays``): a person's word; a card seen clearly in
    front of its seat, and held for its turn only where each card named in its trick lay
    where the camera saw it (``unplaced``: one did not); a card named where it was seen."""
    if p.provenance == PERSON:
        return True
    if p.provenance == NAMED:
        return p.place_seen
    return p.seat_seen and not (p.held and unplaced)


def doubtful_plays(
    v: Violation, plays: Sequence[Play], among: Sequence[Violation] = ()
) -> list[Play]:
    """The plays that keep ``v`` from being proven, the card that broke the rule first;
    ``among``: the deal's standing violations (a card out of turn puts its trick in doubt)."""
    doubted = {id(p) for p in doubted_plays([*among, v], plays)}
    accused = [p for p in accused_plays(v, plays) if not p.sure or id(p) in doubted]
    context = [p for p in context_plays(v, plays) if p.provenance == NAMED or id(p) in doubted]
    return accused + [p for p in context if p not in accused]


def _unplaced(v: Violation, plays: Sequence[Play]) -> bool:
    """No play stands where the rule was broken (a claim is ruled on no play of its own)."""
    return v.rule not in CLAIMS and _at(plays, v.trick, v.seat) is None


def violation_status(v: Violation, plays: Sequence[Play], among: Sequence[Violation] = ()) -> str:
    return told(v, plays, among)[0]


def question(v: Violation, plays: Sequence[Play], among: Sequence[Violation] = ()) -> str | None:
    """What a person is asked before a suspected violation counts, or None when it is proven:
    the first play in doubt it rests on (for the card ruled out of turn: whether it went out of
    turn, the doubt being where or when it lay, not which card it was), and every other play a
    yes confirms with it (``Pipeline.confirm`` confirms them all)."""
    return told(v, plays, among)[1]


def told(
    v: Violation, plays: Sequence[Play], among: Sequence[Violation] = ()
) -> tuple[str, str | None]:
    """``violation_status`` and ``question`` of ``v``, its plays in doubt found once."""
    doubt = doubtful_plays(v, plays, among)
    if not doubt and not _unplaced(v, plays):
        return PROVEN, None
    return SUSPECTED, _asked(v, doubt)


def _asked(v: Violation, doubt: Sequence[Play]) -> str:
    """``question``'s words, for a suspected ``v`` with ``doubt`` its plays in doubt."""
    if not doubt:
        return f"Did seat {v.seat} break the rule in trick {v.trick}? The ruling depends on it"
    p = doubt[0]
    how = {
        SEEN: "read, but not lying clearly in front of a seat"
        if not p.seat_seen
        else "read in front of a seat not on turn",
        NAMED: "not read: " + (p.reason or "named by the rules"),
        PERSON: "confirmed",
    }[p.provenance]
    ruled_here = v.rule == OUT_OF_TURN and (p.trick, p.seat) == (v.trick, v.seat)
    when = " out of turn" if ruled_here else ""
    also = ", ".join(f"{CARD_NAMES[q.card]} seat {q.seat}" for q in doubt[1:])
    return (
        f"Did seat {p.seat} play {CARD_NAMES[p.card]} in trick {p.trick}{when}? "
        f"The ruling depends on it ({how})" + (f"; a yes confirms too: {also}" if also else "")
    )


def guessed_plays(plays: Sequence[Play]) -> list[Play]:
    """Cards named by a guess among several ways (``GUESSED``) or below ``FINAL_P`` (the
    decoder's probability, or a likelihood from sparse reads): the score stays provisional
    until a person confirms or corrects them."""
    return [
        p
        for p in plays
        if p.provenance == NAMED
        and (p.source in GUESSED or (p.probability is not None and p.probability < FINAL_P))
    ]


def score_status(
    complete: bool,
    suspected: int,
    plays: Sequence[Play],
    waiting: Collection[int] = (),
    violations: Sequence[Violation] = (),
    same_result: Collection[int] = (),
) -> str:
    """``final`` when the deal is complete, nothing is suspected, no card the deal holds or
    waits for is left, no card was named by a guess among several ways nor below ``FINAL_P``
    (the decoder's probability: the reads there against the rules), and no play is in doubt
    (``doubted_plays``) but in the tricks of ``same_result``: tricks whose cards in doubt give
    the same result and rulings however they are placed among their places (the record still
    flags them: which seat played which is not known, the score is)."""
    guessed = bool(guessed_plays(plays))
    doubted = [p for p in doubted_plays(violations, plays) if p.trick not in same_result]
    if complete and not suspected and not guessed and not waiting and not doubted:
        return FINAL
    return PROVISIONAL
