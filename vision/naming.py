"""Naming the cards the camera did not read, from what the rest of the deal allows: the only card
left, or the deal decoder's likeliest card (``hakam.vision.decoder``) over every way of placing
the cards left, each played out on a copy of the deal, and the exchange of a misread that lets a
card left be placed (``Pipeline`` mixin; the end-of-deal exchanges: ``hakam.vision.exchanges``).
Every card named so says how, and how likely (``hakam.vision.provenance``)."""

from __future__ import annotations

import copy
import itertools
import json
import math
from collections.abc import Collection, Sequence
from dataclasses import replace
from typing import Any, Self

from hakam.engine.cards import CARD_NAMES, DECK
from hakam.engine.referee import Violation
from hakam.vision.conflicts import CONFLICT_FLOOR, CONFLICT_MARGIN
from hakam.vision.decoder import (
    BESIDE_P,
    FINAL_P,
    SMOOTHING,
    VIOLATION,
    Way,
    decode,
    likelihood,
)
from hakam.vision.provenance import DEDUCED, NAMED, Play

# Marks a way's result where two cards not read may lie at each other's places, same result.
IN_DOUBT = " (places in doubt)"
# A card's result where the clean ways on from it (later cards not read) give different ones.
OPEN = "open"
# At the end of a deal, up to this many cards not read are named by the rules (each way of
# placing them is played out on a copy of the deal): more would be a guess among many ways.
DEDUCE_MAX = 5


# A way of placing cards not read, played to the end: the first card named, the violations of
# the complete deal, its result, (violations, whether a misread was exchanged) to rank it, and
# whether the later namings on the way would take it (``_completions``).
_Way = tuple[int, list[Violation], str, tuple[int, bool], bool]


def _whatever_card(v: Violation) -> str:
    """A violation's rule, seat and trick: the play that broke the rule, whatever card it names
    and whichever card proves it (a way that names a card not read may prove the same revoke by
    that card, where another way proves it by a later card read)."""
    return json.dumps([v.rule, v.seat, v.trick])


def _ruled_by_every(ways: Sequence[_Way]) -> set[str]:
    """The violations every way rules (``_whatever_card``), more than one way given. Where the
    ways all start from one card, not the violations that card itself makes: its ways on cannot
    excuse its own revoke (another card's, ruled whatever is placed later, they can)."""
    if len(ways) < 2:
        return set()
    firsts = {w[0] for w in ways}
    own = set()
    if len(firsts) == 1:
        (card,) = firsts
        own = {_whatever_card(v) for w in ways for v in w[1] if v.card == DECK[card]}
    return set.intersection(*({_whatever_card(v) for v in w[1]} for w in ways)) - own


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


