"""A deck the table brought: learnt from one look at its 32 cards, then read with its own cards.

The generic readers know the designs they were trained on and read an unseen design far worse
(models/README.md). A table can show its deck once (``hakam deck learn``):

1. ``find_cards``: the 32 cards lie face up in a frame or a few; each is found (the finder's
   boxes, ``hakam.vision.spread``; the outline network's corners), straightened and given a
   proposed name (the generic read). A person confirms or corrects each; ``check_cards``
   refuses anything but the 32 Baloot cards once each, saying which are missing and which
   appear twice.
2. ``learn_deck``: scenes are drawn with the deck's own straightened faces (the scene
   generator's tricks, piles, fans, hands, light and blur: ``hakam.vision.deck_scenes``); the
   corners of each card there, as the outline network draws them on the finder's boxes and as
   the labels give them moved a little, teach the index network that deck's indices: its last
   layers are trained on them from the shipped weights (``hakam.vision.fine_tune``), and a box
   on no card teaches "not a Baloot card". The whole-card reader's reads of the same boxes
   fit the deck's ``Calibration`` of that reader (``hakam.vision.calibration``): which cards
   its reads are on this deck.
3. ``TwoStageDetector.with_deck``: the deck's own index network reads the corners in place of
   the shipped one, and the whole-card reader's reads are calibrated; the mix of the two reads
   stays as it is.

Everything runs on OpenVINO and numpy: no torch. A learned deck lives in ``decks/NAME/`` under the
data folder (``hakam.vision.deck_store``). The constants are chosen on a tuning design
(``hakam.datasets.arabic_deck.TUNING``), never on a hold-out one.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import NamedTuple

import cv2
import numpy as np

from hakam.engine.cards import CARD_NAMES
from hakam.errors import UserError
from hakam.vision import deck_scenes, index_glyphs, pips
from hakam.vision.assignment import min_cost_assignment
from hakam.vision.calibration import Calibration
from hakam.vision.corners import corner_patches
from hakam.vision.detections import box_iou
from hakam.vision.fine_tune import IndexTail, learn_tail
from hakam.vision.reader import OTHER, READER_CLASSES
from hakam.vision.spread import spread_boxes

DECK_FORMAT = "hakam-deck/2"  # /1 (to 2026-12-07): a regression on the networks' features
# Scenes drawn with the deck's faces to learn from (``deck_scenes``): the tuning design's took
# about 70 s to draw and 85 s to train on (2 cores). 1,000 scenes with two patches of each card's
# true corners learn in about 63% of the time and read 1.2 points fewer scenes exactly at 2
# points less precision there (three seeds): a deck is learnt once, and read all evening.
LEARN_SCENES = 2000
FACE_W, FACE_H = 252, 352  # a straightened face: a poker card's proportions (63 x 88 mm)
MIN_VISIBLE = 0.25  # share of a drawn card that must show for its box to teach its name
MATCH_IOU = 0.5  # a finder's box on a drawn card's box at least this much reads that card
CLEAR_IOU = 0.2  # a box on no drawn card more than this teaches "not a Baloot card"
SAME_VIEW = 0.9  # two frames' pixels correlating this much where a card lies show the same card
VIEW_SHIFT = 2  # ... at the best of shifts up to this many pixels of 48 (``same_view``)
DECK_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}\Z")  # \Z: no newline after it


class DeckError(UserError):
    """A deck that cannot be learnt, saved, found or read with: one line."""


def check_name(name: str) -> str:
    if not name:
        raise DeckError("deck name: give the deck a name (1 to 40 Latin letters, digits, '_', "
                        "'.' or '-', starting with a letter or digit)")  # fmt: skip
    if not DECK_NAME.match(name):
        raise DeckError(f"deck name {name}: 1 to 40 Latin letters, digits, '_', '.' or '-', "
                        f"starting with a letter or digit")  # fmt: skip
    return name


def check_new_name(name: str, learnt: Collection[str]) -> str:
    """A name a new deck can take: a deck name (``check_name``), not one of ``learnt``."""
    check_name(name)
    if name in learnt:
        raise DeckError(f"deck {name}: learnt here already; give another name (or "
                        f"`hakam deck forget {name}`)")  # fmt: skip
    return name


# ---------------------------------------------------------------------------- finding the cards


# A quad whose sides are this much shorter than its top and bottom edges has its corners a
# quarter turn round the card: a card is 88 x 63 mm, and its upright quads in spreads
# (1,281 faces of 8 designs, seeds 0, 7, 8, 11 and 12) were never under 0.94; 6 of the 8 turned
# ones were 0.80-0.90 (2026-12-07).
TURNED_RATIO = 0.92


def upright(quad: np.ndarray) -> np.ndarray:
    """``quad`` with its corners from a short edge's end, as a face is straightened: the outline
    network now and then starts a quarter turn round (the face then shows the card sideways,
    squeezed)."""
    q = np.asarray(quad, np.float32)
    edge = [float(np.linalg.norm(q[(k + 1) % 4] - q[k])) for k in range(4)]
    if edge[1] + edge[3] < TURNED_RATIO * (edge[0] + edge[2]):
        return np.roll(q, -1, axis=0)
    return q


def straighten(image: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """The card inside ``quad`` (frame pixels, printed top-left first, clockwise) as an upright
    BGR face of ``FACE_W`` x ``FACE_H``."""
    dst = np.float32([[0, 0], [FACE_W, 0], [FACE_W, FACE_H], [0, FACE_H]])
    m = cv2.getPerspectiveTransform(np.asarray(quad, np.float32), dst)
    return cv2.warpPerspective(
        image, m, (FACE_W, FACE_H), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )


@dataclass(frozen=True)
class Candidate:
    """A card found while learning: where (``frame``, ``box``, ``quad``), its straightened
    ``face``, and the generic read's proposal (None: it reads as no Baloot card)."""

    frame: int
    box: np.ndarray
    quad: np.ndarray
    face: np.ndarray
    proposed: str | None
    probability: float
    # The generic read's probabilities (``READER_CLASSES``), a number card's weighed by its
    # pips counted (``hakam.vision.pips``).
    read: np.ndarray | None = None


