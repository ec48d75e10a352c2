"""``hakam data ...``: make and inspect the synthetic training data."""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("data", help="synthetic table scenes: generate and inspect datasets")
    dsub = p.add_subparsers(dest="data_command", metavar="ACTION")

    s = dsub.add_parser("synth", help="write a YOLO dataset of synthetic table scenes")
    s.add_argument("--out", type=Path, required=True, help="output folder")
    s.add_argument("--n", type=int, required=True, help="number of images (all splits)")
    s.add_argument("--seed", type=int, default=0)
    s.add_argument("--imgsz", type=int, default=640, help="long side of the images (px)")
    s.add_argument("--workers", type=int, default=0, help="processes (0: one per core)")
    s.add_argument("--val", type=float, default=0.05, help="share of validation images")
    s.add_argument(
        "--holdout",
        type=float,
        default=0.05,
        help="share of cross-deck test images (hold-out designs only)",
    )
    s.add_argument(
        "--designs",
        default="",
        help="comma-separated training designs for train and val (e.g. a tuning set of designs "
        "a reader was trained without; default: all)",
    )
    s.add_argument(
        "--holdout-designs",
        default="",
        help="comma-separated hold-out designs for the holdout split (default: kennard, paris, "
        "bellot; arabic, the Arabic-index design, only when named)",
    )
    s.add_argument(
        "--closeups",
        type=float,
        default=0.0,
        help="share of scenes drawn as close-ups: a card or two near the camera, half the "
        "frame's height or more (default 0: the table scenes)",
    )
    s.add_argument(
        "--boxes",
        choices=["cards", "indices"],
        default="cards",
        help="what the labels box: whole cards (default) or each corner index that shows, the "
        "card's class on it (for a finder of corner indices)",
    )
    s.set_defaults(func=_synth)

    st = dsub.add_parser("stats", help="class balance, boxes per image, occlusion histogram")
    st.add_argument("dir", type=Path)
    st.add_argument("--json", action="store_true")
    st.set_defaults(func=_stats)

    pv = dsub.add_parser("preview", help="contact sheet PNG with the boxes drawn")
    pv.add_argument("dir", type=Path)
    pv.add_argument("--out", type=Path, default=None, help="PNG path (default DIR/preview.png)")
    pv.add_argument("--n", type=int, default=16)
    pv.add_argument("--split", default=None)
    pv.add_argument("--seed", type=int, default=0)
    pv.set_defaults(func=_preview)

    a = dsub.add_parser("art", help="rasterise the installed deck designs into the art cache")
    a.set_defaults(func=_art)
    p.set_defaults(func=lambda args: p.print_help() or 0)


def _synth(args) -> int:
    from hakam.datasets.generator import SynthConfig, default_workers, generate
    from hakam.errors import UserError

    if args.n <= 0:
        raise UserError("--n must be a positive number of images")
    if not 64 <= args.imgsz <= 4096:
        raise UserError("--imgsz must be between 64 and 4096")
    if not (0 <= args.val <= 1 and 0 <= args.holdout <= 1 and args.val + args.holdout <= 1):
        raise UserError("--val and --holdout must be shares in [0, 1) that add up to at most 1")
    if not 0 <= args.closeups <= 1:
        raise UserError(f"--closeups {args.closeups}: a share from 0 to 1")
    from hakam.datasets import art

    designs = tuple(n.strip() for n in args.designs.split(",") if n.strip())
    try:
        art.training_designs(designs)
        if args.boxes == "indices":
            art.index_box_choice(designs)  # generate draws these; refused here in one line
    except ValueError as exc:
        raise UserError(f"--designs: {exc}") from None
    held = tuple(n.strip() for n in args.holdout_designs.split(",") if n.strip())
    try:
        art.holdout_designs(held)
    except ValueError as exc:
        raise UserError(f"--holdout-designs: {exc}") from None
    cfg = SynthConfig(
        args.out,
        args.n,
        args.seed,
        args.imgsz,
        args.workers or default_workers(),
        args.val,
        args.holdout,
        designs=designs,
        holdout_designs=held,
        closeups=args.closeups,
        boxes=args.boxes,
    )
    try:
        summary = generate(cfg)
    except FileNotFoundError as exc:
        raise UserError(str(exc)) from exc
    print(json.dumps(summary))
    return 0


def _stats(args) -> int:
    from hakam.datasets.inspect import format_stats, stats
    from hakam.errors import UserError

    try:
        report = stats(args.dir)
    except FileNotFoundError as exc:
        raise UserError(str(exc)) from exc
    print(json.dumps(report, indent=1) if args.json else format_stats(report))
    return 0


def _preview(args) -> int:
    from hakam.datasets.inspect import contact_sheet
    from hakam.errors import UserError

    try:
        out = contact_sheet(
            args.dir, args.out or args.dir / "preview.png", args.n, split=args.split, seed=args.seed
        )
    except FileNotFoundError as exc:
        raise UserError(str(exc)) from exc
    print(out)
    return 0


def _art(args) -> int:
    from hakam.datasets.art import ensure_art
    from hakam.errors import UserError

    try:
        for p in ensure_art(progress=True):
            print(p)
    except FileNotFoundError as exc:
        raise UserError(str(exc)) from exc
    return 0
