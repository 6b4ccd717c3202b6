"""Real starvation on the real kernel (issue 25, points 1 and 5): the test, and so
the arena and the bots it starts, share one core with many busy processes. A bot
that spins in one thread gets too small a share of the core to reach its limit of
running time before the fair clock's cap, so its series is void
(``ArenaOverload``, with the kernel's figures), not its fault. (On a free core the
same bot is charged: ``tests/arena/match/test_fair_clock.py`` and the hostile suite's
``cpu_spinner``.)"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator

import pytest

from arena.core.faults import ArenaOverload
from arena.core.limits import TimeLimits
from arena.core.series import SeriesSpec
from arena.match.runner import run_series
from arena.sandbox.process import ProcessSandbox
from tests.helpers.sandboxes import HOSTILE_BOTS, SAMPLE_BOTS, bot_ref
from tests.helpers.series_specs import spec

pytestmark = pytest.mark.slow

HOGS_ON_THE_CORE = 16
LIMITS = TimeLimits(startup_s=20.0, decision_s=0.3, reserve_s=0.0)
"""Cap 2.4 s (8 x 0.3 s): a bot with one runnable thread among 16 hogs and the
arena gets under a seventeenth of the core, about 0.14 s of running time by then."""


@pytest.fixture
def one_busy_core() -> Iterator[int]:
    """This process (and every process it starts) on one core with busy hogs; the
    hogs killed and the affinity restored on every path."""
    before = os.sched_getaffinity(0)
    core = min(before)
    hogs: list[subprocess.Popen[bytes]] = []
    try:
        os.sched_setaffinity(0, {core})
        hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"],
                                 start_new_session=True) for _ in range(HOGS_ON_THE_CORE)]
        yield core
    finally:
        for hog in hogs:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(hog.pid, signal.SIGKILL)
            hog.wait()
        os.sched_setaffinity(0, before)


def starved(hostile: str) -> SeriesSpec:
    bots = (bot_ref(HOSTILE_BOTS / hostile), bot_ref(SAMPLE_BOTS / "random"))
    return spec(*bots, f"starved-{hostile}", seed=3, max_hands=3, limits=LIMITS)


def test_a_bot_starved_below_its_limit_voids_the_series(one_busy_core: int) -> None:
    with pytest.raises(ArenaOverload) as raised:
        run_series(starved("spins_alone"), ProcessSandbox())
    assert re.fullmatch(
        r"the bot: no answer to Decide within 0\.30 s of its own time, but in \d+\.\d\d s "
        r"the machine gave it only 0\.\d\d s \(bot CPU 0\.\d\d s, waited for a core "
        r"\d+\.\d\d s(, arena late \d+\.\d\d s)?\)", raised.value.message), raised.value.message
