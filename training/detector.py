"""Train and export the card detector with ultralytics, offline and resumable.

Only ``hakam model train`` and ``hakam model export`` import this module's heavy parts (torch,
ultralytics); the runtime never does. Training starts from the model YAML or continues from the
shipped weights, and copies its checkpoints after every epoch so that a run cut short (a session
ending, a lent GPU given back) loses at most one epoch.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import time
from collections.abc import Iterable
from pathlib import Path

import yaml

from hakam.engine.cards import CARD_NAMES

ROOT = Path(__file__).resolve().parent.parent
RECIPE = ROOT / "models" / "recipe.yaml"
SHIPPED_PT = ROOT / "models" / "hakam-cards.pt"

# Sets that are for evaluation only: refusing them here keeps them out of training by accident.
EVAL_ONLY = ("cardcounter-real", "rf100-poker-cards/test")


class EvalOnlyDataError(ValueError):
    """An evaluation-only set was given as training data."""


def check_not_eval_only(path: Path) -> None:
    text = str(Path(path).resolve())
    for marker in EVAL_ONLY:
        if marker in text:
            raise EvalOnlyDataError(f"{path}: {marker} is evaluation-only, never training data")


def load_recipe(path: Path = RECIPE) -> dict:
    return yaml.safe_load(Path(path).read_text())


def real_class_map(names: dict[int, str] | list[str]) -> dict[int, int]:
    """Map a real set's class ids (52 cards + BACK + JOKER) to Baloot ids; 2-6 etc. dropped."""
    items = names.items() if isinstance(names, dict) else enumerate(names)
    return {int(k): CARD_NAMES.index(v) for k, v in items if v in CARD_NAMES}


def prepare_real(
    src: Path,
    out: Path,
    splits: Iterable[str] = ("train", "valid"),
    max_side: int = 640,
    quality: int = 82,
) -> dict[str, int]:
    """Copy real photos (resized) with labels remapped to the 32 Baloot classes.

    Boxes of ranks 2-6, backs and jokers are dropped: for a Baloot detector they are background.
    """
    import cv2

    names = yaml.safe_load((src / "data.yaml").read_text())["names"]
    cmap = real_class_map(names)
    counts = {}
    for split in splits:
        check_not_eval_only(src / split)
        (out / split / "images").mkdir(parents=True, exist_ok=True)
        (out / split / "labels").mkdir(parents=True, exist_ok=True)
        n = 0
        for img_path in sorted((src / split / "images").glob("*.jpg")):
            lab = src / split / "labels" / (img_path.stem + ".txt")
            rows = []
            if lab.exists():
                for line in lab.read_text().splitlines():
                    parts = line.split()
                    if len(parts) == 5 and int(parts[0]) in cmap:
                        rows.append(" ".join([str(cmap[int(parts[0])]), *parts[1:]]))
            img = cv2.imread(str(img_path))
            if img is None:
                continue
            s = max_side / max(img.shape[:2])
            if s < 1:
                img = cv2.resize(
                    img,
                    (round(img.shape[1] * s), round(img.shape[0] * s)),
                    interpolation=cv2.INTER_AREA,
                )
            cv2.imwrite(
                str(out / split / "images" / img_path.name),
                img,
                [cv2.IMWRITE_JPEG_QUALITY, quality],
            )
            (out / split / "labels" / (img_path.stem + ".txt")).write_text("\n".join(rows) + "\n")
            n += 1
        counts[split] = n
    return counts


def build_data_yaml(
    out: Path, synth: Path | list[Path] | None, real: Path | None, real_repeat: int = 1
) -> Path:
    """One data.yaml over the synthetic scenes (one folder or several) and the real photos
    (train repeated)."""
    train, val = [], []
    for folder in [synth] if isinstance(synth, Path) else synth or []:
        train.append(str((folder / "train" / "images").resolve()))
        if (folder / "val" / "images").is_dir():
            val.append(str((folder / "val" / "images").resolve()))
    if real is not None:
        check_not_eval_only(real)
        if (real / "train" / "images").is_dir():
            # A folder listed k times is read k times: the simplest way to weight real photos.
            train += [str((real / "train" / "images").resolve())] * max(1, real_repeat)
        if (real / "valid" / "images").is_dir():
            val.append(str((real / "valid" / "images").resolve()))
    if not train:
        raise FileNotFoundError("no training images: give a synthetic folder or real photos")
    data = {
        "path": str(out.resolve()),
        "train": train,
        "val": val or train[:1],
        "names": dict(enumerate(CARD_NAMES)),
    }
    out.mkdir(parents=True, exist_ok=True)
    p = out / "data.yaml"
    p.write_text(yaml.safe_dump(data, sort_keys=False))
    return p


