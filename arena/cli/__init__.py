"""The ``arena`` command line (see docs/arena.md): a thin client of the gRPC API.

Every command but ``serve``, ``season run``, ``demo`` and ``images`` talks to a
running ``arena serve`` over gRPC (``--server``, default ``$ARENA_SERVER`` or
localhost:50551). ``season run`` and ``demo`` start an embedded server on the
database for their own duration and drive it through the same gRPC API.

Modules: ``app`` (entry point, errors and exit statuses), ``parser`` (every
command and its options), one module per command group (``bots``, ``seasons``,
``reads`` for standings, watch and series, ``local`` for the commands that start a
server or use Docker), ``season_options`` (the season settings' options),
``output`` (``CliError``, JSON), ``render`` (rich tables and the live view) and
``client`` (``ArenaClient``).
"""

from __future__ import annotations

from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``arena`` command on ``argv`` (default: ``sys.argv``); its exit status.

    The command modules are imported on the first call, so that importing
    ``arena.cli.client`` alone loads nothing of the parser or the server."""
    from arena.cli.app import main as run

    return run(argv)


__all__ = ["main"]
