"""Which finds of a deck's spread print the same rank: their index glyphs look alike.

A deck shows each rank in four suits, its index glyph the same in each but for the ink's colour.
Where the generic readers do not know a deck's indices (the Arabic ش ب و, ١ ... ١٠), they name
the suit of a find far more often than its rank (the tuning design's spreads, 2026-12-07: of 226
finds proposed a card, the suit right in 218, the rank in 153). So the finds whose rank glyphs
match share their rank evidence (``pool_ranks``), and a rank the person names for one find is
proposed for the finds that print its glyph (``hakam.vision.decks.propose``).

The glyph is cut from the straightened face (``hakam.vision.decks.FACE_W`` x ``FACE_H``): the
index region of the top-left corner and of the bottom-right one turned upright, the ink whatever
its colour (the paper's brightness less the darkest channel), its blobs clear of the region's
edges (the cloth beyond a rounded corner, a court card's frame), and a window from the top-left
of what is left. Two finds' glyphs compare by normalised correlation at small shifts; a glyph
blurred past reading is compared with none.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import cv2
import numpy as np

from hakam.engine.cards import CARD_NAMES

REGION = (56, 116)  # the index region of a 252 x 352 face, pixels: rank above suit
WINDOW = (40, 36)  # from the index's top-left: its rank glyph, pixels
INK = 0.4  # ink this dark or darker (of half the paper's brightness) is the glyph's
SHIFT = 4  # pixels the glyphs are shifted by at most when compared
# Two finds print the same rank where each is among the other's NEAREST likest glyphs (a rank's
# other three suits), correlating ALIKE or more and GAP more than either's next likest, of the
# glyphs at least SHARP sharp (blurred past reading, all glyphs look alike). Chosen on the tuning
# design's spreads (seeds 0, 7, 8, 11-15; a person simulated correcting the first wrong
# proposal each time: 29 corrections against 77; 34 without SHARP, which cost paris and bellot
# a correction each in blurred spreads).
NEAREST = 3
ALIKE = 0.8
GAP = 0.02
SHARP = 0.0015
FLOOR = 0.02  # added to each rank's share before they are summed to 1 (a match may be wrong)

RANKS = ("7", "8", "9", "10", "J", "Q", "K", "A")
_RANK = np.array([RANKS.index(card[:-1]) for card in CARD_NAMES])


def glyphs(face: np.ndarray) -> list[np.ndarray]:
    """The rank glyph windows of a straightened BGR face's two index corners (none where a
    corner shows no ink clear of its edges)."""
    out = []
    for f in (face, cv2.rotate(face, cv2.ROTATE_180)):
        region = f[: REGION[1], : REGION[0]]
        if region.size == 0:
            continue
        window = _window(ink(region))
        if window is not None:
            out.append(window)
    return out


def ink(bgr: np.ndarray) -> np.ndarray:
    """How much ink each pixel of a region of a face holds, whatever its colour, 0 to 1: the
    paper's brightness (the region's 90th percentile) less the darkest channel, of half the
    paper's brightness."""
    darkest = bgr.min(axis=2).astype(np.float32)
    paper = float(np.percentile(darkest, 90))
    return np.clip((paper - darkest) / max(paper * 0.5, 1.0), 0.0, 1.0)


def _window(amount: np.ndarray) -> np.ndarray | None:
    count, labels, stats, _ = cv2.connectedComponentsWithStats((amount > INK).astype(np.uint8))
    keep = np.zeros(amount.shape, bool)
    height, width = amount.shape
    for k in range(1, count):
        x, y, w, h, area = stats[k]
        if area >= 4 and x > 0 and y > 0 and x + w < width and y + h < height:
            keep |= labels == k
    ys, xs = np.nonzero(keep)
    if not len(ys):
        return None
    y0, x0 = int(ys.min()), max(0, int(xs.min()) - SHIFT)
    cut = np.where(keep, amount, 0.0)[y0 : y0 + WINDOW[1] + SHIFT, x0 : x0 + WINDOW[0] + 2 * SHIFT]
    window = np.zeros((WINDOW[1] + 2 * SHIFT, WINDOW[0] + 2 * SHIFT), np.float32)
    window[SHIFT : SHIFT + cut.shape[0], : cut.shape[1]] = cut
    return cv2.GaussianBlur(window, (0, 0), 1.0)


def sharpness(window: np.ndarray) -> float:
    """How sharp a glyph window is: the variance of its Laplacian."""
    return float(cv2.Laplacian(window, cv2.CV_32F).var())


def similarity(a: Sequence[np.ndarray], b: Sequence[np.ndarray]) -> float:
    """The best normalised correlation of two finds' glyphs (``glyphs``), either corner of
    each, at shifts up to ``SHIFT``; -1 where either has none with contrast."""
    best = -1.0
    for ga in a:
        core = ga[SHIFT:-SHIFT, SHIFT:-SHIFT]
        if core.std() < 1e-3:
            continue
        for gb in b:
            if gb.std() >= 1e-3:
                best = max(best, float(cv2.matchTemplate(gb, core, cv2.TM_CCOEFF_NORMED).max()))
    return best


def alike(faces: Sequence[np.ndarray]) -> np.ndarray:
    """Which finds print the same rank as which (n x n, symmetric, False on the diagonal)."""
    n = len(faces)
    if n <= NEAREST:
        return np.zeros((n, n), bool)
    cut = [[g for g in glyphs(f) if sharpness(g) >= SHARP] for f in faces]
    s = np.full((n, n), -1.0)
    for i in range(n):
        for j in range(i + 1, n):
            s[i, j] = s[j, i] = similarity(cut[i], cut[j])
    nearest = np.zeros((n, n), bool)
    np.put_along_axis(nearest, np.argsort(-s, axis=1)[:, :NEAREST], True, axis=1)
    next_likest = np.sort(s, axis=1)[:, -(NEAREST + 1)]
    clear = (s - next_likest[:, None] >= GAP) & (s - next_likest[None, :] >= GAP)
    out = nearest & nearest.T & (s >= ALIKE) & clear
    np.fill_diagonal(out, False)
    return out


def pool_ranks(reads: np.ndarray, same: np.ndarray,
               named: Mapping[int, str | None]) -> np.ndarray:  # fmt: skip
    """``reads`` (n x 33, the last column no Baloot card) with each find not named weighed by
    the rank evidence of the finds printing its glyph (``same``): their reads' rank shares, or
    the rank the person named. Rows sum to 1."""
    p = np.clip(np.asarray(reads, np.float64), 1e-9, 1.0)
    ranks = np.zeros((len(p), len(RANKS)))
    for j in range(len(p)):
        if j in named:
            if named[j] is not None:
                ranks[j, RANKS.index(named[j][:-1])] = 1.0
        else:
            np.add.at(ranks[j], _RANK, p[j, : len(CARD_NAMES)])
    ranks = (ranks + FLOOR) / (ranks.sum(axis=1, keepdims=True) + len(RANKS) * FLOOR)
    out = np.log(p)
    for i in range(len(p)):
        if i in named:
            continue
        for j in np.flatnonzero(same[i]):
            out[i, : len(CARD_NAMES)] += np.log(ranks[j, _RANK])
            out[i, len(CARD_NAMES) :] += np.log(1.0 / len(RANKS))  # no card: no rank of its own
    out = np.exp(out - out.max(axis=1, keepdims=True))
    return out / out.sum(axis=1, keepdims=True)