def _iou(a, b) -> float:
    """The overlap of two boxes (``box_iou`` of one box each)."""
    return float(box_iou(a, b)[0, 0])


def same_view(a: np.ndarray, b: np.ndarray, box_a, box_b) -> bool:
    """Whether two frames show the same thing where two boxes lie (their union, within the
    frame): grey, 48 x 64, blurred a little, the pixels correlate ``SAME_VIEW`` or more at the
    best of small shifts (up to ``VIEW_SHIFT`` of the 48). The same card filmed again does (0.987
    and more: a spread of the tuning design and of kde_oxygen, each filmed twice with noise,
    JPEG and a pixel's shake); most other cards shown at the same place do not (0.779 at most in
    a sample of pairs of those designs' cards shown one at a time), but aces of one colour or a
    jack and king of one suit can (0.91-0.98): ``same_card`` asks the proposals to agree too. A
    region with no contrast in either frame is not called the same."""
    if a.shape != b.shape:
        return False  # frames of another size: not the same view
    x1, y1 = (max(0, int(min(box_a[i], box_b[i]))) for i in (0, 1))
    x2 = min(a.shape[1], int(np.ceil(max(box_a[2], box_b[2]))))
    y2 = min(a.shape[0], int(np.ceil(max(box_a[3], box_b[3]))))
    if x2 - x1 < 8 or y2 - y1 < 8:
        return False

    def grey(frame: np.ndarray) -> np.ndarray:
        g = cv2.cvtColor(frame[y1:y2, x1:x2], cv2.COLOR_BGR2GRAY)
        g = cv2.resize(g, (48, 64), interpolation=cv2.INTER_AREA).astype(np.float32)
        return cv2.GaussianBlur(g, (0, 0), 1.0)

    s = VIEW_SHIFT
    ga, gb = grey(a), grey(b)
    core = ga[s:-s, s:-s] - ga[s:-s, s:-s].mean()
    norm = np.linalg.norm(core)
    best = -1.0
    for dy in range(2 * s + 1):
        for dx in range(2 * s + 1):
            w = gb[dy : dy + core.shape[0], dx : dx + core.shape[1]]
            w = w - w.mean()
            best = max(best, float((core * w).sum() / (norm * np.linalg.norm(w) + 1e-6)))
    return best >= SAME_VIEW


