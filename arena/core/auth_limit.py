"""Failed token checks are rate-limited per client address, so guessing tokens
(or flooding the server with bogus ones) is slow for the guesser and costs the
others nothing.

Each client (``arena.core.peers.client_of``: the peer's address without its
port, an IPv6 address by its /64 network, which one host can hold whole) has a
bucket of ``burst`` failures that refills at ``per_second``. A client whose bucket is empty
is refused at once, before its token is looked at, with RESOURCE_EXHAUSTED saying
when to retry; successful calls cost nothing. Guesses sent all at once are all
checked (they pass the door before any has failed) but overdraw the bucket, so
the client then waits for every one of them. The clock is injectable so that
tests need no sleeps.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

MAX_CLIENTS: Final = 10_000
"""Buckets kept at most; full (forgiven) buckets are dropped first."""


@dataclass(frozen=True)
class AuthLimits:
    """How many failed token checks a client may make: ``burst`` at once, then
    ``per_second``."""

    burst: int = 10
    per_second: float = 0.2

    def __post_init__(self) -> None:
        if self.burst < 1 or not self.per_second > 0:
            raise ValueError(f"auth limits need burst >= 1 and per_second > 0, got "
                             f"{self.burst} and {self.per_second}")


@dataclass
class _Bucket:
    tokens: float
    updated: float


class FailedAuthLimiter:
    """Token buckets of failed token checks, one per client."""

    def __init__(self, limits: AuthLimits,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.limits = limits
        self._clock = clock
        self._lock = threading.Lock()
        self._buckets: dict[str, _Bucket] = {}

    def retry_after(self, client: str) -> float | None:
        """Seconds until ``client`` may try a token again, or None if it may now."""
        with self._lock:
            bucket = self._refilled(client)
            if bucket is None or bucket.tokens >= 1:
                return None
            return (1 - bucket.tokens) / self.limits.per_second

    def failed(self, client: str) -> None:
        """Count one failed token check of ``client``."""
        with self._lock:
            bucket = self._refilled(client)
            if bucket is None:
                self._make_room()
                bucket = self._buckets[client] = _Bucket(self.limits.burst, self._clock())
            # Failures of calls that were checked at once overdraw the bucket (up to
            # a second burst): a flood of concurrent guesses pays for every guess.
            bucket.tokens = max(-float(self.limits.burst), bucket.tokens - 1)

    def _refilled(self, client: str) -> _Bucket | None:
        bucket = self._buckets.get(client)
        if bucket is not None:
            now = self._clock()
            bucket.tokens = min(float(self.limits.burst),
                                bucket.tokens + (now - bucket.updated) * self.limits.per_second)
            bucket.updated = now
        return bucket

    def _make_room(self) -> None:
        if len(self._buckets) < MAX_CLIENTS:
            return
        now = self._clock()
        for client, bucket in list(self._buckets.items()):
            refilled = bucket.tokens + (now - bucket.updated) * self.limits.per_second
            if refilled >= self.limits.burst:
                del self._buckets[client]
        while len(self._buckets) >= MAX_CLIENTS:  # all still owing: forget the oldest
            del self._buckets[next(iter(self._buckets))]


def retry_message(client: str, seconds: float) -> str:
    """The refusal of a client that failed too many token checks."""
    return (f"too many failed token checks from {client}: retry in "
            f"{max(1, math.ceil(seconds))} s")
