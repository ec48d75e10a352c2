"""The corner reader (``hakam.vision.corners``): its data, its two networks' training, export.

Data come from synthetic scenes of the training deck designs (never the hold-out ones), whose
labels give each card's four printed corners. For every card at least 40% visible, and every
strip of a fanned card whose corner index shows (``readable``):

- an *outline* sample: the crop of its box moved at random as a finder's box would be
  (``card_crop`` at ``OUTLINE_SIZE``) and its four corners in that crop's unit coordinates;
- an *index* sample: ``corner_patches`` cut along its true corners moved by a few percent (as
  the outline network will be off), started from the top-left or the bottom-right at random.

Negatives for the index network ("not a Baloot card"): the scenes' unlabelled objects (ranks
2-6, backs, arms, cups) cut along a random quad in their box. rf100's real photos have no
corners: ``real_samples`` cuts them along the outlines the outline network draws (index
network only).

The *strip* reader (``hakam.vision.indices``) is trained here too: it names the boxes of the finder
of corner indices from a crop of each, and its samples are cut from scenes boxed index by index
(``build_strip_samples``).

Training needs torch (the ``train`` extra): checkpoints every epoch, resumable (``--resume``).
"""

from __future__ import annotations

import json
import math
import time
import zlib
from pathlib import Path

import numpy as np

from hakam.engine.cards import CARD_NAMES
from hakam.training.reader import (
    GREY_SHARE,
    MIN_VISIBLE,
    _iou,
    jitter_box,
    labelled_photos,
    photometric,
    plain_input,
    reader_net,
    run_epoch,
    scene_pool,
    write_exports,
)
from hakam.vision.corners import OUTLINE_SIZE, corner_patches, quad_to_crop
from hakam.vision.reader import OTHER, card_crop

NETS = ("outline", "index", "strip")
QUAD_SPREAD = 0.04  # each corner's random move, as a share of the card's diagonal
# A card less than MIN_VISIBLE visible (a strip of a fan) is read by a corner index that shows
# this much: the finder boxes such strips and the set metrics count them (28% of the tuning
# set's cards), and before 2026-12-01 neither reader was ever taught one.
MIN_INDEX_SHOWN = 0.6
# A finder box is taken as a card's when it overlaps the card's true box this much (outline
# samples from the finder's own boxes, ``finder_boxes``).
FINDER_MATCH_IOU = 0.3
# A finder's box that holds a hand or a neighbour's edge on one side reaches past the card by
# up to about a third of its size (deal 74004's paris J/K, 2026-12-03): ``widened_box``.
WIDEN = (0.08, 0.4)
BUSY_SHARE = 0.3  # index samples given art under the index in training (``busy_paper``)
# RGB inks of printed court figures: red, yellow, blue, black, green, flesh, white
PRINT_COLOURS = ((0.8, 0.1, 0.1), (0.95, 0.8, 0.2), (0.2, 0.3, 0.75), (0.1, 0.1, 0.1),
                 (0.2, 0.55, 0.3), (0.95, 0.8, 0.7), (0.97, 0.97, 0.95))  # fmt: skip


def jitter_quad(rng: np.random.Generator, quad, spread: float = QUAD_SPREAD) -> np.ndarray:
    """A card's corners as the outline network may give them: all moved together a little, and
    each on its own by ~``spread`` of the diagonal; half the time started from the bottom-right
    (the same card turned by half a turn)."""
    q = np.asarray(quad, np.float64)
    diag = float(np.linalg.norm(q[2] - q[0]))
    q = q + rng.normal(0, 0.6 * spread * diag, 2) + rng.normal(0, spread * diag, (4, 2))
    return np.roll(q, 2, 0) if rng.random() < 0.5 else q


def widened_box(rng: np.random.Generator, box, widen=WIDEN) -> np.ndarray:
    """A card's box as the finder gives it when a hand or a neighbour lies on one side: moved a
    little (``jitter_box``), then one side, at random, moved out by ``widen`` of the size."""
    x1, y1, x2, y2 = jitter_box(rng, box)
    side = int(rng.integers(4))
    d = rng.uniform(*widen) * ((x2 - x1) if side % 2 == 0 else (y2 - y1))
    out = np.array([x1, y1, x2, y2])
    out[side] += -d if side < 2 else d
    return out


def touches(a, b) -> bool:
    """Whether two boxes (x1, y1, x2, y2) overlap at all."""
    return min(a[2], b[2]) > max(a[0], b[0]) and min(a[3], b[3]) > max(a[1], b[1])


def joined_box(rng: np.random.Generator, box, other, most: float = WIDEN[1]) -> np.ndarray:
    """A card's box as the finder gives it when ``other`` (a neighbour, a hand, a cup) overlaps
    the card: moved a little (``jitter_box``), then each side that ``other`` reaches past moved
    out toward it by a random share of the way, at most ``most`` of the card's size."""
    x1, y1, x2, y2 = jitter_box(rng, box)
    size = np.array([x2 - x1, y2 - y1, x2 - x1, y2 - y1])
    reach = np.array([x1 - other[0], y1 - other[1], other[2] - x2, other[3] - y2]).clip(0)
    d = np.minimum(reach, most * size) * rng.uniform(0.3, 1.0)
    return np.array([x1 - d[0], y1 - d[1], x2 + d[2], y2 + d[3]])


