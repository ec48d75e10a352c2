"""Corner indices drawn in many typefaces: index samples that no deck design limits.

The index network (``hakam.vision.corners``) reads a card from its four corners, but trained on the
18 training designs it learns their lettering: left out of training, a design's court cards read
0.61 against 0.91 (docs/experiments/2026-11-30-leave-out-designs.md), and the hold-out designs'
misreads are mostly a suit pip or a letter of an unseen face (QS read QC, AC read AS, JC read KC).
Here each sample is a card's four corner tiles laid out as ``corner_patches`` gives them, drawn from
scratch: the rank in one of the system's typefaces (Debian font packages that
``datasets/install_art.sh`` installs), the suit pip from a typeface or drawn as a shape whose
proportions change every time, on paper of any tint, with a rounded corner, table showing where the
outline is off, the frame and figure of a court card or the big pip of a number card nearby, and the
whole drawn small then enlarged as a far card is. Ranks 2-6 give "not a Baloot card" samples, as
real tables have them.

Training only (Pillow draws the letters); the run time never imports this module.
"""

from __future__ import annotations

import json
import math
import time
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from hakam.engine.cards import CARD_NAMES, RANKS, SUITS
from hakam.vision.corners import PATCH_H, PATCH_W
from hakam.vision.reader import OTHER

FONT_DIRS = (Path("/usr/share/fonts"), Path("/usr/share/texmf/fonts/opentype"))
# Faces whose letters are symbols, or whose figures are not a card maker's: never an index.
NOT_LETTERING = ("symbol", "d050000l", "dingbat", "math", "chorus", "z003")
OTHER_RANKS = ("2", "3", "4", "5", "6")
OTHER_SHARE = 0.2  # samples of ranks 2-6 ("not a Baloot card")
SUIT_GLYPHS = {"S": "\u2660", "C": "\u2663", "H": "\u2665", "D": "\u2666"}
SCALE = 4  # tiles are drawn this many times larger, then reduced (smooth edges)


def font_files(dirs=FONT_DIRS) -> list[Path]:
    """The typefaces installed here that may print a card's rank (TrueType and OpenType)."""
    found = []
    for d in dirs:
        if d.is_dir():
            found += [p for p in d.rglob("*") if p.suffix.lower() in (".ttf", ".otf")]
    return sorted(p for p in found if not any(k in p.name.lower() for k in NOT_LETTERING))


@lru_cache(maxsize=4096)
def _font(path: str, px: int):
    from PIL import ImageFont

    return ImageFont.truetype(path, px)


def glyph_mask(text: str, path: Path | str, px: int) -> np.ndarray:
    """``text`` in the typeface at ``px`` pixels, as an ink mask (0..1) cut to its ink."""
    from PIL import Image, ImageDraw

    font = _font(str(path), int(px))
    x1, y1, x2, y2 = font.getbbox(text)
    img = Image.new("L", (max(x2 - x1, 1) + 4, max(y2 - y1, 1) + 4), 0)
    ImageDraw.Draw(img).text((2 - x1, 2 - y1), text, font=font, fill=255)
    m = np.asarray(img, np.float32) / 255.0
    ys, xs = np.nonzero(m > 0.1)
    if not len(ys):
        return np.zeros((1, 1), np.float32)
    return m[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]


def has_glyphs(path: Path | str, text: str) -> bool:
    """Whether the typeface draws each character of ``text`` as a glyph of its own (not the
    empty box it shows for a character it lacks, and no two alike)."""
    missing = glyph_mask("\ue000", path, 48)
    seen = []
    for ch in text:
        m = glyph_mask(ch, path, 48)
        if m.size < 16 or (m.shape == missing.shape and np.abs(m - missing).mean() < 0.02):
            return False
        if any(m.shape == s.shape and np.abs(m - s).mean() < 0.02 for s in seen):
            return False
        seen.append(m)
    return True


@lru_cache(maxsize=1)
def lettering_fonts() -> tuple[tuple[Path, ...], tuple[Path, ...]]:
    """(faces that print every rank, faces that also print the four suits)."""
    ranks = tuple(p for p in font_files() if has_glyphs(p, "0123456789AJQK"))
    suits = tuple(p for p in ranks if has_glyphs(p, "".join(SUIT_GLYPHS.values())))
    return ranks, suits


# --- suit pips drawn as shapes ----------------------------------------------------------------


