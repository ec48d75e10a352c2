"""``benchmarks/proposals.py`` small: one spread's corrections, with and without the glyphs."""

from __future__ import annotations

import re

import pytest

from hakam.datasets import arabic_deck


@pytest.mark.skipif(not arabic_deck.available(arabic_deck.TUNING), reason="fonts-dejavu-core")
def test_a_spread_is_corrected_both_ways(capsys, benchmark_script):
    bench = benchmark_script("proposals")
    assert bench.seeds("7,13-15") == [7, 13, 14, 15]
    assert bench.main(["--designs", "tuning", "--seeds", "7"]) == 0
    out = capsys.readouterr().out
    # Tuning spread 7 (the choice set): 10 corrections from the generic reads with the pips
    # counted, 2 with the glyphs too (the finds held to their proposals, ``DeckAnswers.keep``).
    row = re.search(r"^\| tuning \| 1 \| 32 \| (\d+) / (\d+) \| (\d+) / (\d+) \(", out, re.M)
    assert row is not None, out
    assert [int(g) for g in row.groups()[2:]] == [10, 2]
