"""``hakam model ...`` (train, export, eval, bundle) and ``hakam detect``.

Training and export need the ``train`` extra (torch, ultralytics); eval and detect run on the
exported model with OpenVINO or ONNX Runtime, the same code path as the live pipeline.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHARED_REAL = ROOT.parent / "shared" / "data" / "real"
DEFAULT_THRESHOLD_FILE = ROOT / "models" / "hakam-cards.json"


def _training_options(p: argparse.ArgumentParser, run: str, shipped: str, scratch: str) -> None:
    """The options both trainers share: data, output, where to start, how long to run."""
    p.add_argument(
        "--real",
        type=Path,
        default=SHARED_REAL / "rf100-poker-cards",
        help="real photos (train/valid splits only); 'none' to skip",
    )
    p.add_argument("--out", type=Path, default=ROOT / "runs" / run)
    p.add_argument(
        "--from",
        dest="weights",
        type=Path,
        default=None,
        help=f"continue from these weights (default: {shipped} if present)",
    )
    p.add_argument("--scratch", action="store_true", help=f"start from {scratch}")
    p.add_argument("--resume", type=Path, default=None, help="resume an interrupted last.pt")
    p.add_argument("--hours", type=float, default=None, help="stop after this much time")


def _grey_option(p: argparse.ArgumentParser) -> None:
    """``--grey``, for the two readers' trainers (they share ``photometric``)."""
    p.add_argument(
        "--grey",
        type=float,
        default=None,
        help="share of training inputs shown without colour (default "
        "reader_training.GREY_SHARE, 0.05)",
    )


