"""The deal's score, the ``hakam-deal/1`` record, ruling.json and the evidence crops, written
after every trick and at the end (``Pipeline`` mixin)."""

from __future__ import annotations

import itertools
import json
import math
from typing import Any

import cv2

from hakam.engine.cards import CARD_NAMES
from hakam.engine.record import FORMAT
from hakam.vision.events import event
from hakam.vision.provenance import (
    NAMED,
    NAMED_BY,
    Play,
    doubted_plays,
    guessed_plays,
    score_status,
    told,
)
from hakam.vision.settings import profile_json
from hakam.vision.sources import Frame
from hakam.vision.tracker import TrackEvent

# A deal's tricks in doubt are placed every way together (``same_result``) up to this many ways.
SAME_RESULT_MAX = 120


def _placed(p: Play) -> dict[str, Any]:
    """A play where it lay (trick, seat, card) and how it is known (``Play.to_json``)."""
    return {"trick": p.trick, "seat": p.seat, "card": CARD_NAMES[p.card], **p.to_json()}


class DealRecorder:
    def finish(self) -> list[dict[str, Any]]:
        """The score (complete deal) or the state so far; writes the record and the ruling.
        Again after a person's correction at the end, with the score then."""
        self._ended = True
        self._settle_end()
        self._exchange_misread()
        self._settle_named()
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
                "in_doubt": self.in_doubt(),
                "same_result": sorted(self.same_result()),
                "suspected": self.suspected(),
                "named": [_placed(p) for p in self.plays if p.provenance == NAMED],
                "asked": sorted(self._tricks_asked()) if ref.is_over else None,
                "tricks": [
                    {
                        "cards": [str(c) for c in t.cards],
                        "seats": list(t.seats),
                        "winner": t.winner,
                        "points": t.points,
                    }
                    for t in ref.tricks
                ],
            }
        )
        self._emit(score)
        self._ask_tricks_in_doubt()
        paths = self._write_record()
        self._emit(
            event(
                "end",
                deal=self.setup.deal,
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
        waiting = [int(e.card) for e, _ in self._held]  # type: ignore[arg-type]
        return score_status(
            self.referee.is_over,
            self.suspected(),
            self.plays,
            waiting,
            self.referee.violations,
            self.same_result(),
        )

    def asks(self) -> bool:
        """Something the table is still asked: the deal incomplete, a ruling suspected, or a
        complete deal's trick asked (``_tricks_asked``: a play in doubt whose placing changes
        the result, or a card named by a guess)."""
        return not self.referee.is_over or self.suspected() > 0 or bool(self._tricks_asked())

    def _tricks_asked(self) -> set[int]:
        """Tricks of the deal a person is asked to confirm: a play in doubt whose placing
        changes the result, or a card named by a guess (``guessed_plays``)."""
        material = {t for t, _ in self.in_doubt()} - self.same_result()
        return material | {p.trick for p in guessed_plays(self.plays)}

    def same_result(self) -> set[int]:
        """Tricks of a complete deal whose doubt changes nothing: every placing of each trick's
        plays in doubt (``doubted_plays``) and cards named (not by a person) among their places,
        all such tricks placed together (a revoke spans tricks), gives the deal's result (its
        score, each violation's penalty, the trick winners, the card points) and rulings as the
        record has them. None where more than ``SAME_RESULT_MAX`` placings would be tried, nor
        with a trick where a card was out of turn (its order is in doubt too). Worked out once
        for the plays as they are."""
        if not self.referee.is_over:
            return set()
        key = [(p.trick, p.seat, p.card, p.source, p.confirmed) for p in self.plays]
        if self._same_result[0] == key:
            return self._same_result[1]
        doubted = {id(p) for p in doubted_plays(self.referee.violations, self.plays)}
        out_of_turn = {v.trick for v in self.referee.violations if v.rule == "out-of-turn"}
        tricks = sorted({p.trick for p in self.plays if id(p) in doubted})
        loose = [
            [i for i, p in enumerate(self.plays)
             if p.trick == t and (id(p) in doubted or p.provenance == NAMED)]
            for t in tricks
        ]  # fmt: skip
        same: set[int] = set()
        placings = math.prod(math.factorial(len(ix)) for ix in loose)
        if tricks and not set(tricks) & out_of_turn and placings <= SAME_RESULT_MAX:
            result = (self._outcome(self), self._violation_keys(self))
            every = itertools.product(
                *(itertools.permutations([self.plays[i].card for i in ix]) for ix in loose)
            )
            if all(
                self._placed_so(
                    {i: c for ix, order in zip(loose, orders, strict=True)
                     for i, c in zip(ix, order, strict=True)}
                ) == result
                for orders in every
            ):  # fmt: skip
                same = set(tricks)
        self._same_result = (key, same)
        return same

    def _placed_so(self, cards: dict[int, int]) -> tuple[Any, set[str]] | None:
        """The result and rulings of the deal with plays (index) holding other ``cards``."""
        if all(self.plays[i].card == c for i, c in cards.items()):
            return self._outcome(self), self._violation_keys(self)
        trial = self._with_plays({i: {"card": c} for i, c in cards.items()})
        if not trial.referee.is_over:
            return None
        return self._outcome(trial), self._violation_keys(trial)

    def _ask_tricks_in_doubt(self) -> None:
        """Once the deal is complete, each trick with a play in doubt or a card named by a guess
        is asked once: an ``uncertain`` event with ``confirm_trick``, which a person answers by
        confirming the trick as the record has it (or by correcting a card of it). A trick
        whose placing changes nothing is told so."""
        if not self.referee.is_over or self._is_trial:
            return
        doubted = {p.trick for p in doubted_plays(self.referee.violations, self.plays)}
        guessed = {p.trick for p in guessed_plays(self.plays)}
        same = self.same_result()
        for trick in sorted((doubted | guessed) - self._asked_tricks):
            self._asked_tricks.add(trick)
            cards = ", ".join(
                f"{CARD_NAMES[p.card]} seat {p.seat}"
                + (f" ({p.reason})" if p.provenance == NAMED else "")
                for p in self.plays
                if p.trick == trick
            )
            if trick in guessed:
                what = "a card named is not known surely"
            else:
                what = "a card may be read at the wrong seat"
            then = (
                "placed either way, the result and the rulings are the same (a person may "
                "confirm the trick or correct it)"
                if trick in same and trick not in guessed
                else "the score is provisional until a person confirms the trick or corrects it"
            )
            self._say(
                None,
                f"trick {trick} ({cards}): {what}; {then}",
                frame=max(self._now, 0),
                trick=trick,
                confirm_trick=trick,
            )

    def in_doubt(self) -> list[list[int]]:
        """``[trick, seat]`` of each play the deal puts in doubt (``doubted_plays``)."""
        return [[p.trick, p.seat] for p in doubted_plays(self.referee.violations, self.plays)]

    def ruling(self) -> dict[str, Any]:
        """What ``hakam referee`` says about this run's record."""
        return {"void": False, "dealer": self.setup.dealer, **self.referee.ruling(self.setup.match)}

    def ruling_with_provenance(self) -> dict[str, Any]:
        """``ruling`` (what ruling.json holds) with how each ruling is known: each violation
        ``proven`` or ``suspected`` (with its question), the score ``final`` or
        ``provisional``, and each play's provenance."""
        out = self.ruling()
        for item, v in zip(out["violations"], self.referee.violations, strict=True):
            item["status"], item["question"] = told(v, self.plays, self.referee.violations)
        out["status"] = self.score_status()
        doubted = {id(p) for p in doubted_plays(self.referee.violations, self.plays)}
        out["plays"] = [
            {**_placed(p), **({"in_doubt": True} if id(p) in doubted else {})} for p in self.plays
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
