"""Executors: the local thread pool answers each submitted series through a future
(its outcome, or the arena-side error), plays at most ``concurrency`` at once, more
than one only while the admission's measured load leaves an idle core; and a result
arriving for a series already stored (a series played twice) is dropped, counted
and logged, never stored twice."""

from __future__ import annotations

import logging
import threading
from concurrent.futures import Future
from pathlib import Path

import pytest

from arena.core.limits import TimeLimits
from arena.core.series import BotRef, SeriesOutcome, SeriesSpec
from arena.core.settings import SeasonConfig
from arena.execution import LocalExecutor, local_executor_factory
from arena.sandbox.admission import ADMISSION, Admission, LoadSample
from arena.season.events import EventHub
from arena.season.formats import plan_season
from arena.season.runner import SeasonRunner
from arena.storage import Storage
from tests.arena.sandbox.test_admission_load import FakeLoad
from tests.helpers.arena_helpers import (
    made_up_outcome,
    make_bot_folder,
    register_bots,
    trust_outcome,
)
from tests.helpers.polling import wait_until
from tests.helpers.series_specs import spec


def solo(tmp_path: Path, series_id: str) -> SeriesSpec:
    """A series of one small bot against itself."""
    bot = BotRef.from_folder(make_bot_folder(tmp_path, "solo"))
    return spec(bot, bot, series_id, seed=1, max_hands=5, limits=TimeLimits())


def test_local_executor_answers_through_futures(tmp_path: Path) -> None:
    def run(spec: SeriesSpec) -> SeriesOutcome:
        if spec.series_id == "1-1":
            raise RuntimeError("docker went away")
        return made_up_outcome(spec.series_id, winner=1)  # type: ignore[return-value]

    with LocalExecutor(run, 2) as executor:
        assert executor.capacity == 2
        good, bad = executor.submit(solo(tmp_path, "1-0")), executor.submit(solo(tmp_path, "1-1"))
        assert good.result(timeout=30).winner == 1
        with pytest.raises(RuntimeError, match="docker went away"):
            bad.result(timeout=30)


def test_local_executor_needs_a_worker() -> None:
    with pytest.raises(ValueError, match="concurrency must be at least 1, got 0"):
        LocalExecutor(lambda spec: made_up_outcome(spec.series_id, 0), 0)  # type: ignore[arg-type,return-value]


def test_local_executor_factory_binds_the_seasons_runner_and_concurrency() -> None:
    configs: list[SeasonConfig] = []

    def runner_factory(config: SeasonConfig):  # type: ignore[no-untyped-def]
        configs.append(config)
        return lambda spec: made_up_outcome(spec.series_id, 0)

    config = SeasonConfig.build(sandbox="process", concurrency=3)
    executor = local_executor_factory(runner_factory)(config)
    try:
        assert executor.capacity == 3 and configs == [config]
        assert isinstance(executor, LocalExecutor) and executor.admission is ADMISSION
    finally:
        executor.close()


class Playing:
    """A ``RunSeries`` whose series play until the test ends them; counts how many
    play at once."""

    def __init__(self) -> None:
        self.started: list[str] = []
        self.most_at_once = 0
        self._now = 0
        self._lock = threading.Lock()
        self._end: dict[str, threading.Event] = {}

    def __call__(self, spec: SeriesSpec) -> SeriesOutcome:
        end = threading.Event()
        with self._lock:
            self._end[spec.series_id] = end
            self.started.append(spec.series_id)
            self._now += 1
            self.most_at_once = max(self.most_at_once, self._now)
        end.wait(30)
        with self._lock:
            self._now -= 1
        return made_up_outcome(spec.series_id, winner=0)  # type: ignore[no-any-return]

    def end(self, series_id: str) -> None:
        self._end[series_id].set()


def test_a_second_series_waits_for_an_idle_core(tmp_path: Path) -> None:
    """Both cores busy by the measured load: of two series submitted to two threads,
    the second plays only when a core comes free; the first played at once."""
    load = FakeLoad(2.0)
    admission = Admission(2, cores=2, load=load, poll_s=0.001)
    playing = Playing()
    with LocalExecutor(playing, 2, admission=admission) as executor:
        first = executor.submit(solo(tmp_path, "1-0"))
        wait_until(lambda: playing.started == ["1-0"], what="the first series playing")
        second = executor.submit(solo(tmp_path, "1-1"))
        wait_until(lambda: load.reads >= 3, what="the second series asking for a core")
        assert playing.started == ["1-0"]
        load.sample = LoadSample(1.0)  # one core idle
        wait_until(lambda: playing.started == ["1-0", "1-1"], what="the second series")
        playing.end("1-0")
        playing.end("1-1")
        assert first.result(30).series_id == "1-0" and second.result(30).series_id == "1-1"
    assert playing.most_at_once == 2


