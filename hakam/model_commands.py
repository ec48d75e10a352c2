"""``hakam model ...`` (train, export, eval, bundle) and ``hakam detect``.

Training and export need the ``train`` extra (torch, ultralytics); eval and detect run on the
exported model with OpenVINO or ONNX Runtime, the same code path as the live pipeline.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED_REAL = ROOT.parent / "shared" / "data" / "real"
DEFAULT_THRESHOLD_FILE = ROOT / "models" / "hakam-cards.json"


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("model", help="card detector: train, export, evaluate")
    msub = p.add_subparsers(dest="model_command", metavar="ACTION")

    t = msub.add_parser("train", help="train or continue the detector (needs the train extra)")
    t.add_argument(
        "--synth",
        type=Path,
        default=None,
        help="synthetic dataset folder (made with `hakam data synth` if missing)",
    )
    t.add_argument("--synth-n", type=int, default=None, help="images to generate if missing")
    t.add_argument(
        "--real",
        type=Path,
        default=SHARED_REAL / "rf100-poker-cards",
        help="real photos (train/valid splits only); 'none' to skip",
    )
    t.add_argument("--out", type=Path, default=ROOT / "runs" / "train")
    t.add_argument(
        "--from",
        dest="weights",
        type=Path,
        default=None,
        help="continue from these weights (default: the shipped model if present)",
    )
    t.add_argument("--scratch", action="store_true", help="start from the model YAML")
    t.add_argument("--resume", type=Path, default=None, help="resume an interrupted last.pt")
    t.add_argument("--hours", type=float, default=None, help="stop after this much time")
    t.add_argument("--epochs", type=int, default=None)
    t.add_argument("--imgsz", type=int, default=None)
    t.add_argument("--batch", type=int, default=None)
    t.add_argument("--device", default=None, help="'cpu', '0' for the first GPU")
    t.add_argument("--recipe", type=Path, default=ROOT / "models" / "recipe.yaml")
    t.set_defaults(func=_train)

    e = msub.add_parser("export", help="write ONNX and OpenVINO files from .pt weights")
    e.add_argument("weights", type=Path)
    e.add_argument("--out", type=Path, default=ROOT / "models")
    e.add_argument("--imgsz", type=int, default=640)
    e.set_defaults(func=_export)

    v = msub.add_parser("eval", help="box and per-image card-set metrics on a labelled folder")
    v.add_argument(
        "--data",
        type=Path,
        action="append",
        required=True,
        help="YOLO folder with images/ and labels/ (repeatable)",
    )
    v.add_argument("--backend", choices=["openvino", "onnx", "ultralytics"], default=None)
    v.add_argument("--models-dir", type=Path, default=None)
    v.add_argument(
        "--threshold",
        type=float,
        default=None,
        help="confidence for the set metrics (default: the shipped model's)",
    )
    v.add_argument(
        "--no-boxes",
        action="store_true",
        help="skip box metrics (labels are not whole-card boxes, e.g. corner indices)",
    )
    v.add_argument("--failures", type=Path, default=None, help="contact sheet PNG of failures")
    v.add_argument("--json", action="store_true")
    v.set_defaults(func=_eval)

    b = msub.add_parser("bundle", help="portable folder for training on another machine")
    b.add_argument("--out", type=Path, required=True)
    b.add_argument("--real", type=Path, default=SHARED_REAL / "rf100-poker-cards")
    b.add_argument("--wheels", type=Path, default=None, help="folder of wheels to include")
    b.set_defaults(func=_bundle)
    p.set_defaults(func=lambda args: p.print_help() or 0)

    d = sub.add_parser("detect", help="read the cards in images with the shipped model")
    d.add_argument("paths", type=Path, nargs="+")
    d.add_argument("--json", action="store_true", help="one JSON line per image")
    d.add_argument("--backend", choices=["openvino", "onnx", "ultralytics"], default=None)
    d.add_argument("--models-dir", type=Path, default=None)
    d.add_argument("--threshold", type=float, default=None)
    d.set_defaults(func=_detect)


def shipped_threshold(models_dir: Path | None = None) -> float:
    """The confidence threshold chosen on the tuning sets, stored with the model."""
    f = (models_dir / "hakam-cards.json") if models_dir else DEFAULT_THRESHOLD_FILE
    try:
        return float(json.loads(f.read_text()).get("threshold", 0.25))
    except (OSError, ValueError):
        return 0.25


def _detector(args, conf: float):
    from hakam.cli import CliError
    from vision.detector import DetectorError, make_detector

    try:
        return make_detector(args.backend, args.models_dir, conf=conf)
    except DetectorError as exc:
        raise CliError(str(exc)) from exc


def _detect(args) -> int:
    import cv2

    from engine.cards import CARD_NAMES
    from hakam.cli import one_line

    threshold = args.threshold if args.threshold is not None else shipped_threshold(args.models_dir)
    det = _detector(args, threshold)
    status = 0
    for path in args.paths:
        img = cv2.imread(str(path)) if path.is_file() else None
        if img is None:
            print(f"hakam: error: {one_line(str(path))}: not a readable image", file=sys.stderr)
            status = 2
            if args.json:
                print(json.dumps({"image": str(path), "error": "not a readable image"}))
            continue
        d = det.detect(img)
        order = d.confidence.argsort()[::-1]
        cards = [
            {
                "card": CARD_NAMES[int(d.class_id[i])],
                "conf": round(float(d.confidence[i]), 3),
                "box": [round(float(v), 1) for v in d.xyxy[i]],
            }
            for i in order
        ]
        if args.json:
            print(json.dumps({"image": str(path), "cards": cards}), flush=True)
        else:
            text = ", ".join(f"{c['card']} {c['conf']:.2f}" for c in cards) or "no card"
            print(f"{path}: {text}", flush=True)
    return status


def _eval(args) -> int:
    from hakam import evaluation as ev
    from hakam.cli import CliError

    threshold = args.threshold if args.threshold is not None else shipped_threshold(args.models_dir)
    det = _detector(args, min(0.05, threshold))
    reports, results_all = [], []
    for root in args.data:
        try:
            results, ms = ev.run_detector(det, root, progress=not args.json)
        except FileNotFoundError as exc:
            raise CliError(str(exc)) from exc
        rep = ev.evaluate(results, str(root), threshold, not args.no_boxes, ms)
        reports.append(rep)
        results_all += results
        if not args.json:
            print(ev.format_report(rep), flush=True)
    if args.json:
        print(json.dumps([r.to_json() for r in reports]))
    if args.failures:
        print(ev.failure_sheet(results_all, threshold, args.failures), file=sys.stderr)
    return 0


def _need_training_packages():
    from hakam.cli import CliError

    try:
        import torch  # noqa: F401
        import ultralytics  # noqa: F401
    except ImportError as exc:
        raise CliError(
            "training needs torch and ultralytics: `.venv/bin/pip install -e '.[train]'`"
        ) from exc


def _train(args) -> int:
    from hakam import training
    from hakam.cli import CliError

    _need_training_packages()
    recipe = training.load_recipe(args.recipe)
    for key in ("imgsz", "batch"):
        if getattr(args, key):
            recipe[key] = getattr(args, key)
    real = None if str(args.real) == "none" else args.real
    try:
        if real is not None:
            training.check_not_eval_only(real)
            if not (real / "data.yaml").exists():
                raise CliError(f"--real {real}: no data.yaml (use 'none' to train without it)")
    except training.EvalOnlyDataError as exc:
        raise CliError(str(exc)) from exc
    work = args.out.parent / (args.out.name + "-data")
    synth = args.synth or work / "synth"
    if not (synth / "train" / "images").is_dir():
        from datasets.generator import SynthConfig, default_workers, generate

        n = args.synth_n or int(recipe["synth_images"])
        print(f"[train] generating {n} synthetic scenes in {synth}", flush=True)
        generate(
            SynthConfig(
                synth,
                n,
                int(recipe["synth_seed"]),
                int(recipe["imgsz"]),
                default_workers(),
                0.04,
                0.0,
            )
        )
    real_prepared = None
    if real is not None:
        real_prepared = work / "real"
        if not (real_prepared / "train" / "images").is_dir():
            print(f"[train] remapping real photos from {real}", flush=True)
            training.prepare_real(real, real_prepared)
    data_yaml = training.build_data_yaml(work, synth, real_prepared, int(recipe["real_repeat"]))
    weights = None
    if not args.scratch and args.resume is None:
        weights = args.weights or (training.SHIPPED_PT if training.SHIPPED_PT.exists() else None)
    if weights is not None and not Path(weights).exists():
        raise CliError(f"--from {weights}: no such weights file")
    if args.resume is not None and not args.resume.exists():
        raise CliError(f"--resume {args.resume}: no such checkpoint")
    print(
        f"[train] data {data_yaml}; starting from {args.resume or weights or recipe['model']}",
        flush=True,
    )
    best = training.train(
        data_yaml,
        args.out,
        recipe,
        weights=weights,
        resume=args.resume,
        hours=args.hours,
        epochs=args.epochs,
        device=args.device,
        workers=2,
        save_to=args.out / "checkpoints",
        threads=2,
    )
    print(json.dumps({"best": str(best)}))
    return 0


def _export(args) -> int:
    from hakam import training
    from hakam.cli import CliError

    _need_training_packages()
    if not args.weights.exists():
        raise CliError(f"{args.weights}: no such weights file")
    info = training.export(args.weights, args.out, args.imgsz)
    print(json.dumps(info))
    return 0


def _bundle(args) -> int:
    from hakam import training

    print(json.dumps(training.make_bundle(args.out, args.real, args.wheels)))
    return 0
