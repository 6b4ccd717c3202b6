"""The ``arena`` command line: a thin client of the gRPC API (``client``), the
argument parser, one module per command group, and terminal rendering."""

from arena.cli.commands import main

__all__ = ["main"]
