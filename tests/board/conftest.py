"""A Mosquitto broker of the test's own on 127.0.0.1, skipped where it is not installed."""

from __future__ import annotations

import pytest

from hakam.board.localbroker import LocalBroker, mosquitto


@pytest.fixture
def broker(tmp_path):
    pytest.importorskip("paho.mqtt")
    if mosquitto() is None:
        pytest.skip("mosquitto is not installed (board/install_debian.sh)")
    with LocalBroker(tmp_path / "broker") as local:
        yield local
