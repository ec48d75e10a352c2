"""A match refereed from one camera: deal after deal, the dealer rotating, each deal scored.

``MatchPipeline`` runs one ``Pipeline`` per deal on the same frames. A deal ends when its 8th
trick has been collected (none of its cards read for ``deal_end_s``); the next deal then begins
with the set-up the table gives for it (``setups``: the contract, the open card, the projects;
in the window, the bidding panel; headless, one ``--match`` line). A deal all four passed is
void: written, and the deal passes on. The match ends at 152 (``Outcome.match_over``; equal
totals play on): nothing after it is counted. ``checkpoint`` is the whole match's state as JSON,
taken after every frame that changed it; a new process given that state goes on with the deal
in progress (``hakam.vision.checkpoint``).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hakam.engine.cards import CARD_NAMES, CardError, parse_card
from hakam.engine.contract import Contract, ContractError
from hakam.engine.record import InputError, parse_deal_record
from hakam.vision.detections import Detections
from hakam.vision.events import event
from hakam.vision.pipeline import Pipeline
from hakam.vision.seats import Calibration, SeatMap, table_geometry
from hakam.vision.settings import DealSetup, Detector, PipelineError, PipelineSettings
from hakam.vision.sources import Frame
from hakam.vision.tracker import CardTracker
from hakam.vision.zones import PolygonZone

MATCH_STATE_FORMAT = "hakam-match-state/1"
SHEET_FORMAT = "hakam-match-sheet/1"
VOID = "void"


class MatchError(PipelineError):
    """A ``--match`` line or a match state that cannot be used (one line)."""


def parse_setup(data: Any, deal: int, dealer: int, match: tuple[int, int]) -> DealSetup | None:
    """One deal's set-up as the table gives it: a JSON object with ``contract`` (null or
    missing: all four passed, a void deal), ``open_card``, ``bids`` (optional: checked against
    the contract), ``projects``, ``baloot``, and ``dealer`` (optional; when given it must be
    the seat whose turn it is to deal)."""
    where = f"deal {deal}"
    if not isinstance(data, dict):
        raise MatchError(f"{where}: a set-up must be a JSON object")
    unknown = sorted(set(data) - {"contract", "open_card", "projects", "baloot", "dealer", "bids"})
    if unknown:
        raise MatchError(f"{where}: unknown field {unknown[0]!r}")
    if data.get("dealer", dealer) != dealer:
        raise MatchError(
            f"{where}: dealer {data['dealer']} given, but seat {dealer} deals (it rotates)"
        )
    card = data.get("open_card")
    if card is not None:
        try:
            parse_card(card)
        except (CardError, TypeError):
            raise MatchError(f"{where}: open_card {card!r} is not a Baloot card") from None
    raw = data.get("contract")
    if raw is None:
        _check_void(data, deal, dealer, match)
        return None
    if not isinstance(raw, dict):
        raise MatchError(f"{where}: contract must be a JSON object or null")
    if raw.get("dealer", dealer) != dealer:
        raise MatchError(f"{where}: the contract's dealer is {raw['dealer']}, seat {dealer} deals")
    record = {
        "format": "hakam-deal/1",
        "dealer": dealer,
        "open_card": data.get("open_card"),
        "contract": {**raw, "dealer": dealer},
        "projects": data.get("projects", []),
        "match": list(match),
    }
    for key in ("baloot", "bids"):
        if key in data:
            record[key] = data[key]
    try:
        Contract.from_json(record["contract"])
        setup = DealSetup.from_record(record)
    except (PipelineError, ContractError) as exc:
        raise MatchError(f"{where}: {str(exc).removeprefix('deal record: ')}") from None
    setup.deal = deal
    return setup


def _check_void(data: dict[str, Any], deal: int, dealer: int, match: tuple[int, int]) -> None:
    """A void deal's line: its bids, when given, must be the passes of a void bidding."""
    if data.get("projects") or data.get("baloot"):
        raise MatchError(f"deal {deal}: a void deal (contract null) has no projects or Baloot")
    if "bids" not in data:
        return
    record = {"format": "hakam-deal/1", "dealer": dealer, "open_card": data.get("open_card"),
              "bids": data["bids"], "contract": None, "match": list(match)}  # fmt: skip
    try:
        parsed = parse_deal_record(record)
    except InputError as exc:
        raise MatchError(f"deal {deal}: {exc}") from None
    if parsed.contract is not None:
        raise MatchError(f"deal {deal}: its bids buy a contract, but the contract is null")


