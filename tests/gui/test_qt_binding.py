"""The Qt binding must keep Python's reference counts: PySide6 6.12.0 on Python 3.11 drops a
reference to None on every void call, and the window aborts after a few thousand paints."""

from __future__ import annotations

import sys

from PySide6.QtCore import QRectF
from PySide6.QtGui import QColor, QImage, QPainter


def test_void_calls_keep_the_refcount_of_none(qapp):
    image = QImage(64, 64, QImage.Format.Format_RGB32)
    painter = QPainter(image)
    rect = QRectF(0, 0, 8, 8)
    before = sys.getrefcount(None)
    for _ in range(2000):
        painter.fillRect(rect, QColor(0, 0, 0))
        rect.setWidth(8)
    painter.end()
    assert abs(sys.getrefcount(None) - before) < 100
