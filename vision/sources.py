"""Frame sources: a webcam, a video file, a folder of images, the built-in demo clip.

Files get timestamps from a fixed frame rate (``index / fps``), never from the wall clock, so a
run on a file gives the same events, byte for byte, every time. Every failure is a
``SourceError`` with a one-line message that the CLI prints as is.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

DATA_DIR = Path(__file__).with_name("data")
DEMO_CLIP = DATA_DIR / "demo.mp4"
DEMO_RECORD = DATA_DIR / "demo.deal.json"  # its truth: dealer and contract come from here
DEMO_LABELS = DATA_DIR / "demo.labels.json"  # renderer labels, for the oracle detector only
DEMO_CALIBRATION = DATA_DIR / "demo.toml"
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp")
DEFAULT_FPS = 15.0
# A webcam is asked for 1280x720 (it gives what it has nearest): the corner index of a card is
# read from the full-resolution frame, and at 640x480 a court card's suit sign (a spade or a club
# of one rank) is three or four pixels across. The finder scales every frame to 416 anyway: a
# 1280x720 video frame took 1.9 ms longer to decode and no longer to detect (README, "Speed").
CAMERA_SIZE = (1280, 720)


class SourceError(Exception):
    """A frame source that cannot be opened or stopped delivering frames (one line)."""


@dataclass
class Frame:
    """One frame: its index in the stream, its time in seconds, the BGR image."""

    index: int
    time: float
    image: np.ndarray


class FrameSource:
    """Iterate to get ``Frame``s; ``description`` says what it is, ``fps`` its frame rate."""

    description: str = ""
    fps: float = DEFAULT_FPS
    frame_size: tuple[int, int] | None = None  # (width, height) of its frames, when known

    def __iter__(self) -> Iterator[Frame]:
        raise NotImplementedError

    def close(self) -> None:
        """Release the device or file."""

    def __enter__(self) -> FrameSource:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class VideoSource(FrameSource):
    """A video file: frames at the file's nominal rate (or ``fps``), timestamps index / fps."""

    def __init__(self, path: str | Path, fps: float | None = None) -> None:
        self.path = Path(path)
        if not self.path.is_file():
            raise SourceError(f"video {self.path}: no such file")
        self.cap = cv2.VideoCapture(str(self.path))
        if not self.cap.isOpened():
            raise SourceError(f"video {self.path}: cannot be opened (not a video OpenCV reads)")
        nominal = self.cap.get(cv2.CAP_PROP_FPS) or 0.0
        self.fps = float(fps or (nominal if 1 <= nominal <= 240 else DEFAULT_FPS))
        self.frame_count = int(self.cap.get(cv2.CAP_PROP_FRAME_COUNT) or 0)
        self.frame_size = _capture_size(self.cap)
        self.description = f"video {self.path.name} ({self.fps:g} fps)"

    def __iter__(self) -> Iterator[Frame]:
        index = 0
        while True:
            ok, image = self.cap.read()
            if not ok or image is None:
                if index == 0:
                    raise SourceError(f"video {self.path}: no frame could be decoded")
                return
            yield Frame(index, index / self.fps, image)
            index += 1

    def close(self) -> None:
        self.cap.release()


