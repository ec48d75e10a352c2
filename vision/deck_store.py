"""The decks learnt on this machine (``decks/NAME/`` under the data folder) and a learning
session's frames kept while a person answers (``hakam deck learn``).

A deck's folder: ``deck.json`` (format, name, when, the networks it was learnt on, samples,
cards), ``index.npz`` (its index network's trained layers, ``hakam.vision.fine_tune``),
``calibration.npz`` (of the whole-card reader's reads, ``hakam.vision.calibration``; a deck
learnt before that has none and names no whole-card reader in its networks),
``faces/CARD.png`` (the straightened faces, to learn it again) and ``frame-K.png`` (the frames
it was learnt from). A deck is written into a fresh folder and put in place after: a crash or a
stop while it is written leaves the old one, and one between the two renames that put it in
place is finished the next time the deck is looked up (``DeckStore.settle``).
"""

from __future__ import annotations

import json
import math
import shutil
import zipfile
from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np

from hakam.engine.cards import CARD_NAMES
from hakam.vision.calibration import Calibration
from hakam.vision.decks import (
    DECK_FORMAT,
    DECK_NAME,
    Candidate,
    DeckError,
    LearnedDeck,
    check_cards,
    check_name,
)
from hakam.vision.fine_tune import IndexTail
from hakam.vision.reader import READER_CLASSES

OLD_FORMATS = ("hakam-deck/1",)  # learnt again from their faces (``--again``)


