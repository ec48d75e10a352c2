"""The one console command, ``hakam``, with subcommands (this package is the command line only).

Each area registers its own subcommands through a ``register(subparsers)`` function so that
importing the CLI never pulls in heavy packages (Qt, OpenCV, torch) that a command does not need.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from hakam.errors import Terminated, UserError, one_line

# Modules that add subcommands; each has ``register(subparsers) -> None``.
COMMAND_MODULES: tuple[str, ...] = (
    "hakam.cli.engine",
    "hakam.cli.datasets",
    "hakam.cli.vision",
    "hakam.cli.table",
    "hakam.cli.gui",
    "hakam.cli.model",
    "hakam.cli.board",
    "hakam.cli.deck",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="hakam", description="Hakam (حَكَم): a camera referee for Baloot."
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name == name:
                continue  # area not built yet
            raise
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    try:
        return int(args.func(args) or 0)
    except UserError as exc:
        print(f"hakam: error: {one_line(str(exc))}", file=sys.stderr)
        return 2
    except Terminated:
        return 128 + 15  # SIGTERM
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # output piped into `head` and closed: not an error of ours
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
