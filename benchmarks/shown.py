"""Cards shown to ``hakam deck learn`` in several frames: one at a time at one place, or a spread
filmed a while. Both ways ``find_cards`` may join two finds side by side: by place and proposed
name (to 2026-12-07), and also only where the frames show the same there (``same_card``).

    .venv/bin/python benchmarks/shown.py                      # tuning, kde_oxygen
    .venv/bin/python benchmarks/shown.py --designs paris --cards 12

One at a time: each card laid at the same place (a few millimetres and degrees off) under one
camera, cloth and light, one frame each (1280x720). Filmed: a spread (``learning_spread`` seed 8)
in three frames, each shaken by about a pixel, with sensor noise, light and JPEG of its own.
Printed per design and way: finds (a person drops the extra ones), cards found among them, and
the cards lost (a card never found cannot be taught).
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.decks import design_images
from hakam.datasets.scene import Camera, CardPlacement, Renderer
from hakam.datasets.spread import labelled_names, learning_spread
from hakam.datasets.textures import make_texture
from hakam.engine.cards import CARD_NAMES
from hakam.vision import decks
from hakam.vision.detector import make_detector

WAYS = {
    "by place and name": lambda a, b, frames: (
        a.proposed == b.proposed and decks._iou(a.box, b.box) >= decks.MATCH_IOU
    ),
    "by place, name and view": decks.same_card,
}


def one_at_a_time(images: dict, cards: list[str], seed: int = 5):
    """One frame a card, each at the same place; and each frame's labels."""
    rng = np.random.default_rng(seed)
    w, h = 1280, 720
    focal = (w / 2) / math.tan(math.radians(60) / 2)
    cam = Camera(w, h, focal, 10.0, 0.0, focal * 88 / (0.45 * h), (0.0, 0.0))
    texture, renderer = make_texture(4242)[1], Renderer(images)
    frames, labels = [], []
    for name in cards:
        at = CardPlacement(name, float(rng.normal(0, 4)), float(rng.normal(0, 4)),
                           float(rng.normal(0, 5)), tag="spread")  # fmt: skip
        img, labs = renderer.render(rng, cam, texture, [at], [])
        frames.append(img)
        labels.append(labs)
    return frames, labels


def filmed(frame: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The frame again as a camera films it a moment later: shaken, noisier, lit a little
    otherwise, compressed."""
    shake = np.float32([[1, 0, rng.normal(0, 1)], [0, 1, rng.normal(0, 1)]])
    out = cv2.warpAffine(frame, shake, frame.shape[1::-1], borderMode=cv2.BORDER_REPLICATE)
    out = np.clip(out + rng.normal(0, 4, out.shape) + rng.normal(0, 6), 0, 255).astype(np.uint8)
    return cv2.imdecode(cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, 70])[1], 1)


def score(found, labels_of_frame) -> tuple[int, set[str]]:
    names = [labelled_names([c.box], labels_of_frame(c.frame), decks.MATCH_IOU)[0] for c in found]
    return len(found), {n for n in names if n}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--designs", default="tuning,kde_oxygen")
    ap.add_argument("--cards", type=int, default=32, help="the first N cards shown one at a time")
    args = ap.parse_args(argv)
    detector = make_detector()
    print("| design | shown | way | finds | cards found | lost |")
    print("|---|---|---|---|---|---|")
    for design in args.designs.split(","):
        images = design_images(design)
        cards = list(CARD_NAMES[: args.cards])
        frames, labels = one_at_a_time(images, cards)
        spread, spread_labels = learning_spread(images, 8)
        rng = np.random.default_rng(0)
        film = [spread, filmed(spread, rng), filmed(spread, rng)]
        for way, rule in WAYS.items():
            kept = decks.same_card
            decks.same_card = rule
            try:
                shown = [("one at a time", decks.find_cards(frames, detector), labels.__getitem__,
                          cards),
                         ("a spread in 3 frames", decks.find_cards(film, detector),
                          lambda k, s=spread_labels: s, CARD_NAMES)]  # fmt: skip
            finally:
                decks.same_card = kept
            for what, found, labels_of, wanted in shown:
                finds, got = score(found, labels_of)
                lost = " ".join(c for c in wanted if c not in got) or "none"
                print(f"| {design} | {what} | {way} | {finds} | {len(got)} of {len(wanted)} | "
                      f"{lost} |", flush=True)  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