def _indices_option(p: argparse.ArgumentParser) -> None:
    """``--indices``/``--no-indices``: the finder of corner indices (``hakam.vision.indices``)."""
    p.add_argument(
        "--indices",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="add the cards the finder of corner indices names (the strips of fans); default: "
        "as the model card says",
    )


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("model", help="card detector: train, export, evaluate")
    msub = p.add_subparsers(dest="model_command", metavar="ACTION")

    t = msub.add_parser("train", help="train or continue the detector (needs the train extra)")
    t.add_argument(
        "--synth",
        type=Path,
        action="append",
        default=None,
        help="synthetic dataset folder (made with `hakam data synth` if missing); repeat to "
        "train on several",
    )
    t.add_argument("--synth-n", type=int, default=None, help="images to generate if missing")
    _training_options(t, "train", "models/hakam-cards.pt", "the model YAML")
    t.add_argument("--epochs", type=int, default=None)
    t.add_argument("--imgsz", type=int, default=None)
    t.add_argument("--batch", type=int, default=None)
    t.add_argument("--device", default=None, help="'cpu', '0' for the first GPU")
    t.add_argument("--recipe", type=Path, default=ROOT / "models" / "recipe.yaml")
    t.set_defaults(func=_train)

    e = msub.add_parser("export", help="write ONNX and OpenVINO files from .pt weights")
    e.add_argument("weights", type=Path)
    e.add_argument("--out", type=Path, default=ROOT / "models")
    e.add_argument("--imgsz", type=int, default=640, help="input side (the long side if dynamic)")
    e.add_argument(
        "--static", action="store_true", help="a fixed square input instead of a free H x W"
    )
    e.add_argument(
        "--stem",
        default="hakam-cards",
        choices=["hakam-cards", "hakam-indices"],
        help="file names: the card detector (default) or the finder of corner indices",
    )
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
    v.add_argument(
        "--stages",
        type=int,
        choices=[1, 2],
        default=None,
        help="1: the detector alone; 2: finder + card reader (default: the shipped choice)",
    )
    v.add_argument(
        "--imgsz",
        type=int,
        default=None,
        help="detector input, long side (default: the shipped one; dynamic models only)",
    )
    _indices_option(v)
    v.add_argument("--json", action="store_true")
    v.set_defaults(func=_eval)

    r = msub.add_parser(
        "train-reader", help="train or continue the card reader, the second stage (train extra)"
    )
    r.add_argument(
        "--data",
        type=Path,
        default=ROOT / "runs" / "reader-data",
        help="crop dataset folder (built from synthetic scenes and rf100 if missing)",
    )
    r.add_argument("--scenes", type=int, default=12000, help="synthetic scenes to cut crops from")
    r.add_argument("--seed", type=int, default=11, help="seed of those scenes and crops")
    r.add_argument(
        "--court-swap",
        type=float,
        default=0.5,
        help="share of scenes whose J/Q/K wear another card's figure, so only the corner "
        "index names them (0 to 1)",
    )
    r.add_argument(
        "--disguise",
        type=float,
        default=0.5,
        help="share of those borrowed figures recoloured and turned, so no design's figure "
        "names a card (0 to 1)",
    )
    r.add_argument(
        "--leave-out",
        default="",
        help="comma-separated training designs kept out of the crops (tuning designs: judge "
        "the reader on them with a `data synth --designs` set)",
    )
    _training_options(r, "reader", "models/hakam-reader.pt", "random weights")
    _grey_option(r)
    r.add_argument("--epochs", type=int, default=12)
    r.add_argument("--batch", type=int, default=128)
    r.add_argument("--lr", type=float, default=3e-3, help="peak learning rate (one cycle)")
    r.add_argument(
        "--size",
        type=int,
        default=None,
        help="the reader's input side in pixels (default: that of the starting weights, 112 "
        "from scratch); a larger side keeps more of the corner index, for more time per crop",
    )
    r.set_defaults(func=_train_reader)

    c = msub.add_parser(
        "train-corners",
        help="train or continue the corner reader's outline or index network, or the strip "
        "reader that names the finder of corner indices' boxes (train extra)",
    )
    c.add_argument("network", choices=["outline", "index", "strip"])
    c.add_argument(
        "--data",
        type=Path,
        action="append",
        default=None,
        help="sample folder (built from synthetic scenes if missing; repeat to train on "
        "several; default runs/corner-data)",
    )
    c.add_argument(
        "--real",
        type=Path,
        default=SHARED_REAL / "rf100-poker-cards",
        help="index and strip: real photos (train/valid splits); index: cut along the outlines "
        "that --outline draws; strip: the --finder's boxes on the train photos (valid is kept "
        "to judge it), named by where they lie in that outline; 'none' to skip",
    )
    c.add_argument(
        "--outline",
        type=Path,
        default=ROOT / "models" / "hakam-outline.onnx",
        help="index and strip: the exported outline network drawn on the real photos' cards",
    )
    c.add_argument("--scenes", type=int, default=12000, help="synthetic scenes to cut from")
    c.add_argument(
        "--leave-out",
        default="",
        help="comma-separated training designs kept out of the synthetic samples (tuning "
        "designs, as train-reader --leave-out)",
    )
    c.add_argument("--seed", type=int, default=31, help="seed of those scenes")
    c.add_argument(
        "--index-scenes",
        type=Path,
        action="append",
        default=None,
        help="strip only: folders of `hakam data synth --boxes indices` whose training splits "
        "the samples are cut from (repeat for several)",
    )
    c.add_argument(
        "--finder",
        type=Path,
        default=ROOT / "models" / "hakam-indices_openvino",
        help="strip only: the exported finder of corner indices whose boxes are cut",
    )
    c.add_argument(
        "--finder-boxes",
        action="store_true",
        help="samples cut here also give outline samples from the shipped finder's own boxes",
    )
    c.add_argument(
        "--wide-boxes",
        action="store_true",
        help="samples cut here also give outline samples from each card's box reaching past "
        "it on one side, as a finder's box holding a hand or a neighbour does",
    )
    c.add_argument(
        "--joined-boxes",
        action="store_true",
        help="samples cut here also give outline samples from each card's box joined with "
        "part of what overlaps it in the scene (a neighbour, a hand)",
    )
    c.add_argument(
        "--cut-along",
        type=Path,
        default=None,
        help="samples cut here also give index samples cut along this exported outline "
        "network's outlines on the shipped finder's boxes",
    )
    c.add_argument("--out", type=Path, default=None, help="default runs/<network>")
    c.add_argument("--from", dest="weights", type=Path, default=None, help="start from these")
    c.add_argument("--resume", type=Path, default=None, help="resume an interrupted last.pt")
    c.add_argument("--epochs", type=int, default=8)
    c.add_argument("--batch", type=int, default=128)
    c.add_argument("--lr", type=float, default=3e-3, help="peak learning rate (one cycle)")
    _grey_option(c)
    c.add_argument(
        "--busy",
        type=float,
        default=None,
        help="index only: share of samples given art under the index (default "
        "corner_training.BUSY_SHARE; 0 as before index round 3)",
    )
    c.add_argument(
        "--lettering",
        type=int,
        default=0,
        help="index and strip: add this many corner indices drawn in the system's typefaces "
        "(hakam.training.lettering: four corners for index, one index cut as a strip for "
        "strip; built once into <first --data>-lettering)",
    )
    c.set_defaults(func=_train_corners)

    e = msub.add_parser(
        "export-corners", help="write a corner reader network's ONNX and OpenVINO files"
    )
    e.add_argument("checkpoint", type=Path)
    e.add_argument("--out", type=Path, default=ROOT / "models")
    e.set_defaults(func=_export_corners)

    x = msub.add_parser("export-reader", help="write the reader's ONNX and OpenVINO files")
    x.add_argument("checkpoint", type=Path)
    x.add_argument("--out", type=Path, default=ROOT / "models")
    x.set_defaults(func=_export_reader)

    q = msub.add_parser(
        "quantize",
        help="rebuild the OpenVINO finder, reader, outline and index networks in 8 bits from "
        "the ONNX files (needs nncf)",
    )
    q.add_argument(
        "--only",
        action="append",
        choices=("finder", "reader", "outline", "index"),  # hakam.training.quantize.NETWORKS
        help="quantize only this network (repeatable); default: all four",
    )
    q.add_argument("--models-dir", type=Path, default=ROOT / "models")
    q.add_argument("--scenes", type=int, default=200, help="synthetic calibration scenes")
    q.add_argument(
        "--real",
        type=Path,
        default=SHARED_REAL / "rf100-poker-cards",
        help="real calibration photos (train split only); 'none' to skip",
    )
    q.set_defaults(func=_quantize)

    u = msub.add_parser(
        "tune", help="choose thresholds (and one or two stages) on tuning sets; never eval sets"
    )
    u.add_argument("--data", type=Path, action="append", required=True, help="YOLO folder")
    u.add_argument("--models-dir", type=Path, default=None)
    u.add_argument("--backend", choices=["openvino", "onnx"], default=None)
    u.add_argument("--write", action="store_true", help="store the choice in hakam-cards.json")
    u.add_argument(
        "--indices-only",
        action="store_true",
        help="choose only the finder of corner indices' threshold and size (photos), beside the "
        "shipped two-stage settings; run it again after a new two-stage choice",
    )
    u.add_argument(
        "--outline-only",
        action="store_true",
        help="choose only how many times the corner reader draws each outline, and from "
        "which boxes (trim), beside the shipped two-stage settings at their threshold",
    )
    u.set_defaults(func=_tune)

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
    d.add_argument("--stages", type=int, choices=[1, 2], default=None)
    _indices_option(d)
    d.set_defaults(func=_detect)


