"""Card art: find real deck designs installed from system and npm packages, rasterise them once.

The art itself is never committed. ``datasets/install_art.sh`` installs the packages; this module
turns each design into one PNG per card (RGBA, fixed height) under a cache folder, so scene
rendering only reads small PNGs. SVG is rasterised with librsvg (``rsvg-convert``), which renders
these decks correctly where cairosvg does not.
"""

from __future__ import annotations

import gzip
import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from hakam.datasets import arabic_deck
from hakam.engine.cards import CARD_NAMES

ROOT = Path(__file__).resolve().parent.parent
ART_DIR = Path(os.environ.get("HAKAM_ART_DIR", ROOT / ".art"))
CARD_HEIGHT = 420  # pixels of the cached raster; scenes scale down from it

# Ranks 2..6 are not Baloot cards: rendered only as rare unlabelled distractors.
DISTRACTOR_NAMES: tuple[str, ...] = tuple(f"{r}{s}" for s in "CDHS" for r in "23456")
ALL_FACE_NAMES: tuple[str, ...] = CARD_NAMES + DISTRACTOR_NAMES
BACK = "BACK"

_RANK_WORD = {"J": "jack", "Q": "queen", "K": "king", "A": "1"}
_SUIT_WORD = {"C": "club", "D": "diamond", "H": "heart", "S": "spade"}


@dataclass(frozen=True)
class DeckSource:
    """One deck design: where its SVG lives and how a card name maps to an SVG id or file."""

    name: str
    kind: str  # "sprite-kde" | "sprite-aisleriot" | "files" | "drawn" (path: its typeface)
    path: str  # sprite file or folder of per-card files
    licence: str
    holdout: bool = False  # never used for training: the cross-deck test split
    # Held out and reported apart: in a scene or a clip only when asked for by name (the
    # hold-out figures of the three standard designs stay comparable).
    apart: bool = False

    def available(self) -> bool:
        """Installed as SVG, or already rasterised (a portable cache needs no packages)."""
        return Path(self.path).exists() or _cache_complete(cache_dir(self))


def _kde_id(card: str) -> str:
    rank, suit = card[:-1], card[-1]
    return f"{_RANK_WORD.get(rank, rank)}_{_SUIT_WORD[suit]}"


def _aisleriot_id(card: str) -> str:
    rank, suit = card[:-1], card[-1]
    return f"{_SUIT_WORD[suit]}_{_RANK_WORD.get(rank, rank)}"


_A = "/usr/share/aisleriot/cards"
_K = "/usr/share/carddecks"
_NPM = str(ART_DIR / "npm")
_GPL_A = "GPL-3+ (Debian gnome-cards-data)"
_KDE = "GPL/LGPL (Debian kdegames-card-data-kf5)"

# Standard-index designs only (A K Q J indices, French suits). Decks with German/French/Russian
# letters or court cards without indices are left out on purpose.
DECKS: tuple[DeckSource, ...] = (
    DeckSource("anglo_poker", "sprite-aisleriot", f"{_A}/anglo_poker.svgz", _GPL_A),
    DeckSource("anglo_modern", "sprite-aisleriot", f"{_A}/anglo_modern.svgz", _GPL_A),
    DeckSource("anglo", "sprite-aisleriot", f"{_A}/anglo.svgz", _GPL_A),
    DeckSource("gnomangelo", "sprite-aisleriot", f"{_A}/gnomangelo.svgz", _GPL_A),
    DeckSource("tigullio", "sprite-aisleriot", f"{_A}/tigullio.svgz", _GPL_A),
    DeckSource("orell", "sprite-aisleriot", f"{_A}/orell.svgz", _GPL_A),
    DeckSource("ornamental", "sprite-aisleriot", f"{_A}/ornamental.svgz", _GPL_A),
    DeckSource("neoclassical", "sprite-aisleriot", f"{_A}/neoclassical.svgz", _GPL_A),
    DeckSource("simplistic", "sprite-aisleriot", f"{_A}/simplistic.svgz", _GPL_A),
    DeckSource("plastic", "sprite-aisleriot", f"{_A}/plastic.svgz", _GPL_A),
    DeckSource("tango", "sprite-aisleriot", f"{_A}/tango.svgz", _GPL_A),
    DeckSource("kde_standard", "sprite-kde", f"{_K}/svg-standard/standard.svgz", _KDE),
    DeckSource("kde_dondorf", "sprite-kde", f"{_K}/svg-dondorf/dondorf.svgz", _KDE),
    DeckSource("kde_oxygen", "sprite-kde", f"{_K}/svg-oxygen/oxygen.svgz", _KDE),
    DeckSource("kde_oxygen_air", "sprite-kde", f"{_K}/svg-oxygen-air/oxygen-air.svgz", _KDE),
    DeckSource("kde_nicu_white", "sprite-kde", f"{_K}/svg-nicu-white/white.svgz", _KDE),
    DeckSource("kde_jolly_royal", "sprite-kde", f"{_K}/svg-jolly-royal/jolly-royal.svgz", _KDE),
    DeckSource("cardsjs", "files", f"{_NPM}/cardsjs", "LGPL-3 (npm cardsJS, Chris Aguilar)"),
    # Hold-out designs: never trained on. ``bellot`` is held out with ``paris`` because both
    # draw the same Paris pattern; KDE's gm-paris copy of it is left out entirely.
    DeckSource("kennard", "files", f"{_NPM}/kennard", "CC0 (npm react-playing-cards)", True),
    DeckSource("paris", "sprite-aisleriot", f"{_A}/paris.svgz", _GPL_A, True),
    DeckSource("bellot", "sprite-aisleriot", f"{_A}/bellot.svgz", _GPL_A, True),
    # Arabic indices (و ب ش, ٧-١٠), drawn by ``hakam.datasets.arabic_deck`` in a Debian typeface.
    DeckSource(
        "arabic",
        "drawn",
        str(arabic_deck.FONT),
        "drawn by Hakam (fonts-dejavu-core)",
        True,
        apart=True,
    ),
)


