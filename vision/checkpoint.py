"""A deal's state as plain JSON, so a restarted process goes on with the cards already played.

``checkpoint()`` is what the pipeline knows that the frames cannot tell again: the plays as placed
(with their provenance), the corrections, the open card, which tricks were collected and what the
table was told. ``restore`` puts a fresh pipeline of the same deal in that state: the plays go to
the referee in order, the collected tricks' cards are ruled out, and the cards of a trick still on
the table lie where they were last read, so reading them again there plays nothing new. What is
lost is only what was not yet a play (reads still being voted on, a card held for the seat on
turn): the camera sees those cards again and they are accepted anew.
"""

from __future__ import annotations

from dataclasses import asdict, fields
from typing import Any

from hakam.vision.provenance import Play

CHECKPOINT_FORMAT = "hakam-deal-state/1"


class Checkpoints:
    def checkpoint(self) -> dict[str, Any]:
        """The deal's state after the last frame processed (JSON-ready)."""
        return {
            "format": CHECKPOINT_FORMAT,
            "deal": self.setup.deal,
            "frame": self._now,
            "open_card": self.open_card,
            "phase": self._phase,
            "plays": [
                {**asdict(p), "box": None if p.box is None else [float(v) for v in p.box]}
                for p in self.plays
            ],
            "corrections": self.corrections,
            "collected_tricks": self._collected_tricks,
            "told": self._told,
            "questions": self._questions,
            "asked_tricks": sorted(self._asked_tricks),
            # A card read again where it was played: a named one is then no longer sure.
            "conflicts_said": sorted(self._conflicts_said),
            # The reads at each named card's place, for the end's weighing of their placings.
            "named_scores": [[t, s, {str(c): v for c, v in sc.items()}]
                             for (t, s), sc in sorted(self._named_scores.items())],
            "beside_named": sorted([t, s] for t, s in self._beside_named),
        }  # fmt: skip

    def restore(self, state: dict[str, Any]) -> None:
        """Go on from ``checkpoint()``'s state of this deal (before the first frame)."""
        if state.get("format") != CHECKPOINT_FORMAT or state.get("deal") != self.setup.deal:
            raise ValueError(f"deal state: not a {CHECKPOINT_FORMAT} of deal {self.setup.deal}")
        names = {f.name for f in fields(Play)}
        plays = [Play(**{k: v for k, v in p.items() if k in names}) for p in state["plays"]]
        for p in plays:
            p.box = None if p.box is None else tuple(p.box)
            self.referee.push_index(p.card, p.seat)
        self.plays = plays
        self.corrections = list(state["corrections"])
        self._told = dict(state["told"])
        self._questions = dict(state.get("questions", {}))  # kept since 2026-12-06 (session 44)
        self._asked_tricks = set(state["asked_tricks"])
        self._conflicts_said = set(state.get("conflicts_said", []))  # kept since 2026-12-06
        self._named_scores = {(int(t), int(s)): {int(c): float(v) for c, v in sc.items()}
                              for t, s, sc in state.get("named_scores", [])}  # fmt: skip
        self._beside_named = {(int(t), int(s)) for t, s in state.get("beside_named", [])}
        self._now = int(state["frame"])
        self._phase = state["phase"]
        self._collected_tricks = int(state["collected_tricks"])
        self.open_card = state["open_card"]
        if self.open_card is not None and not plays and self._phase == "open_shown":
            self._open_on_table = True  # it lies on the stock still: read there, it is itself
            self.tracker.restore(self.open_card, None, self._now)
        done = 4 * self._collected_tricks
        for p in plays[:done]:
            self.tracker.collect(p.card)
        lying = plays[done:]
        for p in lying:
            self.tracker.restore(p.card, p.box, self._now)
        if len(self.referee.tricks) > self._collected_tricks:  # complete, not yet collected
            self._uncollected = [p.card for p in lying[:4]]
        self._drain()  # nothing new was seen: the events were given before the restart