class SetupLines:
    """``--match`` lines, read one deal at a time (a file, or standard input as it comes)."""

    def __init__(self, lines: Any, skip: int = 0) -> None:
        self.lines = iter(lines)
        for _ in range(skip):  # deals already set up before a restart
            self._next_line()

    def _next_line(self) -> str | None:
        for line in self.lines:
            if line.strip() and not line.lstrip().startswith("#"):
                return line
        return None

    def __call__(self, deal: int) -> dict[str, Any] | None:
        """Deal ``deal``'s set-up line as JSON; None when there are no more lines."""
        line = self._next_line()
        if line is None:
            return None
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise MatchError(f"deal {deal}: not valid JSON ({exc.msg})") from None
        return data


@dataclass
class SheetRow:
    """A deal on the match sheet: who dealt, the contract, the score and how it is known."""

    deal: int
    dealer: int
    setup: dict[str, Any]  # the line it was set up with (a restart sets it up again)
    contract: dict[str, Any] | None = None
    result: list[int] | None = None  # None: not scored (incomplete)
    card_points: list[int] | None = None
    penalty: dict[str, Any] | None = None
    status: str = "final"
    record: str | None = None
    score: dict[str, Any] = field(default_factory=dict)  # the pipeline's score event

    def to_json(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k != "score"} | {"score": self.score}

    def take(self, score: dict[str, Any]) -> None:
        """The deal's score event (scored at its end, or again after the table's answer)."""
        self.result, self.card_points = score.get("result"), score.get("card_points")
        self.penalty, self.status = score.get("penalty"), score.get("status", "final")
        self.score = score


