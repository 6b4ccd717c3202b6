"""What image builds share inside one arena process: one lock per image, the failed
builds remembered, a bounded log, and removing a stopped build's step containers.

A build holds only the lock of the image it makes (its content hash), so a slow or
endless build of one bot never holds up another bot's build or start. A build that
failed because of the bot (its Dockerfile, its time limit, its size) is remembered by
content hash: the next series of the same files fails at once with the same reason
instead of building again. A changed bot (or base image) has another hash and is
built afresh.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections import OrderedDict, deque
from typing import Any

import docker.errors  # type: ignore[import-untyped]

__all__ = ["BUILDS", "BuildMemory", "LogTail", "remove_build_containers"]

log = logging.getLogger(__name__)


class BuildMemory:
    """Per-image locks and the remembered failures (bounded, oldest forgotten first)."""

    def __init__(self, capacity: int = 512) -> None:
        self.capacity = capacity
        self._guard = threading.Lock()
        self._locks: dict[str, threading.Lock] = {}
        self._failures: OrderedDict[str, str] = OrderedDict()

    def lock(self, content_hash: str) -> threading.Lock:
        """The lock of the image with ``content_hash`` (the same object every time)."""
        with self._guard:
            return self._locks.setdefault(content_hash, threading.Lock())

    def failure(self, content_hash: str) -> str | None:
        """Why the build of ``content_hash`` failed before, if it did."""
        with self._guard:
            return self._failures.get(content_hash)

    def remember_failure(self, content_hash: str, reason: str) -> None:
        with self._guard:
            self._failures[content_hash] = reason
            self._failures.move_to_end(content_hash)
            while len(self._failures) > self.capacity:
                self._failures.popitem(last=False)


BUILDS = BuildMemory()
"""The arena process's build memory (every sandbox and ``arena images build`` share it)."""


class LogTail:
    """The last ``limit`` characters of a build log, kept as it streams in."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._parts: deque[str] = deque()
        self._size = 0
        self.dropped = 0

    def add(self, text: str) -> None:
        if len(text) > self.limit:
            self.dropped += len(text) - self.limit
            text = text[-self.limit:]
        self._parts.append(text)
        self._size += len(text)
        while self._size > self.limit:
            excess = self._size - self.limit
            first = self._parts[0]
            if len(first) <= excess:
                self._parts.popleft()
                self._size -= len(first)
                self.dropped += len(first)
            else:
                self._parts[0] = first[excess:]
                self._size -= excess
                self.dropped += excess

    def text(self) -> str:
        """The kept tail (with a note of how much was dropped before it)."""
        kept = "\n".join(self._parts) + "\n"
        if self.dropped:
            return f"[{self.dropped} earlier characters of the build log dropped]\n{kept}"
        return kept


def remove_build_containers(client: Any, label: str, bound_s: float = 5.0) -> None:
    """Remove the build's step containers now; a step dockerd was still creating
    while the build was cancelled is caught by looking again, for at most ``bound_s``."""
    give_up_at = time.monotonic() + bound_s
    while True:
        try:
            found = client.api.containers(all=True, filters={"label": label})
        except docker.errors.DockerException as error:
            log.warning("could not list the build's containers: %s", error)
            return
        if not found:
            return
        for container in found:
            with contextlib.suppress(docker.errors.DockerException):
                client.api.remove_container(container["Id"], force=True)
        if time.monotonic() >= give_up_at:
            log.warning("a build's step container could not be removed (%s)", label)
            return
        time.sleep(0.05)
