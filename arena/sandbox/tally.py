"""What this process's sandboxes did, counted across every season: containers started
and kept containers handed another series. A season's own pools count too
(``ReuseCounters``, ``PoolCounters``) but end with the season; the operator's metrics
(``arena.server.metrics``) need totals over the server's life."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field


@dataclass
class SandboxTally:
    """Monotonic counts, safe to bump from any thread."""

    container_starts: int = 0
    container_reuses: int = 0
    container_renewals: int = 0
    """Containers restarted for a fresh bot process (``RunningBot.renew``): with
    ``container_starts``, every bot process started."""
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def started(self) -> None:
        with self._lock:
            self.container_starts += 1

    def renewed(self) -> None:
        with self._lock:
            self.container_renewals += 1

    def reused(self) -> None:
        with self._lock:
            self.container_reuses += 1


TALLY = SandboxTally()
"""The process's one tally (the sandboxes bump it, the metrics read it)."""
