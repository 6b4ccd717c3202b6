"""A sandbox backend for lifecycle tests: the in-process sandbox, counting the bots
it starts (registered as ``counting`` by the tests that use it)."""

from __future__ import annotations

import threading

from arena.core.series import BotRef
from arena.sandbox.inprocess import InProcessBot, InProcessSandbox

STARTS: list[str] = []
_LOCK = threading.Lock()


class CountingSandbox(InProcessSandbox):
    """``InProcessSandbox`` that records the name of every bot it is asked to start."""

    name = "counting"

    def start(self, bot: BotRef, *, series_id: str = "", seat: int | None = None
              ) -> InProcessBot:
        with _LOCK:
            STARTS.append(bot.name)
        return super().start(bot, series_id=series_id, seat=seat)