def test_on_a_machine_busy_for_good_series_play_one_after_another(tmp_path: Path) -> None:
    playing = Playing()
    admission = Admission(2, cores=2, load=FakeLoad(9.0, 80.0), poll_s=0.001)
    with LocalExecutor(playing, 3, admission=admission) as executor:
        futures = [executor.submit(solo(tmp_path, f"1-{n}")) for n in range(3)]
        for count in (1, 2, 3):
            wait_until(lambda count=count: len(playing.started) == count,  # type: ignore[misc]
                       what=f"series {count} playing")
            assert admission.series_playing == 1
            playing.end(playing.started[-1])
        assert [f.result(30).series_id for f in futures] == ["1-0", "1-1", "1-2"]
    assert playing.most_at_once == 1 and admission.series_playing == 0


class OneFuturePerCall:
    """An executor that plays each series on the caller's thread (capacity 1) and
    answers with an already-settled future: the shape a cluster executor gives."""

    capacity = 1

    def __init__(self, run) -> None:  # type: ignore[no-untyped-def]
        self.run = run

    def submit(self, spec: SeriesSpec) -> Future[SeriesOutcome]:
        future: Future[SeriesOutcome] = Future()
        try:
            future.set_result(self.run(spec))
        except Exception as error:
            future.set_exception(error)
        return future

    def close(self) -> None:
        pass


def test_a_second_result_for_a_series_is_dropped_and_counted(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Series 1 is played twice: another execution stores its result (seat 1 won)
    while this one is still playing (it answers seat 0). The stored result stays the
    first; the second is dropped, counted and logged; the season still finishes."""
    storage = Storage(tmp_path / "a.db")
    ids = register_bots(storage, tmp_path, ("a", "b"))
    config = SeasonConfig.build(sandbox="process", concurrency=1, seed=4)
    season_id = storage.create_season(
        name="", config=config.to_dict(), profile=config.profile(), bot_ids=ids,
        plan=[p.as_row() for p in plan_season(ids, 2, 4)]).id
    twice = f"{season_id}-1"

    def run(spec: SeriesSpec) -> SeriesOutcome:
        if spec.series_id == twice:
            storage.store_result(storage.get_planned(twice), made_up_outcome(twice, winner=1), {})
        return made_up_outcome(spec.series_id, winner=0)

    hub = EventHub()
    events = hub.subscribe(season_id)
    runner = SeasonRunner(storage, season_id, OneFuturePerCall(run), hub=hub,
                          verify=trust_outcome)
    with caplog.at_level(logging.WARNING, logger="arena.season.runner"):
        assert runner.run() == "finished"
    assert runner.duplicates_dropped == 1
    assert [(r.series_id, r.winner) for r in storage.results(season_id)] == [
        (f"{season_id}-0", 0), (twice, 1)]
    assert f"series {twice} already had a result; the new one was dropped" in caplog.text
    assert "1 duplicate result(s) dropped" in caplog.text
    finished = []
    while (event := events.get(0.01)) is not None:
        if event.kind == "series_finished":
            finished.append(event.series_id)
    assert finished == [f"{season_id}-0"]  # the dropped one announced nothing


def test_runner_stops_submitting_on_cancel_and_stores_what_is_in_flight(
        tmp_path: Path) -> None:
    """Two series in flight when the cancel comes: both are stored, nothing more
    is submitted."""
    storage = Storage(tmp_path / "a.db")
    ids = register_bots(storage, tmp_path, ("a", "b", "c"))
    config = SeasonConfig.build(sandbox="process", concurrency=2, seed=4)
    season_id = storage.create_season(
        name="", config=config.to_dict(), profile=config.profile(), bot_ids=ids,
        plan=[p.as_row() for p in plan_season(ids, 2, 4)]).id
    cancel = threading.Event()
    both_started = threading.Barrier(2, timeout=30)
    submitted: list[str] = []

    def run(spec: SeriesSpec) -> SeriesOutcome:
        submitted.append(spec.series_id)
        both_started.wait()  # both in flight together
        cancel.set()
        return made_up_outcome(spec.series_id, winner=0)

    with LocalExecutor(run, 2) as executor:
        status = SeasonRunner(storage, season_id, executor, cancel=cancel,
                              verify=trust_outcome).run()
    assert status == "cancelled"
    # The plan's first series, then the first sharing the fewest bots with it
    # (arena.season.play_order): index 1 is its duplicate, with both bots.
    assert sorted(submitted) == [f"{season_id}-0", f"{season_id}-2"]
    assert [r.series_id for r in storage.results(season_id)] == sorted(submitted)


def test_closing_the_local_executor_closes_its_runner_after_the_series_in_flight(
        tmp_path: Path) -> None:
    """The season's runner holds its sandbox (e.g. the warm pool's spare bots): it is
    closed once, after the series in flight have finished."""
    events: list[str] = []
    release = threading.Event()

    class ClosableRunner:
        def __call__(self, spec: SeriesSpec) -> SeriesOutcome:
            release.wait(30)
            events.append(f"played {spec.series_id}")
            return made_up_outcome(spec.series_id, winner=0)

        def close(self) -> None:
            events.append("closed")

    executor = LocalExecutor(ClosableRunner(), 1)  # type: ignore[arg-type]
    future = executor.submit(solo(tmp_path, "1-0"))
    threading.Timer(0.05, release.set).start()
    executor.close()
    assert future.done() and events == ["played 1-0", "closed"]
