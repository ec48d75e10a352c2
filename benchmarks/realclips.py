"""The camera pipeline with a real detector on rendered deal clips: cache reads, score, tune.

    .venv/bin/python benchmarks/realclips.py render --set tune     # render the clips, once
    .venv/bin/python benchmarks/realclips.py cache --set tune      # detect, once per back-end
    .venv/bin/python benchmarks/realclips.py score --set tune      # pipeline on the cached reads
    .venv/bin/python benchmarks/realclips.py tune --set tune       # grid over tracker settings

The detector is the slow part and does not depend on the tracker, so each clip is rendered,
written as mp4, decoded and read by the detector once (at a low confidence floor, 0.05: the
threshold is a tracker setting), and the reads are cached under ``--cache``. Scoring replays
the cached reads through ``hakam.vision.pipeline.Pipeline`` exactly as a live run would see them.

Clip sets (seeds never overlap; ``tune`` is the only one settings may be chosen on):

- ``tune``: training deck designs, seeds 3001-3008;
- ``train``: training deck designs, seeds 4001-4006 (a check that the tuning generalises);
- ``holdout``: the hold-out deck designs (kennard, paris, bellot), seeds 5001-5006.

Every second clip has an injected violation. Scores: cards with the right seat and trick, plays
that are wrong (a card not played there), trick winners right, violations found with their
proof, spurious violations, ``uncertain`` events.
"""

from __future__ import annotations

import argparse
import itertools
import json
import pickle
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.cached import CachedDetector, answer_as_the_table
from benchmarks.pipeline import TWO_STAGE, make
from hakam.vision.dealvideo import render_deal, write_clip
from hakam.vision.events import standing_violations
from hakam.vision.pipeline import Pipeline, run_frames
from hakam.vision.reader import TwoStageDetector
from hakam.vision.settings import DealSetup, PipelineSettings, settings_from_overrides
from hakam.vision.sources import Frame, VideoSource

FLOOR = 0.05  # confidence floor of the cached reads


def shipped_conf(args: argparse.Namespace) -> float:
    """The threshold a live run of ``--backend`` takes from the model card file."""
    from hakam.vision.detector import shipped_threshold

    return shipped_threshold(args.models_dir, stages=2 if "+reader" in args.backend else 1)


def reads_folder(args: argparse.Namespace) -> Path:
    """Cached reads of one back-end (and models folder, when not the shipped one); two-stage
    caches hold boxes and probabilities, in their own folder (``-probs``)."""
    name = args.backend + (f"-{args.models_dir.name}" if args.models_dir else "")
    return Path(args.cache) / (name + ("-probs" if TWO_STAGE in args.backend else ""))


def deck_names(holdout: bool) -> list[str]:
    from hakam.datasets import art

    return [d.name for d in art.available_decks(holdout=holdout)]


def clip_specs(name: str, n: int | None = None) -> list[tuple[int, str, bool]]:
    """(seed, deck, violation) of each clip of a set."""
    if name == "tune":
        decks, base, count = deck_names(False), 3001, 8
    elif name == "train":
        decks, base, count = deck_names(False)[::-1], 4001, 6
    elif name == "holdout":
        decks, base, count = deck_names(True), 5001, 6
    else:
        raise SystemExit(f"unknown set {name!r}")
    count = n or count
    return [(base + k, decks[k % len(decks)], k % 2 == 1) for k in range(count)]


def clip(args: argparse.Namespace, seed: int, deck: str, violation: bool) -> tuple[dict, list]:
    """The rendered clip (truth and decoded frames), rendered once and kept under ``--cache``."""
    base = Path(args.cache) / "clips" / f"{args.set}-{seed}-{deck}-t{args.tricks}"
    base.parent.mkdir(parents=True, exist_ok=True)
    video = base.with_suffix(".mp4")
    if not video.exists():
        r = render_deal(seed, violation=violation, tricks=args.tricks, deck=deck)
        with tempfile.TemporaryDirectory() as tmp:
            paths = write_clip(r, Path(tmp) / "clip.mp4")
            truth = {
                "seed": seed,
                "deck": deck,
                "violation": violation,
                "tricks": args.tricks,
                "record": r.deal.record,
                "plays": [(t, s, c.index) for t, s, c in r.deal.plays if t <= args.tricks],
                "winners": r.deal.winners[: args.tricks],
                "truth_violation": r.deal.violation,
                "calibration": r.calibration,
                "fps": r.fps,
                "rest_frames": r.rest_frames,
                "labels": r.labels,
            }
            base.with_suffix(".pkl").write_bytes(pickle.dumps(truth))
            Path(paths["video"]).replace(video)
    truth = pickle.loads(base.with_suffix(".pkl").read_bytes())
    with VideoSource(str(video)) as src:
        frames = [f.image for f in src]
    return truth, frames


