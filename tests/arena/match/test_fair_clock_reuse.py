"""A meter that reuses a recent reading of the arena's thread (issue 29): the kernel
is read once per ``arena_reuse_s`` rather than at every window, and the wait that
reading may hold from before a window is never forgiven to the bot. Fake clock and
fake kernel figures: every number is exact."""

from __future__ import annotations

import threading

import pytest

from arena.match.fair_clock import Meter

TaskTimes = tuple[float, float]


class ArenaThreads:
    """A fake clock and the arena's threads as the kernel would report them: each
    source reads one thread (as ``current_thread_source`` does), counted; ``thread``
    is the one a window is made on (set by the test on the thread it runs)."""

    def __init__(self) -> None:
        self.now = 50.0
        self.waited: dict[int, float] = {1: 0.0, 2: 0.0}
        self.reads: list[int] = []
        self._sources = {tid: self._reader(tid) for tid in self.waited}
        self.thread = 1

    def __call__(self) -> float:
        return self.now

    def _reader(self, tid: int) -> object:
        def read() -> dict[int, TaskTimes]:
            self.reads.append(tid)
            return {tid: (0.0, self.waited[tid])}
        return read

    def current(self) -> object:
        """The calling thread's source (the same object every time, per thread)."""
        return self._sources[self.thread]

    def run(self, seconds: float, waited: float = 0.0) -> None:
        self.now += seconds
        self.waited[self.thread] += waited

    def meter(self, reuse_s: float) -> Meter:
        return Meter(lambda: {}, clock=self, arena=self.current,  # type: ignore[arg-type]
                     arena_reuse_s=reuse_s)


def test_windows_within_the_reuse_age_start_from_one_reading() -> None:
    machine = ArenaThreads()
    meter = machine.meter(0.001)
    meter.window(1.0)
    machine.run(0.0004)
    meter.window(1.0)
    machine.run(0.0005)
    meter.window(1.0)  # 0.9 ms after the reading: still reused
    assert machine.reads == [1]
    machine.run(0.0002)
    meter.window(1.0)  # 1.1 ms: read again, and the next ones count from this one
    machine.run(0.0009)
    meter.window(1.0)
    assert machine.reads == [1, 1]


def test_without_a_reuse_age_every_window_reads_the_kernel() -> None:
    machine = ArenaThreads()
    meter = machine.meter(0.0)
    for _ in range(3):
        meter.window(1.0)
    assert machine.reads == [1, 1, 1]


def test_another_threads_reading_is_never_reused() -> None:
    machine = ArenaThreads()
    meter = machine.meter(0.001)
    meter.window(1.0)

    def on_another_thread() -> None:
        machine.thread = 2
        meter.window(1.0)

    other = threading.Thread(target=on_another_thread)
    other.start()
    other.join()
    assert machine.reads == [1, 2]


def test_the_wait_before_a_window_is_not_forgiven() -> None:
    machine = ArenaThreads()
    meter = machine.meter(0.001)
    meter.window(0.5)
    machine.run(0.0008, waited=0.0003)  # the arena's own work between two decisions
    clock = meter.window(0.5)
    machine.run(0.6, waited=0.1)  # the bot's decision: the arena's thread waited 0.1 s
    usage = clock.usage()
    # The reading says 0.1003 s since it was taken, 0.8 ms before the window: at
    # most that much of it came before, so 0.0995 s is forgiven (0.1 exactly: 0.0005
    # more charged, never less).
    assert usage.arena_late_s == pytest.approx(0.0995)
    assert usage.charged_s == pytest.approx(0.5005)
    assert clock.remaining() == 0.0


def test_a_fresh_reading_forgives_exactly_as_before() -> None:
    machine = ArenaThreads()
    meter = machine.meter(0.001)
    machine.run(5.0, waited=2.0)  # long before: not counted
    clock = meter.window(0.5)
    machine.run(0.6, waited=0.2)
    assert clock.usage().arena_late_s == pytest.approx(0.2)
    assert clock.usage().charged_s == pytest.approx(0.4)
    assert clock.remaining() == pytest.approx(0.1)
