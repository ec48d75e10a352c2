"""Holding cards for the seat on turn: a card read in front of another seat waits for the seat on
turn (a missed read is likelier than a player out of turn), the deal waits for a card unread in
front of that seat, and tricks are swept and collected (``Pipeline`` mixin)."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Collection, Iterable, Sequence
from typing import Any

from hakam.engine.cards import CARD_NAMES
from hakam.vision.decoder import NAME_P, likelihood
from hakam.vision.events import event, uncertain_text
from hakam.vision.sources import Frame
from hakam.vision.tracker import CardState, TrackEvent

GUESSES = 5  # cards a notice offers first for a card the deal waits for
READS_MIN = 2  # sure reads of one card, and of no other, that name a card the vote did not accept
READS_STILL = 0.25  # ... each within this share of its box diagonal of the last: the card lay still


def box_centre(box: Sequence[float]) -> tuple[float, float]:
    """Where a card lies, for its seat: the centre of its (x1, y1, x2, y2) box."""
    return (box[0] + box[2]) / 2, (box[1] + box[3]) / 2


class TurnHolding:
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
                # Of the cards read before the sweep, the seat on turn's: the first held, or
                # one of those it may go before (as below; a card read much later there may be
                # a card played late, out of turn: then a person says).
                first = self._held[0][1].index
                k = next(
                    (
                        i
                        for i, (e, fr) in enumerate(self._held)
                        if fr.index <= self._gap_frame
                        and self._position(e).seat == turn
                        and (i == 0 or self._goes_first(e, fr, turn, first))
                    ),
                    None,
                )
                if k is not None:
                    self._push_camera(*self._held.pop(k))
                    continue
                if self._name_by_elimination(turn, final) or (
                    not final and self._name_by_reads(turn, self._gap_frame)
                ):
                    continue
                self._say_stalled(turn)  # swept off the table: the camera cannot read it now
                return
            if self._trick_swept(self._held[0][1].index):
                continue
            attr = self._position(self._held[0][0])
            if attr.seat != turn and hold:
                # A card accepted just after, lying at the seat on turn, is that seat's card: it
                # goes first (one accepted much later is of a later trick); just after, counted
                # from when it was first read surely, not when the vote accepted it; or just after
                # a person named the card before it (the seat's time starts then).
                first = self._held[0][1].index
                k = next(
                    (
                        i
                        for i, (e, fr) in enumerate(self._held)
                        if self._position(e).seat == turn and self._goes_first(e, fr, turn, first)
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
                missed = self._last_unexplained(turn) > since or self.settings.assume_missed
                # Once the clip is over, a card left unread may be the one on turn even where
                # no box was seen (hidden all along): the rules may name it (out of turn else).
                if (missed or final) and self._name_by_elimination(turn, final, say=missed):
                    continue
                if missed or self._open_ways:
                    if final or self._asking(fr.index, now):
                        if not final and self._name_by_reads(turn):
                            continue
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

    def _owed(self, seat: int) -> int:
        """How many cards ``seat`` still plays in the deal."""
        played = any(s == seat for s, _ in self.referee.current_trick)
        return 8 - len(self.referee.tricks) - played

    def _holds_all_of(self, seat: int) -> bool:
        """Every card ``seat`` still plays is held, lying clearly in front of it: the card the
        deal waits for there is one of them (read late), not a card never read."""
        mine = sum(
            1 for e, _ in self._held if (w := self._position(e)).clear and w.by_position == seat
        )
        return mine >= self._owed(seat)

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

    def _asking(self, since: int, now: int) -> bool:
        """The deal has waited for the camera long enough to ask a person: ``hold_s`` and then
        ``ask_s`` since ``since`` (or since a person's last answer)."""
        wait = (self.settings.hold_s + self.settings.ask_s) * self.fps
        return now - max(since, self._named_at) >= wait

    def _name_by_reads(self, seat: int, swept: int = -1) -> bool:
        """As it asks a person for ``seat``'s card (not after: a person may be answering): a
        card still possible that the reads in front of the seat took surely for it
        ``READS_MIN`` times or more, lying still (``READS_STILL``), and surely for no other
        card (played or not), nor for it in front of another seat, is named "reads" with its
        likelihood from those reads (``decoder.likelihood``), at ``NAME_P`` or more: a card the
        vote missed (reads dropped, a card collected soon after it landed). The reads: while it
        can have landed, and on while reads no card explained lay there without a break (the
        same card, read late), or, of a trick swept off the table, until its cards were last
        seen (``swept``). Below ``FINAL_P`` it leaves the score provisional unless the deal's
        end finds it the one card left (``_settle_named``) or near certain among the cards
        named (``_weigh_placings``); a notice says so."""
        asked = self._stall_said == (self.referee.trick_number, seat)
        if not self.settings.name_by_reads or asked:
            return False
        possible = self._possible()
        since, until = self._landing()
        runs = self._unexplained_runs.get(seat, ())
        end = swept if swept >= 0 else max([until] + [b for a, b, _ in runs if a <= until])
        end = min(end, self._now)
        _, sure = self._landing_reads(seat, since, end)
        if len(sure) != 1:
            return False  # no sure read, or sure reads of two cards: the reader was not sure
        ((card, n),) = sure.items()
        elsewhere = any(
            c == card and since < f <= end
            for other, log in self._sure_log.items()
            if other != seat
            for f, c, *_ in log
        )
        still = self._lay_still(seat, card, since, end)
        if card not in possible or n < READS_MIN or elsewhere or not still:
            return False
        scores = self._scores_between(seat, possible, since, end)
        p = likelihood(possible, scores)[card]
        if p < NAME_P:
            return False
        self._name_unread(card, seat, self._now, "reads", p, place=(since, end))
        # Its play, not the last one: a trick with a card out of turn is put back in turn
        # order once the card is named (``_rereferee``).
        named = next(play for play in self.plays if play.card == card)
        trick, p = named.trick, named.probability  # at most BESIDE_P beside
        self._say(
            seat,
            f"{CARD_NAMES[card]} named for seat {seat} in trick {trick} by its sure reads there "
            f"(likelihood {p:.2f}; the vote did not accept it): a person may correct it",
            guesses=[CARD_NAMES[card]],
            trick=trick,
        )
        return True

    def _lay_still(self, seat: int, card: int, since: int, end: int) -> bool:
        """The sure reads of ``card`` in front of ``seat`` in frames ``(since, end]`` lay where
        the last one lay (within ``READS_STILL`` of its diagonal): a card lying there, not one
        carried past."""
        boxes = [b for f, c, *rest in self._sure_log.get(seat, [])
                 if c == card and since < f <= end for b in rest]  # fmt: skip
        if not boxes:
            return True  # logged without its box (a test's log): nothing says it moved
        last = boxes[-1]
        x, y = box_centre(last)
        reach = READS_STILL * math.hypot(last[2] - last[0], last[3] - last[1])
        return all(math.hypot(cx - x, cy - y) <= reach for cx, cy in map(box_centre, boxes))

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
            trick=self.referee.trick_number,
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
        beside = list(self.tracker.beside.xyxy)  # a card read on a lying card read too
        for box in self.tracker.unplaced(now) + sighted + beside:
            seat = self._seat_facing(box)
            if seat is None:
                continue
            runs = self._unexplained_runs.setdefault(seat, [])
            if not (runs and runs[-1][1] >= now - 1):
                runs.append([now, now, []])
            runs[-1][1] = now  # the run goes on (or this frame is in it already)
            runs[-1][2].append((now, tuple(float(v) for v in box[:4])))

    def _goes_first(self, e: TrackEvent, fr: Frame, seat: int, first: int) -> bool:
        """``e``, held at ``seat`` (on turn), is that seat's card played before the cards held
        before it (the first accepted at frame ``first``): first read surely within ``hold_s``
        of it, or of a person's naming the card before it (the seat's time starts then), or the
        card the deal waited for there, read late (``_read_late``)."""
        hold, named, at = self.settings.hold_s * self.fps, self._named_at, self._appeared(e, fr)
        return (
            at - first <= hold
            or (named >= 0 and 0 <= at - named <= hold)
            or self._read_late(seat, at, first + hold, e.box)
        )

    def _read_late(self, seat: int, at: int, waited: int, box: Sequence[float]) -> bool:
        """A card first read surely at frame ``at`` in front of ``seat``, lying at ``box``, is
        the card the deal waited for there, read late: reads no card explained lay in front of
        the seat without a break from before ``waited`` (the hold of the first card held for
        its turn ran out: the deal waited for them) until it was read, and one of them, before
        it was read, where it lies (not a hand held low beside it). A later trick's card there
        follows a break: the trick's cards are collected before it is led."""
        cx, cy = box_centre(box)
        return any(
            a <= waited
            and a <= at <= b + 1
            and any(f < at and x1 <= cx <= x2 and y1 <= cy <= y2 for f, (x1, y1, x2, y2) in seen)
            for a, b, seen in self._unexplained_runs.get(seat, ())
        )

    def _last_unexplained(self, seat: int) -> int:
        """The last frame with reads no card explained in front of ``seat`` (-1: none)."""
        runs = self._unexplained_runs.get(seat)
        return runs[-1][1] if runs else -1

    def _unfinished_trick(self) -> set[int]:
        """Cards of the trick in play while it is short of its four cards and nothing is held:
        the tracker takes a new card read on one's spot for a misread of it while another
        still lies there (``CardTracker.pinned``)."""
        if self._held or self.referee.is_over:
            return set()
        n = self.referee.trick_number
        return {p.card for p in self.plays if p.trick == n and p.source == "camera"}

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
        return self._scores_between(seat, cards, *self._place_window(seat, cards))

    def _place_window(self, seat: int, cards: Collection[int]) -> tuple[int, int]:
        """The frames ``(since, until]`` whose reads ``_read_scores`` weighs for ``cards``:
        while the card can have landed, or, where none of those reads names one of ``cards``,
        on to the first held card of a later trick."""
        since, until = self._landing()
        if (
            not self._scores_between(seat, cards, since, until)
            and (later := self._next_trick_held(seat)) > until
        ):
            return until, later
        return since, until

    def _beside_between(self, seat: int, since: int, until: int) -> bool:
        """Reads kept beside a lying card (``CardTracker.beside``) lay in front of ``seat`` in
        frames ``(since, until]``: they may be the finder's second box on it, misread."""
        return any(since < f <= until for f, _ in self._beside_log.get(seat, ()))

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
        sure = Counter(c for f, c, *_ in self._sure_log.get(seat, []) if since < f <= until)
        return guessed, sure

    def _landing(self) -> tuple[int, int]:
        """The frames in which the card the deal waits for can have landed: after the last
        card read was accepted, up to the next card held (a card pushed at the end of the
        clip was accepted long before it was played; a later trick's card at the same seat
        comes after)."""
        since = max((p.landed for p in self.plays), default=-1)
        until = self._held[0][1].index if self._held else self._now
        return since, max(until, since + 1)
