"""Controllers of the overlay: plain Python that the Qt views call and listen to.

Every decision (what a bid may be, what a raise is, how a deal scores, whether a play was legal)
is the engine's; the controllers only keep the state of the table and write it to the match
store after every change. Nothing here imports Qt, so the tests drive them directly.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from hakam.engine.bidding import Bidding, BiddingError
from hakam.engine.cards import CARD_NAMES, DECK, CardError, parse_card
from hakam.engine.contract import LEVELS, Contract, ContractError
from hakam.engine.doubling import DoublingError, raise_contract
from hakam.engine.projects import FOUR_KIND_RANKS, KINDS, ProjectError, project_from_top
from hakam.engine.referee import Referee, RefereeError
from hakam.engine.scoring import total_card_points
from hakam.gui.match_store import MatchStore
from hakam.gui.models import (
    MATCH_TARGET,
    DealEntry,
    EntryError,
    ProjectEntry,
    ScoredDeal,
    ScoreSheet,
    camera_entry,
    check_entry,
    manual_entry,
    score_entry,
    team_of,
)
from hakam.vision.event_types import (
    REFUSED,
    CardPlayed,
    Correction,
    DealScored,
    DealStarted,
    DealVoid,
    Event,
    MatchOver,
    OpenCardSeen,
    TrickWon,
    Uncertain,
    ViolationRestated,
    ViolationRuled,
    ViolationWithdrawn,
    parse_event,
)

Listener = Callable[[], None]


class Observable:
    """Listeners are called after every change; views re-read the state they show."""

    def __init__(self) -> None:
        self._listeners: list[Listener] = []

    def subscribe(self, fn: Listener) -> None:
        self._listeners.append(fn)

    def notify(self) -> None:
        for fn in list(self._listeners):
            fn()


# --- score sheet -------------------------------------------------------------------------


class ScoreSheetController(Observable):
    """The match being kept: add, edit, delete, undo; every change is saved before it shows."""

    def __init__(self, store: MatchStore, match_id: int | None = None) -> None:
        super().__init__()
        self.store = store
        if match_id is None:
            match_id = store.latest_match()
        self.match_id = match_id if match_id is not None else store.new_match()
        self.sheet = store.load(self.match_id)
        self.message = ""

    # state
    def rows(self) -> list[ScoredDeal]:
        return self.sheet.rows()

    @property
    def totals(self) -> tuple[int, int]:
        return self.sheet.totals

    @property
    def next_dealer(self) -> int:
        return self.sheet.next_dealer

    def progress(self, team: int) -> float:
        """Share of the way to 152 (1.0 once reached), for the progress bars."""
        return min(1.0, max(0, self.totals[team]) / MATCH_TARGET)

    @property
    def finished(self) -> ScoredDeal | None:
        return self.sheet.finished_at()

    # changes
    def _commit(self, sheet: ScoreSheet, action: str) -> None:
        for entry in sheet.deals:
            check_entry(entry)
        try:
            sheet.rows()
        except (ContractError, ProjectError, KeyError, TypeError) as exc:
            raise EntryError(str(exc)) from None
        self.store.save(self.match_id, sheet, action, self.sheet)
        self.sheet = sheet
        self.message = ""
        self.notify()

    def add(self, entry: DealEntry) -> int:
        """Append a deal; returns its 0-based position. Refused once the match is decided: no
        deal counts after it (a new match is started instead)."""
        done = self.finished
        if done is not None:
            a, b = done.match
            raise EntryError(
                f"the match is over at deal {done.number} ({a}-{b}): start a new match"
            )
        sheet = ScoreSheet(self.sheet.first_dealer, [*self.sheet.deals, entry])
        self._commit(sheet, f"add deal {len(sheet.deals)}")
        return len(sheet.deals) - 1

    def replace(self, index: int, entry: DealEntry) -> None:
        if not 0 <= index < len(self.sheet.deals):
            raise EntryError(f"deal {index + 1}: no such deal")
        deals = list(self.sheet.deals)
        deals[index] = entry
        self._commit(ScoreSheet(self.sheet.first_dealer, deals), f"edit deal {index + 1}")

    def delete(self, index: int) -> None:
        if not 0 <= index < len(self.sheet.deals):
            raise EntryError(f"deal {index + 1}: no such deal")
        deals = [d for i, d in enumerate(self.sheet.deals) if i != index]
        self._commit(ScoreSheet(self.sheet.first_dealer, deals), f"delete deal {index + 1}")

    def set_first_dealer(self, dealer: int) -> None:
        """The first dealer can be changed only before the first deal is written."""
        if self.sheet.deals:
            raise EntryError("dealer: the first dealer is fixed once a deal is written")
        self._commit(ScoreSheet(dealer, []), f"first dealer {dealer}")

    def undo(self) -> str | None:
        """Undo the last change (also after a restart); returns what was undone."""
        action = self.store.last_action(self.match_id)
        sheet = self.store.undo(self.match_id)
        if sheet is None:
            return None
        self.sheet = sheet
        self.message = ""
        self.notify()
        return action

    def new_match(self, first_dealer: int = 0) -> None:
        self.open_match(self.store.new_match(first_dealer))

    def open_match(self, match_id: int) -> None:
        """Show another match of the store (the newest opens at start)."""
        self.sheet = self.store.load(match_id)
        self.match_id = match_id
        self.message = ""
        self.notify()


# --- deal set-up -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RaiseOption:
    """A raise the engine allows now: who says it, which, and whether it is locked."""

    seat: int
    call: str
    locked: bool


class DealSetupController(Observable):
    """Dealer, open card, bidding, doubling, projects and one side's card points, no typing
    except the points. Only the calls and raises the engine allows are offered; the draft is
    saved after every step so a restart resumes the deal where it was."""

    def __init__(self, sheet: ScoreSheetController) -> None:
        super().__init__()
        self.sheet = sheet
        self.camera_open_card: str | None = None
        self.message = ""
        # Table mode: a deal set up here is played on camera (``start_deal``), not typed; the
        # dealer is the rotation's (``_table_dealer``), not chosen.
        self._on_start: Callable[[dict[str, Any]], None] | None = None
        self._table_dealer: int | None = None
        self._reset(sheet.next_dealer)
        draft = sheet.store.load_draft(sheet.match_id)
        if draft:
            try:
                self._load_draft(draft)
            except (BiddingError, DoublingError, ContractError, ProjectError, KeyError) as exc:
                self.message = f"draft: {exc}"
                self._reset(sheet.next_dealer)

    def _reset(self, dealer: int | None) -> None:
        self.dealer: int | None = dealer
        self.open_card: str | None = None
        self.bids: list[tuple[int, str]] = []
        self.bidding: Bidding | None = None
        self.base_contract: Contract | None = None  # set directly when editing without bids
        self.raises: list[RaiseOption] = []
        self.projects: list[ProjectEntry] = []
        self.baloot: list[int] = []
        self.points_team = 0
        self.points_text = ""
        self.kaboot: int | None = None
        self.editing: int | None = None

    # --- state --------------------------------------------------------------------------

    @property
    def phase(self) -> str:
        """dealer → open → bidding → void | play (doubling, projects, card points)."""
        if self.dealer is None:
            return "dealer"
        if self.base_contract is not None:
            return "play"
        if self.open_card is None:
            return "open"
        assert self.bidding is not None
        if not self.bidding.done:
            return "bidding"
        return "void" if self.bidding.void else "play"

    @property
    def turn(self) -> int | None:
        return None if self.bidding is None else self.bidding.turn

    def legal_calls(self) -> list[str]:
        """The calls the engine allows the seat on turn (empty outside the bidding)."""
        if self.phase != "bidding":
            return []
        assert self.bidding is not None
        return self.bidding.legal_calls()

    def match_before(self) -> tuple[int, int]:
        rows = self.sheet.rows()
        if self.editing is not None:
            return rows[self.editing].match_before
        return rows[-1].match if rows else (0, 0)

    def bought(self) -> Contract | None:
        """The contract bought in the bidding, before any raise."""
        if self.base_contract is not None:
            return self.base_contract
        if self.bidding is None:
            return None
        return self.bidding.contract

    def contract(self) -> Contract | None:
        """The contract with the raises said so far."""
        c = self.bought()
        if c is None:
            return None
        match = self.match_before()
        for i, r in enumerate(self.raises):
            last = i == len(self.raises) - 1
            c = raise_contract(c, r.seat, r.call, r.locked and last, match)
        return c

    def raise_options(self) -> list[RaiseOption]:
        """Every next raise the engine accepts now, by seat, open and locked."""
        c = self.contract()
        if c is None or c.level == LEVELS[-1]:
            return []
        call = LEVELS[LEVELS.index(c.level) + 1]
        out = []
        for seat in range(4):
            for locked in (False, True):
                try:
                    raise_contract(c, seat, call, locked, self.match_before())
                except DoublingError:
                    continue
                out.append(RaiseOption(seat, call, locked))
        return out

    def raise_refused(self) -> str | None:
        """Why no raise is offered now (the engine's reason, as for a double by the first
        defender), or None when one is."""
        c = self.contract()
        if c is None or self.raise_options():
            return None
        if c.level == LEVELS[-1]:
            return f"{c.level}: the highest raise"
        try:
            raise_contract(c, (c.declarer + 1) % 4, LEVELS[LEVELS.index(c.level) + 1], False,
                           self.match_before())  # fmt: skip
        except DoublingError as exc:
            return str(exc)
        return None

    def preview(self) -> tuple[int, int] | str | None:
        """The deal's result on the sheet as the points stand typed (game points, both
        teams), or the one-line reason it cannot be scored yet; None before the play step."""
        if self.phase != "play" or not self.points_text.strip():
            return None
        contract = self.contract()
        assert contract is not None and self.dealer is not None
        try:
            entry = manual_entry(
                self.dealer, contract, self.points_text, self.points_team, self.kaboot,
                self.projects, self.baloot,
            )  # fmt: skip
            return score_entry(entry, self.match_before()).result
        except EntryError as exc:
            return str(exc)

    def project_choices(self, kind: str) -> list[ProjectEntry]:
        """The shapes a project of ``kind`` can have in this contract (seat 0 as template)."""
        c = self.bought()
        sun = bool(c and c.is_sun)
        out: list[ProjectEntry] = []
        if kind in ("hundred", "four_hundred"):
            for rank in FOUR_KIND_RANKS:
                try:
                    project_from_top(0, kind, None, rank, sun)
                except ProjectError:
                    continue
                out.append(ProjectEntry(0, kind, None, rank))
        for name in CARD_NAMES:
            try:
                project_from_top(0, kind, name, None, sun)
            except ProjectError:
                continue
            out.append(ProjectEntry(0, kind, name, None))
        return out

    def project_kinds(self) -> list[str]:
        c = self.bought()
        return [k for k in KINDS if k != "four_hundred" or (c is not None and c.is_sun)]

    # --- steps --------------------------------------------------------------------------

    def _changed(self) -> None:
        self.message = ""
        self.sheet.store.save_draft(self.sheet.match_id, self.to_draft())
        self.notify()

    def _fail(self, message: str) -> None:
        self.message = message
        self.notify()
        raise EntryError(message)

    def set_dealer(self, dealer: int) -> None:
        if not 0 <= dealer <= 3:
            self._fail(f"dealer: seat {dealer} out of range")
        table = self._on_start is not None and self._table_dealer is not None
        if table and dealer != self._table_dealer:
            self._fail(f"dealer: seat {self._table_dealer} deals this deal (the deal passes "
                       "to the right)")  # fmt: skip
        editing = self.editing
        if editing is None and not self.sheet.sheet.deals and dealer != self.sheet.next_dealer:
            # The match's first deal: its dealer is the sheet's first (the header's "next
            # dealer" said seat 0 while seat 2 dealt, seen in a walk-through).
            self.sheet.set_first_dealer(dealer)
        self._reset(dealer)
        self.editing = editing
        if self.camera_open_card:
            self.set_open_card(self.camera_open_card)
            return
        self._changed()

    def set_open_card(self, card: str) -> None:
        """The face-up card of the bidding; the camera pre-fills it when it reads one."""
        if self.dealer is None:
            self._fail("open card: choose the dealer first")
        try:
            name = str(parse_card(card))
        except CardError as exc:
            self._fail(f"open card: {exc}")
        assert self.dealer is not None
        self.open_card = name
        self.bidding = Bidding(self.dealer, name[-1])
        self.bids = []
        self.raises = []
        self._changed()

    def on_camera_open_card(self, card: str | None) -> None:
        """Pre-fill from the camera; a card already chosen by hand is kept."""
        self.camera_open_card = card
        if card and self.phase == "open":
            self.set_open_card(card)

    def call(self, call: str) -> None:
        """The seat on turn says ``call``; refused (one line, nothing changed) when illegal."""
        if self.phase != "bidding" or self.bidding is None:
            self._fail("bidding: the bidding is not open")
        assert self.bidding is not None
        seat = self.bidding.turn
        assert seat is not None
        try:
            self.bidding.push(seat, call)
        except BiddingError as exc:
            self._fail(f"bidding: {exc}")
        self.bids.append((seat, self.bidding.calls[-1][1]))
        if self.bidding.done:
            self.raises = []
        self._changed()

    def undo_call(self) -> None:
        """Take back the last step of the set-up (a raise, else a call)."""
        if self.raises:
            self.raises.pop()
            self._changed()
            return
        if not self.bids or self.dealer is None or self.open_card is None:
            return
        self._replay_bids(self.bids[:-1])
        self._changed()

    def _replay_bids(self, bids: Iterable[tuple[int, str]]) -> None:
        assert self.dealer is not None and self.open_card is not None
        self.bidding = Bidding(self.dealer, self.open_card[-1])
        self.bids = []
        for seat, call in bids:
            self.bidding.push(seat, call)
            self.bids.append((seat, self.bidding.calls[-1][1]))

    def say_raise(self, option: RaiseOption) -> None:
        if option not in self.raise_options():
            self._fail(f"doubling: {option.call} by seat {option.seat} is not allowed now")
        if self.raises and self.raises[-1].locked:
            self.raises[-1] = replace(self.raises[-1], locked=False)
        self.raises.append(option)
        self._changed()

    def announce(self, seat: int, project: ProjectEntry) -> None:
        """A project announced by ``seat`` in the first trick."""
        c = self.bought()
        if c is None:
            self._fail("projects: no contract yet")
        assert c is not None
        entry = ProjectEntry(seat, project.kind, project.top, project.four_of)
        try:
            cards = set(entry.to_project(c.is_sun).cards)
        except ProjectError as exc:
            self._fail(f"project: {exc}")
        for other in self.projects:
            if cards & set(other.to_project(c.is_sun).cards):
                self._fail("project: a card cannot be in two projects")
        self.projects.append(entry)
        self._changed()

    def remove_project(self, index: int) -> None:
        if 0 <= index < len(self.projects):
            self.projects.pop(index)
            self._changed()

    def toggle_baloot(self, seat: int) -> None:
        c = self.bought()
        if c is None or c.is_sun:
            self._fail("baloot: only in Hokum")
        self.baloot = [] if seat in self.baloot else [seat]
        self._changed()

    def set_points(self, team: int, text: str) -> None:
        self.points_team = team
        self.points_text = text
        self._changed()

    def set_kaboot(self, team: int | None) -> None:
        self.kaboot = team
        self._changed()

    def record(self) -> int:
        """Write the deal on the sheet (or replace the one being edited); returns its index."""
        phase = self.phase
        if phase not in ("play", "void"):
            self._fail("deal: finish the bidding first")
        assert self.dealer is not None
        if phase == "void":
            entry = DealEntry(self.dealer, None, open_card=self.open_card, bids=tuple(self.bids))
        else:
            contract = self.contract()
            assert contract is not None
            try:
                entry = manual_entry(
                    self.dealer, contract, self.points_text, self.points_team, self.kaboot,
                    self.projects, self.baloot, self.open_card, self.bids,
                )  # fmt: skip
            except EntryError as exc:
                self._fail(str(exc))
        try:
            if self.editing is not None:
                index = self.editing
                old = self.sheet.sheet.deals[index]
                self.sheet.replace(index, replace(entry, source=old.source))
            else:
                index = self.sheet.add(entry)
        except EntryError as exc:
            self._fail(str(exc))
        self.camera_open_card = None
        self._reset(self._next_dealer())
        self.sheet.store.save_draft(self.sheet.match_id, None)
        self.notify()
        return index

    @property
    def table_mode(self) -> bool:
        return self._on_start is not None

    def play_on_camera(
        self, on_start: Callable[[dict[str, Any]], None] | None, dealer: int | None = None
    ) -> None:
        """Table mode: each deal, once bid, goes to the camera's match (``on_start`` takes its
        set-up line, as ``hakam.vision.match.parse_setup`` reads it); the camera scores it.
        ``dealer``: who deals the next deal (then it rotates). A deal being bid for that dealer
        (the draft kept over a restart) is kept."""
        self._on_start = on_start
        self._table_dealer = dealer
        if on_start is not None and dealer is not None and self.dealer != dealer:
            self._reset(dealer)
            self.camera_open_card = None
            self._changed()
        self.notify()

    def start_deal(self) -> dict[str, Any]:
        """Table mode: the bidding (and doubling, projects) is over: the deal is played on
        camera. Returns the set-up line sent; the panel moves on to the next dealer."""
        if self._on_start is None:
            self._fail("deal: no camera to play it (table mode is off)")
        phase = self.phase
        if phase not in ("play", "void") or self.editing is not None:
            self._fail("deal: finish the bidding first")
        assert self.dealer is not None and self._on_start is not None
        line: dict[str, Any] = {"dealer": self.dealer, "open_card": self.open_card,
                                "bids": [list(b) for b in self.bids], "contract": None}  # fmt: skip
        contract = self.contract()
        if phase == "play" and contract is not None:
            line["contract"] = contract.to_json()
            line["projects"] = [
                {"seat": p.seat, "kind": p.kind,
                 "cards": [str(c) for c in p.to_project(contract.is_sun).cards]}
                for p in self.projects
            ]  # fmt: skip
            if self.baloot:
                line["baloot"] = list(self.baloot)
        self._on_start(line)
        self.camera_open_card = None
        self._table_dealer = (self.dealer + 1) % 4
        self._reset(self._table_dealer)
        self.sheet.store.save_draft(self.sheet.match_id, None)
        self.notify()
        return line

    def _next_dealer(self) -> int:
        """Who deals the next deal: the rotation's in table mode (the deal on camera is not on
        the sheet yet), else the sheet's."""
        if self._on_start is not None and self._table_dealer is not None:
            return self._table_dealer
        return self.sheet.next_dealer

    def restart(self) -> None:
        """Forget the deal being set up (the sheet is untouched)."""
        self._reset(self._next_dealer())
        self.sheet.store.save_draft(self.sheet.match_id, None)
        self.notify()

    def edit(self, index: int) -> None:
        """Load a written deal into the set-up to change it; ``record`` replaces it."""
        rows = self.sheet.rows()
        if not 0 <= index < len(rows):
            self._fail(f"deal {index + 1}: no such deal")
        entry = rows[index].entry
        self._reset(entry.dealer)
        self.editing = index
        self.open_card = entry.open_card
        contract = entry.contract_obj()
        if entry.open_card and entry.bids:
            try:
                self._replay_bids(entry.bids)
            except BiddingError:
                self.bidding = None
        if contract is not None and (self.bidding is None or self.bidding.contract is None):
            self.base_contract = Contract(
                contract.kind, contract.declarer, contract.dealer, contract.trump,
                ashkal=contract.ashkal,
            )  # fmt: skip
        if contract is not None:
            self.raises = [
                RaiseOption(
                    seat, LEVELS[i + 1], contract.locked and i == len(contract.raised_by) - 1
                )
                for i, seat in enumerate(contract.raised_by)
            ]
            if entry.card_points is not None:
                self.points_team = 0
                self.points_text = str(entry.card_points[0])
            self.kaboot = entry.kaboot
            self.projects = list(entry.projects)
            self.baloot = list(entry.baloot)
        self._changed()

    # --- draft --------------------------------------------------------------------------

    def to_draft(self) -> dict[str, Any]:
        base = self.base_contract
        return {
            "dealer": self.dealer,
            "open_card": self.open_card,
            "bids": [list(b) for b in self.bids],
            "base_contract": None if base is None else base.to_json(),
            "raises": [[r.seat, r.call, r.locked] for r in self.raises],
            "projects": [p.to_json() for p in self.projects],
            "baloot": self.baloot,
            "points_team": self.points_team,
            "points_text": self.points_text,
            "kaboot": self.kaboot,
            "editing": self.editing,
        }

    def _load_draft(self, d: dict[str, Any]) -> None:
        self._reset(d.get("dealer"))
        self.editing = d.get("editing")
        if d.get("open_card"):
            self.open_card = d["open_card"]
            self._replay_bids([(int(s), str(c)) for s, c in d.get("bids", [])])
        if d.get("base_contract"):
            self.base_contract = Contract.from_json(d["base_contract"])
        self.raises = [RaiseOption(int(s), str(c), bool(lk)) for s, c, lk in d.get("raises", [])]
        self.contract()  # re-checks the raises
        self.projects = [ProjectEntry.from_json(p) for p in d.get("projects", [])]
        self.baloot = [int(s) for s in d.get("baloot", [])]
        self.points_team = int(d.get("points_team", 0))
        self.points_text = str(d.get("points_text", ""))
        self.kaboot = d.get("kaboot")


