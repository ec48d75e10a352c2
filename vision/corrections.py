"""A person at the table: names a card the camera could not read, corrects a misread, or confirms
what a suspected ruling rests on; the deal is refereed again (``Pipeline`` mixin), and the
violations that now stand or no longer stand are told."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from hakam.engine.cards import CARD_NAMES, DECK, CardError, parse_card
from hakam.engine.referee import Violation
from hakam.vision.decoder import BESIDE_P
from hakam.vision.events import event
from hakam.vision.provenance import (
    DEDUCED,
    PROVEN,
    UNREAD,
    Play,
    told,
    violation_status,
)
from hakam.vision.settings import PipelineError

# A card read is accepted within this long of the boxes no read explained yet where it landed.
ACCEPT_GRACE_S = 1.5
# Frames of boxes no read explained, in front of a seat, that show a card lay there unread.
UNREAD_MIN_S = 0.25


def _untimed(p: Play) -> bool:
    """A play with no time of its own: a card not read, named (by a person or the pipeline); it
    went when its seat was on turn. A card read keeps its time when a person corrects only
    which card it was."""
    return p.source in UNREAD and p.landed < 0


def _key(v: Violation) -> str:
    return json.dumps(v.to_json(), sort_keys=True)


# The fields of ``Violation.to_json``, which a ``violation`` event carries as they are.
_VIOLATION_FIELDS = tuple(Violation(0, 0, None, "", None, "").to_json())


def _key_of(e: dict[str, Any]) -> str:
    """``_key`` of the violation an event tells (``violation``, its status, ``withdrawn``)."""
    return json.dumps({k: e.get(k) for k in _VIOLATION_FIELDS}, sort_keys=True)


def untold(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``events`` less each ruling told and withdrawn among them (the deal refereed again in
    the same step: a card named or held played in the order it came, then put in its seat's
    turn), with what was said of it between: a ruling that never stood when the step ended is
    not heard (the window sounded for it, a board showed it). One told again after stays."""
    said: dict[str, list[int]] = {}  # a ruling told in this step: the events said of it
    gone: set[int] = set()
    for e in events:
        kind = e["type"]
        if kind == "violation":
            said[_key_of(e)] = [id(e)]
        elif kind == "violation_status" and _key_of(e) in said:
            said[_key_of(e)].append(id(e))
        elif kind == "withdrawn" and _key_of(e) in said:
            gone |= {*said.pop(_key_of(e)), id(e)}
    return [e for e in events if id(e) not in gone] if gone else events


