"""Synthetic Baloot table scenes as a YOLO dataset, reproducible from one seed.

Image ``i`` of a split depends only on (seed, split, i): the worker count never changes a byte.
Scene kinds follow what a webcam over a Baloot table sees: the trick in the centre (1-4 cards
thrown from the four seats), the open bidding card, a collected face-down pile, hands fanned at
the edges, arms reaching in, cups and phones. Rare ranks 2-6 appear as unlabelled distractors.
"""

from __future__ import annotations

import json
import math
import multiprocessing as mp
import os
import time
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np

from hakam.datasets import art
from hakam.datasets.scene import (
    CARD_H_MM,
    Camera,
    CardPlacement,
    Label,
    Occluder,
    Renderer,
    jpeg,
)
from hakam.datasets.textures import make_texture
from hakam.engine.cards import CARD_NAMES

N_TEXTURES = 48  # texture pool per split; each worker builds the ones it needs, once
RESOLUTIONS = ((640, 480), (1280, 720), (1920, 1080), (960, 720), (1024, 768))
SKIN = [(90, 120, 170), (70, 100, 150), (120, 160, 210), (50, 75, 110), (140, 170, 220)]
SLEEVE = [(40, 40, 40), (200, 200, 200), (120, 60, 30), (60, 60, 150), (30, 90, 30)]


@dataclass(frozen=True)
class SynthConfig:
    out: Path
    n: int
    seed: int = 0
    imgsz: int = 640
    workers: int = 2
    val_fraction: float = 0.05
    holdout_fraction: float = 0.05
    quality: int = 90  # JPEG quality of the written files (scene JPEG artefacts come on top)
    # train/val from these training designs only (default: all; those of ``art.index_box_choice``
    # with boxes "indices")
    designs: tuple[str, ...] = ()
    closeups: float = 0.0  # share of scenes drawn as close-ups (``closeup_scene``)
    holdout_designs: tuple[str, ...] = ()  # the hold-out split's (default: ``art.holdout_designs``)
    boxes: str = "cards"  # what the label files box: whole cards or corner indices (``yolo_lines``)

    def split_sizes(self) -> dict[str, int]:
        n_val = round(self.n * self.val_fraction)
        n_hold = round(self.n * self.holdout_fraction)
        return {"train": self.n - n_val - n_hold, "val": n_val, "holdout": n_hold}


def _out_size(rng: np.random.Generator, imgsz: int) -> tuple[int, int]:
    """A webcam resolution, scaled so its long side is ``imgsz`` (what the detector sees)."""
    w, h = RESOLUTIONS[rng.integers(len(RESOLUTIONS))]
    s = imgsz / max(w, h)
    return round(w * s), round(h * s)


def sample_camera(rng: np.random.Generator, w: int, h: int, card_frac: tuple[float, float]):
    """Tilt 0-45 deg, random yaw, distance chosen so a card spans ``card_frac`` of the height."""
    fov = math.radians(rng.uniform(50, 78))
    focal = (w / 2) / math.tan(fov / 2)
    frac = rng.uniform(*card_frac)
    distance = focal * CARD_H_MM / (frac * h)
    k1 = float(rng.choice([-0.15, -0.1, -0.06, -0.03, 0.03])) if rng.random() < 0.3 else 0.0
    return Camera(
        w,
        h,
        focal,
        float(rng.uniform(0, 45)),
        float(rng.uniform(0, 360)),
        distance,
        (float(rng.normal(0, 25)), float(rng.normal(0, 25))),
        k1,
    )


def _pick(rng: np.random.Generator, pool: list[str], used: set[str]) -> str:
    free = [c for c in pool if c not in used]
    c = free[rng.integers(len(free))]
    used.add(c)
    return c


def trick_cards(
    rng: np.random.Generator, n: int, used: set[str], yaw: float
) -> list[CardPlacement]:
    """1-4 cards thrown towards the centre, each from its seat, overlapping like a real trick."""
    first_seat = int(rng.integers(4))
    cards = []
    spread = rng.uniform(25, 75)
    for k in range(n):
        seat_angle = math.radians(yaw + 90 * ((first_seat + k) % 4) + rng.normal(0, 12))
        r = spread * rng.uniform(0.5, 1.3)
        x, y = r * math.cos(seat_angle), r * math.sin(seat_angle)
        ang = math.degrees(seat_angle) + 90 + rng.normal(0, 25)
        if rng.random() < 0.15:
            ang = rng.uniform(0, 360)
        bend = float(rng.normal(0, 0.03)) if rng.random() < 0.3 else 0.0
        cards.append(
            CardPlacement(_pick(rng, list(CARD_NAMES), used), x, y, ang, bend=bend, tag=f"trick{k}")
        )
    return cards