# --- live table --------------------------------------------------------------------------


@dataclass
class Play:
    seat: int
    card: str
    ekka: bool = False
    evidence: str | None = None
    provenance: str = "seen"  # seen, named or person (``hakam.vision.provenance``)
    probability: float | None = None  # a named card's, from the deal decoder
    confirmed: bool = False  # a person confirmed it as it was (person: not named by one)
    named_by: str | None = None  # why a named card was named (``NAMED_BY``'s keys)


@dataclass
class TrickLog:
    number: int
    plays: list[Play] = field(default_factory=list)
    winner: int | None = None
    points: int | None = None


@dataclass
class Warning:
    """A violation waiting for the table: ``status`` open, accepted or dismissed; ``known``
    proven, or suspected (its ``question`` asked). A person who confirms what a suspected
    ruling rests on makes it proven (``confirmed``): it counts, and the table still accepts or
    dismisses it as it does any proven ruling."""

    id: int
    deal: int
    trick: int
    seat: int
    rule: str
    card: str | None
    proof: dict[str, Any] | None
    text: str
    status: str = "open"
    known: str = "proven"  # or "suspected": asked, and no score counts it until confirmed
    question: str | None = None
    confirmed: bool = False  # what it rests on confirmed by a person (proven, whatever told)

    def as_violation(self) -> dict[str, Any]:
        return {
            "trick": self.trick, "seat": self.seat, "card": self.card, "rule": self.rule,
            "proof": self.proof, "text": self.text,
        }  # fmt: skip


