"""Scenes drawn with a deck's own faces, for learning it (``hakam.vision.decks.learning_samples``).

The scene generator's tricks, piles, fans, hands, light and blur (``hakam.datasets.generator``),
with the deck's straightened faces in place of the printed designs. Scene ``i`` is the same
wherever it is drawn (its own random stream), so ``drawn_scenes`` can draw them in other
processes while the learning process finds the cards in them, and in this one where there are
none or they cannot start: the same scenes either way.
"""

from __future__ import annotations

import multiprocessing
import os
import shutil
import signal
import tempfile
import threading
import warnings
from functools import partial
from pathlib import Path

import cv2
import numpy as np

from hakam.engine.cards import CARD_NAMES
from hakam.vision.corners import corner_patches

JITTERS = 1  # patches cut from each readable card's true corners, each moved anew (2: less precise)
PROCESSES = 2  # processes drawing the scenes while the learning process finds the cards in them

_CHILD: dict = {}  # a drawing process's faces, renderer and tables (``_start_child``)


def with_outline(face: np.ndarray) -> np.ndarray:
    """BGRA: the face with a card's rounded corners transparent (the scene renderer's edge)."""
    alpha = np.zeros(face.shape[:2], np.uint8)
    h, w = alpha.shape
    r = round(0.07 * w)
    cv2.rectangle(alpha, (r, 0), (w - 1 - r, h - 1), 255, -1)
    cv2.rectangle(alpha, (0, r), (w - 1, h - 1 - r), 255, -1)
    for cx, cy in ((r, r), (w - 1 - r, r), (r, h - 1 - r), (w - 1 - r, h - 1 - r)):
        cv2.circle(alpha, (cx, cy), r, 255, -1)
    return np.dstack([face, alpha])


def _state(faces: dict[str, np.ndarray], seed: int) -> dict:
    from hakam.datasets.scene import Renderer

    renderer = Renderer({name: with_outline(f) for name, f in faces.items()})
    return {"renderer": renderer, "faces": set(faces), "seed": seed, "textures": {}}


def _start_child(saved: str, seed: int) -> None:
    """A drawing process's start: the faces from their ``np.savez`` file; and its end when the
    learning process ends, however it ends (else it would wait on its results for ever). A
    learning process killed leaves its faces' folder behind: the drawing processes remove it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl+C is the learning process's to answer
    parent = multiprocessing.parent_process()
    if parent is not None:

        def end_with_parent() -> None:
            parent.join()
            shutil.rmtree(Path(saved).parent, ignore_errors=True)
            os._exit(1)

        threading.Thread(target=end_with_parent, daemon=True).start()
    with np.load(saved) as kept:
        _CHILD.update(_state({name: kept[name] for name in kept.files}, seed))


def draw_scene(i: int, state: dict | None = None):
    """Scene ``i`` drawn with the deck's faces (``state``; a drawing process's own by default):
    the frame, its labels, and ``JITTERS`` corner patches of each readable card there (its true
    corners moved a little, as the outline network errs) with their classes."""
    from hakam.datasets.generator import N_TEXTURES, _out_size, sample_scene
    from hakam.datasets.scene import jpeg
    from hakam.datasets.textures import make_texture
    from hakam.training.corners import jitter_quad, readable

    state = _CHILD if state is None else state
    seed, textures = state["seed"], state["textures"]
    rng = np.random.default_rng([seed, 5151, i])
    w, h = _out_size(rng, 640)
    _, cam, cards, occluders = sample_scene(rng, w, h)
    cards = [c for c in cards if c.name in state["faces"]]
    k = int(rng.integers(N_TEXTURES))
    if k not in textures:
        textures[k] = make_texture(seed * 1000 + 777 + k)[1]
    img, labels = state["renderer"].render(rng, cam, textures[k], cards, occluders)
    img = jpeg(img, int(rng.integers(35, 96)))
    taught = [lb for lb in labels if readable(lb)] * JITTERS
    patches = [corner_patches(img, jitter_quad(rng, lb.corners)) for lb in taught]
    return img, labels, patches, [CARD_NAMES.index(lb.card) for lb in taught]


def drawn_scenes(faces: dict[str, np.ndarray], seed: int, scenes: int, processes: int = PROCESSES):
    """``draw_scene`` of scenes 0 to ``scenes`` - 1, in order, drawn by ``processes`` others;
    in this one where there are none, or where they cannot start or stop (with a warning).
    Closing it (``contextlib.closing``) drops the scenes not yet drawn."""
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    done = 0
    if processes:
        try:
            with tempfile.TemporaryDirectory(prefix="hakam-deck-") as folder:
                # The faces go by file: a child that dies before it reads a large start-up
                # message leaves its parent writing it for ever.
                saved = str(Path(folder) / "faces.npz")
                np.savez(saved, **faces)
                # spawn, not fork: a forked child can inherit a locked OpenCV mutex and hang
                context = multiprocessing.get_context("spawn")
                pool = ProcessPoolExecutor(processes, context, _start_child, (saved, seed))
                try:
                    for scene in pool.map(draw_scene, range(scenes)):
                        yield scene
                        done += 1
                finally:
                    pool.shutdown(wait=False, cancel_futures=True)
        except (BrokenProcessPool, OSError) as exc:  # e.g. a script unguarded by __main__
            warnings.warn(f"drawing the deck's scenes in this process ({exc})", stacklevel=2)
    if done < scenes:
        yield from map(partial(draw_scene, state=_state(faces, seed)), range(done, scenes))
