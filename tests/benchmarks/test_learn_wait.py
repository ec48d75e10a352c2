"""``benchmarks/learn_wait.py`` small: a deck learnt while the person looks comes out the same."""

from __future__ import annotations

import re

import pytest

from hakam.datasets import arabic_deck


@pytest.mark.skipif(not arabic_deck.available(arabic_deck.TUNING), reason="fonts-dejavu-core")
def test_the_deck_learnt_ahead_is_the_deck_learnt_from_scratch(capsys, benchmark_script):
    bench = benchmark_script("learn_wait")
    assert bench.main(["--design", "tuning", "--scenes", "20", "--looks", "1,15"]) == 0
    out = capsys.readouterr().out
    rows = re.findall(r"^\| looked (\d+) s \| (.+?) \| ([0-9.]+) s \| [0-9.]+ \| (.+?) \|", out,
                      re.M)  # fmt: skip
    assert [r[0] for r in rows] == ["1", "15"]
    assert all(same.startswith("yes (weights within 0.0e+00)") for *_, same in rows), out
    assert rows[1][1].endswith("training") and float(rows[1][2]) < 1.0  # all done ahead