def render(args: argparse.Namespace) -> None:
    for seed, deck, violation in clip_specs(args.set, args.clips):
        t0 = time.monotonic()
        _, frames = clip(args, seed, deck, violation)
        print(f"[render] {args.set} {seed} {deck}: {len(frames)} frames, "
              f"{time.monotonic() - t0:.0f} s", flush=True)  # fmt: skip


def cache(args: argparse.Namespace) -> None:
    out = reads_folder(args)
    out.mkdir(parents=True, exist_ok=True)
    det = make(args.backend, args.models_dir, threads=args.threads, conf=FLOOR)
    boxes = isinstance(det, TwoStageDetector)
    for seed, deck, violation in clip_specs(args.set, args.clips):
        path = out / f"{args.set}-{seed}-{deck}-t{args.tricks}.pkl"
        if path.exists():
            continue
        t0 = time.monotonic()
        truth, frames = clip(args, seed, deck, violation)
        t1 = time.monotonic()
        reads = []
        for img in frames:
            if boxes:
                xyxy, probs = det.read(img)
                reads.append((xyxy, probs.astype(np.float16)))
            else:
                d = det.detect(img)
                reads.append((d.xyxy, d.confidence, d.class_id))
        t2 = time.monotonic()
        data = {**truth, "reads": reads, "boxes": boxes, "size": frames[0].shape[1::-1]}
        path.write_bytes(pickle.dumps(data))
        print(
            f"[cache] {path.name}: {len(frames)} frames, clip {t1 - t0:.0f} s, "
            f"detect {1000 * (t2 - t1) / len(frames):.0f} ms/frame",
            flush=True,
        )


def load(args: argparse.Namespace) -> list[dict[str, Any]]:
    folder = reads_folder(args)
    clips = []
    for seed, deck, _ in clip_specs(args.set, args.clips):
        path = folder / f"{args.set}-{seed}-{deck}-t{args.tricks}.pkl"
        if not path.exists():
            raise SystemExit(f"missing {path}: run `cache --set {args.set}` first")
        clips.append(pickle.loads(path.read_bytes()))
    return clips


def score_clip(
    clip: dict[str, Any], settings: PipelineSettings, conf: float, assist: bool = False
) -> dict[str, int]:
    """Score one clip; with ``assist`` a person at the table answers each notice where the deal
    waits (``answer_as_the_table``) and the answers are counted."""
    setup = DealSetup.from_record(clip["record"])
    det = CachedDetector(clip["reads"], conf, clip.get("boxes", False))
    pipe = Pipeline(setup, det, calibration=clip["calibration"], settings=settings, fps=clip["fps"])
    blank = np.zeros((2, 2, 3), np.uint8)
    frames = [Frame(i, i / clip["fps"], blank) for i in range(len(clip["reads"]))]
    asked = {"asked": 0}
    if not assist:
        events = run_frames(pipe, frames)
    else:
        events, asked = answer_as_the_table(pipe, frames, clip["plays"])
    truth = {(t, s, c) for t, s, c in clip["plays"]}
    got = [(p.trick, p.seat, p.card) for p in pipe.plays]
    won = [t.winner for t in pipe.referee.tricks]  # as the record has them, corrections included
    tv = clip["truth_violation"]
    viols = standing_violations(events)
    found = [
        v
        for v in viols
        if tv and v["rule"] == tv["rule"] and v["seat"] == tv["seat"] and v["proof"] == tv["proof"]
    ]
    return {
        "cards": len(truth),
        "right": len(truth & set(got)),
        "wrong": sum(g not in truth for g in got),
        "tricks": len(clip["winners"]),
        "winners": sum(a == b for a, b in zip(won, clip["winners"], strict=False)),
        "violations": int(tv is not None),
        "found": int(bool(found)),
        "spurious": len(viols) - len(found),
        "withdrawn": sum(e["type"] == "withdrawn" for e in events),
        "uncertain": sum(e["type"] == "uncertain" for e in events),
        "exact": int(got == [tuple(p) for p in clip["plays"]]),
        "corrections": asked["asked"],
    }


