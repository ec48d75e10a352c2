"""``benchmarks/decks.py`` small: the tuning design learnt from its spread and scored both ways."""

from __future__ import annotations

import re

import pytest

from hakam.datasets import arabic_deck


@pytest.mark.skipif(not arabic_deck.available(arabic_deck.TUNING), reason="fonts-dejavu-core")
def test_the_tuning_design_is_learnt_and_scored_side_by_side(capsys, benchmark_script):
    bench = benchmark_script("decks")
    assert bench.main(["--design", "tuning", "--scenes", "30", "--tuning-scenes", "12"]) == 0
    out = capsys.readouterr().out
    rows = dict(re.findall(r"^\| (generic|deck) \| ([0-9.]+) \|", out, re.M))
    assert set(rows) == {"generic", "deck"}
    assert re.search(r"time a frame, deck / generic: [0-9.]+", out)
    assert re.search(r"^tuning: spread 1: \d+ found", out, re.M)