def pile(rng: np.random.Generator, x: float, y: float, n: int) -> list[CardPlacement]:
    """A collected face-down trick pile: backs stacked with small offsets."""
    base = rng.uniform(0, 360)
    return [
        CardPlacement(
            "BACK",
            x + rng.normal(0, 3),
            y + rng.normal(0, 3),
            base + rng.normal(0, 8),
            face_up=False,
            label=False,
            tag="pile",
        )
        for _ in range(n)
    ]


def fan(
    rng: np.random.Generator,
    cx: float,
    cy: float,
    toward: float,
    n: int,
    used: set[str],
    face_up: bool = True,
) -> list[CardPlacement]:
    """A hand of cards fanned around a pivot, indices showing, lifted off the table."""
    cards = []
    step = rng.uniform(9, 16)
    radius = rng.uniform(40, 70)
    for k in range(n):
        a = toward + (k - (n - 1) / 2) * step
        ar = math.radians(a - 90)
        x, y = cx + radius * math.cos(ar), cy + radius * math.sin(ar)
        name = _pick(rng, list(CARD_NAMES), used) if face_up else "BACK"
        cards.append(
            CardPlacement(
                name,
                x,
                y,
                a,
                face_up=face_up,
                label=face_up,
                lift=rng.uniform(5, 40),
                bend=float(rng.normal(0, 0.02)),
                tag="fan",
            )
        )
    return cards


def hand_occluder(rng: np.random.Generator, w: int, h: int, towards: tuple[float, float]):
    side = rng.integers(4)
    start = [
        (rng.uniform(0, w), -40),
        (w + 40, rng.uniform(0, h)),
        (rng.uniform(0, w), h + 40),
        (-40, rng.uniform(0, h)),
    ][side]
    tx, ty = towards
    reach = rng.uniform(0.35, 0.95)
    end = (start[0] + (tx - start[0]) * reach, start[1] + (ty - start[1]) * reach)
    colour = SKIN[rng.integers(len(SKIN))] if rng.random() < 0.7 else SLEEVE[rng.integers(5)]
    return Occluder(
        "hand",
        {
            "start": start,
            "end": end,
            "width": rng.uniform(0.08, 0.18) * h,
            "colour": colour,
            "height": rng.uniform(15, 45),
            "fingers": int(rng.integers(2, 5)),
        },
    )


