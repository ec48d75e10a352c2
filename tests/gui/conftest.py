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
