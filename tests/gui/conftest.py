"""GUI tests run offscreen, with the match store in a temporary folder."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    """A fresh user data folder (HAKAM_DATA_DIR) and exports folder for each test."""
    path = tmp_path / "hakam-data"
    monkeypatch.setenv("HAKAM_DATA_DIR", str(path))
    monkeypatch.setenv("HAKAM_EXPORT_DIR", str(tmp_path / "exports"))
    return path


@pytest.fixture(autouse=True)
def _left_to_right_after():
    """A window in Arabic turns the whole application right to left (its own text's
    direction): the next test starts left to right, as a fresh ``hakam`` does."""
    yield
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    if isinstance(app, QApplication):
        app.setLayoutDirection(Qt.LayoutDirection.LeftToRight)