def _lobes(size: int, centres, radius: float) -> np.ndarray:
    m = np.zeros((size, size), np.uint8)
    for cx, cy in centres:
        cv2.circle(m, (round(cx * size), round(cy * size)), round(radius * size), 255, -1, 16)
    return m


def _stem(m: np.ndarray, rng: np.random.Generator, top: float) -> None:
    """A spade's or club's stem: narrow under the lobes, flared at its foot."""
    s = m.shape[0]
    foot = rng.uniform(0.18, 0.42)
    neck = rng.uniform(0.02, 0.07)
    pts = np.array([[0.5 - neck, top], [0.5 + neck, top], [0.5 + foot, 0.98], [0.5 - foot, 0.98]])
    cv2.fillPoly(m, [np.round(pts * s).astype(np.int32)], 255, 16)


def _heart_shape(size: int, rng: np.random.Generator, tip: float) -> np.ndarray:
    r = rng.uniform(0.2, 0.27)
    dx = rng.uniform(0.18, 0.26)
    cy = rng.uniform(0.28, 0.34)
    m = _lobes(size, [(0.5 - dx, cy), (0.5 + dx, cy)], r)
    side = rng.uniform(0.0, 0.04)
    pts = np.array([[0.5 - dx - r + side, cy + 0.05], [0.5, cy - 0.05],
                    [0.5 + dx + r - side, cy + 0.05], [0.5, tip]])  # fmt: skip
    cv2.fillPoly(m, [np.round(pts * size).astype(np.int32)], 255, 16)
    return m


