"""A forfeit another machine reports is stored, and counted toward deactivation, only
once a play elsewhere confirms it (issue 43); an outcome of another series is
refused and replayed rather than failing the season. Executors in miniature:
settled futures, capacity 1."""

from __future__ import annotations

from concurrent.futures import Future
from dataclasses import replace
from pathlib import Path

import pytest

from arena.core.faults import BotFault, FaultKind
from arena.core.series import SeriesOutcome, SeriesSpec, outcome_of
from arena.core.settings import SeasonConfig
from arena.execution import PlaysElsewhere
from arena.season.forfeits import MAX_CONFIRMING_PLAYS, RemoteForfeits
from arena.season.formats import plan_season
from arena.season.runner import SeasonRunner
from arena.storage import Storage, deactivations_of
from engine.series import Series
from tests.helpers.arena_helpers import register_bots
from tests.helpers.fake_runner import run_fake_series

CLAIMER = "tls://10.0.0.66:40000"
HONEST = "tls://10.0.0.7:40000"


def make_season(storage: Storage, root: Path) -> int:
    ids = register_bots(storage, root, ("greedy-a", "greedy-b"))
    config = SeasonConfig.build(sandbox="process", concurrency=1, seed=5, series_per_pair=2,
                                deactivate_after=1)
    plan = plan_season(ids, config.series_per_pair, config.seed)
    return storage.create_season(name="", config=config.to_dict(),
                                 profile=config.profile(), bot_ids=ids,
                                 plan=[e.as_row() for e in plan]).id


def startup_forfeit(spec: SeriesSpec, seat: int) -> SeriesOutcome:
    """Seat ``seat`` did not come up: an outcome verification accepts."""
    series = Series(spec.seed, spec.profile, max_hands=spec.max_hands,
                    swap_seats=spec.swap_seats)
    return outcome_of(spec.series_id, series, 1 - seat,
                      BotFault(FaultKind.STARTUP, "no answer", seat=seat), (0.0, 0.0), 0.0)


def settled(outcome: SeriesOutcome) -> Future[SeriesOutcome]:
    future: Future[SeriesOutcome] = Future()
    future.set_result(outcome)
    return future


class Workers:
    """First plays on the claimer, which claims seat 0 forfeits; plays elsewhere on
    the honest worker, which answers ``elsewhere(spec)``."""

    capacity = 1

    def __init__(self, elsewhere: str = "clean") -> None:
        self.elsewhere = elsewhere
        self.played: list[tuple[str, str]] = []
        self.avoided: list[str] = []

    def submit(self, spec: SeriesSpec) -> Future[SeriesOutcome]:
        self.played.append((CLAIMER, spec.series_id))
        return settled(replace(startup_forfeit(spec, 0), played_by=CLAIMER))

    def submit_elsewhere(self, spec: SeriesSpec, avoid: str) -> Future[SeriesOutcome]:
        self.avoided.append(avoid)
        self.played.append((HONEST, spec.series_id))
        if self.elsewhere == "clean":
            outcome = run_fake_series(spec)
        elif self.elsewhere == "forged, then clean":
            outcome = run_fake_series(spec)
            if len(self.avoided) == 1:  # a 9999-0 win the replay refuses
                outcome = replace(outcome, result=replace(outcome.result, points=(9999, 0)))
        elif self.elsewhere == "same seat":
            outcome = startup_forfeit(spec, 0)
        else:  # the other seat than the play before, every time
            outcome = startup_forfeit(spec, len(self.avoided) % 2)
        return settled(replace(outcome, played_by=HONEST))

    def close(self) -> None:
        pass


def test_a_remote_forfeit_no_replay_confirms_is_neither_stored_nor_counted(
        tmp_path: Path) -> None:
    storage = Storage(tmp_path / "a.db")
    season_id = make_season(storage, tmp_path / "bots")
    executor = Workers("clean")
    assert isinstance(executor, PlaysElsewhere)
    runner = SeasonRunner(storage, season_id, executor)
    assert runner.run() == "finished"
    planned = [p.series_id for p in storage.planned_series(season_id)]
    assert executor.played == [(who, s) for s in planned for who in (CLAIMER, HONEST)]
    assert executor.avoided == [CLAIMER, CLAIMER]
    assert runner.forfeits.unconfirmed == 2
    results = storage.results(season_id)
    assert [r.series_id for r in results] == planned
    assert all(r.fault is None and r.played_by == HONEST for r in results)
    assert deactivations_of(storage, storage.get_season(season_id).bot_ids) == {}