def set_offline(config_dir: Path) -> None:
    """Make ultralytics work with no network: no downloads, no sync, a local font."""
    config_dir.mkdir(parents=True, exist_ok=True)
    os.environ["YOLO_CONFIG_DIR"] = str(config_dir)
    os.environ["YOLO_OFFLINE"] = "1"
    os.environ["YOLO_AUTOINSTALL"] = "False"
    font = config_dir / "Arial.ttf"
    if not font.exists():
        import matplotlib

        src = Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSans.ttf"
        if src.exists():
            shutil.copy(src, font)
    from ultralytics import settings

    settings.update(
        {
            "sync": False,
            "datasets_dir": str(config_dir / "datasets"),
            "weights_dir": str(config_dir / "weights"),
            "runs_dir": str(config_dir / "runs"),
        }
    )
    for key in (
        "clearml",
        "comet",
        "dvc",
        "hub",
        "mlflow",
        "neptune",
        "raytune",
        "tensorboard",
        "wandb",
    ):
        if key in settings:
            settings.update({key: False})
    # The AMP self-check downloads a model to compare outputs; offline it can only fail or hang.
    import ultralytics.engine.trainer as trainer_mod

    trainer_mod.check_amp = lambda model: True
    # results.csv is read with polars, whose binary runtime is 40 MB we don't otherwise need.
    trainer_mod.BaseTrainer.read_results_csv = _read_results_csv


def _read_results_csv(trainer) -> dict:
    import csv

    with open(trainer.csv, newline="") as f:
        rows = list(csv.DictReader(f))
    out: dict[str, list] = {}
    for row in rows:
        for k, v in row.items():
            try:
                out.setdefault(k.strip(), []).append(float(v))
            except (TypeError, ValueError):
                out.setdefault(k.strip(), []).append(v)
    return out


def make_bundle(out: Path, real_src: Path | None, wheels: Path | None = None) -> dict:
    """A folder to carry to another machine: card art (WebP), remapped real photos, wheels."""
    from hakam.datasets import art

    n_art = art.export_cache(out / "art", art.available_decks(holdout=False))
    counts = prepare_real(real_src, out / "rf100") if real_src else {}
    if wheels and wheels.is_dir():
        (out / "whl").mkdir(parents=True, exist_ok=True)
        for w in wheels.glob("*.whl"):
            shutil.copy(w, out / "whl" / w.name)
    return {"art_images": n_art, "real": counts}


RECIPE_DATA_KEYS = frozenset(
    {"model", "synth_images", "synth_seed", "synth_boxes", "synth_closeups", "real_repeat"}
)


def ultralytics_args(
    recipe: dict, epochs: int | None = None, hours: float | None = None, on_cpu: bool = False
) -> dict:
    """The recipe's training arguments for ultralytics (its data keys are ours).

    On a CPU mixed precision is off: ultralytics 8.4 keeps it on there, where bfloat16 is
    emulated, and a batch of 16 at 512 took 150 s instead of 5 s on these cores (2026-12-01).
    """
    args = {k: v for k, v in recipe.items() if k not in RECIPE_DATA_KEYS}
    if on_cpu:
        args["amp"] = False
    if epochs:
        args["epochs"] = epochs
    if hours:
        args["time"] = hours
    return args


