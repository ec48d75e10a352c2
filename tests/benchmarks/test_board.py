"""``benchmarks/board.py`` small: a few tables, the broker restarted in the middle, and the
page still has every event once and every table's totals (the load run is in its README)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # ``python -m pytest`` from the root has it; ``pytest`` may not
    sys.path.insert(0, str(ROOT))

from benchmarks import board  # noqa: E402
from hakam.board.browser import chromium_driver  # noqa: E402
from hakam.board.localbroker import mosquitto  # noqa: E402


def test_a_small_hall_through_a_broker_restart_loses_nothing():
    pytest.importorskip("paho.mqtt")
    pytest.importorskip("selenium")
    if mosquitto() is None or chromium_driver() is None:
        pytest.skip("mosquitto or chromium-driver not installed (board/install_debian.sh)")
    report = board.run(tables=6, seconds=5, every=1.0, restart_at=2.0, down=0.5, quiet=True)
    assert report["events"] > 6 * 3 and report["seen"] == report["events"]
    assert report["lost"] == 0 and report["totals_wrong"] == 0 and report["acknowledged"]
    assert report["page_counted_twice"] == 0
    assert report["events_in_outage"] > 0  # some were made while the broker was away
    assert report["lag_p99_outside_outage"] < 1.0
