"""Swiss, knockout and SPRT-match seasons stopped in the middle of a round (a cancel, or the
state a kill -9 leaves: results stored, the next round not yet planned) resume to
exactly the season an uninterrupted run plays."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from arena.core.series import SeriesOutcome, SeriesSpec
from arena.core.settings import SeasonConfig
from arena.season.formats import format_for
from arena.storage import Storage
from tests.helpers.arena_helpers import (
    made_up_outcome,
    register_bots,
)
from tests.helpers.season_play import play

SETTINGS: dict[str, dict[str, object]] = {
    "swiss": {"format": "swiss", "rounds": 3, "series_per_pair": 2},
    "knockout": {"format": "knockout", "tiebreak_pairs": 2},
    "sprt": {"format": "sprt", "sprt": "elo0=0,elo1=20", "max_pairs": 12},
}
BOTS = {"swiss": 5, "knockout": 5, "sprt": 2}


def outcome(spec: SeriesSpec) -> SeriesOutcome:
    """A result fixed by the deal seed alone: a third drawn, else a seat by parity."""
    return made_up_outcome(spec.series_id, winner=None if spec.seed % 3 == 0 else spec.seed % 2)


def make_season(storage: Storage, root: Path, format_name: str) -> int:
    ids = register_bots(storage, root, ("a", "b", "c", "d", "e")[:BOTS[format_name]])
    config = SeasonConfig.build(sandbox="process", concurrency=1, seed=21,
                                **SETTINGS[format_name])
    first = format_for(format_name, config).first_round(ids, config.seed)
    season = storage.create_season(
        name="", config=config.to_dict(), profile=config.profile(), bot_ids=ids,
        plan=[p.as_row() for p in first])
    return season.id


def season_state(storage: Storage, season_id: int) -> tuple[object, ...]:
    plan = [(p.series_id, p.round, p.seed, p.bots) for p in storage.planned_series(season_id)]
    results = [(r.series_id, r.winner) for r in storage.results(season_id)]
    return (plan, results, storage.get_season(season_id).status)


@pytest.mark.parametrize("format_name", ["swiss", "knockout", "sprt"])
def test_cancelled_mid_round_resumes_to_the_uninterrupted_season(
        tmp_path: Path, format_name: str) -> None:
    whole = Storage(tmp_path / "whole.db")
    whole_id = make_season(whole, tmp_path / "w", format_name)
    assert play(whole, whole_id, outcome) == "finished"
    rounds = max(p.round for p in whole.planned_series(whole_id))
    assert rounds >= 3

    stopped = Storage(tmp_path / "stopped.db")
    season_id = make_season(stopped, tmp_path / "s", format_name)
    assert season_id == whole_id
    second_round = [p.series_id for p in whole.planned_series(whole_id) if p.round == 2]
    cancel = threading.Event()

    def stop_in_round_two(spec: SeriesSpec) -> SeriesOutcome:
        if spec.series_id == second_round[0]:
            cancel.set()
        return outcome(spec)

    assert play(stopped, season_id, stop_in_round_two, cancel) == "cancelled"
    assert len(stopped.results(season_id)) < len(whole.results(whole_id))
    assert play(stopped, season_id, outcome) == "finished"
    assert season_state(stopped, season_id) == season_state(whole, whole_id)


@pytest.mark.parametrize("format_name", ["swiss", "knockout", "sprt"])
def test_killed_between_rounds_resumes_to_the_uninterrupted_season(
        tmp_path: Path, format_name: str) -> None:
    """Every result of round 1 stored by hand, round 2 never planned: the state a
    kill -9 right after the last result of a round leaves."""
    whole = Storage(tmp_path / "whole.db")
    whole_id = make_season(whole, tmp_path / "w", format_name)
    assert play(whole, whole_id, outcome) == "finished"
    killed = Storage(tmp_path / "killed.db")
    season_id = make_season(killed, tmp_path / "k", format_name)
    for planned in killed.planned_series(season_id):
        spec_seed = planned.seed
        killed.store_result(planned, made_up_outcome(
            planned.series_id, winner=None if spec_seed % 3 == 0 else spec_seed % 2), {})
    assert play(Storage(tmp_path / "killed.db"), season_id, outcome) == "finished"
    assert season_state(killed, season_id) == season_state(whole, whole_id)
