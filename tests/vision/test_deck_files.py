"""A learnt deck carried to other machines in one file (``hakam deck export`` / ``import``):
a tournament's tables learn its deck once."""

from __future__ import annotations

import io
import json
import os
import shutil
import struct
import zipfile
import zlib

import numpy as np
import pytest

from hakam.cli import main
from hakam.engine.cards import CARD_NAMES
from hakam.vision import deck_files, deck_store, decks, fine_tune
from hakam.vision.calibration import Calibration
from hakam.vision.deck_files import export_deck, import_deck
from hakam.vision.detector import make_detector
from hakam.vision.reader import READER_CLASSES


@pytest.fixture(scope="module")
def networks():
    return decks.networks_of(make_detector("openvino"))


def _deck(name: str, networks: dict) -> decks.LearnedDeck:
    tail = fine_tune.IndexTail.from_model(decks.index_onnx(make_detector().corners.index.path))
    rng = np.random.default_rng(7)
    calibration = Calibration(rng.normal(size=(READER_CLASSES, READER_CLASSES)).astype(np.float32),
                              np.zeros(READER_CLASSES, np.float32))  # fmt: skip
    return decks.LearnedDeck(name, tail, networks, "2026-12-07T18:00:00", 1234, calibration)


def _faces() -> dict[str, np.ndarray]:
    return {c: np.full((decks.FACE_H, decks.FACE_W, 3), k, np.uint8) for k, c in
            enumerate(CARD_NAMES)}  # fmt: skip


def _rewritten(src, dst, drop=(), add=None, meta: dict | None = {}) -> None:  # noqa: B006
    """``src``'s deck file written to ``dst`` without the members ``drop``, with ``add``
    (member: bytes) and its deck.json's fields changed by ``meta``."""
    with zipfile.ZipFile(src) as z, zipfile.ZipFile(dst, "w") as out:
        for info in z.infolist():
            data = z.read(info)
            if info.filename in drop:
                continue
            if info.filename == "deck.json" and meta is None:
                data = b"null"
            elif info.filename == "deck.json" and meta:
                data = json.dumps({**json.loads(data), **meta}).encode()
            out.writestr(info.filename, data)
        for member, data in (add or {}).items():
            out.writestr(member, data)


def _png_header(w: int, h: int) -> bytes:
    """The start of a PNG of ``w`` x ``h`` pixels: its signature and header, no image."""
    ihdr = b"IHDR" + struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + ihdr + struct.pack(">I", zlib.crc32(ihdr))