def same_card(a: Candidate, b: Candidate, frames: Sequence[np.ndarray]) -> bool:
    """Whether two finds are one card: at the same place, proposed alike, and (in two frames)
    where the frames show the same (``same_view``). Without the proposal, aces shown one at a
    time were joined (alike in a blurred view); without the view, any cards proposed alike."""
    if _iou(a.box, b.box) < MATCH_IOU or a.proposed != b.proposed:
        return False
    return a.frame == b.frame or same_view(frames[a.frame], frames[b.frame], a.box, b.box)


def _inner(box, inner: float = 0.6) -> np.ndarray:
    """The middle of a box, ``inner`` of its width and height: the card itself, not the
    neighbours a tilted card's box takes in (a user's walk: a card laid beside one left on the
    table made it look new)."""
    x1, y1, x2, y2 = (float(v) for v in box)
    dx, dy = (x2 - x1) * (1 - inner) / 2, (y2 - y1) * (1 - inner) / 2
    return np.float32([x1 + dx, y1 + dy, x2 - dx, y2 - dy])


def not_found_before(found: Sequence[Candidate], frames: Sequence[np.ndarray],
                     new: Sequence[Candidate], frame: np.ndarray) -> list[Candidate]:  # fmt: skip
    """The finds ``new`` of another ``frame`` but those of a card found before: at the same
    place, the frames the same in the middle of it (``same_view``; a card left on the table
    while the missing ones are laid beside it, or one the person dropped and left there). A
    card laid anew, even where a find was, looks otherwise and is kept."""

    def before(c: Candidate) -> bool:
        return any(_iou(o.box, c.box) >= MATCH_IOU
                   and same_view(frames[o.frame], frame, _inner(o.box), _inner(c.box))
                   for o in found)  # fmt: skip

    return [c for c in new if not before(c)]


def find_cards(frames: Sequence[np.ndarray], detector) -> list[Candidate]:
    """Every card the frames show, once (``same_card``), kept from the frame that reads it
    surest: cards shown one at a time at one place are each kept, however alike the generic
    read proposes them; a card of a spread filmed a while whose proposal changes from frame to
    frame is found again (the person drops the extra finds)."""
    if getattr(detector, "corners", None) is None:
        raise DeckError("learning a deck: needs the two-stage reader with its corner reader")
    found: list[Candidate] = []
    for k, frame in enumerate(frames):
        boxes = spread_boxes(frame, detector)
        if not len(boxes):
            continue
        probs = detector.read_boxes(frame, boxes)
        quads = [upright(q) for q in detector.corners.quads(frame, boxes)]
        for box, p, quad in zip(boxes, probs, quads, strict=True):
            best = int(np.argmax(p))
            name = None if best == OTHER else CARD_NAMES[best]
            c = Candidate(k, np.asarray(box, np.float32), quad, straighten(frame, quad), name,
                          float(p[best]), np.asarray(p, np.float32))  # fmt: skip
            same = [i for i, o in enumerate(found) if same_card(o, c, frames)]
            if not same:
                found.append(c)
            elif c.probability > found[same[0]].probability:
                found[same[0]] = c
    # The read of a number card weighed by its pips counted (``hakam.vision.pips``).
    found = [c if c.read is None else replace(c, read=pips.weigh(c.read, c.face)) for c in found]
    proposals = propose([c.read for c in found], alike=index_glyphs.alike([c.face for c in found]))
    return [replace(c, proposed=name, probability=prob)
            for c, (name, prob) in zip(found, proposals, strict=True)]  # fmt: skip


