"""Issue 50, point 1, under a real window manager: on an X screen of a laptop's or a netbook's
(1024x600) size with openbox, the window opened as ``hakam gui`` opens it keeps its frame (title
bar and all) within the screen through every tab, every New deal step and table mode, with every
button in sight (``hakam.gui.screen_check``). Skipped where xvfb-run or openbox is not installed
(``datasets/install_art.sh`` installs them)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

SIZES = [(1366, 768), (1280, 720), (1024, 600)]


@pytest.mark.skipif(
    not (shutil.which("xvfb-run") and shutil.which("openbox")), reason="no xvfb-run or openbox"
)
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_window_keeps_within_the_screen_under_openbox(tmp_path, size):
    env = {**os.environ, "QT_QPA_PLATFORM": "xcb", "HAKAM_DATA_DIR": str(tmp_path / "data")}
    check = f"{sys.executable} -m hakam.gui.screen_check --out {tmp_path}"
    run = subprocess.run(
        ["xvfb-run", "-a", "-s", f"-screen 0 {size[0]}x{size[1]}x24", "sh", "-c",
         f"openbox & sleep 1; {check}"],
        env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    if "Could not load the Qt platform plugin" in run.stderr:
        pytest.skip("Qt's xcb platform cannot load (its xcb libraries missing)")
    assert run.returncode == 0, run.stdout + run.stderr[-2000:]
    shots = sorted(tmp_path.glob(f"wm_{size[0]}x{size[1]}_*.png"))
    assert len(shots) >= 20, [p.name for p in shots]  # both languages, table mode
