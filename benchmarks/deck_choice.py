"""Which reader do a design's cards read like? The deck check's rule on scenes (issue 51).

A table reads with the standard readers or with a deck learnt here; ``hakam.vision.deck_check``
tells it when the cards read more like another of them. This replays that rule on scenes of one
design: the finder's boxes of each scene are read as the check reads them
(``hakam.vision.reader.checked_reads``), with each reader chosen in turn: the shipped index
network and each deck named (``hakam deck list``); then, for each reader chosen, the scenes are
taken in ``--orders`` random orders and fed to ``DeckCheck`` as frames, every other reader
reading each one. Printed per reader chosen: the share of orders told, which reader each named, the
median scenes to the telling, and the boxes each other reader alone read surely against those
the chosen one alone did.

Choose on the tuning design (``--design tuning``: its scenes drawn here, Arabic indices) and on
training designs' val scenes (``hakam data synth --out DIR --n 300 --seed 4242 --val 1 --designs
ornamental,kde_oxygen,anglo_modern``, given as ``--data DIR/val``); a hold-out set is a look
after the choice, never a choice.

    python benchmarks/deck_choice.py --design tuning --decks tuning,arabic,paris,kennard
    python benchmarks/deck_choice.py --design ornamental --data /tmp/val4242/val --decks ...
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.decks import design_images, holdout_scenes, tuning_scenes
from hakam.cli.common import decks_root
from hakam.vision.deck_check import DeckCheck, reader_name
from hakam.vision.deck_store import DeckStore
from hakam.vision.detector import make_detector
from hakam.vision.reader import checked_reads


def read_scenes(scenes, decks: list[str], limit: int) -> tuple[list[dict], list]:
    """Each scene's boxes read as the check reads them (``checked_reads``), each reader as the
    one chosen in turn: for each reader chosen (None: the standard one, then ``decks``), its
    probabilities and every other reader's. Progress on stderr."""
    generic = make_detector("openvino", stages=2)
    store = DeckStore(decks_root())
    names = [None, *decks]
    readers = {None: generic.corners}
    readers |= {name: generic.with_deck(store.load(name)).corners for name in decks}
    out, t0 = [], time.monotonic()
    for k, (_, img, _, _) in enumerate(scenes):
        if k >= limit:
            break
        boxes = np.asarray(generic.boxes(img))
        if len(boxes):
            out.append({
                chosen: checked_reads(
                    readers[chosen], {o: readers[o] for o in names if o != chosen}, img, boxes
                )
                for chosen in names
            })  # fmt: skip
        if (k + 1) % 20 == 0:
            left = (time.monotonic() - t0) / (k + 1) * (limit - k - 1)
            print(f"  {k + 1} scenes read, about {left:.0f} s left", file=sys.stderr)
    return out, names


def replay(reads: list[dict], names: list, orders: int, seed: int = 0) -> None:
    """The check over ``orders`` random orders of the scenes, each reader chosen in turn."""
    rng = np.random.default_rng(seed)
    perms = [rng.permutation(len(reads)) for _ in range(orders)]
    for chosen in names:
        named: Counter = Counter()
        when = []
        totals = DeckCheck(chosen, names, least=10**9)  # counts only: never told
        for scene in reads:
            mine, theirs = scene[chosen]
            for other, probs in theirs.items():
                totals.update(mine, other, probs)
        for perm in perms:
            check = DeckCheck(chosen, names)
            for n, k in enumerate(perm):
                mine, theirs = reads[k][chosen]
                if any([check.update(mine, o, probs) for o, probs in theirs.items()]):
                    named[reader_name(check.like)] += 1
                    when.append(n + 1)
                    break
        share = 100 * sum(named.values()) / orders
        said = ", ".join(f"{who} {n}" for who, n in named.most_common()) or "-"
        median = f"{int(np.median(when))} scenes" if when else "-"
        against = "; ".join(
            f"{reader_name(o)} {totals.against[o]}/{totals.for_chosen[o]}" for o in totals.others
        )
        print(f"  {reader_name(chosen)} chosen: told in {share:.0f}% of orders ({said}), median "
              f"{median} | boxes only the other / only the chosen sure: {against}")  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--design", required=True, help="tuning, or a design of --data's scenes")
    ap.add_argument("--data", type=Path, help="a split folder (images/, labels/, meta/)")
    ap.add_argument("--decks", required=True, help="learnt decks, comma-separated")
    ap.add_argument("--scenes", type=int, default=200, help="at most this many scenes")
    ap.add_argument("--orders", type=int, default=300)
    args = ap.parse_args(argv)
    decks = [d for d in args.decks.split(",") if d]
    if args.design == "tuning":
        scenes = tuning_scenes(design_images("tuning"), args.scenes)
    elif args.data is None:
        ap.error("--data: the split folder holding the design's scenes")
    else:
        scenes = holdout_scenes(args.data, args.design)
    reads, names = read_scenes(scenes, decks, args.scenes)
    boxes = sum(len(scene[None][0]) for scene in reads)
    print(f"{args.design}: {len(reads)} scenes with cards, {boxes} boxes")
    replay(reads, names, args.orders)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
