"""The fair clock (issue 25, point 1): a bot is charged the time it had, never the
time the machine did not run it. Fake clocks and fake kernel figures make every
verdict exact; ``test_sandbox_schedstat.py`` reads the real ``/proc``."""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from arena.core.faults import ArenaOverload, BotFault, FaultKind
from arena.match.fair_clock import Meter, Usage, Window

TaskTimes = tuple[float, float]


class Machine:
    """A fake clock with a fake kernel: ``run(seconds, ...)`` moves time on and says
    how each thread spent it (on a core, or runnable and waiting for one)."""

    def __init__(self) -> None:
        self.now = 10.0
        self.bot: dict[int, TaskTimes] = {}
        self.arena: dict[int, TaskTimes] = {}

    def __call__(self) -> float:
        return self.now

    def run(self, seconds: float, *, bot: Mapping[int, TaskTimes] = {},
            arena_waited: float = 0.0) -> None:
        self.now += seconds
        for tid, (ran, waited) in bot.items():
            old_ran, old_waited = self.bot.get(tid, (0.0, 0.0))
            self.bot[tid] = (old_ran + ran, old_waited + waited)
        ran, waited = self.arena.get(1, (0.0, 0.0))
        self.arena[1] = (ran, waited + arena_waited)

    def meter(self) -> Meter:
        return Meter(lambda: dict(self.bot), clock=self,
                     arena=lambda: lambda: dict(self.arena))


def window(machine: Machine, allowed_s: float) -> Window:
    machine.bot.setdefault(7, (3.0, 1.0))  # what the bot did before the window is not counted
    return machine.meter().window(allowed_s)


def test_a_bot_that_sleeps_is_charged_on_time_with_its_figures() -> None:
    machine = Machine()
    clock = window(machine, 0.5)
    machine.run(0.5, bot={7: (0.01, 0.0)})  # blocked, not runnable: nothing to forgive
    assert clock.remaining() == 0.0
    verdict = clock.verdict(FaultKind.TIMEOUT, "no answer to Decide")
    assert isinstance(verdict, BotFault) and verdict.kind is FaultKind.TIMEOUT
    assert verdict.message == ("no answer to Decide within 0.50 s "
                               "(bot CPU 0.01 s, waited for a core 0.00 s)")


def test_a_spinning_bot_is_charged_when_its_running_time_reaches_the_limit() -> None:
    machine = Machine()
    clock = window(machine, 0.5)
    machine.run(0.4, bot={7: (0.39, 0.01)})
    assert clock.usage().charged_s == pytest.approx(0.39)
    assert clock.remaining() == pytest.approx(0.1)
    machine.run(0.1, bot={7: (0.1, 0.0)})
    assert clock.remaining() == pytest.approx(0.01)  # the 0.01 s it waited is given back
    machine.run(0.01, bot={7: (0.01, 0.0)})
    verdict = clock.verdict(FaultKind.TIMEOUT, "no answer to Decide")
    assert isinstance(verdict, BotFault)
    assert verdict.message == ("no answer to Decide within 0.50 s "
                               "(bot CPU 0.50 s, waited for a core 0.01 s)")


def test_a_starved_bot_gets_its_time_and_past_the_cap_the_series_is_void() -> None:
    machine = Machine()
    clock = window(machine, 0.5)
    assert clock.cap_s == pytest.approx(4.0)  # max(8 x 0.5, 0.5 + 2)
    machine.run(0.5, bot={7: (0.1, 0.4)})  # four fifths of its time in a run queue
    assert clock.usage() == Usage(0.5, pytest.approx(0.1), pytest.approx(0.4), 0.0, True)
    assert clock.remaining() == pytest.approx(0.4)
    machine.run(2.0, bot={7: (0.4, 1.6)})  # at 2.5 s, still a fifth of a core
    assert clock.usage().charged_s == pytest.approx(0.5)
    assert clock.remaining() == 0.0
    verdict = clock.verdict(FaultKind.TIMEOUT, "no answer to Decide", "greedy@1 (seat 0)")
    # It had its whole 0.5 s at the cap: the bot's own time, charged.
    assert isinstance(verdict, BotFault)
    starved = Machine()
    clock = window(starved, 0.5)
    starved.run(4.0, bot={7: (0.2, 3.8)})
    assert clock.remaining() == 0.0
    overload = clock.verdict(FaultKind.TIMEOUT, "no answer to Decide", "greedy@1 (seat 0)")
    assert isinstance(overload, ArenaOverload)
    assert overload.message == (
        "greedy@1 (seat 0): no answer to Decide within 0.50 s of its own time, but in "
        "4.00 s the machine gave it only 0.20 s (bot CPU 0.20 s, waited for a core 3.80 s)")


