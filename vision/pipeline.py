"""The live referee: frames → detections → card tracker → seats → engine referee → events.

``Pipeline.process(frame)`` returns the events that frame proves; every accepted card goes to
``hakam.engine.referee.Referee`` at once, so a violation is reported the moment its proof is seen.
The
run keeps the ``hakam-deal/1`` record (written after every trick and at the end) and a JPEG crop
of the frame for every accepted card: ``hakam referee`` on that record gives the live ruling.
"""

from __future__ import annotations

import copy
import itertools
import json
import queue
import time
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Protocol

import cv2
import numpy as np

from hakam.engine.cards import CARD_NAMES, DECK, Card, CardError, parse_card
from hakam.engine.contract import Contract
from hakam.engine.record import FORMAT, InputError, parse_deal_record
from hakam.engine.referee import ProjectClaim, Referee, Violation
from hakam.engine.rules import PROFILES, SAUDI, RuleProfile
from hakam.vision.detections import Detections, box_iou
from hakam.vision.events import event, uncertain_text
from hakam.vision.provenance import (
    NAMED_BY,
    PROVEN,
    Play,
    question,
    score_status,
    violation_status,
)
from hakam.vision.seats import Calibration, SeatMap, attribute
from hakam.vision.sources import Frame
from hakam.vision.tracker import CardState, CardTracker, TrackerSettings, TrackEvent
from hakam.vision.zones import PolygonZone

# The earlier play is renamed only if its reads gave the new name at least this belief: two sure
# reads of one card with no doubt in the earlier one leave the decision to a person.
CONFLICT_FLOOR = 0.05
# ... and only if that way out is at least this many times likelier than the other (two reads
# sure of one card, with a few hundredths on others, are not renamed on a near-even guess).
CONFLICT_MARGIN = 2.0
GUESSES = 5  # cards a notice offers first for a card the deal waits for
# Marks a way's result where two cards not read may lie at each other's places, same result.
IN_DOUBT = " (places in doubt)"
# A card's result where the clean ways on from it (later cards not read) give different ones.
OPEN = "open"
# At the end of a deal, up to this many cards not read are named by the rules (each way of
# placing them is played out on a copy of the deal): more would be a guess among many ways.
DEDUCE_MAX = 5
# How a card not read is named without a person: the only one left, the only way that keeps the
# rules, the way the reads there favour among those, one of ways that give one result, or, when
# no way keeps the rules, the one way that breaks the fewest where the reads favour it too.
DEDUCED = ("elimination", "rules", "reader", "same-result", "fewest")
UNREAD = (*DEDUCED, "correction")  # plays of cards the camera did not read (a person named some)


# A way of placing cards not read, played to the end: the first card named, the violations of
# the complete deal, its result, (violations, whether a misread was exchanged) to rank it, and
# whether the later namings on the way would take it (``_completions``).
_Way = tuple[int, list[Violation], str, tuple[int, bool], bool]


def conflict_swap(
    earlier: np.ndarray, later: np.ndarray, card: int, possible: Collection[int]
) -> int | None:
    """Two reads claim ``card``, which the deck holds once: the earlier play's and a later
    one's. The likelier of the two ways out, by each read's belief over the 32 cards: the
    earlier read was wrong (it becomes its likeliest ``possible`` card, the later read is
    ``card``), or the later one is (it is a possible card, the earlier play stands). Returns
    the earlier play's new card when that way is ``CONFLICT_MARGIN`` times likelier, or None
    where it stands (or no card is possible for it)."""
    cand = np.array(sorted(possible), np.int64)
    if not len(cand):
        return None
    other = int(cand[np.argmax(earlier[cand])])
    if earlier[other] < CONFLICT_FLOOR:
        return None  # the earlier reads never took it for another card that is still possible
    if earlier[other] * later[card] > CONFLICT_MARGIN * earlier[card] * float(later[cand].max()):
        return other
    return None


def box_centre(box: Sequence[float]) -> tuple[float, float]:
    """Where a card lies, for its seat: the centre of its (x1, y1, x2, y2) box."""
    return (box[0] + box[2]) / 2, (box[1] + box[3]) / 2


def _whatever_card(v: Violation) -> str:
    """A violation's rule, seat and trick: the play that broke the rule, whatever card it names
    and whichever card proves it (a way that names a card not read may prove the same revoke by
    that card, where another way proves it by a later card read)."""
    return json.dumps([v.rule, v.seat, v.trick])


def _made_before(
    v: Violation, made: Collection[tuple[int, int, str]], named: Collection[str]
) -> bool:
    """A violation on a play the camera read before cards left unread were named, and proven
    by a card read (not one of ``named``): no way of placing those cards made it. It was
    committed before the first of them was played, and the cards a seat held are known from
    what it played; only the proof was to come."""
    if v.rule == "out-of-turn" or v.card is None:
        return False
    if v.proof is not None and str(v.proof[1]) in named:
        return False
    return (v.trick, v.seat, str(v.card)) in made


def _proven_by_a_read(v: Violation, plays: Sequence[Play]) -> Violation:
    """``v`` with a card read for its proof where its proof was not read and a card read proves
    it too: one the seat played later, read by the camera, that the duty asked for
    (``Violation.proves``). A way that names a card not read where the first proof lay still
    holds a revoke proven by a later card read, made before the naming (``_made_before``)."""
    if v.proof is None or not v.proves:
        return v
    read = [p for p in plays if p.seat == v.seat and p.trick > v.trick and p.source == "camera"]
    if any(p.trick == v.proof[0] for p in read):
        return v  # its proof was read
    other = next((p for p in read if DECK[p.card] in v.proves), None)
    return v if other is None else replace(v, proof=(other.trick, DECK[other.card]))


def best_in_play(probs: np.ndarray, gone: Collection[int]) -> tuple[np.ndarray, np.ndarray]:
    """Each belief row's likeliest card not in ``gone`` and that card's share of what is left
    (as ``hakam.vision.reader.rule_out``, without its drop)."""
    probs = np.atleast_2d(probs)
    idx = np.fromiter(gone, np.int64)
    rest = np.clip(1.0 - probs[:, idx].sum(1), 1e-9, None)
    p = probs.copy()
    p[:, idx] = 0.0
    best = p.argmax(1)
    return best, p[np.arange(len(best)), best] / rest


def read_as_in_play(seen: Detections, gone: Collection[int]) -> Detections:
    """Reads of cards already played that are not them: each box named as its likeliest card
    not in ``gone``, with that card's share of what is left (``best_in_play``)."""
    best, conf = best_in_play(seen.probs, gone)  # type: ignore[arg-type]
    return Detections(seen.xyxy, conf, best, probs=seen.probs)


@dataclass
class _Sighting:
    """Reads of one card already played, lying where no accepted card does (``_conflict``)."""

    since: int  # first frame of this run of sightings
    items: list[tuple[int, np.ndarray]] = field(default_factory=list)  # (frame, box) in window
    total: np.ndarray | None = None  # sum of the reads' beliefs since ``since``
    n: int = 0
    settled: bool = False  # read still for a vote window (as of the last frame seen)

    def belief(self) -> np.ndarray | None:
        return None if self.total is None else self.total / self.n


class PipelineError(ValueError):
    """A deal set-up or correction the pipeline cannot use (one line)."""


class Detector(Protocol):
    """Anything that reads the cards of a frame."""

    def detect(self, image: np.ndarray, ruled_out: Collection[int] = ()) -> Detections: ...


@dataclass
class DealSetup:
    """What the camera cannot see: dealer, contract, announced projects, the match score."""

    dealer: int
    contract: Contract
    open_card: Card | None = None
    projects: list[ProjectClaim] = field(default_factory=list)
    baloot: list[int] | None = None
    match: tuple[int, int] = (0, 0)
    profile: RuleProfile = SAUDI
    deal: int = 1

    @classmethod
    def from_record(cls, data: Any) -> DealSetup:
        """Take the set-up from a ``hakam-deal/1`` record (its tricks are ignored)."""
        if not isinstance(data, dict):
            raise PipelineError("deal record: must be a JSON object")
        clean = {k: v for k, v in data.items() if k not in ("tricks", "ekka")}
        try:
            rec = parse_deal_record(clean)
        except InputError as exc:
            raise PipelineError(f"deal record: {exc}") from None
        if rec.contract is None:
            raise PipelineError("deal record: a void deal has no play to referee")
        return cls(
            rec.dealer, rec.contract, rec.open_card, rec.projects, rec.baloot, rec.match,
            rec.profile,
        )  # fmt: skip


@dataclass(frozen=True)
class PipelineSettings:
    tracker: TrackerSettings = field(default_factory=TrackerSettings)
    read_open_card: bool = True  # the first card accepted is the open bidding card
    clear_deg: float = 30.0  # a card within this of a seat's direction faces that seat
    crop_pad: float = 0.3  # evidence crop margin, share of the box size
    collect_gap: int = 2  # frames all trick cards must be unread for a new lead to collect it
    # A card clearly in front of a seat that is not on turn waits this long for the turn seat's
    # card (a real detector misses cards) before it counts as out of turn; if unexplained reads
    # lie in front of the seat on turn, that seat's card is there unread: the deal waits for it
    # (an ``uncertain`` event; ``correct`` resumes it) instead of ruling on a guess. 0: at once.
    hold_s: float = 1.0
    # True: a card at a later seat always waits for the seat on turn (a missed read is likelier
    # than a player out of turn); out of turn then needs a person's correction to be ruled.
    assume_missed: bool = False
    # Every one of the 32 cards is played in a deal: once all but one have been read, the card
    # the deal waits for can only be that one, and is played as a correction "by" "elimination"
    # (also the deal's last card when the clip ends without it being read: it is forced). At the
    # end of the clip, with two to five cards not read, each way of placing them is played out
    # and the one way that makes no violation is taken ("by" "rules"; a misread elsewhere is
    # likelier than a revoke; see ``Pipeline._clean_ways``); of several such ways, the card the
    # reads there took it for most ("reader"), or, when all give the same tricks,
    # score and rulings, the first, said so ("same-result"); else a person decides. Then a card
    # so named and a card read whose reads doubted it are exchanged if that withdraws violations
    # and rules none new ("exchange": the read one was the misread), and so are the seats of a
    # card so named and a card of its trick read between two seats (the turn gave it its seat).
    # All are in the record's note.
    name_by_elimination: bool = True
    # When no way of placing the cards left keeps every rule (and no exchange of a misread makes
    # one): the one way that breaks the fewest (no out of turn in it) is taken if the reads in
    # front of the seat favour its card too ("fewest"; ``Pipeline._named_by_fewest``), and a
    # person is told, who may correct it. False: the deal waits for a person.
    name_by_fewest: bool = True
    # An unfinished trick whose every card has been unread this long when the next card is
    # accepted was swept off the table with its missing card unread (the reader never named it
    # surely): the new card belongs to a later trick, and the deal waits for the missing one
    # instead of counting the new card in the swept trick. 0: off (``lost_s`` alone finds sweeps).
    sweep_s: float = 0.5
    # Cards collected with their trick cannot be in sight: the detector is told, and a box it
    # would have read as one of them is read as the likeliest card still in play.
    rule_out_collected: bool = True
    # A card already played (collected with its trick, or lying elsewhere: ``cards_stay``) read
    # again, lying still where no card is accepted: one of the two reads is wrong (the deck
    # holds each card once). The likelier way out by both reads'
    # beliefs is taken: the earlier play becomes its next likeliest card still unplayed (a
    # correction "by" "conflict", refereed again) and the new card is read as itself; or, when
    # the new read is the likelier misread, it is read as the cards still in play (or, read so
    # unsurely, the deal keeps waiting and says which card it saw). Several collected cards in
    # sight at once are a trick shown again, not a misread: nothing is changed.
    resolve_conflicts: bool = True
    # ... once it has been read so this long: a card landing is often misread for a moment (as
    # long as the deal holds a card for its seat, ``hold_s``). 1.5 s (plus a vote window) let
    # the last card of a trick, collected soon after it lands, leave before the conflict was
    # weighed: 1.0 read 37 more cards over 13 sets of 20 hold-out deals, 14 fewer wrong plays,
    # 5 fewer spurious violations (0.8, 0.9 and 1.2 no better; tuning clips the same).
    conflict_s: float = 1.0