def propose(reads: Sequence[np.ndarray], named: dict[int, str | None] | None = None,
            alike: np.ndarray | None = None, current: Sequence[str | None] | None = None,
            keep: float = 0.0) -> list[tuple[str | None, float]]:  # fmt: skip
    """A name to propose for each find (None: no Baloot card) and its probability: the likeliest
    names taken together, each card at most once (a deck holds each card once), any number of
    finds on no card. Rendered spreads, proposed wrong against each find's likeliest card alone
    (2026-12-07): 5 designs, seeds 0, 7 and 8, 69 of 492 finds against 90; 4 designs, seeds 11
    and 12, 42 of 259 against 48.

    ``named``: the finds a person has named, by index. Their names stay, and the cards they name
    are proposed for no other find: as the person corrects, the rest are proposed again (the
    Arabic-index designs' spreads, seeds 0, 7, 8, 11 and 12, a person correcting the first
    wrong find each time: 78 corrections against 110).

    ``alike``: which finds print the same rank (``hakam.vision.index_glyphs.alike``): they share
    their rank evidence, and a rank named for one is proposed for the others (the tuning
    design's spreads, seeds 16-23: 37 corrections against 71; the arabic design's, seeds 0, 7,
    8, 11-15: 28 against 41; standard indices as before: ``benchmarks/proposals.py``).

    ``current``: each find's proposal as it stands, kept unless the others gain more than
    ``keep`` (a log-probability) by its change, but for the finds printing a named find's glyph
    (free to follow its rank): a correction moves fewer finds the person may have checked."""
    named = named or {}
    if not len(reads):
        return []
    read = np.clip(np.asarray(reads, np.float64), 1e-9, 1.0)  # OTHER is the last column
    p = read if alike is None else np.clip(index_glyphs.pool_ranks(read, alike, named), 1e-12, 1.0)

    def said(i: int, card: int) -> tuple[str | None, float]:  # the generic read's probability
        return None if card == OTHER else CARD_NAMES[card], float(read[i, card])

    out = [said(i, OTHER if named[i] is None else CARD_NAMES.index(named[i])) if i in named
           else (None, 0.0) for i in range(len(p))]  # fmt: skip
    free = [i for i in range(len(p)) if i not in named]
    if free:
        taken = {CARD_NAMES.index(c) for c in named.values() if c is not None}
        cards = [c for c in range(OTHER) if c not in taken]
        # A column for each card left, and one "no card" column for each find.
        no_card = np.repeat(p[free][:, OTHER : OTHER + 1], len(free), axis=1)
        cost = -np.log(np.concatenate([p[free][:, cards], no_card], axis=1))
        if current is not None and keep:
            for row, i in enumerate(free):
                if alike is not None and any(alike[i, j] for j in named):
                    continue  # printing a named find's glyph: free to follow its rank
                now = current[i]
                if now is None:
                    cost[row, len(cards) :] -= keep
                elif CARD_NAMES.index(now) in cards:
                    cost[row, cards.index(CARD_NAMES.index(now))] -= keep
        for i, j in zip(free, min_cost_assignment(cost), strict=True):
            out[i] = said(i, cards[j] if j < len(cards) else OTHER)
    return out


def check_known(names: Sequence[str | None]) -> None:
    """Refuse, in one line, answers that name what is not a Baloot card (None: no card)."""
    unknown = sorted({n for n in names if n is not None and n not in CARD_NAMES})
    if unknown:
        raise DeckError(f"not Baloot cards: {', '.join(unknown)} (7, 8, 9, 10, J, Q, K, A of "
                        f"C, D, H, S: 10H, not TH)")  # fmt: skip


def check_cards(names: Sequence[str | None]) -> list[str]:
    """The confirmed names (None: a find the person dropped), refused unless they are the 32
    Baloot cards once each; the message says which are missing and which appear twice."""
    check_known(names)
    kept = [n for n in names if n is not None]
    twice = sorted({n for n in kept if kept.count(n) > 1}, key=CARD_NAMES.index)
    missing = [c for c in CARD_NAMES if c not in kept]
    if twice or missing:
        parts = ([f"missing {' '.join(missing)}"] if missing else []) + (
            [f"twice {' '.join(twice)}"] if twice else [])  # fmt: skip
        raise DeckError(f"not the 32 Baloot cards once each: {'; '.join(parts)}; nothing saved")
    return kept


