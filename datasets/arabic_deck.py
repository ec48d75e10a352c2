"""A deck design with Arabic indices, drawn here: the kind of deck many Gulf tables bring.

The court cards' indices are the letters Saudi players call them by: و (walad, the jack), ب
(bint, the queen), ش (shayib, the king); the numbers are Arabic-Indic digits (٧ ٨ ٩ ١٠), and
the ace ١ (one). Each card is drawn from scratch in a typeface with Arabic letters that the set-up
installs (DejaVu Sans Bold, Debian fonts-dejavu-core): a corner index (the rank over its suit) top
left and, turned, bottom right; pips in the usual places; a court card's framed figure with its
letter; a big pip for the ace. Ranks 2-6 are drawn too (٢-٦, "not a Baloot card" distractors),
and a back. The design is held out of training like ``paris``, ``kennard`` and ``bellot``: no
network has seen its indices (``hakam.datasets.art``).

Pillow draws the letters (imported when a card is drawn).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

FONT = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf")
RANK_TEXT = {"A": "١", "7": "٧", "8": "٨", "9": "٩", "10": "١٠", "J": "و", "Q": "ب", "K": "ش",
             "2": "٢", "3": "٣", "4": "٤", "5": "٥", "6": "٦"}  # fmt: skip
SUIT_GLYPH = {"S": "\u2660", "C": "\u2663", "H": "\u2665", "D": "\u2666"}
RED = (40, 30, 200)  # BGR
BLACK = (25, 25, 25)
PAPER = (236, 244, 248)
W, H = 300, 420  # the raster's size (art.CARD_HEIGHT high, a poker card's proportions)
# Pip centres as fractions of the card (x, y) for each number of pips.
_COLS = (0.3, 0.5, 0.7)
_PIPS: dict[int, tuple[tuple[float, float], ...]] = {
    1: ((0.5, 0.5),),
    2: ((0.5, 0.25), (0.5, 0.75)),
    3: ((0.5, 0.25), (0.5, 0.5), (0.5, 0.75)),
    4: ((0.3, 0.25), (0.7, 0.25), (0.3, 0.75), (0.7, 0.75)),
    5: ((0.3, 0.25), (0.7, 0.25), (0.5, 0.5), (0.3, 0.75), (0.7, 0.75)),
    6: ((0.3, 0.25), (0.7, 0.25), (0.3, 0.5), (0.7, 0.5), (0.3, 0.75), (0.7, 0.75)),
    7: ((0.3, 0.25), (0.7, 0.25), (0.5, 0.375), (0.3, 0.5), (0.7, 0.5), (0.3, 0.75),
        (0.7, 0.75)),
    8: ((0.3, 0.25), (0.7, 0.25), (0.5, 0.375), (0.3, 0.5), (0.7, 0.5), (0.5, 0.625),
        (0.3, 0.75), (0.7, 0.75)),
    9: ((0.3, 0.22), (0.7, 0.22), (0.3, 0.41), (0.7, 0.41), (0.5, 0.5), (0.3, 0.59),
        (0.7, 0.59), (0.3, 0.78), (0.7, 0.78)),
    10: ((0.3, 0.22), (0.7, 0.22), (0.5, 0.32), (0.3, 0.41), (0.7, 0.41), (0.3, 0.59),
         (0.7, 0.59), (0.5, 0.68), (0.3, 0.78), (0.7, 0.78)),
}  # fmt: skip


@dataclass(frozen=True)
class Style:
    """How a deck of this kind is drawn: the typeface, paper and ink, and how far up and down
    the pips spread (1: as ``_PIPS``)."""

    font: Path = FONT
    paper: tuple[int, int, int] = PAPER
    red: tuple[int, int, int] = RED
    black: tuple[int, int, int] = BLACK
    pip_span: float = 1.0


HOLDOUT = Style()  # the "arabic" hold-out design
# A second design of the same kind, for choosing how a learned deck is read (``hakam.vision.decks``)
# without looking at a hold-out design: another weight of the typeface, other paper and inks,
# pips drawn nearer the ends.
TUNING = Style(FONT.with_name("DejaVuSans.ttf"), (215, 235, 245), (30, 60, 170), (60, 30, 10), 1.3)


def available(style: Style = HOLDOUT) -> bool:
    return style.font.is_file()


def _text(
    img, text: str, centre: tuple[float, float], px: int, colour, flip: bool = False,
    font_path: Path = FONT,
):  # fmt: skip
    """Draw ``text`` centred at ``centre`` (pixels) on the BGR ``img`` (turned 180° if
    ``flip``: the lower half of a card)."""
    from PIL import Image, ImageDraw, ImageFont

    font = ImageFont.truetype(str(font_path), px)
    left, top, right, bottom = font.getbbox(text)
    w, h = right - left + 4, bottom - top + 4
    tile = Image.new("L", (w, h), 0)
    ImageDraw.Draw(tile).text((2 - left, 2 - top), text, font=font, fill=255)
    ink = np.asarray(tile, np.float32) / 255.0
    if flip:
        ink = ink[::-1, ::-1]
    x0, y0 = round(centre[0] - w / 2), round(centre[1] - h / 2)
    ys = slice(max(y0, 0), min(y0 + h, img.shape[0]))
    xs = slice(max(x0, 0), min(x0 + w, img.shape[1]))
    part = ink[ys.start - y0 : ys.stop - y0, xs.start - x0 : xs.stop - x0, None]
    img[ys, xs] = img[ys, xs] * (1 - part) + np.array(colour, np.float32) * part


def _corner(img, rank: str, suit: str, colour, flip: bool, font: Path) -> None:
    """The index: the rank's Arabic text over the suit, near the corner (turned for the lower)."""
    rank_px = 44 if len(RANK_TEXT[rank]) == 1 else 36
    spots = ((30, 34), (30, 80))
    for (x, y), text, px in zip(spots, (RANK_TEXT[rank], SUIT_GLYPH[suit]), (rank_px, 34),
                                strict=True):  # fmt: skip
        at = (W - x, H - y) if flip else (x, y)
        _text(img, text, at, px, colour, flip, font)


