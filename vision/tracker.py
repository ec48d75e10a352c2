"""Card tracker: the deck holds each of the 32 cards once, so the card itself is the identity.

No generic multi-object tracker is needed: every card has its own small state machine,
``unseen → candidate → on_table → collected``. A card is accepted only after a vote over a short
sliding window *and* once it lies still (a card in flight is not yet played); an accepted card
that disappears under a hand stays on the table (hysteresis) and is only reported ``hidden``
after ``lost_s``; it is ``collected`` only when the caller (the trick logic) says so. Reads that
cannot be true are dropped: a collected card, a second copy of a card, a new card exactly where a
card already lies unread (a misread of it). Weak reads that persist without a confident identity
become ``uncertain`` events instead of guesses.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

import numpy as np

from hakam.engine.cards import CARD_NAMES
from hakam.vision.detections import Detections, box_iou
from hakam.vision.yolo import nms


class CardState(StrEnum):
    UNSEEN = "unseen"
    CANDIDATE = "candidate"
    ON_TABLE = "on_table"
    COLLECTED = "collected"


@dataclass(frozen=True)
class TrackerSettings:
    """Thresholds of the tracker; times in seconds so they mean the same at 15 or 30 fps.

    Defaults tuned on the scripted deal videos (``hakam.vision.dealvideo``) at 15 fps: first with
    the oracle detector, then with the shipped models on clips of training deck designs only
    (``benchmarks/realclips.py tune``), choosing never-wrong over cards read. With the two-stage
    reader of round 3 the identity-share check is off (0.0): the reader already names each card once
    per frame, and the check only delayed cards (72 against 63 of 128 read, none wrong)."""

    min_confidence: float = 0.5  # a read at least this sure votes for its card
    weak_confidence: float = 0.15  # reads between weak and min are "a card, identity unsure"
    window_s: float = 0.5  # sliding vote window
    vote_share: float = 0.6  # share of the window's frames with a confident read to accept
    rest_reads: int = 3  # reads in the window that must agree in position: the card lies still
    rest_fraction: float = 0.06  # allowed centre spread, as a share of the box diagonal
    lost_s: float = 1.0  # unseen this long before an accepted card is reported hidden
    ghost_iou: float = 0.5  # a new card on an unread accepted card: a misread of it
    uncertain_s: float = 0.8  # a weak blob this long without an identity: say so
    identity_share: float = 0.0  # of the sure reads in the window on the card's spot, its own
    ghost_on_read: bool = True  # a new card on an accepted card read now is a ghost too
    ghost_s: float = 1.0  # an accepted card read this recently still blocks ghosts on it
    same_spot_iou: float = 0.7  # two cards read on one spot (IoU at least this): keep the surer
    # A played card does not move until its trick is collected: a read of an accepted card whose
    # box does not cover the centre where it was accepted is another card read as it (kept in
    # ``elsewhere``). A hand over it leaves a box on the card, around that centre. False: the
    # card follows its reads.
    cards_stay: bool = True

    def frames(self, seconds: float, fps: float) -> int:
        return max(1, round(seconds * fps))


@dataclass
class CardTrack:
    """What the tracker knows about one card."""

    card: int
    state: CardState = CardState.UNSEEN
    reads: deque = field(default_factory=deque)  # (frame, confidence, cx, cy, diag)
    box: np.ndarray | None = None
    first_frame: int = -1
    last_seen: int = -1
    accepted_frame: int = -1
    hidden: bool = False
    accepted_at: tuple[float, float] | None = None  # its centre when accepted
    beliefs: deque = field(default_factory=deque)  # (frame, probs over the 32 cards) per read
    # Every read of its spot from acceptance until it is collected, whatever card it named:
    # the sum of their beliefs and their number (``CardTracker.belief``).
    belief_sum: np.ndarray | None = None
    belief_n: int = 0


@dataclass(frozen=True)
class TrackEvent:
    """Something the tracker is now sure of (``accepted``, ``hidden``, ``visible``) or not
    (``uncertain``)."""

    kind: str
    frame: int
    time: float
    card: int | None = None
    box: tuple[float, float, float, float] | None = None
    confidence: float = 0.0
    detail: dict[str, Any] = field(default_factory=dict)

    @property
    def name(self) -> str | None:
        return None if self.card is None else CARD_NAMES[self.card]


@dataclass
class _Blob:
    box: np.ndarray
    first: int
    last: int
    count: int = 1
    classes: dict[int, int] = field(default_factory=dict)
    reported: bool = False


class CardTracker:
    """Turn per-frame ``Detections`` into card events; ``update`` once per frame, in order."""

    def __init__(self, settings: TrackerSettings | None = None, fps: float = 15.0) -> None:
        self.settings = settings or TrackerSettings()
        self.fps = fps
        s = self.settings
        self.window = s.frames(s.window_s, fps)
        self.votes_needed = max(s.rest_reads, int(np.ceil(s.vote_share * self.window)))
        self.lost_frames = s.frames(s.lost_s, fps)
        self.ghost_frames = s.frames(s.ghost_s, fps)
        # The unfinished trick's cards (the caller knows them): while one of them is still seen,
        # none has been collected, so a new card read on one's spot is a misread of it.
        self.pinned: set[int] = set()
        self.uncertain_frames = s.frames(s.uncertain_s, fps)
        self.tracks = [CardTrack(c) for c in range(len(CARD_NAMES))]
        self.blobs: list[_Blob] = []
        self.recent: deque = deque()  # (frame, sure reads) of the window: identity votes
        self.elsewhere = Detections.empty()  # this frame's reads of accepted cards far from them
        # This frame's sure reads of new cards taken for ghosts of a lying card that was read
        # surely too, on a box of its own: a card played on it, or a second box on that one card
        # misread (the finder's duplicates). Not votes; the caller may weigh them as reads.
        self.beside = Detections.empty()
        self.stats = {"reads": 0, "duplicate": 0, "collected_read": 0, "ghost": 0, "weak": 0,
                      "disputed": 0, "same_spot": 0}  # fmt: skip

    # --- queries --------------------------------------------------------------------------

    def state(self, card: int) -> CardState:
        return self.tracks[card].state

    def on_table(self) -> list[int]:
        return [t.card for t in self.tracks if t.state is CardState.ON_TABLE]

    def collected(self) -> list[int]:
        return [t.card for t in self.tracks if t.state is CardState.COLLECTED]

    def belief(self, card: int) -> np.ndarray | None:
        """The mean belief over the 32 cards of the reads of an accepted card's spot (None
        without beliefs): a card misread at acceptance is often read as itself later."""
        t = self.tracks[card]
        return None if t.belief_sum is None else t.belief_sum / max(t.belief_n, 1)

    def is_hidden(self, card: int) -> bool:
        return self.tracks[card].hidden

    def unplaced(self, since: int) -> list[np.ndarray]:
        """Boxes of reads seen since frame ``since`` that no accepted card explains: candidates
        not (yet) accepted and weak blobs. Where one lies, a card may be there unread."""
        boxes = [
            t.box
            for t in self.tracks
            if t.state is CardState.CANDIDATE and t.box is not None and t.last_seen >= since
        ]
        return boxes + [b.box for b in self.blobs if b.last >= since]

    # --- caller decisions -----------------------------------------------------------------

    def pin(self, cards: set[int]) -> None:
        """The unfinished trick's cards: while one of them is still seen, none has been
        collected, so a new card read on one's spot is a misread of it."""
        self.pinned = set(cards)

    def mark_played(self, card: int) -> None:
        """A card not read was played (named by a person or the rules): it is on the table now,
        and no later read makes it a new card."""
        self.release(card)
        self.tracks[card].state = CardState.ON_TABLE

    def restore(self, card: int, box: tuple[float, ...] | None, frame: int) -> None:
        """A card played before a restart that may still lie where it was last read (``box``):
        on the table there, so a read of it there is that card, not a new one."""
        self.mark_played(card)
        t = self.tracks[card]
        t.accepted_frame = t.last_seen = frame
        if box is not None:
            t.box = np.asarray(box, dtype=np.float32).copy()
            x1, y1, x2, y2 = (float(v) for v in box)
            t.accepted_at = ((x1 + x2) / 2, (y1 + y2) / 2)

    def snapshot(self, shared: dict[int, object]) -> None:
        """Add to ``shared`` (a ``copy.deepcopy`` memo) what a copy of the tracker shares with it
        instead of copying: what only frames add to (the window's reads, each card's reads and
        beliefs). A copy that plays a way out reads no frame, so sharing them is safe and cheap."""
        shared[id(self.recent)] = self.recent
        for t in self.tracks:
            shared[id(t.reads)], shared[id(t.beliefs)] = t.reads, t.beliefs

    def collect(self, card: int) -> None:
        """The card left the table with its trick: any later read of it is impossible."""
        t = self.tracks[card]
        t.state = CardState.COLLECTED
        t.reads.clear()
        t.beliefs.clear()

    def release(self, card: int) -> None:
        """Forget a card (the open card went into a hand and will be played later)."""
        self.tracks[card] = CardTrack(card)

    def rename(self, card: int, new: int) -> None:
        """An accepted card was another card: ``new`` takes its place (state, spot, belief)
        and ``card`` is forgotten, free to be read where it really is."""
        old = self.tracks[card]
        self.tracks[new] = CardTrack(
            new, old.state, deque(), old.box, old.first_frame, old.last_seen,
            old.accepted_frame, old.hidden, old.accepted_at, deque(), old.belief_sum,
            old.belief_n,
        )  # fmt: skip
        self.release(card)

    def accept(
        self,
        card: int,
        reads: list[tuple[int, np.ndarray]],
        frame: int,
        time: float,
        belief: np.ndarray | None,
        confidence: float,
    ) -> TrackEvent | None:
        """Accept an unseen card from earlier reads, ``(frame, box)``, that lay still where it
        lies: they were set aside while its identity belonged to another card (now renamed by
        the caller, who weighed the two). None if the card is no longer unseen."""
        t = self.tracks[card]
        if t.state is not CardState.UNSEEN or not reads:
            return None
        t.box = np.asarray(reads[-1][1], dtype=np.float32).copy()
        t.first_frame, t.last_seen = reads[0][0], reads[-1][0]
        if belief is not None:
            t.belief_sum, t.belief_n = belief.copy(), 1
        return self._on_table(t, frame, time, confidence)

    def _on_table(self, t: CardTrack, frame: int, time: float, conf: float) -> TrackEvent:
        """Accept ``t`` at ``frame``: on the table where its box lies now (``cards_stay``)."""
        t.state = CardState.ON_TABLE
        t.accepted_frame = frame
        if t.box is not None:
            x1, y1, x2, y2 = (float(v) for v in t.box)
            t.accepted_at = ((x1 + x2) / 2, (y1 + y2) / 2)
        return self._event("accepted", t, frame, time, conf)

    # --- the update -----------------------------------------------------------------------

    def update(self, detections: Detections, frame: int, time: float) -> list[TrackEvent]:
        """Feed one frame's reads; returns the events this frame proves, accepted cards first
        in the order they landed."""
        s = self.settings
        events: list[TrackEvent] = []
        n_before = len(detections)
        detections = detections.best_per_card()
        self.stats["duplicate"] += n_before - len(detections)
        if s.same_spot_iou > 0 and len(detections) > 1:
            # One card lies on one spot: a second class read on the same box is a misread of it.
            keep = np.sort(nms(detections.xyxy, detections.confidence, s.same_spot_iou))
            self.stats["same_spot"] += len(detections) - len(keep)
            detections = detections[keep]
        self.stats["reads"] += len(detections)
        sure = detections[detections.confidence >= s.min_confidence]
        weak = detections[
            (detections.confidence >= s.weak_confidence)
            & (detections.confidence < s.min_confidence)
        ]
        read_now: set[int] = set()
        far = self.far_from_spot(sure)
        self.elsewhere = sure[far]
        sure = sure[~far]
        ghosts, beside = self._ghost_mask(sure, frame)
        self.beside = sure[beside]
        self.recent.append((frame, sure[~ghosts]))
        while self.recent and self.recent[0][0] <= frame - self.window:
            self.recent.popleft()
        for i, (box, conf, cls) in enumerate(sure):
            t = self.tracks[cls]
            if t.state is CardState.COLLECTED:
                self.stats["collected_read"] += 1
                continue
            if ghosts[i]:
                self.stats["ghost"] += 1
                continue
            read_now.add(cls)
            cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
            diag = float(np.hypot(box[2] - box[0], box[3] - box[1]))
            t.reads.append((frame, conf, float(cx), float(cy), diag))
            if sure.probs is not None:
                t.beliefs.append((frame, sure.probs[i]))
            t.box = box.copy()
            t.last_seen = frame
            if t.state is CardState.UNSEEN:
                t.state = CardState.CANDIDATE
                t.first_frame = frame
            if t.state is CardState.ON_TABLE and t.hidden:
                t.hidden = False
                events.append(self._event("visible", t, frame, time, conf))
        accepted: list[CardTrack] = []
        for t in self.tracks:
            while t.reads and t.reads[0][0] <= frame - self.window:
                t.reads.popleft()
            while t.beliefs and t.beliefs[0][0] <= frame - self.window:
                t.beliefs.popleft()
            if t.state is CardState.CANDIDATE:
                if not t.reads:
                    t.state, t.first_frame = CardState.UNSEEN, -1
                elif t.card in read_now and self._settled(t):
                    if self._undisputed(t):
                        accepted.append(t)
                    else:
                        self.stats["disputed"] += 1
            elif (
                t.state is CardState.ON_TABLE
                and not t.hidden
                and frame - t.last_seen >= self.lost_frames
            ):
                t.hidden = True
                events.append(self._event("hidden", t, frame, time, 0.0))
        accepted.sort(key=lambda t: (t.first_frame, t.card))
        first: list[TrackEvent] = []
        for t in accepted:
            if t.beliefs:  # what the reads that accepted it believed, for a later dispute
                t.belief_sum = np.sum([b for _, b in t.beliefs], axis=0)
                t.belief_n = len(t.beliefs)
            conf = float(np.mean([r[1] for r in t.reads]))
            first.append(self._on_table(t, frame, time, conf))
        events = first + events
        self._spot_beliefs(detections, {t.card for t in accepted})
        events += self._uncertain(weak, sure, frame, time)
        return events

    def _spot_beliefs(self, detections: Detections, new: set[int]) -> None:
        """Add this frame's reads of each lying card's spot to its belief, whatever they name."""
        if detections.probs is None or not len(detections):
            return
        for t in self.tracks:
            if (
                t.state is not CardState.ON_TABLE
                or t.card in new
                or t.belief_sum is None
                or t.box is None
                or t.hidden
            ):
                continue
            hit = box_iou(t.box[None], detections.xyxy)[0] >= 0.5
            if hit.any():
                t.belief_sum = t.belief_sum + detections.probs[hit].sum(0)
                t.belief_n += int(hit.sum())

    def _settled(self, t: CardTrack) -> bool:
        """Enough votes in the window and the last reads agree in position: it lies still."""
        if len(t.reads) < self.votes_needed:
            return False
        return self.lies_still(np.array([(r[2], r[3]) for r in t.reads]), t.reads[-1][4])

    def lies_still(self, centres: np.ndarray, diag: float) -> bool:
        """The window's read centres (oldest first; ``diag``: the latest box's diagonal) are
        of a card at rest: enough votes, and enough of them where the latest read is. Counting
        agreeing reads (not the spread of the last few) lets one stray misread not reset it."""
        if len(centres) < self.votes_needed:
            return False
        near = np.linalg.norm(centres - centres[-1], axis=1) <= self.settings.rest_fraction * diag
        return int(near.sum()) >= self.settings.rest_reads

    def _undisputed(self, t: CardTrack) -> bool:
        """Its identity holds the spot: of the sure reads of the window that overlap its box,
        at least ``identity_share`` name this card (a card read now as JC, now as QS waits)."""
        share = self.settings.identity_share
        if share <= 0 or t.box is None:
            return True
        mine = other = 0
        for _, reads in self.recent:
            if not len(reads):
                continue
            hit = box_iou(t.box[None], reads.xyxy)[0] >= 0.5
            same = reads.class_id == t.card
            mine += int((hit & same).sum())
            other += int((hit & ~same).sum())
        return mine >= share * (mine + other)

    def far_from_spot(self, sure: Detections) -> np.ndarray:
        """Mask of the reads of accepted cards whose box does not cover the centre where the
        card was accepted (``cards_stay``): ``update`` keeps them apart, in ``elsewhere``."""
        mask = np.zeros(len(sure), bool)
        if not self.settings.cards_stay:
            return mask
        for i, cls in enumerate(sure.class_id):
            t = self.tracks[cls]
            if t.state is CardState.ON_TABLE and t.accepted_at is not None:
                cx, cy = t.accepted_at
                x1, y1, x2, y2 = sure.xyxy[i]
                mask[i] = not (x1 <= cx <= x2 and y1 <= cy <= y2)
        return mask

    def _ghost_mask(self, sure: Detections, sure_frame: int) -> tuple[np.ndarray, np.ndarray]:
        """New cards read where an accepted card lay a moment ago but is not read now: misreads
        of that card (a card unread for a whole window may have left, so it blocks nothing,
        unless ``pinned`` and another card of its trick is still seen: the trick lies there).
        Also the ghosts ``beside`` it: each card they lie on was read surely now, on its own box
        (``self.beside``)."""
        mask = np.zeros(len(sure), bool)
        beside = np.zeros(len(sure), bool)
        if not len(sure):
            return mask, beside
        now = set(sure.class_id.tolist())
        read = set() if self.settings.ghost_on_read else now
        gap = self.ghost_frames
        recent = {c for c in self.pinned if sure_frame - self.tracks[c].last_seen <= gap}
        # A pinned card blocks while another card of its trick is still seen (its trick lies).
        pinned = {c for c in self.pinned if recent - {c}}
        lying = [
            t
            for t in self.tracks
            if t.state is CardState.ON_TABLE
            and t.card not in read
            and t.box is not None
            and (sure_frame - t.last_seen <= gap or t.card in pinned)
        ]
        if not lying:
            return mask, beside
        iou = box_iou(sure.xyxy, np.array([t.box for t in lying]))
        for i, cls in enumerate(sure.class_id):
            if self.tracks[cls].state in (CardState.UNSEEN, CardState.CANDIDATE):
                under = iou[i] >= self.settings.ghost_iou
                mask[i] = bool(under.any())
                beside[i] = mask[i] and all(
                    t.card in now for t, hit in zip(lying, under, strict=True) if hit
                )
        return mask, beside

    def _uncertain(
        self, weak: Detections, sure: Detections, frame: int, time: float
    ) -> list[TrackEvent]:
        """Weak reads not explained by a known card persist as blobs; a lasting blob is news."""
        events: list[TrackEvent] = []
        known = [t.box for t in self.tracks if t.state is CardState.ON_TABLE and t.box is not None]
        explained = np.array(known + [b for b in sure.xyxy]).reshape(-1, 4)
        for box, _conf, cls in weak:
            if len(explained) and (box_iou(box[None], explained)[0] >= 0.3).any():
                continue
            self.stats["weak"] += 1
            best = None
            if self.blobs:
                ious = box_iou(box[None], np.array([b.box for b in self.blobs]))[0]
                j = int(np.argmax(ious))
                if ious[j] >= 0.3:
                    best = self.blobs[j]
            if best is None:
                best = _Blob(box.copy(), frame, frame)
                self.blobs.append(best)
            elif best.last != frame:
                best.box, best.last = box.copy(), frame
                best.count += 1
            best.classes[cls] = best.classes.get(cls, 0) + 1
        keep = []
        for b in self.blobs:
            if frame - b.last > self.window:
                continue
            if len(explained) and (box_iou(b.box[None], explained)[0] >= 0.3).any():
                continue  # a confident card now explains it
            keep.append(b)
            span = b.last - b.first + 1
            if not b.reported and span >= self.uncertain_frames and b.count >= 0.5 * span:
                b.reported = True
                guesses = sorted(b.classes.items(), key=lambda kv: -kv[1])[:3]
                events.append(
                    TrackEvent(
                        "uncertain", frame, time, None,
                        tuple(round(float(v), 1) for v in b.box), 0.0,
                        {"frames": span, "guesses": [CARD_NAMES[c] for c, _ in guesses]},
                    )
                )  # fmt: skip
        self.blobs = keep
        return events

    @staticmethod
    def _event(kind: str, t: CardTrack, frame: int, time: float, conf: float) -> TrackEvent:
        box = None if t.box is None else tuple(round(float(v), 1) for v in t.box)
        return TrackEvent(kind, frame, time, t.card, box, round(conf, 3))
