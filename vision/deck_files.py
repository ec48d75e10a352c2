"""A learnt deck carried to another machine in one file (``hakam deck export``, ``hakam deck
import``): a tournament's tables learn its deck once.

The file is a zip of the deck's folder as kept (``hakam.vision.deck_store``) and nothing else.
An import trusts nothing in it: every member's name is one a deck has, a PNG's size is read
from its header before it is decoded (a face is a straightened face's size, a frame at most
``MAX_FRAME``), ``deck.json``'s fields have their types, and the deck must read as a deck,
with its 32 faces and every frame it names; else one line says why and nothing is kept.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import struct
import zipfile
import zlib
from collections.abc import Callable
from pathlib import Path

import cv2

from hakam.engine.cards import CARD_NAMES
from hakam.vision.deck_store import DeckStore, read_deck
from hakam.vision.decks import DECK_FORMAT, FACE_H, FACE_W, DeckError, LearnedDeck, check_name

# What a deck file may hold: a deck's folder as kept, nothing else.
DECK_MEMBER = re.compile(r"^(deck\.json|index\.npz|calibration\.npz|frame-[0-9]{1,4}\.png|"
                         r"faces/(?:" + "|".join(CARD_NAMES) + r")\.png)\Z")  # fmt: skip
DECK_FILE_BYTES = 256 << 20  # the most a deck file may unpack to (a deck is a few MB)
MAX_FRAME = (3840, 2160)  # the largest frame a deck file may hold (4K)
WHEN = (1980, 1, 1, 0, 0, 0)  # every member's time in the file: the same deck, the same file
PNG = b"\x89PNG\r\n\x1a\n"
# what reading a zip file's member may raise besides OSError
UNZIP_ERRORS = (zipfile.BadZipFile, zlib.error, EOFError, RuntimeError, KeyError, ValueError)


def export_deck(store: DeckStore, name: str, path: Path) -> Path:
    """The deck ``name`` kept in ``store``, in one zip file ``path`` (a new file)."""
    if str(path) == "-":
        raise DeckError("-: a deck is written to a file; give the file's name (a .zip)")
    path = Path(path)
    meta = store.describe(name)
    if meta.get("format") != DECK_FORMAT:
        raise DeckError(f"deck {name}: learnt by an older Hakam; learn it again first (hakam "
                        f"deck learn --again --name {name}); nothing written")  # fmt: skip
    store.load(name)  # one that cannot be read is not carried elsewhere
    if not path.parent.is_dir():
        raise DeckError(f"{path.parent}: no such folder; nothing written")
    if path.exists():
        raise DeckError(f"{path}: exists already; nothing written (give another file)")
    folder = store.root / name
    members = [p.relative_to(folder).as_posix() for p in sorted(folder.rglob("*")) if p.is_file()]
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as z:
            for member in filter(DECK_MEMBER.match, members):
                info = zipfile.ZipInfo(member, WHEN)
                info.compress_type = zipfile.ZIP_DEFLATED
                z.writestr(info, (folder / member).read_bytes())
        _place(tmp, path)
    except FileExistsError:
        raise DeckError(f"{path}: exists already; nothing written (give another file)") from None
    except OSError as exc:
        raise DeckError(f"{path}: cannot be written ({exc.strerror or exc})") from None
    finally:
        tmp.unlink(missing_ok=True)
    return path


def _place(tmp: Path, path: Path) -> None:
    """``tmp`` whole at ``path``, never over a file made meanwhile: linked, or copied where the
    disk has no links (a FAT or exFAT USB stick); a copy cut short is removed."""
    try:
        os.link(tmp, path)
        return
    except FileExistsError:
        raise
    except OSError:
        pass
    made = False
    try:
        with open(tmp, "rb") as src, open(path, "xb") as dst:
            made = True
            shutil.copyfileobj(src, dst)
    except BaseException:
        if made:
            path.unlink(missing_ok=True)
        raise


def import_deck(store: DeckStore, path: Path, name: str | None = None, replace: bool = False,
                fits: Callable[[LearnedDeck], None] | None = None) -> str:  # fmt: skip
    """The deck in the file ``path`` kept in ``store`` as ``name`` (None: its own name); its
    name. Refused in one line, nothing changed, where it is not a whole deck, ``fits`` refuses
    it (a ``DeckError``: its layers do not fit the networks here) or the name is taken (unless
    ``replace``). A deck learnt with other networks is kept too: its faces learn it again here
    (``hakam deck learn --again``)."""
    if not Path(path).is_file():
        raise DeckError(f"{path}: no such file; nothing imported")
    try:
        with zipfile.ZipFile(path) as z:
            meta, files = _deck_files(z)
    except (OSError, *UNZIP_ERRORS) as exc:
        raise DeckError(f"{path}: not a deck file ({exc}); nothing imported") from None
    if name is None and not meta.get("name"):
        raise DeckError(f"{path}: its deck.json names no deck; nothing imported (give --name)")
    name = check_name(name or meta["name"])
    store.settle(name)  # a save cut short here is finished first, not written over
    if (store.root / name / "deck.json").is_file() and not replace:
        raise DeckError(f"deck {name!r}: learnt here already; nothing imported (--replace, or "
                        f"--name ANOTHER)")  # fmt: skip
    if store.waiting_folder(name).is_dir():  # one name, one deck: the answers are not dropped
        raise DeckError(f"deck {name!r}: cards found wait for answers under this name; nothing "
                        f"imported (--name ANOTHER)")  # fmt: skip
    meta["name"] = name
    tmp = store.root / f".{name}.tmp"
    try:
        shutil.rmtree(tmp, ignore_errors=True)
        for member, data in files.items():
            (tmp / member).parent.mkdir(parents=True, exist_ok=True)
            (tmp / member).write_bytes(data)
        deck = read_deck(tmp, name, meta)
        if fits is not None:
            fits(deck)
        store.faces_in(tmp)
        for member in files:
            if member.startswith("frame-") and cv2.imread(str(tmp / member)) is None:
                raise DeckError(f"{member} cannot be read")
        (tmp / "deck.json").write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
    except BaseException as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        if isinstance(exc, DeckError):
            said = str(exc).removesuffix("; nothing saved")
            raise DeckError(f"{path}: {said}; nothing imported") from None
        if isinstance(exc, OSError):
            raise DeckError(f"{path}: cannot be kept in {store.root} "
                            f"({exc.strerror or exc}); nothing imported") from None  # fmt: skip
        raise
    store.put(tmp, name)
    return name


def _deck_files(z: zipfile.ZipFile) -> tuple[dict, dict[str, bytes]]:
    """A deck file's ``deck.json``, checked, and its other members (ValueError: why it is not
    a deck file)."""
    infos = [i for i in z.infolist() if not i.is_dir()]
    odd = sorted(i.filename for i in infos if not DECK_MEMBER.match(i.filename))
    if odd:
        raise ValueError(f"it holds {odd[0]!r}, which no deck has")
    if sum(i.file_size for i in infos) > DECK_FILE_BYTES:
        raise ValueError(f"it unpacks to more than {DECK_FILE_BYTES >> 20} MB")
    meta = json.loads(z.read("deck.json").decode("utf-8"))
    _check_meta(meta)
    files = {i.filename: z.read(i) for i in infos if i.filename != "deck.json"}
    frames = 0
    for member, data in files.items():
        if member.endswith(".png"):
            w, h = _png_size(member, data)
            if member.startswith("faces/") and (w, h) != (FACE_W, FACE_H):
                raise ValueError(f"{member} is {w}x{h}, not a face's {FACE_W}x{FACE_H}")
            if member.startswith("frame-"):
                frames += 1
                if w > MAX_FRAME[0] or h > MAX_FRAME[1]:
                    raise ValueError(f"{member} is {w}x{h}, larger than "
                                     f"{MAX_FRAME[0]}x{MAX_FRAME[1]}")  # fmt: skip
    if frames != meta.get("frames", 0):
        said = meta.get("frames", 0)
        raise ValueError(f"it holds {frames} frames where its deck.json says {said}")
    return meta, files


def _check_meta(meta) -> None:
    """``deck.json``'s fields have their types (ValueError: which has not)."""
    if not isinstance(meta, dict):
        raise ValueError("deck.json is not an object")
    for key, kind, said in (("name", str, "text"), ("format", str, "text"),
                            ("learnt_at", str, "text"), ("samples", int, "whole number"),
                            ("scenes", int, "whole number"),
                            ("frames", int, "whole number"), ("networks", dict, "table"),
                            ("cards", list, "list")):  # fmt: skip
        if key in meta and not isinstance(meta[key], kind):
            raise ValueError(f"deck.json: {key} {meta[key]!r} is not a {said}")
    if sorted(map(str, meta.get("cards", CARD_NAMES))) != sorted(CARD_NAMES):
        raise ValueError("deck.json: its cards are not the 32 Baloot cards once each")


def _png_size(member: str, data: bytes) -> tuple[int, int]:
    """A PNG's width and height from its header, before anything is decoded."""
    if data[:8] != PNG or data[12:16] != b"IHDR" or len(data) < 24:
        raise ValueError(f"{member} is not a PNG image")
    w, h = struct.unpack(">II", data[16:24])
    return int(w), int(h)
