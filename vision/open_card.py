"""The open card of a deal (the card turned up on the stock for the bidding): accepted first,
its misread taken for it, and when it leaves the stock for the buyer's hand (``Pipeline``
mixin)."""

from __future__ import annotations

import numpy as np

from hakam.engine.cards import CARD_NAMES
from hakam.vision.conflicts import CONFLICT_FLOOR
from hakam.vision.detections import Detections, box_iou
from hakam.vision.events import event
from hakam.vision.sources import Frame
from hakam.vision.tracker import CardState, TrackEvent


class OpenCard:
    def _on_open_card(self, ev: TrackEvent, frame: Frame) -> bool:
        """The first card accepted before any play: the open card the deal was set up with (or
        any card, where it was set up with none), or that card misread (``_open_card_misread``,
        renamed). True when it was taken for the open card (an ``open_card`` event)."""
        card = int(ev.card)  # type: ignore[arg-type]
        expected = self.setup.open_card
        read_as = None
        if expected is not None and self._open_card_misread(card, expected.index):
            self.tracker.rename(card, expected.index)
            read_as, card = CARD_NAMES[card], expected.index
        if expected is not None and expected.index != card:
            return False
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
        return True

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