def _court(img, rank: str, suit: str, colour, red: bool, font: Path) -> None:
    """A framed figure: a tinted panel, a head and shoulders in the suit's colour (mirrored at
    the middle, as court cards are), the letter and the suit on each half."""
    x0, y0, x1, y1 = 62, 62, W - 62, H - 62
    tint = (200, 220, 240) if red else (225, 215, 190)
    cv2.rectangle(img, (x0, y0), (x1, y1), tint, -1)
    cv2.rectangle(img, (x0, y0), (x1, y1), colour, 3)
    half = img[y0 : (y0 + y1) // 2, x0:x1].copy()
    cx = half.shape[1] // 2
    cv2.circle(half, (cx, 62), 26, (170, 200, 230), -1)  # the face
    cv2.circle(half, (cx, 62), 26, colour, 2)
    crown = np.array([[cx - 26, 40], [cx - 18, 16], [cx - 6, 34], [cx + 6, 16], [cx + 18, 34],
                      [cx + 26, 40]], np.int32)  # fmt: skip
    if rank != "J":
        cv2.fillPoly(half, [crown], (40, 170, 220))
    cv2.ellipse(half, (cx, 130), (52, 40), 0, 180, 360, colour, -1)  # shoulders
    img[y0 : (y0 + y1) // 2, x0:x1] = half
    img[(y0 + y1) // 2 : y1, x0:x1] = half[::-1, ::-1][: y1 - (y0 + y1) // 2]
    _text(img, RANK_TEXT[rank], (x0 + 22, y0 + 26), 30, colour, font_path=font)
    _text(img, SUIT_GLYPH[suit], (x0 + 22, y0 + 58), 24, colour, font_path=font)
    _text(img, RANK_TEXT[rank], (x1 - 22, y1 - 26), 30, colour, flip=True, font_path=font)
    _text(img, SUIT_GLYPH[suit], (x1 - 22, y1 - 58), 24, colour, flip=True, font_path=font)


def _rounded(img: np.ndarray, radius: int = 18) -> np.ndarray:
    """BGRA: the card's outline (a thin grey line) and its rounded corners transparent."""
    alpha = np.zeros(img.shape[:2], np.uint8)
    cv2.rectangle(alpha, (radius, 0), (W - 1 - radius, H - 1), 255, -1)
    cv2.rectangle(alpha, (0, radius), (W - 1, H - 1 - radius), 255, -1)
    for cx, cy in ((radius, radius), (W - 1 - radius, radius), (radius, H - 1 - radius),
                   (W - 1 - radius, H - 1 - radius)):  # fmt: skip
        cv2.circle(alpha, (cx, cy), radius, 255, -1)
    edge = cv2.morphologyEx(alpha, cv2.MORPH_GRADIENT, np.ones((3, 3), np.uint8)) > 0
    out = img.astype(np.uint8)
    out[edge] = (150, 150, 150)
    return np.dstack([out, alpha])


def draw_card(card: str, style: Style = HOLDOUT) -> np.ndarray:
    """One card (``"10H"``, ``"QS"``, ``"5C"``, or ``"BACK"``) as a BGRA array, 420 high."""
    img = np.zeros((H, W, 3), np.float32)
    img[:] = style.paper
    if card == "BACK":
        img[:] = (120, 40, 30)
        for k in range(-H, W, 18):  # a lattice of two diagonals
            cv2.line(img, (k, 0), (k + H, H), (170, 90, 60), 3)
            cv2.line(img, (k + H, 0), (k, H), (170, 90, 60), 3)
        cv2.rectangle(img, (14, 14), (W - 15, H - 15), style.paper, 4)
        return _rounded(img)
    rank, suit = card[:-1], card[-1]
    if rank not in RANK_TEXT or suit not in SUIT_GLYPH:
        raise ValueError(f"{card!r}: not a card of this deck")
    colour = style.red if suit in "HD" else style.black
    _corner(img, rank, suit, colour, False, style.font)
    _corner(img, rank, suit, colour, True, style.font)
    if rank in ("J", "Q", "K"):
        _court(img, rank, suit, colour, suit in "HD", style.font)
    elif rank == "A":
        _text(img, SUIT_GLYPH[suit], (W / 2, H / 2), 150, colour, font_path=style.font)
    else:
        for fx, fy in _PIPS[int(rank)]:
            fy = 0.5 + (fy - 0.5) * style.pip_span
            _text(img, SUIT_GLYPH[suit], (fx * W, fy * H), 56, colour, fy > 0.55, style.font)
    return _rounded(img)