def train(
    data_yaml: Path,
    run_dir: Path,
    recipe: dict,
    *,
    weights: Path | None = None,
    resume: Path | None = None,
    hours: float | None = None,
    epochs: int | None = None,
    device: str | None = None,
    workers: int = 8,
    save_to: Path | None = None,
    cache: str | bool = False,
    threads: int | None = None,
) -> Path:
    """Train (or resume) and return the best weights; checkpoints are copied to ``save_to``."""
    set_offline(run_dir.parent / ".ultralytics")
    import torch
    from ultralytics import YOLO

    if threads:
        torch.set_num_threads(threads)  # ultralytics leaves 1 thread on small CPUs
    args = ultralytics_args(recipe, epochs, hours, on_cpu=device == "cpu" or (
        device is None and not torch.cuda.is_available()))  # fmt: skip
    save_to = save_to or run_dir
    save_to.mkdir(parents=True, exist_ok=True)
    started = time.time()

    def on_epoch_end(trainer) -> None:
        wdir = Path(trainer.save_dir) / "weights"
        for name in ("last.pt", "best.pt"):
            if (wdir / name).exists():
                shutil.copy(wdir / name, save_to / name)
        csv = Path(trainer.save_dir) / "results.csv"
        if csv.exists():
            shutil.copy(csv, save_to / "results.csv")
        print(
            f"[train] epoch {trainer.epoch + 1}/{trainer.epochs} done, "
            f"{time.time() - started:.0f} s elapsed",
            flush=True,
        )

    def on_train_start(trainer) -> None:
        # ultralytics sets its own thread count (cores - 1: one here) when it picks the CPU,
        # after the call above: training ran on one core of two until this (2026-12-01).
        if threads:
            torch.set_num_threads(threads)

    if resume is not None:
        model = YOLO(str(resume))
        model.add_callback("on_train_start", on_train_start)
        model.add_callback("on_fit_epoch_end", on_epoch_end)
        model.train(resume=True, workers=workers, cache=cache)
    else:
        model = YOLO(str(weights) if weights else recipe["model"])
        model.add_callback("on_train_start", on_train_start)
        model.add_callback("on_fit_epoch_end", on_epoch_end)
        model.train(
            data=str(data_yaml),
            project=str(run_dir.parent),
            name=run_dir.name,
            exist_ok=True,
            device=device,
            workers=workers,
            plots=False,
            verbose=True,
            cache=cache,
            **args,
        )
    best = save_to / "best.pt"
    return best if best.exists() else save_to / "last.pt"


def export(
    weights: Path, out_dir: Path, imgsz: int = 640, stem: str = "hakam-cards", dynamic: bool = True
) -> dict:
    """Write ``stem.onnx`` and ``stem_openvino/`` (FP16 weights) next to a copy of the .pt.

    ``dynamic`` leaves the input's height and width free: the run time then feeds each frame at
    ``imgsz`` on its long side, padded only to the stride (a 640x480 frame as 480x640).
    """
    import tempfile

    import openvino as ov

    set_offline(Path(tempfile.gettempdir()) / "hakam-ultralytics")
    from ultralytics import YOLO

    out_dir.mkdir(parents=True, exist_ok=True)
    model = YOLO(str(weights))
    onnx_path = Path(
        model.export(format="onnx", imgsz=imgsz, dynamic=dynamic, simplify=True, opset=None)
    )
    target = out_dir / f"{stem}.onnx"
    if onnx_path.resolve() != target.resolve():
        shutil.move(str(onnx_path), target)
    ov_target = out_dir / f"{stem}_openvino"
    if ov_target.exists():
        shutil.rmtree(ov_target)
    ov_target.mkdir()
    ov.save_model(ov.convert_model(str(target)), str(ov_target / f"{stem}.xml"))  # FP16 weights
    info = {
        "onnx": target.name,
        "openvino": ov_target.name,
        "imgsz": imgsz,
        "dynamic": dynamic,
        "names": list(CARD_NAMES),
    }
    card = out_dir / f"{stem}.json"
    kept = {}  # settings chosen on the tuning sets (threshold, stages) outlive a re-export
    if card.exists():
        with contextlib.suppress(ValueError):
            kept = json.loads(card.read_text())
    card.write_text(json.dumps({**kept, **info}, indent=1) + "\n")
    return info
