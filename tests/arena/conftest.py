"""Fixtures shared by the arena's tests (tests/arena/*): processes a test starts, and
the one arena server fixture (``server``) with its factory (``serve``) for tests that
need a server configured otherwise (tests/helpers/servers.py)."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.helpers.servers import ServerFactory, servers

if TYPE_CHECKING:
    from arena.server.app import RunningServer


@pytest.fixture
def processes() -> Iterator[list[subprocess.Popen[bytes]]]:
    """Processes a test starts (e.g. ``arena serve``): killed at its end if alive."""
    started: list[subprocess.Popen[bytes]] = []
    yield started
    for process in started:
        if process.poll() is None:
            process.kill()
            process.wait()


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[ServerFactory]:
    """Starts arena servers on ``tmp_path`` for one test, each stopped at its end
    (``serve(**options)``: ``tests.helpers.servers.servers`` says which options)."""
    with servers(tmp_path) as start:
        yield start


@pytest.fixture
def server(serve: ServerFactory) -> RunningServer:
    """An arena server on a fresh database that plays with the fake runner (``serve()``).
    A test module needing another configuration overrides this fixture with a
    ``serve(...)`` call of its options."""
    return serve()