def sample_scene(rng: np.random.Generator, w: int, h: int):
    """Choose the scene kind, camera, cards and occluders of one image."""
    kind = rng.choice(["trick", "open", "spread", "fan"], p=[0.5, 0.1, 0.22, 0.18])
    used: set[str] = set()
    card_frac = {
        "trick": (0.1, 0.32),
        "open": (0.12, 0.4),
        "spread": (0.12, 0.38),
        "fan": (0.18, 0.45),
    }[kind]
    cam = sample_camera(rng, w, h, card_frac)
    cards: list[CardPlacement] = []
    if kind == "trick":
        cards += trick_cards(rng, int(rng.integers(1, 5)), used, cam.yaw)
        if rng.random() < 0.35:
            a = rng.uniform(0, 2 * math.pi)
            cards = pile(rng, 160 * math.cos(a), 160 * math.sin(a), int(rng.integers(2, 9))) + cards
        if rng.random() < 0.2:
            a = rng.uniform(0, 360)
            r = rng.uniform(180, 260)
            cx, cy = r * math.cos(math.radians(a)), r * math.sin(math.radians(a))
            cards += fan(
                rng, cx, cy, a + 90, int(rng.integers(3, 8)), used, face_up=rng.random() < 0.6
            )
    elif kind == "open":
        if rng.random() < 0.6:
            cards += pile(rng, rng.normal(0, 10), rng.normal(0, 10), int(rng.integers(3, 11)))
        cards.append(
            CardPlacement(
                _pick(rng, list(CARD_NAMES), used),
                rng.normal(0, 20),
                rng.normal(0, 20),
                rng.uniform(0, 360),
                tag="open",
            )
        )
    elif kind == "spread":
        # Overlapping runs of face-up cards: the style of the real photo sets.
        # Sometimes long runs where only the index strip of each card shows (real photo sets).
        strips = rng.random() < 0.35
        n = int(rng.integers(8, 17)) if strips else int(rng.integers(3, 11))
        x, y = rng.normal(0, 40, 2)
        ang = rng.uniform(0, 360)
        dx, dy = rng.normal(0, 1, 2)
        dx, dy = dx / (math.hypot(dx, dy) + 1e-9), dy / (math.hypot(dx, dy) + 1e-9)
        for _ in range(n):
            if rng.random() < 0.25:  # start a new run
                x, y = rng.normal(0, 80, 2)
                ang = rng.uniform(0, 360)
            cards.append(
                CardPlacement(
                    _pick(rng, list(CARD_NAMES), used),
                    x,
                    y,
                    ang + rng.normal(0, 10),
                    bend=float(rng.normal(0, 0.02)),
                    tag="spread",
                )
            )
            step = rng.uniform(10, 18) if strips else rng.uniform(14, 45)
            x, y = x + dx * step, y + dy * step
    else:  # fan held over the table
        cards += fan(rng, 0, 40, rng.uniform(-40, 40) + cam.yaw, int(rng.integers(3, 9)), used)
    if rng.random() < 0.06:  # a rank 2-6 card: not in the Baloot deck, never labelled
        d = art.DISTRACTOR_NAMES[rng.integers(len(art.DISTRACTOR_NAMES))]
        cards.append(
            CardPlacement(
                d,
                rng.normal(0, 90),
                rng.normal(0, 90),
                rng.uniform(0, 360),
                label=False,
                tag="distractor",
            )
        )
    occluders = []
    if rng.random() < (0.6 if kind == "fan" else 0.3):
        occluders.append(
            hand_occluder(rng, w, h, (w * rng.uniform(0.3, 0.7), h * rng.uniform(0.3, 0.7)))
        )
    if rng.random() < 0.12:
        occluders.append(
            Occluder(
                "cup",
                {
                    "centre": (rng.uniform(0, w), rng.uniform(0, h)),
                    "radius": rng.uniform(0.08, 0.16) * h,
                    "colour": tuple(rng.integers(60, 250, 3).tolist()),
                    "height": rng.uniform(25, 50),
                },
            )
        )
    if rng.random() < 0.08:
        occluders.append(
            Occluder(
                "phone",
                {
                    "centre": (rng.uniform(0, w), rng.uniform(0, h)),
                    "size": (rng.uniform(0.15, 0.25) * h, rng.uniform(0.3, 0.5) * h),
                    "angle": rng.uniform(0, 180),
                    "height": 5,
                },
            )
        )
    return str(kind), cam, cards, occluders


def closeup_scene(rng: np.random.Generator, w: int, h: int):
    """A card or two held close to the camera, as in a phone photo of a hand or a card shown to
    it: the card spans half the frame's height to more than all of it, a scale the table scenes
    (at most 0.45) never reach. Its own kind, drawn only where asked (``render_one``)."""
    cam = sample_camera(rng, w, h, (0.5, 1.1))
    used: set[str] = set()
    turn = 90.0 * int(rng.integers(4))
    cards = [
        CardPlacement(
            _pick(rng, list(CARD_NAMES), used),
            rng.normal(0, 12),
            rng.normal(0, 12),
            turn + rng.normal(0, 12),
            bend=float(rng.normal(0, 0.02)),
            tag="closeup",
        )
    ]
    if rng.random() < 0.4:  # a second card beside or under it, partly out of the frame
        a = rng.uniform(0, 2 * math.pi)
        r = rng.uniform(35, 70)
        cards.insert(
            0,
            CardPlacement(
                _pick(rng, list(CARD_NAMES), used),
                r * math.cos(a),
                r * math.sin(a),
                turn + rng.normal(0, 25),
                tag="closeup",
            ),
        )
    occluders = []
    if rng.random() < 0.3:  # the fingers holding it
        occluders.append(hand_occluder(rng, w, h, (w * rng.uniform(0, 1), h * rng.uniform(0, 1))))
    return "closeup", cam, cards, occluders