def total(rows: list[dict[str, int]]) -> dict[str, int]:
    return {k: sum(r[k] for r in rows) for k in rows[0]}


def line(t: dict[str, int]) -> str:
    return (
        f"cards right {t['right']}/{t['cards']}, wrong plays {t['wrong']}, "
        f"trick winners {t['winners']}/{t['tricks']}, violations found "
        f"{t['found']}/{t['violations']}, spurious {t['spurious']}, uncertain {t['uncertain']}, "
        f"exact clips {t['exact']}"
        + (f", corrections asked {t['corrections']}" if t["corrections"] else "")
        + (f", rulings withdrawn {t['withdrawn']}" if t.get("withdrawn") else "")
    )


def make_settings(over: dict[str, Any]) -> tuple[PipelineSettings, float]:
    """Settings from overrides: ``detector_conf``, pipeline fields, tracker fields."""
    over = dict(over)
    conf = float(over.pop("detector_conf", 0.25))
    return settings_from_overrides(over), conf


def settings_from(args: argparse.Namespace) -> tuple[PipelineSettings, float]:
    over = json.loads(args.settings) if args.settings else {}
    over.setdefault("detector_conf", args.conf if args.conf is not None else shipped_conf(args))
    return make_settings(over)


def score(args: argparse.Namespace) -> None:
    settings, conf = settings_from(args)
    rows = []
    for clip in load(args):
        r = score_clip(clip, settings, conf, args.assist)
        rows.append(r)
        print(f"  {clip['seed']} {clip['deck']:<16} {line(r)}")
    print(f"{args.set} ({args.backend}, {args.tricks} tricks, conf {conf}): {line(total(rows))}")


def objective(t: dict[str, int]) -> tuple:
    """Never wrong first (wrong plays and spurious violations), then cards read, then fewer
    uncertain events (each asks a person for help)."""
    return (t["wrong"] + t["spurious"], -t["found"], -t["right"], t["uncertain"])


GRID = {
    "detector_conf": [0.1, 0.25, 0.4],
    "min_confidence": [0.3, 0.4, 0.5, 0.6, 0.7],
    "vote_share": [0.375, 0.6],
    "identity_share": [0.0, 0.8],
    "hold_s": [0.0, 1.0, 2.0],
}


def tune(args: argparse.Namespace) -> None:
    clips = load(args)
    base = json.loads(args.settings) if args.settings else {}
    results = []
    for values in itertools.product(*GRID.values()):
        over = {**base, **dict(zip(GRID, values, strict=True))}
        settings, conf = make_settings(over)
        t = total([score_clip(c, settings, conf) for c in clips])
        results.append((objective(t), over, t))
        print(json.dumps(over), "->", line(t), flush=True)
    results.sort(key=lambda x: x[0])
    print("best:")
    for _, over, t in results[: args.top]:
        print(json.dumps(over), "->", line(t))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("command", choices=["render", "cache", "score", "tune"])
    ap.add_argument("--set", default="tune", choices=["tune", "train", "holdout"])
    ap.add_argument("--clips", type=int, default=None, help="first N clips of the set")
    ap.add_argument("--tricks", type=int, default=4)
    ap.add_argument(
        "--backend",
        default="openvino",
        help="openvino+reader: the two-stage one; @416: finder size",
    )
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument(
        "--models-dir", type=Path, default=None, help="another export (default: models/)"
    )
    ap.add_argument("--cache", default="/tmp/hakam-realclips")
    ap.add_argument(
        "--conf",
        type=float,
        default=None,
        help="detector confidence threshold (default: the shipped one of --backend)",
    )
    ap.add_argument("--settings", default="", help='tracker overrides, JSON: {"window_s": 0.8}')
    ap.add_argument("--top", type=int, default=10)
    ap.add_argument("--assist", action="store_true", help="a person answers 'the deal waits'")
    args = ap.parse_args()
    {"render": render, "cache": cache, "score": score, "tune": tune}[args.command](args)


if __name__ == "__main__":
    main()
