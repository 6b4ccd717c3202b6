"""A container's stderr as Docker keeps it: its tail (for a fault) and what it
wrote during one series (``RunningBot.series_stderr``: Docker's logs
start ``since`` a time, so a series' mark is the time it began)."""

from __future__ import annotations

import time
from typing import Any

import docker.errors  # type: ignore[import-untyped]


def stderr_mark() -> float:
    """Now, in seconds since the epoch (Docker reads fractions of a second)."""
    return time.time()


def series_stderr(container: Any, mark: object, limit: int) -> tuple[bytes, int]:
    """The end (``limit`` bytes) of ``container``'s stderr since ``mark`` (a time;
    anything else: all of it), and its size in all; nothing if Docker cannot say."""
    try:
        if isinstance(mark, float):
            raw = container.logs(stdout=False, stderr=True, since=mark)
        else:
            raw = container.logs(stdout=False, stderr=True)
    except docker.errors.DockerException:
        return b"", 0
    data = bytes(raw)
    return data[-limit:], len(data)


def stderr_tail(container: Any, limit: int, since: float | None = None) -> str:
    """The last ``limit`` bytes of ``container``'s stderr (of its last 200 lines, since
    the time ``since`` if given)."""
    try:
        raw = (container.logs(stdout=False, stderr=True, tail=200) if since is None
               else container.logs(stdout=False, stderr=True, tail=200, since=since))
    except docker.errors.DockerException as error:
        return f"(stderr unavailable: {error})"
    return bytes(raw[-limit:]).decode("utf-8", errors="replace")
