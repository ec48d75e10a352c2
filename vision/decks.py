"""A deck the table brought: learnt from one look at its 32 cards, then read with its own cards.

The generic readers know the designs they were trained on and read an unseen design far worse
(models/README.md). A table can show its deck once (``hakam deck learn``):

1. ``find_cards``: the 32 cards lie face up in a frame or a few; each is found (the finder's
   boxes, ``hakam.vision.spread``; the outline network's corners), straightened and given a
   proposed name (the generic read). A person confirms or corrects each; ``check_cards``
   refuses anything but the 32 Baloot cards once each, saying which are missing and which
   appear twice.
2. ``learn_deck``: scenes are drawn with the deck's own straightened faces (the scene
   generator's tricks, piles, fans, hands, light and blur: ``hakam.datasets.generator``); each box
   the finder gives there is read as the live pipeline reads it, and a softmax regression is
   fitted on the two networks' pooled features (the whole-card reader's of its crop, the index
   network's of its straightened corners; ``EMBEDDING``) to the card it holds, or "not a Baloot
   card" for a box on none.
3. ``TwoStageDetector.with_deck``: that regression's read of each box joins the generic read
   (``weighted_product``, weight ``WEIGHT``), from the features the networks give in the same
   pass.

Everything runs on OpenVINO and numpy: no torch. A learned deck lives in ``decks/NAME/`` under the
data folder (``hakam.vision.deck_store``). The constants are chosen on a tuning design
(``hakam.datasets.arabic_deck.TUNING``), never on a hold-out one.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from hakam.engine.cards import CARD_NAMES
from hakam.errors import UserError
from hakam.vision.detections import box_iou
from hakam.vision.reader import OTHER, READER_CLASSES, softmax
from hakam.vision.spread import spread_boxes

DECK_FORMAT = "hakam-deck/1"
LEARN_SCENES = 600  # scenes drawn with the deck's faces to fit its read on (about 30 s, 2 cores)
HEAD_C = 1.0  # inverse strength of the regression's L2 penalty (on the summed log-loss)
WEIGHT = 0.8  # the deck's read in its product with the generic read (tuning design: 0.6-0.9)
FIT_STEPS = 600
FACE_W, FACE_H = 252, 352  # a straightened face: a poker card's proportions (63 x 88 mm)
MIN_VISIBLE = 0.25  # share of a drawn card that must show for its box to teach its name
MATCH_IOU = 0.5  # a finder's box on a drawn card's box at least this much reads that card
CLEAR_IOU = 0.2  # a box on no drawn card more than this teaches "not a Baloot card"
DECK_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$")


class DeckError(UserError):
    """A deck that cannot be learnt, saved, found or read with: one line."""


def check_name(name: str) -> str:
    if not DECK_NAME.match(name or ""):
        raise DeckError(
            f"deck name {name!r}: 1 to 40 letters, digits, '_', '.' or '-', from a letter or digit"
        )
    return name


# ---------------------------------------------------------------------------- finding the cards


def straighten(image: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """The card inside ``quad`` (frame pixels, printed top-left first, clockwise) as an upright
    BGR face of ``FACE_W`` x ``FACE_H``."""
    dst = np.float32([[0, 0], [FACE_W, 0], [FACE_W, FACE_H], [0, FACE_H]])
    m = cv2.getPerspectiveTransform(np.asarray(quad, np.float32), dst)
    return cv2.warpPerspective(
        image, m, (FACE_W, FACE_H), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )


def with_outline(face: np.ndarray) -> np.ndarray:
    """BGRA: the face with a card's rounded corners transparent (the scene renderer's edge)."""
    alpha = np.zeros(face.shape[:2], np.uint8)
    h, w = alpha.shape
    r = round(0.07 * w)
    cv2.rectangle(alpha, (r, 0), (w - 1 - r, h - 1), 255, -1)
    cv2.rectangle(alpha, (0, r), (w - 1, h - 1 - r), 255, -1)
    for cx, cy in ((r, r), (w - 1 - r, r), (r, h - 1 - r), (w - 1 - r, h - 1 - r)):
        cv2.circle(alpha, (cx, cy), r, 255, -1)
    return np.dstack([face, alpha])


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


def _iou(a, b) -> float:
    """The overlap of two boxes (``box_iou`` of one box each)."""
    return float(box_iou(a, b)[0, 0])


def find_cards(frames: Sequence[np.ndarray], detector) -> list[Candidate]:
    """Every card the frames show, once: a card proposed alike at the same place in several
    frames (a spread filmed a while) is kept from the frame that reads it surest."""
    if getattr(detector, "corners", None) is None:
        raise DeckError("learning a deck: needs the two-stage reader with its corner reader")
    found: list[Candidate] = []
    for k, frame in enumerate(frames):
        boxes = spread_boxes(frame, detector)
        if not len(boxes):
            continue
        probs = detector.read_boxes(frame, boxes)
        quads = detector.corners.quads(frame, boxes)
        for box, p, quad in zip(boxes, probs, quads, strict=True):
            best = int(np.argmax(p))
            name = None if best == OTHER else CARD_NAMES[best]
            c = Candidate(k, np.asarray(box, np.float32), quad, straighten(frame, quad), name,
                          float(p[best]))  # fmt: skip
            same = [i for i, o in enumerate(found)
                    if o.proposed == name and _iou(o.box, c.box) >= MATCH_IOU]  # fmt: skip
            if not same:
                found.append(c)
            elif c.probability > found[same[0]].probability:
                found[same[0]] = c
    return found


def check_cards(names: Sequence[str | None]) -> list[str]:
    """The confirmed names (None: a find the person dropped), refused unless they are the 32
    Baloot cards once each; the message says which are missing and which appear twice."""
    kept = [n for n in names if n is not None]
    unknown = sorted({n for n in kept if n not in CARD_NAMES})
    if unknown:
        raise DeckError(f"not Baloot cards: {', '.join(unknown)} (7 to A of C, D, H, S)")
    twice = sorted({n for n in kept if kept.count(n) > 1}, key=CARD_NAMES.index)
    missing = [c for c in CARD_NAMES if c not in kept]
    if twice or missing:
        parts = ([f"missing {' '.join(missing)}"] if missing else []) + (
            [f"twice {' '.join(twice)}"] if twice else [])  # fmt: skip
        raise DeckError(f"not the 32 Baloot cards once each: {'; '.join(parts)}; nothing saved")
    return kept


def read_answers(path: Path, count: int) -> list[str | None]:
    """A person's answers from a JSON file: one entry per card found, in the order proposed (a
    card name, or null to drop that find)."""
    try:
        answers = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise DeckError(f"--answers {path}: cannot be read ({exc})") from None
    if isinstance(answers, dict):
        answers = answers.get("answers")
    if not isinstance(answers, list) or not all(a is None or isinstance(a, str) for a in answers):
        raise DeckError(f"--answers {path}: a list of card names or null, one per card found")
    if len(answers) != count:
        raise DeckError(f"--answers {path}: {len(answers)} answers for {count} cards found")
    return [None if a is None else a.strip().upper() for a in answers]


# ---------------------------------------------------------------------------- the deck's read


def feature_rows(whole: np.ndarray, corner: np.ndarray) -> np.ndarray:
    """The regression's input: each network's features scaled to unit length, side by side."""

    def unit(x: np.ndarray) -> np.ndarray:
        x = np.asarray(x, np.float32).reshape(len(x), -1)
        return x / np.clip(np.linalg.norm(x, axis=1, keepdims=True), 1e-9, None)

    return np.hstack([unit(whole), unit(corner)])


def fit_head(x: np.ndarray, y: np.ndarray, c: float = HEAD_C, steps: int = FIT_STEPS):
    """Softmax regression (``READER_CLASSES`` classes) minimising the summed log-loss plus
    ||W||^2 / (2c), by full-batch gradient descent with Nesterov momentum: (W, b)."""
    n, d = x.shape
    target = np.zeros((n, READER_CLASSES), np.float32)
    target[np.arange(n), y] = 1
    w = np.zeros((d, READER_CLASSES), np.float32)
    b = np.zeros(READER_CLASSES, np.float32)
    vw, vb = np.zeros_like(w), np.zeros_like(b)
    # Step from the loss's curvature bound (mean loss: half the largest squared row norm).
    lr = 1.0 / (0.5 * float((x * x).sum(1).max()) + 1.0 / (c * n))
    for _ in range(steps):
        lw, lb = w + 0.9 * vw, b + 0.9 * vb
        g = (softmax(x @ lw + lb) - target) / n
        vw = 0.9 * vw - lr * (x.T @ g + lw / (c * n))
        vb = 0.9 * vb - lr * g.sum(0)
        w, b = w + vw, b + vb
    return w, b


def fingerprint(path: Path) -> str:
    """A network's identity: the SHA-256 of its weights (the OpenVINO ``.bin``)."""
    p = Path(path)
    if p.is_dir():
        p = sorted(p.glob("*.bin"))[0]
    return hashlib.sha256(p.read_bytes()).hexdigest()[:16]


