"""Arena servers for tests: ``servers(folder)`` starts as many as a test asks for and
stops them all at its end. The fixtures ``serve`` and ``server`` (tests/arena/conftest.py)
are built on it; a module-scoped fixture may use it directly."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tests.helpers.fake_runner import run_fake_series

if TYPE_CHECKING:
    from arena.server.app import RunningServer

ServerFactory = Callable[..., "RunningServer"]
"""``serve(*, database=None, runner=run_fake_series, **options)``: see ``servers``."""


@contextmanager
def servers(folder: Path) -> Iterator[ServerFactory]:
    """A factory of arena servers, every one stopped when the block ends.

    ``serve()`` is a server on a fresh ``folder/arena.db`` on a free port whose
    seasons play with the fake runner (``run_fake_series``: no bot process starts);
    ``database=`` serves another file, ``runner=`` plays with another runner (``None``:
    the production runner, bots really run), and any other keyword is
    ``start_server``'s (``resume=False``, ``http=("127.0.0.1", 0)``, ``upload_limits=``,
    ``vetting_sandbox=``...)."""
    from arena.server.app import start_server

    started: list[RunningServer] = []

    def serve(*, database: Path | None = None, runner: Any = run_fake_series,
              **options: Any) -> RunningServer:
        if runner is not None:
            options["runner_factory"] = lambda config: runner
        running = start_server(database or folder / "arena.db", port=0, **options)
        started.append(running)
        return running

    try:
        yield serve
    finally:
        for running in reversed(started):
            running.stop(grace=None)


def with_bots(running: RunningServer, folder: Path,
              names: tuple[str, ...] = ("greedy", "random")) -> RunningServer:
    """``running`` with small bot folders of ``names`` (made under ``folder/bots``)
    registered by the admin; the fake runner plays a name holding "random" at random."""
    from arena.cli.client import ArenaClient
    from tests.helpers.arena_helpers import make_bot_folder, upload_folder

    with ArenaClient(running.address, running.token) as client:
        for name in names:
            upload_folder(client.stub, client.auth, make_bot_folder(folder / "bots", name))
    return running
