"""``benchmarks/shown.py`` small: cards shown in turn at one place are lost when finds are joined
by place and name alone, and kept when the view must agree too; a filmed spread is joined alike."""

from __future__ import annotations

import re

import pytest

from hakam.datasets import arabic_deck


@pytest.mark.skipif(not arabic_deck.available(arabic_deck.TUNING), reason="fonts-dejavu-core")
def test_both_ways_are_scored_side_by_side(capsys, benchmark_script):
    bench = benchmark_script("shown")
    assert bench.main(["--designs", "tuning", "--cards", "8"]) == 0
    rows = re.findall(r"^\| tuning \| (.+?) \| (.+?) \| (\d+) \| (\d+) of (\d+) \| (.*) \|$",
                      capsys.readouterr().out, re.M)  # fmt: skip
    assert len(rows) == 4
    seen = {(what, way): (int(finds), int(got), int(of)) for what, way, finds, got, of, _ in rows}
    assert seen[("one at a time", "by place, name and view")][1:] == (8, 8)  # every card kept
    assert seen[("one at a time", "by place and name")][1] < 8  # cards proposed alike: lost
    # A spread filmed a while: joined as by place and name (not a find a frame).
    assert seen[("a spread in 3 frames", "by place, name and view")][1:] == (32, 32)
    assert seen[("a spread in 3 frames", "by place, name and view")][0] == (
        seen[("a spread in 3 frames", "by place and name")][0])  # fmt: skip
