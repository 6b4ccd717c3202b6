"""The season runner stores no outcome its log does not bear out: a forged outcome
is refused, counted and logged with where it was played, its player is excluded,
the series is played again, and the season ends exactly as an honest one."""

from __future__ import annotations

import json
import logging
from concurrent.futures import Future
from dataclasses import replace
from pathlib import Path

import pytest

from arena.core.series import SeriesOutcome, SeriesSpec
from arena.core.settings import SeasonConfig
from arena.execution import ExcludesPlayers
from arena.season.formats import plan_season
from arena.season.runner import MAX_PLAYS, SeasonRunner
from arena.storage import Storage, count_refused_outcome
from tests.helpers.arena_helpers import register_bots
from tests.helpers.fake_runner import run_fake_series

FORGER = "tls://10.0.0.66:40000"
HONEST = "tls://10.0.0.7:40000"


def make_season(storage: Storage, root: Path) -> int:
    ids = register_bots(storage, root, ("greedy-a", "random-b", "greedy-c"))
    config = SeasonConfig.build(sandbox="process", concurrency=1, seed=5)
    plan = plan_season(ids, config.series_per_pair, config.seed)
    return storage.create_season(name="", config=config.to_dict(),
                                 profile=config.profile(), bot_ids=ids,
                                 plan=[e.as_row() for e in plan]).id


def forged(outcome: SeriesOutcome) -> SeriesOutcome:
    """The 9999-0 result a tampering worker returned in issue 26."""
    return replace(outcome, result=replace(outcome.result, winner=0, points=(9999, 0),
                                           games_won=(3, 0)))


class TwoWorkers:
    """A cluster in miniature: series go to the forger until it is excluded, then to
    the honest worker. Settled futures, capacity 1."""

    capacity = 1

    def __init__(self, forge_every: bool = False) -> None:
        self.excluded: list[tuple[str, str]] = []
        self.played: list[tuple[str, str]] = []
        self.forge_every = forge_every

    def submit(self, spec: SeriesSpec) -> Future[SeriesOutcome]:
        banned = {worker for worker, _ in self.excluded}
        worker = FORGER if FORGER not in banned or self.forge_every else HONEST
        self.played.append((worker, spec.series_id))
        outcome = replace(run_fake_series(spec), played_by=worker)
        future: Future[SeriesOutcome] = Future()
        future.set_result(forged(outcome) if worker == FORGER else outcome)
        return future

    def exclude(self, played_by: str, series_id: str) -> None:
        self.excluded.append((played_by, series_id))

    def close(self) -> None:
        pass


class Honest(TwoWorkers):
    def submit(self, spec: SeriesSpec) -> Future[SeriesOutcome]:
        future: Future[SeriesOutcome] = Future()
        future.set_result(run_fake_series(spec))
        return future


def standings_rows(storage: Storage, season_id: int) -> list[tuple[object, ...]]:
    return [(r.series_id, r.winner, r.games_won, r.hands_won, r.points, r.fault)
            for r in storage.results(season_id)]


def test_a_forged_outcome_is_refused_and_the_series_played_again(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    honest_store = Storage(tmp_path / "honest.db")
    honest_season = make_season(honest_store, tmp_path / "bots-h")
    assert SeasonRunner(honest_store, honest_season, Honest()).run() == "finished"

    storage = Storage(tmp_path / "a.db")
    season_id = make_season(storage, tmp_path / "bots")
    executor = TwoWorkers()
    assert isinstance(executor, ExcludesPlayers)
    runner = SeasonRunner(storage, season_id, executor)
    with caplog.at_level(logging.ERROR, logger="arena.season.runner"):
        assert runner.run() == "finished"
    first = storage.planned_series(season_id)[0].series_id
    assert runner.outcomes_refused == 1
    assert storage.get_season(season_id).outcomes_refused == 1  # kept for the organiser
    assert honest_store.get_season(honest_season).outcomes_refused == 0
    assert executor.excluded == [(FORGER, first)]
    assert executor.played[:2] == [(FORGER, first), (HONEST, first)]
    assert all(worker == HONEST for worker, _ in executor.played[1:])
    refusal = [r.getMessage() for r in caplog.records if "refused" in r.getMessage()]
    assert len(refusal) == 1 and FORGER in refusal[0] and f"series {first}" in refusal[0]
    # Nothing forged was stored: every result is the honest season's.
    assert standings_rows(storage, season_id) == standings_rows(honest_store, honest_season)
    assert all(r.points != (9999, 0) for r in storage.results(season_id))


def test_a_series_refused_every_time_fails_the_season_saying_why(tmp_path: Path) -> None:
    storage = Storage(tmp_path / "a.db")
    season_id = make_season(storage, tmp_path / "bots")
    executor = TwoWorkers(forge_every=True)
    runner = SeasonRunner(storage, season_id, executor)
    assert runner.run() == "failed"
    first = storage.planned_series(season_id)[0].series_id
    assert runner.outcomes_refused == MAX_PLAYS
    assert storage.get_season(season_id).outcomes_refused == MAX_PLAYS
    assert executor.played == [(FORGER, first)] * MAX_PLAYS
    error = storage.get_season(season_id).error
    assert f"series {first}" in error and f"{MAX_PLAYS} outcome(s) refused" in error
    assert FORGER in error
    assert storage.results(season_id) == []


def test_the_organiser_sees_the_refused_outcomes_in_season_show(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from arena.cli import main
    from tests.helpers.fake_runner import fake_season_server

    with fake_season_server(tmp_path) as running:
        season = running.storage.create_season(
            name="", config=SeasonConfig.build(sandbox="process").to_dict(),
            profile=SeasonConfig.build().profile(),
            bot_ids=[b.id for b in running.storage.list_bots()], plan=[])
        for _ in range(2):
            count_refused_outcome(running.storage, season.id)
        common = ["--server", running.address, "--token", running.token]
        assert main(["season", "show", str(season.id), "--json", *common]) == 0
        shown = json.loads(capsys.readouterr().out)
        assert shown["season"]["outcomes_refused"] == 2
        assert main(["season", "show", str(season.id), *common]) == 0
        assert "outcomes refused: 2" in capsys.readouterr().out


def test_a_refusal_after_a_cancel_leaves_the_series_to_a_resumed_season(tmp_path: Path) -> None:
    import threading

    storage = Storage(tmp_path / "a.db")
    season_id = make_season(storage, tmp_path / "bots")
    cancel = threading.Event()

    class CancelledWhileForging(TwoWorkers):
        def submit(self, spec: SeriesSpec) -> Future[SeriesOutcome]:
            cancel.set()  # the organiser cancels while the forged result is on its way
            return super().submit(spec)

    executor = CancelledWhileForging(forge_every=True)
    runner = SeasonRunner(storage, season_id, executor, cancel=cancel)
    assert runner.run() == "cancelled"
    first = storage.planned_series(season_id)[0].series_id
    assert executor.played == [(FORGER, first)]  # refused, not played again
    assert storage.results(season_id) == []
    assert storage.pending_series(season_id)[0].series_id == first