def _key(v: Violation) -> str:
    return json.dumps(v.to_json(), sort_keys=True)


def profile_json(profile: RuleProfile) -> Any:
    """The profile as the record writes it: the name, plus options that differ from it."""
    base = PROFILES.get(profile.name, SAUDI)
    diff = {
        f.name: getattr(profile, f.name)
        for f in fields(profile)
        if f.name != "name" and getattr(profile, f.name) != getattr(base, f.name)
    }
    return {"name": profile.name, **diff} if diff else profile.name


class Pipeline:
    """One deal refereed from frames. ``process`` each frame in order, then ``finish``."""

    def __init__(
        self,
        setup: DealSetup,
        detector: Detector,
        *,
        calibration: Calibration | None = None,
        roi: PolygonZone | None = None,
        settings: PipelineSettings | None = None,
        out_dir: str | Path | None = None,
        fps: float = 15.0,
    ) -> None:
        self.setup = setup
        self.detector = detector
        self.settings = settings or PipelineSettings()
        self.seats = (
            None
            if calibration is None
            else SeatMap(calibration, setup.dealer, clear_deg=self.settings.clear_deg)
        )
        self.roi = roi
        self.fps = fps
        self.tracker = CardTracker(self.settings.tracker, fps)
        self.referee = self._new_referee()
        self.plays: list[Play] = []
        self._told: dict[str, str] = {}  # the status each violation was last told with
        self.corrections: list[dict[str, Any]] = []
        self.events: list[dict[str, Any]] = []
        self.open_card: int | None = None
        self._open_on_table = False
        self._phase = "open" if self.settings.read_open_card else "play"
        self._uncollected: list[int] = []  # cards of the last complete trick still lying
        self._collected_tricks = 0
        self._held: list[tuple[TrackEvent, Frame]] = []  # accepted, waiting for the turn seat
        self._stall_said: tuple[int, int] | None = None  # (trick, seat) said to be unread
        self._unexplained = [-1, -1, -1, -1]  # per seat: last frame with unexplained reads
        self._guess_log: dict[int, list[tuple[int, list[str]]]] = {}  # per seat: (frame, guesses)
        # Per seat: (frame, card) of each sure read of a card the vote had not (yet) accepted.
        self._sure_log: dict[int, list[tuple[int, int]]] = {}
        self._is_trial = False  # a copy playing a way out (``_trial``): it exchanges no read
        self._open_ways: list[_Way] = []  # clean ways where the deal stopped for a card in doubt
        self._now = -1
        # The frame being processed when a person last named a card (a correction played): a
        # card held for a later seat waits ``hold_s`` from then too, not only from when it was
        # accepted, so that the seat then on turn has its time after the deal waited for them.
        self._named_at = -1
        self._ended = False  # the clip is over (``finish``): a correction settles the end again
        # An unfinished trick was swept (its missing cards lay there unread): the trick and the
        # last frame its cards were seen. Until that trick is complete only cards read before
        # then can be its cards; later ones wait.
        self._gap_trick: int | None = None
        self._gap_frame = -1
        # Played cards read again where no accepted card lies; settled ones hold the deal and
        # are weighed (``_conflict``).
        self._sightings: dict[int, _Sighting] = {}
        self._conflicts_said: set[int] = set()
        # Cards whose reads elsewhere a conflict with a held card showed to be right: accepted
        # with this frame's events (``_held_conflict``).
        self._accept_now: list[tuple[int, _Sighting]] = []
        self.timings: dict[str, float] = {"detect": 0.0, "track": 0.0, "referee": 0.0}
        self.frames = 0
        self.last_detections = Detections.empty()  # the last frame's reads (GUI overlay)
        self.last_detect_ms = 0.0
        self.out_dir = None if out_dir is None else Path(out_dir)
        if self.out_dir is not None:
            (self.out_dir / "evidence").mkdir(parents=True, exist_ok=True)
        self._emit_list: list[dict[str, Any]] = []
        self._emit(
            event(
                "deal",
                deal=setup.deal,
                dealer=setup.dealer,
                open_card=None,
                bids=[],
                contract=setup.contract.to_json(),
                table=self.table_geometry(),
            )
        )

    def table_geometry(self) -> dict[str, Any] | None:
        """Where the table is in the frame, for the live view: the centre, a point in front of
        each seat (from the calibration) and the play area (``--roi``); None when unknown."""
        if self.seats is None and self.roi is None:
            return None
        geometry: dict[str, Any] = {"centre": None, "seats": None, "roi": None}
        if self.seats is not None:
            geometry["centre"] = [round(v, 1) for v in self.seats.calibration.centre]
            geometry["seats"] = [
                [round(v, 1) for v in self.seats.seat_point(s, 0.9)] for s in range(4)
            ]
        if self.roi is not None:
            geometry["roi"] = [
                [round(float(x), 1), round(float(y), 1)] for x, y in self.roi.polygon
            ]
        return geometry

    # --- per frame ------------------------------------------------------------------------

    def process(self, frame: Frame) -> list[dict[str, Any]]:
        """Events proven by this frame (plays, violations, tricks, uncertain reads)."""
        t0 = time.perf_counter()
        ruled_out = self.tracker.collected() if self.settings.rule_out_collected else ()
        dets = self.detector.detect(frame.image, ruled_out=ruled_out)
        if self.roi is not None:
            dets = self.roi.filter(dets)
        t1 = time.perf_counter()
        far = self.tracker.far_from_spot(dets)
        misread = self._note_sightings(frame.index, dets[far])
        if len(misread):
            dets = Detections.merge([dets[~far], misread])
        if self.seats is not None and len(dets):
            dets.seat = np.array([self.seats.locate(c)[0] for c in dets.centres], np.int64)
        self.last_detections = dets
        self.last_detect_ms = 1000 * (t1 - t0)
        self._open_card_moved(dets, frame.index)
        self.tracker.pinned = self._unfinished_trick()
        track_events = self._open_card_first(self.tracker.update(dets, frame.index, frame.time))
        for card, sighting in self._accept_now:  # read again where it lies, still: accepted
            ev = self.tracker.accept(
                card, sighting.items, frame.index, frame.time, sighting.belief(),
                self.settings.tracker.min_confidence,
            )  # fmt: skip
            track_events = [ev, *track_events] if ev is not None else track_events
        self._accept_now = []
        t2 = time.perf_counter()
        self._now = frame.index
        self._note_unexplained(frame.index)
        self._note_sure_reads(frame.index)
        for ev in track_events:
            if ev.kind == "accepted":
                self._on_accepted(ev, frame)
            elif ev.kind == "hidden":
                self._on_hidden(ev, frame)
            elif ev.kind == "uncertain":
                self._on_uncertain(ev)
            elif ev.kind == "visible":
                self._on_visible(ev)
        self._flush(frame.index)
        t3 = time.perf_counter()
        self.timings["detect"] += t1 - t0
        self.timings["track"] += t2 - t1
        self.timings["referee"] += t3 - t2
        self.frames += 1
        return self._drain()

    def _note_sure_reads(self, now: int) -> None:
        """Log the sure reads of cards the vote has not accepted, by the seat they face: a card
        read now as one card, now as another, is never accepted, but its sure reads still tell
        which card it likely is (``_read_among``)."""
        for t in self.tracker.tracks:
            if t.state is CardState.CANDIDATE and t.last_seen == now:
                seat = self._seat_facing(t.box)
                if seat is not None:
                    self._sure_log.setdefault(seat, []).append((now, t.card))

    def _unfinished_trick(self) -> set[int]:
        """Cards of the trick in play while it is short of its four cards and nothing is held:
        the tracker takes a new card read on one's spot for a misread of it while another
        still lies there (``CardTracker.pinned``)."""
        if self._held or self.referee.is_over:
            return set()
        n = self.referee.trick_number
        return {p.card for p in self.plays if p.trick == n and p.source == "camera"}

    def _open_card_moved(self, dets: Detections, now: int) -> None:
        """The open card read away from where it lay: it went into the buyer's hand and is being
        played (before the tracker reported it hidden), so it must be accepted anew."""
        if not self._open_on_table or self.open_card is None:
            return
        track = self.tracker.tracks[self.open_card]
        mine = dets[dets.class_id == self.open_card]
        if track.box is None or not len(mine):
            return
        x1, y1, x2, y2 = track.box
        diag = float(np.hypot(x2 - x1, y2 - y1))
        far = np.linalg.norm(mine.centres - [(x1 + x2) / 2, (y1 + y2) / 2], axis=1) > 0.5 * diag
        if far.all() and now - track.last_seen >= self.settings.collect_gap:
            self.tracker.release(self.open_card)
            self._open_on_table = False
            self._phase = "play"

    def _on_accepted(self, ev: TrackEvent, frame: Frame) -> None:
        card = int(ev.card)  # type: ignore[arg-type]
        if self._phase == "open":
            expected = self.setup.open_card
            read_as = None
            if expected is not None and self._open_card_misread(card, expected.index):
                self.tracker.rename(card, expected.index)
                read_as, card = CARD_NAMES[card], expected.index
            if expected is None or expected.index == card:
                self.open_card = card
                self._open_on_table = True
                self._phase = "open_shown"
                self._emit(
                    event(
                        "open_card",
                        deal=self.setup.deal,
                        card=CARD_NAMES[card],
                        frame=frame.index,
                        time=round(frame.time, 3),
                        box=list(ev.box or ()),
                        **({"read_as": read_as} if read_as else {}),
                    )
                )
                return
        self._phase = "play"
        if self.referee.is_over:
            self._emit(
                event(
                    "uncertain",
                    deal=self.setup.deal,
                    seat=None,
                    card=CARD_NAMES[card],
                    frame=frame.index,
                    time=round(frame.time, 3),
                    box=list(ev.box or ()),
                    text=f"{CARD_NAMES[card]} seen after the deal's 8 tricks; not counted",
                )
            )
            return
        self._held.append((ev, frame))

    def _open_card_first(self, events: list[TrackEvent]) -> list[TrackEvent]:
        """Before any play, the open card the deal was set up with, accepted in this frame,
        goes first; a card accepted with it on its very spot (``ghost_iou``) is the open card
        read as another, not a play: it is forgotten (its reads there are then misreads)."""
        if self._phase != "open" or self.setup.open_card is None:
            return events
        want = self.setup.open_card.index
        opener = next((e for e in events if e.kind == "accepted" and e.card == want), None)
        if opener is None or opener.box is None:
            return events
        spot = np.array([opener.box])
        twins = [
            e
            for e in events
            if e.kind == "accepted"
            and e is not opener
            and e.box is not None
            and box_iou(spot, np.array([e.box]))[0, 0] >= self.settings.tracker.ghost_iou
        ]
        for e in twins:
            self.tracker.release(int(e.card))  # type: ignore[arg-type]
        return [opener, *(e for e in events if e is not opener and e not in twins)]

    def _open_card_misread(self, card: int, expected: int) -> bool:
        """The first card accepted before any play is not the open card the deal was set up
        with, but its reads gave that card some belief (``CONFLICT_FLOOR``) and that card is
        not accepted elsewhere (at most a candidate: read right a few times, short of the
        vote): it is the open card misread (as a card of its rank in the other suit of its
        colour, often), not a play made before the bidding was over."""
        if card == expected or self.tracker.state(expected) not in (
            CardState.UNSEEN,
            CardState.CANDIDATE,
        ):
            return False
        belief = self.tracker.belief(card)
        return belief is not None and float(belief[expected]) >= CONFLICT_FLOOR

    # --- holding cards that lie in front of a seat not on turn --------------------------

    def _position(self, ev: TrackEvent):
        centre = None if ev.box is None else box_centre(ev.box)
        return attribute(self.seats if centre is not None else None, centre, self.referee.turn)

    def _note_sightings(self, now: int, far: Detections) -> Detections:
        """Keep the reads of cards already played that lie where no accepted card does: the
        detector's reads of collected cards (``in_sight``) and ``far``, reads of cards on the
        table far from where they lie (``CardTracker.far_from_spot``). One read so, still, for
        ``conflict_s`` is a conflict. Returns the reads of this frame that the conflict shows to
        be misreads, as the cards still in play (``rule_out`` without its drop)."""
        out = Detections.empty()
        if not self.settings.resolve_conflicts:
            return out
        seen = getattr(self.detector, "in_sight", None)
        seen = far if seen is None else Detections.merge([seen, far])
        window = self.tracker.window
        for card, s in list(self._sightings.items()):
            s.items = [x for x in s.items if x[0] > now - window]
            if not s.items:
                del self._sightings[card]
        if not len(seen):
            return out
        if self.roi is not None:
            seen = self.roi.filter(seen)
        # Accepted cards seen lately: one unseen for ``lost_s`` (hidden) may have left with a
        # trick the deal, waiting for a card, has not yet collected; it hides no read.
        lying = [
            t.box
            for t in self.tracker.tracks
            if t.state is CardState.ON_TABLE and t.box is not None and not t.hidden
        ]
        collected = set(self.tracker.collected())
        played = collected | set(self.tracker.on_table())
        rows: dict[int, list[int]] = {}
        for i, (box, conf, card) in enumerate(seen):
            if card not in played or conf < self.settings.tracker.min_confidence:
                continue
            if lying and (box_iou(box[None], np.array(lying))[0] >= 0.3).any():
                continue  # an accepted card lies there: the read is of (or under) it
            rows.setdefault(card, []).append(i)
            s = self._sightings.setdefault(card, _Sighting(now))
            s.items.append((now, box.copy()))
            if seen.probs is not None:
                s.total = seen.probs[i] if s.total is None else s.total + seen.probs[i]
                s.n += 1
        long = self.settings.conflict_s * self.fps
        for s in self._sightings.values():
            s.settled = self._sighting_settled(s.items)
        lasting = [
            card for card, s in self._sightings.items() if now - s.since >= long and s.settled
        ]
        if len(lasting) != 1:
            return out  # none; or several collected cards shown again (a trick looked at)
        card = lasting[0]
        if (
            self._conflict(card, self._sightings[card], now)
            and card in rows
            and seen.probs is not None
        ):
            return read_as_in_play(seen[rows[card]], collected | {card})
        return out

    def _sighting_settled(self, items: list[tuple[int, np.ndarray]]) -> bool:
        """As the tracker accepts a card (``CardTracker.lies_still``)."""
        centres = np.array([((b[0] + b[2]) / 2, (b[1] + b[3]) / 2) for _, b in items])
        last = items[-1][1]
        return self.tracker.lies_still(
            centres, float(np.hypot(last[2] - last[0], last[3] - last[1]))
        )

    def _conflict(self, card: int, sighting: _Sighting, now: int) -> bool:
        """A ``card`` already played (collected, or lying elsewhere) is read again: weigh the
        earlier read against this one and take the likelier way out (see
        ``PipelineSettings.resolve_conflicts``). True when the new read is the misread: it is
        to be read as the cards still in play."""
        play = next((p for p in self.plays if p.card == card), None)
        if play is None:
            return self._held_conflict(card, sighting)
        now_belief = sighting.belief()
        swap = None
        earlier = self.tracker.belief(card)
        if play.source == "camera" and earlier is not None and now_belief is not None:
            swap = conflict_swap(earlier, now_belief, card, self._possible())
        if swap is None:
            if now_belief is not None:
                _, share = best_in_play(now_belief, set(self.tracker.collected()) | {card})
                if share[0] >= self.settings.tracker.min_confidence:
                    return True  # read surely as a card in play once the cards played are out
            if card not in self._conflicts_said:
                self._conflicts_said.add(card)
                box = sighting.items[-1][1]
                self._say(
                    self._seat_facing(box),
                    f"a card reads as {CARD_NAMES[card]}, which seat {play.seat} played in trick "
                    f"{play.trick}: one of the two reads is wrong",
                    guesses=[CARD_NAMES[card]], box=[round(float(v), 1) for v in box], frame=now,
                )  # fmt: skip
            return False
        del self._sightings[card]
        self._rename_play(play, swap, "conflict", now)
        return False

    def _held_conflict(self, card: int, sighting: _Sighting) -> bool:
        """A ``card`` held for its seat's turn is read again elsewhere: where the two reads
        find it likelier that the held card was another card misread (``conflict_swap``), the
        held card becomes that card (a correction ``by`` "conflict" when it is played) and the
        new read, which lay still there for ``conflict_s``, is accepted as ``card`` (it may be
        gone before a new vote could take it). Returns False: the new read is not dropped."""
        k = next((i for i, (e, _) in enumerate(self._held) if e.card == card), None)
        earlier, later = self.tracker.belief(card), sighting.belief()
        if k is None or earlier is None or later is None:
            return False
        swap = conflict_swap(earlier, later, card, self._possible())
        if swap is not None:
            self._sightings.pop(card)
            self._exchange_read(1, k, swap, "conflict")
            self._accept_now.append((card, sighting))
        return False

    def _rename_play(self, play: Play, card: int, by: str, now: int) -> None:
        """A played card was ``card`` misread: rename the play (a correction ``by`` ``by``),
        move the tracker's knowledge to ``card`` and referee the deal again."""
        old = play.card
        self._log_correction(self._renaming(play, card, by), now, now / self.fps)
        play.card, play.source = card, by
        if self.tracker.state(old) is CardState.COLLECTED:
            self.tracker.release(old)  # read as itself from now on
            self.tracker.collect(card)  # the play's card left with its trick
        else:
            self.tracker.rename(old, card)  # it lies where the play was accepted
        self._uncollected = [card if c == old else c for c in self._uncollected]
        self._rereferee(now, now / self.fps)

    @staticmethod
    def _renaming(play: Play, card: int, by: str) -> dict[str, Any]:
        """The correction that says ``play`` was ``card``."""
        return {
            "card": CARD_NAMES[card], "seat": play.seat, "replaces": CARD_NAMES[play.card],
            "trick": play.trick, "by": by,
        }  # fmt: skip

    def _possible(self) -> set[int]:
        """Cards that may still be unplayed: not played, not held, not lying accepted."""
        taken = {p.card for p in self.plays} | {int(e.card) for e, _ in self._held}  # type: ignore[arg-type]
        return {
            c
            for c in range(len(CARD_NAMES))
            if c not in taken and self.tracker.state(c) in (CardState.UNSEEN, CardState.CANDIDATE)
        }

    def _note_unexplained(self, now: int) -> None:
        if self.seats is None or not self.settings.hold_s:
            return
        sighted = [
            s.items[-1][1] for s in self._sightings.values() if s.items[-1][0] == now and s.settled
        ]
        for box in self.tracker.unplaced(now) + sighted:
            seat = self._seat_facing(box)
            if seat is not None:
                self._unexplained[seat] = now

    def _flush(self, now: int, final: bool = False) -> None:
        """Push held cards in order once the seat they lie at is on turn, or once they have
        waited ``hold_s`` with nothing unread in front of the seat on turn (then: out of turn)."""
        hold = self.settings.hold_s * self.fps
        while self._held and not self.referee.is_over:
            turn = self.seat_waited_for
            if self._gap_trick is not None:
                if self.referee.trick_number > self._gap_trick:
                    self._gap_trick = None  # the swept trick is complete: the rest follow
                    continue
                k = next(
                    (
                        i
                        for i, (e, fr) in enumerate(self._held)
                        if fr.index <= self._gap_frame and self._position(e).seat == turn
                    ),
                    None,
                )
                if k is not None:
                    self._push_camera(*self._held.pop(k))
                    continue
                if self._name_by_elimination(turn, final):
                    continue
                self._say_stalled(turn)
                return
            if self._trick_swept(self._held[0][1].index):
                continue
            attr = self._position(self._held[0][0])
            if attr.seat != turn and hold:
                # A card accepted just after, lying at the seat on turn, is that seat's card: it
                # goes first (one accepted much later is of a later trick); just after, counted
                # from when it was first read surely, not when the vote accepted it; or just after
                # a person named the card before it (the seat's time starts then).
                first, named = self._held[0][1].index, self._named_at
                k = next(
                    (
                        i
                        for i, (e, fr) in enumerate(self._held)
                        if self._position(e).seat == turn
                        and (
                            self._appeared(e, fr) - first <= hold
                            or (named >= 0 and 0 <= self._appeared(e, fr) - named <= hold)
                        )
                    ),
                    None,
                )
                if k is not None:
                    self._held.insert(0, self._held.pop(k))
                    continue
                ev, fr = self._held[0]
                if now - max(fr.index, self._named_at) < hold and not final:
                    return
                since = self.plays[-1].frame if self.plays else 0
                missed = self._unexplained[turn] > since or self.settings.assume_missed
                # Once the clip is over, a card left unread may be the one on turn even where
                # no box was seen (hidden all along): the rules may name it (out of turn else).
                if (missed or final) and self._name_by_elimination(turn, final, say=missed):
                    continue
                if missed or self._open_ways:
                    self._say_stalled(turn)
                    return
            ev, fr = self._held.pop(0)
            self._push_camera(ev, fr)

    @property
    def seat_waited_for(self) -> int:
        """The seat whose card the trick waits for: the seat on turn, or, when a card was
        played out of turn past a seat (then the turn comes round to a seat that has played
        in this trick), the first seat from the leader that has not played in it."""
        turn = self.referee.turn
        seats = [s for s, _ in self.referee.current_trick]
        if turn not in seats:
            return turn
        return next((s for k in range(4) if (s := (seats[0] + k) % 4) not in seats), turn)

    def _appeared(self, ev: TrackEvent, fr: Frame) -> int:
        """When a held card first read surely as itself (its track a candidate since), or its
        acceptance: a card the vote took long to accept lay there from then on."""
        t = self.tracker.tracks[int(ev.card)]  # type: ignore[arg-type]
        return min(fr.index, t.first_frame) if t.first_frame >= 0 else fr.index

    def _trick_swept(self, at: int) -> bool:
        """True (and the trick marked swept) when every card of the unfinished trick that the
        camera read has been unread for ``sweep_s`` at frame ``at``, where the next card was
        accepted (a card a person named may never have been read: it tells nothing)."""
        if not self.settings.sweep_s:
            return False
        trick = [
            p.card
            for p in self.plays
            if p.trick == self.referee.trick_number and p.source == "camera"
        ]
        gap = self.settings.sweep_s * self.fps
        if not trick or any(at - self.tracker.tracks[c].last_seen < gap for c in trick):
            return False
        self._swept(trick)
        return True

    def _name_by_elimination(self, seat: int, final: bool = False, say: bool = True) -> bool:
        """Play the one card not yet read for ``seat`` when the other 31 have all been read
        (played or held): a deal plays all 32 cards, so the card the deal waits for is that one.
        At the end of the clip (``final``), with up to ``DEDUCE_MAX`` cards not read, each way
        of placing them is played out and the one clean way is taken (``_clean_ways``: a way that
        makes a violation is likelier a misread elsewhere than a revoke). Several clean ways:
        the one the reads there took it for most (``_read_among``); if none,
        and all give the same result, the first (said so); no clean way: an exchange with a
        misread (``_named_by_exchange``), or the way that breaks the fewest where the reads
        favour it too (``_named_by_fewest``); else a person decides and the
        deal stops there (``_open_ways``: a card lies there unread, so no later card is played
        out of turn). ``say``: tell when no way is clean (several always are). It goes into
        the record as a correction, so a dispute can see it."""
        if not self.settings.name_by_elimination:
            return False
        self._open_ways = []
        seen = {p.card for p in self.plays} | {int(e.card) for e, _ in self._held}  # type: ignore[arg-type]
        left = [c for c in range(len(CARD_NAMES)) if c not in seen]
        if not left or len(left) > (DEDUCE_MAX if final else 1):
            return False
        if len(left) == 1:
            self._name_unread(left[0], seat, self._now, "elimination")
            return True
        complete = self._completions(left, seat, True)
        found = self._clean_ways(left, seat, None, True, complete)
        ways = self._results(found)
        if not ways and not self._is_trial and self._named_by_exchange(left, seat):
            return True
        if not ways and not self._is_trial and self._named_by_fewest(left, seat, complete):
            return True
        clean = self._read_among(list(ways), seat) if len(ways) > 1 else list(ways)
        names = [CARD_NAMES[c] for c in left]
        trick = self.referee.trick_number
        if self._is_trial and len(ways) > 1:
            # A copy playing a way out stops here and gives every clean way to its caller (so
            # that "ruled by every complete way" sees them all), the ones taken here preferred.
            same = len(set(ways.values())) == 1
            self._open_ways = [(*w[:4], w[4] and (same or w[0] in clean)) for w in found]
            return False
        if (len(clean) > 1 and len(set(ways.values())) == 1) or (
            len(clean) == 1 and ways[clean[0]].endswith(IN_DOUBT)
        ):
            # Every clean way gives the same tricks, rulings and score: the result is known,
            # not where these cards lay. The first is taken and a person told which may change.
            self._say_cards_left(
                seat, names, f"every way of placing them that keeps the rules gives the same "
                f"result: {CARD_NAMES[clean[0]]} is named for seat {seat} in trick {trick} (a "
                "person may exchange them)",
            )  # fmt: skip
            self._name_unread(clean[0], seat, self._now, "same-result")
            return True
        if len(clean) != 1:
            # Several clean ways: a card lies here unread, the deal stops for it (not a later
            # card played out of turn).
            self._open_ways = [w for w in found if w[0] in clean]
            if say or self._open_ways:
                why = "no way of placing them keeps" if not clean else f"{len(clean)} ways keep"
                self._say_cards_left(
                    seat, names, f"{why} every rule: the deal waits for a person (seat {seat}, "
                    f"trick {trick})",
                )  # fmt: skip
            return False
        if len(ways) > 1:
            self._say_by_reader(seat, names, clean[0], len(ways), trick)
        self._name_unread(clean[0], seat, self._now, "rules" if len(ways) == 1 else "reader")
        return True

    def _say_by_reader(
        self, seat: int, names: list[str], card: int, n_ways: int, trick: int
    ) -> None:
        """Tell a person of a card named "reader": the rules left several ways and unsure reads
        chose among them, so the deal is complete on a guess that reads can mislead (misleading
        reads in ``benchmarks/unread.py --misguess``): it is said, as every guess is."""
        self._say_cards_left(
            seat, names, f"{n_ways} ways of placing them keep every rule: {CARD_NAMES[card]}, "
            f"which the reads took it for most, is named for seat {seat} in trick {trick} (a "
            "person may correct it)",
        )  # fmt: skip

    def _say_cards_left(self, seat: int, names: list[str], what: str) -> None:
        """An ``uncertain`` event: the cards no read named, and what became of them (the
        guesses: those cards, the likeliest for ``seat`` first)."""
        cards = [CARD_NAMES.index(n) for n in names]
        first = self._likeliest(seat, cards)
        guesses = [CARD_NAMES[c] for c in [*first, *(c for c in cards if c not in first)]]
        self._say(seat, f"cards not read: {', '.join(names)}; {what}", guesses=guesses)

    def _likeliest(self, seat: int, cards: Collection[int], most: int = GUESSES) -> list[int]:
        """Of ``cards``, those the reader took the card in front of ``seat`` for while it can
        have landed, likeliest first (``_read_scores``). What a person answering the notice is
        offered first (the one-click correction)."""
        score = self._read_scores(seat, cards)
        return [c for c, _ in sorted(score.items(), key=lambda kv: (-kv[1], kv[0]))[:most]]

    def _read_scores(self, seat: int, cards: Collection[int]) -> Counter:
        """How much the reads in front of ``seat`` while the card the deal waits for can have
        landed (``_landing_reads``) took it for each of ``cards``: each sure read counts 2, each
        unsure read 1 for its first guess, 1/2 for its second, 1/4 for its third. Where none
        of them names one of ``cards``, the reads after, up to the first held card of a later
        trick (``_next_trick_held``), count instead: a card read late, once the hand over it
        left (the seat's own next card, unread too, can lie there by then: only as a fallback)."""
        since, until = self._landing()
        score = self._scores_between(seat, cards, since, until)
        if not score and (later := self._next_trick_held(seat)) > until:
            score = self._scores_between(seat, cards, until, later)
        return score

    def _scores_between(
        self, seat: int, cards: Collection[int], since: int, until: int
    ) -> Counter:  # fmt: skip
        """``_read_scores`` of the reads in front of ``seat`` in frames ``(since, until]``."""
        guessed, sure = self._landing_reads(seat, since, until)
        score: Counter = Counter({c: 2.0 * n for c, n in sure.items() if c in cards})
        for guesses in guessed:
            for k, g in enumerate(guesses[:3]):
                if (c := CARD_NAMES.index(g)) in cards:
                    score[c] += 0.5**k
        return score

    def _landing_reads(
        self, seat: int, since: int, until: int
    ) -> tuple[list[list[str]], Counter]:  # fmt: skip
        """What the reader saw in front of ``seat`` in frames ``(since, until]``: each unsure
        read's guesses, in order, and how often each card not yet accepted was read surely."""
        guessed = [g for f, g in self._guess_log.get(seat, []) if since < f <= until]
        sure = Counter(c for f, c in self._sure_log.get(seat, []) if since < f <= until)
        return guessed, sure

    def _say(
        self, seat: int | None, text: str, guesses: Iterable[str] = (),
        box: Iterable[float] = (), frame: int | None = None, **extra: Any,
    ) -> None:  # fmt: skip
        """An ``uncertain`` event at ``frame`` (default: now): what the pipeline cannot decide
        alone and tells a person (``text``), or why it refused a person's correction."""
        frame = self._now if frame is None else frame
        self._emit(
            event(
                "uncertain", deal=self.setup.deal, seat=seat, card=None, guesses=list(guesses),
                frame=frame, time=round(frame / self.fps, 3), box=list(box), **extra, text=text,
            )
        )  # fmt: skip

    def _read_among(self, cards: list[int], seat: int) -> list[int]:
        """Of several cards the rules allow, the one the reads in front of ``seat`` took the
        unread card for most (``_read_scores``: sure reads and unsure guesses alike, as the
        notice ranks them), if ``CONFLICT_MARGIN`` times as much as the next; else all of them
        (a person decides). One unsure guess is not enough against sure reads of another card."""
        ranked = [*self._read_scores(seat, cards).most_common(2), (-1, 0.0)]
        if ranked[0][1] > 0 and ranked[0][1] >= CONFLICT_MARGIN * ranked[1][1]:
            return [ranked[0][0]]
        return cards

    def _next_trick_held(self, seat: int) -> int:
        """When the first held card of a later trick was accepted: the first held card in
        front of a seat that has a card in this trick already (``seat``, waited for, among
        them); -1 if none is held. The trick on the table lay there until then."""
        n = self.referee.trick_number
        seen = {p.seat for p in self.plays if p.trick == n} | {seat}
        for e, fr in self._held:
            at = self._position(e).by_position
            if at in seen:
                return fr.index
            seen.add(at)
        return -1

    def _landing(self) -> tuple[int, int]:
        """The frames in which the card the deal waits for can have landed: after the last
        card read was accepted, up to the next card held (a card pushed at the end of the
        clip was accepted long before it was played; a later trick's card at the same seat
        comes after)."""
        since = max((p.landed for p in self.plays), default=-1)
        until = self._held[0][1].index if self._held else self._now
        return since, max(until, since + 1)

    @staticmethod
    def _results(ways: list[_Way]) -> dict[int, str]:
        """Each card's result over its ways (``OPEN`` where they differ)."""
        results: dict[int, str] = {}
        for card, _, result, _, _ in ways:
            results[card] = result if results.get(card, result) == result else OPEN
        return results

    def _clean_ways(
        self, cards: list[int], seat: int, before: set[str] | None, exchange: bool,
        ways: list[_Way] | None = None,
    ) -> list[_Way]:  # fmt: skip
        """Play each of ``cards`` for ``seat`` and the rest of the clip out on a copy of the
        deal (later unread cards named the same way, ``_completions``). The ways that are
        clean (each card's result over them: ``_results``; ``OPEN`` where the clean ways on
        from that card differ): the deal complete, and each violation it rules either stood
        before (the placing did not make it) or is ruled by every complete way, whatever card
        it names (a revoke with either of two clubs), when two or more complete; out of turn
        is never excused: it is the sign of a card missing or in the wrong trick (a placing
        that changes a trick's winner puts every later card out of turn). Nor is a violation
        on a play read before the naming, proven by a card read, held against any way
        (``_made_before``). ``before``: the violations that stood before (default: those
        now); ``ways``: the ways already played out (default: played out here)."""
        before = self._ruled_before() if before is None else before
        made = {(p.trick, p.seat, CARD_NAMES[p.card]) for p in self.plays if p.source == "camera"}
        named = {CARD_NAMES[c] for c in cards}
        ways = self._completions(cards, seat, exchange) if ways is None else ways
        rest = [{_whatever_card(v) for v in w[1] if not _made_before(v, made, named)} for w in ways]
        # Ruled by every way: counted on all each rules, a violation that one way proves by a
        # card read before and another by the card it names included.
        every = (
            set.intersection(*({_whatever_card(v) for v in w[1]} for w in ways))
            if len(ways) > 1
            else set()
        )
        excused = before | {k for k in every if not k.startswith('["out-of-turn"')}
        clean = [w for w, r in zip(ways, rest, strict=True) if r <= excused]
        # A card's ways on that a later naming preferred (its reads), where it preferred one.
        liked = {w[0] for w in clean if w[4]}
        clean = [w for w in clean if w[4] or w[0] not in liked]
        # Of the clean ways, those that leave the fewest violations (a misread is likelier than
        # a revoke), and of those the ones clean as read (likelier than a read taken for a
        # misread).
        best = min((w[3] for w in clean), default=None)
        return [w for w in clean if w[3] == best]

    def _completions(self, cards: list[int], seat: int, exchange: bool) -> list[_Way]:
        """Each way of playing one of ``cards`` for ``seat`` to the end of the deal: where a
        later card not read has several clean ways, each of them (the copy stops there,
        ``_open_ways``; those its reads or one result would take are marked preferred), so a
        card here is judged by every way on from it, not left out because a later one is in
        doubt, and a violation every complete way rules is seen as such."""
        ways: list[_Way] = []
        for card in cards:
            trial = self._trial()
            trial._name_unread(card, seat, trial._now, "rules")
            trial._settle_end()
            if trial._open_ways:
                ways += [(card, *w[1:]) for w in trial._open_ways]
                continue
            if not trial.referee.is_over:
                continue
            # As the deal's end will: a misread that the naming brings to light.
            exchanged = exchange and trial._exchange_misread()
            doubt = trial._places_in_doubt() if exchanged else None
            if doubt == "result":
                continue
            rulings = sorted(self._violation_keys(trial))
            result = json.dumps([*self._outcome(trial), rulings]) + (IN_DOUBT if doubt else "")
            rules = [_proven_by_a_read(v, trial.plays) for v in trial.referee.violations]
            ways.append((card, rules, result, (len(rulings), exchanged), True))
        return ways

    def _named_by_fewest(self, left: list[int], seat: int, ways: list[_Way]) -> bool:
        """No way of placing ``left`` keeps every rule (``ways``: each played out,
        ``_completions``) and no exchange of a misread makes one: each way rules a violation the
        deal did not have. Two things can still point at one
        way: the rules (one revoke is likelier than two) and the reads in front of ``seat``
        (``_read_among``: the card they took it for most, ``CONFLICT_MARGIN`` times the next).
        Where both name the same card, the only one whose ways break the fewest rules (none of
        them out of turn, the sign of a card missing), it is played ("fewest") and a person told,
        who may correct it; else nothing changes and the deal waits for a person."""
        if not self.settings.name_by_fewest or not ways:
            return False
        fewest = min(w[3][0] for w in ways)
        cards = {w[0] for w in ways if w[3][0] == fewest}
        if len(cards) != 1:
            return False
        (card,) = cards
        if self._read_among(left, seat) != [card]:
            return False
        if any(v.rule == "out-of-turn" for w in ways if w[0] == card for v in w[1]):
            return False
        trick = self.referee.trick_number
        self._say_cards_left(
            seat, [CARD_NAMES[c] for c in left], f"no way of placing them keeps every rule: "
            f"{CARD_NAMES[card]}, which the reads took it for and which breaks the fewest, is "
            f"named for seat {seat} in trick {trick} (a person may correct it)",
        )  # fmt: skip
        self._name_unread(card, seat, self._now, "fewest")
        return True

    def _named_by_exchange(self, left: list[int], seat: int) -> bool:
        """No way of placing the cards left is clean: perhaps one of them (``L``) was read as
        another card (``Y``, played or held for its seat's turn), whose reads gave ``L`` some
        belief, and ``Y`` is one of the cards the deal still waits for. Each such exchange is
        made on a copy of the deal and the cards then left are placed as ``_clean_ways`` places
        them, against the violations that stood before the exchange; the one clean exchange and
        placing is taken (the read renamed ``by`` "exchange", the card named ``by`` "rules";
        several placings: the reads decide, as ``_read_among``; several
        exchanges: the one the reads believed twice as much as the next), else nothing
        changes. One exchange only: the placings it is tried with take no end-of-deal exchange
        of their own."""
        before = self._ruled_before()
        # belief, play (0) or held card (1), its index, the card it becomes, the card named
        found: list[tuple[float, int, int, int, int]] = []
        read = [(0, j, p.card) for j, p in enumerate(self.plays) if p.source == "camera"]
        read += [(1, k, int(ev.card)) for k, (ev, _) in enumerate(self._held)]  # type: ignore[arg-type]
        for where, j, card in read:
            belief = self.tracker.belief(card)
            for other in left if belief is not None else ():
                if belief[other] < CONFLICT_FLOOR:
                    continue
                trial = self._trial()
                trial._exchange_read(where, j, other)
                rest = [c for c in left if c != other] + [card]
                ways = list(trial._results(trial._clean_ways(rest, seat, before, False)))
                ways = trial._read_among(ways, seat) if len(ways) > 1 else ways
                found += [(float(belief[other]), where, j, other, c) for c in ways]
        found.sort(reverse=True)
        # The exchange the reads believed most, if twice as much as the next (as a conflict).
        if not found or (len(found) > 1 and found[0][0] < CONFLICT_MARGIN * found[1][0]):
            return False
        _, where, j, other, card = found[0]
        self._exchange_read(where, j, other)
        self._name_unread(card, seat, self._now, "rules")
        return True

    def _exchange_read(self, where: int, j: int, card: int, by: str = "exchange") -> None:
        """A card read was ``card`` misread: a play (``where`` 0: renamed now) or a card held
        for its seat's turn (1: played as ``card`` when its turn comes, the correction then)."""
        if where == 0:
            self._rename_play(self.plays[j], card, by, self._now)
            return
        ev, fr = self._held[j]
        self.tracker.rename(int(ev.card), card)  # type: ignore[arg-type]
        detail = {**ev.detail, "read_as": ev.card, "by": by}
        self._held[j] = (replace(ev, card=card, detail=detail), fr)

    def _trial(self) -> Pipeline:
        """A copy of the deal to play a way out on: no detector, no files; the frames and what
        only frames add to (each card's reads, the logs of reads by seat) shared, not copied: a
        copy plays held cards and names cards, it reads no frame."""
        memo: dict[int, Any] = {id(self.detector): None}
        for shared in (self._guess_log, self._sure_log, self.tracker.recent):
            memo[id(shared)] = shared
        for t in self.tracker.tracks:
            memo[id(t.reads)], memo[id(t.beliefs)] = t.reads, t.beliefs
        for _, fr in self._held:
            memo[id(fr.image)] = fr.image
        trial = copy.deepcopy(self, memo)
        trial.out_dir = None
        trial._is_trial = True
        return trial

    def _settle_end(self) -> None:
        """The clip is over: play what is held (naming cards left unread where the deal can),
        then name the cards left after the last held one while the rules can (the last trick's
        two cards never read: the first by the rules, the deal's last then forced)."""
        self._flush(self._now, final=True)
        while not self._held and not self.referee.is_over:
            if not self._name_by_elimination(self.seat_waited_for, final=True):
                break

    def _exchange_misread(self) -> bool:
        """At the end of a complete deal, a card named without being read (``X``) and a card
        read (``Y``) whose reads gave ``X`` some belief may be each other: Y misread, X then
        left unread where Y lay; so may two cards read as each other (``_misread_for``). The
        exchange is taken when it withdraws violations and rules none new (the fewest left; a
        tie is left as it is): a misread is likelier than a revoke whose card the reader
        doubted. So are the seats of a card named and a card read in its trick that lay
        between two seats, nearest the named card's (``_seat_doubted``): the turn, not the
        place, gave the read card its seat. True when it exchanged them."""
        if not self.settings.name_by_elimination or not self.referee.is_over:
            return False
        before = self._violation_keys(self)
        best: list[tuple[int, Play, Play]] = []
        open_: list[tuple[Play, Play]] = []  # exchanges the rules cannot tell from the record
        read = [p for p in self.plays if p.source == "camera"]
        pairs = [(d, p) for d in self.plays if d.source in DEDUCED for p in read]
        pairs += [
            (a, b) for i, a in enumerate(read) for b in read[i + 1 :] if self._misread_for(a, b)
        ]
        for d, p in pairs:
            if not self._doubted(p, d):
                continue
            trial = self._with_exchanged(self.plays.index(d), self.plays.index(p))
            after = self._violation_keys(trial)
            if after < before:
                best.append((len(after), d, p, False))
            elif after == before and d.source in DEDUCED:
                open_.append((d, p))
        for d, p in ((d, p) for d in self.plays if d.source in DEDUCED for p in read):
            if self._seat_doubted(p, d):
                trial = self._with_exchanged(self.plays.index(d), self.plays.index(p), "seat")
                after = self._violation_keys(trial)
                if after < before:
                    best.append((len(after), d, p, True))
        best.sort(key=lambda b: b[0])
        if not best or (len(best) > 1 and best[1][0] == best[0][0]):
            self._say_may_be_exchanged(open_)
            return False
        _, d, p, seats = best[0]
        at = self._now / self.fps
        if seats:
            for play, seat in ((p, d.seat), (d, p.seat)):
                item = {**self._renaming(play, play.card, "exchange"), "seat": seat,
                        "from_seat": play.seat}  # fmt: skip
                self._log_correction(item, self._now, at)
            p.seat, d.seat = d.seat, p.seat
        else:
            for play, card in ((p, d.card), (d, p.card)):
                self._log_correction(self._renaming(play, card, "exchange"), self._now, at)
            p.card, d.card = d.card, p.card
            if d.source == "camera":
                d.source = "exchange"
        p.source = "exchange"
        self._rereferee(self._now, at)
        return True

    def _seat_doubted(self, p: Play, d: Play) -> bool:
        """``p``, a card read in the trick of ``d`` (a card not read, named), lay between two
        seats, nearest ``d``'s: the turn gave it its seat, so ``d``'s card may be the one played
        where the turn put ``p`` (``clear_deg``)."""
        if self.seats is None or p.box is None or p.trick != d.trick or p.seat == d.seat:
            return False
        seat, _, clear = self.seats.locate(box_centre(p.box))
        return seat == d.seat and not clear

    def _say_may_be_exchanged(self, pairs: list[tuple[Play, Play]]) -> None:
        """An ``uncertain`` event for each card named without being read that may be a card
        read as another: the read doubted it, and exchanged the deal breaks the same rules, so
        the record may hold the two the wrong way round (a person may exchange them)."""
        if self._is_trial:
            return
        for d, p in pairs:
            self._say(
                d.seat,
                f"{CARD_NAMES[d.card]} (seat {d.seat}, trick {d.trick}, not read) and "
                f"{CARD_NAMES[p.card]} (seat {p.seat}, trick {p.trick}, read with a doubt of "
                f"{CARD_NAMES[d.card]}) may be each other: exchanged, the deal breaks the same "
                "rules (a person may exchange them)",
                guesses=[CARD_NAMES[d.card], CARD_NAMES[p.card]],
            )

    def _places_in_doubt(self) -> str | None:
        """After an exchange, whether two cards not read may lie at each other's places: the
        exchange settled which cards were not read, not where each lay. "result" where the two
        swapped break no new rule and change the result (neither placing can be taken),
        "places" where they change only where the cards lay (a person may exchange them)."""
        keys, result = self._violation_keys(self), self._outcome(self)
        named = [i for i, p in enumerate(self.plays) if p.source in DEDUCED]
        doubt = None
        for i, j in itertools.combinations(named, 2):
            trial = self._with_exchanged(i, j)
            if trial.referee.is_over and self._violation_keys(trial) <= keys:
                if self._outcome(trial) != result:
                    return "result"
                doubt = "places"
        return doubt

    def _with_exchanged(self, i: int, j: int, what: str = "card") -> Pipeline:
        """A copy of the deal with plays ``i`` and ``j`` holding each other's card (``what``
        "seat": at each other's seats; the turn orders their trick anew), refereed again."""
        trial = self._trial()
        a, b = trial.plays[i], trial.plays[j]
        was = getattr(a, what)
        setattr(a, what, getattr(b, what))
        setattr(b, what, was)
        trial._rereferee(self._now, self._now / self.fps)
        return trial

    @staticmethod
    def _outcome(pipe: Pipeline) -> list[Any]:
        """The trick winners and the card points: what a way's placing changes of the result."""
        return [[t.winner for t in pipe.referee.tricks], pipe.referee.card_points]

    def _doubted(self, a: Play, b: Play) -> bool:
        """The reads of ``a``'s card gave ``b``'s some belief (``CONFLICT_FLOOR``): ``a`` may
        be ``b`` misread."""
        belief = self.tracker.belief(a.card)
        return belief is not None and float(belief[b.card]) >= CONFLICT_FLOOR

    def _misread_for(self, a: Play, b: Play) -> bool:
        """Two cards read that may have been misread for each other: each read with some
        belief in the other, and the reads finding the exchange at most ``CONFLICT_MARGIN``
        times less likely than the cards as played (two sure reads are not exchanged to
        withdraw a violation: it may be real)."""
        ba, bb = self.tracker.belief(a.card), self.tracker.belief(b.card)
        if ba is None or bb is None or not (self._doubted(a, b) and self._doubted(b, a)):
            return False
        return CONFLICT_MARGIN * float(ba[b.card] * bb[a.card]) >= float(ba[a.card] * bb[b.card])

    def _ruled_before(self) -> set[str]:
        """The violations standing now that a way may rule again (``_whatever_card``): not out
        of turn, the sign of a card missing."""
        return {_whatever_card(v) for v in self.referee.violations if v.rule != "out-of-turn"}

    @staticmethod
    def _violation_keys(pipe: Pipeline) -> set[str]:
        return {json.dumps(v.to_json(), sort_keys=True) for v in pipe.referee.violations}

    def _say_stalled(self, seat: int) -> None:
        key = (self.referee.trick_number, seat)
        if self._stall_said == key:
            return
        self._stall_said = key
        held = [CARD_NAMES[int(e.card)] for e, _ in self._held]  # type: ignore[arg-type]
        read = self._likeliest(seat, self._possible())
        likely = read[:1] + self._held_there(seat) + read[1:]
        self._say(
            seat,
            f"card in front of seat {seat} not read (trick {self.referee.trick_number}); the "
            f"deal waits for it ({', '.join(held)} held)",
            guesses=[CARD_NAMES[c] for c in likely],
            held=held,
        )

    def _held_there(self, seat: int) -> list[int]:
        """Held cards that may be the one the deal waits for at ``seat``: accepted while it
        can have landed (``_landing``), lying nearest that seat (not clearly in front of
        another: the deal took it for a later trick's). Offered first; a person naming one
        plays it (``correct``)."""
        since, until = self._landing()
        return [
            int(e.card)  # type: ignore[arg-type]
            for e, fr in self._held
            if since < fr.index <= until and self._position(e).by_position == seat
        ]

    def _push_camera(self, ev: TrackEvent, frame: Frame, seat: int | None = None) -> None:
        """Play a card the camera accepted (``frame``: where), for the seat its place and the
        turn give, or for ``seat``, a person's word for a held card (``_play_held``: a
        correction); the last trick is collected first if its cards are gone."""
        card = int(ev.card)  # type: ignore[arg-type]
        fifth = False
        if self._uncollected:
            gap = self.settings.collect_gap
            if all(
                frame.index - self.tracker.tracks[c].last_seen >= gap for c in self._uncollected
            ):
                self._collect(frame)
            else:
                fifth = True
        attr = self._position(ev)
        given = attr.seat if seat is None else seat
        evidence = self._save_crop(frame, ev, given)
        at = max(frame.index, self._now)  # a held card is played when it is released
        was = ev.detail.get("read_as")  # held, then taken for a misread (``_exchange_read``)
        by = ev.detail.get("by", "exchange")
        if was is not None:
            fix = {"card": CARD_NAMES[card], "seat": given, "replaces": CARD_NAMES[was],
                   "trick": self.referee.trick_number, "by": by}  # fmt: skip
            self._log_correction(fix, at, at / self.fps)
        source = "correction" if seat is not None else "camera" if was is None else by
        self._play(card, given, at, frame.time + (at - frame.index) / self.fps,
                   source, evidence, ev.box, extra={
            "confidence": ev.confidence,
            "position_seat": attr.by_position,
            "position_clear": attr.clear,
            "fifth_card": fifth,
            "accepted_frame": frame.index,
        })  # fmt: skip

    def _play(
        self,
        card: int,
        seat: int,
        frame: int,
        at: float,
        source: str,
        evidence: str | None,
        box: tuple[float, ...] | None,
        extra: dict[str, Any] | None = None,
    ) -> None:
        trick = self.referee.trick_number
        expected = self.referee.turn
        new = self.referee.push_index(card, seat)
        if source == "correction":  # a person named it: the next seat's time starts now
            self._named_at = max(self._now, 0)
        more = extra or {}
        landed = more.get("accepted_frame", -1)
        seen_at = more.get("position_seat") == seat and bool(more.get("position_clear"))
        play = Play(trick, seat, card, frame, at, source, evidence, box, landed,
                    more.get("confidence"), seen_at)  # fmt: skip
        self.plays.append(play)
        self._emit(
            event(
                "play",
                deal=self.setup.deal,
                trick=trick,
                seat=seat,
                card=CARD_NAMES[card],
                ekka=False,
                expected_seat=expected,
                frame=frame,
                time=round(at, 3),
                box=None if box is None else list(box),
                evidence=evidence,
                source=source,
                **more,
                **play.to_json(),
            )
        )
        self._violations(new, frame, at)
        if len(self.referee.tricks) == trick:  # the trick just completed
            done = self.referee.tricks[-1]
            self._emit(
                event(
                    "trick",
                    deal=self.setup.deal,
                    trick=trick,
                    winner=done.winner,
                    points=done.points,
                    card_points=list(self.referee.card_points),
                    cards=[str(c) for c in done.cards],
                    seats=list(done.seats),
                    frame=frame,
                    time=round(at, 3),
                )
            )
            self._uncollected = [c.index for c in done.cards]
            self._write_record()

    def _violations(self, new: Iterable[Violation], frame: int, at: float) -> None:
        for v in new:
            status = violation_status(v, self.plays)
            self._told[_key(v)] = status
            self._emit(
                event(
                    "violation", deal=self.setup.deal, frame=frame, time=round(at, 3),
                    **v.to_json(), status=status, question=question(v, self.plays),
                )
            )  # fmt: skip

    def _restatus(self) -> None:
        """Say each standing violation whose footing changed (a play renamed, named or
        confirmed since it was told): ``violation_status`` with its new status."""
        if self._is_trial:
            return
        frame = max(self._now, 0)
        for v in self.referee.violations:
            status = violation_status(v, self.plays)
            if self._told.get(_key(v), status) == status:
                continue
            self._told[_key(v)] = status
            self._emit(
                event(
                    "violation_status", deal=self.setup.deal, frame=frame,
                    time=round(frame / self.fps, 3), **v.to_json(), status=status,
                    question=question(v, self.plays),
                )
            )  # fmt: skip

    def proven(self) -> list[Violation]:
        """The standing violations that are proven (or confirmed by a person): only these
        change the score."""
        return [v for v in self.referee.violations if violation_status(v, self.plays) == PROVEN]

    def confirm(self, trick: int, seat: int, rule: str | None = None) -> list[dict[str, Any]]:
        """A person confirms at the table what a suspected ruling rests on: with ``rule``, every
        doubtful play of the standing violation of that rule, seat and trick; without, the play
        of ``seat`` in ``trick``. A confirmation that names nothing changes nothing and comes
        back as an ``uncertain`` event saying why in one line. After the end of the clip the
        deal is scored again."""
        from hakam.vision.provenance import doubtful_plays

        if rule is not None:
            hit = [v for v in self.referee.violations
                   if (v.trick, v.seat, v.rule) == (trick, seat, rule)]  # fmt: skip
            plays = doubtful_plays(hit[0], self.plays) if hit else []
            what = f"no {rule} ruling stands for seat {seat} in trick {trick}"
        else:
            plays = [p for p in self.plays if (p.trick, p.seat) == (trick, seat)]
            what = f"seat {seat} played no card in trick {trick}"
        if not plays:
            self._say(seat, f"confirmation: {what}; nothing changed", frame=max(self._now, 0))
            return self._drain()
        for p in plays:
            p.confirmed = True
            item = {"card": CARD_NAMES[p.card], "seat": p.seat, "trick": p.trick,
                    "replaces": None, "by": "confirmed"}  # fmt: skip
            self._log_correction(item, max(self._now, 0), max(self._now, 0) / self.fps)
        self._write_record()
        events = self._drain()
        return events + (self.finish() if self._ended else [])

    def _on_hidden(self, ev: TrackEvent, frame: Frame) -> None:
        card = int(ev.card)  # type: ignore[arg-type]
        if self._open_on_table and card == self.open_card:
            # The open card went into the buyer's hand: it will be played later.
            self.tracker.release(card)
            self._open_on_table = False
            self._phase = "play"
            return
        if card in self._uncollected and all(self.tracker.is_hidden(c) for c in self._uncollected):
            self._collect(frame)
            return
        if self.settings.hold_s and any(e.card == card for e, _ in self._held):
            # A held card left the table: its trick was swept with the missing card unread.
            self._swept([card])
            return
        trick = [p.card for p in self.plays if p.trick == self.referee.trick_number]
        if self.settings.hold_s and card in trick and all(self.tracker.is_hidden(c) for c in trick):
            # An unfinished trick left the table: its missing cards were there, unread.
            self._swept(trick)

    def _on_visible(self, ev: TrackEvent) -> None:
        """A card of the trick taken for swept is read again where it lay: the trick was only
        covered (a card landing on it, a hand over it), not swept."""
        if self._gap_trick != self.referee.trick_number:
            return
        if any(p.card == ev.card and p.trick == self._gap_trick for p in self.plays):
            self._gap_trick = None

    def _swept(self, cards: list[int]) -> None:
        """The trick on the table left it unfinished (the first sweep counts: cards of later
        tricks held behind it leave in their own sweeps)."""
        if self._gap_trick is None:
            self._gap_trick = self.referee.trick_number
            self._gap_frame = max(self.tracker.tracks[c].last_seen for c in cards)

    def _collect(self, frame: Frame) -> None:
        for c in self._uncollected:
            self.tracker.collect(c)
        done = self.referee.tricks[-1]
        self._collected_tricks += 1
        self._emit(
            event(
                "trick_collected",
                deal=self.setup.deal,
                trick=done.number,
                winner=done.winner,
                frame=frame.index,
                time=round(frame.time, 3),
            )
        )
        self._uncollected = []

    def _seat_facing(self, box: Any) -> int | None:
        """The seat a box lies clearly in front of (None: no calibration, no box, or between
        two seats)."""
        if self.seats is None or box is None:
            return None
        seat, _, clear = self.seats.locate(box_centre(box))
        return seat if clear else None

    def _on_uncertain(self, ev: TrackEvent) -> None:
        seat = self._seat_facing(ev.box)
        frames = int(ev.detail.get("frames", 0))
        if seat is not None:
            guesses = list(ev.detail.get("guesses", []))
            self._guess_log.setdefault(seat, []).append((ev.frame, guesses))
        self._emit(
            event(
                "uncertain",
                deal=self.setup.deal,
                seat=seat,
                card=None,
                guesses=ev.detail.get("guesses", []),
                frame=ev.frame,
                time=round(ev.time, 3),
                box=list(ev.box or ()),
                text=uncertain_text(seat, frames, self.fps),
            )
        )

    # --- corrections ----------------------------------------------------------------------

    def correct(
        self,
        card: str,
        seat: int | None = None,
        replaces: str | None = None,
        frame: int | None = None,
        by: str = "caller",
    ) -> list[dict[str, Any]]:
        """A person says what the camera could not read (or misread); kept in the record.

        Without ``replaces`` the card is played now (by ``seat``, default ``seat_waited_for``);
        with it, that earlier play is given this card instead and the deal is refereed again.
        """
        try:
            new_card = parse_card(card).index
        except CardError as exc:
            raise PipelineError(f"correction: {exc}") from None
        if seat is not None and (type(seat) is not int or not 0 <= seat <= 3):
            raise PipelineError(f"correction: seat out of range (0..3), got {seat!r}")
        at_frame = self.plays[-1].frame if frame is None and self.plays else (frame or 0)
        at = at_frame / self.fps
        if replaces is None:
            if any(p.card == new_card for p in self.plays):
                raise PipelineError(f"correction: {DECK[new_card]} was already played")
            if self.referee.is_over:
                raise PipelineError("correction: the deal's 8 tricks are complete")
            waited = self.seat_waited_for
            given = waited if seat is None else seat
            k = next((i for i, (e, _) in enumerate(self._held) if e.card == new_card), None)
            if k is not None:
                # A card held for a later turn, read where the seat on turn sits (or between
                # seats), is that seat's if a person says so; one lying clearly in front of
                # another seat is played when that seat is on turn.
                where = self._position(self._held[k][0])
                if given != waited or (where.clear and where.by_position != given):
                    raise PipelineError(
                        f"correction: {DECK[new_card]} was read in front of seat {where.seat}; "
                        "it is played when that seat is on turn"
                    )
                self._play_held(k, given, by)
            else:
                self._name_unread(new_card, given, at_frame, by)
            if self._ended:  # the clip is over: what is held and left settles as at its end
                self._settle_end()
            else:
                self._flush(max(self._now, at_frame))  # cards held for it follow
            return self._drain()
        try:
            old = parse_card(replaces).index
        except CardError as exc:
            raise PipelineError(f"correction: replaces: {exc}") from None
        hits = [p for p in self.plays if p.card == old]
        if not hits:
            raise PipelineError(f"correction: {DECK[old]} was not played")
        if new_card != old and any(p.card == new_card for p in self.plays):
            raise PipelineError(f"correction: {DECK[new_card]} was already played")
        play = hits[0]
        item = {
            "card": str(DECK[new_card]),
            "seat": play.seat if seat is None else seat,
            "replaces": str(DECK[old]),
            "trick": play.trick,
            "by": by,
        }
        self._log_correction(item, at_frame, at)
        play.card, play.seat, play.source = new_card, item["seat"], "correction"
        self.tracker.release(old)
        self._rereferee(at_frame, at)
        return self._drain()

    def table_correction(
        self, card: str, seat: int | None = None, deal: int | None = None, by: str = "table"
    ) -> list[dict[str, Any]]:
        """A person at the table names the card the deal waits for (the overlay's one click,
        or a line on ``hakam run --headless --stdin-corrections``: ``by`` "caller"): played
        for ``seat`` if the trick waits for that seat (``seat_waited_for``), and after the end
        of the clip the deal is settled and scored again. A correction that cannot be taken
        (a card already played, a seat not on turn, the deal complete) changes nothing and
        comes back as an ``uncertain`` event saying why in one line."""
        try:
            if deal is not None and deal != self.setup.deal:
                raise PipelineError(
                    f"correction: deal {deal} is over (this is deal {self.setup.deal})"
                )
            if self.referee.is_over:
                raise PipelineError("correction: the deal's 8 tricks are complete")
            turn = self.seat_waited_for
            if seat is not None and seat != turn:
                raise PipelineError(
                    f"correction: seat {seat} is not on turn (the deal waits for seat {turn})"
                )
            events = self.correct(card, seat=turn, by=by)
        except PipelineError as exc:
            self._say(seat, str(exc), frame=max(self._now, 0))
            return self._drain()
        return events + (self.finish() if self._ended else [])

    def table_confirmation(
        self, trick: int, seat: int, rule: str | None = None, deal: int | None = None
    ) -> list[dict[str, Any]]:
        """A person at the table confirms what a suspected ruling rests on (the window's
        *Accept* on it, or a ``{"confirm": ...}`` line on ``--stdin-corrections``): ``confirm``,
        refused in one line for another deal."""
        if deal is not None and deal != self.setup.deal:
            self._say(seat, f"confirmation: deal {deal} is over (this is deal {self.setup.deal})",
                      frame=max(self._now, 0))  # fmt: skip
            return self._drain()
        return self.confirm(trick, seat, rule)

    def _play_held(self, k: int, seat: int, by: str) -> None:
        """A person says a card the camera read and held for a later turn is the card ``seat``
        (on turn) played now: it is played from the hold for that seat (a correction ``by``
        ``by``, its reads kept as its evidence), and a trick taken for swept before it is not."""
        ev, fr = self._held.pop(k)
        at = max(fr.index, self._now)
        card = CARD_NAMES[int(ev.card)]  # type: ignore[arg-type]
        item = {"card": card, "seat": seat, "replaces": None, "by": by, "held": True}
        self._log_correction(item, at, at / self.fps)
        self._gap_trick = None
        self._push_camera(ev, fr, seat)

    def _name_unread(self, card: int, seat: int, frame: int, by: str) -> None:
        """Play a card the camera did not read, named by ``by`` (a person, or elimination)."""
        at = frame / self.fps
        item = {"card": CARD_NAMES[card], "seat": seat, "replaces": None, "by": by}
        self._log_correction(item, frame, at)
        self.tracker.release(card)
        self.tracker.tracks[card].state = self.tracker.tracks[card].state.ON_TABLE
        source = by if by in DEDUCED else "correction"
        self._play(card, seat, frame, at, source, None, None)
        trick = self.plays[-1].trick
        if any(v.rule == "out-of-turn" and v.trick == trick for v in self.referee.violations):
            # A card not read has no time of its own: it went when its seat was on turn, so a
            # card of its trick that seemed to come before its turn did not (``_rereferee``).
            self._rereferee(frame, at)

    def _log_correction(self, item: dict[str, Any], frame: int, at: float) -> None:
        self.corrections.append({**item, "frame": frame, "time": round(at, 3)})
        self._emit(
            event("correction", deal=self.setup.deal, frame=frame, time=round(at, 3), **item)
        )

    def _rereferee(self, frame: int, at: float) -> None:
        """Referee the corrected plays from the start; report the violations that now stand
        and withdraw those that no longer do."""
        old = self.referee.violations
        before = {json.dumps(v.to_json(), sort_keys=True) for v in old}
        self.referee = self._new_referee()
        hold = self.settings.hold_s * self.fps
        plays: list[Play] = []
        for trick in sorted({p.trick for p in self.plays}):
            rest = [p for p in self.plays if p.trick == trick]
            while rest:
                # As live (``_flush``): of cards played within the hold time of each other, the
                # one at the seat on turn goes first; a correction can change whose turn it is.
                # A card not read (named later) has no time of its own: it goes when its seat
                # is on turn, and the hold time counts from the first card read.
                turn = self.referee.turn
                first = next((p.frame for p in rest if p.source not in UNREAD), rest[0].frame)
                k = next(
                    (
                        i
                        for i, p in enumerate(rest)
                        if p.seat == turn and (p.frame - first <= hold or p.source in UNREAD)
                    ),
                    0,
                )
                p = rest.pop(k)
                self.referee.push_index(p.card, p.seat)
                plays.append(p)
        self.plays = plays
        now = {json.dumps(v.to_json(), sort_keys=True) for v in self.referee.violations}
        for v in old:
            if json.dumps(v.to_json(), sort_keys=True) not in now:
                self._emit(
                    event(
                        "withdrawn", deal=self.setup.deal, frame=frame, time=round(at, 3),
                        **v.to_json(),
                    )
                )  # fmt: skip
        for v in self.referee.violations:
            if json.dumps(v.to_json(), sort_keys=True) not in before:
                self._violations([v], frame, at)
        self._write_record()

    # --- end of deal ----------------------------------------------------------------------

    def finish(self) -> list[dict[str, Any]]:
        """The score (complete deal) or the state so far; writes the record and the ruling.
        Again after a person's correction at the end, with the score then."""
        self._ended = True
        self._settle_end()
        self._exchange_misread()
        ref = self.referee
        match = self.setup.match
        outcome = ref.outcome(match)
        penalty = None
        proven = self.proven()
        if proven:  # a suspected violation changes no score until a person confirms it
            first = proven[0]
            result, over, winner = ref.penalty(first, match)
            penalty = {"rule": first.rule, "seat": first.seat, "team": 1 - first.team}
        elif outcome is not None:
            result, over, winner = outcome.result, outcome.match_over, outcome.match_winner
        else:
            result, over, winner = None, False, None
        score = event(
            "score",
            deal=self.setup.deal,
            complete=ref.is_over,
            **(outcome.to_json() if outcome else {}),
        )
        score.update(
            {
                "card_points": list(ref.card_points),
                "tricks_won": list(ref.tricks_won),
                "result": None if result is None else list(result),
                "match": None if result is None else [match[0] + result[0], match[1] + result[1]],
                "penalty": penalty,
                "match_over": over,
                "match_winner": winner,
                "status": self.score_status(),
                "suspected": len(ref.violations) - len(proven),
            }
        )
        self._emit(score)
        paths = self._write_record()
        self._emit(
            event(
                "end",
                frames=self.frames,
                plays=len(self.plays),
                tricks=len(ref.tricks),
                violations=len(ref.violations),
                corrections=len(self.corrections),
                held=[CARD_NAMES[int(e.card)] for e, _ in self._held],  # type: ignore[arg-type]
                tracker=dict(self.tracker.stats),
                **paths,
            )
        )
        return self._drain()

    def score_status(self) -> str:
        """``final`` or ``provisional`` (``hakam.vision.provenance.score_status``)."""
        suspected = len(self.referee.violations) - len(self.proven())
        waiting = [int(e.card) for e, _ in self._held]  # type: ignore[arg-type]
        return score_status(self.referee.is_over, suspected, self.plays, waiting)

    def ruling(self) -> dict[str, Any]:
        """What ``hakam referee`` says about this run's record."""
        return {"void": False, "dealer": self.setup.dealer, **self.referee.ruling(self.setup.match)}

    def ruling_with_provenance(self) -> dict[str, Any]:
        """``ruling`` (what ruling.json holds) with how each ruling is known: each violation
        ``proven`` or ``suspected`` (with its question), the score ``final`` or
        ``provisional``, and each play's provenance."""
        out = self.ruling()
        for item, v in zip(out["violations"], self.referee.violations, strict=True):
            item["status"] = violation_status(v, self.plays)
            item["question"] = question(v, self.plays)
        out["status"] = self.score_status()
        out["plays"] = [
            {"trick": p.trick, "seat": p.seat, "card": CARD_NAMES[p.card], **p.to_json()}
            for p in self.plays
        ]
        return out

    @property
    def record(self) -> dict[str, Any]:
        """The ``hakam-deal/1`` record of what was seen (and corrected) so far."""
        tricks: list[dict[str, Any]] = []
        known: list[list[str]] = []  # how each card is known (``Play.provenance``)
        for p in self.plays:
            if not tricks or len(tricks[-1]["cards"]) == 4:
                tricks.append({"cards": [], "seats": []})
                known.append([])
            tricks[-1]["cards"].append(CARD_NAMES[p.card])
            tricks[-1]["seats"].append(p.seat)
            known[-1].append(p.provenance)
        s = self.setup
        rec: dict[str, Any] = {
            "format": FORMAT,
            "dealer": s.dealer,
            "open_card": None if self.open_card is None else CARD_NAMES[self.open_card],
            "contract": s.contract.to_json(),
            "tricks": tricks,
            "ekka": [],
            "projects": [
                {"seat": c.seat, "kind": c.kind, "cards": [str(x) for x in c.cards]}
                for c in s.projects
                if c.kind != "baloot"
            ],
            "match": list(s.match),
            "profile": profile_json(s.profile),
        }
        if s.baloot is not None:
            rec["baloot"] = list(s.baloot)
        if known:
            rec["provenance"] = known
        if self.corrections:
            rec["note"] = "corrections: " + "; ".join(
                f"{c['card']} by seat {c['seat']}"
                + (
                    f" instead of seat {c['from_seat']}"
                    if "from_seat" in c
                    else f" instead of {c['replaces']}"
                    if c.get("replaces")
                    else ""
                )
                + (f" ({NAMED_BY[c['by']]})" if c.get("by") in NAMED_BY else "")
                + (" (confirmed by a person)" if c.get("by") == "confirmed" else "")
                + (" (read, held for a later turn)" if c.get("held") else "")
                + (
                    " (not read)"
                    if not c.get("replaces")
                    and c.get("by") not in (*NAMED_BY, "confirmed")
                    and not c.get("held")
                    else ""
                )
                + f" at frame {c['frame']}"
                for c in self.corrections
            )
        return rec

    def _write_record(self) -> dict[str, str]:
        if self.out_dir is None:
            return {}
        rec_path = self.out_dir / "deal.json"
        rec_path.write_text(json.dumps(self.record, indent=1, ensure_ascii=False) + "\n")
        ruling_path = self.out_dir / "ruling.json"
        ruling_path.write_text(json.dumps(self.ruling_with_provenance(), ensure_ascii=False) + "\n")
        return {
            "record": str(rec_path),
            "ruling": str(ruling_path),
            "evidence": str(self.out_dir / "evidence"),
        }

    # --- helpers --------------------------------------------------------------------------

    def _new_referee(self) -> Referee:
        s = self.setup
        return Referee(s.contract, s.profile, s.projects, s.baloot)

    def _save_crop(self, frame: Frame, ev: TrackEvent, seat: int) -> str | None:
        if self.out_dir is None or ev.box is None:
            return None
        h, w = frame.image.shape[:2]
        x1, y1, x2, y2 = ev.box
        px, py = (x2 - x1) * self.settings.crop_pad, (y2 - y1) * self.settings.crop_pad
        a, b = int(max(x1 - px, 0)), int(max(y1 - py, 0))
        c, d = int(min(x2 + px, w)), int(min(y2 + py, h))
        if c <= a or d <= b:
            return None
        n = len(self.plays) + 1
        name = f"{n:02d}-trick{self.referee.trick_number}-seat{seat}-{ev.name}.jpg"
        path = self.out_dir / "evidence" / name
        cv2.imwrite(str(path), frame.image[b:d, a:c], [cv2.IMWRITE_JPEG_QUALITY, 90])
        return str(path)

    def _emit(self, ev: dict[str, Any]) -> None:
        self.events.append(ev)
        self._emit_list.append(ev)

    def _drain(self) -> list[dict[str, Any]]:
        self._restatus()
        out, self._emit_list = self._emit_list, []
        return out

    def start_events(self) -> list[dict[str, Any]]:
        """Events emitted before the first frame (the ``deal`` event)."""
        return self._drain()