def networks_of(detector) -> dict[str, str]:
    """The networks a deck's read rests on: the reader and the index network give the
    features, the outline network the corners the index network's are cut along."""
    return {"reader": fingerprint(detector.reader.path),
            "outline": fingerprint(detector.corners.outline.path),
            "index": fingerprint(detector.corners.index.path)}  # fmt: skip


def check_features(detector, who: str) -> None:
    """Refuse, in one line starting with ``who``, a reader whose networks cannot give a deck's
    features: no corner reader, several views a crop, or not OpenVINO."""
    corners = getattr(detector, "corners", None)
    if corners is None or corners.index is None or getattr(detector, "mix", 0) <= 0:
        raise DeckError(f"{who}: needs the two-stage reader with its corner reader")
    if detector.turns != 1:
        raise DeckError(f"{who}: reads one view a crop (the model card asks more)")
    if not (detector.reader.has_features and corners.index.has_features):
        raise DeckError(f"{who}: reads on OpenVINO (--detector openvino)")


def learner(detector):
    """``detector`` ready to learn a deck with (its networks giving their features), or a
    one-line ``DeckError`` saying why it cannot, before anyone confirms a card."""
    mine = detector.with_features() if hasattr(detector, "with_features") else detector
    check_features(mine, "learning a deck")
    return mine


