"""``hakam gui``: the table overlay window (Qt is imported only when the command runs)."""

from __future__ import annotations

import argparse


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("gui", help="open the table overlay (score sheet, live view)")
    p.add_argument("--lang", choices=("en", "ar"), default=None, help="language (default: last)")
    p.add_argument(
        "--demo",
        action="store_true",
        help="play the bundled demo match into the live view, as the camera would",
    )
    p.add_argument("--fps", type=float, default=4.0, help="pace of --demo (frames per second)")
    p.add_argument(
        "--data-dir", default=None, help="folder of the match file (default: user data folder)"
    )
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    from hakam.gui.views.main_window import run

    return run(args.data_dir, args.lang, args.demo, args.fps)