def run_frames(
    pipeline: Pipeline,
    frames: Iterable[Frame],
    on_event: Callable[[dict[str, Any]], None] | None = None,
) -> list[dict[str, Any]]:
    """Feed every frame and finish; returns all events (and passes each to ``on_event``)."""
    out = pipeline.start_events()
    for ev in out:
        if on_event:
            on_event(ev)
    for frame in frames:
        for ev in pipeline.process(frame):
            out.append(ev)
            if on_event:
                on_event(ev)
    for ev in pipeline.finish():
        out.append(ev)
        if on_event:
            on_event(ev)
    return out


def iter_feed(
    pipeline: Pipeline, frames: Iterable[Frame], corrections: queue.Queue | None = None
) -> Iterator[tuple[np.ndarray | None, list[dict[str, Any]], list[dict[str, Any]], float]]:
    """For a live view: (frame, detections as dicts, events, detector ms) per frame; the
    ``finish`` events come with the last frame. Fits ``hakam.gui.feed.FeedItem`` field for field.

    ``corrections``: the table's one-click answers (dicts with ``card`` and ``seat``, as
    ``hakam.gui.controllers.LiveController.correct`` sends them, and ``by`` where not the table),
    taken between frames (``Pipeline.table_correction``). When the clip ends with the deal
    incomplete, the feed goes on waiting for them (an item with no frame every ``IDLE_S``
    while none comes), so the deal the camera could not finish is finished at the table; it
    ends with the deal, or when ``NO_MORE_CORRECTIONS`` comes (the caller's input closed)."""
    pending = pipeline.start_events()
    last = None
    feed = _Corrections(pipeline, corrections)
    for frame in frames:
        if last is not None:
            yield last
        events = pending + feed.take() + pipeline.process(frame)
        pending = []
        last = (frame.image, pipeline.last_detections.to_json(), events, pipeline.last_detect_ms)
    end = pipeline.finish()
    if last is not None:
        yield (last[0], last[1], last[2] + end, last[3])
    elif pending or end:
        yield (np.zeros((1, 1, 3), np.uint8), [], pending + end, 0.0)
    while corrections is not None and not feed.closed and not pipeline.referee.is_over:
        try:
            item = corrections.get(timeout=IDLE_S)
        except queue.Empty:
            yield (None, [], [], 0.0)
            continue
        yield (None, [], feed.take([item]), 0.0)


