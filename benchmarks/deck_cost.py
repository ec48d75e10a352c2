"""What reading with a deck, and checking it against the other decks, costs a frame (issue 51).

One rendered deal is read frame by frame by each reader named (``benchmarks/pipeline.py``'s
back-end names, e.g. ``openvino+reader``, ``openvino+reader:kennard/arabic/paris``), in turn on
the same frame, the order turned each frame, so that the shared machine's drift falls on each
alike. Printed: each reader's milliseconds a frame (the finder and the readers: what the camera
pipeline's "detect" holds), and its ratio to the first.

    python benchmarks/deck_cost.py --tricks 8 --backends openvino+reader,openvino+reader:kennard
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.pipeline import make
from hakam.vision.dealvideo import render_deal


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--backends", required=True, help="comma-separated; the first is the base")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--tricks", type=int, default=8)
    ap.add_argument("--size", default="1280x720", help="WxH")
    args = ap.parse_args(argv)
    w, h = (int(v) for v in args.size.split("x"))
    names = args.backends.split(",")
    readers = [make(name) for name in names]
    frames = render_deal(args.seed, tricks=args.tricks, size=(w, h)).frames
    spent = [0.0] * len(readers)
    t0 = time.monotonic()
    for k, frame in enumerate(frames):
        order = range(len(readers)) if k % 2 == 0 else reversed(range(len(readers)))
        for i in order:
            start = time.perf_counter()
            readers[i].read(frame)
            spent[i] += time.perf_counter() - start
        if (k + 1) % 100 == 0:
            left = (time.monotonic() - t0) / (k + 1) * (len(frames) - k - 1)
            print(f"  {k + 1}/{len(frames)} frames, about {left:.0f} s left", file=sys.stderr)
    print(f"{len(frames)} frames, {w}x{h}, seed {args.seed}, {args.tricks} tricks")
    for name, s in zip(names, spent, strict=True):
        ms = 1000 * s / len(frames)
        print(f"  {name}: {ms:.2f} ms a frame, x{s / spent[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
