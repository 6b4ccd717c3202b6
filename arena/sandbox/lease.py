"""A kept bot leased to one series (``arena.sandbox.reuse``): it is the series'
``RunningBot``, knows which series of its process this is and every deal the
process was dealt, and on ``release`` or ``stop`` goes back to its pool once. Also
what the pool keeps of a bot between series (``KeptBot``) and counts."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from arena.core.faults import BotFault
from arena.sandbox.base import InProcessTarget, RunningBot
from arena.sandbox.schedstat import SchedSource

IDLE_CPU_S: Final = 0.25
IDLE_CPU_SHARE: Final = 0.02
"""A kept bot may use ``IDLE_CPU_S`` of CPU plus this share of its idle time between
series (measured idle: 0.1 % for greedy, 0.4 % for js-greedy, their gRPC servers'
housekeeping); one that computes while idle takes a core from the bots that are
playing, so it is replaced rather than reused."""


@dataclass
class ReuseCounters:
    """How the pool served starts (for the benchmark and the log)."""

    reused: int = 0
    started: int = 0
    renewed: int = 0
    """Kept containers given a fresh process (``RunningBot.renew``)."""
    not_renewed: int = 0
    """Replaced because they could not be renewed."""
    retired_series: int = 0
    """Replaced after ``series_per_container`` series."""
    retired_memory: int = 0
    retired_dead: int = 0
    """Found dead when handed back or when taken (not charged: between series)."""
    retired_busy: int = 0
    """Used more than ``IDLE_CPU_S`` of CPU while kept between series."""
    stopped: int = 0
    """Stopped by the series (a fault, an arena-side error) or at the pool's close."""
    expired: int = 0


@dataclass
class KeptBot:
    """A bot kept between its series (idle in its pool)."""

    bot: RunningBot
    served: int
    since: float
    cpu_s: float | None
    """Its CPU seconds when it was kept (None if its sandbox cannot say)."""
    deals: frozenset[str]
    """Every deal it was dealt."""


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


def busy_while_idle(idle: KeptBot, now: float) -> bool:
    """Whether ``idle`` computed more than allowed while kept (``IDLE_CPU_SHARE``)."""
    if idle.cpu_s is None:
        return False
    used = idle.bot.cpu_seconds()
    allowed = IDLE_CPU_S + IDLE_CPU_SHARE * max(0.0, now - idle.since)
    return used is not None and used - idle.cpu_s > allowed
