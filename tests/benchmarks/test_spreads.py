"""``benchmarks/spreads.py`` small: one spread searched with and without the closer look."""

from __future__ import annotations

import re

import pytest

from hakam.datasets import arabic_deck


@pytest.mark.skipif(not arabic_deck.available(arabic_deck.TUNING), reason="fonts-dejavu-core")
def test_a_spread_is_searched_both_ways(capsys, benchmark_script):
    bench = benchmark_script("spreads")
    assert bench.seeds_of("7,13-15") == [7, 13, 14, 15]
    assert bench.main(["--designs", "tuning", "--seeds", "7"]) == 0
    out = capsys.readouterr().out
    # Tuning spread 7: the frame and its tiles miss one card (QD); the closer look finds it.
    assert re.search(r"^tuning 7: found 31 -> 32, ", out, re.M)
    assert re.search(r"^\| frame and tiles \| 31 of 32 \| 1 \|", out, re.M)
    assert re.search(r"^\| and the closer look \| 32 of 32 \| 0 \|", out, re.M)
