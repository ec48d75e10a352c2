"""The one console command, ``hakam``, with subcommands.

Each area registers its own subcommands through a ``register(subparsers)`` function so that
importing the CLI never pulls in heavy packages (Qt, OpenCV, torch) that a command does not need.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

# Modules that add subcommands; each has ``register(subparsers) -> None``.
COMMAND_MODULES: tuple[str, ...] = (
    "engine.commands",
    "datasets.commands",
    "vision.commands",
    "gui.commands",
    "hakam.model_commands",
)


class CliError(Exception):
    """A user error: printed as one line, exit status 2."""


def one_line(text: str) -> str:
    """An error is one line, whatever the user's input held (a field name with a newline)."""
    return text.replace("\r", "\\r").replace("\n", "\\n")


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
    except CliError as exc:
        print(f"hakam: error: {one_line(str(exc))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # output piped into `head` and closed: not an error of ours
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
