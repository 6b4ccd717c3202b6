"""Admission by measured load (arena/sandbox/admission.py): background work (a warm
spare, an image build) needs a free start slot, no playing bot waiting, and an idle
core by the machine's measured load; playing bots need only a slot. The load is a
fake source here; the /proc readers are fed files written by the test."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.core.series import BotRef
from arena.sandbox.admission import (
    PRESSURE_LIMIT_PCT,
    Admission,
    LoadSample,
    read_pressure,
    read_runnable,
)
from arena.sandbox.warm import WarmPool
from tests.arena.sandbox.test_warm_pool import FakeSandbox
from tests.helpers.arena_helpers import make_bot_folder
from tests.helpers.polling import wait_until


class FakeLoad:
    def __init__(self, runnable: float | None, pressure: float | None = None) -> None:
        self.sample = LoadSample(runnable, pressure)
        self.reads = 0

    def __call__(self) -> LoadSample:
        self.reads += 1
        return self.sample


@pytest.mark.parametrize(("runnable", "pressure", "in_use", "idle"), [
    (0.0, None, 0, True),
    (1.0, None, 0, True),     # one of two cores busy
    (2.0, None, 0, False),    # both busy
    (1.0, None, 1, False),    # a start holding a slot counts as busy
    (8.0, 0.0, 0, False),     # eight hogs
    (0.0, PRESSURE_LIMIT_PCT, 0, False),  # tasks waited for a core a quarter of the time
    (0.0, PRESSURE_LIMIT_PCT - 0.5, 0, True),
    (None, None, 0, True),    # nothing measurable: slots alone decide
])
def test_an_idle_core_by_the_measured_load(runnable: float | None, pressure: float | None,
                                           in_use: int, idle: bool) -> None:
    admission = Admission(2, cores=2, load=FakeLoad(runnable, pressure))
    for _ in range(in_use):
        admission.acquire()
    with admission.playing():
        assert admission.idle_core() is idle
        assert admission.try_acquire() is idle


def test_with_no_series_playing_background_work_slows_no_bot() -> None:
    admission = Admission(2, cores=2, load=FakeLoad(8.0, 100.0))
    assert admission.idle_core()
    with admission.playing():
        assert not admission.idle_core()
    assert admission.try_acquire()


def test_playing_bots_take_slots_whatever_the_load() -> None:
    admission = Admission(2, cores=2, load=FakeLoad(40.0, 100.0))
    admission.acquire()
    admission.acquire()
    assert admission.in_use == 2
    admission.release()
    admission.release()


def test_without_a_load_source_only_slots_count() -> None:
    admission = Admission(1)
    assert admission.try_acquire()
    assert not admission.try_acquire()
    admission.release()


def test_a_build_waits_for_an_idle_core_then_goes_ahead() -> None:
    load = FakeLoad(5.0)
    now = [0.0]
    slept: list[float] = []

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        now[0] += seconds
        if len(slept) == 3:
            load.sample = LoadSample(0.0)  # the machine calmed down

    admission = Admission(2, cores=2, load=load, clock=lambda: now[0], sleep=sleep)
    with admission.playing():
        assert admission.await_idle_core(max_wait_s=30.0)
    assert len(slept) == 3 and admission.in_use == 0  # it holds no slot while it builds


def test_a_build_on_a_machine_busy_for_good_still_runs_after_its_wait() -> None:
    now = [0.0]

    def sleep(seconds: float) -> None:
        now[0] += seconds

    admission = Admission(2, cores=2, load=FakeLoad(9.0), clock=lambda: now[0], sleep=sleep)
    with admission.playing():
        assert not admission.await_idle_core(max_wait_s=1.0)
    assert now[0] >= 1.0 and admission.in_use == 0


def test_spares_start_only_on_idle_cores(tmp_path: Path) -> None:
    alpha = BotRef.from_folder(make_bot_folder(tmp_path, "alpha"))
    load = FakeLoad(2.0)  # two playing bots busy on two cores
    admission = Admission(2, cores=2, load=load)
    pool = WarmPool(FakeSandbox(), per_version=1, janitor=False, admission=admission,
                    spare_wait_s=0.0)
    try:
        with admission.playing():
            pool.start(alpha, series_id="1-0", seat=0)
            wait_until(lambda: pool.counters.yielded == 1, what="the spare not started")
            assert pool.spares() == 0 and load.reads >= 1
            load.sample = LoadSample(1.0)
            pool.start(alpha, series_id="1-1", seat=0)
            wait_until(lambda: pool.spares() == 1, what="a spare on the idle core")
    finally:
        pool.close()


def test_reading_the_kernels_figures(tmp_path: Path) -> None:
    loadavg = tmp_path / "loadavg"
    loadavg.write_text("3.10 2.50 1.00 4/211 12345\n")
    assert read_runnable(loadavg) == 3.0  # the reader itself is not counted
    loadavg.write_text("garbage\n")
    assert read_runnable(loadavg) is None
    assert read_runnable(tmp_path / "missing") is None
    pressure = tmp_path / "cpu"
    pressure.write_text("some avg10=12.50 avg60=3.00 avg300=1.00 total=99\n"
                        "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n")
    assert read_pressure(pressure) == 12.5
    pressure.write_text("full avg10=1.00\n")
    assert read_pressure(pressure) is None
    assert read_pressure(tmp_path / "missing") is None