class FolderSource(FrameSource):
    """A folder of images in name order, as frames at a fixed ``fps``."""

    def __init__(self, path: str | Path, fps: float | None = None) -> None:
        self.path = Path(path)
        self.files = sorted(p for p in self.path.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        if not self.files:
            raise SourceError(f"folder {self.path}: no images ({', '.join(IMAGE_SUFFIXES)}) in it")
        self.fps = float(fps or DEFAULT_FPS)
        first = cv2.imread(str(self.files[0]), cv2.IMREAD_COLOR)
        self.frame_size = None if first is None else (first.shape[1], first.shape[0])
        self.description = f"folder {self.path.name} ({len(self.files)} images, {self.fps:g} fps)"

    def __iter__(self) -> Iterator[Frame]:
        for index, p in enumerate(self.files):
            image = cv2.imread(str(p), cv2.IMREAD_COLOR)
            if image is None:
                raise SourceError(f"folder {self.path}: {p.name} is not a readable image")
            yield Frame(index, index / self.fps, image)


class CameraSource(FrameSource):
    """A webcam by index; timestamps are seconds since the first frame (live, not replayable).
    ``width`` and ``height``: the frame size to ask for (the camera may give another)."""

    def __init__(self, index: int, width: int | None = None, height: int | None = None) -> None:
        self.index = index
        self.cap = cv2.VideoCapture(index)
        if not self.cap.isOpened():
            self.cap.release()
            raise SourceError(f"camera {index}: cannot be opened (no such device or it is busy)")
        if width and height:
            self.cap.set(cv2.CAP_PROP_FRAME_WIDTH, width)
            self.cap.set(cv2.CAP_PROP_FRAME_HEIGHT, height)
        self.fps = float(self.cap.get(cv2.CAP_PROP_FPS) or DEFAULT_FPS)
        self.frame_size = _capture_size(self.cap)
        size = f" ({self.frame_size[0]}x{self.frame_size[1]})" if self.frame_size else ""
        self.description = f"camera {index}{size}"

    def __iter__(self) -> Iterator[Frame]:
        index = 0
        t0 = time.monotonic()
        while True:
            ok, image = self.cap.read()
            if not ok or image is None:
                raise SourceError(f"camera {self.index}: stopped delivering frames after {index}")
            yield Frame(index, time.monotonic() - t0, image)
            index += 1

    def close(self) -> None:
        self.cap.release()


@dataclass
class SourceNotice:
    """Said between frames by a source that lost its camera (``lost``) or got it back."""

    text: str
    lost: bool


class ReconnectingCamera(FrameSource):
    """A camera that may be unplugged mid-deal: when it stops delivering frames a
    ``SourceNotice`` says so, it is opened again every ``retry_s`` seconds, and when it is back
    (another notice) its frames go on with the numbering where it stopped. ``opener`` opens
    the camera (a ``CameraSource``); ``first`` is the one already open."""

    def __init__(
        self, opener: Callable[[], FrameSource], first: FrameSource, retry_s: float = 1.0
    ) -> None:
        self.opener, self.current, self.retry_s = opener, first, retry_s
        self.fps, self.frame_size = first.fps, first.frame_size
        self.description = first.description
        self.closed = False  # ``close``: stop waiting for the camera

    def __iter__(self) -> Iterator[Frame | SourceNotice]:
        index, t0 = 0, time.monotonic()
        while True:
            try:
                for f in self.current:
                    yield Frame(index, time.monotonic() - t0, f.image)
                    index += 1
                return
            except SourceError as exc:
                self.current.close()
                yield SourceNotice(f"{exc}: the deal waits for the camera", True)
            while True:
                time.sleep(self.retry_s)
                if self.closed:
                    return
                try:
                    self.current = self.opener()
                    break
                except SourceError:
                    continue
            yield SourceNotice(f"{self.description}: back, the deal goes on", False)

    def close(self) -> None:
        self.closed = True
        self.current.close()


class ArraySource(FrameSource):
    """Frames already in memory (tests, benchmarks, the scripted deal renderer)."""

    def __init__(self, images: list[np.ndarray], fps: float = DEFAULT_FPS, name: str = "frames"):
        self.images = images
        self.fps = fps
        self.frame_size = (images[0].shape[1], images[0].shape[0]) if images else None
        self.description = f"{name} ({len(images)} frames, {fps:g} fps)"

    def __iter__(self) -> Iterator[Frame]:
        for index, image in enumerate(self.images):
            yield Frame(index, index / self.fps, image)


def demo_clip_available() -> bool:
    return DEMO_CLIP.is_file() and DEMO_RECORD.is_file()


def _capture_size(cap: cv2.VideoCapture) -> tuple[int, int] | None:
    w, h = int(cap.get(cv2.CAP_PROP_FRAME_WIDTH) or 0), int(cap.get(cv2.CAP_PROP_FRAME_HEIGHT) or 0)
    return (w, h) if w > 0 and h > 0 else None


def open_source(
    spec: str, fps: float | None = None, camera_size: tuple[int, int] | None = CAMERA_SIZE
) -> FrameSource:
    """``0``/``1``... a webcam (asked for ``camera_size``; None: its own default), a video file,
    a folder of images, or ``demo`` (the bundled clip)."""
    spec = spec.strip()
    if not spec:
        raise SourceError("--source: empty (give a camera index, a video, a folder or 'demo')")
    if spec == "demo":
        if not demo_clip_available():
            raise SourceError(f"demo clip {DEMO_CLIP}: not installed")
        return VideoSource(DEMO_CLIP, fps)
    if spec.isdigit():
        return CameraSource(int(spec), *(camera_size or (None, None)))
    path = Path(spec)
    if path.is_dir():
        return FolderSource(path, fps)
    if path.exists():
        return VideoSource(path, fps)
    raise SourceError(
        f"--source {spec}: no such file or folder "
        "(give a camera index, a video, a folder or 'demo')"
    )