def random_quad(rng: np.random.Generator, box) -> np.ndarray:
    """A card-shaped quad at a random angle inside ``box``: where the outline network would
    put a card on an object that is none."""
    x1, y1, x2, y2 = box
    cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
    a = rng.uniform(0, 2 * math.pi)
    s = 0.4 * min(x2 - x1, y2 - y1) * rng.uniform(0.7, 1.0)  # its half-diagonal is 1.23 s
    u = np.array([math.cos(a), math.sin(a)]) * s / 1.4  # half width
    v = np.array([-math.sin(a), math.cos(a)]) * s  # half height, down the face
    c = np.array([cx, cy])
    return np.array([c - u - v, c + u - v, c + u + v, c - u + v])


def readable(label, strips: bool = True) -> bool:
    """A card the corner reader is taught to read: enough of it shows, or (``strips``) one of
    its corner indices does, as in a fan where the other cards cover all but a strip."""
    if len(label.corners) != 4:
        return False
    return label.visible >= MIN_VISIBLE or (strips and label.index_visible >= MIN_INDEX_SHOWN)


_FINDER = None


def shipped_finder():
    """The shipped two-stage detector, whose ``boxes`` are the finder's at its tuned floor and
    size; loaded once per process (one thread: the sample pool runs a process per core)."""
    global _FINDER
    if _FINDER is None:
        from hakam.vision.detector import make_detector

        _FINDER = make_detector(stages=2, threads=1)
    return _FINDER


_OUTLINES: dict[str, object] = {}


def outline_net(path: str):
    """An exported outline network (a ``CornerReader`` without index), loaded once per process."""
    if path not in _OUTLINES:
        from hakam.vision.corners import CornerReader

        backend = "onnx" if str(path).endswith(".onnx") else "openvino"
        _OUTLINES[path] = CornerReader(path, backend=backend, threads=1)
    return _OUTLINES[path]


def finder_match(box, found: np.ndarray) -> np.ndarray | None:
    """The finder's box that overlaps ``box`` most, if by at least ``FINDER_MATCH_IOU``."""
    if not len(found):
        return None
    ious = [_iou(box, f) for f in found]
    k = int(np.argmax(ious))
    return found[k] if ious[k] >= FINDER_MATCH_IOU else None


