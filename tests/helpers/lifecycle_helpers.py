"""A sandbox backend for lifecycle tests: the in-process sandbox, counting the bots
it starts (registered as ``counting`` by the tests that use it)."""

from __future__ import annotations

import threading

from arena.core.series import BotRef
from arena.sandbox.inprocess import InProcessBot, InProcessSandbox
from arena.storage import Storage

STARTS: list[str] = []
_LOCK = threading.Lock()


class CountingSandbox(InProcessSandbox):
    """``InProcessSandbox`` that records the name of every bot it is asked to start."""

    name = "counting"

    def start(self, bot: BotRef, *, series_id: str = "", seat: int | None = None, deal: str = ""
              ) -> InProcessBot:
        with _LOCK:
            STARTS.append(bot.name)
        return super().start(bot, series_id=series_id, seat=seat, deal=deal)


def mark_deactivated(storage: Storage, bot_id: str, reason: str) -> None:
    """Leave ``bot_id`` deactivated with ``reason``, as a fault streak would (for the
    views of a deactivated version; the streak itself is tested in test_lifecycle)."""
    with storage.transaction() as db:
        db.execute("INSERT OR IGNORE INTO bot_versions (bot_id, submitted_by, bundle, status, "
                   "status_changed_at) VALUES (?, '', '', 'active', '')", (bot_id,))
        db.execute("UPDATE bot_versions SET status='deactivated', status_detail=? "
                   "WHERE bot_id=?", (reason, bot_id))
