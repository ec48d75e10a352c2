"""A learned deck against the generic readers, on a design the networks never saw (issue 51).

For each design: its 32 cards are laid out once (``hakam.datasets.spread``, 1920x1080, another
camera, light and cloth than the scenes scored), ``find_cards`` finds and straightens them, a
person's confirmation is played by the spread's labels (a find on no card is dropped), and
``learn_deck`` learns the deck (its own index network and its calibration of the whole-card
reader's reads). Then the design's scenes are read three times, side by side: by the generic
readers, by the same readers with the learned deck's index network but the whole-card reader's
reads as read (decks learnt before the calibration), and with the whole learned deck.
Printed: cards found in the spread, proposals right, learning time, and for each reading the
share of scenes read exactly, precision, recall, and milliseconds a frame (the reading alone),
with their ratio.

``--design tuning`` draws the tuning design (``hakam.datasets.arabic_deck.TUNING``) and 200 scenes
of it here: the constants of ``hakam.vision.decks`` are chosen on it. A hold-out design
(``kennard``, ``paris``, ``bellot``, ``arabic``) is scored on its scenes of a hold-out set
(``hakam data synth --out DIR --n 400 --seed 99 --val 0 --holdout 1``, and the same with
``--holdout-designs arabic``), given as ``--data DIR/holdout``; never tuned on.

    python benchmarks/decks.py --design tuning
    python benchmarks/decks.py --design kennard --data /tmp/ho400/holdout --keep kennard
    python benchmarks/decks.py --design kennard --data /tmp/ho400/holdout --deck kennard

``--deck NAME`` scores a deck kept here, learnt before, without learning it again (a change to how
a deck is read, on the same deck).
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hakam.cli.common import decks_root
from hakam.cli.deck import learning_progress
from hakam.datasets import arabic_deck, art
from hakam.datasets.spread import labelled_names, learning_spread
from hakam.engine.cards import CARD_NAMES
from hakam.training import evaluation as ev
from hakam.vision import decks
from hakam.vision.deck_store import DeckStore
from hakam.vision.detector import make_detector
from hakam.vision.reader import name_boxes

THRESHOLD = 0.25  # the shipped two-stage threshold (models/hakam-cards.json)
SPREAD_SEEDS = (7, 8)
TUNING_SCENES = 200  # scenes of the tuning design scored (``--tuning-scenes``)


def design_images(design: str) -> dict[str, np.ndarray]:
    if design == "tuning":
        names = (*art.ALL_FACE_NAMES, "BACK")
        return {n: arabic_deck.draw_card(n, arabic_deck.TUNING) for n in names}
    return art.load_deck_images(art.deck_by_name(design))


def tuning_scenes(images: dict[str, np.ndarray], count: int = TUNING_SCENES):
    from hakam.datasets.generator import N_TEXTURES, _out_size, sample_scene
    from hakam.datasets.scene import Renderer, jpeg
    from hakam.datasets.textures import make_texture

    renderer = Renderer(images)
    for i in range(count):
        rng = np.random.default_rng([9898, i])
        w, h = _out_size(rng, 640)
        _, cam, cards, occ = sample_scene(rng, w, h)
        img, labels = renderer.render(rng, cam, make_texture(9898 + i % N_TEXTURES)[1], cards, occ)
        truth = {CARD_NAMES.index(lb.card) for lb in labels}
        if truth:
            boxes = {CARD_NAMES.index(lb.card): np.asarray(lb.box) for lb in labels}
            yield f"tuning-{i}", jpeg(img, int(rng.integers(35, 96))), truth, boxes


def holdout_scenes(folder: Path, design: str):
    from hakam.datasets.inspect import scene_design

    files, cmap = ev.dataset_images(folder)
    for p in files:
        if scene_design(p) != design:
            continue
        img = cv2.imread(str(p))
        truth, boxes = ev.read_truth(folder / "labels" / (p.stem + ".txt"), cmap, *img.shape[1::-1])
        if truth:
            yield str(p), img, truth, boxes


def learnt(args: argparse.Namespace, generic, images: dict[str, np.ndarray]):
    """The design's deck learnt from its spread as ``hakam deck learn`` does (None: the spread's
    cards were not all found), kept as ``--keep``."""
    t0 = time.perf_counter()
    faces: dict[str, np.ndarray] = {}
    for look, seed in enumerate(SPREAD_SEEDS, 1):
        # A second look only where the first missed cards: the table lays those again.
        spread, labels = learning_spread(images, seed)
        found = decks.find_cards([spread], generic)
        answers = labelled_names([c.box for c in found], labels, decks.MATCH_IOU)
        right = sum(c.proposed == a for c, a in zip(found, answers, strict=True) if a)
        new = {a: c.face for c, a in zip(found, answers, strict=True) if a and a not in faces}
        print(f"{args.design}: spread {look}: {len(found)} found, {len(new)} new cards, "
              f"{right} proposals right", flush=True)  # fmt: skip
        faces.update(new)
        if len(faces) == 32:
            break
    if len(faces) < 32:
        print(f"{32 - len(faces)} cards never found: the deck cannot be learnt")
        return None
    deck = decks.learn_deck(args.design, faces, generic, args.scenes, args.seed,
                            progress=learning_progress())  # fmt: skip
    print(f"learnt in {time.perf_counter() - t0:.1f} s from {deck.samples} corner samples",
          flush=True)  # fmt: skip
    if args.keep:
        deck.name = args.keep
        print(f"kept in {DeckStore(decks_root()).save(deck, faces)} (replacing any deck of "
              f"that name)", flush=True)  # fmt: skip
    return deck


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--design", required=True)
    ap.add_argument("--data", type=Path, help="a hold-out split folder (images/, labels/, meta/)")
    ap.add_argument("--scenes", type=int, default=decks.LEARN_SCENES, help="learning scenes")
    ap.add_argument("--seed", type=int, default=0,
                    help="the learning scenes' seed (a deck is learnt from seed 0)")  # fmt: skip
    ap.add_argument("--keep", metavar="NAME",
                    help="keep the learnt deck as NAME here (hakam deck list)")  # fmt: skip
    ap.add_argument("--deck", metavar="NAME",
                    help="score the deck NAME kept here instead of learning one")  # fmt: skip
    ap.add_argument("--tuning-scenes", type=int, default=TUNING_SCENES,
                    help="tuning-design scenes scored")  # fmt: skip
    args = ap.parse_args(argv)
    if args.deck and args.keep:
        ap.error("--deck scores a deck kept here; --keep keeps one learnt: one or the other")
    if args.design != "tuning" and args.data is None:
        ap.error("--data: the hold-out scenes of a hold-out design")
    if args.keep and not decks.DECK_NAME.match(args.keep):
        ap.error(f"--keep {args.keep}: 1 to 40 letters, digits, '_', '.' or '-'")
    generic = make_detector()
    images = design_images(args.design)
    if args.deck:
        try:
            deck = DeckStore(decks_root()).load(args.deck)
            if deck.for_reader(generic) is not deck:  # its calibration of another reader
                ap.error(f"--deck {args.deck}: learnt with another whole-card reader; learn it "
                         f"again to score it")  # fmt: skip
        except decks.DeckError as exc:
            ap.error(str(exc))
        print(f"{args.design}: read with deck {args.deck}, learnt {deck.learnt_at}", flush=True)
    else:
        deck = learnt(args, generic, images)
        if deck is None:
            return 1
    with_deck = generic.with_deck(deck)
    uncalibrated = generic.with_deck(dataclasses.replace(deck, calibration=None))
    scenes = (tuning_scenes(images, args.tuning_scenes) if args.design == "tuning"
              else holdout_scenes(args.data, args.design))  # fmt: skip
    turns = [("generic", generic), ("deck, reads as read", uncalibrated), ("deck", with_deck)]
    results: dict[str, list] = {kind: [] for kind, _ in turns}
    spent = dict.fromkeys(results, 0.0)
    for k, (path, img, truth, boxes) in enumerate(scenes):
        for kind, det in turns[k % 3 :] + turns[: k % 3]:  # each reading first in turn
            t = time.perf_counter()
            found_boxes, probs = det.read(img)
            spent[kind] += time.perf_counter() - t
            d = name_boxes(found_boxes, probs, det.min_prob)
            results[kind].append(ev.ImageResult(path, truth, boxes, ev.pred_of(d), args.design))
    n = len(results["generic"])
    print(f"{args.design}: {n} scenes with cards, {time.strftime('%Y-%m-%d')}")
    print("| reading | exact | precision | recall | ms a frame |")
    print("|---|---|---|---|---|")
    for kind in results:
        s = ev.set_metrics(results[kind], THRESHOLD, True)
        print(f"| {kind} | {s['exact']:.3f} | {s['precision']:.3f} | {s['recall']:.3f} | "
              f"{1000 * spent[kind] / n:.1f} |")  # fmt: skip
    print(
        f"time a frame, deck / generic: {spent['deck'] / spent['generic']:.3f}; deck / deck "
        f"with the whole-card reader's reads as read: {spent['deck'] / spent[turns[1][0]]:.3f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