@dataclass
class Notice:
    """An uncertain read ("card in front of seat 2 not read"), fixed with one click."""

    id: int
    deal: int
    seat: int | None
    text: str
    trick: int | None = None
    status: str = "open"
    card: str | None = None
    guesses: tuple[str, ...] = ()  # the reader's candidates, offered first
    confirm_trick: int | None = None  # a trick in doubt: answered by confirming it as recorded


@dataclass
class DealLog:
    """What the camera saw of one deal: the evidence for the dispute view and the audit."""

    number: int
    dealer: int
    open_card: str | None
    bids: list[tuple[int, str]]
    contract: dict[str, Any] | None
    tricks: list[TrickLog] = field(default_factory=list)
    card_points: list[int] = field(default_factory=lambda: [0, 0])
    tricks_won: list[int] = field(default_factory=lambda: [0, 0])
    score: dict[str, Any] | None = None
    sheet_index: int | None = None
    camera_line: DealEntry | None = None  # the sheet line its last score wrote

    def trick(self, number: int) -> TrickLog:
        while len(self.tricks) < number:
            self.tricks.append(TrickLog(len(self.tricks) + 1))
        return self.tricks[number - 1]

    def seen_cards(self) -> set[str]:
        return {p.card for t in self.tricks for p in t.plays}