def deck_by_name(name: str) -> DeckSource:
    for d in DECKS:
        if d.name == name:
            return d
    raise KeyError(f"unknown deck design {name!r}; known: {', '.join(d.name for d in DECKS)}")


def _file_for(deck: DeckSource, card: str) -> Path:
    folder = Path(deck.path)
    if card == BACK:
        for cand in ("Blue_Back.svg", "back.svg", "Red_Back.svg"):
            if (folder / cand).exists():
                return folder / cand
    rank, suit = card[:-1], card[-1]
    for name in (f"{card}.svg", f"{'T' if rank == '10' else rank}{suit}.svg"):
        if (folder / name).exists():
            return folder / name
    raise FileNotFoundError(f"{deck.name}: no file for {card}")


def _rsvg(args: list[str]) -> np.ndarray:
    with tempfile.NamedTemporaryFile(suffix=".png") as out:
        subprocess.run(["rsvg-convert", *args, "-o", out.name], check=True, capture_output=True)
        img = cv2.imread(out.name, cv2.IMREAD_UNCHANGED)
    if img is None:
        raise RuntimeError(f"rsvg-convert produced no image for {args}")
    if img.ndim == 2:
        img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
    if img.shape[2] == 3:  # an opaque raster: the whole image is card
        img = np.dstack([img, np.full(img.shape[:2], 255, np.uint8)])
    return img


def _trim_to_card(img: np.ndarray) -> np.ndarray:
    """Crop to the opaque card and scale to CARD_HEIGHT, so every card fills its raster."""
    alpha = img[:, :, 3]
    ys, xs = np.nonzero(alpha > 8)
    if len(xs) == 0:
        raise RuntimeError("empty card raster")
    img = img[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]
    h, w = img.shape[:2]
    if h < w:  # some sprites store cards sideways: never the case for the decks we keep
        raise RuntimeError("card raster is landscape")
    scale = CARD_HEIGHT / h
    return cv2.resize(img, (round(w * scale), CARD_HEIGHT), interpolation=cv2.INTER_AREA)


def render_card(deck: DeckSource, card: str, sprite: Path | None = None) -> np.ndarray:
    """Rasterise one card of one deck to a BGRA array of height CARD_HEIGHT."""
    if deck.kind == "drawn":
        img = arabic_deck.draw_card(card)
    elif deck.kind == "files":
        img = _rsvg(["-h", str(CARD_HEIGHT * 2), str(_file_for(deck, card))])
    else:
        id_of: Callable[[str], str] = _kde_id if deck.kind == "sprite-kde" else _aisleriot_id
        ident = (
            ("card_back" if "standard" in deck.path else "back") if card == BACK else id_of(card)
        )
        src = sprite or Path(deck.path)
        img = _rsvg(["-i", ident, "-z", "4", str(src)])
    return _trim_to_card(img)


