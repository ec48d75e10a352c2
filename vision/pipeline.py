"""The live referee: frames → detections → card tracker → seats → engine referee → events.

``Pipeline.process(frame)`` returns the events that frame proves; every accepted card goes to
``hakam.engine.referee.Referee`` at once, so a violation is reported the moment its proof is seen.
The run keeps the ``hakam-deal/1`` record (written after every trick and at the end) and a JPEG crop
of the frame for every accepted card: ``hakam referee`` on that record gives the live ruling.
"""

from __future__ import annotations

import queue
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from hakam.engine.cards import CARD_NAMES
from hakam.engine.referee import Referee
from hakam.vision.checkpoint import Checkpoints
from hakam.vision.conflicts import ReadConflicts, _Sighting
from hakam.vision.correction_queue import IDLE_S, CorrectionQueue
from hakam.vision.corrections import TableCorrections, untold
from hakam.vision.deal_record import DealRecorder
from hakam.vision.detections import Detections
from hakam.vision.events import event
from hakam.vision.exchanges import MisreadExchanges
from hakam.vision.naming import CardNaming, _Way
from hakam.vision.open_card import OpenCard
from hakam.vision.provenance import Play
from hakam.vision.seats import Calibration, SeatMap, attribute, table_geometry
from hakam.vision.settings import DealSetup, Detector, PipelineSettings
from hakam.vision.sources import Frame
from hakam.vision.tracker import CardState, CardTracker, TrackEvent
from hakam.vision.turns import TurnHolding, box_centre
from hakam.vision.zones import PolygonZone