class DeckStore:
    """The decks learnt on this machine: ``root/NAME/``."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    def names(self) -> list[str]:
        if not self.root.is_dir():
            return []
        for old in self.root.glob(".*.old"):
            self.settle(old.name[1:-4])
        return sorted(p.name for p in self.root.iterdir()
                      if DECK_NAME.match(p.name) and (p / "deck.json").is_file())  # fmt: skip

    def describe(self, name: str) -> dict:
        folder = self.root / check_name(name)
        self.settle(name)
        try:
            meta = json.loads((folder / "deck.json").read_text(encoding="utf-8"))
            if not isinstance(meta, dict):
                raise ValueError("deck.json is not an object")
            return meta
        except FileNotFoundError:
            known = ", ".join(self.names()) or "none yet"
            raise DeckError(f"deck {name!r}: not learnt here (decks learnt: {known})") from None
        except (OSError, ValueError) as exc:
            raise DeckError(f"deck {name!r}: cannot be read ({exc})") from None

    def save(self, deck: LearnedDeck, faces: dict[str, np.ndarray],
             frames: Sequence[np.ndarray] = ()) -> Path:  # fmt: skip
        """Write the deck into a fresh folder, then put it in place (a crash leaves the old one)."""
        check_name(deck.name)
        self.root.mkdir(parents=True, exist_ok=True)
        tmp = self.root / f".{deck.name}.tmp"
        shutil.rmtree(tmp, ignore_errors=True)
        (tmp / "faces").mkdir(parents=True)
        for card, face in faces.items():
            _write_image(tmp / "faces" / f"{card}.png", face)
        for k, frame in enumerate(frames):
            _write_image(tmp / f"frame-{k}.png", frame)
        np.savez(tmp / "index.npz", **deck.tail.arrays())
        networks = dict(deck.networks)
        if deck.calibration is not None:
            np.savez(tmp / "calibration.npz", **deck.calibration.arrays())
        else:  # its reads as they are, whatever the whole-card reader
            networks.pop("reader", None)
        meta = {"format": DECK_FORMAT, "name": deck.name, "learnt_at": deck.learnt_at,
                "networks": networks, "samples": deck.samples, "scenes": deck.scenes,
                "cards": sorted(faces, key=CARD_NAMES.index), "frames": len(frames)}  # fmt: skip
        (tmp / "deck.json").write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
        return self.put(tmp, deck.name)

    def put(self, tmp: Path, name: str) -> Path:
        """Put the deck written whole in ``tmp`` (``.NAME.tmp``, its ``deck.json`` last) in
        place of any deck ``name``."""
        final = self.root / name
        old = self.root / f".{name}.old"
        shutil.rmtree(old, ignore_errors=True)
        if final.exists():
            final.rename(old)
        try:
            tmp.rename(final)
        except FileNotFoundError:  # another process looking the deck up finished the save
            if not (final / "deck.json").is_file():
                raise
        shutil.rmtree(old, ignore_errors=True)
        return final

    def settle(self, name: str) -> None:
        """Finish a save cut short between its two renames: the old deck moved aside
        (``.NAME.old``) and the new one whole (``.NAME.tmp``, its ``deck.json`` written last)
        go in place; else the old one goes back. An old one left beside a deck is removed."""
        if not DECK_NAME.match(name or ""):
            return
        final, tmp, old = (self.root / f for f in (name, f".{name}.tmp", f".{name}.old"))
        if not old.is_dir():
            return
        try:  # another process's save may finish it first: then there is nothing to do
            if not final.exists():
                (tmp if (tmp / "deck.json").is_file() else old).rename(final)
            shutil.rmtree(old, ignore_errors=True)
        except OSError:
            return

    def saved_as(self, name: str) -> tuple[int, int] | None:
        """Which save of ``name`` is in place (its ``deck.json``'s inode and time), or None:
        a deck saved anew since an earlier look reads otherwise. A name no deck can have:
        None."""
        if not DECK_NAME.match(name or ""):
            return None
        try:
            st = (self.root / name / "deck.json").stat()
        except OSError:
            return None
        return st.st_ino, st.st_mtime_ns

    def load(self, name: str) -> LearnedDeck:
        return read_deck(self.root / name, name, self.describe(name))

    def faces_in(self, folder: Path) -> dict[str, np.ndarray]:
        """The straightened faces kept in a deck's ``folder``: the 32 cards, else ``DeckError``."""
        faces = {}
        for card in CARD_NAMES:
            path = Path(folder) / "faces" / f"{card}.png"
            img = cv2.imread(str(path)) if path.is_file() else None
            if img is not None:
                faces[card] = img
        check_cards(list(faces))
        return faces

    def faces(self, name: str) -> dict[str, np.ndarray]:
        """The straightened faces a deck was learnt from (to learn it again)."""
        self.describe(name)
        return self.faces_in(self.root / name)

    def frames(self, name: str) -> list[np.ndarray]:
        """The frames a deck was learnt from, in order."""
        return read_frames(self.root / check_name(name))

    def waiting_folder(self, name: str) -> Path:
        """Where the cards found for ``name`` wait for a person's answers (``hakam deck learn
        --source`` keeps them there; ``--answers`` goes on with them)."""
        return self.root / ".pending" / name

    def waiting(self) -> list[str]:
        """Names whose cards found wait for a person's answers (``waiting_folder``)."""
        folder = self.root / ".pending"
        if not folder.is_dir():
            return []
        return sorted(p.name for p in folder.iterdir() if DECK_NAME.match(p.name) and p.is_dir())

    def held(self, name: str) -> tuple[str, Path]:
        """What ``forget`` would remove: the deck (one whose files are damaged too), else the
        cards of that name waiting for answers, ("deck" or "waiting", its folder)."""
        self.settle(name)
        for kind, folder in (("deck", self.root / check_name(name)),
                             ("waiting", self.waiting_folder(name))):  # fmt: skip
            if folder.is_dir():
                return kind, folder
        known = ", ".join(self.names()) or "none yet"
        raise DeckError(f"deck {name!r}: not learnt here, and no cards wait for it "
                        f"(decks learnt: {known})")  # fmt: skip

    def forget(self, name: str) -> str:
        """Remove what ``held`` names: which ("deck", "waiting")."""
        kind, folder = self.held(name)
        shutil.rmtree(folder)
        return kind


def _write_image(path: Path, image: np.ndarray) -> None:
    if not cv2.imwrite(str(path), image):
        raise DeckError(f"{path}: cannot be written")


def read_frames(folder: Path) -> list[np.ndarray]:
    """``frame-K.png`` of ``folder``, in the order of K."""
    paths = sorted(Path(folder).glob("frame-*.png"), key=lambda p: int(p.stem.split("-")[1]))
    frames = [cv2.imread(str(p)) for p in paths if p.stem.split("-")[1].isdigit()]
    if any(f is None for f in frames):
        raise DeckError(f"{folder}: a frame cannot be read")
    return frames  # type: ignore[return-value]


def keep_pending(folder: Path, frames: Sequence[np.ndarray], found: Sequence[Candidate]) -> None:
    """The frames and the cards found in them, as the person is asked about them: the answers
    are given to these, in this order (nothing is found again)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    for k, frame in enumerate(frames):
        _write_image(folder / f"frame-{k}.png", frame)
    for k, c in enumerate(found):
        _write_image(folder / f"face-{k}.png", c.face)
    rows = [
        {"frame": c.frame, "box": [round(float(v), 2) for v in c.box],
         "quad": [[round(float(v), 2) for v in pt] for pt in c.quad],
         "proposed": c.proposed, "probability": round(c.probability, 4),
         "read": None if c.read is None else [round(float(v), 6) for v in c.read]}
        for c in found
    ]  # fmt: skip
    tmp = folder / "found.json.tmp"  # whole or not at all: the finds the answers are given to
    tmp.write_text(json.dumps(rows) + "\n", encoding="utf-8")
    tmp.replace(folder / "found.json")


def pending(folder: Path) -> tuple[list[np.ndarray], list[Candidate]]:
    """What ``keep_pending`` kept."""
    folder = Path(folder)
    try:
        rows = json.loads((folder / "found.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise DeckError(f"{folder}: no cards found waiting ({exc})") from None
    found = []
    for k, r in enumerate(rows):
        face = cv2.imread(str(folder / f"face-{k}.png"))
        if face is None:
            raise DeckError(f"{folder}: face-{k}.png cannot be read")
        read = r.get("read")  # none kept before 2026-12-07
        found.append(Candidate(int(r["frame"]), np.float32(r["box"]), np.float32(r["quad"]),
                               face, r["proposed"], float(r["probability"]),
                               None if read is None else np.float32(read)))  # fmt: skip
    return read_frames(folder), found


def read_deck(folder: Path, name: str, meta: dict) -> LearnedDeck:
    """The deck kept in ``folder`` (its ``deck.json`` read: ``meta``), or one line saying why it
    cannot be read."""
    if meta.get("format") in OLD_FORMATS:
        raise DeckError(
            f"deck {name!r}: learnt by an older Hakam ({meta['format']}); learn it again "
            f"(`hakam deck learn --again --name {name}`)"
        )
    if meta.get("format") != DECK_FORMAT:
        raise DeckError(f"deck {name!r}: not a {DECK_FORMAT} deck ({meta.get('format')})")
    calibration = None
    try:
        networks = meta.get("networks") or {}
        if not (isinstance(networks, dict)
                and all(isinstance(v, str) for v in [*networks, *networks.values()])):  # fmt: skip
            raise ValueError(f"networks {networks!r}: not fingerprints by network")
        samples, scenes = meta.get("samples", 0), meta.get("scenes", 0)
        for key, value in (("samples", samples), ("scenes", scenes)):
            if not isinstance(value, int):
                raise ValueError(f"{key} {value!r}: not a whole number")
        tail = IndexTail.from_arrays(_arrays(folder, "index.npz"))
        if "reader" in networks:  # learnt with the whole-card reader's calibration
            calibration = Calibration.from_arrays(_arrays(folder, "calibration.npz"))
            if len(calibration.bias) != READER_CLASSES:
                raise ValueError(f"a calibration of {len(calibration.bias)} classes")
    except (OSError, KeyError, ValueError, TypeError, EOFError,
            zipfile.BadZipFile) as exc:  # fmt: skip
        raise DeckError(f"deck {name!r}: cannot be read ({exc})") from None
    return LearnedDeck(name, tail, dict(networks), str(meta.get("learnt_at", "")), samples,
                       calibration, scenes)  # fmt: skip


ARRAYS_BYTES = 64 << 20  # the most a deck's arrays file may unpack to (index.npz: ~4.4 MB)


def _arrays(folder: Path, member: str) -> dict[str, np.ndarray]:
    """A deck's arrays file (``np.savez``); ValueError: missing, damaged or larger than a
    deck's (its arrays' sizes read from their headers before any is loaded), never numpy's
    own advice."""
    path = folder / member
    if not path.is_file():
        raise ValueError(f"{member} is missing")
    try:
        with zipfile.ZipFile(path) as z:
            infos = z.infolist()
            if sum(i.file_size for i in infos) > ARRAYS_BYTES:
                raise ValueError(f"over {ARRAYS_BYTES >> 20} MB unpacked")
            arrays = {}
            for info in infos:
                with z.open(info) as f:
                    version = np.lib.format.read_magic(f)
                    read = (np.lib.format.read_array_header_1_0 if version == (1, 0)
                            else np.lib.format.read_array_header_2_0)  # fmt: skip
                    shape, _, dtype = read(f)
                if dtype.hasobject or math.prod(shape) * dtype.itemsize > info.file_size:
                    raise ValueError("an array larger than its file")
                with z.open(info) as f:
                    arrays[info.filename.removesuffix(".npy")] = np.lib.format.read_array(f)
            return arrays
    except (OSError, ValueError, TypeError, EOFError, MemoryError, zipfile.BadZipFile) as exc:
        raise ValueError(f"{member} is damaged ({str(exc)[:60] or type(exc).__name__})") from None
