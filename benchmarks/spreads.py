"""Finding the 32 cards of a spread (``hakam deck learn``), with and without the closer look.

    .venv/bin/python benchmarks/spreads.py                       # every design, seeds 7 8 11 12
    .venv/bin/python benchmarks/spreads.py --designs paris --seeds 13-32

Each design's 32 cards laid out (``hakam.datasets.spread``, 1920x1080) are searched as
``hakam deck learn`` searches them (``hakam.vision.spread``): once by the first two
looks alone (the whole frame and its tiles) and once with the closer look. Printed per spread and
in all: cards found, boxes on no card (a person drops them), cards found twice (a person drops
one), and seconds. A box is on a card where its IoU with the card's label is 0.5 or more.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.decks import design_images
from hakam.datasets import art
from hakam.datasets.spread import labelled_names, learning_spread
from hakam.vision.decks import MATCH_IOU
from hakam.vision.detector import make_detector
from hakam.vision.spread import spread_boxes

EXTRA = ("arabic", "tuning")  # drawn designs beside the packaged art


def seeds_of(text: str) -> list[int]:
    out: list[int] = []
    for part in text.split(","):
        a, _, b = part.partition("-")
        out += range(int(a), int(b or a) + 1)
    return out


def count(boxes, labels) -> tuple[int, int, int]:
    """Cards found, boxes on no card, cards found more than once."""
    names = labelled_names(boxes, labels, MATCH_IOU)
    cards = [n for n in names if n]
    return len(set(cards)), names.count(None), len(cards) - len(set(cards))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--designs", help="comma-separated (default: every design and "
                    f"{', '.join(EXTRA)})")  # fmt: skip
    ap.add_argument("--seeds", default="7,8,11,12", help="spread seeds: 7,8 or 13-32")
    args = ap.parse_args(argv)
    designs = (args.designs.split(",") if args.designs
               else [d.name for d in art.available_decks()] + list(EXTRA))  # fmt: skip
    seeds = seeds_of(args.seeds)
    detector = make_detector()
    totals = {"first": [0, 0, 0, 0.0], "closer": [0, 0, 0, 0.0]}
    spreads, t0 = 0, time.perf_counter()
    for d, design in enumerate(designs):
        images = design_images(design)
        for seed in seeds:
            frame, labels = learning_spread(images, seed)
            row = {}
            for kind in totals:
                t = time.perf_counter()
                boxes = spread_boxes(frame, detector, closer=kind == "closer")
                took = time.perf_counter() - t
                row[kind] = (*count(boxes, labels), took)
                for i, v in enumerate(row[kind]):
                    totals[kind][i] += v
            spreads += 1
            f, c = row["first"], row["closer"]
            print(f"{design} {seed}: found {f[0]} -> {c[0]}, on no card {f[1]} -> {c[1]}, "
                  f"twice {f[2]} -> {c[2]}, {f[3]:.1f} -> {c[3]:.1f} s", flush=True)  # fmt: skip
        left = (time.perf_counter() - t0) / (d + 1) * (len(designs) - d - 1)
        print(f"[{d + 1}/{len(designs)} designs, about {left:.0f} s left]", flush=True)
    print(f"{spreads} spreads, {time.strftime('%Y-%m-%d')}")
    print("| looks | cards found | missed | boxes on no card | cards twice | s a spread |")
    print("|---|---|---|---|---|---|")
    for kind, (found, none, twice, took) in totals.items():
        name = "frame and tiles" if kind == "first" else "and the closer look"
        print(f"| {name} | {found} of {32 * spreads} | {32 * spreads - found} | {none} | "
              f"{twice} | {took / spreads:.1f} |")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