def _unzipped(deck: DeckSource, tmp: Path) -> Path:
    if deck.path.endswith(".svgz"):
        out = tmp / (deck.name + ".svg")
        with gzip.open(deck.path, "rb") as f, open(out, "wb") as g:
            shutil.copyfileobj(f, g)
        return out
    return Path(deck.path)


def cache_dir(deck: DeckSource) -> Path:
    return ART_DIR / "png" / deck.name


def _cached(folder: Path, name: str) -> Path | None:
    for ext in (".png", ".webp"):
        if (folder / f"{name}{ext}").exists():
            return folder / f"{name}{ext}"
    return None


def _cache_complete(folder: Path) -> bool:
    return folder.is_dir() and all(_cached(folder, n) for n in CARD_NAMES)


def export_cache(out: Path, decks: list[DeckSource], height: int = 280, quality: int = 92) -> int:
    """Write a small portable copy of the raster cache (WebP with alpha) for another machine."""
    n = 0
    for d in decks:
        folder = rasterise_deck(d)
        target = out / "png" / d.name
        target.mkdir(parents=True, exist_ok=True)
        for p in folder.glob("*.png"):
            img = cv2.imread(str(p), cv2.IMREAD_UNCHANGED)
            s = height / img.shape[0]
            img = cv2.resize(img, (round(img.shape[1] * s), height), interpolation=cv2.INTER_AREA)
            cv2.imwrite(str(target / f"{p.stem}.webp"), img, [cv2.IMWRITE_WEBP_QUALITY, quality])
            n += 1
    return n


def rasterise_deck(deck: DeckSource, workers: int = 2) -> Path:
    """Render every card face, the distractors and the back of one deck into its cache folder."""
    out = cache_dir(deck)
    names = [*ALL_FACE_NAMES, BACK]
    if all(_cached(out, n) for n in names) or (
        not Path(deck.path).exists() and _cache_complete(out)
    ):
        return out
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        sprite = _unzipped(deck, Path(tmp)) if deck.kind.startswith("sprite") else None

        def one(name: str) -> None:
            target = out / f"{name}.png"
            if target.exists():
                return
            try:
                img = render_card(deck, name, sprite)
            except (subprocess.CalledProcessError, FileNotFoundError, RuntimeError):
                if name in CARD_NAMES:
                    raise
                return  # a missing distractor or back is fine
            cv2.imwrite(str(target), img)

        with ThreadPoolExecutor(workers) as pool:
            list(pool.map(one, names))
    return out


def available_decks(holdout: bool | None = None) -> list[DeckSource]:
    """Decks whose packages are installed; ``holdout`` filters training or hold-out designs.
    Designs reported apart (``DeckSource.apart``) only by name (``holdout_designs``)."""
    return [d for d in DECKS if d.available() and not d.apart
            and (holdout is None or d.holdout == holdout)]  # fmt: skip


def holdout_designs(names: Iterable[str] = ()) -> list[DeckSource]:
    """The installed hold-out designs ``names`` (default: those not reported apart); a training
    design is refused (a hold-out split must hold designs never trained on)."""
    asked = list(names)
    return _designs(asked, holdout=True) if asked else available_decks(holdout=True)


def _designs(names: Iterable[str], holdout: bool) -> list[DeckSource]:
    """The installed designs ``names``, each a hold-out one (``holdout``) or a training one;
    ValueError in one line for a design unknown, of the other kind, or not installed."""
    out = []
    for name in names:
        try:
            deck = deck_by_name(name)
        except KeyError as exc:
            raise ValueError(str(exc.args[0])) from None
        if deck.holdout != holdout:
            raise ValueError(f"{name} is a training design, not a hold-out one" if holdout
                             else f"{name} is a hold-out design (evaluation only)")  # fmt: skip
        if not deck.available():
            raise ValueError(f"{name}: its card art is not installed")
        if deck not in out:
            out.append(deck)
    return out


def index_box_choice(names: Iterable[str] = ()) -> tuple[str, ...]:
    """The designs of scenes whose labels box corner indices: ``names``, each of which must
    print its indices where ``hakam.datasets.scene.INDEX_BOXES`` boxes them (top-left and
    bottom-right), or all installed training designs that do when none is asked: not KDE's oxygen
    decks, which print theirs in the other two corners (their boxes would hold pips)."""
    allowed = tuple(d.name for d in available_decks(holdout=False) if "oxygen" not in d.name)
    asked = tuple(names)
    for name in asked:
        if name not in allowed:
            raise ValueError(
                f"{name}: its corner indices are not where index boxes go (top-left and "
                "bottom-right)"
            )
    return asked or allowed