def scene_samples(
    seed: int,
    i: int,
    decks,
    strips: bool = True,
    finder_boxes: bool = False,
    cut_along: str | None = None,
    wide_boxes: bool = False,
    joined_boxes: bool = False,
) -> dict[str, list]:
    """Outline and index samples of synthetic scene ``i`` of the training designs; ``visible``
    has each card's visible share, once per card (the summary counts cards and strips by it).

    ``finder_boxes``: each card the shipped finder boxes gives a second outline sample, from
    that box: on a fan's strip the finder's box is far from the true one (median IoU 0.70 on
    the tuning set), further than the random moves of the first sample. ``cut_along`` (an
    exported outline network): each such card also gives a second index sample, cut along the
    outline that network draws on the finder's box, errors and all, as at run time.
    ``wide_boxes``: each card gives one more outline sample, from its box reaching past it on
    one side (``widened_box``), so that the outline network finds the card beside what the
    box holds too. ``joined_boxes``: each card that something in the scene overlaps gives one
    more outline sample, from its box joined with part of that thing's (``joined_box``)."""
    from hakam.datasets.generator import render_one

    img, labels, meta = render_one(seed, "train", i, 640, decks)
    rng = np.random.default_rng([seed, 78, i])
    out: dict[str, list] = {"outline": [], "quad": [], "index": [], "card": [], "visible": []}
    boxes = [lb.box for lb in labels]
    found = shipped_finder().boxes(img) if finder_boxes or cut_along else np.zeros((0, 4))

    def outline_from(box, corners) -> None:
        out["outline"].append(card_crop(img, box, OUTLINE_SIZE))
        out["quad"].append(quad_to_crop(np.array(corners), box).reshape(8))

    for lb in labels:
        if not readable(lb, strips):
            continue
        outline_from(jitter_box(rng, lb.box), lb.corners)
        out["index"].append(corner_patches(img, jitter_quad(rng, lb.corners)))
        out["card"].append(CARD_NAMES.index(lb.card))
        out["visible"].append(lb.visible)
        theirs = finder_match(lb.box, found)
        if theirs is not None and finder_boxes:
            outline_from(theirs, lb.corners)
        if wide_boxes:
            outline_from(widened_box(rng, lb.box), lb.corners)
        near = [] if not joined_boxes else [
            o for o in meta["objects"] if touches(o, lb.box) and _iou(o, lb.box) < 0.6
        ]  # fmt: skip
        if near:
            outline_from(joined_box(rng, lb.box, near[int(rng.integers(len(near)))]), lb.corners)
        if theirs is not None and cut_along:
            quad = outline_net(cut_along).quads(img, theirs[None])[0]
            out["index"].append(corner_patches(img, quad))
            out["card"].append(CARD_NAMES.index(lb.card))
    others = [o for o in meta["objects"] if all(_iou(o, b) < 0.6 for b in boxes)]
    for o in others[: max(1, len(labels) // 4)]:
        if (o[2] - o[0]) * (o[3] - o[1]) > 64:
            out["index"].append(corner_patches(img, random_quad(rng, o)))
            out["card"].append(OTHER)
    return out


def real_samples(
    root: Path, outline: Path, repeats: int = 2, seed: int = 0
) -> tuple[list[np.ndarray], list[int]]:
    """Index samples from rf100's train and valid photos, which have no corners: each card's
    box (moved at random, ``repeats`` times) is given to the ``outline`` network (an exported
    model), and its corners are cut along the outline it draws, errors and all, as at run
    time. Ranks 2-6 are negatives."""
    from hakam.vision.corners import CornerReader

    reader = CornerReader(outline, backend="onnx" if outline.suffix == ".onnx" else "openvino")
    rng = np.random.default_rng([seed, 79])
    patches, cards = [], []
    for img, labelled in labelled_photos(root):
        boxes = [jitter_box(rng, box) for _, box in labelled for _ in range(repeats)]
        if boxes:
            for quad in reader.quads(img, np.array(boxes)):
                patches.append(corner_patches(img, quad))
            cards += [c for c, _ in labelled for _ in range(repeats)]
    return patches, cards


def file_digest(path: Path) -> str:
    """SHA-256 of a model: its ONNX file, or an OpenVINO folder's weights."""
    import hashlib

    path = Path(path)
    files = sorted(path.glob("*.bin")) if path.is_dir() else [path]
    h = hashlib.sha256()
    for f in files:
        h.update(f.read_bytes())
    return h.hexdigest()


def write_crops(out: Path, name: str, crops: list, cards: list, info: dict, t0: float) -> dict:
    """Write a one-input sample folder: ``out/<name>.npy``, ``card.npy`` and ``summary.json``
    (how many samples, how many "not a Baloot card", ``info``, the seconds since ``t0``)."""
    out.mkdir(parents=True, exist_ok=True)
    np.save(out / f"{name}.npy", np.stack(crops))
    np.save(out / "card.npy", np.array(cards, np.int16))
    summary = {
        f"{name}_samples": len(cards),
        "other": int(sum(c == OTHER for c in cards)),
        **info,
        "seconds": round(time.time() - t0, 1),
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=1))
    return summary


def build_real_samples(out: Path, root: Path, outline: Path, repeats: int = 2) -> dict:
    """Write ``real_samples`` as ``out/index.npy`` and ``out/card.npy`` (an index-only folder)."""
    t0 = time.time()
    patches, cards = real_samples(root, outline, repeats)
    info = {"real": str(root), "outline": str(outline), "outline_sha256": file_digest(outline),
            "repeats": repeats}  # fmt: skip
    return write_crops(out, "index", patches, cards, info, t0)


def build_samples(
    out: Path,
    scenes: int,
    seed: int = 31,
    workers: int = 2,
    progress: bool = True,
    leave_out: tuple[str, ...] = (),
    strips: bool = True,
    finder_boxes: bool = False,
    cut_along: Path | None = None,
    wide_boxes: bool = False,
    joined_boxes: bool = False,
) -> dict:
    """Write ``out/outline.npy``, ``quad.npy``, ``index.npy``, ``card.npy`` and a summary;
    ``leave_out``: training designs kept out of the scenes (tuning designs); ``strips``:
    fanned cards' strips too (``readable``); ``finder_boxes``: outline samples from the shipped
    finder's boxes too; ``cut_along``: index samples cut along that outline network's outlines
    on them; ``wide_boxes``: outline samples from boxes reaching past the card on one side;
    ``joined_boxes``: from boxes joined with part of what overlaps the card (``scene_samples``)."""
    from hakam.datasets import art
    from hakam.vision.detector import model_path

    art.ensure_art(art.available_decks(holdout=False), progress=progress)
    out.mkdir(parents=True, exist_ok=True)
    acc: dict[str, list] = {"outline": [], "quad": [], "index": [], "card": [], "visible": []}
    t0 = time.time()
    along = None if cut_along is None else str(cut_along)
    jobs = [
        dict(
            seed=seed,
            i=i,
            strips=strips,
            finder_boxes=finder_boxes,
            cut_along=along,
            wide_boxes=wide_boxes,
            joined_boxes=joined_boxes,
        )
        for i in range(scenes)
    ]
    shown = ("corners", lambda: f"{len(acc['outline'])} cards") if progress else None
    for got in scene_pool(scene_samples, jobs, workers, leave_out, progress=shown):
        for key, v in got.items():
            acc[key] += v
    np.save(out / "outline.npy", np.stack(acc["outline"]))
    np.save(out / "quad.npy", np.array(acc["quad"], np.float32))
    np.save(out / "index.npy", np.stack(acc["index"]))
    np.save(out / "card.npy", np.array(acc["card"], np.int16))
    summary = {
        "cards": len(acc["visible"]),
        "outline_samples": len(acc["outline"]),
        "finder_boxes": finder_boxes,
        "wide_boxes": list(WIDEN) if wide_boxes else None,
        "joined_boxes": joined_boxes,
        "finder_sha256": file_digest(model_path("openvino")) if finder_boxes or along else None,
        "cut_along": along,
        "cut_along_sha256": None if cut_along is None else file_digest(cut_along),
        "strips": int(sum(v < MIN_VISIBLE for v in acc["visible"])) if strips else 0,
        "index_samples": len(acc["card"]),
        "other": int(sum(c == OTHER for c in acc["card"])),
        "scenes": scenes,
        "seed": seed,
        "left_out": sorted(leave_out),
        "quad_spread": QUAD_SPREAD,
        "seconds": round(time.time() - t0, 1),
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=1))
    return summary


