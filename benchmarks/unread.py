"""Naming cards the camera never read, on the demo deal: how often the deal comes out exact.

    .venv/bin/python benchmarks/unread.py --cards 2 --all          # every pair of cards
    .venv/bin/python benchmarks/unread.py --cards 4 --sets 300     # 300 random sets of four

The demo clip's labels are fed to the pipeline (``LabelDetector``: a perfect finder and reader)
with the chosen cards seen but never read surely, as a court card of an unseen design is. At the
end of the clip the pipeline names what it can (``Pipeline._name_by_elimination``) and leaves the
rest to a person. Per set of cards: the deal complete or not, exact (every card at its seat and
trick) or not; of the complete deals not exact, how many said so (a notice that a person may
change a card named "same-result", "reader" or "fewest"), how many lost the deal's revoke (AS,
seat 2, trick 1) and how many ruled a violation that did not happen. ``--deduce N`` tries
another ``DEDUCE_MAX``; ``--misguess``: the unsure reads of the first card of each set (by name)
take it for the second, as a reader wrong about a card it is unsure of would (the reads then
point away from the truth: a deal complete but not exact is what trusting them costs).
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import hakam.vision.naming as naming
from hakam.engine.cards import CARD_NAMES
from hakam.vision.events import standing_violations
from hakam.vision.oracle import LabelDetector, unsure_labels
from hakam.vision.pipeline import Pipeline, run_frames
from hakam.vision.provenance import DEDUCED
from hakam.vision.seats import Calibration
from hakam.vision.settings import DealSetup, PipelineError, PipelineSettings, settings_from_json
from hakam.vision.sources import (
    DEMO_CALIBRATION,
    DEMO_LABELS,
    DEMO_RECORD,
    ArraySource,
    demo_clip_available,
)

REVOKE = "AS"  # the demo deal's one violation: seat 2's revoke in trick 1


def run_unread(
    cards: set[str], truth: dict, frames: list, settings: PipelineSettings | None = None,
    misguess: bool = False,
) -> dict:  # fmt: skip
    """The demo deal with ``cards`` never read surely: what the pipeline made of it
    (``misguess``: the first card's unsure reads name the second)."""
    first, second = sorted(cards)[:2] if misguess else (None, None)
    labels = unsure_labels(frames, cards, {first: second} if misguess else None)
    pipe = Pipeline(DealSetup.from_record(truth), LabelDetector(labels),
                    calibration=Calibration.load(DEMO_CALIBRATION), settings=settings)  # fmt: skip
    images = [np.zeros((1, 1, 3), np.uint8)] * len(frames)
    events = run_frames(pipe, ArraySource(images, 15.0))
    fixes = [(e["card"], e["seat"], e["by"]) for e in events if e["type"] == "correction"]
    played = {
        (k + 1, s, c)
        for k, t in enumerate(truth["tricks"])
        for c, s in zip(t["cards"], t["seats"], strict=True)
    }
    named = [(p.trick, p.seat, CARD_NAMES[p.card]) for p in pipe.plays if p.source in DEDUCED]
    return {
        "set": sorted(cards),
        "complete": len(pipe.plays) == 32,
        "exact": pipe.record["tricks"] == truth["tricks"],
        "fixes": fixes,
        "named": len(named),
        "named_wrong": sum(p not in played for p in named),  # not the card at that seat and trick
        "said": any(by in SAID for *_, by in fixes),
        "violations": [v["card"] for v in standing_violations(events)],
        "final": [e.get("status") for e in events if e["type"] == "score"][-1:] == ["final"],
    }


# Namings that tell a person the card may be another (``Pipeline._say_cards_left``).
SAID = ("same-result", "reader", "fewest")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cards", type=int, default=3, help="cards never read surely per deal")
    ap.add_argument("--sets", type=int, default=100, help="random sets of cards (with --seed)")
    ap.add_argument("--all", action="store_true", help="every set of --cards cards instead")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--deduce", type=int, help="DEDUCE_MAX for this run")
    ap.add_argument("--jsonl", help="write one line per set here")
    ap.add_argument("--misguess", action="store_true", help="unsure reads name another card")
    ap.add_argument("--settings", default="", help='pipeline settings: {"name_by_fewest": false}')
    args = ap.parse_args()
    if not demo_clip_available():
        sys.exit("the demo clip is not installed")
    if args.deduce is not None:
        naming.DEDUCE_MAX = args.deduce
    try:
        settings = settings_from_json(args.settings) if args.settings else None
    except PipelineError as exc:
        sys.exit(f"--{exc}")
    truth = json.loads(DEMO_RECORD.read_text())
    frames = json.loads(DEMO_LABELS.read_text())["frames"]
    deck = [c for t in truth["tricks"] for c in t["cards"]]
    if args.all:
        sets = [set(c) for c in itertools.combinations(deck, args.cards)]
    else:
        rng = random.Random(args.seed)
        sets = []
        while len(sets) < args.sets:
            s = set(rng.sample(deck, args.cards))
            if s not in sets:
                sets.append(s)
    rows, t0 = [], time.perf_counter()
    for k, cards in enumerate(sets):
        rows.append(run_unread(cards, truth, frames, settings, args.misguess))
        if (k + 1) % 25 == 0 or k + 1 == len(sets):
            el = time.perf_counter() - t0
            print(f"[unread] {k + 1}/{len(sets)}, about {el / (k + 1) * (len(sets) - k - 1):.0f} s "
                  "left", file=sys.stderr, flush=True)  # fmt: skip
    if args.jsonl:
        Path(args.jsonl).write_text("".join(json.dumps(r) + "\n" for r in rows))
    wrong = [r for r in rows if r["complete"] and not r["exact"]]
    fewest = [r for r in rows if any(by == "fewest" for *_, by in r["fixes"])]
    print(
        f"{len(rows)} sets of {args.cards} cards never read surely (DEDUCE_MAX "
        f"{naming.DEDUCE_MAX}): complete {sum(r['complete'] for r in rows)}, exact "
        f"{sum(r['exact'] for r in rows)}, with a final score {sum(r['final'] for r in rows)};"
        f" complete but not exact {len(wrong)} (said in a notice "
        f"{sum(r['said'] for r in wrong)}, final {sum(r['final'] for r in wrong)}, the revoke lost "
        f"{sum(REVOKE not in r['violations'] for r in wrong)}, a violation that did not happen "
        f"ruled {sum(bool(set(r['violations']) - {REVOKE}) for r in wrong)}); named by the "
        f"fewest violations in {len(fewest)} ({sum(not r['exact'] for r in fewest)} not exact); "
        f"cards named without a person {sum(r['named'] for r in rows)}, of them not at their "
        f"seat and trick {sum(r['named_wrong'] for r in rows)}"
    )


if __name__ == "__main__":
    main()