class _Worker:
    """Per-process state: deck rasters, texture pool and renderers (loaded lazily, cached)."""

    def __init__(self, seed: int, imgsz: int):
        self.seed, self.imgsz = seed, imgsz
        self.decks: dict[str, Renderer] = {}
        self.textures: dict[int, np.ndarray] = {}

    def renderer(self, deck: art.DeckSource) -> Renderer:
        if deck.name not in self.decks:
            self.decks[deck.name] = Renderer(art.load_deck_images(deck))
        return self.decks[deck.name]

    def swapped_renderer(
        self, deck: art.DeckSource, donors: list[art.DeckSource], key: tuple, disguised: float = 0.0
    ) -> Renderer:
        """The design with court figures from other cards, dealt afresh for each ``key`` (a
        scene; the same key deals the same figures): with a few fixed variants the reader could
        learn each variant's figures instead of the corners. Not cached, since each scene asks
        once; the outlines are the design's own (same alpha)."""
        rng = np.random.default_rng([self.seed, 31, *key, *deck.name.encode()])
        images = [self.renderer(d).deck for d in donors]
        base = self.renderer(deck)
        swapped = Renderer(art.swapped_deck(base.deck, images, rng, disguised))
        swapped.share_outlines(base)
        return swapped

    def texture(self, k: int) -> np.ndarray:
        if k not in self.textures:
            self.textures[k] = make_texture(self.seed * 1000 + k)[1]
        return self.textures[k]


_STATE: _Worker | None = None


def _init(seed: int, imgsz: int) -> None:
    global _STATE
    cv2.setNumThreads(1)
    _STATE = _Worker(seed, imgsz)


def render_one(
    seed: int,
    split: str,
    i: int,
    imgsz: int,
    decks: list[art.DeckSource],
    court_swap: float = 0.0,
    disguised: float = 0.0,
    closeups: float = 0.0,
):
    """Render image ``i`` of ``split``: returns (BGR image, labels, metadata).

    ``closeups`` is the share of scenes drawn as ``closeup_scene`` (its own random stream: at 0
    every scene is the one it always was).

    ``court_swap`` is the share of scenes drawn with court figures swapped between cards
    (``art.swap_figure``; reader training only): the scene is otherwise the same one.
    ``disguised`` is the share of those swapped figures recoloured and turned (``art.disguise``).
    """
    state = _STATE if _STATE is not None else _Worker(seed, imgsz)
    split_id = {"train": 0, "val": 1, "holdout": 2}.get(split, 3)
    rng = np.random.default_rng([seed, split_id, i])
    deck = decks[int(rng.integers(len(decks)))]
    w, h = _out_size(rng, imgsz)
    crng = np.random.default_rng([seed, split_id, i, 37])
    if closeups > 0 and crng.random() < closeups:
        kind, cam, cards, occ = closeup_scene(crng, w, h)
    else:
        kind, cam, cards, occ = sample_scene(rng, w, h)
    tex = state.texture(int(rng.integers(N_TEXTURES)))
    renderer = state.renderer(deck)
    swapped = False
    if court_swap > 0:  # its own random stream: the scene itself does not change
        srng = np.random.default_rng([seed, split_id, i, 31])
        if srng.random() < court_swap:
            renderer = state.swapped_renderer(deck, decks, (split_id, i), disguised)
            swapped = True
    img, labels = renderer.render(rng, cam, tex, cards, occ)
    img = jpeg(img, int(rng.integers(35, 96)))
    objects = renderer.last_objects
    if rng.random() < 0.12:  # a photo stretched to a square, as some phone pipelines store them
        sx, sy = imgsz / img.shape[1], imgsz / img.shape[0]
        img = cv2.resize(img, (imgsz, imgsz), interpolation=cv2.INTER_AREA)
        labels = [
            replace(
                lb,
                box=(lb.box[0] * sx, lb.box[1] * sy, lb.box[2] * sx, lb.box[3] * sy),
                corners=tuple((x * sx, y * sy) for x, y in lb.corners),
                index_boxes=tuple(
                    (b[0] * sx, b[1] * sy, b[2] * sx, b[3] * sy) for b in lb.index_boxes
                ),
            )
            for lb in labels
        ]
        objects = [[o[0] * sx, o[1] * sy, o[2] * sx, o[3] * sy] for o in objects]
    meta = {
        "deck": deck.name,
        "court_swap": swapped,
        "kind": kind,
        "size": [img.shape[1], img.shape[0]],
        "tilt": round(cam.tilt, 1),
        "k1": round(cam.k1, 3),
        "boxes": [
            {
                "card": lb.card,
                "visible": round(lb.visible, 3),
                "index_visible": round(lb.index_visible, 3),
                "tag": lb.tag,
                "corners": [[round(x, 1), round(y, 1)] for x, y in lb.corners],
                "index_boxes": [[round(v, 1) for v in b] for b in lb.index_boxes],
            }
            for lb in labels
        ],
        "objects": objects,
    }
    return img, labels, meta