def read_answers(path: Path, count: int, waiting: bool = False) -> list[str | None]:
    """A person's answers from a JSON file: one entry per card found, in the order proposed (a
    card name, or null to drop that find). ``waiting``: the answers kept with the cards waiting,
    where answers beyond the finds kept (a picture added, cut short before its finds were) are
    dropped."""
    try:
        answers = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise DeckError(f"--answers {path}: cannot be read ({exc})") from None
    if isinstance(answers, dict):
        answers = answers.get("answers")
    if not isinstance(answers, list) or not all(a is None or isinstance(a, str) for a in answers):
        raise DeckError(f"--answers {path}: a list of card names or null, one per card found")
    if waiting and len(answers) > count:
        answers = answers[:count]
    if len(answers) != count:
        raise DeckError(f"--answers {path}: {len(answers)} answers for {count} cards found")
    return [None if a is None else a.strip().upper() for a in answers]


# ---------------------------------------------------------------------------- the deck's network


def fingerprint(path: Path) -> str:
    """A network's identity: the SHA-256 of its weights (the OpenVINO ``.bin``, or the file)."""
    p = Path(path)
    if p.is_dir():
        p = sorted(p.glob("*.bin"))[0]
    return _hashed(str(p), _stamp(p))


def _stamp(path: Path) -> tuple[int, int]:
    """What says a file changed: its time and size (a run checks each deck learnt here against
    the same networks: each is read once, not once a deck)."""
    st = path.stat()
    return st.st_mtime_ns, st.st_size


@functools.lru_cache(maxsize=8)
def _hashed(path: str, stamp: tuple[int, int]) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16]


@functools.lru_cache(maxsize=4)
def _tail_shapes(onnx: str, stamp: tuple[int, int]) -> tuple[tuple[int, ...], ...]:
    """The shapes of the layers a deck's training replaces, in the index network ``onnx``."""
    return tuple(p.shape for p in IndexTail.from_model(onnx).params())


def index_onnx(path: Path) -> Path:
    """The ONNX file of the index network at ``path`` (its OpenVINO folder lies beside it): a
    deck's network is that file with its trained layers replaced."""
    p = Path(path)
    if p.suffix == ".xml" and p.parent.name.endswith("_openvino"):
        p = p.parent
    if p.suffix in (".onnx", ".xml"):
        onnx = p.with_suffix(".onnx")
    else:
        onnx = p.with_name(p.name.removesuffix("_openvino") + ".onnx")
    if not onnx.is_file():
        raise DeckError(f"{onnx}: missing (the index network a deck is learnt on)")
    return onnx


CORNER_NETWORKS = ("outline", "index")  # what a deck's own index network rests on


def networks_of(detector) -> dict[str, str]:
    """The networks a deck's own rests on: the shipped index network (its first layers, and
    the weights its training starts from), the outline network (the corners it is cut along)
    and the whole-card reader (whose reads it calibrates)."""
    return networks_at(detector.corners.outline.path, detector.corners.index.path,
                       detector.reader.path)  # fmt: skip


def networks_at(outline: Path, index: Path, reader: Path) -> dict[str, str]:
    """``networks_of`` the networks at these paths (their OpenVINO folders)."""
    return {"outline": fingerprint(outline), "index": fingerprint(index_onnx(index)),
            "reader": fingerprint(reader)}  # fmt: skip


def how_read(meta: dict, shipped: dict[str, str]) -> str:
    """How a deck (its ``deck.json``) reads with the networks ``shipped`` (``networks_of``;
    empty where they were not found: from ``deck.json`` alone): "as learnt"; "uncalibrated"
    (learnt before the whole-card reader's reads were calibrated, or with another whole-card
    reader: read without a calibration, surer learnt again); or "stale" (other corner
    networks: it cannot be read)."""
    networks = meta.get("networks")
    if not isinstance(networks, dict):
        networks = {}
    if not shipped:
        return "as learnt" if "reader" in networks else "uncalibrated"
    if any(networks.get(role) != shipped.get(role) for role in CORNER_NETWORKS):
        return "stale"
    return "as learnt" if networks.get("reader") == shipped.get("reader") else "uncalibrated"


def check_reader(detector, who: str) -> None:
    """Refuse, in one line starting with ``who``, a reader a deck's network cannot join: no
    corner reader, or not on OpenVINO."""
    corners = getattr(detector, "corners", None)
    if corners is None or corners.index is None or getattr(detector, "mix", 0) <= 0:
        raise DeckError(f"{who}: needs the two-stage reader with its corner reader")
    if corners.index.backend != "openvino":
        raise DeckError(f"{who}: reads on OpenVINO (--detector openvino)")