class TableCorrections:
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
        self,
        card: str,
        seat: int | None = None,
        deal: int | None = None,
        by: str = "table",
        trick: int | None = None,
        replaces: str | None = None,
    ) -> list[dict[str, Any]]:
        """A person at the table names the card the deal waits for (the overlay's one click,
        or a line on ``hakam run --headless --stdin-corrections``: ``by`` "caller"): played
        for ``seat`` if the trick waits for that seat (``seat_waited_for``), and after the end
        of the clip the deal is settled and scored again. With ``trick``, the card ``seat``
        played in that trick, in a complete deal too (``_correct_play``; ``replaces``: which of
        its cards there, where it has two). A correction that cannot be taken (a card already
        played, a seat not on turn, the deal complete) changes nothing and comes back as an
        ``uncertain`` event saying why in one line."""
        try:
            if deal is not None and deal != self.setup.deal:
                raise PipelineError(
                    f"correction: deal {deal} is over (this is deal {self.setup.deal})"
                )
            now = self.referee.trick_number
            played = [p for p in self.plays if p.trick == trick]
            if (
                seat is not None
                and played
                and (trick < now or self.referee.is_over or any(p.seat == seat for p in played))
            ):  # a trick played, or the seat's card of the trick on now
                return self._correct_play(trick, seat, card, by, replaces)
            if trick is not None and trick > now and not self.referee.is_over:
                raise PipelineError(
                    f"correction: trick {trick} is not played yet (the deal is at trick {now})"
                )
            if replaces is not None:
                raise PipelineError(
                    f"correction: seat {seat} played no {replaces} in trick {trick}"
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
        return self._scored_again(events)

    def _correct_play(
        self, trick: int, seat: int, card: str, by: str, replaces: str | None
    ) -> list[dict[str, Any]]:
        """A person says ``seat`` played ``card`` in ``trick`` (a trick played, or the one on now
        where the seat has played): the play's own card confirms it (that play only); a card
        not played replaces it (``correct``); a card the record holds at another place is
        exchanged with it (``_exchange_by_person``: that place then holds the card left over, a
        deduction weighed against a three-way mix-up; a person's earlier word there too). A
        seat with no play in the trick takes the card read there for another seat
        (``_move_play``).
        ``replaces``: which of the seat's cards in the trick, where it has two. Raises
        ``PipelineError`` for what cannot be taken, before anything changes."""
        try:
            new = parse_card(card).index
        except CardError as exc:
            raise PipelineError(f"correction: {exc}") from None
        mine = [p for p in self.plays if (p.trick, p.seat) == (trick, seat)]
        if not mine:
            return self._move_play(trick, seat, new)
        if replaces is not None:
            mine = [p for p in mine if CARD_NAMES[p.card] == replaces]
            if not mine:
                raise PipelineError(
                    f"correction: seat {seat} played no {replaces} in trick {trick}"
                )
        same = [p for p in mine if p.card == new]
        if same:
            return self._confirm_plays(same)
        if len(mine) > 1:
            cards = ", ".join(CARD_NAMES[p.card] for p in mine)
            raise PipelineError(
                f"correction: seat {seat} has two cards in trick {trick} ({cards}): say which"
            )
        (play,) = mine
        if any(e.card == new for e, _ in self._held):
            raise PipelineError(f"correction: {DECK[new]} was read and waits for its seat's turn")
        other = next((p for p in self.plays if p.card == new), None)
        if other is None:
            events = self.correct(card, seat=seat, replaces=CARD_NAMES[play.card], by=by)
        else:  # a person's earlier word there too: the later stands, that trick is asked
            self._asked_tricks.discard(other.trick)
            self._exchange_by_person(play, new, by)
            events = self._drain()
        self._asked_tricks.discard(trick)
        return self._scored_again(events)

    def _move_play(self, trick: int, seat: int, card: int) -> list[dict[str, Any]]:
        """A person says ``seat``, which has no play in ``trick``, played ``card``, recorded in
        that trick for another seat: the play is that seat's (the person's word), and the trick
        is refereed again. Raises ``PipelineError`` where the card is not in the trick."""
        play = next((p for p in self.plays if p.trick == trick and p.card == card), None)
        if play is None:
            raise PipelineError(
                f"correction: seat {seat} has no card in trick {trick}, and {DECK[card]} "
                "is not in it"
            )
        at = max(self._now, 0)
        item = {"card": CARD_NAMES[card], "seat": seat, "from_seat": play.seat, "trick": trick,
                "replaces": None, "by": "confirmed"}  # fmt: skip
        self._log_correction(item, at, at / self.fps)
        play.seat, play.confirmed = seat, True
        self._asked_tricks.discard(trick)
        self._rereferee(at, at / self.fps)
        return self._scored_again(self._drain())

    def _confirm_plays(self, plays: list[Play]) -> list[dict[str, Any]]:
        """A person confirms ``plays`` as the record has them (each a ``confirmed`` correction);
        after the end of the clip the deal is scored again."""
        at = max(self._now, 0)
        for p in plays:
            p.confirmed = True
            item = {"card": CARD_NAMES[p.card], "seat": p.seat, "trick": p.trick,
                    "replaces": None, "by": "confirmed"}  # fmt: skip
            self._log_correction(item, at, at / self.fps)
        self._write_record()
        return self._scored_again(self._drain())

    def _scored_again(self, events: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """``events`` of a person's answer, and after the end of the clip the deal settled and
        scored again (``finish``)."""
        return events + (self.finish() if self._ended else [])

    def table_confirmation(
        self,
        trick: int,
        seat: int | None,
        rule: str | None = None,
        deal: int | None = None,
        card: str | None = None,
    ) -> list[dict[str, Any]]:
        """A person at the table confirms what a suspected ruling rests on (the window's
        *Confirm* on it, or a ``{"confirm": ...}`` line on ``--stdin-corrections``): ``confirm``,
        refused in one line for another deal."""
        if deal is not None and deal != self.setup.deal:
            self._say(seat, f"confirmation: deal {deal} is over (this is deal {self.setup.deal})",
                      frame=max(self._now, 0))  # fmt: skip
            return self._drain()
        return self.confirm(trick, seat, rule, card)

    def confirm(
        self, trick: int, seat: int | None, rule: str | None = None, card: str | None = None
    ) -> list[dict[str, Any]]:
        """A person confirms at the table what a suspected ruling rests on: with ``rule``, every
        doubtful play of the standing violation of that rule, seat and trick (and ``card``,
        where a seat has two such rulings); without, the play of ``seat`` in ``trick`` (every
        play of the trick when ``seat`` is None: the trick as the record has it). A
        confirmation that names nothing, or a ruling already proven, changes nothing and comes
        back as an ``uncertain`` event saying why in one line. After the end of the clip the
        deal is scored again."""
        from hakam.vision.provenance import doubtful_plays

        if rule is not None:
            hit = [v for v in self.referee.violations
                   if (v.trick, v.seat, v.rule) == (trick, seat, rule)
                   and (card is None or str(v.card) == card)]  # fmt: skip
            plays = doubtful_plays(hit[0], self.plays, self.referee.violations) if hit else []
            what = f"no {rule} ruling stands for seat {seat} in trick {trick}"
            if hit and not plays:
                what = f"the {rule} ruling of seat {seat} in trick {trick} is already proven"
        elif seat is None:
            plays = [p for p in self.plays if p.trick == trick]
            what = f"no card was played in trick {trick}"
        else:
            plays = [p for p in self.plays if (p.trick, p.seat) == (trick, seat)]
            what = f"seat {seat} played no card in trick {trick}"
        if not plays:
            self._say(seat, f"confirmation: {what}; nothing changed", frame=max(self._now, 0))
            return self._drain()
        return self._confirm_plays(plays)

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

    def _name_unread(
        self, card: int, seat: int, frame: int, by: str, probability: float | None = None,
        margin: float | None = None, place: tuple[int, int] | None = None,
    ) -> None:  # fmt: skip
        """Play a card the camera did not read, named by ``by`` (a person, or elimination);
        ``probability``: the decoder's posterior of the card there (``hakam.vision.decoder``).
        A card named without a person keeps the reads at its place over every card, cards
        named before it too, for the deal's end to weigh its placing again
        (``_weigh_placings``): in frames ``place`` (its naming's window; by default the one
        ``_read_scores`` would weigh for any card: reads there of a card played or named
        before are evidence too), and whether reads kept beside a lying card were among them
        (then it is at most ``BESIDE_P``)."""
        scores, beside = None, False
        if by in DEDUCED:
            place = place or self._place_window(seat, range(len(CARD_NAMES)))
            scores = self._scores_between(seat, range(len(CARD_NAMES)), *place)
            beside = self._beside_between(seat, *place)
            if beside and probability is not None:
                probability = min(probability, BESIDE_P)
        at = frame / self.fps
        item = {"card": CARD_NAMES[card], "seat": seat, "replaces": None, "by": by}
        self._log_correction(item, frame, at)
        self.tracker.mark_played(card)
        source = by if by in DEDUCED else "correction"
        extra = {k: v for k, v in (("probability", probability), ("margin", margin))
                 if v is not None}  # fmt: skip
        if source in DEDUCED and self._unread_lay_at(seat):
            extra["place_seen"] = True
        self._play(card, seat, frame, at, source, None, None, extra or None)
        trick = self.plays[-1].trick
        if source in DEDUCED and scores is not None:
            self._named_scores[(trick, seat)] = {int(c): float(v) for c, v in scores.items()}
            if beside:
                self._beside_named.add((trick, seat))
        if any(v.rule == "out-of-turn" and v.trick == trick for v in self.referee.violations):
            # A card not read has no time of its own: it went when its seat was on turn, so a
            # card of its trick that seemed to come before its turn did not (``_rereferee``).
            # What its play ruled in the order it came and the deal withdraws now is not heard
            # (``untold``).
            self._rereferee(frame, at)

    def _unread_lay_at(self, seat: int) -> bool:
        """The camera saw something it could not read lying clearly in front of ``seat`` while
        the card the deal waits for there can have landed, and it became no card read there:
        boxes no read explained, for ``UNREAD_MIN_S`` of frames or more (a box of one frame is
        a flicker), in runs that no card accepted in front of ``seat`` within
        ``ACCEPT_GRACE_S`` after accounts for (every card read shows such a run first)."""
        since, until = self._landing()
        grace = ACCEPT_GRACE_S * self.fps
        accepted = [p.landed for p in self.plays
                    if p.landed >= 0 and self._seat_facing(p.box) == seat]  # fmt: skip
        accepted += [fr.index for e, fr in self._held if self._position(e).by_position == seat]
        found = [
            (max(a, since + 1), min(b, until))
            for a, b, _ in self._unexplained_runs.get(seat, [])
            if a <= until and b > since and not any(a <= f <= b + grace for f in accepted)
        ]
        return sum(b - a + 1 for a, b in found) >= UNREAD_MIN_S * self.fps

    def _log_correction(self, item: dict[str, Any], frame: int, at: float) -> None:
        self.corrections.append({**item, "frame": frame, "time": round(at, 3)})
        self._emit(
            event("correction", deal=self.setup.deal, frame=frame, time=round(at, 3), **item)
        )

    def _rereferee(self, frame: int, at: float) -> None:
        """Referee the corrected plays from the start; report the violations that now stand
        and withdraw those that no longer do."""
        old = self.referee.violations
        before = {_key(v) for v in old}
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
                first = next((p.frame for p in rest if not _untimed(p)), rest[0].frame)
                k = next(
                    (
                        i
                        for i, p in enumerate(rest)
                        if p.seat == turn and (p.frame - first <= hold or _untimed(p))
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

    def _violations(self, new: Iterable[Violation], frame: int, at: float) -> None:
        among = self.referee.violations
        for v in new:
            status, asked = told(v, self.plays, among)
            self._told[_key(v)], self._questions[_key(v)] = status, asked
            self._emit(
                event(
                    "violation", deal=self.setup.deal, frame=frame, time=round(at, 3),
                    **v.to_json(), status=status, question=asked,
                )
            )  # fmt: skip

    def _restatus(self) -> None:
        """Say each standing violation whose footing changed (a play renamed, named or
        confirmed since it was told): ``violation_status`` with its new status, or its new
        question (a yes confirms every play it lists: the list must be the one confirmed)."""
        if self._is_trial:
            return
        frame = max(self._now, 0)
        for v in self.referee.violations:
            k = _key(v)
            status, asked = told(v, self.plays, self.referee.violations)
            if self._told.get(k, status) == status and self._questions.get(k, asked) == asked:
                continue
            self._told[k], self._questions[k] = status, asked
            self._emit(
                event(
                    "violation_status", deal=self.setup.deal, frame=frame,
                    time=round(frame / self.fps, 3), **v.to_json(), status=status,
                    question=asked,
                )
            )  # fmt: skip

    def suspected(self) -> int:
        """How many standing violations are suspected (asked, scoring nothing)."""
        return len(self.referee.violations) - len(self.proven())

    def proven(self) -> list[Violation]:
        """The standing violations that are proven (or confirmed by a person): only these
        change the score."""
        return [
            v
            for v in self.referee.violations
            if violation_status(v, self.plays, self.referee.violations) == PROVEN
        ]
