"""A format whose second round depends on the first round's results: the runner
asks ``next_round`` with the stored results round by round, stores the round it
answers (numbered on), plays it, and finishes when the format answers None; a
season interrupted at any step resumes to exactly the same plan and results."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

import pytest

from arena.core.series import SeriesOutcome, SeriesSpec
from arena.core.settings import SeasonConfig
from arena.season import formats
from arena.season.formats import Format, Pairing
from arena.storage import SeriesRecord, Storage
from tests.helpers.arena_helpers import (
    made_up_outcome,
    register_bots,
)
from tests.helpers.season_play import play


class WinnerMeetsThird(Format):
    """Round 1: a and b, a duplicate pair on seed 100. Round 2: round 1's better
    bot (more series won; a on a tie) against c, a duplicate pair on seed 200. Then
    done. Records every ``next_round`` call."""

    def __init__(self) -> None:
        self.asked: list[list[list[str]]] = []

    def first_round(self, bot_ids: Sequence[str], seed: int) -> list[Pairing]:
        a, b, _ = bot_ids
        return [Pairing(100, False, a, b), Pairing(100, False, b, a)]

    def next_round(
        self, bot_ids: Sequence[str], seed: int,
        results_by_round: Sequence[Sequence[SeriesRecord]],
    ) -> list[Pairing] | None:
        self.asked.append([[r.series_id for r in results] for results in results_by_round])
        if len(results_by_round) >= 2:
            return None
        a, b, c = bot_ids
        wins = {a: 0, b: 0}
        for result in results_by_round[0]:
            if result.winner is not None:
                wins[result.bots[result.winner]] += 1
        best = b if wins[b] > wins[a] else a
        return [Pairing(200, False, best, c), Pairing(200, False, c, best)]

    def planned_count(self, bot_count: int) -> int | None:
        return 4


@pytest.fixture
def two_rounds(monkeypatch: pytest.MonkeyPatch) -> WinnerMeetsThird:
    fake = WinnerMeetsThird()

    class Registered(WinnerMeetsThird):
        @classmethod
        def from_config(cls, config: SeasonConfig) -> WinnerMeetsThird:  # type: ignore[override]
            return fake

    monkeypatch.setitem(formats.FORMATS, "winner-meets-third", Registered)
    return fake


def make_season(storage: Storage, root: Path, fake: WinnerMeetsThird) -> tuple[int, list[str]]:
    ids = register_bots(storage, root, ("a", "b", "c"))
    config = SeasonConfig.build(sandbox="process", concurrency=1, seed=9)
    season = storage.create_season(
        name="", config={**config.to_dict(), "format": "winner-meets-third"},
        profile=config.profile(), bot_ids=ids,
        plan=[p.as_row() for p in fake.first_round(ids, config.seed)])
    return season.id, ids


def b_wins(spec: SeriesSpec) -> SeriesOutcome:
    """Seat of b@1.0.0 wins; without b, seat 0 wins."""
    names = [f"{bot.name}@{bot.version}" for bot in spec.bots]
    return made_up_outcome(spec.series_id, winner=names.index("b@1.0.0") if "b@1.0.0" in names
                       else 0)


def b_wins_planned(series_id: str, bots: tuple[str, str]) -> SeriesOutcome:
    return made_up_outcome(series_id, winner=bots.index("b@1.0.0") if "b@1.0.0" in bots else 0)


def expected_plan(season_id: int) -> list[tuple[str, int, int, tuple[str, str]]]:
    a, b, c = "a@1.0.0", "b@1.0.0", "c@1.0.0"
    return [(f"{season_id}-0", 1, 100, (a, b)), (f"{season_id}-1", 1, 100, (b, a)),
            (f"{season_id}-2", 2, 200, (b, c)), (f"{season_id}-3", 2, 200, (c, b))]


def plan_of(storage: Storage, season_id: int) -> list[tuple[str, int, int, tuple[str, str]]]:
    return [(p.series_id, p.round, p.seed, p.bots) for p in storage.planned_series(season_id)]


def test_next_round_is_asked_with_the_results_stored_and_played(
        tmp_path: Path, two_rounds: WinnerMeetsThird) -> None:
    storage = Storage(tmp_path / "a.db")
    season_id, _ = make_season(storage, tmp_path, two_rounds)
    assert storage.get_season(season_id).series_total == 2
    assert play(storage, season_id, b_wins) == "finished"
    first = [f"{season_id}-0", f"{season_id}-1"]
    assert two_rounds.asked == [[first], [first, [f"{season_id}-2", f"{season_id}-3"]]]
    assert plan_of(storage, season_id) == expected_plan(season_id)
    season = storage.get_season(season_id)
    assert (season.series_total, season.series_done) == (4, 4)


def test_killed_after_a_round_resumes_by_planning_the_next(
        tmp_path: Path, two_rounds: WinnerMeetsThird) -> None:
    """Round 1's results stored, round 2 not yet planned: where a kill right after
    the last result leaves the database."""
    storage = Storage(tmp_path / "a.db")
    season_id, _ = make_season(storage, tmp_path, two_rounds)
    for planned in storage.planned_series(season_id):
        storage.store_result(planned, b_wins_planned(planned.series_id, planned.bots), {})
    played: list[str] = []
    assert play(storage, season_id, lambda s: played.append(s.series_id) or b_wins(s)) == (
        "finished")
    assert played == [f"{season_id}-2", f"{season_id}-3"]
    assert plan_of(storage, season_id) == expected_plan(season_id)


def test_stopped_mid_round_resumes_to_the_same_season(
        tmp_path: Path, two_rounds: WinnerMeetsThird) -> None:
    storage = Storage(tmp_path / "a.db")
    season_id, _ = make_season(storage, tmp_path, two_rounds)
    cancel = threading.Event()

    def stop_in_round_two(spec: SeriesSpec) -> SeriesOutcome:
        if spec.series_id == f"{season_id}-2":
            cancel.set()
        return b_wins(spec)

    assert play(storage, season_id, stop_in_round_two, cancel) == "cancelled"
    assert [r.series_id for r in storage.results(season_id)] == [
        f"{season_id}-0", f"{season_id}-1", f"{season_id}-2"]
    played: list[str] = []
    assert play(storage, season_id, lambda s: played.append(s.series_id) or b_wins(s)) == (
        "finished")
    assert played == [f"{season_id}-3"]
    assert plan_of(storage, season_id) == expected_plan(season_id)
    winners = [(r.series_id, r.winner) for r in storage.results(season_id)]
    assert winners == [(f"{season_id}-0", 1), (f"{season_id}-1", 0),
                       (f"{season_id}-2", 0), (f"{season_id}-3", 1)]


def test_cancel_after_the_last_round_is_still_finished(
        tmp_path: Path, two_rounds: WinnerMeetsThird) -> None:
    storage = Storage(tmp_path / "a.db")
    season_id, _ = make_season(storage, tmp_path, two_rounds)
    cancel = threading.Event()

    def stop_at_the_end(spec: SeriesSpec) -> SeriesOutcome:
        if spec.series_id == f"{season_id}-3":
            cancel.set()
        return b_wins(spec)

    assert play(storage, season_id, stop_at_the_end, cancel) == "finished"


@pytest.mark.parametrize(("answer", "error"), [
    ([], "planned an empty round 2"),
    ([Pairing(1, False, "a@1.0.0", "z@9")], "round 2 pairs bots outside the season: z@9"),
])
def test_a_round_that_cannot_be_played_fails_the_season_storing_nothing(
        tmp_path: Path, two_rounds: WinnerMeetsThird, monkeypatch: pytest.MonkeyPatch,
        answer: list[Pairing], error: str) -> None:
    storage = Storage(tmp_path / "a.db")
    season_id, _ = make_season(storage, tmp_path, two_rounds)
    monkeypatch.setattr(two_rounds, "next_round", lambda *args: answer)
    assert play(storage, season_id, b_wins) == "failed"
    season = storage.get_season(season_id)
    assert error in season.error and "planning the next round" in season.error
    assert (season.series_total, season.series_done) == (2, 2)


def test_a_format_that_raises_fails_the_season(
        tmp_path: Path, two_rounds: WinnerMeetsThird, monkeypatch: pytest.MonkeyPatch) -> None:
    storage = Storage(tmp_path / "a.db")
    season_id, _ = make_season(storage, tmp_path, two_rounds)

    def broken(*args: object) -> None:
        raise KeyError("no such bot")

    monkeypatch.setattr(two_rounds, "next_round", broken)
    assert play(storage, season_id, b_wins) == "failed"
    assert "KeyError" in storage.get_season(season_id).error
    assert storage.get_season(season_id).series_total == 2