def _detector(args, conf: float):
    from hakam.errors import UserError
    from hakam.vision.detector import DetectorError, make_detector

    try:
        return make_detector(
            args.backend,
            args.models_dir,
            conf=conf,
            stages=args.stages,
            imgsz=getattr(args, "imgsz", None),
            indices=args.indices,
        )
    except DetectorError as exc:
        raise UserError(str(exc)) from exc


def _detect(args) -> int:
    import cv2

    from hakam.engine.cards import CARD_NAMES
    from hakam.errors import one_line
    from hakam.vision.detector import shipped_threshold

    threshold = (
        args.threshold
        if args.threshold is not None
        else shipped_threshold(args.models_dir, args.stages)
    )
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
    from hakam.errors import UserError
    from hakam.training import evaluation as ev
    from hakam.vision.detector import shipped_threshold

    threshold = (
        args.threshold
        if args.threshold is not None
        else shipped_threshold(args.models_dir, args.stages)
    )
    det = _detector(args, min(0.05, threshold))
    reports, results_all = [], []
    for root in args.data:
        try:
            results, ms = ev.run_detector(det, root, progress=not args.json)
        except FileNotFoundError as exc:
            raise UserError(str(exc)) from exc
        rep = ev.evaluate(results, str(root), threshold, not args.no_boxes, ms)
        cards = getattr(det, "cards", det)  # the whole-card reads, without the indices
        if hasattr(cards, "reader") and (root / "meta").is_dir():
            rep.reader_on_truth = ev.reader_on_truth(cards.read_boxes, root)
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
    from hakam.errors import UserError

    try:
        import torch  # noqa: F401
        import ultralytics  # noqa: F401
    except ImportError as exc:
        raise UserError(
            "training needs torch and ultralytics: `.venv/bin/pip install -e '.[train]'`"
        ) from exc