@dataclass(frozen=True, slots=True)
class DeckAdvice:
    """The cards read more like ``like`` than like ``chosen`` (each a learnt deck's name, or
    None: the standard readers; ``hakam.vision.deck_check``)."""

    chosen: str | None
    like: str | None

    def said(self) -> str:
        """The advice in a line: the deck chosen and the one the cards read like ('-': the
        standard readers)."""
        return f"{self.chosen or '-'} > {self.like or '-'}"


@dataclass(frozen=True, slots=True)
class Detection:
    """One card read in a frame: what the detector says it is, where, and whose it is."""

    card: str
    conf: float
    box: tuple[float, float, float, float]
    seat: int | None = None

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Detection:
        x1, y1, x2, y2 = (float(v) for v in d["box"])
        seat = d.get("seat")
        return cls(str(d["card"]), float(d.get("conf", 0.0)), (x1, y1, x2, y2), seat)


# Corrections ``by`` these are a person's word (the rest: the pipeline named the card).
PERSON_BY = ("table", "caller", "confirmed", None)
# What a person's exchange left at the other place: the card left over, or the read back.
LEFT_OVER = ("displaced", "overruled", "camera")


class LiveController(Observable):
    """The camera's side of the table: consumes the pipeline's event stream and frames.

    ``on_event`` takes the JSON events of ``hakam.engine.replay`` (deal, void, play, violation,
    trick, score, score_sheet) plus ``uncertain`` and ``correction``; ``on_frame`` takes a BGR frame
    and its detections. A violation raises a warning at once (``alerts`` listeners, for the banner
    and the sound); a finished deal is written on the score sheet.
    """

    def __init__(self, sheet: ScoreSheetController, setup: DealSetupController | None = None):
        super().__init__()
        self.sheet = sheet
        self.setup = setup
        self.deals: dict[int, DealLog] = {}
        self.current: DealLog | None = None
        self.turn: int | None = None
        # By id: the notices answered and rulings confirmed that the pipeline has not taken
        # yet (a refusal opens the one it names again; taking it forgets it).
        self._answered: dict[int, Notice | Warning] = {}
        self.refusal: str | None = None  # why the pipeline did not take the last answer
        # The cards read more like another deck than the one chosen (``hakam.vision.
        # deck_check``): advice for the table, said until the table hides it, then no more in
        # the match, a restart included; nothing to answer, nothing waits.
        self.deck_advice: DeckAdvice | None = None
        self.listening = False  # a camera run takes corrections (the window's feed is on)
        self.table: dict[str, Any] | None = None
        self.table_from_deal = False  # a deal brought the table's geometry (not the panel)
        self.warnings: list[Warning] = []
        self.notices: list[Notice] = []
        self.frame: Any = None
        self.detections: list[Detection] = []
        self.fps: float | None = None
        self.detector_ms: float | None = None
        self.mismatches: list[str] = []
        self.match_over: tuple[list[int], int | None] | None = None  # table mode: decided
        self.not_counted: list[int] = []  # deals played after the match was decided
        # ``restore``: the store's warnings and notices, matched to the events given again
        self._restoring: list[dict[str, Any]] | None = None
        self._alert: list[Callable[[Warning], None]] = []
        self._frame_listeners: list[Listener] = []
        self._correction_listeners: list[Callable[[dict[str, Any]], None]] = []
        self._decision_listeners: list[Callable[[list[dict[str, Any]]], None]] = []
        self._deal_offset = 0

    # --- listeners ----------------------------------------------------------------------

    def subscribe_alert(self, fn: Callable[[Warning], None]) -> None:
        """Called once per new violation, proven or suspected (``Warning.known``): the banner
        and the sound."""
        self._alert.append(fn)

    def subscribe_frame(self, fn: Listener) -> None:
        self._frame_listeners.append(fn)

    def feed_running(self, on: bool) -> None:
        """The window's feed started or ended: a pipeline takes corrections while it runs (a
        feed of a replay has no one listening)."""
        self.listening = on and bool(self._correction_listeners)
        self.notify()

    def subscribe_corrections(self, fn: Callable[[dict[str, Any]], None]) -> None:
        """The pipeline listens here for the table's corrections of uncertain reads."""
        self._correction_listeners.append(fn)

    def subscribe_decisions(self, fn: Callable[[list[dict[str, Any]]], None]) -> None:
        """Called when the table accepts or dismisses a ruling with its ``violation_status``
        event and the deal's ``score`` as the sheet now has it (a tournament's board)."""
        self._decision_listeners.append(fn)

    # --- input --------------------------------------------------------------------------

    def on_frame(self, frame: Any, detections: Iterable[dict[str, Any]]) -> None:
        """A new camera frame (numpy BGR, H x W x 3) and the cards read in it."""
        self.frame = frame
        self.detections = [Detection.from_json(d) for d in detections]
        for fn in list(self._frame_listeners):
            fn()

    def on_stats(self, fps: float | None, detector_ms: float | None) -> None:
        self.fps, self.detector_ms = fps, detector_ms

    def on_events(self, events: Iterable[dict[str, Any] | Event]) -> None:
        for e in events:
            self._handle(e)
        self.notify()

    def on_event(self, event: dict[str, Any] | Event) -> None:
        """One pipeline event (a JSON dict with ``"event"``, or its type)."""
        self._handle(event)
        self.notify()

    def _handle(self, data: dict[str, Any] | Event) -> None:
        e = parse_event(data)
        handler = getattr(self, f"_on_{e.kind}", None) if e.kind else None
        if handler is not None:
            handler(e)

    def _deal_no(self, e: Event) -> int:
        if e.deal is not None:
            return int(e.deal)
        return self.current.number if self.current else 1

    def seats_before_play(self, table: dict[str, Any] | None) -> None:
        """Table mode, before the match's first deal is played: where the seats are as the
        table's calibration and the dealer picked in the panel place them (a deal played
        brings its own, the same for the whole match; a void deal brings none)."""
        if self.table_from_deal:
            return
        self.table = table
        self.notify()

    def restore(self, events: Iterable[dict[str, Any]]) -> None:
        """After a restart: the deals of the match as the window logged their events (plays,
        tricks, evidence: the Dispute tab opens them), with their rulings and notices as the
        store has them, decided or not. Nothing is written: the sheet and the store have it."""
        self._restoring = self.sheet.store.warnings(self.sheet.match_id)
        try:
            for e in events:
                self._handle(e)
        finally:
            self._restoring = None
        self.notify()

    def _stored(self, deal: int, kind: str, same: Callable[[dict[str, Any]], bool]) -> Any:
        """While restoring: the store's warning of this event (taken, so each is matched once)."""
        assert self._restoring is not None
        for row in self._restoring:
            if row["deal"] == deal and row["kind"] == kind and same(row["data"]):
                self._restoring.remove(row)
                return row
        return None

    def _on_deal(self, e: DealStarted) -> None:
        n = self._deal_no(e)
        if e.extra.get("resumed") and n in self.deals:  # the deal goes on after a restart
            self.current = self.deals[n]
            return
        bids = [(int(s), str(c)) for s, c in e.bids]
        log = DealLog(n, int(e.dealer), e.open_card, bids, e.contract)
        self.deals[n] = log
        self.current = log
        self.refusal = None  # a refusal of an answer of the last deal: said
        self.turn = (log.dealer + 1) % 4
        # The pipeline's calibration and play area, in frame pixels (None: no camera geometry,
        # as a void deal's: the seats as they were shown stay).
        if e.table is not None:
            self.table, self.table_from_deal = e.table, True
        # The demo's void deal opens the panel with its open card (in table mode the panel
        # bid it already, and the next deal's open card comes from the camera).
        if (
            self.setup is not None
            and e.open_card
            and log.contract is None
            and not (self.setup.table_mode)
            and self._restoring is None
        ):
            if self.setup.phase in ("dealer", "open"):
                self.setup.set_dealer(log.dealer)
            self.setup.on_camera_open_card(e.open_card)

    def _on_open_card(self, e: OpenCardSeen) -> None:
        """Table mode: the next deal's open card read while the table bids: the panel has it."""
        if e.waiting and self.setup is not None and self._restoring is None:
            self.setup.on_camera_open_card(e.card)

    def _on_match(self, e: MatchOver) -> None:
        self.match_over = (list(e.match), e.winner)

    def _on_void(self, e: DealVoid) -> None:
        log = self.deals.get(self._deal_no(e))
        if log is not None and self._restoring is not None:
            self._link(log)
            return
        if log is None or log.sheet_index is not None or self._after_match(log):
            return
        entry = DealEntry(
            log.dealer, None, open_card=log.open_card, bids=tuple(log.bids), source="camera"
        )
        log.sheet_index = self.sheet.add(entry)

    def _on_play(self, e: CardPlayed) -> None:
        log = self.deals.get(self._deal_no(e)) or self.current
        if log is None:
            return
        trick = log.trick(int(e.trick))
        trick.plays.append(
            Play(
                int(e.seat),
                str(e.card),
                bool(e.ekka),
                e.evidence,
                provenance=e.provenance,
                probability=e.probability,
                named_by=e.named_by,
            )
        )
        # The seat the deal waits for (after a card out of turn, the first seat from the
        # leader that has not played); events written before it was said: the next seat.
        self.turn = (int(e.seat) + 1) % 4 if e.turn is None else int(e.turn)

    def _on_trick(self, e: TrickWon) -> None:
        log = self.deals.get(self._deal_no(e)) or self.current
        if log is None:
            return
        trick = log.trick(int(e.trick))
        trick.winner = int(e.winner)
        trick.points = int(e.points)
        log.tricks_won[trick.winner % 2] += 1
        if e.card_points is not None:
            log.card_points = [int(x) for x in e.card_points]
        self.turn = None if trick.number == 8 else trick.winner  # the winner leads the next

    def _on_violation(self, e: ViolationRuled) -> None:
        deal = self._deal_no(e)
        data = {"trick": e.trick, "seat": e.seat, "card": e.card, "rule": e.rule,
                "proof": e.proof, "text": e.text, "status": e.status}  # fmt: skip
        if self._restoring is not None:
            key = ("trick", "seat", "card", "rule")
            row = self._stored(deal, "violation", lambda d: all(d[k] == data[k] for k in key))
            if row is None:
                return
            wid, status = int(row["id"]), str(row["status"])
        else:
            wid = self.sheet.store.add_warning(self.sheet.match_id, deal, "violation", data)
            status = "open"
        confirmed = status == "confirmed"  # a person confirmed what it rests on: still open
        w = Warning(
            wid, deal, int(e.trick), int(e.seat), str(e.rule), e.card, e.proof, str(e.text),
            status="open" if confirmed else status, known="proven" if confirmed else e.status,
            question=None if confirmed else e.question, confirmed=confirmed,
        )  # fmt: skip
        self.warnings.append(w)
        if self._restoring is None:
            for fn in list(self._alert):
                fn(w)

    def _same(self, w: Warning, e: ViolationRuled) -> bool:
        key = (e.trick, e.seat, e.rule, e.card)
        return w.deal == self._deal_no(e) and (w.trick, w.seat, w.rule, w.card) == key

    def _on_violation_status(self, e: ViolationRestated) -> None:
        """A ruling's footing changed: a play it rests on was named or confirmed."""
        for w in self.warnings:
            if self._same(w, e) and w.status in ("open", "accepted"):
                if self._restoring is not None:  # the store has what the table decided since
                    if not w.confirmed:  # a person's confirmation the pipeline may not have had
                        w.known, w.question = e.status, e.question
                    continue
                if e.status == "suspected" and (w.status == "accepted" or w.confirmed):
                    # accepted or confirmed as proven, now resting on a guess (a later
                    # correction moved what it rested on): asked again, scoring nothing
                    w.status, w.confirmed = "open", False
                    self.sheet.store.decide_warning(w.id, "open")
                w.known, w.question = e.status, e.question
                self._rescore(w.deal)

    def _on_withdrawn(self, e: ViolationWithdrawn) -> None:
        """A correction showed a ruling wrong (the pipeline refereed the deal again)."""
        for w in self.warnings:
            # an accepted or dismissed ruling too: it no longer stands (the table's decision is
            # kept in the store beside it)
            if self._same(w, e) and w.status in ("open", "accepted", "dismissed"):
                decided = {"decided": w.status} if w.status != "open" else None
                self._decide(w, "withdrawn", decided)

    def _on_uncertain(self, e: Uncertain) -> None:
        if e.extra.get("about") == "deck":  # advice, not a read to correct: no notice to tap
            chosen, like = e.extra.get("deck"), e.extra.get("like")
            advice = DeckAdvice(
                None if chosen is None else str(chosen), None if like is None else str(like)
            )
            if self.sheet.store.setting(self._hidden_key()) is None:
                # Once the table hid the advice, it is not said again in this match (a restart
                # replays the event log, and a new reader tells it again).
                self.deck_advice = advice
            return
        deal = self._deal_no(e)
        data = {"seat": e.seat, "text": e.text, "trick": e.trick}
        status = "open"
        if str(e.text).startswith(REFUSED):
            # The pipeline refused the table's answer and changed nothing: its notice is open
            # again, and the refusal is said (a line, not a notice: there is nothing to answer).
            self._refused(e.answer)
            if self._restoring is None:
                self.refusal = str(e.text)
            return
        if self._restoring is None and any(
            n.status == "open" and n.deal == deal and n.text == e.text for n in self.notices
        ):
            return  # said again word for word while open: one notice
        if e.confirm_trick is not None and self._restoring is None:
            same = next((n for n in self.notices if n.status == "open" and n.deal == deal
                         and n.confirm_trick == e.confirm_trick), None)  # fmt: skip
            if same is not None:  # the trick asked again while its notice is open: said anew
                same.text = str(e.text)
                self.sheet.store.decide_warning(same.id, "open", {"text": same.text})
                return
        if self._restoring is not None:
            row = self._stored(deal, "uncertain", lambda d: d.get("text") == e.text)
            if row is None:
                return
            nid, status = int(row["id"]), str(row["status"])
        else:
            nid = self.sheet.store.add_warning(self.sheet.match_id, deal, "uncertain", data)
        seat = None if e.seat is None else int(e.seat)
        self.notices.append(
            Notice(
                nid,
                deal,
                seat,
                str(e.text),
                e.trick,
                status=status,
                guesses=tuple(e.guesses or ()),
                confirm_trick=e.confirm_trick,
            )
        )

    def _on_correction(self, e: Correction) -> None:
        """The pipeline (or the table) says a read card was another card."""
        deal = self._deal_no(e)
        if e.answer is not None:
            self._answered.pop(e.answer, None)  # the pipeline took the table's answer
        log = self.deals.get(deal)
        if log is not None and e.trick is not None:
            # The play it names: a seat may have two in a trick (one read at the wrong seat).
            seat = e.seat if e.from_seat is None else e.from_seat
            at = [p for p in log.trick(int(e.trick)).plays if p.seat == seat]
            was = e.card if e.from_seat is not None or e.by == "confirmed" else e.replaces
            play = next((p for p in at if p.card == was), at[0] if at else None)
            if play is not None:
                play.confirmed = e.by == "confirmed"
                play.seat, play.card = int(e.seat), str(e.card)  # type: ignore[arg-type]
                # "camera": a person's exchange undone, the card read there is back
                play.provenance = {"camera": "seen"}.get(
                    str(e.by), "person" if e.by in PERSON_BY else "named"
                )
                play.probability = e.probability  # the renaming's, where it was weighed
                play.named_by = e.by if play.provenance == "named" else None
        if e.trick is not None and (e.by in PERSON_BY or e.by in LEFT_OVER):
            # A trick asked, its cards changed by a person: asked again if still in doubt.
            for n in self.notices:
                if (n.status, n.deal, n.confirm_trick) == ("open", deal, e.trick):
                    n.status = "corrected"
                    if self._restoring is None:
                        self.sheet.store.decide_warning(n.id, "corrected", {"card": str(e.card)})
        for n in self.notices:
            if e.by in LEFT_OVER:
                break  # the card a person's correction left over answers no notice
            same_trick = n.trick is None or e.trick is None or n.trick == e.trick
            if n.status == "open" and n.seat == e.seat and n.deal == deal and same_trick:
                # A card the pipeline named as the only one left is not a person's correction.
                status = {
                    "elimination": "eliminated",
                    "rules": "deduced",
                    "reader": "read_unsurely",
                    "same-result": "same_result",
                    "fewest": "fewest_broken",
                    "reads": "read_sparsely",
                    "conflict": "renamed",
                    "exchange": "exchanged",
                    "confirmed": "confirmed",
                }.get(e.by or "", "corrected")
                n.status, n.card = status, str(e.card)
                if self._restoring is None:
                    self.sheet.store.decide_warning(n.id, status, {"card": n.card})

    def _link(self, log: DealLog) -> None:
        """While restoring: the sheet's row of the deal (table mode: deal n is row n)."""
        if log.number <= len(self.sheet.sheet.deals):
            log.sheet_index = log.number - 1

    def _after_match(self, log: DealLog) -> bool:
        """A deal played after the match was decided: said once, never counted."""
        if log.sheet_index is not None or self.sheet.finished is None:
            return False
        if log.number not in self.not_counted:
            self.not_counted.append(log.number)
        return True

    def _on_score(self, e: DealScored) -> None:
        """A complete deal goes on the score sheet (one the camera could not finish waits for
        the table's corrections: its score comes again when they complete it)."""
        log = self.deals.get(self._deal_no(e))
        if log is None or log.contract is None:
            return
        for named in e.named:  # the end weighed the cards named again
            at = [p for p in log.trick(int(named["trick"])).plays
                  if p.seat == named["seat"] and p.provenance == "named"]  # fmt: skip
            play = next((p for p in at if p.card == named["card"]), at[0] if at else None)
            if play is not None:
                play.card, play.probability = str(named["card"]), named.get("probability")
                play.named_by = named.get("named_by", play.named_by)
        self._as_refereed(log, e.tricks)
        if e.asked is not None and self._restoring is None:
            for n in self.notices:  # a trick asked that a correction settled: asked no more
                if (n.status == "open" and n.deal == log.number and n.confirm_trick is not None
                        and n.confirm_trick not in e.asked):  # fmt: skip
                    n.status = "settled"
                    self.sheet.store.decide_warning(n.id, "settled")
        if self._restoring is not None:  # on the sheet already: the deal's row is linked
            self._link(log)
            log.score = e.to_json()
            if e.complete:
                log.camera_line = self._camera_entry(log, e)
            return
        if self._after_match(log):
            return
        if log.sheet_index is not None:  # scored again after a confirmation or a correction
            at = self._camera_line_at(log)
            if e.complete and e.tricks and at is not None:
                # A correction may have changed the cards, the tricks won and the points: the
                # line is the new score's (not one a person edited or deleted on the sheet).
                log.score = e.to_json()
                log.camera_line = self._camera_entry(log, e)
                self.sheet.replace(at, log.camera_line)
            self._rescore(log.number, e.status == "provisional")
            return
        if e.complete is False:
            return
        log.score = e.to_json()
        log.camera_line = self._camera_entry(log, e)
        log.sheet_index = self.sheet.add(log.camera_line)
        row = self.sheet.rows()[log.sheet_index]
        if e.result is not None and list(row.result) != list(e.result):
            self.mismatches.append(
                f"deal {log.number}: sheet {list(row.result)} vs pipeline {list(e.result)}"
            )

    def _camera_line_at(self, log: DealLog) -> int | None:
        """Where the sheet holds the line the deal's last score wrote, as written (its penalty
        and status aside): None where a person edited or deleted it."""
        if log.camera_line is None:
            return None
        lines = self.sheet.sheet.deals
        plain = lambda d: replace(d, penalty=None, provisional=False)  # noqa: E731
        mine = plain(log.camera_line)
        i = log.sheet_index
        if i is not None and i < len(lines) and plain(lines[i]) == mine:
            return i
        found = [i for i, d in enumerate(lines) if plain(d) == mine]
        if len(found) == 1:
            log.sheet_index = found[0]
            return found[0]
        return None

    def _camera_entry(self, log: DealLog, e: DealScored) -> DealEntry:
        """The sheet's line of a complete deal from its score event."""
        contract = Contract.from_json(log.contract)
        points = log.card_points
        if e.card_points is not None and (e.tricks or sum(points) != total_card_points(contract)):
            points = list(e.card_points)  # as refereed last (a replay sends them with the trick)
        score = {**e.to_json(), "card_points": points, "tricks_won": log.tricks_won}
        return camera_entry(log.dealer, log.contract, score, self._penalty(log.number),
                            log.open_card, tuple(log.bids))  # fmt: skip

    @staticmethod
    def _as_refereed(log: DealLog, tricks: list[dict[str, Any]]) -> None:
        """The deal's tricks as the pipeline refereed them last (its score event): a correction
        or the deal's end may have put a card in turn (the order of a trick's plays) and so
        changed who won a trick; the dispute view and the audit show the deal as scored."""
        for n, t in enumerate(tricks, 1):
            trick = log.trick(n)
            by_card = {p.card: p for p in trick.plays}
            by_seat = {p.seat: p for p in trick.plays}
            if sorted(by_card) == sorted(t["cards"]) and len(by_card) == len(trick.plays):
                trick.plays = [by_card[c] for c in t["cards"]]  # a play moved: its seat too
                for p, seat in zip(trick.plays, t["seats"], strict=True):
                    p.seat = int(seat)
            elif len(by_seat) == len(trick.plays) and sorted(by_seat) == sorted(t["seats"]):
                trick.plays = [by_seat[s] for s in t["seats"]]
                for p, card in zip(trick.plays, t["cards"], strict=True):
                    p.card = str(card)
            trick.winner, trick.points = t.get("winner"), t.get("points")
        if tricks:
            won = [t.winner for t in log.tricks if t.winner is not None]
            log.tricks_won = [sum(1 for w in won if w % 2 == team) for team in (0, 1)]

    def _penalty(self, deal: int) -> dict[str, Any] | None:
        """The first violation of the deal the table has not dismissed decides the score; a
        suspected one only once a person confirms what it rests on (or accepts it)."""
        for w in self.warnings:
            if w.deal != deal or w.status in ("dismissed", "withdrawn"):
                continue
            if w.known == "proven" or w.status == "accepted":
                return {"rule": w.rule, "seat": w.seat, "team": 1 - team_of(w.seat)}
        return None

    def _rescore(self, deal: int, provisional: bool | None = None) -> None:
        """The deal's line on the sheet again, with its penalty (and status) as now known."""
        log = self.deals.get(deal)
        if log is None or log.sheet_index is None or self._restoring is not None:
            return
        entry = self.sheet.sheet.deals[log.sheet_index]
        new = replace(entry, penalty=self._penalty(deal))
        if provisional is not None:
            new = replace(new, provisional=provisional)
        if new != entry:
            self.sheet.replace(log.sheet_index, new)

    def _sheet_score(self, deal: int) -> dict[str, Any] | None:
        """The deal's score as the sheet now has it (after the table's decision), as a score
        event: what a tournament's board shows."""
        log = self.deals.get(deal)
        if log is None or log.sheet_index is None:
            return None
        entry = self.sheet.sheet.deals[log.sheet_index]
        row = self.sheet.rows()[log.sheet_index]
        status = "provisional" if getattr(entry, "provisional", False) else "final"
        return {"type": "score", "deal": deal, "result": list(row.result), "status": status}

    # --- the table's decisions ----------------------------------------------------------

    def _warning(self, wid: int) -> Warning:
        for w in self.warnings:
            if w.id == wid:
                return w
        raise EntryError(f"warning {wid}: not found")

    def accept(self, wid: int) -> None:
        """The table accepts the ruling: the penalty stands (recorded in the match store). A
        suspected ruling accepted is confirmed too (the pipeline is told, as by
        ``confirm_ruling``)."""
        w = self._warning(wid)
        if w.known == "suspected" and w.status != "withdrawn":
            self._confirm(w)
        self._decide(w, "accepted")

    def confirm_ruling(self, wid: int) -> None:
        """A person answers a suspected ruling's question yes (the banner's *Confirm*): the
        pipeline is told what the table confirms, and the ruling is proven: it counts, open for
        the table to accept or dismiss as any proven ruling (recorded as ``confirmed``). A
        confirmation the pipeline refuses asks the ruling again (``_on_uncertain``)."""
        w = self._warning(wid)
        if w.known != "suspected" or w.status != "open":
            raise EntryError(f"ruling {wid}: not a question open to the table")
        self._confirm(w)
        self.sheet.store.decide_warning(w.id, "confirmed")
        self._rescore(w.deal)
        self.notify()

    def _confirm(self, w: Warning) -> None:
        """Tell the pipeline a person confirms what ``w`` rests on; ``w`` is proven (its
        question kept, should the pipeline refuse)."""
        self._answered[w.id] = w
        self._send_confirmation(w.deal, w.trick, w.seat, w.rule, w.card, answer=w.id)
        w.known, w.confirmed = "proven", True
        self._tell_board(w, "proven")

    def _refused(self, answer: int | None) -> None:
        """The pipeline refused an answer and changed nothing: a notice answered is open again;
        a ruling confirmed is suspected again, as the pipeline has it (an accepted one stays
        accepted: that was the table's decision)."""
        asked = self._answered.pop(answer, None) if answer is not None else None
        if isinstance(asked, Notice):
            asked.status, asked.card = "open", None
            if self._restoring is None:
                self.sheet.store.decide_warning(asked.id, "open")
        elif isinstance(asked, Warning) and asked.confirmed:
            asked.known, asked.confirmed = "suspected", False
            if self._restoring is None and asked.status == "open":
                self.sheet.store.decide_warning(asked.id, "open")
            self._rescore(asked.deal)
            self._tell_board(asked, "suspected")

    def _send_confirmation(
        self, deal: int, trick: int, seat: int | None, rule: str | None, card: str | None,
        answer: int | None = None,
    ) -> dict[str, Any]:  # fmt: skip
        """Tell the pipeline what the table confirms (its corrections queue takes it);
        ``answer``: the notice it answers, which a refusal names."""
        event = {"event": "confirm", "confirm": True, "deal": deal, "trick": trick,
                 "seat": seat, "rule": rule, "card": card,
                 **({"answer": answer} if answer is not None else {})}  # fmt: skip
        self.refusal = None
        for fn in list(self._correction_listeners):
            fn(event)
        return event

    def hide_deck_advice(self) -> None:
        """The table has read the deck advice (it chose the deck it meant): said no more in
        this match, a restart included."""
        if self.deck_advice is not None:
            self.sheet.store.set_setting(self._hidden_key(), self.deck_advice.said())
        self.deck_advice = None
        self.notify()

    def _hidden_key(self) -> str:
        return f"deck_advice_hidden|{self.sheet.match_id}"

    def dismiss(self, wid: int) -> None:
        """The table overrules the warning: the deal is scored as played if nothing else."""
        self._decide(self._warning(wid), "dismissed")

    def _decide(self, w: Warning, status: str, extra: dict[str, Any] | None = None) -> None:
        w.status = status
        if self._restoring is None:
            self.sheet.store.decide_warning(w.id, status, extra)
        self._rescore(w.deal)
        self._tell_board(w, status)
        self.notify()

    def _tell_board(self, w: Warning, status: str) -> None:
        """The ruling's new status and the deal's score as the sheet now has it."""
        if self._restoring is not None:
            return
        said = [{"type": "violation_status", "deal": w.deal, "trick": w.trick,
                 "seat": w.seat, "rule": w.rule, "card": w.card, "status": status}]  # fmt: skip
        score = self._sheet_score(w.deal)
        for fn in list(self._decision_listeners):
            fn([*said, *([score] if score else [])])

    def open_warnings(self) -> list[Warning]:
        return [w for w in self.warnings if w.status == "open"]

    def open_notices(self) -> list[Notice]:
        return [n for n in self.notices if n.status == "open"]

    def possible_cards(self, notice: Notice | None = None) -> list[str]:
        """Cards not yet seen in the deal: the short list for a one-click correction, the
        reader's candidates for this card first."""
        deal = notice.deal if notice is not None else (self.current.number if self.current else 0)
        log = self.deals.get(deal)
        seen = log.seen_cards() if log is not None else set()
        first = [g for g in (notice.guesses if notice else ()) if g in CARD_NAMES]
        return list(dict.fromkeys(c for c in [*first, *CARD_NAMES] if c not in seen))

    def confirm_trick(self, nid: int) -> dict[str, Any]:
        """The table confirms a trick in doubt as the record has it; the pipeline is told."""
        notice = next((n for n in self.notices if n.id == nid), None)
        if notice is None or notice.confirm_trick is None:
            raise EntryError(f"notice {nid}: no trick to confirm")
        notice.status = "confirmed"
        self._answered[notice.id] = notice
        self.refusal = None
        self.sheet.store.decide_warning(nid, "confirmed")
        event = self._send_confirmation(
            notice.deal, notice.confirm_trick, None, None, None, answer=notice.id
        )
        self.notify()
        return event

    def trick_plays(self, deal: int, trick: int) -> list[tuple[int, str | None]]:
        """The seats and cards recorded in ``trick`` of ``deal``, in the order played, then each
        seat with no card there (None: a card read at another seat may be its)."""
        log = self.deals.get(deal)
        if log is None or not 1 <= trick <= len(log.tricks):
            return []
        plays: list[tuple[int, str | None]] = [(p.seat, p.card) for p in log.trick(trick).plays]
        return plays + [(s, None) for s in range(4) if s not in {seat for seat, _ in plays}]

    def correct_play(
        self, deal: int, trick: int, seat: int, card: str, replaces: str | None = None
    ) -> dict[str, Any]:
        """A person corrects a play of any trick (the dispute view: a player disputes what the
        record says); the pipeline gets the correction and says why in one line if it cannot
        take it."""
        try:
            name = str(parse_card(card))
        except CardError as exc:
            raise EntryError(f"correction: {exc}") from None
        if not self.listening:
            raise EntryError("correction: no camera run takes corrections now; edit the sheet")
        return self._send_correction(deal, trick, seat, name, replaces)

    def _send_correction(
        self, deal: int, trick: int | None, seat: int | None, card: str, replaces: str | None,
        answer: int | None = None,
    ) -> dict[str, Any]:  # fmt: skip
        """Tell the pipeline the table's correction (its corrections queue takes it);
        ``answer``: the notice it answers, which a refusal names."""
        event = {
            "event": "correction", "deal": deal, "trick": trick, "seat": seat, "card": card,
            **({"replaces": replaces} if replaces is not None else {}),
            **({"answer": answer} if answer is not None else {}),
        }  # fmt: skip
        self.refusal = None
        for fn in list(self._correction_listeners):
            fn(event)
        self.notify()
        return event

    def correct(
        self, nid: int, card: str, seat: int | None = None, replaces: str | None = None
    ) -> dict[str, Any]:
        """The table picks the card of an uncertain read (``seat``: of that seat's play in the
        notice's trick, a trick in doubt answered "correct a card"; ``replaces``: the card the
        record has there, where the seat has two); the pipeline gets a correction. The notice
        opens again if the pipeline refuses it."""
        try:
            name = str(parse_card(card))
        except CardError as exc:
            raise EntryError(f"correction: {exc}") from None
        notice = next((n for n in self.notices if n.id == nid), None)
        if notice is None:
            raise EntryError(f"notice {nid}: not found")
        notice.status, notice.card = "corrected", name
        self.sheet.store.decide_warning(nid, "corrected", {"card": name})
        self._answered[notice.id] = notice
        seat = notice.seat if seat is None else seat
        return self._send_correction(notice.deal, notice.trick, seat, name, replaces, notice.id)

    # --- what the live view shows -------------------------------------------------------

    def current_trick(self) -> TrickLog | None:
        if self.current is None or not self.current.tricks:
            return None
        last = self.current.tricks[-1]
        return last if last.winner is None else None

    def last_trick(self) -> TrickLog | None:
        if self.current is None:
            return None
        done = [t for t in self.current.tricks if t.winner is not None]
        return done[-1] if done else None


