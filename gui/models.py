"""The score sheet as plain data: deal entries in, scored rows and running totals out.

A deal entry keeps only what the table said or the camera saw (contract, one side's card
points, projects, Baloot, an accepted penalty); every number on the sheet is recomputed from the
entries by ``hakam.engine.scoring``, so editing an old deal re-scores everything after it.
No Qt here: the views and the tests use the same model.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from hakam.engine.cards import CardError, parse_card
from hakam.engine.contract import LEVELS, Contract, ContractError
from hakam.engine.projects import Project, ProjectError, project_from_top
from hakam.engine.rules import SAUDI
from hakam.engine.scoring import Outcome, score_deal, score_penalty, total_card_points

MATCH_TARGET = SAUDI.match_target
TEAMS = (0, 1)


class EntryError(ValueError):
    """Input the sheet refuses; the message is one line for the user, nothing was changed."""


def team_of(seat: int) -> int:
    """Team 0 = seats 0 and 2, team 1 = seats 1 and 3."""
    return seat % 2


def next_dealer(dealer: int) -> int:
    """The deal passes to the right: the next player in playing order deals next."""
    return (dealer + 1) % 4


@dataclass(frozen=True, slots=True)
class ProjectEntry:
    """A project as written on a sheet: a sequence by its top card, four of a kind by its rank."""

    seat: int
    kind: str
    top: str | None = None
    four_of: str | None = None

    def to_project(self, sun: bool) -> Project:
        return project_from_top(self.seat, self.kind, self.top, self.four_of, sun)

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "kind": self.kind, "top": self.top, "four_of": self.four_of}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ProjectEntry:
        return cls(int(data["seat"]), str(data["kind"]), data.get("top"), data.get("four_of"))

    @classmethod
    def from_project(cls, project: Project) -> ProjectEntry:
        top = project.top
        return cls(project.seat, project.kind, None if top is None else str(top), project.four_of)


@dataclass(frozen=True, slots=True)
class DealEntry:
    """One line of the score sheet as entered; ``contract`` None is a void deal (all passed).

    ``card_points`` are both teams' card points (the typed side and the rest); ``kaboot`` is the
    team that took every trick; ``penalty`` is an accepted violation ``{"rule","seat","team"}``
    where ``team`` receives the deal.
    """

    dealer: int
    contract: dict[str, Any] | None
    card_points: tuple[int, int] | None = None
    kaboot: int | None = None
    projects: tuple[ProjectEntry, ...] = ()
    baloot: tuple[int, ...] = ()
    penalty: dict[str, Any] | None = None
    open_card: str | None = None
    bids: tuple[tuple[int, str], ...] = ()
    source: str = "manual"
    # A camera deal scored while a ruling is suspected or a card guessed (``status``
    # "provisional" of the pipeline's score): it counts, and the sheet says so.
    provisional: bool = False

    @property
    def void(self) -> bool:
        return self.contract is None

    def contract_obj(self) -> Contract | None:
        return None if self.contract is None else Contract.from_json(self.contract)

    def to_json(self) -> dict[str, Any]:
        return {
            "dealer": self.dealer,
            "contract": self.contract,
            "card_points": None if self.card_points is None else list(self.card_points),
            "kaboot": self.kaboot,
            "projects": [p.to_json() for p in self.projects],
            "baloot": list(self.baloot),
            "penalty": self.penalty,
            "open_card": self.open_card,
            "bids": [list(b) for b in self.bids],
            "source": self.source,
            **({"provisional": True} if self.provisional else {}),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> DealEntry:
        cp = data.get("card_points")
        return cls(
            dealer=int(data["dealer"]),
            contract=data.get("contract"),
            card_points=None if cp is None else (int(cp[0]), int(cp[1])),
            kaboot=data.get("kaboot"),
            projects=tuple(ProjectEntry.from_json(p) for p in data.get("projects", [])),
            baloot=tuple(int(s) for s in data.get("baloot", [])),
            penalty=data.get("penalty"),
            open_card=data.get("open_card"),
            bids=tuple((int(s), str(c)) for s, c in data.get("bids", [])),
            source=str(data.get("source", "manual")),
            provisional=bool(data.get("provisional", False)),
        )


def camera_entry(
    dealer: int,
    contract: dict[str, Any] | None,
    score: dict[str, Any],
    penalty: dict[str, Any] | None,
    open_card: str | None = None,
    bids: tuple[tuple[int, str], ...] = (),
) -> DealEntry:
    """A sheet line from the pipeline's ``score`` event of a complete deal (``penalty``: the
    ruling that decides it, as the table has it), or a void deal (``contract`` None)."""
    if contract is None:
        return DealEntry(dealer, None, open_card=open_card, bids=bids, source="camera")
    points = score.get("card_points") or [0, 0]
    kaboot = score.get("kaboot")
    won = score.get("tricks_won") or []
    if kaboot is None and 8 in won:
        kaboot = list(won).index(8)
    return DealEntry(
        dealer=dealer,
        contract=contract,
        card_points=(int(points[0]), int(points[1])),
        kaboot=kaboot,
        projects=tuple(
            ProjectEntry(int(p["seat"]), str(p["kind"]), p.get("top"), p.get("four_of"))
            for p in score.get("projects", [])
        ),
        baloot=tuple(int(s) for s in score.get("baloot", [])),
        penalty=penalty,
        open_card=open_card,
        bids=bids,
        source="camera",
        provisional=score.get("status") == "provisional",
    )


def row_entry(row: Any) -> DealEntry:
    """A table-mode match's sheet row (``hakam.vision.match.SheetRow``) as a sheet line: its
    score, penalty, and the open card and bids it was set up with."""
    setup = row.setup or {}
    bids = tuple((int(s), str(c)) for s, c in setup.get("bids", []))
    return camera_entry(row.dealer, row.contract, row.score, row.penalty,
                        setup.get("open_card"), bids)  # fmt: skip


@dataclass(frozen=True, slots=True)
class ScoredDeal:
    """A sheet row: the entry, its engine outcome (None for void or penalty) and the totals."""

    number: int
    entry: DealEntry
    outcome: Outcome | None
    result: tuple[int, int]
    match_before: tuple[int, int]
    match: tuple[int, int]
    match_over: bool
    match_winner: int | None

    @property
    def winner_team(self) -> int | None:
        if self.entry.penalty is not None:
            return int(self.entry.penalty["team"])
        if self.outcome is None:
            return None
        return self.outcome.winner_team


def tricks_for(card_points: Sequence[int], kaboot: int | None) -> tuple[int, int]:
    """Tricks won as the scorer needs them: only kaboot (all 8 to one team) changes the score.

    A paper sheet does not record trick counts, so a non-kaboot deal is given one trick to each
    team at least; ``score_deal`` reads ``tricks_won`` only to detect kaboot.
    """
    if kaboot is not None:
        return (8, 0) if kaboot == 0 else (0, 8)
    return (4, 4)


def score_entry(entry: DealEntry, match_before: tuple[int, int]) -> ScoredDeal:
    """Score one entry on top of the running totals (number is filled in by the sheet)."""
    contract = entry.contract_obj()
    if contract is None:
        return ScoredDeal(0, entry, None, (0, 0), match_before, match_before, False, None)
    projects = [p.to_project(contract.is_sun) for p in entry.projects]
    if entry.penalty is not None:
        offenders = 1 - int(entry.penalty["team"])
        result, over, winner = score_penalty(
            contract, offenders, projects, entry.baloot, match_before
        )
        total = (match_before[0] + result[0], match_before[1] + result[1])
        return ScoredDeal(0, entry, None, result, match_before, total, over, winner)
    if entry.card_points is None:
        raise EntryError("card points: missing")
    outcome = score_deal(
        contract,
        entry.card_points,
        tricks_for(entry.card_points, entry.kaboot),
        projects,
        entry.baloot,
        match_before,
    )
    return ScoredDeal(
        0,
        entry,
        outcome,
        outcome.result,
        match_before,
        outcome.match,
        outcome.match_over,
        outcome.match_winner,
    )


@dataclass
class ScoreSheet:
    """The match: the first dealer and the deal entries in order; everything else is derived."""

    first_dealer: int = 0
    deals: list[DealEntry] = field(default_factory=list)

    def rows(self) -> list[ScoredDeal]:
        out: list[ScoredDeal] = []
        totals = (0, 0)
        for n, entry in enumerate(self.deals, 1):
            row = replace(score_entry(entry, totals), number=n)
            out.append(row)
            totals = row.match
        return out

    @property
    def totals(self) -> tuple[int, int]:
        """The match score: after the last deal, or, once decided, where it was decided (a
        deal written after that, by editing an earlier one, does not count)."""
        rows = self.rows()
        done = next((r for r in rows if r.match_over), None)
        return done.match if done is not None else rows[-1].match if rows else (0, 0)

    def finished_at(self) -> ScoredDeal | None:
        """The row where the match was decided (152 reached or Gahwa won), if any."""
        return next((r for r in self.rows() if r.match_over), None)

    @property
    def next_dealer(self) -> int:
        if not self.deals:
            return self.first_dealer
        return next_dealer(self.deals[-1].dealer)


# --- manual entry ------------------------------------------------------------------------


def parse_points(text: str, contract: Contract) -> int:
    """One side's card points as typed on a paper sheet: a whole number 0..162 (Sun 0..130)."""
    total = total_card_points(contract)
    s = text.strip()
    arabic_digits = str.maketrans("٠١٢٣٤٥٦٧٨٩", "0123456789")
    s = s.translate(arabic_digits)
    if not s:
        raise EntryError("card points: type the card points of one team")
    if s[:1] in "-−" and s[1:].isdigit():  # a minus sign: a number, but no team scores below 0
        raise EntryError(f"card points: {text.strip()} is below 0 (0 to {total})")
    if not s.isdigit():
        raise EntryError(f"card points: {text.strip()!r} is not a whole number")
    value = int(s)
    if value > total:
        raise EntryError(f"card points: {value} is more than the {total} of a deal")
    return value