def _real_photos(real: Path) -> Path | None:
    """The ``--real`` folder of training photos, checked: None for 'none', never an eval set."""
    from hakam.errors import UserError
    from hakam.training import detector as training

    if str(real) == "none":
        return None
    try:
        training.check_not_eval_only(real)
    except training.EvalOnlyDataError as exc:
        raise UserError(str(exc)) from exc
    if not (real / "data.yaml").exists():
        raise UserError(f"--real {real}: no data.yaml (use 'none' to train without it)")
    return real


def _train(args) -> int:
    from hakam.errors import UserError
    from hakam.training import detector as training

    _need_training_packages()
    recipe = training.load_recipe(args.recipe)
    for key in ("imgsz", "batch"):
        if getattr(args, key):
            recipe[key] = getattr(args, key)
    real = _real_photos(args.real)
    if real is not None and recipe.get("synth_boxes") == "indices":
        raise UserError(
            f"--real {args.real}: its boxes are whole cards, and this recipe trains on corner "
            "indices (give --real none)"
        )
    work = args.out.parent / (args.out.name + "-data")
    synths = args.synth or [work / "synth"]
    for folder in synths[1:]:
        if not (folder / "train" / "images").is_dir():
            raise UserError(
                f"--synth {folder}: no train/images (only the first is drawn if missing)"
            )
    synth = synths[0]
    if not (synth / "train" / "images").is_dir():
        from hakam.datasets.generator import SynthConfig, default_workers, generate

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
                closeups=float(recipe.get("synth_closeups", 0.0)),
                boxes=str(recipe.get("synth_boxes", "cards")),
            )
        )
    real_prepared = None
    if real is not None:
        real_prepared = work / "real"
        if not (real_prepared / "train" / "images").is_dir():
            print(f"[train] remapping real photos from {real}", flush=True)
            training.prepare_real(real, real_prepared)
    data_yaml = training.build_data_yaml(work, synths, real_prepared, int(recipe["real_repeat"]))
    weights = None
    if not args.scratch and args.resume is None:
        weights = args.weights or (training.SHIPPED_PT if training.SHIPPED_PT.exists() else None)
    if weights is not None and not Path(weights).exists():
        raise UserError(f"--from {weights}: no such weights file")
    if args.resume is not None and not args.resume.exists():
        raise UserError(f"--resume {args.resume}: no such checkpoint")
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
    from hakam.errors import UserError
    from hakam.training import detector as training

    _need_training_packages()
    if not args.weights.exists():
        raise UserError(f"{args.weights}: no such weights file")
    info = training.export(
        args.weights, args.out, args.imgsz, stem=args.stem, dynamic=not args.static
    )
    print(json.dumps(info))
    return 0


