"""The deck check's benchmarks: the back-end names that choose the decks compared, and the
rule replayed over scenes (``benchmarks/pipeline.py``, ``benchmarks/deck_choice.py``)."""

from __future__ import annotations

import numpy as np

from hakam.vision.reader import READER_CLASSES


def test_a_benchmark_backend_names_the_deck_and_the_decks_it_is_checked_against(monkeypatch):
    import benchmarks.pipeline as bench
    import hakam.cli.common as common

    asked = []
    monkeypatch.setattr(common, "with_deck", lambda det, deck, others: asked.append((deck, others)))
    monkeypatch.setattr(bench, "make_detector", lambda *a, **k: "generic")
    for deck in ("kennard", "kennard/arabic/paris", "/arabic/paris", "kennard/arabic,paris"):
        bench.make(f"openvino+reader:{deck}")
    assert asked == [("kennard", []), ("kennard", ["arabic", "paris"]),
                     (None, ["arabic", "paris"]), ("kennard", ["arabic", "paris"])]  # fmt: skip


def test_the_choice_replay_tells_the_reader_the_cards_read_like(capsys):
    from benchmarks.deck_choice import replay

    def rows(sure: bool) -> np.ndarray:  # two boxes, read surely as card 0 or not
        out = np.zeros((2, READER_CLASSES), np.float32)
        out[:, 0], out[:, 1] = (0.95, 0.05) if sure else (0.5, 0.5)
        return out

    # Deck x reads every box surely, the standard readers none: 30 scenes, 60 boxes.
    scene = {None: (rows(False), {"x": rows(True)}), "x": (rows(True), {None: rows(False)})}
    replay([scene] * 30, [None, "x"], orders=5)
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("  the standard readers chosen: told in 100% of orders (deck x 5)")
    assert "median 20 scenes" in out[0]  # 40 boxes against
    assert out[1].startswith("  deck x chosen: told in 0% of orders (-)")