def manual_entry(
    dealer: int,
    contract: Contract,
    points_text: str,
    points_team: int,
    kaboot: int | None = None,
    projects: Sequence[ProjectEntry] = (),
    baloot: Sequence[int] = (),
    open_card: str | None = None,
    bids: Sequence[tuple[int, str]] = (),
) -> DealEntry:
    """Build a checked entry from what the table types: one team's card points, the rest follows.

    Raises ``EntryError`` (one line) for anything a real deal cannot produce.
    """
    total = total_card_points(contract)
    if kaboot is not None:
        points = [0, 0]
        points[kaboot] = total
        if points_text.strip():
            typed = parse_points(points_text, contract)
            if typed != points[points_team]:
                raise EntryError(
                    f"card points: kaboot gives team {kaboot} all {total}, not {typed}"
                )
    else:
        typed = parse_points(points_text, contract)
        points = [0, 0]
        points[points_team] = typed
        points[1 - points_team] = total - typed
    for i, p in enumerate(projects):
        try:
            p.to_project(contract.is_sun)
        except ProjectError as exc:
            raise EntryError(f"project {i + 1}: {exc}") from None
    seen_cards: dict[str, int] = {}
    for p in projects:
        for c in p.to_project(contract.is_sun).cards:
            if str(c) in seen_cards:
                raise EntryError(f"projects: {c} is in two projects")
            seen_cards[str(c)] = p.seat
    for s in baloot:
        if contract.is_sun:
            raise EntryError("baloot: there is no Baloot in Sun")
        if not 0 <= s <= 3:
            raise EntryError(f"baloot: seat {s} out of range")
    if len(set(baloot)) > 1:
        raise EntryError("baloot: only one player holds K and Q of trump")
    if open_card is not None:
        try:
            parse_card(open_card)
        except CardError as exc:
            raise EntryError(f"open card: {exc}") from None
    return DealEntry(
        dealer=dealer,
        contract=contract.to_json(),
        card_points=(points[0], points[1]),
        kaboot=kaboot,
        projects=tuple(projects),
        baloot=tuple(baloot),
        open_card=open_card,
        bids=tuple(bids),
    )


def check_entry(entry: DealEntry) -> None:
    """Check a stored or edited entry can be scored; raises ``EntryError`` with one line."""
    if not 0 <= entry.dealer <= 3:
        raise EntryError(f"dealer: seat {entry.dealer} out of range")
    if entry.contract is None:
        return
    try:
        contract = Contract.from_json(entry.contract)
    except ContractError as exc:
        raise EntryError(str(exc)) from None
    if contract.level not in LEVELS:
        raise EntryError(f"contract: unknown level {contract.level}")
    if entry.penalty is None:
        if entry.card_points is None:
            raise EntryError("card points: missing")
        total = total_card_points(contract)
        if sum(entry.card_points) != total or min(entry.card_points) < 0:
            raise EntryError(f"card points: must add up to {total}")
        if entry.kaboot is not None and entry.card_points[entry.kaboot] != total:
            raise EntryError(f"card points: kaboot gives team {entry.kaboot} all {total}")
    for i, p in enumerate(entry.projects):
        try:
            p.to_project(contract.is_sun)
        except ProjectError as exc:
            raise EntryError(f"project {i + 1}: {exc}") from None
