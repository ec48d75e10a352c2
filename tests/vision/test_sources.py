"""Frame sources: fixed-rate timestamps for files, one-line errors."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from hakam.vision.sources import (
    CAMERA_SIZE,
    ArraySource,
    Frame,
    FrameSource,
    ReconnectingCamera,
    SourceError,
    SourceNotice,
    open_source,
)


def _video(path, n=6, fps=10.0):
    w = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), fps, (64, 48))
    for i in range(n):
        w.write(np.full((48, 64, 3), 30 * i, np.uint8))
    w.release()


def test_video_frames_have_fixed_rate_timestamps(tmp_path):
    _video(tmp_path / "a.mp4")
    with open_source(str(tmp_path / "a.mp4")) as src:
        frames = list(src)
    assert [f.index for f in frames] == list(range(6))
    assert [f.time for f in frames] == [i / 10 for i in range(6)]
    with open_source(str(tmp_path / "a.mp4"), fps=4) as src:
        assert [f.time for f in src][-1] == 5 / 4


def test_folder_of_images_in_name_order(tmp_path):
    for name, v in (("b.png", 20), ("a.png", 10), ("c.jpg", 30)):
        cv2.imwrite(str(tmp_path / name), np.full((8, 8, 3), v, np.uint8))
    (tmp_path / "notes.txt").write_text("x")
    src = open_source(str(tmp_path), fps=5)
    frames = list(src)
    assert [int(f.image[0, 0, 0]) for f in frames][:2] == [10, 20]
    assert [f.time for f in frames] == [0, 0.2, 0.4]


def test_array_source():
    frames = list(ArraySource([np.zeros((4, 4, 3), np.uint8)] * 3, fps=30))
    assert [f.time for f in frames] == [0, 1 / 30, 2 / 30]


@pytest.mark.parametrize(
    "spec, why",
    [("missing.mp4", "no such file or folder"), ("", "empty"), ("empty_dir", "no images"),
     ("junk.mp4", "no frame could be decoded|cannot be opened"),
     ("97", "camera 97: cannot be opened")],
)  # fmt: skip
def test_open_failures_are_one_line(tmp_path, monkeypatch, spec, why):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "empty_dir").mkdir()
    (tmp_path / "junk.mp4").write_bytes(b"not a video")
    with pytest.raises(SourceError, match=why) as info:
        src = open_source(spec)
        list(src)
    assert "\n" not in str(info.value)


def test_each_source_says_its_frame_size(tmp_path):
    _video(tmp_path / "a.mp4")
    with open_source(str(tmp_path / "a.mp4")) as src:
        assert src.frame_size == (64, 48)
    (tmp_path / "f").mkdir()
    cv2.imwrite(str(tmp_path / "f" / "a.png"), np.zeros((30, 40, 3), np.uint8))
    assert open_source(str(tmp_path / "f")).frame_size == (40, 30)
    assert ArraySource([np.zeros((4, 6, 3), np.uint8)]).frame_size == (6, 4)


def test_a_camera_is_asked_for_the_frame_size_given(monkeypatch):
    asked = {}

    class FakeCapture:
        def __init__(self, index):
            self.props = {cv2.CAP_PROP_FRAME_WIDTH: 640, cv2.CAP_PROP_FRAME_HEIGHT: 480}

        def isOpened(self):
            return True

        def set(self, prop, value):
            asked[prop] = value
            self.props[prop] = value

        def get(self, prop):
            return self.props.get(prop, 0)

    monkeypatch.setattr(cv2, "VideoCapture", FakeCapture)
    src = open_source("0")
    assert (asked[cv2.CAP_PROP_FRAME_WIDTH], asked[cv2.CAP_PROP_FRAME_HEIGHT]) == CAMERA_SIZE
    assert src.frame_size == CAMERA_SIZE and "1280x720" in src.description
    asked.clear()
    assert open_source("0", camera_size=None).frame_size == (640, 480) and not asked


class _Camera(FrameSource):
    """A camera that delivers ``n`` frames, then is unplugged (``unplug``) or ends."""

    def __init__(self, n: int, unplug: bool) -> None:
        self.n, self.unplug, self.fps, self.frame_size = n, unplug, 15.0, (4, 3)
        self.description = "camera 0"

    def __iter__(self):
        for i in range(self.n):
            yield Frame(i, i / 15, np.full((3, 4, 3), i, np.uint8))
        if self.unplug:
            raise SourceError(f"camera 0: stopped delivering frames after {self.n}")


def test_an_unplugged_camera_is_said_waited_for_and_its_frames_go_on_when_back():
    from hakam.cli.table import frames_after

    tries = iter([SourceError("camera 0: cannot be opened"), _Camera(2, unplug=False)])

    def opener():
        got = next(tries)
        if isinstance(got, Exception):
            raise got  # still unplugged: tried again
        return got

    cam = ReconnectingCamera(opener, _Camera(3, unplug=True), retry_s=0.01)
    out = list(frames_after(cam, 99))  # a restarted run: numbered on from frame 99
    notices = [o for o in out if isinstance(o, SourceNotice)]
    assert [n.lost for n in notices] == [True, False]
    assert "stopped delivering frames after 3" in notices[0].text
    assert "the deal waits" in notices[0].text and "goes on" in notices[1].text
    frames = [o for o in out if isinstance(o, Frame)]
    assert [f.index for f in frames] == [100, 101, 102, 103, 104]
    assert [int(f.image[0, 0, 0]) for f in frames] == [0, 1, 2, 0, 1]
    assert isinstance(out[3], SourceNotice) and isinstance(out[4], SourceNotice)