# --- dispute -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AuditReport:
    """An independent re-run of the engine's referee over the plays the camera logged."""

    deal: int
    tricks: int
    violations: list[dict[str, Any]]
    card_points: tuple[int, int]
    tricks_won: tuple[int, int]
    result: tuple[int, int] | None
    agrees: bool


class DisputeController:
    """Pick any trick of any deal: its cards with evidence, the ruling and the rule text."""

    def __init__(self, live: LiveController) -> None:
        self.live = live

    def deal_numbers(self) -> list[int]:
        return sorted(n for n, log in self.live.deals.items() if log.contract is not None)

    def tricks(self, deal: int) -> list[TrickLog]:
        log = self.live.deals.get(deal)
        return [] if log is None else list(log.tricks)

    def standing(self, deal: int, trick: int | None = None) -> tuple[list[Warning], int]:
        """The rulings that stand (of ``violations``), each once: the last told of each rule,
        seat, trick and card, unless withdrawn; and how many were withdrawn and not told again.
        A ruling withdrawn after one correction and ruled again after the next stands, as does
        one the table dismissed and the pipeline ruled again (listed as told last)."""
        last: dict[tuple[int, int, str, str | None], Warning] = {}
        for w in self.violations(deal, trick):
            last[(w.trick, w.seat, w.rule, w.card)] = w
        standing = [w for w in last.values() if w.status != "withdrawn"]
        return standing, len(last) - len(standing)

    def violations(self, deal: int, trick: int | None = None) -> list[Warning]:
        """Warnings of the deal; with ``trick``, those played in it or proven by a card of it."""
        out = []
        for w in self.live.warnings:
            if w.deal != deal:
                continue
            proof_trick = (w.proof or {}).get("trick")
            if trick is None or trick in (w.trick, proof_trick):
                out.append(w)
        return out

    def audit(self, deal: int) -> AuditReport:
        """Re-referee the logged deal from scratch and compare with the live warnings."""
        log = self.live.deals.get(deal)
        if log is None or log.contract is None:
            raise EntryError(f"deal {deal}: nothing to audit")
        ref = Referee(Contract.from_json(log.contract))
        try:
            for t in log.tricks:
                for p in t.plays:
                    ref.push(parse_card(p.card), p.seat, p.ekka)
        except (RefereeError, CardError) as exc:
            raise EntryError(f"deal {deal}: {exc}") from None
        found = [v.to_json() for v in ref.violations]
        # A ruling the pipeline withdrew (a correction, or the deal refereed again) stands no
        # more: the audit compares those that stand.
        live = [w.as_violation() for w in self.standing(deal)[0]]
        key = lambda v: (v["trick"], v["seat"], v["rule"], v["card"])  # noqa: E731
        result = None
        if log.sheet_index is not None and log.sheet_index < len(self.live.sheet.rows()):
            result = self.live.sheet.rows()[log.sheet_index].result
        return AuditReport(
            deal=deal,
            tricks=len(ref.tricks),
            violations=found,
            card_points=(ref.card_points[0], ref.card_points[1]),
            tricks_won=(ref.tricks_won[0], ref.tricks_won[1]),
            result=result,
            agrees=sorted(map(key, found)) == sorted(map(key, live)),
        )


def all_cards() -> list[str]:
    """The 32 cards in deck order, for the full correction picker."""
    return [str(c) for c in DECK]