def learner(detector):
    """``detector`` if a deck can be learnt with it, else a one-line ``DeckError`` saying why,
    before anyone confirms a card."""
    check_reader(detector, "learning a deck")
    shipped_tail(detector)
    return detector


def shipped_tail(detector) -> IndexTail:
    """The layers a deck's training starts from: the shipped index network's, or a one-line
    ``DeckError`` where that network is laid out otherwise."""
    onnx = index_onnx(detector.corners.index.path)
    try:
        return IndexTail.from_model(onnx)
    except (KeyError, ValueError) as exc:
        raise DeckError(f"{onnx}: not the index network a deck is learnt on ({exc})") from None


@dataclass
class LearnedDeck:
    """A deck's own index network: ``tail``, the layers trained on its corners
    (``hakam.vision.fine_tune``), on the networks ``networks`` names (their fingerprints); and
    ``calibration``, of the whole-card reader's reads on this deck (None: a deck learnt before
    Hakam calibrated them, read with that reader's reads as they are)."""

    name: str
    tail: IndexTail
    networks: dict[str, str]
    learnt_at: str = ""
    samples: int = 0
    calibration: Calibration | None = None
    scenes: int = 0  # the scenes drawn to learn it from (0: not said, a deck from before)

    def check_reader(self, detector) -> None:
        """Refuse a reader this deck cannot join: one line saying why. The deck's index network
        rests on the corner networks it was learnt on; another whole-card reader only leaves its
        calibration out (``for_reader``)."""
        check_reader(detector, f"deck {self.name}")
        if how_read({"networks": self.networks}, networks_of(detector)) == "stale":
            raise DeckError(
                f"deck {self.name}: learnt with other networks than these; learn it again "
                f"(`hakam deck learn --again --name {self.name}`)"
            )
        self.fits(index_onnx(detector.corners.index.path))

    def for_reader(self, detector) -> LearnedDeck:
        """This deck as ``detector`` reads with it (``check_reader`` refuses one it cannot
        join): itself, or without its calibration where that was fitted to another whole-card
        reader's reads (a new reader shipped): the corners still read with the deck's own
        network, and the whole-card reads as they are, as for a deck learnt before Hakam
        calibrated them."""
        self.check_reader(detector)
        reader = networks_of(detector)["reader"]
        if self.calibration is None or self.networks.get("reader") == reader:
            return self
        networks = {role: v for role, v in self.networks.items() if role != "reader"}
        return replace(self, networks=networks, calibration=None)

    def fits(self, onnx: Path) -> None:
        """Refuse, in one line, trained layers of other shapes than the index network
        ``onnx``'s (the one it is put into)."""
        shapes = _tail_shapes(str(onnx), _stamp(Path(onnx)))
        if tuple(p.shape for p in self.tail.params()) != shapes:
            raise DeckError(f"deck {self.name}: cannot be read (its index.npz has other shapes)")

    def index_reader(self, index):
        """The deck's index network, in place of ``index`` (the shipped one's ``CardReader``):
        its ONNX with the trained layers put in, compiled by OpenVINO at 32 bits."""
        from hakam.vision.reader import CardReader

        onnx = index_onnx(index.path)
        self.fits(onnx)
        return CardReader(onnx, "openvino", index.threads, self.tail.patch)


class Samples(NamedTuple):
    """What a deck is learnt from (``learning_samples``)."""

    patches: np.ndarray  # corner patches (``corner_patches``, BGR), N x H x W x 3
    classes: np.ndarray  # each patch's class: a card, or ``OTHER``
    reads: np.ndarray  # the whole-card reader's probabilities of each finder box taught
    read_classes: np.ndarray  # ... and each such box's class


