"""Table mode's start screen as plain data: the source, the language, the match to go on with or
a new one, the deck to read with (the standard readers, or a deck the table taught: ``hakam deck
learn``), and the table's calibration (two clicks on a frame of the source). No Qt here."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from hakam.gui.match_store import MatchStore
from hakam.gui.models import EntryError
from hakam.vision.seats import Calibration, CalibrationError


def last_source(store: MatchStore) -> str:
    """The source table mode last started with (camera 0 the first time)."""
    return store.setting("table|last_source") or "0"


def table_key(source: str) -> str:
    """The store's key of the match refereed from ``source`` (``hakam table``)."""
    return f"table|{source}"


def calibration_seat(store: MatchStore, source: str) -> int | None:
    """The seat the saved calibration of ``source`` marks: the first dealer of the first match
    played with it (None: not played with yet; the next match's first dealer it is)."""
    text = store.setting(f"calibration_seat|{table_key(source)}")
    return int(text) if text else None


def bind_calibration_seat(store: MatchStore, source: str, seat: int | None) -> None:
    """The first match played with a calibration says which seat its second click marked."""
    store.set_setting(f"calibration_seat|{table_key(source)}", "" if seat is None else str(seat))


@dataclass(frozen=True)
class StartChoice:
    """What the start screen decided: ``hakam table`` goes on from here."""

    source: str
    language: str
    new_match: bool
    calibration: Calibration
    calibration_seat: int | None  # the seat it marks (None: this match's first dealer)
    deck: str | None = None  # a learnt deck to read with (None: the standard readers)


@dataclass(frozen=True)
class MatchInProgress:
    source: str
    match_id: int
    deals: int  # deals on its sheet
    totals: tuple[int, int]


class StartController:
    """The choices of the start screen; ``start`` checks them (one line each) and saves the
    calibration for the source."""

    def __init__(
        self, store: MatchStore, source: str = "0", language: str = "en",
        decks: Sequence[str] = (),
    ) -> None:  # fmt: skip
        self.store = store
        self.source = source
        self.language = language
        self.new_match = False
        self.points: list[tuple[float, float]] = []  # calibration clicks, frame pixels
        self.frame_size: tuple[int, int] | None = None
        self.decks = list(decks)  # the decks learnt on this machine
        self.deck = self.saved_deck()

    def saved_deck(self) -> str | None:
        """The deck last started with from this source, if it is still learnt."""
        name = self.store.setting(f"deck|{table_key(self.source)}")
        return name if name in self.decks else None

    def set_deck(self, name: str | None) -> None:
        """None: the standard readers alone."""
        if name is not None and name not in self.decks:
            raise EntryError(f"deck: {name!r} is not learnt here (`hakam deck learn`)")
        self.deck = name

    def deck_name_problem(self, name: str) -> str | None:
        """Why a new deck cannot take ``name`` (one line), or None: it can."""
        from hakam.vision.decks import DeckError, check_new_name

        try:
            check_new_name(name, self.decks)
        except DeckError as exc:
            return str(exc)
        return None

    def deck_learnt(self, name: str) -> None:
        """A deck learnt from this screen: offered with the others, and chosen."""
        self.decks = sorted({*self.decks, name})
        self.deck = name

    def matches(self) -> list[MatchInProgress]:
        """The unfinished matches of table mode, newest first."""
        out = []
        for key, match_id, state in self.store.table_runs():
            if not key.startswith("table|"):
                continue
            rows = state.get("rows", [])
            a = sum(r["result"][0] for r in rows if r.get("result"))
            b = sum(r["result"][1] for r in rows if r.get("result"))
            out.append(MatchInProgress(key.removeprefix("table|"), match_id, len(rows), (a, b)))
        return out

    def in_progress(self) -> MatchInProgress | None:
        """The match a start from this source goes on with (unless ``new_match``)."""
        return next((m for m in self.matches() if m.source == self.source), None)

    def saved_calibration(self) -> Calibration | None:
        text = self.store.setting(f"calibration|{table_key(self.source)}")
        if not text:
            return None
        try:
            return Calibration.from_dict(json.loads(text), "saved calibration")
        except (CalibrationError, ValueError):
            return None

    def set_source(self, source: str) -> None:
        """Another camera or video: its own deck where it was started with one still learnt
        (or with the standard readers), else the deck chosen stays."""
        self.source = source.strip()
        self.points = []
        kept = self.store.setting(f"deck|{table_key(self.source)}")
        if kept == "" or kept in self.decks:  # (a deck forgotten since: the choice stays)
            self.deck = kept or None

    def set_language(self, code: str) -> None:
        if code not in ("en", "ar"):
            raise EntryError(f"language: {code!r} (en or ar)")
        self.language = code

    def click(self, x: float, y: float, frame_size: tuple[int, int]) -> int:
        """A click on the source's frame (frame pixels): the centre, then the first dealer's
        seat; a third starts again. Returns how many points are set."""
        if len(self.points) == 2:
            self.points = []
        self.frame_size = frame_size
        self.points.append((float(x), float(y)))
        return len(self.points)

    def recalibrate(self) -> None:
        self.points = []

    def start(self) -> StartChoice:
        """The choice, or an ``EntryError`` saying in one line what is missing."""
        if not self.source:
            raise EntryError("source: give a camera number (0, 1, ...) or a video file")
        calibration = self.saved_calibration()
        if len(self.points) == 2:
            try:
                calibration = Calibration(self.points[0], self.points[1], False, self.frame_size)
            except CalibrationError as exc:
                raise EntryError(f"calibration: {exc}") from None
            self.store.set_setting(
                f"calibration|{table_key(self.source)}", json.dumps(calibration.to_dict())
            )
            bind_calibration_seat(self.store, self.source, None)  # a new one: not played yet
        elif self.points:
            raise EntryError("calibration: click the table's centre, then the first dealer's seat")
        if calibration is None:
            raise EntryError(
                "calibration: click the table's centre, then the first dealer's seat, on the frame"
            )
        seat = calibration_seat(self.store, self.source)
        self.store.set_setting(f"deck|{table_key(self.source)}", self.deck or "")
        self.store.set_setting("table|last_source", self.source)  # the screen opens on it
        return StartChoice(self.source, self.language, self.new_match, calibration, seat, self.deck)