# --- strips: the finder of corner indices' boxes, named by a classifier of the crop ----------

STRIP_SPREAD = 0.12  # a true index box moved as the finder's are, a share of its sides
STRIP_MATCH_IOU = 0.5  # a finder box is that index's when they overlap this much
STRIP_APART_IOU = 0.2  # and names no card (a 2-6, a figure, a pip) when it overlaps none this much
STRIP_OTHERS = 4  # at most this many such boxes per scene, the surest first
STRIP_PATCHES = 2  # and this many index-sized patches elsewhere (figures, pips, table, arms)
STRIP_FINDER_SIZE = 512  # the finder's input long side when cutting: its training size

_STRIP_FINDER = None


def _strip_init(finder: str) -> None:
    global _STRIP_FINDER
    from hakam.vision.detector import OnnxDetector, OpenVinoDetector

    kind = OnnxDetector if finder.endswith(".onnx") else OpenVinoDetector
    _STRIP_FINDER = kind(finder, 0.05, threads=1, imgsz=STRIP_FINDER_SIZE)


def strip_samples(image_file: str, seed: int) -> tuple[list[np.ndarray], list[int]]:
    """Strip reader samples from one scene boxed by index (``data synth --boxes indices``):
    each true index box moved at random; the finder's own boxes on an index (that card) and
    on no index ("not a Baloot card": a 2-6, a figure, a pip, which the finder also boxes)."""
    import cv2

    from hakam.datasets.inspect import label_boxes
    from hakam.vision.indices import STRIP_MARGIN, STRIP_SIZE

    path = Path(image_file)
    img = cv2.imread(str(path))
    if img is None:
        return [], []
    h, w = img.shape[:2]
    cls, truth = label_boxes(path.parent.parent / "labels" / (path.stem + ".txt"), w, h)
    rng = np.random.default_rng([seed, zlib.crc32(path.stem.encode())])
    crops, cards = [], []

    def add(box, card: int) -> None:
        crops.append(card_crop(img, box, STRIP_SIZE, STRIP_MARGIN))
        cards.append(card)

    for c, b in zip(cls, truth, strict=True):
        add(jitter_box(rng, b, STRIP_SPREAD), int(c))
    others = 0
    for b in _STRIP_FINDER.find(img, 0.05):
        overlap = [_iou(b, t) for t in truth]
        best = int(np.argmax(overlap)) if overlap else -1
        if overlap and overlap[best] >= STRIP_MATCH_IOU:
            add(b, int(cls[best]))
        elif (not overlap or overlap[best] < STRIP_APART_IOU) and others < STRIP_OTHERS:
            add(b, OTHER)
            others += 1
    if len(truth):
        sides = truth[:, 2:] - truth[:, :2]
        for _ in range(STRIP_PATCHES):
            bw, bh = sides[rng.integers(len(sides))] * rng.uniform(0.8, 1.25, 2)
            x, y = rng.uniform(0, max(w - bw, 1)), rng.uniform(0, max(h - bh, 1))
            box = (x, y, x + bw, y + bh)
            if all(_iou(box, t) < STRIP_APART_IOU for t in truth):
                add(box, OTHER)
    return crops, cards


def _strip_job(item):
    return strip_samples(*item)


def strip_scene_files(scenes: list[Path], leave_out: tuple[str, ...] = ()) -> list[str]:
    """The training scenes of ``scenes`` that the strip reader is cut from: all but those of
    the ``leave_out`` designs."""
    from hakam.datasets.inspect import scene_design

    files = sorted(f for s in scenes for f in (s / "train" / "images").glob("*.jpg"))
    return [str(f) for f in files if not leave_out or scene_design(f) not in leave_out]