def learning_samples(
    faces: dict[str, np.ndarray],
    detector,
    scenes: int = LEARN_SCENES,
    seed: int = 0,
    progress: Callable[[int, int], None] | None = None,
    processes: int = deck_scenes.PROCESSES,
) -> Samples:
    """Corner patches and classes from ``scenes`` scenes drawn with ``faces`` (card name -> BGR
    face; ranks 2-6 and backs are not drawn: the table did not show them) by ``processes``
    others (``hakam.vision.deck_scenes``; 0: this one, the same samples): each card's true
    corners moved a little as the outline network errs (as the index network was trained;
    ``deck_scenes.JITTERS`` times), and the outline network's own corners of each finder box
    there, on a card or on none ("not a Baloot card"); and the whole-card reader's reads of
    those finder boxes, with their classes."""
    from contextlib import closing

    patches, classes, crops, reads, read_classes = [], [], [], [], []

    def read_crops() -> None:
        reads.append(detector.read_whole(crops))
        crops.clear()

    # A stop (an exception from ``progress``) drops the scenes not yet drawn.
    with closing(deck_scenes.drawn_scenes(faces, seed, scenes, processes)) as drawn:
        for i, (img, labels, taught, names) in enumerate(drawn):
            patches += taught
            classes += names
            boxes = detector.boxes(img)
            quads = detector.corners.quads(img, np.asarray(boxes, np.float32))
            for box, quad in zip(boxes, quads, strict=True):
                overlap, near = max(((_iou(box, lb.box), lb) for lb in labels),
                                    key=lambda pair: pair[0], default=(0.0, None))  # fmt: skip
                if overlap >= MATCH_IOU and near.visible >= MIN_VISIBLE:
                    classes.append(CARD_NAMES.index(near.card))
                elif overlap < CLEAR_IOU:
                    classes.append(OTHER)
                else:
                    continue  # neither a card nor clear of one: not taught
                patches.append(corner_patches(img, quad))
                crops.append(detector.whole_crop(img, box))
                read_classes.append(classes[-1])
            if len(crops) >= 256:
                read_crops()
            if progress is not None:
                progress(i + 1, scenes)
    if not patches:
        raise DeckError("no card was found in the scenes drawn with this deck's faces")
    if crops:
        read_crops()
    return Samples(np.stack(patches), np.asarray(classes, np.int64),
                   np.concatenate(reads) if reads else np.zeros((0, READER_CLASSES), np.float32),
                   np.asarray(read_classes, np.int64))  # fmt: skip


def learn_deck(
    name: str,
    faces: dict[str, np.ndarray],
    detector,
    scenes: int = LEARN_SCENES,
    seed: int = 0,
    progress: Callable[[str, int, int], None] | None = None,
    samples: Samples | None = None,
) -> LearnedDeck:
    """The deck's own index network from its 32 confirmed faces (card name -> BGR face).
    ``progress(stage, done, total)``: ``"scenes"`` drawn, then ``"training"`` steps.
    ``samples``: the scenes' samples, drawn already (``hakam.vision.deck_ahead``)."""
    check_name(name)
    check_cards(list(faces))
    check_reader(detector, "learning a deck")
    tail = shipped_tail(detector)  # refused here, before the scenes are drawn

    def said(stage: str):
        return None if progress is None else (lambda k, n: progress(stage, k, n))

    if samples is None:
        samples = learning_samples(faces, detector, scenes, seed, said("scenes"))
    return deck_from_samples(name, samples, detector, scenes, said("training"), tail)


def deck_from_samples(name: str, samples: Samples, detector, scenes: int = LEARN_SCENES,
                      progress: Callable[[int, int], None] | None = None,
                      tail: IndexTail | None = None) -> LearnedDeck:  # fmt: skip
    """The deck trained on ``samples`` (``learning_samples`` of its ``scenes``): its index
    network from the shipped one's ``tail`` (read here where not given), ``progress(step,
    steps)`` after each training step, and its calibration of the whole-card reader."""
    tail = shipped_tail(detector) if tail is None else tail
    onnx = index_onnx(detector.corners.index.path)
    learn_tail(onnx, tail, samples.patches, samples.classes, progress,
               detector.corners.index.threads)  # fmt: skip
    calibration = None  # no finder box taught: the whole-card reader's reads as they are
    if len(samples.read_classes):
        calibration = Calibration.fit(samples.reads, samples.read_classes)
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S")
    return LearnedDeck(name, tail, networks_of(detector), stamp, len(samples.classes), calibration,
                       scenes)  # fmt: skip
