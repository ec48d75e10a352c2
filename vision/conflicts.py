"""A card read where the deal says it cannot be: a card already played read again (one of the
two reads is wrong: the likelier way out by both reads' beliefs is taken) and reads not yet
explained by a card on the table (``Pipeline`` mixin: its state lives in ``Pipeline``)."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from hakam.engine.cards import CARD_NAMES
from hakam.vision.detections import Detections, box_iou
from hakam.vision.provenance import NAMED, Play
from hakam.vision.tracker import CardState

# The earlier play is renamed only if its reads gave the new name at least this belief: two sure
# reads of one card with no doubt in the earlier one leave the decision to a person.
CONFLICT_FLOOR = 0.05
# ... and only if that way out is at least this many times likelier than the other (two reads
# sure of one card, with a few hundredths on others, are not renamed on a near-even guess).
CONFLICT_MARGIN = 2.0


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


def swap_probability(
    earlier: np.ndarray, later: np.ndarray, card: int, other: int, possible: Collection[int]
) -> float:
    """How likely the play ``conflict_swap`` renamed is ``other``, by the same two beliefs,
    among every way out: the earlier read was any ``possible`` card misread (and the later one
    is ``card``), or the later read is any ``possible`` card misread (the earlier play stands).
    A play renamed so carries it: below ``FINAL_P`` a person confirms it."""
    cand = np.array(sorted(possible), np.int64)
    if not len(cand):
        return 0.0
    renamed = float(earlier[cand].sum() * later[card])
    stands = float(earlier[card] * later[cand].sum())
    total = renamed + stands
    return float(earlier[other] * later[card]) / total if total > 0 else 0.0


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


class ReadConflicts:
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
        if (
            play.source == "camera"
            and not play.confirmed  # a person's word is not renamed
            and earlier is not None
            and now_belief is not None
        ):
            swap = conflict_swap(earlier, now_belief, card, self._possible())
        if swap is None:
            # A card named without the vote (not read, or read too seldom) is no proof against
            # a card read surely, lying still: the conflict is said, the new read kept waiting.
            if now_belief is not None and play.provenance != NAMED:
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
        p = swap_probability(earlier, now_belief, card, swap, self._possible())  # type: ignore[arg-type]
        self._rename_play(play, swap, "conflict", now, p)
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
            p = swap_probability(earlier, later, card, swap, self._possible())
            self._exchange_read(1, k, swap, "conflict", p)
            self._accept_now.append((card, sighting))
        return False

    def _rename_play(
        self, play: Play, card: int, by: str, now: int, probability: float | None = None
    ) -> None:
        """A played card was ``card`` misread: rename the play (a correction ``by`` ``by``, with
        how likely the renaming is where it was weighed), move the tracker's knowledge to
        ``card`` and referee the deal again."""
        old = play.card
        item = self._renaming(play, card, by)
        if probability is not None:
            item["probability"] = float(probability)
        self._log_correction(item, now, now / self.fps)
        play.card, play.source, play.probability = card, by, probability
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
