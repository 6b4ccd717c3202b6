"""The shapes the parser and the command groups agree on: a command's handler, the
parser's maker of a command that talks to a server (handed to a group that adds its
own commands, e.g. ``arena.cli.ladder``, ``arena.cli.leagues``), and the ``--limit``
of every ``list`` command."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from rich.console import Console

from arena.core import arguments

Handler = Callable[[argparse.Namespace, Console], int]
"""Runs a command with its parsed arguments; returns the exit status."""
ClientCommand = Callable[[Any, str, str, Handler], argparse.ArgumentParser]
"""Adds a command (subparsers, name, help, handler) with the options of a server client."""


def add_limit(command: argparse.ArgumentParser, what: str) -> None:
    """``--limit N``: a list command shows only the first N ``what`` (all without it)."""
    command.add_argument("--limit", type=arguments.positive_int, default=None, metavar="N",
                         help=f"only the first N {what} (default: all, read page by page)")