def _quantize(args) -> int:
    from hakam.errors import UserError

    info_path = args.models_dir / "hakam-cards.json"
    if not info_path.exists():
        raise UserError(f"--models-dir {args.models_dir}: no hakam-cards.json")
    onnx = args.models_dir / json.loads(info_path.read_text())["onnx"]
    if not onnx.exists():
        raise UserError(f"{onnx}: no such ONNX model (the 8-bit models are made from it)")
    if args.scenes < 1:
        raise UserError(f"--scenes {args.scenes}: must be at least 1")
    try:
        import nncf  # noqa: F401
    except ImportError as exc:
        raise UserError("quantizing needs nncf: `.venv/bin/pip install -e '.[dev]'`") from exc
    from hakam.training import quantize

    real = _real_photos(args.real)
    try:
        done = quantize.quantize_models(args.models_dir, args.scenes, real, networks=args.only)
        print(json.dumps(done))
    except (RuntimeError, ValueError) as exc:  # no card art; a network's files missing
        raise UserError(str(exc)) from None
    return 0


def _bundle(args) -> int:
    from hakam.training import detector as training

    print(json.dumps(training.make_bundle(args.out, args.real, args.wheels)))
    return 0


def _train_reader(args) -> int:
    from hakam.errors import UserError
    from hakam.training import reader as reader_training

    for flag, value in (("--court-swap", args.court_swap), ("--disguise", args.disguise)):
        if not 0.0 <= value <= 1.0:
            raise UserError(f"{flag} {value}: must be between 0 and 1")
    grey = _grey_share(args)
    leave_out = _leave_out(args.leave_out)
    summary = args.data / "summary.json"
    if (args.data / "crops.npy").exists() and summary.exists():
        cut = json.loads(summary.read_text()).get("left_out", [])
        if sorted(cut) != sorted(leave_out):
            raise UserError(
                f"--data {args.data}: its crops leave out {cut or 'no design'}, not "
                f"{list(leave_out) or 'no design'}; use another --data folder"
            )
    try:
        import torch
    except ImportError as exc:
        raise UserError("training needs torch: `.venv/bin/pip install -e '.[train]'`") from exc
    shipped = ROOT / "models" / "hakam-reader.pt"
    if args.weights is None and not args.scratch and args.resume is None and shipped.exists():
        args.weights = shipped
    for path, what in ((args.resume, "--resume"), (args.weights, "--from")):
        if path is not None and not path.exists():
            raise UserError(f"{what} {path}: no such checkpoint")
    if args.size is not None and not 32 <= args.size <= 512:
        raise UserError(f"--size {args.size}: between 32 and 512 pixels")
    if args.resume is not None and args.size is not None:
        from hakam.training.reader import checkpoint_size

        kept = checkpoint_size(torch.load(args.resume, weights_only=False))
        if kept != args.size:
            raise UserError(f"--size {args.size}: {args.resume} was trained at {kept}")
    if not (args.data / "crops.npy").exists():
        real = _real_photos(args.real)
        print(f"[reader] cutting crops from {args.scenes} scenes into {args.data}", flush=True)
        reader_training.build_crops(
            args.data,
            args.scenes,
            real,
            seed=args.seed,
            court_swap=args.court_swap,
            disguised=args.disguise,
            leave_out=leave_out,
        )
    best = reader_training.train_reader(
        args.data,
        args.out,
        epochs=args.epochs,
        hours=args.hours,
        batch=args.batch,
        resume=args.resume,
        weights=args.weights,
        lr=args.lr,
        size=args.size,
        grey=grey,
    )
    print(json.dumps({"best": str(best)}))
    return 0


def _grey_share(args) -> float:
    """``--grey`` (default ``reader_training.GREY_SHARE``); a one-line error outside 0 to 1."""
    from hakam.errors import UserError
    from hakam.training.reader import GREY_SHARE

    if args.grey is not None and not 0 <= args.grey <= 1:
        raise UserError(f"--grey {args.grey}: a share from 0 to 1")
    return GREY_SHARE if args.grey is None else args.grey


def _leave_out(text: str) -> tuple[str, ...]:
    """The training designs named in ``--leave-out`` (tuning designs); one-line errors."""
    from hakam.datasets import art
    from hakam.errors import UserError

    try:
        return tuple(d.name for d in art.training_designs(
            n.strip() for n in text.split(",") if n.strip()
        ))  # fmt: skip
    except ValueError as exc:
        raise UserError(f"--leave-out: {exc}") from None