class MatchPipeline:
    """Deals refereed one after another from one camera; ``process`` each frame, then
    ``finish``. ``setups(deal)`` gives each deal's set-up (a ``parse_setup`` object), None when
    the table has said nothing more (the match waits)."""

    def __init__(
        self,
        detector: Detector,
        setups: Callable[[int], dict[str, Any] | None],
        *,
        first_dealer: int | None = None,
        calibration: Calibration | None = None,
        roi: PolygonZone | None = None,
        settings: PipelineSettings | None = None,
        out_dir: str | Path | None = None,
        fps: float = 15.0,
        deal_end_s: float = 1.0,
        state: dict[str, Any] | None = None,
        calibration_seat: int | None = None,
    ) -> None:
        self.detector = detector
        self.setups = setups
        # None: the first set-up line's ``dealer`` says who deals first.
        self.first_dealer = first_dealer
        # The seat the calibration marks: the first dealer's, as calibrated at the match's start.
        self.calibration_seat = calibration_seat
        self.calibration, self.roi, self.settings = calibration, roi, settings
        self.out_dir = None if out_dir is None else Path(out_dir)
        self.fps = fps
        self.deal_end_s = deal_end_s
        self.rows: list[SheetRow] = []
        self.deals: dict[int, Pipeline] = {}  # every deal refereed (corrections come late)
        self.lines: dict[int, dict[str, Any]] = {}  # each deal's set-up as the table gave it
        self.current: Pipeline | None = None
        self.over = False
        self.winner: int | None = None
        self.waiting = False  # no set-up for the next deal (yet)
        # While it waits, the camera looks for the next deal's open card (the bidding panel
        # opens with it): the first card that comes to rest is it.
        self.open_card: str | None = None
        self._watch: CardTracker | None = None
        # After a void deal: [its open card (None: not said), seen yet, the first frame of the
        # table read empty]. The next deal waits until that card has been on the table and no
        # card has been read for ``deal_end_s`` (the cards gathered and dealt again), so the
        # void deal's open card is never taken for the next deal's card or a play.
        self._void_wait: list[Any] | None = None
        self.last_detections = Detections.empty()  # the last frame's reads (the live view)
        self.last_detect_ms = 0.0
        self._pending: list[dict[str, Any]] = []
        self.frame = -1  # the last frame processed (a restarted file goes on after it)
        if state is not None:
            self._resume(state)

    # --- the sheet ----------------------------------------------------------------------

    @property
    def totals(self) -> tuple[int, int]:
        a = sum(r.result[0] for r in self.rows if r.result is not None)
        b = sum(r.result[1] for r in self.rows if r.result is not None)
        return (a, b)

    @property
    def next_deal(self) -> int:
        return len(self.rows) + (self.current is not None) + 1

    @property
    def next_dealer(self) -> int | None:
        """Who deals the next deal to set up (None: the first line will say)."""
        if self.first_dealer is None:
            return None
        return (self.first_dealer + self.next_deal - 1) % 4

    def sheet(self) -> dict[str, Any]:
        """The match sheet as JSON (``hakam-match-sheet/1``)."""
        return {
            "format": SHEET_FORMAT,
            "first_dealer": self.first_dealer,
            "deals": [r.to_json() for r in self.rows],
            "match": list(self.totals),
            "match_over": self.over,
            "match_winner": self.winner,
            "in_progress": None if self.current is None else self.current.setup.deal,
        }

    # --- frames -------------------------------------------------------------------------

    def start_events(self) -> list[dict[str, Any]]:
        out, self._pending = self._pending, []
        return out + self._start_next()

    def process(self, frame: Frame) -> list[dict[str, Any]]:
        """The events this frame proves, for the deal in progress (and a deal's end)."""
        self.frame = frame.index
        if self.over:
            return []
        events = self._start_next() if self.current is None else []
        if self.current is None:
            return events + self._watch_open_card(frame)
        events += self.current.process(frame)
        self.last_detections = self.current.last_detections
        self.last_detect_ms = self.current.last_detect_ms
        if self.current.collected_all(self.deal_end_s):
            events += self._end_deal(self.current.finish())
            events += self._start_next()
        return events

    def finish(self) -> list[dict[str, Any]]:
        """The frames are over: the deal in progress is scored as far as it was seen (a
        restart goes on with it)."""
        if self.current is None:
            return []
        events = self.current.finish()
        if self.current.referee.is_over:
            return self._end_deal(events)
        return events

    def asks(self) -> bool:
        """Something the table is still asked about the deal in progress."""
        return self.current is not None and self.current.asks()

    def _watch_open_card(self, frame: Frame) -> list[dict[str, Any]]:
        """Between deals, waiting for the set-up: the first card read lying still is the next
        deal's open card (an ``open_card`` event with ``waiting``, once a deal)."""
        t0 = time.perf_counter()
        dets = self.detector.detect(frame.image)
        if self.roi is not None:
            dets = self.roi.filter(dets)
        self.last_detections = dets
        self.last_detect_ms = 1000 * (time.perf_counter() - t0)
        if self._void_wait is not None:  # after a void deal: its cards must leave first
            return self._after_void(dets, frame.index)
        if self.open_card is not None:
            return []
        if self._watch is None:
            tracker = (self.settings or PipelineSettings()).tracker
            self._watch = CardTracker(tracker, self.fps)
        for ev in self._watch.update(dets, frame.index, frame.time):
            if ev.kind == "accepted" and ev.name is not None:
                self.open_card = ev.name
                return [event("open_card", deal=self.next_deal, card=ev.name, frame=frame.index,
                              time=round(frame.time, 3), box=list(ev.box or ()),
                              waiting=True)]  # fmt: skip
        return []

    def _start_next(self) -> list[dict[str, Any]]:
        events: list[dict[str, Any]] = []
        while self.current is None and not self.over and self._void_wait is None:
            n = self.next_deal
            data = self.setups(n)
            if data is None:
                self.waiting = True
                return events
            if self.first_dealer is None:
                if not isinstance(data, dict) or type(data.get("dealer")) is not int:
                    raise MatchError(f"deal {n}: the first deal's set-up must say its dealer")
                self.first_dealer = (data["dealer"] - n + 1) % 4
            dealer = (self.first_dealer + n - 1) % 4
            seen = self.open_card is not None  # the watch read this deal's open card
            self.waiting, self.open_card, self._watch = False, None, None
            setup = parse_setup(data, n, dealer, self.totals)
            if setup is None:
                events += self._void(n, dealer, data, seen)
            else:
                events += self._open(setup, data).start_events()
        return events

    def table_geometry(self, dealer: int | None) -> dict[str, Any] | None:
        """Where the seats are, for the live view before a deal of this match is played: the
        calibration's point marks the first dealer's seat (``dealer``: the one the table picks,
        where no deal has said); None where that is not known yet."""
        marked = next((s for s in (self.calibration_seat, self.first_dealer, dealer)
                       if s is not None), None)  # fmt: skip
        if self.calibration is None or marked is None:
            return table_geometry(None, self.roi)
        clear = (self.settings or PipelineSettings()).clear_deg
        return table_geometry(SeatMap(self.calibration, marked, clear), self.roi)

    def _open(self, setup: DealSetup, data: dict[str, Any]) -> Pipeline:
        n = setup.deal
        out = None if self.out_dir is None else self.out_dir / f"deal-{n:02d}"
        self.current = Pipeline(
            setup, self.detector, calibration=self.calibration, roi=self.roi,
            settings=self.settings, out_dir=out, fps=self.fps,
            calibration_seat=(
                self.first_dealer if self.calibration_seat is None else self.calibration_seat
            ),
        )  # fmt: skip
        self.lines[n] = data
        self.deals[n] = self.current
        return self.current

    def _after_void(self, dets: Detections, now: int) -> list[dict[str, Any]]:
        card, seen, empty_from = self._void_wait  # type: ignore[misc]
        seen = seen or card is None or bool((dets.class_id == card).any())
        empty_from = None if len(dets) else now if empty_from is None else empty_from
        clear = empty_from is not None and now + 1 - empty_from >= round(self.deal_end_s * self.fps)
        if seen and clear:
            self._void_wait = None
            return []
        self._void_wait = [card, seen, empty_from]
        return []

    def _void(self, n: int, dealer: int, data: dict[str, Any], seen: bool) -> list[dict[str, Any]]:
        """All four passed: written 0-0; the next deal waits for the table to clear."""
        card = data.get("open_card")
        index = None if not isinstance(card, str) else CARD_NAMES.index(str(parse_card(card)))
        self._void_wait = [index, seen or index is None, None]
        self.rows.append(SheetRow(n, dealer, data, result=[0, 0]))
        return [
            event("deal", deal=n, dealer=dealer, open_card=data.get("open_card"),
                  bids=data.get("bids", []), contract=None),
            event("void", deal=n, dealer=dealer),
        ]  # fmt: skip

    def _end_deal(self, events: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The deal in progress is over (``events``: its ``finish``): on the sheet, and the
        match over if it reached 152; returns ``events`` and what the match adds."""
        p = self.current
        assert p is not None
        score = next((e for e in reversed(events) if e["type"] == "score"), None)
        end = next((e for e in reversed(events) if e["type"] == "end"), {})
        n = p.setup.deal
        row = SheetRow(n, p.setup.dealer, self.lines[n], p.setup.contract.to_json())
        if score is not None:
            row.take(score)
        row.record = end.get("record")
        self.rows.append(row)
        self.current = None
        out = list(events)
        if score is not None and score.get("match_over"):
            self.over, self.winner = True, score.get("match_winner")
            out.append(event("match", deal=row.deal, match=list(self.totals), over=True,
                             winner=self.winner))  # fmt: skip
        return out

    # --- the table's answers, for any deal of the match -------------------------------

    def table_correction(
        self, card: str, seat: int | None = None, deal: int | None = None, by: str = "table",
        trick: int | None = None, replaces: str | None = None,
    ) -> list[dict[str, Any]]:  # fmt: skip
        """``Pipeline.table_correction`` on the deal it names (default: the deal on now)."""
        p = self._deal(deal)
        if p is None:
            return self._not_open(deal, seat, "correction")
        return self._rescored(p, p.table_correction(card, seat, None, by, trick, replaces))

    def _not_open(self, deal: int | None, seat: int | None, what: str) -> list[dict[str, Any]]:
        """An answer for a deal this match holds no more (refereed before a restart: only the
        deal in progress is restored), or none yet: refused in one line, nothing changed."""
        why = "no deal is in progress" if deal is None else (
            f"deal {deal} was refereed before a restart; correct it on the score sheet"
            if deal < self.next_deal else f"deal {deal} has not started"
        )  # fmt: skip
        return [event("uncertain", deal=deal, seat=seat, card=None, guesses=[], box=[],
                      text=f"{what}: {why}")]  # fmt: skip

    def table_confirmation(
        self, trick: int, seat: int | None, rule: str | None = None, deal: int | None = None,
        card: str | None = None,
    ) -> list[dict[str, Any]]:  # fmt: skip
        p = self._deal(deal)
        if p is None:
            return self._not_open(deal, seat, "confirmation")
        return self._rescored(p, p.table_confirmation(trick, seat, rule, None, card))

    def _deal(self, deal: int | None) -> Pipeline | None:
        return self.current if deal is None else self.deals.get(deal)

    def _rescored(self, p: Pipeline, events: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """A deal scored again after the table's answer: its row takes the new score."""
        score = next((e for e in reversed(events) if e["type"] == "score"), None)
        row = next((r for r in self.rows if r.deal == p.setup.deal), None)
        if score is not None and row is not None:
            row.take(score)
        return events

    # --- restart --------------------------------------------------------------------------

    def checkpoint(self) -> dict[str, Any]:
        """The match's state (JSON): the sheet, and the deal in progress as far as it went."""
        cur = self.current
        state = {
            "format": MATCH_STATE_FORMAT,
            "first_dealer": self.first_dealer,
            "calibration_seat": self.calibration_seat,
            "rows": [r.to_json() for r in self.rows],
            "over": self.over,
            "winner": self.winner,
            "frame": self.frame,
            # Between deals: the open card read while waiting, and a void deal's wait.
            "open_card": self.open_card,
            "void_wait": self._void_wait,
            "current": None if cur is None else {
                "setup": self.lines[cur.setup.deal],
                "state": cur.checkpoint(),
            },
        }  # fmt: skip
        # A copy, all of it: the window stores it on another thread while the deal goes on.
        return json.loads(json.dumps(state))

    def _resume(self, state: dict[str, Any]) -> None:
        if not isinstance(state, dict) or state.get("format") != MATCH_STATE_FORMAT:
            raise MatchError(f"match state: not a {MATCH_STATE_FORMAT} object")
        try:
            self._restore(state)
        except (KeyError, TypeError, ValueError) as exc:
            if isinstance(exc, MatchError):
                raise
            raise MatchError(f"match state: cannot be used ({type(exc).__name__}: {exc}); "
                             "start a new match") from None  # fmt: skip

    def _restore(self, state: dict[str, Any]) -> None:
        first = state["first_dealer"]
        self.first_dealer = None if first is None else int(first)
        seat = state.get("calibration_seat", self.calibration_seat)
        self.calibration_seat = None if seat is None else int(seat)
        self.rows = [SheetRow(**r) for r in state["rows"]]
        self.over, self.winner = bool(state["over"]), state["winner"]
        self.frame = int(state["frame"])
        self.open_card = state.get("open_card")
        self._void_wait = state.get("void_wait")
        cur = state.get("current")
        if cur is None:
            return
        n = len(self.rows) + 1
        if self.first_dealer is None:
            raise MatchError("match state: a deal in progress, but no first dealer")
        setup = parse_setup(cur["setup"], n, (self.first_dealer + n - 1) % 4, self.totals)
        if setup is None:
            raise MatchError(f"match state: deal {n} in progress has no contract")
        pipeline = self._open(setup, cur["setup"])
        # Given again after a restart, and said so: a reader that kept the deal goes on with it.
        self._pending = [{**e, "resumed": True} for e in pipeline.start_events()]
        pipeline.restore(cur["state"])