def build_strip_samples(
    out: Path, scenes: list[Path], finder: Path, seed: int = 41, workers: int = 2,
    progress: bool = True, leave_out: tuple[str, ...] = (),
) -> dict:  # fmt: skip
    """Write ``out/strip.npy`` and ``card.npy`` from the training splits of ``scenes`` (folders
    of ``hakam data synth --boxes indices``) and the exported finder of corner indices;
    scenes of the ``leave_out`` designs are skipped, so that a tuning set of those designs
    judges the strip reader on designs it never saw."""
    import multiprocessing as mp

    files = strip_scene_files(scenes, leave_out)
    if not files:
        raise FileNotFoundError(f"no training scenes in {', '.join(map(str, scenes))}")
    out.mkdir(parents=True, exist_ok=True)
    crops: list[np.ndarray] = []
    cards: list[int] = []
    t0, n = time.time(), len(files)
    ctx = mp.get_context("spawn")
    with ctx.Pool(max(1, workers), initializer=_strip_init, initargs=(str(finder),)) as pool:
        jobs = [(f, seed) for f in files]
        for k, (c, y) in enumerate(pool.imap(_strip_job, jobs, chunksize=16), 1):
            crops += c
            cards += y
            if progress and (k % 1000 == 0 or k == n):
                left = (n - k) * (time.time() - t0) / k
                print(f"[strip] {k}/{n} scenes, {len(cards)} samples, about {left:.0f} s left",
                      flush=True)  # fmt: skip
    info = {
        "scenes": n,
        "from": [str(s) for s in scenes],
        "finder": str(finder),
        "finder_sha256": file_digest(finder),
        "finder_imgsz": STRIP_FINDER_SIZE,
        "seed": seed,
        "spread": STRIP_SPREAD,
        "left_out": sorted(leave_out),
    }
    return write_crops(out, "strip", crops, cards, info, t0)


# Real photos (rf100 ``train``/``valid``: whole-card boxes, no index boxes). The finder's boxes
# there are named by where they lie in the card the outline network draws from its box.
STRIP_REAL_REPEATS = 2  # each real box on an index: itself and this many moved copies
# rf100 ``valid`` is left out of the strip reader: the one set of real photos on which its
# inventions can be judged before the evaluation sets (no other real photos may be tuned on).
STRIP_REAL_SPLITS = ("train",)
CORNER_SLACK = 1.4  # a box centre this many index regions from every corner is in the middle


