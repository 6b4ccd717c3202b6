"""Helpers for the league tests: bots registered in a storage, a season manager that
records what it is asked to start, and a round of a league finished with made-up
results in which the stronger bot of every series wins."""

from __future__ import annotations

from collections.abc import Mapping

from arena.core.status import SeasonStatus
from arena.execution import LocalExecutor
from arena.season.events import EventHub
from arena.season.manager import SeasonManager
from arena.storage import Storage, league_seasons
from tests.helpers.arena_helpers import made_up_outcome
from tests.helpers.fake_runner import run_fake_series


class RecordingManager(SeasonManager):
    """A season manager that marks a season running when asked to start it, and
    records it, but plays nothing."""

    def __init__(self, storage: Storage) -> None:
        super().__init__(storage, lambda config: LocalExecutor(run_fake_series, 1),
                         EventHub())
        self.started: list[int] = []

    def start(self, season_id: int) -> None:
        self.started.append(season_id)
        self.storage.set_season_status(season_id, SeasonStatus.RUNNING)


def finish_round(storage: Storage, league_id: int, round_number: int,
                 strength: Mapping[str, float]) -> list[int]:
    """Store a result for every planned series of the round's seasons, the bot with
    the higher ``strength`` (by bot id) winning 2 games to 0, and mark the seasons
    finished; returns their ids, division 1 first."""
    finished = []
    for season in league_seasons(storage, league_id):
        if season.round != round_number:
            continue
        for planned in storage.planned_series(season.season_id):
            winner = 0 if strength[planned.seat0_bot] > strength[planned.seat1_bot] else 1
            games = (2, 0) if winner == 0 else (0, 2)
            outcome = made_up_outcome(planned.series_id, winner, games_won=games,
                                      points=(games[0] * 100, games[1] * 100))
            storage.store_result(planned, outcome, {})
        storage.set_season_status(season.season_id, SeasonStatus.FINISHED)
        finished.append(season.season_id)
    return finished


def divisions_of(storage: Storage, league_id: int, round_number: int) -> list[set[str]]:
    """The bots of each division (division 1 first) in a round, as sets."""
    return [set(storage.get_season(season.season_id).bot_ids)
            for season in league_seasons(storage, league_id) if season.round == round_number]