def _npz_bomb(claimed: tuple[int, ...] | None = None) -> bytes:
    """An ``index.npz`` that would take far more memory than its file: 80 MB of zeros
    deflated to a few hundred KB, or (``claimed``) an array whose header claims that shape."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        if claimed is None:
            z.writestr("fw.npy", bytes(80 << 20))
        else:
            head = io.BytesIO()
            np.lib.format.write_array_header_1_0(
                head, {"descr": "<f4", "fortran_order": False, "shape": claimed}
            )
            z.writestr("fw.npy", head.getvalue() + bytes(64))
    return out.getvalue()


def _left(store: deck_store.DeckStore) -> list[str]:
    return sorted(p.name for p in store.root.iterdir()) if store.root.is_dir() else []


def test_a_deck_written_to_a_file_is_kept_elsewhere_as_it_was(networks, tmp_path):
    here = deck_store.DeckStore(tmp_path / "here")
    there = deck_store.DeckStore(tmp_path / "there")
    frame = np.full((72, 128, 3), 90, np.uint8)
    here.save(_deck("majlis", networks), _faces(), [frame])
    path = export_deck(here, "majlis", tmp_path / "majlis.zip")
    before = path.read_bytes()
    with pytest.raises(decks.DeckError, match="exists already; nothing written"):
        export_deck(here, "majlis", path)  # a file is never written over
    assert path.read_bytes() == before and _left(here) == ["majlis"]
    with pytest.raises(decks.DeckError, match="not learnt here"):
        export_deck(here, "diwan", tmp_path / "diwan.zip")
    assert not (tmp_path / "diwan.zip").exists()

    assert import_deck(there, path) == "majlis"
    a, b = here.load("majlis"), there.load("majlis")
    assert all(np.array_equal(x, y) for x, y in zip(a.tail.params(), b.tail.params(), strict=True))
    assert np.array_equal(a.calibration.weights, b.calibration.weights)
    assert (a.networks, a.learnt_at, a.samples) == (b.networks, b.learnt_at, b.samples)
    assert all(np.array_equal(there.faces("majlis")[c], f) for c, f in _faces().items())
    assert np.array_equal(there.frames("majlis")[0], frame)
    # A name taken is refused unless replaced; another name keeps a second deck.
    with pytest.raises(decks.DeckError, match=r"'majlis': learnt here already; nothing imported"):
        import_deck(there, path)
    assert import_deck(there, path, replace=True) == "majlis"
    (there.waiting_folder("salon")).mkdir(parents=True)  # cards found, answers not given
    with pytest.raises(decks.DeckError, match="'salon': cards found wait for answers under"):
        import_deck(there, path, "salon")
    shutil.rmtree(there.waiting_folder("salon").parent)  # dropped: the name is free again
    assert import_deck(there, path, "diwan") == "diwan"
    assert there.names() == ["diwan", "majlis"] and there.load("diwan").name == "diwan"
    assert json.loads((there.root / "diwan" / "deck.json").read_text())["name"] == "diwan"
    assert _left(there) == ["diwan", "majlis"]  # nothing left half-written


@pytest.mark.parametrize(
    ("change", "said"),
    [
        ({"add": {"../../evil.sh": b"rm -rf ~"}}, "holds '../../evil.sh', which no deck has"),
        ({"add": {"notes.txt": b"hi"}}, "holds 'notes.txt', which no deck has"),
        (
            {"drop": ["faces/JH.png"]},
            r"the 32 Baloot cards once each: missing JH; nothing imported$",
        ),
        ({"drop": ["deck.json"]}, "not a deck file"),
        ({"drop": ["index.npz"]}, r"cannot be read \(index.npz is missing\); nothing imported$"),
        ({"drop": ["calibration.npz"]}, r"cannot be read \(calibration.npz is missing\)"),
        (
            {"drop": ["index.npz"], "add": {"index.npz": _npz_bomb()}},
            r"cannot be read \(index.npz is damaged \(over 64 MB unpacked\)\)",
        ),
        (
            {"drop": ["index.npz"], "add": {"index.npz": _npz_bomb((10**12,))}},
            r"index.npz is damaged \(an array larger than its file\)",
        ),
        (
            {"drop": ["index.npz"], "add": {"index.npz": b"\x93NUMPY not arrays"}},
            r"cannot be read \(index.npz is damaged \(.+\)\); nothing imported$",
        ),
        ({"add": {"faces/2H.png": b"x"}}, "holds 'faces/2H.png'"),
        ({"add": {"frame-0.png": b"x"}}, "frame-0.png is not a PNG image"),
        (
            {"add": {"frame-0.png": _png_header(640, 480)}, "meta": {"frames": 1}},
            "frame-0.png cannot be read; nothing imported$",
        ),
        ({"meta": {"frames": 1}}, "it holds 0 frames where its deck.json says 1"),
        ({"meta": {"format": "hakam-deck/9"}}, r"not a hakam-deck/2 deck \(hakam-deck/9\)"),
        ({"meta": {"name": "../x"}}, "deck name ../x: 1 to 40"),
        ({"meta": {"name": None}}, "deck.json: name None is not a text"),
        ({"meta": {"name": ""}}, "its deck.json names no deck; nothing imported \\(give --name\\)"),
        ({"meta": {"networks": [["outline", "0"]]}}, "networks .* is not a table"),
        ({"meta": {"networks": {"outline": 5}}}, "networks .*: not fingerprints by network"),
        ({"meta": {"samples": "abc"}}, "samples 'abc' is not a whole number"),
        ({"meta": {"cards": CARD_NAMES[:31]}}, "its cards are not the 32 Baloot cards once each"),
        ({"meta": None}, "deck.json is not an object"),
        # A PNG's size is read from its header before anything is decoded.
        (
            {"drop": ["faces/JH.png"], "add": {"faces/JH.png": _png_header(20000, 20000)}},
            "faces/JH.png is 20000x20000, not a face's 252x352",
        ),
        (
            {"add": {"frame-0.png": _png_header(20000, 20000)}, "meta": {"frames": 1}},
            "frame-0.png is 20000x20000, larger than 3840x2160",
        ),
    ],
)
def test_a_file_that_is_not_a_whole_deck_is_refused_and_changes_nothing(
    networks, tmp_path, change, said
):
    here = deck_store.DeckStore(tmp_path / "here")
    there = deck_store.DeckStore(tmp_path / "there")
    here.save(_deck("majlis", networks), _faces())
    there.save(_deck("diwan", networks), _faces())
    path = export_deck(here, "majlis", tmp_path / "majlis.zip")
    bad = tmp_path / "bad.zip"
    _rewritten(path, bad, **change)
    with pytest.raises(decks.DeckError, match=said):
        import_deck(there, bad)
    assert _left(there) == ["diwan"] and not (tmp_path / "evil.sh").exists()
    with pytest.raises(decks.DeckError, match=r"missing\.zip: no such file; nothing imported"):
        import_deck(there, tmp_path / "missing.zip")
    (tmp_path / "text.zip").write_text("not a zip")
    with pytest.raises(decks.DeckError, match=r"text.zip: not a deck file .*nothing imported"):
        import_deck(there, tmp_path / "text.zip")
    assert _left(there) == ["diwan"]


def test_the_commands_say_how_an_imported_deck_reads_here(networks, tmp_path, monkeypatch, capsys):
    """Learnt with these networks it reads as learnt; with other corner networks it is kept, to
    be learnt again from its faces."""
    monkeypatch.setenv("HAKAM_DATA_DIR", str(tmp_path / "data"))
    other = deck_store.DeckStore(tmp_path / "elsewhere")
    other.save(_deck("majlis", networks), _faces())
    other.save(_deck("diwan", {**networks, "outline": "0"}), _faces())
    for name in ("majlis", "diwan"):
        export_deck(other, name, tmp_path / f"{name}.zip")
    assert main(["deck", "import", str(tmp_path / "majlis.zip")]) == 0
    assert capsys.readouterr().out == (
        "deck majlis: imported, learnt 2026-12-07T18:00:00; reads as it was learnt\n"
    )
    assert main(["deck", "import", str(tmp_path / "diwan.zip")]) == 0
    assert "learn it again here from its faces (hakam deck learn --again --name diwan" in (
        capsys.readouterr().out)  # fmt: skip
    assert main(["deck", "import", str(tmp_path / "diwan.zip")]) == 2
    assert "learnt here already; nothing imported" in capsys.readouterr().err
    assert main(["deck", "export", "majlis", str(tmp_path / "again.zip")]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"deck majlis: written to {tmp_path / 'again.zip'} (") and out.endswith(
        f"on another machine: hakam deck import {tmp_path / 'again.zip'}\n")  # fmt: skip
    assert main(["deck", "export", "majlis", str(tmp_path / "again.zip")]) == 2
    assert "exists already; nothing written" in capsys.readouterr().err
    # Learnt on these networks, its layers must fit them: else refused, nothing kept.
    tail = _deck("cut", networks).tail
    cut = fine_tune.IndexTail(tail.w, tail.b, tail.fw[:8], tail.fb[:8])  # 8 classes, not 33
    other.save(decks.LearnedDeck("cut", cut, networks), _faces())
    export_deck(other, "cut", tmp_path / "cut.zip")
    assert main(["deck", "import", str(tmp_path / "cut.zip")]) == 2
    assert "its index.npz has other shapes" in capsys.readouterr().err
    assert not (tmp_path / "data" / "decks" / "cut").exists()
    # The networks here not found (no models): nothing is claimed; the list goes by deck.json.
    from hakam.cli import deck as deck_cli

    monkeypatch.setattr(deck_cli, "_shipped_networks", dict)
    assert main(["deck", "import", str(tmp_path / "majlis.zip"), "--name", "salon"]) == 0
    assert capsys.readouterr().out.endswith("not checked against the networks here (not found)\n")
    assert main(["deck", "list"]) == 0
    assert all(line.endswith("corner samples") for line in capsys.readouterr().out.splitlines())


def test_an_export_holds_only_a_readable_decks_own_files(networks, tmp_path, monkeypatch):
    """The same deck gives the same file (whatever its files' times, before 1980 too); a
    stray file in its folder stays behind; an older or damaged deck, or a folder that is not
    there, is refused in one line with nothing written."""
    here = deck_store.DeckStore(tmp_path / "here")
    here.save(_deck("majlis", networks), _faces(), [np.full((72, 128, 3), 90, np.uint8)])
    (here.root / "majlis" / ".DS_Store").write_bytes(b"finder")
    os.utime(here.root / "majlis" / "index.npz", (86400, 86400))  # 1970-01-02
    first = export_deck(here, "majlis", tmp_path / "a.zip")
    again = export_deck(here, "majlis", tmp_path / "b.zip")
    assert first.read_bytes() == again.read_bytes()
    with zipfile.ZipFile(first) as z:
        assert ".DS_Store" not in z.namelist() and "frame-0.png" in z.namelist()

    def no_links(src, dst):  # a FAT USB stick
        raise PermissionError(1, "Operation not permitted")

    with monkeypatch.context() as m:
        m.setattr(deck_files.os, "link", no_links)
        assert export_deck(here, "majlis", tmp_path / "fat.zip").read_bytes() == first.read_bytes()
        with pytest.raises(decks.DeckError, match="exists already; nothing written"):
            export_deck(here, "majlis", tmp_path / "fat.zip")
    (tmp_path / "fat.zip").unlink()
    with pytest.raises(decks.DeckError, match="-: a deck is written to a file; give the file"):
        export_deck(here, "majlis", "-")
    with pytest.raises(decks.DeckError, match="no such folder; nothing written"):
        export_deck(here, "majlis", tmp_path / "nowhere" / "c.zip")
    meta = json.loads((here.root / "majlis" / "deck.json").read_text())
    (here.root / "majlis" / "deck.json").write_text(json.dumps({**meta, "format": "hakam-deck/1"}))
    with pytest.raises(decks.DeckError, match=r"older Hakam; learn it again first .*nothing writ"):
        export_deck(here, "majlis", tmp_path / "c.zip")
    (here.root / "majlis" / "deck.json").write_text(json.dumps(meta))
    (here.root / "majlis" / "index.npz").write_bytes(b"not arrays")
    with pytest.raises(decks.DeckError, match="deck 'majlis': cannot be read"):
        export_deck(here, "majlis", tmp_path / "c.zip")
    assert sorted(p.name for p in tmp_path.iterdir() if p.is_file()) == ["a.zip", "b.zip"]


def test_an_import_finishes_a_save_cut_short_before_it_looks_at_the_name(networks, tmp_path):
    """A save cut short here left the old deck aside (``.NAME.old``): it goes back in place
    first, so the name is seen taken and nothing is written over it."""
    here = deck_store.DeckStore(tmp_path / "here")
    there = deck_store.DeckStore(tmp_path / "there")
    here.save(_deck("majlis", networks), _faces())
    path = export_deck(here, "majlis", tmp_path / "majlis.zip")
    there.save(_deck("majlis", networks), _faces())
    (there.root / "majlis").rename(there.root / ".majlis.old")  # cut short between renames
    with pytest.raises(decks.DeckError, match="learnt here already; nothing imported"):
        import_deck(there, path)
    assert _left(there) == ["majlis"] and there.load("majlis").samples == 1234


def test_a_damaged_deck_is_listed_as_such_among_the_others(networks, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("HAKAM_DATA_DIR", str(tmp_path / "data"))
    store = deck_store.DeckStore(tmp_path / "data" / "decks")
    store.save(_deck("majlis", networks), _faces())
    store.save(_deck("diwan", networks), _faces())
    (store.root / "diwan" / "deck.json").write_text("{not json")
    assert main(["deck", "list"]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert listed[0].startswith("diwan  cannot be read (") and listed[1].startswith(
        "majlis  learnt"
    )