@dataclass
class LearnedDeck:
    """A deck's read: ``w`` (features x ``READER_CLASSES``) and ``b``; ``networks`` the reader
    and index networks it was fitted on (their fingerprints)."""

    name: str
    w: np.ndarray
    b: np.ndarray
    networks: dict[str, str]
    learnt_at: str = ""
    samples: int = 0
    weight: float = WEIGHT

    def probs(self, whole: np.ndarray, corner: np.ndarray) -> np.ndarray:
        """One row per box, ``READER_CLASSES`` columns."""
        if not len(whole):
            return np.zeros((0, READER_CLASSES), np.float32)
        return softmax(feature_rows(whole, corner) @ self.w + self.b)

    def check_reader(self, detector) -> None:
        """Refuse a reader this deck cannot join: one line saying why."""
        check_features(detector, f"deck {self.name}")
        if networks_of(detector) != self.networks:
            raise DeckError(
                f"deck {self.name}: learnt with other networks than these; learn it again "
                f"(`hakam deck learn --again {self.name}`)"
            )


def learning_samples(
    faces: dict[str, np.ndarray],
    detector,
    scenes: int = LEARN_SCENES,
    seed: int = 0,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Features and classes of every finder box in ``scenes`` scenes drawn with ``faces``
    (card name -> BGR face; ranks 2-6 and backs are not drawn: the table did not show them)."""
    from hakam.datasets.generator import N_TEXTURES, _out_size, sample_scene
    from hakam.datasets.scene import Renderer, jpeg
    from hakam.datasets.textures import make_texture

    renderer = Renderer({name: with_outline(f) for name, f in faces.items()})
    textures: dict[int, np.ndarray] = {}
    xs, ys = [], []
    for i in range(scenes):
        rng = np.random.default_rng([seed, 5151, i])
        w, h = _out_size(rng, 640)
        _, cam, cards, occluders = sample_scene(rng, w, h)
        cards = [c for c in cards if c.name in faces]
        k = int(rng.integers(N_TEXTURES))
        if k not in textures:
            textures[k] = make_texture(seed * 1000 + 777 + k)[1]
        img, labels = renderer.render(rng, cam, textures[k], cards, occluders)
        img = jpeg(img, int(rng.integers(35, 96)))
        boxes = detector.boxes(img)
        classes = []
        for box in boxes:
            near = max(labels, key=lambda lb: _iou(box, lb.box), default=None)
            overlap = _iou(box, near.box) if near is not None else 0.0
            if overlap >= MATCH_IOU and near.visible >= MIN_VISIBLE:
                classes.append(CARD_NAMES.index(near.card))
            else:
                classes.append(OTHER if overlap < CLEAR_IOU else -1)  # -1: neither, not taught
        keep = np.asarray(classes) >= 0
        if keep.any():
            boxes = np.asarray(boxes)[keep]
            crops = [_crop(img, b, detector) for b in boxes]
            whole = detector.reader.features(crops)[1]
            corner = detector.corners.read_with_features(img, boxes)[1]
            xs.append(feature_rows(whole, corner))
            ys += [c for c in classes if c >= 0]
        if progress is not None:
            progress(i + 1, scenes)
    if not xs:
        raise DeckError("no card was found in the scenes drawn with this deck's faces")
    return np.vstack(xs), np.asarray(ys, np.int64)


def _crop(img: np.ndarray, box, detector) -> np.ndarray:
    from hakam.vision.reader import card_crop

    return card_crop(img, box, detector.reader.size, detector.margin)


def learn_deck(
    name: str,
    faces: dict[str, np.ndarray],
    detector,
    scenes: int = LEARN_SCENES,
    seed: int = 0,
    progress: Callable[[int, int], None] | None = None,
) -> LearnedDeck:
    """The deck's read from its 32 confirmed faces (card name -> BGR face)."""
    check_name(name)
    check_cards(list(faces))
    detector = learner(detector)
    x, y = learning_samples(faces, detector, scenes, seed, progress)
    w, b = fit_head(x, y)
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S")
    return LearnedDeck(name, w, b, networks_of(detector), stamp, len(y))