class Pipeline(  # one responsibility a mixin, each in its module
    OpenCard, ReadConflicts, TurnHolding, CardNaming, MisreadExchanges, TableCorrections,
    DealRecorder, Checkpoints,
):  # fmt: skip
    """One deal refereed from frames. ``process`` each frame in order, then ``finish``.

    ``calibration_seat``: the seat the calibration marks (default: this deal's dealer; in a
    match, the first dealer, as the table was calibrated at its start)."""

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
        calibration_seat: int | None = None,
    ) -> None:
        self.setup = setup
        self.detector = detector
        self.settings = settings or PipelineSettings()
        self.seats = (
            None
            if calibration is None
            else SeatMap(
                calibration,
                setup.dealer if calibration_seat is None else calibration_seat,
                clear_deg=self.settings.clear_deg,
            )
        )
        self.roi = roi
        self.fps = fps
        self.tracker = CardTracker(self.settings.tracker, fps)
        self.referee = self._new_referee()
        self.plays: list[Play] = []
        self._told: dict[str, str] = {}  # the status each violation was last told with
        self._questions: dict[str, str | None] = {}  # ... and its question
        self._asked_tricks: set[int] = set()  # tricks in doubt asked of a person
        self._same_result: tuple[Any, set[int]] = (None, set())  # ``DealRecorder.same_result``
        self.corrections: list[dict[str, Any]] = []
        self.events: list[dict[str, Any]] = []
        self.open_card: int | None = None
        self._open_on_table = False
        self._phase = "open" if self.settings.read_open_card else "play"
        self._uncollected: list[int] = []  # cards of the last complete trick still lying
        self._collected_tricks = 0
        self._held: list[tuple[TrackEvent, Frame]] = []  # accepted, waiting for the turn seat
        self._stall_said: tuple[int, int] | None = None  # (trick, seat) said to be unread
        # Per seat: [first, last, [(frame, box), ...]] of each run of frames with unexplained
        # reads there.
        self._unexplained_runs: dict[int, list[list[Any]]] = {}
        self._guess_log: dict[int, list[tuple[int, list[str]]]] = {}  # per seat: (frame, guesses)
        # Per seat: (frame, card, box) of each sure read of a card the vote had not (yet) accepted.
        self._sure_log: dict[int, list[tuple[Any, ...]]] = {}
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
        # The reads at each named card's place, (trick, seat) -> {card: score}, kept when it was
        # named (``_name_unread``): the deal's end weighs the placings of its named cards.
        self._named_scores: dict[tuple[int, int], dict[int, float]] = {}
        # Of the sure reads logged, those kept beside a lying card (``CardTracker.beside``):
        # seat -> {(frame, card)}; and the places of cards named on such reads (capped below
        # ``FINAL_P``: the reads may be the finder's second box on the lying card, misread).
        self._beside_log: dict[int, set[tuple[int, int]]] = {}
        self._beside_named: set[tuple[int, int]] = set()
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
                bids=[list(b) for b in setup.bids],
                contract=setup.contract.to_json(),
                table=self.table_geometry(),
            )
        )

    def table_geometry(self) -> dict[str, Any] | None:
        """Where the table is in the frame, for the live view (``table_geometry``)."""
        return table_geometry(self.seats, self.roi)

    # --- per frame ------------------------------------------------------------------------

    def process(self, frame: Frame) -> list[dict[str, Any]]:
        """Events proven by this frame (plays, violations, tricks, uncertain reads)."""
        t0 = time.perf_counter()
        ruled_out = self.tracker.collected() if self.settings.rule_out_collected else ()
        dets = self.detector.detect(frame.image, ruled_out=ruled_out)
        self._tell_deck_misfit(frame.index, frame.time)
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
        self.tracker.pin(self._unfinished_trick())
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

    def _tell_deck_misfit(self, now: int, at: float) -> None:
        """Tell the table when the cards read more like another deck than the one chosen (or
        the standard readers), once for as long as the reader lives
        (``hakam.vision.deck_check``): the deal goes on, the table chooses."""
        check = getattr(self.detector, "deck_check", None)
        text = None if check is None else check.tell()
        if text is not None:
            self._emit(event("uncertain", deal=self.setup.deal, seat=None, trick=None,
                             card=None, guesses=[], box=[], text=text, about="deck",
                             deck=check.name, like=check.like, frame=now,
                             time=round(at, 3)))  # fmt: skip

    def collected_all(self, since_s: float) -> bool:
        """The deal is complete and its last trick has been off the table (none of its cards
        read) for ``since_s`` seconds: the deal is over on the table too."""
        if not self.referee.is_over or not self._uncollected:
            return self.referee.is_over and self._collected_tricks == 8
        gap = max(1, round(since_s * self.fps))
        return all(self._now - self.tracker.tracks[c].last_seen >= gap for c in self._uncollected)

    def _note_sure_reads(self, now: int) -> None:
        """Log the sure reads of cards the vote has not accepted, by the seat they face: a card
        read now as one card, now as another, is never accepted, but its sure reads still tell
        which card it likely is (``_read_among``). So do the reads of a card on a lying card
        that was read too (``CardTracker.beside``): a card played over it, never voted for."""
        reads = [(t.card, t.box) for t in self.tracker.tracks
                 if t.state is CardState.CANDIDATE and t.last_seen == now]  # fmt: skip
        beside = [
            (int(c), box)
            for box, c in zip(self.tracker.beside.xyxy, self.tracker.beside.class_id, strict=True)
        ]
        for k, (card, box) in enumerate(reads + beside):
            seat = self._seat_facing(box)
            if seat is not None:
                self._sure_log.setdefault(seat, []).append((now, card, tuple(box)))
                if k >= len(reads):
                    self._beside_log.setdefault(seat, set()).add((now, card))

    def _on_accepted(self, ev: TrackEvent, frame: Frame) -> None:
        card = int(ev.card)  # type: ignore[arg-type]
        if self._phase == "open" and self._on_open_card(ev, frame):
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

    # --- holding cards that lie in front of a seat not on turn --------------------------

    def _position(self, ev: TrackEvent):
        centre = None if ev.box is None else box_centre(ev.box)
        return attribute(self.seats if centre is not None else None, centre, self.referee.turn)

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
            "probability": ev.detail.get("probability") if was is not None else None,
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
        more = dict(extra or {})
        probability = more.pop("probability", None)  # a named card's (the play's own field)
        place_seen = bool(more.pop("place_seen", False))  # ... and so is this
        landed = more.get("accepted_frame", -1)
        seen_at = more.get("position_seat") == seat and bool(more.get("position_clear"))
        play = Play(trick, seat, card, frame, at, source, evidence, box, landed,
                    more.get("confidence"), seen_at, probability=probability,
                    place_seen=place_seen)  # fmt: skip
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
                turn=None if self.referee.is_over else self.seat_waited_for,
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

    # --- corrections ----------------------------------------------------------------------

    # --- end of deal ----------------------------------------------------------------------

    # --- helpers --------------------------------------------------------------------------

    def _new_referee(self) -> Referee:
        s = self.setup
        return Referee(s.contract, s.profile, s.projects, s.baloot)

    def _emit(self, ev: dict[str, Any]) -> None:
        self.events.append(ev)
        self._emit_list.append(ev)

    def _drain(self) -> list[dict[str, Any]]:
        self._restatus()
        out, self._emit_list = untold(self._emit_list), []
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
    pipeline: Pipeline,
    frames: Iterable[Frame],
    corrections: queue.Queue | None = None,
    keep_open: bool = False,
) -> Iterator[tuple[np.ndarray | None, list[dict[str, Any]], list[dict[str, Any]], float]]:
    """For a live view: (frame, detections as dicts, events, detector ms) per frame; the
    ``finish`` events come with the last frame. Fits ``hakam.gui.feed.FeedItem`` field for field.

    ``corrections``: the table's one-click answers (dicts with ``card``, ``seat`` and the
    notice's ``trick``, as
    ``hakam.gui.controllers.LiveController.correct`` sends them, and ``by`` where not the table),
    taken between frames (``Pipeline.table_correction``), and confirmations (``confirm``:
    ``Pipeline.table_confirmation``). When the clip ends with something to ask (``asks``: the
    deal incomplete, a ruling suspected, or a trick asked), the feed goes on waiting for them
    (an item with no frame every ``IDLE_S`` while none comes), so what the camera could not
    settle is settled at the table; it ends when nothing is left to ask (``keep_open``: not
    then, as in the window, where a dispute may correct a complete deal), or when
    ``NO_MORE_CORRECTIONS`` comes (the caller's input closed)."""
    pending = pipeline.start_events()
    last = None
    feed = CorrectionQueue(pipeline, corrections)
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
    for events in feed.waiting(IDLE_S, lambda: keep_open or pipeline.asks()):
        yield (None, [], events or [], 0.0)