def training_designs(names: Iterable[str]) -> list[DeckSource]:
    """The installed training designs ``names``: tuning designs that a reader can be trained
    without (``train-reader --leave-out``) and judged on (``data synth --designs``). Hold-out
    designs are refused: they are for evaluation only."""
    return _designs(names, holdout=False)


def ensure_art(decks: list[DeckSource] | None = None, progress: bool = False) -> list[Path]:
    """Rasterise all available decks (cached); raise with a one-line hint if none is installed."""
    decks = available_decks() if decks is None else decks
    if not decks:
        raise FileNotFoundError(
            "no card art installed: run `bash datasets/install_art.sh` (Debian gnome-cards-data, "
            "kdegames-card-data-kf5, librsvg2-bin, npm cardsJS and react-playing-cards)"
        )
    paths = []
    for i, d in enumerate(decks, 1):
        if progress:
            print(f"[art] {i}/{len(decks)} {d.name}", flush=True)
        paths.append(rasterise_deck(d))
    return paths


def load_deck_images(deck: DeckSource) -> dict[str, np.ndarray]:
    """All cached rasters of one deck as BGRA arrays, keyed by card name (and ``BACK``)."""
    folder = rasterise_deck(deck)
    images = {}
    for p in [*folder.glob("*.png"), *folder.glob("*.webp")]:
        img = cv2.imread(str(p), cv2.IMREAD_UNCHANGED)
        if img is not None:
            if img.ndim == 2:
                img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
            if img.shape[2] == 3:  # an encoder may drop an alpha channel that is all opaque
                img = np.dstack([img, np.full(img.shape[:2], 255, np.uint8)])
            images[p.stem] = img
    return images


COURT_NAMES: tuple[str, ...] = tuple(c for c in CARD_NAMES if c[:-1] in ("J", "Q", "K"))
INDEX_CORNER = (0.2, 0.26)  # width, height share of a card that holds its corner index and pip


def swap_figure(face: np.ndarray, donor: np.ndarray, corner=INDEX_CORNER) -> np.ndarray:
    """A court card's own corner indices over another court card's figure.

    Designs draw their J, Q and K so differently that a reader trained on a few designs learns
    the figures, and names an unseen design's king by its colours. On these composites only
    the corners tell the card, so the reader learns to read them. All four corners come from
    ``face`` (some designs print the index in all four), the rest from ``donor`` stretched to
    the same size, and the card's own outline (alpha) is kept.
    """
    h, w = face.shape[:2]
    out = cv2.resize(donor, (w, h), interpolation=cv2.INTER_AREA)
    out[:, :, 3] = face[:, :, 3]
    cw, ch = round(corner[0] * w), round(corner[1] * h)
    for ys in (slice(0, ch), slice(h - ch, h)):
        for xs in (slice(0, cw), slice(w - cw, w)):
            out[ys, xs] = face[ys, xs]
    return out


def disguise(figure: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A court figure in colours and a pose no design uses: its colour channels shuffled, and
    mirrored or turned at random. Unseen designs draw their kings, queens and jacks in other
    colours and shapes; a figure the reader cannot have learnt leaves it only the corners."""
    out = figure[:, :, [*rng.permutation(3), 3]] if figure.shape[2] == 4 else figure
    if rng.random() < 0.5:
        out = out[:, ::-1]
    if rng.random() < 0.5:
        out = out[::-1, ::-1]
    return np.ascontiguousarray(out)


def swapped_deck(
    images: dict[str, np.ndarray],
    donors: list[dict[str, np.ndarray]],
    rng: np.random.Generator,
    disguised: float = 0.0,
) -> dict[str, np.ndarray]:
    """One design's rasters with every court figure replaced by a random donor court figure,
    a share ``disguised`` of them passed through ``disguise``."""
    out = dict(images)
    for card in COURT_NAMES:
        donor_deck = donors[int(rng.integers(len(donors)))]
        donor = donor_deck[COURT_NAMES[int(rng.integers(len(COURT_NAMES)))]]
        if disguised and rng.random() < disguised:
            donor = disguise(donor, rng)
        out[card] = swap_figure(images[card], donor)
    return out
