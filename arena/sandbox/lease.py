"""A kept bot leased to one series (``arena.sandbox.reuse``): it is the series'
``RunningBot``, knows which series of its process this is and every deal the
process was dealt, and on ``release`` or ``stop`` goes back to its pool once."""

from __future__ import annotations

from collections.abc import Callable

from arena.core.faults import BotFault
from arena.sandbox.base import InProcessTarget, RunningBot
from arena.sandbox.schedstat import SchedSource

HandBack = Callable[[RunningBot, int, frozenset[str]], None]
"""Takes back a bot that finished a series clean: the bot, the series it served,
the deals it was dealt."""


class Lease(RunningBot):
    """A bot leased to one series. ``release`` hands it back for the version's next
    series; ``stop`` ends it (both return at once, through the pool's callbacks)."""

    def __init__(self, bot: RunningBot, series_number: int, deals: frozenset[str], *,
                 hand_back: HandBack, retire: Callable[[RunningBot], None]) -> None:
        self._bot = bot
        self.series_number = series_number
        """Which series of its process this is (1 for a fresh one)."""
        self.deals = deals
        """Every deal its process was dealt, this series' included (none empty)."""
        self._hand_back = hand_back
        self._retire = retire
        self._done = False

    @property
    def target(self) -> str:
        return self._bot.target

    def wait_ready(self, timeout: float) -> None:
        if self.series_number == 1:  # a reused container's socket was checked and sealed
            self._bot.wait_ready(timeout)

    @property
    def in_process_target(self) -> InProcessTarget | None:
        return self._bot.in_process_target

    def sched_source(self) -> SchedSource:
        return self._bot.sched_source()

    def stderr_mark(self) -> object:  # the lease knows the series, the bot its stderr
        return self._bot.stderr_mark()

    def series_stderr(self, mark: object, limit: int) -> tuple[bytes, int]:
        return self._bot.series_stderr(mark, limit)

    def stderr_tail(self) -> str:
        return self._bot.stderr_tail()

    def fault_if_dead(self, wait_s: float = 0.0) -> BotFault | None:
        return self._bot.fault_if_dead(wait_s)

    def release(self) -> None:
        """The series ended and this bot was not at fault: keep it for the next."""
        if self._done:
            return
        self._done = True
        self._hand_back(self._bot, self.series_number, self.deals)

    def stop(self) -> None:
        if self._done:
            return
        self._done = True
        self._retire(self._bot)
