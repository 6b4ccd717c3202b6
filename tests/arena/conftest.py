"""Fixtures shared by the arena's tests (tests/arena/*)."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator

import pytest


@pytest.fixture
def processes() -> Iterator[list[subprocess.Popen[bytes]]]:
    """Processes a test starts (e.g. ``arena serve``): killed at its end if alive."""
    started: list[subprocess.Popen[bytes]] = []
    yield started
    for process in started:
        if process.poll() is None:
            process.kill()
            process.wait()
