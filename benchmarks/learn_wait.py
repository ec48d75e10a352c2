"""The wait after *Learn and save*: a deck learnt while the person looked at the cards found
(``hakam.vision.deck_ahead``) against the same deck learnt from scratch.

The design's spread is found and answered by its labels (as ``benchmarks/decks.py`` does), then
learnt once as ``hakam deck learn`` does, and once for each ``--looks`` seconds: the learning
started with the answers, the person looking that long, then *Learn and save* (what was done
ahead taken, the rest done). Printed for each: the seconds from the click to the deck learnt,
how far the learning had got before the click, the ratio to learning from scratch, whether
the deck's index network came out the same (the same scenes, the same training), and how late
a 20 ms tick of this thread (the window's, in the deck window) came while the person looked.

    python benchmarks/learn_wait.py --design tuning --looks 30,60,120
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from decks import design_images  # noqa: E402  (benchmarks/decks.py)

from hakam.datasets.spread import labelled_names, learning_spread  # noqa: E402
from hakam.engine.cards import CARD_NAMES  # noqa: E402
from hakam.vision import decks  # noqa: E402
from hakam.vision.deck_ahead import LearningAhead  # noqa: E402
from hakam.vision.detector import make_detector  # noqa: E402


def ticks(seconds: float) -> str:
    """How late a 20 ms sleep of this thread wakes, over ``seconds``: the 99th percentile and
    the most, in milliseconds (the window's thread waits so between its events)."""
    late, end = [], time.perf_counter() + seconds
    while time.perf_counter() < end:
        t = time.perf_counter()
        time.sleep(0.02)
        late.append((time.perf_counter() - t - 0.02) * 1000)
    return f"{np.percentile(late, 99):.1f} / {max(late):.1f} ms" if late else "—"


def learn(faces: dict, detector, scenes: int, samples=None) -> decks.LearnedDeck:
    return decks.learn_deck("wait", faces, detector, scenes, samples=samples)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--design", default="tuning")
    ap.add_argument("--looks", default="30,60,120", help="seconds looked, comma-separated")
    ap.add_argument("--scenes", type=int, default=decks.LEARN_SCENES)
    args = ap.parse_args(argv)
    detector = make_detector("openvino")
    spread, labels = learning_spread(design_images(args.design), 7)
    found = decks.find_cards([spread], detector)
    answers = labelled_names([c.box for c in found], labels, decks.MATCH_IOU)
    if sorted(a for a in answers if a) != sorted(CARD_NAMES):
        print(f"{args.design}: the spread's 32 cards were not found once each")
        return 1
    faces = {a: c.face for c, a in zip(found, answers, strict=True) if a}
    idle = ticks(10 if args.scenes >= 1000 else 1)
    t0 = time.perf_counter()
    alone = learn(faces, detector, args.scenes)
    base = time.perf_counter() - t0
    print(f"{args.design}: learnt from scratch in {base:.1f} s", flush=True)
    rows = [("from scratch", 0, base, "", True, 0.0, f"{idle} (idle)")]
    for look in (float(s) for s in args.looks.split(",")):
        ahead = LearningAhead.for_deck("wait", lambda k: found[k].face, detector, args.scenes)
        ahead.update(answers)  # the window opens: the answers complete, learnt with at once
        lag = ticks(look)
        before = f"{ahead.done} of {ahead.total} {ahead.stage}"
        t0 = time.perf_counter()  # the click
        taken = ahead.take(answers, lambda stage, k, n: None)
        if taken is not None and taken[0] == "deck":
            deck = taken[1]
        else:
            deck = learn(faces, detector, args.scenes, None if taken is None else taken[1])
        wait = time.perf_counter() - t0
        diff = max(float(np.abs(a - b).max()) for a, b in
                   zip(alone.tail.params(), deck.tail.params(), strict=True))  # fmt: skip
        rows.append((f"looked {look:.0f} s", look, wait, before, taken is not None, diff, lag))
        print(f"looked {look:.0f} s: {before} done before the click, learnt {wait:.1f} s after "
              f"it", flush=True)  # fmt: skip
    print(f"\n{args.design}, {args.scenes} scenes; the wait after *Learn and save*:\n")
    print("| person looked | done before the click | wait | ratio | same network | 20 ms tick late "
          "by, 99th percentile / most |")  # fmt: skip
    print("|---|---|---|---|---|---|")
    for name, _, wait, before, taken, diff, lag in rows:
        same = "—" if name == "from scratch" else (f"yes (weights within {diff:.1e})" if taken
                                                   else "not taken")  # fmt: skip
        print(f"| {name} | {before} | {wait:.1f} s | {wait / base:.2f} | {same} | {lag} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