class CardNaming:
    def _name_by_elimination(self, seat: int, final: bool = False, say: bool = True) -> bool:
        """Play the one card not yet read for ``seat`` when the other 31 have all been read
        (played or held): a deal plays all 32 cards, so the card the deal waits for is that one.
        At the end of the clip (``final``), with up to ``DEDUCE_MAX`` cards not read, each way of
        placing them is played out and the deal decoder names the card or a person decides
        (``_name_by_decoder``; ``say``: tell when no way is clean). It goes into the record as a
        correction, so a dispute can see it."""
        if not self.settings.name_by_elimination:
            return False
        self._open_ways = []
        seen = {p.card for p in self.plays} | {int(e.card) for e, _ in self._held}  # type: ignore[arg-type]
        left = [c for c in range(len(CARD_NAMES)) if c not in seen]
        if not left or len(left) > (DEDUCE_MAX if final else 1):
            return False
        if len(left) == 1:
            if self._holds_all_of(seat):
                return False  # the seat's card is one held for it, read late: not this one
            self._name_unread(left[0], seat, self._now, "elimination", self._chain())
            return True
        complete = self._completions(left, seat, True)
        if not self._is_trial:
            return self._name_by_decoder(left, seat, complete, say)
        # A copy playing a way out (``_completions``): the later cards not read are narrowed
        # by the rules, and every clean way handed back to the decoder's caller.
        found = self._clean_ways(left, seat, None, True, complete)
        ways = self._results(found)
        if len(ways) > 1:
            # the ones a naming here would take preferred (its reads, or one result for all)
            clean = self._read_among(list(ways), seat)
            same = len(set(ways.values())) == 1
            self._open_ways = [(*w[:4], w[4] and (same or w[0] in clean)) for w in found]
            return False
        if not ways:
            self._open_ways = []
            return False
        (card,) = ways
        self._name_unread(card, seat, self._now,
                          "same-result" if ways[card].endswith(IN_DOUBT) else "rules")  # fmt: skip
        return True

    def _name_by_decoder(self, left: list[int], seat: int, complete: list[_Way], say: bool) -> bool:
        """Name the card the deal waits for at its end by ``hakam.vision.decoder``: every way of
        placing the cards left (``complete``, each played out), weighed by the rules each breaks
        that the deal did not (``_decoder_ways``) and by the reads in front of ``seat``. The
        likeliest card is named with its probability when the decoder can say how it is known;
        where every way breaks a rule, an exchange with a misread is tried first
        (``_named_by_exchange``); else the deal waits for a person (``_open_ways``)."""
        ways = self._decoder_ways(left, seat, complete)
        scores = {int(c): float(v) for c, v in self._read_scores(seat, left).items()}
        found = decode(ways, scores, left, fewest=self.settings.name_by_fewest)
        clean = {w.card for w in ways if w.new == 0}  # the cards with a way that keeps the rules
        if not clean and self._named_by_exchange(left, seat, ways):
            return True
        names = [CARD_NAMES[c] for c in left]
        trick = self.referee.trick_number
        by, card = found.by, found.card
        if card is not None and by in ("rules", "reader"):
            mine = {w.result for w in ways if w.card == card and w.new == 0}
            if any(r.endswith(IN_DOUBT) for r in mine):
                by = "same-result"  # places in doubt: where these cards lay, not the result
        if card is None or by is None:
            self._open_ways = [w for w in complete if w[0] in clean]
            if say or self._open_ways:
                why = "no way of placing them keeps" if not clean else f"{len(clean)} ways keep"
                if len(clean) == 1 and found.likeliest is not None:  # the reads against the rules
                    why = (f"the reads took it for {CARD_NAMES[found.likeliest]}, which breaks a "
                           "rule; 1 way keeps")  # fmt: skip
                self._say_cards_left(
                    seat, names, f"{why} every rule: the deal waits for a person (seat {seat}, "
                    f"trick {trick})",
                )  # fmt: skip
            return False
        if by == "same-result":
            self._say_cards_left(
                seat, names, f"every way of placing them that keeps the rules gives the same "
                f"result: {CARD_NAMES[card]} is named for seat {seat} in trick {trick} (a "
                "person may exchange them)",
            )  # fmt: skip
        elif by == "reader":
            self._say_by_reader(seat, names, card, len(clean), trick)
        elif by == "rules" and (found.probability or 0.0) < FINAL_P:
            self._say_cards_left(
                seat, names, f"{CARD_NAMES[card]} is the only card that keeps every rule, but "
                f"the reads there doubt it: it is named for seat {seat} in trick {trick} (a "
                "person may correct it)",
            )  # fmt: skip
        elif by == "fewest":
            self._say_cards_left(
                seat, names, f"no way of placing them keeps every rule: "
                f"{CARD_NAMES[card]}, which the reads took it for and which breaks the fewest, is "
                f"named for seat {seat} in trick {trick} (a person may correct it)",
            )  # fmt: skip
        chain = self._chain()  # the cards named before it in this deal, as likely as they are
        probability = None if found.probability is None else found.probability * chain
        margin = None if math.isinf(found.margin) else round(found.margin, 2)
        self._name_unread(card, seat, self._now, by, probability, margin)
        return True

    def _chain(self) -> float:
        """How likely the cards this deal named before are all right (the product of their
        probabilities): a card named after them is named as if they were. One with none counts
        1: named by the fewest rules broken, it keeps the score provisional by itself until a
        person confirms it (``GUESSED``), and a card named after it is weighed all the same
        (else a person's confirming it would leave that card unweighed and the score final)."""
        return math.prod(
            p.probability for p in self.plays if p.provenance == NAMED and p.probability is not None
        )

    def _decoder_ways(self, left: list[int], seat: int, complete: list[_Way]) -> list[Way]:
        """``complete`` as the decoder weighs them: the rules each way breaks that the deal
        does not break whatever the placing (``_clean_ways``'s excuses: what stood before, what
        every way rules but out of turn, a violation read before the naming)."""
        before = self._ruled_before()
        made = {(p.trick, p.seat, CARD_NAMES[p.card]) for p in self.plays if p.source == "camera"}
        named = {CARD_NAMES[c] for c in left}
        every = _ruled_by_every(complete)
        excused = before | {k for k in every if not k.startswith('["out-of-turn"')}
        out = []
        for card, rules, result, (_, exchanged), _ in complete:
            keys = {_whatever_card(v) for v in rules if not _made_before(v, made, named)}
            new = keys - excused
            oot = any(k.startswith('["out-of-turn"') for k in new)
            anywhere = any(v.rule == "out-of-turn" for v in rules)
            out.append(Way(card, len(new), oot, result, exchanged, anywhere))
        return out

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

    def _read_among(self, cards: list[int], seat: int) -> list[int]:
        """Of several cards the rules allow, the one the reads in front of ``seat`` took the
        unread card for most (``_read_scores``: sure reads and unsure guesses alike, as the
        notice ranks them), if ``CONFLICT_MARGIN`` times as much as the next; else all of them
        (a person decides). One unsure guess is not enough against sure reads of another card."""
        ranked = [*self._read_scores(seat, cards).most_common(2), (-1, 0.0)]
        if ranked[0][1] > 0 and ranked[0][1] >= CONFLICT_MARGIN * ranked[1][1]:
            return [ranked[0][0]]
        return cards

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
        every = _ruled_by_every(ways)
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

    def _named_by_exchange(self, left: list[int], seat: int, ways: Sequence[Way]) -> bool:
        """No way of placing the cards left is clean: perhaps one of them (``L``) was read as
        another card (``Y``, played or held for its seat's turn), whose reads gave ``L`` some
        belief, and ``Y`` is one of the cards the deal still waits for. Each such exchange is
        made on a copy of the deal and the cards then left are placed as ``_clean_ways`` places
        them, against the violations that stood before the exchange; the one clean exchange and
        placing is taken (the read renamed ``by`` "exchange", the card named ``by`` "rules";
        several placings: the reads decide, as ``_read_among``; several
        exchanges: the one the reads believed twice as much as the next), else nothing
        changes. One exchange only: the placings it is tried with take no end-of-deal exchange
        of their own. Both carry the share of the exchange taken among every exchange and
        placing found and the cards left placed as read (``ways``, none clean), each weighed as
        the decoder weighs a way: the read's belief in the card it becomes over its own, the
        reads in front of ``seat`` (``SMOOTHING`` + score), the rules each way breaks."""
        before = self._ruled_before()
        # belief, play (0) or held card (1), its index, the card it becomes, the card named
        found: list[tuple[float, int, int, int, int]] = []
        read = [(0, j, p.card) for j, p in enumerate(self.plays)
                if p.source == "camera" and not p.confirmed]  # fmt: skip
        read += [(1, k, int(ev.card)) for k, (ev, _) in enumerate(self._held)]  # type: ignore[arg-type]
        for where, j, card in read:
            belief = self.tracker.belief(card)
            for other in left if belief is not None else ():
                if belief[other] < CONFLICT_FLOOR:
                    continue
                trial = self._trial()
                trial._exchange_read(where, j, other)
                rest = [c for c in left if c != other] + [card]
                placed = list(trial._results(trial._clean_ways(rest, seat, before, False)))
                placed = trial._read_among(placed, seat) if len(placed) > 1 else placed
                found += [(float(belief[other]), where, j, other, c) for c in placed]
        found.sort(reverse=True)
        # The exchange the reads believed most, if twice as much as the next (as a conflict).
        if not found or (len(found) > 1 and found[0][0] < CONFLICT_MARGIN * found[1][0]):
            return False
        scores = self._read_scores(seat, range(len(CARD_NAMES)))
        weights = [
            b / max(self._own_belief(where, j), 1e-9) * (SMOOTHING + scores.get(c, 0.0))
            for b, where, j, _, c in found
        ]
        as_read = 0.0  # the cards left placed as read: none keeps the rules
        for c in left:
            mine = [w.weight for w in ways if w.card == c]
            as_read += (SMOOTHING + scores.get(c, 0.0)) * (
                sum(mine) / len(mine) if mine else VIOLATION
            )
        # As likely as the cards named before (``_name_by_decoder``); rounded down: never up
        # to FINAL_P.
        share = math.floor(weights[0] / (as_read + sum(weights)) * self._chain() * 1e6) / 1e6
        _, where, j, other, card = found[0]
        self._exchange_read(where, j, other, "exchange", share)
        self._name_unread(card, seat, self._now, "rules", share)
        return True

    def _own_belief(self, where: int, j: int) -> float:
        """How much the reads of a card read (a play, ``where`` 0, or a held card, 1; index
        ``j``) believed the card they were accepted as."""
        card = self.plays[j].card if where == 0 else int(self._held[j][0].card)  # type: ignore[arg-type]
        belief = self.tracker.belief(card)
        return 0.0 if belief is None else float(belief[card])

    def _exchange_read(
        self, where: int, j: int, card: int, by: str = "exchange", p: float | None = None
    ) -> None:
        """A card read was ``card`` misread: a play (``where`` 0: renamed now) or a card held
        for its seat's turn (1: played as ``card`` when its turn comes, the correction then),
        with how likely that is (``p``) where it was weighed."""
        if where == 0:
            self._rename_play(self.plays[j], card, by, self._now, p)
            return
        ev, fr = self._held[j]
        self.tracker.rename(int(ev.card), card)  # type: ignore[arg-type]
        detail = {**ev.detail, "read_as": ev.card, "by": by, "probability": p}
        self._held[j] = (replace(ev, card=card, detail=detail), fr)

    def _trial(self) -> Self:
        """A copy of the deal to play a way out on: no detector, no files; the frames and what
        only frames add to (each card's reads, the logs of reads by seat) shared, not copied: a
        copy plays held cards and names cards, it reads no frame."""
        memo: dict[int, Any] = {id(self.detector): None}
        for shared in (self._guess_log, self._sure_log, self._unexplained_runs, self._beside_log):
            memo[id(shared)] = shared
        self.tracker.snapshot(memo)
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

    def _settle_named(self) -> None:
        """A complete deal with one card named and every other card read or a person's: it is
        the one card no read accepted, as sure as elimination (the deal plays each card once),
        whatever named it first (its reads, or the decoder before a person confirmed another).
        Not where it was read surely again elsewhere (a conflict said): one of the two is wrong.
        A read card whose reads doubted it may be it misread, as for any card named so: the end
        of the deal exchanges them where that withdraws violations, else says they may be each
        other (``_exchange_misread``). So is one of an exchange's two plays once a person
        confirmed the other."""
        named = [p for p in self.plays if p.provenance == NAMED]
        if (
            not self.referee.is_over
            or len(named) != 1
            or named[0].source not in (*DEDUCED, "exchange")
        ):
            self._weigh_placings()
            return
        (d,) = named
        if d.card in self._conflicts_said:
            return
        if d.source == "exchange":
            # One of an exchange's two plays, the other confirmed by a person: the card left, or
            # the seat left in its trick; not where its trick has two plays at one seat or a card
            # out of turn (a person moved the other there: where this one lay is not known).
            trick = [q.seat for q in self.plays if q.trick == d.trick]
            if len(set(trick)) == len(trick) and not any(
                v.rule == "out-of-turn" and v.trick == d.trick for v in self.referee.violations
            ):
                d.probability = 1.0
        else:
            d.source, d.probability = "elimination", None

    def _weigh_placings(self) -> None:
        """A complete deal with two to ``DEDUCE_MAX`` cards named (none renamed or exchanged,
        none read surely again elsewhere): which cards they are is known (every other card was
        read or named by a person, and the deal plays each card once); where each lay is not.
        Every placing of those cards at their places is weighed, as the decoder weighs a way:
        the reads at each place (those kept when it was named, ``decoder.likelihood`` among
        these cards) times ``VIOLATION`` for each rule the placing breaks. Each named card's
        probability becomes the share of the placings that keep it where it is: the deal's
        posterior of it, now that every other card is known (named one after another, each was
        weighed against every card then left)."""
        named = [i for i, p in enumerate(self.plays) if p.provenance == NAMED]
        plays = [self.plays[i] for i in named]
        if (
            not 2 <= len(named) <= DEDUCE_MAX
            or any(p.source not in DEDUCED or p.card in self._conflicts_said for p in plays)
            or any((p.trick, p.seat) not in self._named_scores for p in plays)
        ):
            return
        cards = [p.card for p in plays]
        like = [likelihood(cards, self._named_scores[(p.trick, p.seat)]) for p in plays]
        weights: dict[tuple[int, ...], float] = {}
        for placing in itertools.permutations(cards):
            trial = self
            if list(placing) != cards:
                trial = self._with_plays(
                    {i: {"card": c} for i, c in zip(named, placing, strict=True)}
                )
            if not trial.referee.is_over:
                continue
            broken = len(trial.referee.violations)
            weights[placing] = math.prod(lk[c] for lk, c in zip(like, placing, strict=True)) * (
                VIOLATION**broken
            )
        total = sum(weights.values())
        if total <= 0:
            return
        for k, p in enumerate(plays):
            kept = sum(w for placing, w in weights.items() if placing[k] == p.card)
            share = math.floor(kept / total * 1e6) / 1e6  # rounded down: never up to FINAL_P
            if (p.trick, p.seat) in self._beside_named:
                share = min(share, BESIDE_P)  # its reads may be a second box misread
            p.probability = share

    def _ruled_before(self) -> set[str]:
        """The violations standing now that a way may rule again (``_whatever_card``): not out
        of turn, the sign of a card missing."""
        return {_whatever_card(v) for v in self.referee.violations if v.rule != "out-of-turn"}
