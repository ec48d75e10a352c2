"""A learnt deck carried to other machines in one file (``hakam deck export`` / ``import``):
a tournament's tables learn its deck once."""

from __future__ import annotations

import json
import zipfile

import numpy as np
import pytest

from hakam.cli import main
from hakam.engine.cards import CARD_NAMES
from hakam.vision import deck_store, decks, fine_tune
from hakam.vision.calibration import Calibration
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


def _rewritten(src, dst, drop=(), add=None, meta=None) -> None:
    """``src``'s deck file written to ``dst`` without the members ``drop``, with ``add``
    (member: bytes) and its deck.json's fields changed by ``meta``."""
    with zipfile.ZipFile(src) as z, zipfile.ZipFile(dst, "w") as out:
        for info in z.infolist():
            data = z.read(info)
            if info.filename in drop:
                continue
            if info.filename == "deck.json" and meta:
                data = json.dumps({**json.loads(data), **meta}).encode()
            out.writestr(info.filename, data)
        for member, data in (add or {}).items():
            out.writestr(member, data)


def _left(store: deck_store.DeckStore) -> list[str]:
    return sorted(p.name for p in store.root.iterdir()) if store.root.is_dir() else []


def test_a_deck_written_to_a_file_is_kept_elsewhere_as_it_was(networks, tmp_path):
    here = deck_store.DeckStore(tmp_path / "here")
    there = deck_store.DeckStore(tmp_path / "there")
    frame = np.full((72, 128, 3), 90, np.uint8)
    here.save(_deck("majlis", networks), _faces(), [frame])
    path = here.export("majlis", tmp_path / "majlis.zip")
    before = path.read_bytes()
    with pytest.raises(decks.DeckError, match="exists already; nothing written"):
        here.export("majlis", path)  # a file is never written over
    assert path.read_bytes() == before and _left(here) == ["majlis"]
    with pytest.raises(decks.DeckError, match="not learnt here"):
        here.export("diwan", tmp_path / "diwan.zip")
    assert not (tmp_path / "diwan.zip").exists()

    assert there.import_(path) == "majlis"
    a, b = here.load("majlis"), there.load("majlis")
    assert all(np.array_equal(x, y) for x, y in zip(a.tail.params(), b.tail.params(), strict=True))
    assert np.array_equal(a.calibration.weights, b.calibration.weights)
    assert (a.networks, a.learnt_at, a.samples) == (b.networks, b.learnt_at, b.samples)
    assert all(np.array_equal(there.faces("majlis")[c], f) for c, f in _faces().items())
    assert np.array_equal(there.frames("majlis")[0], frame)
    # A name taken is refused unless replaced; another name keeps a second deck.
    with pytest.raises(decks.DeckError, match=r"'majlis': learnt here already; nothing imported"):
        there.import_(path)
    assert there.import_(path, replace=True) == "majlis"
    assert there.import_(path, "diwan") == "diwan"
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
        ({"drop": ["index.npz"]}, "cannot be read"),
        ({"drop": ["calibration.npz"]}, "cannot be read"),
        ({"add": {"faces/2H.png": b"x"}}, "holds 'faces/2H.png'"),
        ({"add": {"frame-0.png": b"x"}}, "a frame cannot be read"),
        ({"meta": {"format": "hakam-deck/9"}}, r"not a hakam-deck/2 deck \(hakam-deck/9\)"),
        ({"meta": {"name": "../x"}}, "deck name '../x'"),
    ],
)
def test_a_file_that_is_not_a_whole_deck_is_refused_and_changes_nothing(
    networks, tmp_path, change, said
):
    here = deck_store.DeckStore(tmp_path / "here")
    there = deck_store.DeckStore(tmp_path / "there")
    here.save(_deck("majlis", networks), _faces())
    there.save(_deck("diwan", networks), _faces())
    path = here.export("majlis", tmp_path / "majlis.zip")
    bad = tmp_path / "bad.zip"
    _rewritten(path, bad, **change)
    with pytest.raises(decks.DeckError, match=said):
        there.import_(bad)
    assert _left(there) == ["diwan"] and not (tmp_path / "evil.sh").exists()
    with pytest.raises(decks.DeckError, match="not a deck file"):
        there.import_(tmp_path / "missing.zip")
    (tmp_path / "text.zip").write_text("not a zip")
    with pytest.raises(decks.DeckError, match=r"text.zip: not a deck file .*nothing imported"):
        there.import_(tmp_path / "text.zip")
    assert _left(there) == ["diwan"]


def test_the_commands_say_how_an_imported_deck_reads_here(networks, tmp_path, monkeypatch, capsys):
    """Learnt with these networks it reads as learnt; with other corner networks it is kept, to
    be learnt again from its faces."""
    monkeypatch.setenv("HAKAM_DATA_DIR", str(tmp_path / "data"))
    other = deck_store.DeckStore(tmp_path / "elsewhere")
    other.save(_deck("majlis", networks), _faces())
    other.save(_deck("diwan", {**networks, "outline": "0"}), _faces())
    for name in ("majlis", "diwan"):
        other.export(name, tmp_path / f"{name}.zip")
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