def _train_corners(args) -> int:
    from hakam.errors import UserError
    from hakam.training import corners as corner_training

    try:
        import torch  # noqa: F401
    except ImportError as exc:
        raise UserError("training needs torch: `.venv/bin/pip install -e '.[train]'`") from exc
    for path, what in ((args.resume, "--resume"), (args.weights, "--from")):
        if path is not None and not path.exists():
            raise UserError(f"{what} {path}: no such checkpoint")
    leave_out = _leave_out(args.leave_out)
    folders = args.data or [ROOT / "runs" / "corner-data"]
    for folder in folders:
        summary = folder / "summary.json"
        if (folder / "card.npy").exists() and summary.exists():
            info = json.loads(summary.read_text())
            cut = info.get("left_out", [])
            drawn = "real" in info or "lettering" in info  # photos and lettering: no design
            if not drawn and sorted(cut) != sorted(leave_out):
                raise UserError(
                    f"--data {folder}: its samples leave out {cut or 'no design'}, not "
                    f"{list(leave_out) or 'no design'}; use another --data folder"
                )
    if args.epochs < 1:
        raise UserError(f"--epochs {args.epochs}: must be at least 1")
    grey = _grey_share(args)
    if args.lettering < 0 or (args.lettering and args.network == "outline"):
        raise UserError(
            f"--lettering {args.lettering}: a number of index or strip samples (not outline)"
        )
    if args.network == "strip":
        return _train_strip(args, folders, grey, leave_out)
    for k, folder in enumerate(folders):
        if not (folder / "card.npy").exists():
            print(f"[corners] cutting samples from {args.scenes} scenes into {folder}", flush=True)
            corner_training.build_samples(
                folder,
                args.scenes,
                seed=args.seed + k,
                leave_out=leave_out,
                finder_boxes=args.finder_boxes,
                cut_along=args.cut_along,
                wide_boxes=args.wide_boxes,
                joined_boxes=args.joined_boxes,
            )
    real = _real_photos(args.real) if args.network == "index" else None
    if real is not None:
        if not args.outline.exists():
            raise UserError(f"--outline {args.outline}: no such model (or --real none)")
        folder = folders[0].with_name(folders[0].name + "-real")
        _check_cut_with(folder, {"outline_sha256": args.outline})
        if not (folder / "card.npy").exists():
            print(f"[corners] cutting {real}'s cards into {folder}", flush=True)
            corner_training.build_real_samples(folder, real, args.outline)
        folders.append(folder)
    if args.lettering:
        folders.append(_lettering_folder(folders[0], args.lettering, args.seed))
    out = args.out or ROOT / "runs" / args.network
    best = corner_training.train_net(
        args.network,
        folders,
        out,
        epochs=args.epochs,
        batch=args.batch,
        lr=args.lr,
        resume=args.resume,
        weights=args.weights,
        busy=corner_training.BUSY_SHARE if args.busy is None else args.busy,
        grey=grey,
    )
    print(f"[corners] best: {best}; next: hakam model export-corners {best}", flush=True)
    return 0


def _train_strip(args, folders: list[Path], grey: float, leave_out: tuple[str, ...]) -> int:
    """The strip reader: samples cut from index scenes along the finder's boxes, then train."""
    from hakam.errors import UserError
    from hakam.training import corners as corner_training

    for k, folder in enumerate(folders):
        if (folder / "card.npy").exists() and not (folder / "strip.npy").exists():
            raise UserError(f"--data {folder}: holds corner samples, not strips")
        if (folder / "strip.npy").exists():
            continue
        if k:  # the same scenes and seed would cut the same samples again
            raise UserError(f"--data {folder}: no strips there; only the first --data is cut")
        if not args.index_scenes:
            raise UserError(f"--data {folder}: no strips there; give --index-scenes to cut them")
        for scenes in args.index_scenes:
            if not (scenes / "train" / "labels").is_dir():
                raise UserError(f"--index-scenes {scenes}: no train/labels (data synth --boxes "
                               "indices)")  # fmt: skip
        if not args.finder.exists():
            raise UserError(f"--finder {args.finder}: no such model")
        print(f"[corners] cutting strips into {folder}", flush=True)
        try:
            corner_training.build_strip_samples(
                folder, args.index_scenes, args.finder, args.seed, leave_out=leave_out
            )
        except FileNotFoundError as exc:
            raise UserError(str(exc)) from None
    real = _real_photos(args.real)
    if real is not None:
        folders.append(_real_strip_folder(folders[0], real, args))
    if args.lettering:
        folders.append(_lettering_folder(folders[0], args.lettering, args.seed, kind="strip"))
    out = args.out or ROOT / "runs" / "strip"
    best = corner_training.train_net(
        "strip", folders, out, epochs=args.epochs, batch=args.batch, lr=args.lr,
        resume=args.resume, weights=args.weights, grey=grey,
    )  # fmt: skip
    print(f"[corners] best: {best}; next: hakam model export-corners {best}", flush=True)
    return 0


