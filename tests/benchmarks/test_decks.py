"""``benchmarks/decks.py`` small: the tuning design learnt from its spread and scored both ways."""

from __future__ import annotations

import re

import pytest

from hakam.datasets import arabic_deck


def scores(out: str) -> list[tuple[str, str]]:
    """Each reading's row of the table: exact, precision, recall (not the milliseconds)."""
    rows = re.findall(r"^\| (generic|deck, reads as read|deck) \| ([0-9.| ]+) \|", out, re.M)
    return [(kind, cells.rsplit("|", 1)[0]) for kind, cells in rows]


@pytest.mark.skipif(not arabic_deck.available(arabic_deck.TUNING), reason="fonts-dejavu-core")
def test_the_tuning_design_is_learnt_and_scored_side_by_side(capsys, benchmark_script,
                                                              tmp_path, monkeypatch):  # fmt: skip
    monkeypatch.setenv("HAKAM_DATA_DIR", str(tmp_path))
    bench = benchmark_script("decks")
    args = ["--design", "tuning", "--tuning-scenes", "12"]
    assert bench.main([*args, "--scenes", "30", "--keep", "small"]) == 0
    out = capsys.readouterr().out
    rows = scores(out)
    assert [kind for kind, _ in rows] == ["generic", "deck, reads as read", "deck"]
    assert re.search(r"time a frame, deck / generic: [0-9.]+; deck / deck with the whole-card "
                     r"reader's reads as read: [0-9.]+", out)  # fmt: skip
    assert re.search(r"^tuning: spread 1: \d+ found", out, re.M)
    # The deck kept, scored again without learning it: the same reads.
    assert bench.main([*args, "--deck", "small"]) == 0
    again = capsys.readouterr().out
    assert "learnt in" not in again and "tuning: read with deck small, learnt" in again
    assert scores(again) == rows
