"""Outline passes of the corner reader, side by side on a tuning set's cards.

    .venv/bin/python benchmarks/outline.py --data runs/tune/val --passes 1 2 3

For every card of the set's scenes that the corner networks are trained to read (at least 40%
visible, or a strip whose index shows) and that the shipped finder boxes (overlap 0.3 or more),
the outline is drawn from the finder's box once, twice and three times
(``hakam.vision.corners.CornerReader.passes``), and each is scored against the scene's true corners:
the mean distance of the four corners as a share of the card's diagonal (a card turned by half
a turn is the same card, so the nearer of the two starts), and whether the card is named right
by its corners alone and by the product with the whole-card reader at the shipped weight (J/Q/K
apart from the others: the court cards are what unseen designs get wrong). Tuning data only:
the evaluation sets are refused.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hakam.engine.cards import CARD_NAMES
from hakam.training.corners import MIN_INDEX_SHOWN, MIN_VISIBLE, finder_match
from hakam.training.detector import check_not_eval_only
from hakam.vision.corners import CornerReader, corner_patches
from hakam.vision.detector import corner_paths, make_detector, shipped_settings
from hakam.vision.reader import card_crop, softmax, weighted_product


def corner_error(quad: np.ndarray, truth: np.ndarray) -> float:
    """Mean corner distance over the card's diagonal, from whichever start is nearer."""
    diag = float(np.linalg.norm(truth[2] - truth[0])) or 1.0
    a = np.linalg.norm(quad - truth, axis=1).mean()
    b = np.linalg.norm(quad[[2, 3, 0, 1]] - truth, axis=1).mean()
    return float(min(a, b)) / diag


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, required=True, help="a tuning split (images/, meta/)")
    ap.add_argument("--passes", type=int, nargs="+", default=[1, 2, 3])
    ap.add_argument("--limit", type=int, default=0, help="first N scenes only")
    args = ap.parse_args(argv)
    check_not_eval_only(args.data)
    if args.data.name == "holdout" or args.data.parent.name == "holdout":
        sys.exit("the hold-out deck designs are evaluation-only")
    images = sorted((args.data / "images").glob("*.jpg"))[: args.limit or None]
    if not images:
        sys.exit(f"{args.data}: no images/*.jpg")
    two = make_detector(stages=2)
    mix = float(shipped_settings().get("two_stage", {}).get("corners", 0.5))
    outline, index = corner_paths("openvino")
    readers = {p: CornerReader(outline, index, "openvino", passes=p) for p in args.passes}
    err = {p: [] for p in args.passes}
    right = {p: {"alone": [], "product": []} for p in args.passes}
    court, shown, secs = [], [], dict.fromkeys(args.passes, 0.0)
    t0 = time.time()
    for n, path in enumerate(images, 1):
        meta = json.loads((args.data / "meta" / f"{path.stem}.json").read_text())
        img = cv2.imread(str(path))
        found = two.boxes(img)
        boxes, truths, cards, vis = [], [], [], []
        for lb in meta["boxes"]:
            if lb["visible"] < MIN_VISIBLE and lb["index_visible"] < MIN_INDEX_SHOWN:
                continue
            corners = np.array(lb["corners"], np.float32)
            h, w = img.shape[:2]
            box = [*np.clip(corners.min(0), 0, [w, h]), *np.clip(corners.max(0), 0, [w, h])]
            theirs = finder_match(box, found)
            if theirs is None:
                continue
            boxes.append(theirs)
            truths.append(corners)
            cards.append(CARD_NAMES.index(lb["card"]))
            vis.append(lb["visible"])
        if boxes:
            boxes = np.array(boxes, np.float32)
            whole = two.reader.read([card_crop(img, b, two.reader.size) for b in boxes], 1)
            court += [CARD_NAMES[c][:-1] in ("J", "Q", "K") for c in cards]
            shown += vis
            for p, reader in readers.items():
                t = time.perf_counter()
                quads = reader.quads(img, boxes)
                patches = [corner_patches(img, q) for q in quads]
                alone = softmax(reader.index.logits(patches))
                secs[p] += time.perf_counter() - t
                both = weighted_product(whole, alone, mix)
                err[p] += [corner_error(q, t) for q, t in zip(quads, truths, strict=True)]
                right[p]["alone"] += list(alone.argmax(1) == cards)
                right[p]["product"] += list(both.argmax(1) == cards)
        if n % 50 == 0 or n == len(images):
            rate = n / (time.time() - t0)
            left = (len(images) - n) / rate
            print(f"[outline] {n}/{len(images)} scenes, {len(court)} cards, "
                  f"about {left:.0f} s left", file=sys.stderr, flush=True)  # fmt: skip
    court = np.array(court)
    first = args.passes[0]
    print(f"{len(court)} cards ({int(court.sum())} J/Q/K) in {len(images)} scenes of {args.data}; "
          f"corner weight {mix}")  # fmt: skip
    head = "passes | corner error median / p90 | corners alone J/Q/K / others | product J/Q/K / others | ms per scene"  # noqa: E501
    print(head)
    for p in args.passes:
        e = np.array(err[p])
        a, b = np.array(right[p]["alone"]), np.array(right[p]["product"])
        print(f"{p} | {np.median(e):.4f} / {np.percentile(e, 90):.4f} | "
              f"{a[court].mean():.3f} / {a[~court].mean():.3f} | "
              f"{b[court].mean():.3f} / {b[~court].mean():.3f} | "
              f"{1000 * secs[p] / len(images):.1f}")  # fmt: skip
    shown = np.array(shown)
    groups = {"0.8 or more visible": shown >= 0.8, "0.4-0.8": (shown >= 0.4) & (shown < 0.8),
              "strips (under 0.4)": shown < 0.4}  # fmt: skip
    print(
        "by the share of the card that shows: cards, then per pass median corner error, "
        "product right"
    )
    for name, g in groups.items():
        cells = [
            f"{np.median(np.array(err[p])[g]):.4f}, {np.array(right[p]['product'])[g].mean():.3f}"
            for p in args.passes
        ] if g.any() else []  # fmt: skip
        print(f"{name}: {int(g.sum())} | " + " | ".join(cells))
    for p in args.passes[1:]:
        ratio = np.median(err[p]) / np.median(err[first])
        print(f"median corner error, {p} passes / {first}: {ratio:.3f}; "
              f"time {secs[p] / max(secs[first], 1e-9):.2f}x")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
