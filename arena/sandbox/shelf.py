"""Sandboxes that outlive their season: one per backend and ``series_per_container``
for a server's whole life, so a version that plays again soon (the next season, the
next league round, a gate match, the ladder's next round) gets its kept container
back instead of a new start.

Only a backend that reuses bots (``Capabilities.reuses_bots``: ``docker``, a
``arena.sandbox.reuse.ReusePool``) with more than one series per container is kept
here; every rule of the pool still holds across seasons, because it is the same
pool: a container serves one version (name, version, folder, content hash: two
authors' folders never share one), one series at a time, each series opened by
its own Handshake, never the same deal twice; it is replaced after a fault, after
``series_per_container`` series, over its memory limit, and stopped once idle for
the pool's ``idle_s`` (a season that starts within that window of the previous one
starts no bot already up). ``series_per_container=1``
(``--fresh-container-per-series``) and the other backends get a sandbox of the
season's own, closed with it, as before.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable

from arena.sandbox import registry
from arena.sandbox.base import Sandbox

ShelfKey = tuple[str, int]
"""A kept sandbox's backend name and series per container."""


class SandboxShelf:
    """The sandboxes a server keeps across seasons; see the module docstring."""

    def __init__(self, create: Callable[..., Sandbox] = registry.create) -> None:
        self._create = create
        self._lock = threading.Lock()
        self._kept: dict[ShelfKey, Sandbox] = {}
        self._closed = False

    def lend(self, backend: str, series_per_container: int) -> tuple[Sandbox, bool]:
        """The sandbox a season plays in, and whether the shelf keeps it (the season
        must then not close it). Raises ``UnknownSandboxError`` for a backend that is
        not registered."""
        if not registry.backend(backend).capabilities.reuses_bots or series_per_container <= 1:
            return self._create(backend, series_per_container=series_per_container), False
        key = (backend, series_per_container)
        with self._lock:
            if self._closed:
                return self._create(backend, series_per_container=series_per_container), False
            kept = self._kept.get(key)
            if kept is None:
                kept = self._kept[key] = self._create(
                    backend, series_per_container=series_per_container)
            return kept, True

    def close(self) -> None:
        """Close every kept sandbox (their containers stop); later loans are a
        season's own."""
        with self._lock:
            self._closed = True
            kept = list(self._kept.values())
            self._kept.clear()
        for sandbox in kept:
            with contextlib.suppress(Exception):  # the others are closed all the same
                sandbox.close()