def suit_shape(suit: str, size: int, rng: np.random.Generator) -> np.ndarray:
    """One suit pip drawn with proportions of its own (lobes, stem, tip, curve), as an ink
    mask (0..1) of ``size`` x ``size``: a heart, a diamond with straight or curved sides, a
    spade (a heart upside down on a stem) or a club (three lobes on a stem)."""
    if suit == "H":
        m = _heart_shape(size, rng, rng.uniform(0.9, 0.99))
    elif suit == "S":
        m = _heart_shape(size, rng, rng.uniform(0.9, 0.99))[::-1].copy()
        m[int(0.72 * size) :] = 0
        _stem(m, rng, rng.uniform(0.45, 0.6))
    elif suit == "C":
        r = rng.uniform(0.17, 0.23)
        dx, low = rng.uniform(0.2, 0.27), rng.uniform(0.5, 0.58)
        m = _lobes(size, [(0.5, r + 0.02), (0.5 - dx, low), (0.5 + dx, low)], r)
        cv2.circle(m, (size // 2, round(0.46 * size)), round(0.1 * size), 255, -1, 16)
        _stem(m, rng, rng.uniform(0.5, 0.6))
    elif suit == "D":
        half = rng.uniform(0.28, 0.42)
        bend = rng.uniform(0.0, 0.1)  # sides curved inwards
        t = np.linspace(0, 1, 12)[:, None]
        ends = [(0.5, 0.02), (0.5 + half, 0.5), (0.5, 0.98), (0.5 - half, 0.5)]
        sides = []
        for k in range(4):
            a, b = np.array(ends[k]), np.array(ends[(k + 1) % 4])
            mid = (a + b) / 2
            c = mid + (0.5 - mid) * bend * 4  # the control point pulled towards the middle
            sides.append((1 - t) ** 2 * a + 2 * t * (1 - t) * c + t**2 * b)
        m = np.zeros((size, size), np.uint8)
        cv2.fillPoly(m, [np.round(np.concatenate(sides) * size).astype(np.int32)], 255, 16)
    else:
        raise ValueError(f"suit: {suit!r} (one of {''.join(SUITS)})")
    return m.astype(np.float32) / 255.0


# --- one sample ---------------------------------------------------------------------------------


def _ink(rng: np.random.Generator, suit: str) -> np.ndarray:
    """BGR ink of a suit: red hearts and diamonds, black (or navy) spades and clubs."""
    if suit in "HD":
        return np.array([rng.uniform(0, 70), rng.uniform(0, 60), rng.uniform(150, 240)])
    grey = rng.uniform(0, 60)
    navy = rng.uniform(0, 40) if rng.random() < 0.2 else 0.0
    return np.array([grey + navy, grey, grey])


def _paint(canvas: np.ndarray, mask: np.ndarray, x: float, y: float, ink) -> None:
    """Blend ``mask`` in ``ink`` onto ``canvas`` with its top-left at (x, y), clipped."""
    h, w = mask.shape
    H, W = canvas.shape[:2]
    x0, y0 = round(x), round(y)
    a0, b0 = max(0, -y0), max(0, -x0)
    a1, b1 = min(h, H - y0), min(w, W - x0)
    if a1 <= a0 or b1 <= b0:
        return
    m = mask[a0:a1, b0:b1, None]
    region = canvas[y0 + a0 : y0 + a1, x0 + b0 : x0 + b1]
    region[:] = region * (1 - m) + np.asarray(ink, np.float32) * m


def _resize_mask(mask: np.ndarray, w: float, h: float) -> np.ndarray:
    return cv2.resize(mask, (max(1, round(w)), max(1, round(h))), interpolation=cv2.INTER_AREA)


def _design(rng: np.random.Generator, card: str) -> dict:
    """What one deck prints in a corner: typeface, sizes, places, inks, paper, pip style."""
    rank_fonts, suit_fonts = lettering_fonts()
    if not rank_fonts:
        raise RuntimeError(
            "no typeface to draw card ranks with: run datasets/install_art.sh (Debian fonts)"
        )
    suit = card[-1]
    paper = np.full(3, rng.uniform(215, 255)) + rng.uniform(-8, 8, 3) * (rng.random() < 0.5)
    use_glyph = bool(suit_fonts) and rng.random() < 0.5
    return {
        "rank": card[:-1],
        "suit": suit,
        "font": rank_fonts[rng.integers(len(rank_fonts))],
        "pip_font": suit_fonts[rng.integers(len(suit_fonts))] if use_glyph else None,
        "pip_seed": int(rng.integers(1 << 30)),
        "height": rng.uniform(0.24, 0.5),  # rank height, share of the tile's height
        "stretch": rng.uniform(0.75, 1.15),
        "x": rng.uniform(0.05, 0.3),
        "y": rng.uniform(0.03, 0.18),
        "pip": rng.uniform(0.55, 1.0),  # pip width, share of a one-character rank's width
        "gap": rng.uniform(0.0, 0.08),
        "beside": rng.random() < 0.08,  # the pip to the right of the rank
        "no_pip": rng.random() < 0.04,
        "four": rng.random() < 0.15,  # an index in all four corners
        "court": card[:-1] in "JQK",
        "ink": _ink(rng, suit),
        "paper": np.clip(paper, 0, 255),
        "table": rng.uniform(10, 200, 3),
        "radius": rng.uniform(0.0, 0.25),
        "frame": rng.random() < 0.5,
        "frame_x": rng.uniform(0.45, 0.85),
        "frame_y": rng.uniform(0.08, 0.45),
    }


def _index_marks(d: dict, W: int, H: int) -> list[tuple[np.ndarray, float, float]]:
    """The rank and pip masks of design ``d`` in a W x H tile, with their top-left corners,
    as printed in a tile's top-left corner."""
    rank = glyph_mask(d["rank"], d["font"], max(8, round(d["height"] * H * 1.4)))
    h = d["height"] * H
    one_w = h * 0.62 * d["stretch"]  # a one-character rank's width
    w = rank.shape[1] / rank.shape[0] * h * d["stretch"]
    w = min(w, 0.8 * W)
    rank = _resize_mask(rank, w, h)
    x, y = d["x"] * W, d["y"] * H
    marks = [(rank, x, y)]
    if d["no_pip"]:
        return marks
    pw = d["pip"] * one_w
    if d["pip_font"] is not None:
        pip = glyph_mask(SUIT_GLYPHS[d["suit"]], d["pip_font"], max(8, round(pw * 1.5)))
        pip = _resize_mask(pip, pw, pw * pip.shape[0] / max(pip.shape[1], 1))
    else:
        pip = suit_shape(d["suit"], max(8, round(pw)), np.random.default_rng(d["pip_seed"]))
    if d["beside"]:
        marks.append((pip, x + w + d["gap"] * W, y + (h - pip.shape[0]) / 2))
    else:
        marks.append((pip, x + (w - pip.shape[1]) / 2, y + h + d["gap"] * H))
    return marks


def corner_tile(rng: np.random.Generator, d: dict, index: bool, right: bool) -> np.ndarray:
    """One corner of the card as ``corner_patches`` cuts it, upright (BGR float, drawn
    ``SCALE`` times larger): ``right`` is a tile of the right column (the card's corner at the
    tile's top-right), ``index`` whether the design prints its index there."""
    return _corner_tile(rng, d, index, right)[0]


def _corner_tile(
    rng: np.random.Generator, d: dict, index: bool, right: bool
) -> tuple[np.ndarray, np.ndarray | None]:
    """``corner_tile`` and the box its index marks cover (x1, y1, x2, y2; None without)."""
    W, H = PATCH_W * SCALE, PATCH_H * SCALE
    tile = np.empty((H, W, 3), np.float32)
    tile[:] = d["table"]
    # where the card's edges are: the outline is a few percent of the diagonal off
    ex, ey = rng.normal(0.02, 0.12) * W, rng.normal(0.02, 0.08) * H
    card = np.zeros((H, W), np.uint8)
    r = max(1, round(d["radius"] * W))
    x0, y0 = round(ex), round(ey)
    cv2.rectangle(card, (x0 + r, y0), (W * 3, H * 3), 255, -1)
    cv2.rectangle(card, (x0, y0 + r), (W * 3, H * 3), 255, -1)
    cv2.circle(card, (x0 + r, y0 + r), r, 255, -1, 16)
    on = card[..., None].astype(np.float32) / 255.0
    tile[:] = tile * (1 - on) + d["paper"] * on
    if d["frame"] and d["court"]:
        fx, fy = round(ex + d["frame_x"] * W), round(ey + d["frame_y"] * H)
        colour = d["ink"] if rng.random() < 0.5 else rng.uniform(0, 255, 3)
        art = tile.copy()
        for _ in range(int(rng.integers(2, 7))):  # the figure's colour blocks inside the frame
            centre = (round(fx + rng.uniform(0, W)), round(fy + rng.uniform(0, H)))
            axes = (int(rng.uniform(8, W)), int(rng.uniform(8, H // 2)))
            paint = rng.uniform(0, 255, 3).tolist()
            cv2.ellipse(art, centre, axes, rng.uniform(0, 180), 0, 360, paint, -1, 16)
        tile[fy:, fx:] = art[fy:, fx:]
        cv2.rectangle(tile, (fx, fy), (W * 3, H * 3), colour.tolist(), max(1, SCALE // 2), 16)
    elif not d["court"] and rng.random() < 0.5:  # a big pip of the card's middle
        s = int(rng.uniform(0.5, 0.9) * W)
        pip = suit_shape(d["suit"], s, rng)
        px, py = ex + rng.uniform(0.5, 0.9) * W, ey + rng.uniform(0.45, 0.85) * H
        _paint(tile, pip, px, py, d["ink"])
    if rng.random() < 0.2:  # another card lying over this corner
        other = np.clip(d["paper"] + rng.uniform(-40, 10, 3), 0, 255)
        a = rng.uniform(0, math.pi)
        c = np.array([rng.uniform(0, W), rng.uniform(0, H)])
        u = np.array([math.cos(a), math.sin(a)]) * 3 * H
        v = np.array([-math.sin(a), math.cos(a)]) * 3 * H
        cv2.fillPoly(tile, [np.round([c - u, c + u, c + u + v, c - u + v]).astype(np.int32)],
                     other.tolist(), 16)  # fmt: skip
    if right:  # the card's corner at the tile's top-right: the paper mirrored, not the ink
        tile = np.ascontiguousarray(tile[:, ::-1])
    box = None
    if index:
        edges = []
        for mask, x, y in _index_marks(d, W, H):
            left = ex + x
            px = W - left - mask.shape[1] if right else left
            _paint(tile, mask, px, ey + y, d["ink"])
            edges.append((px, ey + y, px + mask.shape[1], ey + y + mask.shape[0]))
        e = np.array(edges, np.float64)
        box = np.array([e[:, 0].min(), e[:, 1].min(), e[:, 2].max(), e[:, 3].max()])
    return tile, box


def lettering_sample(rng: np.random.Generator, card: str) -> np.ndarray:
    """A card's four corner tiles as ``corner_patches`` lays them out (2*PATCH_H x 2*PATCH_W,
    BGR uint8): the index in the left column (or all four), drawn at a random resolution."""
    d = _design(rng, card)
    tiles = [
        corner_tile(rng, d, index=True, right=False),
        corner_tile(rng, d, index=d["four"], right=True),
        corner_tile(rng, d, index=True, right=False),
        corner_tile(rng, d, index=d["four"], right=True),
    ]
    big = np.vstack([np.hstack(tiles[:2]), np.hstack(tiles[2:])])
    out = _seen_far(rng, big, 2 * PATCH_W, 2 * PATCH_H, least=0.25, blur=(0.6, 1.8))
    return np.clip(out, 0, 255).astype(np.uint8)


def _seen_far(
    rng: np.random.Generator, image: np.ndarray, w: int, h: int, least: float,
    blur: tuple[float, float],
) -> np.ndarray:  # fmt: skip
    """``image`` reduced to w x h as a camera sees it: from a far card (drawn at a random
    share of the size, at least ``least``, then enlarged) and, now and then, out of focus or
    moving (a blur of ``blur`` px)."""
    small = rng.uniform(least, 1.0)
    out = cv2.resize(image, (w, h), interpolation=cv2.INTER_AREA)
    if small < 0.95:
        low = cv2.resize(image, (max(8, round(w * small)), max(8, round(h * small))),
                         interpolation=cv2.INTER_AREA)  # fmt: skip
        out = cv2.resize(low, (w, h), interpolation=cv2.INTER_LINEAR)
    if rng.random() < 0.3:
        out = cv2.GaussianBlur(out, (0, 0), rng.uniform(*blur))
    return out


def lettering_strip(rng: np.random.Generator, card: str) -> np.ndarray:
    """A strip of a fan as the strip reader sees it: one corner's index in a typeface, its box
    moved as the finder's boxes are, cut as ``hakam.vision.indices`` cuts them (widened, square,
    ``STRIP_SIZE`` px; BGR uint8), drawn at a random resolution."""
    from hakam.training.corners import STRIP_SPREAD
    from hakam.training.reader import jitter_box
    from hakam.vision.indices import STRIP_MARGIN, STRIP_SIZE
    from hakam.vision.reader import card_crop

    d = _design(rng, card)
    tile, box = _corner_tile(rng, d, index=True, right=False)
    tile = np.clip(tile, 0, 255).astype(np.uint8)
    crop = card_crop(tile, jitter_box(rng, box, STRIP_SPREAD), STRIP_SIZE, STRIP_MARGIN)
    return _seen_far(rng, crop, STRIP_SIZE, STRIP_SIZE, least=0.3, blur=(0.5, 1.2))


def lettering_card(rng: np.random.Generator) -> tuple[str, int]:
    """A card to draw and its class: a Baloot card, or ranks 2-6 ("not a Baloot card")."""
    suit = SUITS[rng.integers(4)]
    if rng.random() < OTHER_SHARE:
        return OTHER_RANKS[rng.integers(len(OTHER_RANKS))] + suit, OTHER
    card = RANKS[rng.integers(len(RANKS))] + suit
    return card, CARD_NAMES.index(card)


def build_lettering(
    out: Path, n: int, seed: int = 0, progress: bool = True, kind: str = "index"
) -> dict:
    """Write ``n`` lettering samples as ``out/index.npy`` (``kind`` "index": four corner tiles)
    or ``out/strip.npy`` ("strip": one index cut as a strip) and ``out/card.npy`` (an
    index-only folder, as real photos' samples) with a summary."""
    if n < 1:
        raise ValueError(f"lettering samples: {n} (at least 1)")
    if kind not in ("index", "strip"):
        raise ValueError(f"lettering kind: {kind!r} (index or strip)")
    draw = lettering_sample if kind == "index" else lettering_strip
    rank_fonts, suit_fonts = lettering_fonts()
    rng = np.random.default_rng([seed, 83])
    patches, cards = [], []
    t0 = time.time()
    for k in range(n):
        card, cls = lettering_card(rng)
        patches.append(draw(rng, card))
        cards.append(cls)
        if progress and (k + 1) % 5000 == 0:
            left = (time.time() - t0) / (k + 1) * (n - k - 1)
            print(f"[lettering] {k + 1}/{n} samples, about {left:.0f} s left", flush=True)
    out.mkdir(parents=True, exist_ok=True)
    np.save(out / f"{kind}.npy", np.stack(patches))
    np.save(out / "card.npy", np.array(cards, np.int16))
    summary = {
        "lettering": n,
        "kind": kind,
        "seed": seed,
        "other": int(sum(c == OTHER for c in cards)),
        "rank_fonts": len(rank_fonts),
        "suit_fonts": len(suit_fonts),
        "seconds": round(time.time() - t0, 1),
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=1))
    return summary


__all__ = [
    "build_lettering",
    "corner_tile",
    "font_files",
    "lettering_card",
    "lettering_fonts",
    "lettering_sample",
    "lettering_strip",
    "suit_shape",
]
