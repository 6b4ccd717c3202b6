"""How long the seats' logs of a series are kept (``arena serve
--log-retention-days``): a thread of the server deletes those stored longer ago
(``arena.storage.seat_logs.prune_seat_logs``) when it starts and every hour. The
results and the replays are kept for ever; only the bots' own words go."""

from __future__ import annotations

import logging
import threading
from typing import Final

from arena.storage import Storage, prune_seat_logs

log = logging.getLogger(__name__)

PRUNE_EVERY_S: Final = 3600.0


class LogRetention:
    """Prunes the seat logs older than ``days`` (0: keeps them for ever) until stopped."""

    def __init__(self, storage: Storage, days: float, *, every_s: float = PRUNE_EVERY_S
                 ) -> None:
        self.storage = storage
        self.days = days
        self.every_s = every_s
        self._stopped = threading.Event()
        self._thread: threading.Thread | None = None

    def prune(self) -> int:
        """Prune once now; how many seat logs went."""
        if self.days <= 0:
            return 0
        removed = prune_seat_logs(self.storage, self.days)
        if removed:
            log.info("removed %d seat log(s) older than %g day(s)", removed, self.days)
        return removed

    def start(self) -> None:
        """Prune now, then every ``every_s`` seconds on a thread of its own."""
        if self.days <= 0:
            return
        self.prune()
        self._thread = threading.Thread(target=self._run, name="log-retention", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stopped.wait(self.every_s):
            try:
                self.prune()
            except Exception:  # a locked database: try again at the next turn
                log.exception("pruning old seat logs failed")

    def stop(self) -> None:
        self._stopped.set()