def card_units(quad: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Frame points (N x 2) in the unit coordinates of the card whose corners are ``quad``."""
    import cv2

    from hakam.vision.corners import UNIT

    m = cv2.getPerspectiveTransform(np.asarray(quad, np.float32), UNIT)
    return cv2.perspectiveTransform(np.asarray(points, np.float32).reshape(-1, 1, 2), m)[:, 0]


def strip_place(u) -> str:
    """Where a point (card unit coordinates) lies: "index" in the index region of the printed
    top-left or bottom-right corner (a card is the same turned by half a turn), "middle" far
    from every corner (a figure or a pip), "outside" off the card, else "unsure" (the other
    two corners, where some decks print an index and others a pip, or a region's edge)."""
    from hakam.vision.corners import INDEX_REGION

    x, y = float(u[0]), float(u[1])
    if not (0 <= x <= 1 and 0 <= y <= 1):
        return "outside"
    rw, rh = INDEX_REGION
    if (x <= rw and y <= rh) or (x >= 1 - rw and y >= 1 - rh):
        return "index"
    sw, sh = CORNER_SLACK * rw, CORNER_SLACK * rh
    if sw < x < 1 - sw or sh < y < 1 - sh:
        return "middle"
    return "unsure"


def real_strip_samples(
    img: np.ndarray, labelled: list, found: np.ndarray, quads: np.ndarray, rng
) -> tuple[list[np.ndarray], list[int]]:
    """Strip reader samples of one real photo: ``labelled`` its cards as ``labelled_photos``
    gives them (ranks 2-6 ``OTHER``), ``quads`` the outline of each (frame pixels), ``found``
    the finder of corner indices' boxes. A box whose centre lies in exactly one card: on a
    Baloot card's index, that card (and ``STRIP_REAL_REPEATS`` copies moved as the finder's
    boxes are); in a Baloot card's middle or anywhere on a 2-6, "not a Baloot card". Boxes in
    two cards, or near a corner without an index, give nothing."""
    from hakam.vision.indices import STRIP_MARGIN, STRIP_SIZE

    crops, cards = [], []
    for b in np.asarray(found, np.float32).reshape(-1, 4):
        centre = np.array([[(b[0] + b[2]) / 2, (b[1] + b[3]) / 2]], np.float32)
        places = [strip_place(card_units(q, centre)[0]) for q in quads]
        inside = [k for k, p in enumerate(places) if p != "outside"]
        if len(inside) != 1:
            continue
        card, place = labelled[inside[0]][0], places[inside[0]]
        if card == OTHER or place == "middle":
            crops.append(card_crop(img, b, STRIP_SIZE, STRIP_MARGIN))
            cards.append(OTHER)
        elif place == "index":
            for box in [b] + [jitter_box(rng, b, STRIP_SPREAD) for _ in range(STRIP_REAL_REPEATS)]:
                crops.append(card_crop(img, box, STRIP_SIZE, STRIP_MARGIN))
                cards.append(card)
    return crops, cards


def build_real_strip_samples(
    out: Path, root: Path, finder: Path, outline: Path, seed: int = 41, progress: bool = True
) -> dict:
    """Write ``real_strip_samples`` of rf100's train photos as ``out/strip.npy`` and
    ``out/card.npy``: the finder of corner indices on them at its training size, each card's
    outline from its box by the ``outline`` network."""
    from hakam.vision.corners import CornerReader

    _strip_init(str(finder))
    reader = CornerReader(outline, backend="onnx" if outline.suffix == ".onnx" else "openvino")
    rng = np.random.default_rng([seed, 80])
    crops: list[np.ndarray] = []
    cards: list[int] = []
    t0, photos = time.time(), 0
    for img, labelled in labelled_photos(root, STRIP_REAL_SPLITS):
        photos += 1
        if labelled:
            quads = reader.quads(img, np.array([box for _, box in labelled], np.float32))
            c, y = real_strip_samples(img, labelled, _STRIP_FINDER.find(img, 0.05), quads, rng)
            crops += c
            cards += y
        if progress and photos % 200 == 0:
            print(f"[strip] {photos} real photos, {len(cards)} samples, "
                  f"{time.time() - t0:.0f} s", flush=True)  # fmt: skip
    if not cards:
        raise FileNotFoundError(f"{root}: no strip samples in its train photos")
    info = {
        "photos": photos,
        "real": str(root),
        "splits": list(STRIP_REAL_SPLITS),
        "finder": str(finder),
        "finder_sha256": file_digest(finder),
        "finder_imgsz": STRIP_FINDER_SIZE,
        "outline": str(outline),
        "outline_sha256": file_digest(outline),
        "seed": seed,
    }
    return write_crops(out, "strip", crops, cards, info, t0)


# --- training (torch) -------------------------------------------------------------------------

OUTLINE_WIDTHS = (16, 24, 48, 96, 128)
INDEX_WIDTHS = (24, 32, 64, 128, 160)
STRIP_WIDTHS = (24, 32, 64, 128, 160)


def net(kind: str):
    """The outline network (8 numbers: four corners in the crop) or the index network."""
    from hakam.vision.reader import READER_CLASSES

    if kind == "outline":
        return reader_net(8, OUTLINE_WIDTHS)
    return reader_net(READER_CLASSES, STRIP_WIDTHS if kind == "strip" else INDEX_WIDTHS)


def outline_loss(pred, target):
    """Smooth L1 over the eight coordinates, against the corners started from the top-left or
    from the bottom-right, whichever is nearer: the two are the same card turned by half a turn
    (and read the same), so neither is wrong."""
    import torch
    import torch.nn.functional as F

    turned = torch.roll(target.view(-1, 4, 2), 2, 1).reshape(-1, 8)
    a = F.smooth_l1_loss(pred, target, reduction="none", beta=0.02).mean(1)
    b = F.smooth_l1_loss(pred, turned, reduction="none", beta=0.02).mean(1)
    return torch.minimum(a, b).mean()


def corner_error(pred, target):
    """Mean distance of each predicted corner to the true one (crop units), either start."""
    import torch

    p = pred.view(-1, 4, 2)
    t = target.view(-1, 4, 2)
    a = (p - t).norm(dim=2).mean(1)
    b = (p - torch.roll(t, 2, 1)).norm(dim=2).mean(1)
    return torch.minimum(a, b)


def busy_paper(x, share: float = BUSY_SHARE, generator=None):
    """Paint figure-like art next to and under the index of ``share`` of the samples.

    Many decks print the index over the court figure, with no white paper around it, and the
    training designs mostly do not. Every tile of the input is a corner turned upright, so the
    card's middle (where a figure is) lies towards each tile's lower right: the paper (bright,
    grey pixels) beyond a random line across each tile is blended with large blocks of print
    colours, sharp or soft. The glyphs (dark or coloured) stay, so the network learns to read
    them by their shape and not by the white around them. Input RGB 0..1, N x 3 x H x W.
    """
    import torch
    import torch.nn.functional as F

    from hakam.vision.corners import PATCH_H, PATCH_W

    g = generator
    n, _, h, w = x.shape
    pick = torch.nonzero(torch.rand(n, generator=g) < share).flatten()
    if not len(pick):
        return x
    k = len(pick)
    cells = int(torch.randint(2, 6, (1,), generator=g))
    ink = torch.tensor(PRINT_COLOURS)[torch.randint(len(PRINT_COLOURS), (k, 2 * cells, cells),
                                                    generator=g)]  # fmt: skip
    field = ink.permute(0, 3, 1, 2) + 0.08 * torch.randn(k, 3, 2 * cells, cells, generator=g)
    mode = "nearest" if torch.rand(1, generator=g) < 0.5 else "bilinear"
    kw = {} if mode == "nearest" else {"align_corners": False}
    texture = F.interpolate(field.clamp(0, 1), size=(h, w), mode=mode, **kw)
    v = (torch.arange(h) % PATCH_H).float().view(1, 1, h, 1) / PATCH_H
    u = (torch.arange(w) % PATCH_W).float().view(1, 1, 1, w) / PATCH_W
    a, b = torch.rand(k, 1, 1, 1, generator=g), torch.rand(k, 1, 1, 1, generator=g)
    t = (0.2 + 0.8 * torch.rand(k, 1, 1, 1, generator=g)) * (a + b)
    beyond = ((a * u + b * v - t) / 0.05).clamp(0, 1)
    sub = x[pick]
    lum = sub.mean(1, keepdim=True)
    ref = lum.flatten(1).quantile(0.9, dim=1).view(k, 1, 1, 1).clamp(min=0.2)
    sat = sub.amax(1, keepdim=True) - sub.amin(1, keepdim=True)
    paper = ((lum - 0.7 * ref) / (0.15 * ref)).clamp(0, 1) * ((0.3 - sat) / 0.1).clamp(0, 1)
    m = paper * beyond * (0.7 + 0.3 * torch.rand(k, 1, 1, 1, generator=g))
    x = x.clone()
    x[pick] = sub * (1 - m) + texture * ref * m
    return x


def index_augment(batch, generator=None, busy: float = 0.0, grey: float = GREY_SHARE):
    """Stored patches (N, H, W, 3) to input: a little shift, scale and turn (the outline is a
    little off, and the lower row swaps with the upper when it starts from the bottom-right),
    art under the index of ``busy`` of them (``busy_paper``), then ``photometric`` (``grey``
    of them without colour)."""
    import torch
    import torch.nn.functional as F

    g = generator
    x = plain_input(batch)
    n, _, h, w = x.shape
    swap = torch.rand(n, generator=g) < 0.5
    x[swap] = torch.cat([x[swap, :, h // 2 :], x[swap, :, : h // 2]], 2)

    def u(lo: float, hi: float, *shape: int) -> torch.Tensor:
        return lo + (hi - lo) * torch.rand(n, *shape, generator=g)

    angle, scale = u(-0.05, 0.05), u(0.94, 1.04)
    theta = torch.zeros(n, 2, 3)
    theta[:, 0, 0] = torch.cos(angle) * scale
    theta[:, 0, 1] = -torch.sin(angle) * scale * h / w
    theta[:, 1, 0] = torch.sin(angle) * scale * w / h
    theta[:, 1, 1] = torch.cos(angle) * scale
    theta[:, :, 2] = u(-0.03, 0.03, 2)
    grid = F.affine_grid(theta, (n, 3, h, w), align_corners=False)
    x = F.grid_sample(x, grid, mode="bilinear", padding_mode="border", align_corners=False)
    if busy > 0:
        x = busy_paper(x, busy, g)
    return photometric(x, g, grey)


def strip_augment(batch, generator=None, grey: float = GREY_SHARE):
    """Stored strip crops (N, S, S, 3) to input: turned by a random quarter (a fan's cards lie
    every way up), a little shift, scale and turn (the finder's box is off), then
    ``photometric``."""
    import torch
    import torch.nn.functional as F

    g = generator
    x = plain_input(batch)
    n = x.shape[0]
    quarter = torch.randint(4, (n,), generator=g)
    for k in range(1, 4):
        pick = quarter == k
        if pick.any():
            x[pick] = torch.rot90(x[pick], k, (2, 3))

    def u(lo: float, hi: float, *shape: int) -> torch.Tensor:
        return lo + (hi - lo) * torch.rand(n, *shape, generator=g)

    angle, scale = u(-0.2, 0.2), u(0.9, 1.1)
    theta = torch.zeros(n, 2, 3)
    theta[:, 0, 0] = theta[:, 1, 1] = torch.cos(angle) * scale
    theta[:, 0, 1] = -torch.sin(angle) * scale
    theta[:, 1, 0] = torch.sin(angle) * scale
    theta[:, :, 2] = u(-0.06, 0.06, 2)
    grid = F.affine_grid(theta, tuple(x.shape), align_corners=False)
    x = F.grid_sample(x, grid, mode="bilinear", padding_mode="border", align_corners=False)
    return photometric(x, g, grey)


def train_net(
    kind: str,
    data: Path | list[Path],
    out: Path,
    epochs: int = 8,
    batch: int = 128,
    lr: float = 3e-3,
    resume: Path | None = None,
    weights: Path | None = None,
    threads: int = 2,
    seed: int = 0,
    busy: float = BUSY_SHARE,
    grey: float = GREY_SHARE,
) -> Path:
    """Train the ``kind`` network ("outline", "index" or "strip") on ``build_samples`` (or
    ``build_strip_samples``) folders; 3% held out to choose the best epoch (outline: mean corner
    error, index and strip: share misread). Every epoch
    writes ``last.pt`` for ``resume``; returns ``best.pt``. ``busy``: share of index samples
    given art under the index (``busy_paper``; 0 before index round 3); ``grey``: share of
    samples of either network shown without colour (every shipped round: 0.05)."""
    import torch
    import torch.nn.functional as F

    if kind not in NETS:
        raise ValueError(f"network: {kind!r} (one of {', '.join(NETS)})")
    torch.set_num_threads(threads)
    torch.manual_seed(seed)
    folders = [data] if isinstance(data, Path) else list(data)
    if kind == "outline":  # real photos' folders hold index samples only
        folders = [f for f in folders if (f / "outline.npy").exists()]
    x_name, y_name = {
        "outline": ("outline.npy", "quad.npy"),
        "index": ("index.npy", "card.npy"),
        "strip": ("strip.npy", "card.npy"),
    }[kind]
    inputs = torch.from_numpy(np.concatenate([np.load(f / x_name) for f in folders]))
    targets = torch.from_numpy(np.concatenate([np.load(f / y_name) for f in folders]))
    if kind != "outline":
        targets = targets.long()
    n = len(targets)
    order = torch.randperm(n, generator=torch.Generator().manual_seed(seed))
    n_val = max(1, int(0.03 * n))
    val_idx, train_idx = order[:n_val], order[n_val:]
    model = net(kind)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=5e-4)
    steps = math.ceil(len(train_idx) / batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, lr, total_steps=epochs * steps, pct_start=0.15)
    start, best = 0, math.inf
    if resume is not None:
        ck = torch.load(resume, weights_only=False)
        model.load_state_dict(ck["model"])
        opt.load_state_dict(ck["opt"])
        sched.load_state_dict(ck["sched"])
        start, best = ck["epoch"] + 1, ck["best"]
    elif weights is not None:
        state = torch.load(weights, weights_only=False)["model"]
        model.load_state_dict(
            {k: v.float() if v.is_floating_point() else v for k, v in state.items()}
        )
    out.mkdir(parents=True, exist_ok=True)
    gen = torch.Generator().manual_seed(seed + 1)
    t0 = time.time()
    for epoch in range(start, epochs):
        perm = train_idx[torch.randperm(len(train_idx), generator=gen)]

        def loss_of(idx):
            if kind == "outline":
                x = photometric(plain_input(inputs[idx]), gen, grey)
                return outline_loss(model(x), targets[idx])
            if kind == "strip":
                x = strip_augment(inputs[idx], gen, grey)
            else:
                x = index_augment(inputs[idx], gen, busy, grey)
            return F.cross_entropy(model(x), targets[idx], label_smoothing=0.05)

        seen, loss_sum = run_epoch(model, opt, sched, perm, batch, loss_of, kind, epoch, epochs)
        model.eval()
        total = 0.0
        with torch.no_grad():
            for k in range(0, n_val, 512):
                idx = val_idx[k : k + 512]
                pred = model(plain_input(inputs[idx]))
                if kind == "outline":
                    total += float(corner_error(pred, targets[idx]).sum())
                else:
                    total += float((pred.argmax(1) != targets[idx]).sum())
        score = total / n_val  # lower is better: corner error, or share misread
        state = {
            "model": model.state_dict(),
            "opt": opt.state_dict(),
            "sched": sched.state_dict(),
            "epoch": epoch,
            "best": min(score, best),
            "score": score,
            "kind": kind,
        }
        torch.save(state, out / "last.pt")
        if score < best:
            best = score
            torch.save(state, out / "best.pt")
        what = "mean corner error (crop units)" if kind == "outline" else "held-out misread share"
        print(f"[{kind}] epoch {epoch + 1}: {what} {score:.4f}", flush=True)
        with open(out / "results.csv", "a") as f:
            f.write(
                f"{epoch + 1},{loss_sum / max(seen, 1):.4f},{score:.4f},{time.time() - t0:.0f}\n"
            )
    return out / "best.pt"


def export_net(checkpoint: Path, out_dir: Path) -> dict:
    """Write the checkpoint's network as ``hakam-<kind>.onnx`` (dynamic batch),
    ``hakam-<kind>_openvino/`` and ``hakam-<kind>.pt`` (FP16 weights, to continue training)."""
    import torch

    from hakam.vision.corners import PATCH_H, PATCH_W

    ck = torch.load(checkpoint, weights_only=False)
    kind = ck["kind"]
    model = net(kind)
    model.load_state_dict(ck["model"])
    from hakam.vision.indices import STRIP_SIZE

    shape = {
        "outline": (OUTLINE_SIZE, OUTLINE_SIZE),
        "index": (2 * PATCH_H, 2 * PATCH_W),
        "strip": (STRIP_SIZE, STRIP_SIZE),
    }[kind]
    name = f"hakam-{kind}"
    onnx_path, ov_dir = write_exports(
        model, ck["model"], shape, out_dir, name, ("x", "y"), kind=kind
    )
    info = {
        "kind": kind,
        "onnx": onnx_path.name,
        "openvino": ov_dir.name,
        "epoch": ck["epoch"] + 1,
        # the held-out 3% of the samples: mean corner error in crop units, or share misread
        "held_out_" + ("corner_error" if kind == "outline" else "misread"): round(
            float(ck["score"]), 4
        ),
    }
    (out_dir / f"{name}.json").write_text(json.dumps(info, indent=1) + "\n")
    return info