def _real_strip_folder(first: Path, real: Path, args) -> Path:
    """The strip samples of the real training photos next to the first sample folder: cut
    once with ``--finder`` and ``--outline``, refused if cut with other networks."""
    from hakam.errors import UserError
    from hakam.training import corners as corner_training

    folder = first.with_name(first.name + "-real")
    for path, what in ((args.finder, "--finder"), (args.outline, "--outline")):
        if not path.exists():
            raise UserError(f"{what} {path}: no such model (or --real none)")
    if _check_cut_with(folder, {"finder_sha256": args.finder, "outline_sha256": args.outline}):
        return folder
    print(f"[corners] cutting strips of {real}'s photos into {folder}", flush=True)
    try:
        corner_training.build_real_strip_samples(folder, real, args.finder, args.outline,
                                                 args.seed)  # fmt: skip
    except FileNotFoundError as exc:
        raise UserError(str(exc)) from None
    return folder


def _check_cut_with(folder: Path, networks: dict[str, Path]) -> bool:
    """Whether ``folder`` already holds real samples, refused when they were cut with other
    networks than ``networks`` (summary key -> model): samples of another outline or finder
    would be trained on silently."""
    from hakam.errors import UserError
    from hakam.training import corners as corner_training

    summary = folder / "summary.json"
    if not summary.exists():
        return False
    info = json.loads(summary.read_text())
    for key, path in networks.items():
        if info.get(key) != corner_training.file_digest(path):
            raise UserError(f"{folder} was cut with another network than {path}; remove it to "
                           "cut it again")  # fmt: skip
    return True


def _lettering_folder(first: Path, n: int, seed: int, kind: str = "index") -> Path:
    """``n`` lettering samples of ``seed`` and ``kind`` ("index" or "strip") next to the first
    sample folder: built once, and refused if the folder there holds another number, seed or
    kind."""
    from hakam.errors import UserError
    from hakam.training import lettering

    folder = first.with_name(first.name + "-lettering")
    summary = folder / "summary.json"
    if summary.exists():
        info = json.loads(summary.read_text())
        if (info.get("lettering"), info.get("seed"), info.get("kind", "index")) != (n, seed, kind):
            raise UserError(
                f"{folder} holds {info.get('lettering')} {info.get('kind', 'index')} lettering "
                f"samples of seed {info.get('seed')}, not {n} {kind} ones of seed {seed}; "
                "remove it to draw them again"
            )
        return folder
    try:
        print(f"[corners] drawing {n} corner indices into {folder}", flush=True)
        lettering.build_lettering(folder, n, seed, kind=kind)
    except RuntimeError as exc:
        raise UserError(str(exc)) from None
    return folder


def _export_corners(args) -> int:
    from hakam.errors import UserError
    from hakam.training import corners as corner_training

    if not args.checkpoint.exists():
        raise UserError(f"{args.checkpoint}: no such checkpoint")
    print(json.dumps(corner_training.export_net(args.checkpoint, args.out)))
    return 0


def _export_reader(args) -> int:
    from hakam.errors import UserError
    from hakam.training import reader as reader_training

    if not args.checkpoint.exists():
        raise UserError(f"{args.checkpoint}: no such checkpoint")
    print(json.dumps(reader_training.export_reader(args.checkpoint, args.out)))
    return 0


def _tune(args) -> int:
    from hakam.training import tuning

    return tuning.tune(args)
