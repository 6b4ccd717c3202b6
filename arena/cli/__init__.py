"""The ``arena`` command line (see docs/arena.md).

Most commands are clients of a running ``arena serve`` over gRPC (``--server``,
default ``$ARENA_SERVER`` or localhost:50551). Some work on this machine: ``serve``,
``season run`` and ``demo`` start an embedded server on the database for their own
duration (and drive it through the same gRPC API), ``match``, ``play`` and
``replay`` play series here, ``worker`` and ``cluster`` run a Dask cluster.

Modules:

* the frame: ``app`` (entry point, errors and exit statuses), ``parser`` (every
  command and its options), ``commands`` (the shapes the parser and the groups
  share), ``output`` (``CliError``, JSON), ``__main__``;
* talking to a server: ``client`` (``ArenaClient``, loads no server),
  ``credentials`` (where a token comes from), ``watching`` (a live stream that
  survives restarts);
* one module per command group: ``bots``, ``submit`` and ``lifecycle`` (bots and
  their versions), ``authors``, ``seasons``, ``season_options`` (the settings'
  options, from their declarations), ``reads`` (standings, watch, series),
  ``series_logs`` (an owner's logs), ``verify_deal``, ``leagues``, ``ladder``,
  ``challenges``, ``export`` and ``decisions``, ``backup``, ``health``;
* on this machine: ``local`` (serve, season run, match, demo), ``play``, ``replay``,
  ``cluster``;
* the terminal: ``render`` (rich tables and the live view) and
  ``render_statistics`` (Elo, tied marks, the LOS matrix).
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
