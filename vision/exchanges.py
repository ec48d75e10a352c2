"""Exchanges of a misread at the end of a deal: a card named without a read and a card read
whose reads doubted it may be each other, two cards read may be misread for each other, and a
card read between two seats may lie at a named card's seat; each exchange is taken when it
withdraws violations and rules none new, and said when the rules cannot tell (``Pipeline``
mixin). Also how two placings compare: the result (``_outcome``) and the rulings."""

from __future__ import annotations

import itertools
import json
import math
from typing import Any, Self

from hakam.engine.cards import CARD_NAMES
from hakam.vision.conflicts import CONFLICT_FLOOR, CONFLICT_MARGIN
from hakam.vision.decoder import OUT_OF_TURN, VIOLATION, likelihood
from hakam.vision.provenance import DEDUCED, PERSON, Play
from hakam.vision.turns import box_centre


class MisreadExchanges:
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
        # Each exchange is refereed again from the start (``_with_exchanged``), so the deal is
        # too, first: a card held and played out at the clip's end out of turn that the
        # refereeing again puts in turn is no violation an exchange withdraws. (A copy playing
        # a way out keeps its rulings as they are for the way's ranking: it is weighed on a
        # copy refereed again.)
        if self._is_trial:
            before = self._violation_keys(self._with_plays({}))
        else:
            self._rereferee(self._now, self._now / self.fps)
            before = self._violation_keys(self)
        best: list[tuple[int, Play, Play, bool, float]] = []
        open_: list[tuple[Play, Play]] = []  # exchanges the rules cannot tell from the record
        tried = 0.0  # every exchange weighed against the record as it is (``_exchange_weight``)
        # A person's word is never exchanged: plays confirmed at the table stay as they are.
        read = [p for p in self.plays if p.source == "camera" and not p.confirmed]
        named = [d for d in self.plays if d.source in DEDUCED and not d.confirmed]
        pairs = [(d, p) for d in named for p in read]
        pairs += [
            (a, b) for i, a in enumerate(read) for b in read[i + 1 :] if self._misread_for(a, b)
        ]
        for d, p in pairs:
            if not self._doubted(p, d):
                continue
            trial = self._with_exchanged(self.plays.index(d), self.plays.index(p))
            after = self._violation_keys(trial)
            weight = self._exchange_weight(d, p, False, before, after)
            tried += weight
            if after < before:
                best.append((len(after), d, p, False, weight))
            elif after == before and d.source in DEDUCED:
                open_.append((d, p))
        for d, p in ((d, p) for d in named for p in read):
            if self._seat_doubted(p, d):
                trial = self._with_exchanged(self.plays.index(d), self.plays.index(p), "seat")
                after = self._violation_keys(trial)
                weight = self._exchange_weight(d, p, True, before, after)
                tried += weight
                if after < before:
                    best.append((len(after), d, p, True, weight))
        best.sort(key=lambda b: b[0])
        if not best or (len(best) > 1 and best[1][0] == best[0][0]):
            self._say_may_be_exchanged(open_)
            return False
        _, d, p, seats, weight = best[0]
        # The exchanged placing's share of the record as it is and every exchange tried, as
        # likely as the card named was (rounded down: never up to ``FINAL_P``).
        prior = d.probability if d.source in DEDUCED and d.probability is not None else 1.0
        share = math.floor(weight / (1.0 + tried) * prior * 1e6) / 1e6
        at = self._now / self.fps
        if seats:
            for play, seat in ((p, d.seat), (d, p.seat)):
                item = {**self._renaming(play, play.card, "exchange"), "seat": seat,
                        "from_seat": play.seat, "probability": share}  # fmt: skip
                self._log_correction(item, self._now, at)
            p.seat, d.seat = d.seat, p.seat
        else:
            for play, card in ((p, d.card), (d, p.card)):
                item = {**self._renaming(play, card, "exchange"), "probability": share}
                self._log_correction(item, self._now, at)
            p.card, d.card = d.card, p.card
            if d.source == "camera":
                d.source = "exchange"
        p.source = "exchange"
        p.probability = d.probability = share
        self._rereferee(self._now, at)
        return True

    def _exchange_weight(
        self, d: Play, p: Play, seats: bool, before: set[str], after: set[str]
    ) -> float:  # fmt: skip
        """How likely the deal is with ``d`` and ``p`` exchanged (their cards, or ``seats``)
        against as it is, as the decoder weighs a way: the reads of each card (``p``'s
        tracker belief, ``d``'s too where it was read; the reads kept at ``d``'s place where it
        was named: ``decoder.likelihood``), exchanged over as they are, times ``VIOLATION`` (a
        card out of turn: ``OUT_OF_TURN``) for each rule the exchange leaves over what it
        withdraws. The seats of two cards: where each lay is not known (the read card lay
        between two seats), so only the rules weigh."""
        ratio = _rules_weight(after) / _rules_weight(before)
        if seats:
            return ratio
        return ratio * self._reads_ratio(p, d.card) * self._reads_ratio(d, p.card)

    def _reads_ratio(self, a: Play, card: int) -> float:
        """How much likelier the reads at ``a``'s place find ``card`` there than ``a``'s own:
        a read's tracker belief, a named card's reads kept at its place
        (``decoder.likelihood``); 1 where no reads are kept (a card a person moved there)."""
        if a.source == "camera":
            belief = self.tracker.belief(a.card)
            if belief is not None:
                return float(belief[card]) / max(float(belief[a.card]), 1e-9)
        elif (scores := self._named_scores.get((a.trick, a.seat))) is not None:
            like = likelihood((a.card, card), scores)
            return like[card] / like[a.card]
        return 1.0

    def _exchange_by_person(self, play: Play, card: int, by: str) -> None:
        """A person says ``play`` was ``card``, which the record holds at another place
        (``other``): the two are exchanged. ``play`` is the person's word; ``other`` then holds
        the card ``play`` held, a deduction (``displaced``; ``overruled`` where a person gave
        ``other`` its card: then asked however likely): every card is played once, so the
        card left over lay there, unless a third card was misread too. Its probability weighs
        it against each such three-way mix-up (``other`` holding a third play's card, which
        holds the card left over), as an exchange of a misread is weighed: the reads at
        ``other``'s place (they misread ``card``: smoothed, ``decoder.likelihood``), the third
        play's reads (``_reads_ratio``), and the rules each placing breaks. Below ``FINAL_P``
        the deal stays provisional and asks that trick of a person."""
        other = next(p for p in self.plays if p.card == card)
        left, at = play.card, self._now / self.fps
        i, j = self.plays.index(play), self.plays.index(other)
        base = self._violation_keys(self._with_plays({i: {"card": card}, j: {"card": left}}))
        third = [r for r in self.plays if r is not play and r is not other
                 and r.provenance != PERSON]  # fmt: skip
        # A deal not over: ``other`` may hold a card still in a hand (not read nor held), the
        # card left over then being one too.
        known = {p.card for p in self.plays} | {int(e.card) for e, _ in self._held}  # type: ignore[arg-type]
        unplayed = [c for c in range(len(CARD_NAMES)) if c not in known]
        like = likelihood([left, *(r.card for r in third), *unplayed], self._reads_at(other))

        def rules(cards: dict[int, int]) -> float:  # a placing's rules over the exchange's
            trial = self._with_plays({k: {"card": c} for k, c in {i: card, **cards}.items()})
            return _rules_weight(self._violation_keys(trial)) / _rules_weight(base)

        tried = sum(rules({j: r.card, self.plays.index(r): left}) * like[r.card] / like[left]
                    * self._reads_ratio(r, left) for r in third)  # fmt: skip
        tried += sum(rules({j: c}) * like[c] / like[left] for c in unplayed)
        share = math.floor(1e6 / (1.0 + tried)) / 1e6  # rounded down: never up to FINAL_P
        read = other.card if other.source == "camera" else other.read_card
        # A person's word stood there: two words disagree, the later stands, and the card left
        # over is asked until a person confirms it, however likely (``GUESSED``), even the card
        # the camera read there (a person had said otherwise).
        overruled = other.provenance == PERSON
        named = "overruled" if overruled else "displaced"
        back = left == read and not overruled  # the camera's read is back (an exchange undone)
        self._log_correction(self._renaming(play, card, by), self._now, at)
        item = self._renaming(other, left, "camera" if back else named)
        self._log_correction(item if back else {**item, "probability": share}, self._now, at)
        play.card, play.source, play.confirmed = card, "correction", False
        other.card, other.confirmed = left, False
        other.source, other.probability = ("camera", None) if back else (named, share)
        other.read_card = None if back else read
        self._rereferee(self._now, at)

    def _reads_at(self, p: Play) -> dict[int, float]:
        """The reads at ``p``'s place over the cards: a read's tracker belief, a named card's
        reads kept where it was named; none where no reads are kept."""
        if p.source == "camera":
            belief = self.tracker.belief(p.card)
            if belief is not None:
                return {c: float(v) for c, v in enumerate(belief)}
        return dict(self._named_scores.get((p.trick, p.seat), {}))

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

    def _with_exchanged(self, i: int, j: int, what: str = "card") -> Self:
        """A copy of the deal with plays ``i`` and ``j`` holding each other's card (``what``
        "seat": at each other's seats; the turn orders their trick anew), refereed again."""
        a, b = self.plays[i], self.plays[j]
        return self._with_plays({i: {what: getattr(b, what)}, j: {what: getattr(a, what)}})

    def _with_plays(self, changes: dict[int, dict[str, Any]]) -> Self:
        """A copy of the deal with plays (by index) changed (field: value), refereed again."""
        trial = self._trial()
        for i, fields in changes.items():
            for name, value in fields.items():
                setattr(trial.plays[i], name, value)
        trial._rereferee(self._now, self._now / self.fps)
        return trial

    @staticmethod
    def _outcome(pipe: Any) -> list[Any]:
        """What a way's placing changes of the result: the trick winners, the card points, and
        the deal's score (projects and Baloot as the plays give them too) and each violation's
        penalty."""
        ref, match = pipe.referee, pipe.setup.match
        score = ref.outcome(match)
        penalties = [list(ref.penalty(v, match)[0]) for v in ref.violations] if score else []
        return [
            [t.winner for t in ref.tricks],
            list(ref.card_points),
            None if score is None else list(score.result),
            penalties,
        ]

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

    @staticmethod
    def _violation_keys(pipe: Any) -> set[str]:
        return {json.dumps(v.to_json(), sort_keys=True) for v in pipe.referee.violations}


def _rules_weight(keys: set[str]) -> float:
    """A placing's weight for the violations it rules (``_violation_keys``), as the decoder
    weighs a way's (``Way.weight``): ``OUT_OF_TURN`` where a card is out of turn (one card
    missing puts those after it out of turn too), ``VIOLATION`` for each other."""
    rules = [json.loads(k)["rule"] for k in keys]
    oot = "out-of-turn" in rules
    return (OUT_OF_TURN if oot else 1.0) * VIOLATION ** (len(rules) - oot)