# How often a feed waiting for the table's corrections after the clip hands back control.
IDLE_S = 0.25
# Put on a feed's corrections queue when no more will come (standard input closed).
NO_MORE_CORRECTIONS = None


class _Corrections:
    """The corrections waiting in a feed's queue, taken in turn (``table_correction``)."""

    def __init__(self, pipeline: Pipeline, corrections: queue.Queue | None) -> None:
        self.pipeline, self.queue, self.closed = pipeline, corrections, False

    def take(self, got: list[Any] | None = None) -> list[dict[str, Any]]:
        """The events of the corrections ``got`` and of those waiting in the queue."""
        items = list(got or [])
        while self.queue is not None:
            try:
                items.append(self.queue.get_nowait())
            except queue.Empty:
                break
        events: list[dict[str, Any]] = []
        for item in items:
            if item is NO_MORE_CORRECTIONS:
                self.closed = True
                continue
            seat, deal = item.get("seat"), item.get("deal")
            if item.get("confirm"):
                events += self.pipeline.table_confirmation(
                    int(item["trick"]), int(seat), item.get("rule"),
                    None if deal is None else int(deal),
                )  # fmt: skip
                continue
            events += self.pipeline.table_correction(
                str(item.get("card")),
                None if seat is None else int(seat),
                None if deal is None else int(deal),
                str(item.get("by", "table")),
            )
        return events