def test_a_time_out_before_the_cap_stays_the_bots_when_a_later_reading_differs() -> None:
    # Seen under 8 hogs with the fork bomb: remaining() read 0.80 s charged (its whole
    # limit); the verdict's own reading, a moment later, had its tasks waiting a few
    # milliseconds more, 0.799 s charged. Before the cap that is still the bot's time.
    machine = Machine()
    clock = window(machine, 0.8)
    machine.run(0.98, bot={7: (0.07, 0.119)}, arena_waited=0.06)
    assert clock.usage().charged_s == pytest.approx(0.801)
    assert clock.remaining() == 0.0
    machine.run(0.001, bot={7: (0.0, 0.003)})
    assert clock.usage().charged_s == pytest.approx(0.799)
    verdict = clock.verdict(FaultKind.TIMEOUT, "no answer to Decide")
    assert isinstance(verdict, BotFault)
    assert verdict.message == ("no answer to Decide within 0.80 s (bot CPU 0.07 s, "
                               "waited for a core 0.12 s, arena late 0.06 s)")


def test_waiting_among_its_own_threads_is_the_bots_time() -> None:
    # Four threads sharing the bot's one core: each waits three quarters of the
    # time, but the bot as a whole ran all along: nothing is forgiven.
    machine = Machine()
    clock = window(machine, 1.0)
    machine.run(1.0, bot={tid: (0.25, 0.75) for tid in (7, 8, 9, 10)})
    usage = clock.usage()
    assert (usage.cpu_s, usage.starved_s, usage.charged_s) == (1.0, 0.0, 1.0)
    assert clock.remaining() == 0.0


def test_the_arenas_own_delay_is_not_charged() -> None:
    machine = Machine()
    clock = window(machine, 0.5)
    machine.run(0.6, bot={7: (0.3, 0.0)}, arena_waited=0.2)
    usage = clock.usage()
    assert usage.arena_late_s == pytest.approx(0.2)
    assert usage.charged_s == pytest.approx(0.4)
    assert usage.figures() == "bot CPU 0.30 s, waited for a core 0.00 s, arena late 0.20 s"
    assert clock.remaining() == pytest.approx(0.1)


def test_a_thread_that_exits_keeps_what_it_was_charged() -> None:
    machine = Machine()
    clock = window(machine, 1.0)
    machine.run(0.5, bot={8: (0.1, 0.3)})
    assert clock.usage().starved_s == pytest.approx(0.3)
    del machine.bot[8]  # the thread is gone from /proc
    assert clock.usage().starved_s == pytest.approx(0.3)


def test_without_kernel_figures_the_wall_clock_decides() -> None:
    machine = Machine()
    clock = Meter(lambda: {}, clock=machine, arena=lambda: lambda: {}).window(0.5)
    machine.run(0.5)
    assert clock.remaining() == 0.0
    verdict = clock.verdict(FaultKind.STARTUP, "did not create its socket")
    assert isinstance(verdict, BotFault)
    assert verdict.message == ("did not create its socket within 0.50 s "
                               "(0.50 s by the wall clock; the kernel gave no CPU figures)")


def test_the_kernel_is_not_asked_while_the_wall_clock_is_within_the_limit() -> None:
    machine = Machine()
    reads: list[int] = []

    def source() -> dict[int, TaskTimes]:
        reads.append(1)
        return dict(machine.bot)

    clock = Meter(source, clock=machine, arena=lambda: lambda: {}).window(1.0)
    machine.run(0.3)
    assert clock.remaining() == pytest.approx(0.7) and clock.charged_s() == pytest.approx(0.3)
    assert len(reads) == 1  # the window's start only


def test_an_overload_crosses_a_process_boundary_intact() -> None:
    import pickle

    overload = pickle.loads(pickle.dumps(ArenaOverload("seat 0 starved")))
    assert isinstance(overload, ArenaOverload) and overload.message == "seat 0 starved"