def test_a_remote_forfeit_a_replay_confirms_is_stored_once_and_counted(
        tmp_path: Path) -> None:
    storage = Storage(tmp_path / "a.db")
    season_id = make_season(storage, tmp_path / "bots")
    executor = Workers("same seat")
    runner = SeasonRunner(storage, season_id, executor)
    assert runner.run() == "finished"
    first = storage.planned_series(season_id)[0]
    [stored, *rest] = storage.results(season_id)
    assert stored.series_id == first.series_id and stored.played_by == HONEST
    assert stored.fault is not None and stored.fault.kind == "startup" and stored.fault.seat == 0
    assert runner.forfeits.unconfirmed == 0
    # deactivate_after=1: the confirmed forfeit deactivated seat 0's bot, whose next
    # series is forfeited by the arena itself, with nothing to confirm.
    assert list(deactivations_of(storage, [first.seat0_bot])) == [first.seat0_bot]
    assert [r.fault.kind for r in rest if r.fault is not None] == ["deactivated"]
    assert executor.played[:2] == [(CLAIMER, first.series_id), (HONEST, first.series_id)]
    assert runner.duplicates_dropped == 0


def test_a_refused_confirming_play_is_played_again_away_from_the_claimer(
        tmp_path: Path) -> None:
    storage = Storage(tmp_path / "a.db")
    season_id = make_season(storage, tmp_path / "bots")
    executor = Workers("forged, then clean")
    runner = SeasonRunner(storage, season_id, executor)
    assert runner.run() == "finished"
    first = storage.planned_series(season_id)[0].series_id
    assert runner.outcomes_refused == 1
    assert executor.avoided[:2] == [CLAIMER, CLAIMER]  # never back to the claimer
    assert executor.played[:3] == [(CLAIMER, first), (HONEST, first), (HONEST, first)]
    assert all(r.fault is None and r.points != (9999, 0) for r in storage.results(season_id))
    assert runner.forfeits.unconfirmed == 2


def test_plays_that_keep_charging_other_seats_stop_the_season_saying_why(
        tmp_path: Path) -> None:
    storage = Storage(tmp_path / "a.db")
    season_id = make_season(storage, tmp_path / "bots")
    runner = SeasonRunner(storage, season_id, Workers("other seat"))
    assert runner.run() == "failed"
    error = storage.get_season(season_id).error
    assert "remote plays each charged other seats" in error
    assert storage.results(season_id) == []
    assert runner.forfeits.unconfirmed == MAX_CONFIRMING_PLAYS


def test_a_forfeit_played_here_is_stored_without_a_replay(tmp_path: Path) -> None:
    forfeits = RemoteForfeits()
    spec = SeriesSpec(series_id="1-0", seed=3, profile=SeasonConfig.build().profile(),
                      max_hands=40, swap_seats=False, bots=())  # type: ignore[arg-type]
    local = startup_forfeit(spec, 1)
    assert forfeits.settle("1-0", local) is local
    remote = replace(local, played_by=CLAIMER)
    assert forfeits.settle("1-0", remote) is None
    assert remote.forfeiting_seats == (1,)


class AnswersAnother:
    """The first play answers with the outcome of another planned series."""

    capacity = 1

    def __init__(self) -> None:
        self.excluded: list[tuple[str, str]] = []

    def submit(self, spec: SeriesSpec) -> Future[SeriesOutcome]:
        outcome = replace(run_fake_series(spec), played_by=HONEST)
        if not self.excluded:
            outcome = replace(outcome, series_id="1-999", played_by=CLAIMER)
        return settled(outcome)

    def exclude(self, played_by: str, series_id: str) -> None:
        self.excluded.append((played_by, series_id))

    def close(self) -> None:
        pass


def test_an_outcome_of_another_series_is_refused_and_played_again(tmp_path: Path) -> None:
    storage = Storage(tmp_path / "a.db")
    season_id = make_season(storage, tmp_path / "bots")
    executor = AnswersAnother()
    runner = SeasonRunner(storage, season_id, executor)
    assert runner.run() == "finished"
    first = storage.planned_series(season_id)[0].series_id
    assert executor.excluded == [(CLAIMER, first)]
    assert runner.outcomes_refused == 1
    assert sorted(r.series_id for r in storage.results(season_id)) == sorted(
        p.series_id for p in storage.planned_series(season_id))


@pytest.mark.parametrize("seats", [(0,), (1,)])
def test_the_seats_a_fault_charges(seats: tuple[int, ...]) -> None:
    spec = SeriesSpec(series_id="1-0", seed=3, profile=SeasonConfig.build().profile(),
                      max_hands=40, swap_seats=False, bots=())  # type: ignore[arg-type]
    outcome = startup_forfeit(spec, seats[0])
    assert outcome.forfeiting_seats == seats
    assert outcome.fault is not None
    both = replace(outcome.fault,
                   other_seat_fault=BotFault(FaultKind.STARTUP, "x", seat=1 - seats[0]))
    assert replace(outcome, fault=both).forfeiting_seats == (0, 1)
    assert replace(outcome, fault=None).forfeiting_seats == ()