def yolo_lines(labels: list[Label], w: int, h: int, boxes: str = "cards") -> list[str]:
    """YOLO label lines: one whole-card box per card (``cards``) or one box per corner index
    that shows (``indices``, as cardcounter-real labels its photos), the card's class on each."""
    out = []
    for lb in labels:
        cls = CARD_NAMES.index(lb.card)
        for x1, y1, x2, y2 in [lb.box] if boxes == "cards" else lb.index_boxes:
            out.append(
                f"{cls} {(x1 + x2) / 2 / w:.6f} {(y1 + y2) / 2 / h:.6f} "
                f"{(x2 - x1) / w:.6f} {(y2 - y1) / h:.6f}"
            )
    return out


def _job(args: tuple) -> int:
    out, seed, split, i, imgsz, deck_names, quality, closeups, boxes = args
    decks = [art.deck_by_name(n) for n in deck_names]
    img, labels, meta = render_one(seed, split, i, imgsz, decks, closeups=closeups)
    stem = f"{split}_{i:06d}"
    h, w = img.shape[:2]
    base = Path(out) / split
    cv2.imwrite(str(base / "images" / f"{stem}.jpg"), img, [cv2.IMWRITE_JPEG_QUALITY, quality])
    lines = yolo_lines(labels, w, h, boxes)
    (base / "labels" / f"{stem}.txt").write_text("\n".join(lines) + "\n")
    (base / "meta" / f"{stem}.json").write_text(json.dumps(meta))
    return len(lines)


def write_data_yaml(out: Path, splits: list[str]) -> Path:
    lines = [f"path: {out.resolve()}", "train: train/images", "val: val/images"]
    if "holdout" in splits:
        lines.append("test: holdout/images")
    lines.append("names:")
    lines += [f"  {k}: {name}" for k, name in enumerate(CARD_NAMES)]
    p = out / "data.yaml"
    p.write_text("\n".join(lines) + "\n")
    return p


def generate(cfg: SynthConfig, progress: bool = True) -> dict:
    """Write the dataset; prints progress with an estimate of the time left."""
    names = art.index_box_choice(cfg.designs) if cfg.boxes == "indices" else cfg.designs
    train_decks = art.training_designs(names) if names else art.available_decks(holdout=False)
    hold_decks = art.holdout_designs(cfg.holdout_designs)
    art.ensure_art(train_decks + hold_decks, progress=progress)
    if not train_decks:
        raise FileNotFoundError("no training deck designs installed")
    jobs = []
    sizes = cfg.split_sizes()
    for split, n in sizes.items():
        if n == 0:
            continue
        decks = hold_decks if split == "holdout" else train_decks
        if not decks:
            raise FileNotFoundError(f"no deck designs for split {split}")
        for sub in ("images", "labels", "meta"):
            (cfg.out / split / sub).mkdir(parents=True, exist_ok=True)
        names = [d.name for d in decks]
        jobs += [
            (
                str(cfg.out),
                cfg.seed,
                split,
                i,
                cfg.imgsz,
                names,
                cfg.quality,
                cfg.closeups,
                cfg.boxes,
            )
            for i in range(n)
        ]
    t0 = time.time()
    total_boxes = 0
    # spawn, not fork: a forked child can inherit a locked OpenCV thread-pool mutex and hang.
    ctx = mp.get_context("spawn")
    with ctx.Pool(max(1, cfg.workers), initializer=_init, initargs=(cfg.seed, cfg.imgsz)) as pool:
        for k, nb in enumerate(pool.imap(_job, jobs, chunksize=4), 1):
            total_boxes += nb
            if progress and (k % 200 == 0 or k == len(jobs)):
                el = time.time() - t0
                rate = k / el
                print(
                    f"[synth] {k}/{len(jobs)} images, {rate:.1f} img/s, "
                    f"about {(len(jobs) - k) / rate:.0f} s left",
                    flush=True,
                )
    write_data_yaml(cfg.out, [s for s, n in sizes.items() if n])
    elapsed = time.time() - t0
    summary = {
        "images": len(jobs),
        "boxes": total_boxes,
        "seconds": round(elapsed, 1),
        "images_per_second": round(len(jobs) / max(elapsed, 1e-9), 1),
        "splits": sizes,
        "seed": cfg.seed,
        "imgsz": cfg.imgsz,
        "closeups": cfg.closeups,
        "boxed": cfg.boxes,
        "train_decks": [d.name for d in train_decks],
        "holdout_decks": [d.name for d in hold_decks],
    }
    (cfg.out / "summary.json").write_text(json.dumps(summary, indent=1))
    return summary


def default_workers() -> int:
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 2)
