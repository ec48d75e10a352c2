"""One training round on a lent GPU machine, inside a fixed wall-clock budget.

Run from the repository root with the portable bundle made by ``hakam model bundle`` (card art as
WebP, the real rf100 train/valid photos already remapped, ultralytics wheels):

    python3 models/gpu_run.py --bundle .gpu --out "$OUT" --budget 560

It renders synthetic scenes on every core, trains the recipe in ``models/recipe.yaml`` until the
budget is nearly spent, and copies ``last.pt``, ``best.pt`` and ``results.csv`` to ``--out`` after
every epoch, so a run that is cut off still returns its weights.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--bundle", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--budget", type=float, default=560, help="seconds for the whole run")
    ap.add_argument("--synth-seconds", type=float, default=110)
    ap.add_argument("--synth-max", type=int, default=20000)
    ap.add_argument("--work", type=Path, default=Path("/tmp/hakam-gpu"))
    ap.add_argument("--weights", type=Path, default=None, help="continue from these weights")
    ap.add_argument("--workers", type=int, default=0)
    ap.add_argument("--device", default="0")
    ap.add_argument("--chunk", type=int, default=2000, help="images per synthetic chunk")
    ap.add_argument("--seed-offset", type=int, default=0, help="new scenes for a second round")
    ap.add_argument("--set", nargs="*", default=[], help="recipe overrides KEY=VALUE")
    ap.add_argument(
        "--recipe",
        type=Path,
        default=ROOT / "models" / "recipe.yaml",
        help="models/recipe-indices.yaml trains the finder of corner indices (no real photos)",
    )
    args = ap.parse_args()
    t0 = time.time()
    os.environ["HAKAM_ART_DIR"] = str(args.bundle.resolve() / "art")
    args.out.mkdir(parents=True, exist_ok=True)
    log = open(args.out / "log.txt", "a", buffering=1)  # noqa: SIM115 (open for the whole run)

    def say(msg: str) -> None:
        line = f"[{time.time() - t0:6.1f}s] {msg}"
        print(line, flush=True)
        log.write(line + "\n")

    import importlib

    import yaml

    art = importlib.import_module("hakam.datasets.art")
    gen = importlib.import_module("hakam.datasets.generator")
    training = importlib.import_module("hakam.training.detector")
    cores = os.cpu_count() or 2
    workers = args.workers or cores
    say(f"cores {cores}, decks {[d.name for d in art.available_decks(holdout=False)]}")
    recipe = training.load_recipe(args.recipe)
    for kv in args.set:
        key, value = kv.split("=", 1)
        recipe[key] = yaml.safe_load(value)
    boxes = str(recipe.get("synth_boxes", "cards"))

    # Synthetic scenes in chunks until the time share for them is spent.
    args.work.mkdir(parents=True, exist_ok=True)
    chunks: list[Path] = []
    made = 0
    k = 0
    while made < args.synth_max and time.time() - t0 < args.synth_seconds:
        d = args.work / f"synth{k}"
        cfg = gen.SynthConfig(
            d,
            args.chunk,
            seed=recipe["synth_seed"] * 1000 + args.seed_offset + k,
            imgsz=recipe["imgsz"],
            workers=workers,
            val_fraction=0.04 if k == 0 else 0.0,
            holdout_fraction=0.0,
            closeups=float(recipe.get("synth_closeups", 0.0)),
            boxes=boxes,
        )
        s = gen.generate(cfg, progress=False)
        say(f"synth chunk {k}: {s['images']} images, {s['images_per_second']} img/s")
        chunks.append(d)
        made += s["images"]
        k += 1
    say(f"synthetic images: {made}")

    # data.yaml over all chunks + real photos (already remapped to 32 classes in the bundle).
    real = args.bundle / "rf100"
    train_dirs = [str((c / "train" / "images").resolve()) for c in chunks]
    train_dirs += [str((real / "train" / "images").resolve())] * int(recipe["real_repeat"])
    val_dirs = [str((chunks[0] / "val" / "images").resolve())]
    if int(recipe["real_repeat"]) and (real / "valid" / "images").is_dir():
        val_dirs.append(str((real / "valid" / "images").resolve()))
    data = {
        "path": str(args.work.resolve()),
        "train": train_dirs,
        "val": val_dirs,
        "names": dict(enumerate(gen.CARD_NAMES)),
    }
    data_yaml = args.work / "data.yaml"
    data_yaml.write_text(yaml.safe_dump(data, sort_keys=False))

    left = args.budget - (time.time() - t0) - 45  # final validation and copies
    say(f"training for {left:.0f} s")
    best = training.train(
        data_yaml,
        args.work / "run",
        recipe,
        weights=args.weights,
        hours=max(left, 60) / 3600,
        device=args.device,
        workers=min(workers, 16),
        save_to=args.out,
        cache="ram",
    )
    say(f"done: {best}")
    (args.out / "summary.json").write_text(
        json.dumps({"synthetic_images": made, "seconds": time.time() - t0})
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
