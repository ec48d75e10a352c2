"""The warning sound: a short two-tone beep written as a WAV file at start.

QtMultimedia is not part of PySide6-Essentials; when it is installed the WAV is played with
QSoundEffect, else with the desktop's own player (PulseAudio, PipeWire or ALSA), else the platform
beep. None of them fails offscreen, where nothing is played.
"""

from __future__ import annotations

import math
import shutil
import struct
import subprocess
import tempfile
import wave
from pathlib import Path

from PySide6.QtCore import QObject, QUrl
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication

RATE = 22050
PLAYERS = ("paplay", "pw-play", "aplay", "afplay")


def write_alert_wav(path: Path, seconds: float = 0.45) -> Path:
    """Two rising tones (880 Hz then 1320 Hz) with a soft fade, 16-bit mono."""
    n = int(RATE * seconds)
    frames = bytearray()
    for i in range(n):
        freq = 880.0 if i < n // 2 else 1320.0
        fade = min(1.0, i / 400, (n - i) / 400)
        frames += struct.pack("<h", int(12000 * fade * math.sin(2 * math.pi * freq * i / RATE)))
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(RATE)
        w.writeframes(bytes(frames))
    return path


class AlertSound(QObject):
    """``play()`` once per proven violation; ``played`` counts them (the tests read it)."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.played = 0
        self._dir = tempfile.TemporaryDirectory(prefix="hakam-sound-")
        self.path = write_alert_wav(Path(self._dir.name) / "alert.wav")
        self._effect = None
        self.player: str | None = None
        try:
            from PySide6.QtMultimedia import QSoundEffect  # type: ignore[attr-defined]
        except ImportError:
            if QGuiApplication.platformName() != "offscreen":
                self.player = next((p for p in map(shutil.which, PLAYERS) if p), None)
            return
        self._effect = QSoundEffect(self)
        self._effect.setSource(QUrl.fromLocalFile(str(self.path)))

    def play(self) -> None:
        self.played += 1
        if self._effect is not None:
            self._effect.play()
        elif self.player is not None:
            subprocess.Popen(  # not waited for: the window must not freeze for a sound
                [self.player, str(self.path)], stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )  # fmt: skip
        else:
            QApplication.beep()
