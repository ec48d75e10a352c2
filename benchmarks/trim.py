"""What the corner reader's trim costs on busy frames, gates side by side in one run.

    .venv/bin/python benchmarks/trim.py                       # deal 74004 (paris), 640x480
    .venv/bin/python benchmarks/trim.py --size 1280x720 --gates 0.5 0.9

A trim (``hakam.vision.corners.CornerReader.trim``) reads each card not read ``trim_below`` surely
four more times. On the speed clip of ``benchmarks/pipeline.py`` few boxes are unsure; over a
table with hands and piles most are. So a scripted deal is rendered (default: deal 74004 of
set 73000, paris, the deal the trim was made for), every frame is detected once without a trim
to count its boxes, and on the ``--frames`` frames with the most unsure boxes the shipped two
stages detect with no trim and with the model card's trim at each gate, the settings taking
turns frame by frame so that the machine's drift falls on all alike. Prints ms per frame, the
frames per second that leaves for detecting alone, and each setting's ratio to no trim.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.pipeline import _size
from hakam.vision.corners import BALOOT_CARDS, TRIMS
from hakam.vision.dealvideo import render_deal
from hakam.vision.detector import make_detector, shipped_settings


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=74004, help="the scripted deal's seed")
    ap.add_argument("--deck", default="paris", help="its deck design")
    ap.add_argument("--size", type=_size, default=(640, 480), help="frame size WIDTHxHEIGHT")
    ap.add_argument("--frames", type=int, default=150, help="busiest frames timed")
    ap.add_argument("--gates", type=float, nargs="+", default=[0.5, 0.9],
                    help="trim_below values side by side")  # fmt: skip
    ap.add_argument("--threads", type=int, default=0)
    args = ap.parse_args(argv)
    trim = float(shipped_settings().get("two_stage", {}).get("outline_trim", 0.0)) or 0.15
    det = make_detector(stages=2, threads=args.threads)
    if getattr(det, "corners", None) is None:
        sys.exit("the shipped two stages do not use the corner reader: no trim to time")
    t0 = time.monotonic()
    print(f"[trim] rendering deal {args.seed} ({args.deck}) at {args.size[0]}x{args.size[1]} ...",
          file=sys.stderr, flush=True)  # fmt: skip
    frames = render_deal(args.seed, deck=args.deck, size=args.size).frames
    print(f"[trim] {len(frames)} frames in {time.monotonic() - t0:.0f} s; counting boxes",
          file=sys.stderr, flush=True)  # fmt: skip
    det.corners.trim = 0.0
    counts = []
    for k, frame in enumerate(frames, 1):
        _, probs = det.read(frame)
        sure = probs[:, :BALOOT_CARDS].max(axis=1) if len(probs) else np.zeros(0)
        counts.append((len(probs), sure))
        if k % 300 == 0:
            print(f"[trim] {k}/{len(frames)} frames counted", file=sys.stderr, flush=True)
    settings = [(0.0, 1.0)] + [(trim, g) for g in args.gates]
    busiest = sorted(range(len(frames)), key=lambda i: -int((counts[i][1] < max(args.gates)).sum()))
    chosen = busiest[: args.frames]
    spent = [0.0] * len(settings)
    for n, i in enumerate(chosen):
        order = range(len(settings)) if n % 2 == 0 else reversed(range(len(settings)))
        for s in order:
            det.corners.trim, det.corners.trim_below = settings[s]
            t = time.perf_counter()
            det.detect(frames[i])
            spent[s] += time.perf_counter() - t
    boxes = np.mean([counts[i][0] for i in chosen])
    w, h = args.size
    print(f"{len(chosen)} busiest of {len(frames)} frames of deal {args.seed} ({args.deck}, "
          f"{w}x{h}): {boxes:.1f} boxes a frame")  # fmt: skip
    print("| trim | trim below | unsure boxes a frame | corner reads a frame | detect ms | fps "
          "| x no trim |")  # fmt: skip
    print("|---|---|---|---|---|---|---|")
    base = spent[0] / len(chosen) * 1000
    for (tr, g), sec in zip(settings, spent, strict=True):
        unsure = np.mean([(counts[i][1] < g).sum() for i in chosen]) if tr else 0.0
        ms = sec / len(chosen) * 1000
        gate = f"{g:g}" if tr else "-"
        print(f"| {tr:g} | {gate} | {unsure:.1f} | {boxes + (TRIMS - 1) * unsure:.1f} | "
              f"{ms:.1f} | {1000 / ms:.1f} | {ms / base:.2f} |")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