def settings_json(settings: PipelineSettings) -> dict[str, Any]:
    return asdict(settings)


def settings_from_overrides(over: dict[str, Any]) -> PipelineSettings:
    """Pipeline settings from overrides by name, pipeline and tracker fields alike (the
    benchmarks' grids and ``--settings``); a name that is neither is a one-line
    ``PipelineError``."""
    pipe_keys = {f.name for f in fields(PipelineSettings)} - {"tracker"}
    track_keys = {f.name for f in fields(TrackerSettings)}
    if unknown := sorted(set(over) - pipe_keys - track_keys):
        raise PipelineError(f"settings: no such setting {', '.join(unknown)}")
    pipe = {k: v for k, v in over.items() if k in pipe_keys}
    track = {k: v for k, v in over.items() if k in track_keys}
    return PipelineSettings(tracker=TrackerSettings(**track), **pipe)


def settings_from_json(text: str) -> PipelineSettings:
    """``settings_from_overrides`` of a JSON object (``--settings``); text that is not one is a
    one-line ``PipelineError``."""
    try:
        over = json.loads(text)
    except ValueError as exc:
        raise PipelineError(f"settings: not JSON ({exc})") from None
    if not isinstance(over, dict):
        raise PipelineError(f"settings: a JSON object of settings, got {text!r}")
    return settings_from_overrides(over)
