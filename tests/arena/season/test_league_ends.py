"""A league cancelled as a whole: its unfinished seasons are cancelled, its finished
ones stay finished, and no round of it is made again — not when its seasons end, not
on request, not by a restarted server's catch-up, not by the storage asked directly.
And the end of a league's last planned round: its moves stored, no round made."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.core.settings import SeasonConfig
from arena.core.status import SeasonStatus
from arena.season.league_rules import LeagueRule
from arena.season.leagues import LeagueError, LeagueKeeper, LeaguePlan, create_league
from arena.storage import (
    NotFoundError,
    Storage,
    StoredMove,
    add_league_round,
    cancel_league,
    get_league,
    league_moves,
    league_seasons,
)
from tests.helpers.arena_helpers import register_bots
from tests.helpers.league_helpers import RecordingManager, divisions_of, finish_round
from tests.helpers.lifecycle_helpers import mark_deactivated

NAMES = ("s1", "s2", "s3", "s4")
RATED = {f"{name}@1.0.0": 10.0 - index for index, name in enumerate(NAMES)}
STRENGTH = RATED
PLAN = LeaguePlan(LeagueRule(2, 1, 1), 3, ("round-robin", "round-robin"),
                  SeasonConfig.build(sandbox="process", seed=7, max_hands=20))


@pytest.fixture
def storage(tmp_path: Path) -> Storage:
    return Storage(tmp_path / "arena.db")


def statuses(storage: Storage, league_id: int) -> list[SeasonStatus]:
    return [storage.get_season(season.season_id).status
            for season in league_seasons(storage, league_id)]


def test_cancelling_ends_the_unfinished_seasons_and_every_later_round(
        storage: Storage, tmp_path: Path) -> None:
    ids = register_bots(storage, tmp_path, NAMES)
    league = create_league(storage, "cup", PLAN, ids, lambda wanted: RATED)
    manager = RecordingManager(storage)
    keeper = LeagueKeeper(storage, manager, ratings=lambda wanted: RATED)
    keeper.start(league.id)
    division_one, division_two = (s.season_id for s in league_seasons(storage, league.id))
    assert manager.started == [division_one, division_two]
    # Division 1 has finished its season, division 2 is still playing.
    storage.set_season_status(division_one, SeasonStatus.FINISHED)

    cancelled = keeper.cancel(league.id)

    assert cancelled.cancelled and cancelled.cancelled_at
    assert statuses(storage, league.id) == [SeasonStatus.FINISHED, SeasonStatus.CANCELLED]
    keeper.season_finished(division_two)  # the hook of a season ending: no round 2
    with pytest.raises(LeagueError, match=rf"league {league.id} was cancelled at "
                                          rf"{cancelled.cancelled_at}: it plays no more"):
        keeper.next_round(league.id)
    restarted = RecordingManager(storage)
    assert LeagueKeeper(storage, restarted, ratings=lambda wanted: RATED).catch_up() == []
    assert restarted.started == [] and len(league_seasons(storage, league.id)) == 2
    # Cancelling again keeps the first time and changes nothing.
    assert keeper.cancel(league.id).cancelled_at == cancelled.cancelled_at
    assert statuses(storage, league.id) == [SeasonStatus.FINISHED, SeasonStatus.CANCELLED]


def test_a_league_whose_round_ended_unheard_makes_no_round_once_cancelled(
        storage: Storage, tmp_path: Path) -> None:
    """Round 1 finished while no keeper listened (a server down), then the league was
    cancelled: the restarted server's catch-up makes nothing, and the storage itself
    refuses the round (the keeper's check is not the only guard)."""
    ids = register_bots(storage, tmp_path, NAMES)
    league = create_league(storage, "cup", PLAN, ids, lambda wanted: RATED)
    finish_round(storage, league.id, 1, STRENGTH)
    cancel_league(storage, league.id)
    manager = RecordingManager(storage)
    assert LeagueKeeper(storage, manager, ratings=lambda wanted: RATED).catch_up() == []
    assert manager.started == []
    assert add_league_round(storage, league.id, 2, [StoredMove(1, ids[0], 1, 1)], [], 3) is None
    assert len(league_seasons(storage, league.id)) == 2
    assert statuses(storage, league.id) == [SeasonStatus.FINISHED] * 2


def test_a_league_plays_on_until_cancelled(storage: Storage, tmp_path: Path) -> None:
    """The same league not cancelled makes its round 2 (the control of the tests above)."""
    ids = register_bots(storage, tmp_path, NAMES)
    league = create_league(storage, "cup", PLAN, ids, lambda wanted: RATED)
    assert not get_league(storage, league.id).cancelled
    keeper = LeagueKeeper(storage, RecordingManager(storage), ratings=lambda wanted: RATED)
    for season_id in finish_round(storage, league.id, 1, STRENGTH):
        keeper.season_finished(season_id)
    assert len(league_seasons(storage, league.id)) == 4


def test_an_unknown_league_cannot_be_cancelled(storage: Storage) -> None:
    keeper = LeagueKeeper(storage, RecordingManager(storage))
    with pytest.raises(NotFoundError, match="unknown league 9"):
        keeper.cancel(9)


def test_the_last_planned_round_shows_its_moves_and_a_later_round_follows_them(
        storage: Storage, tmp_path: Path) -> None:
    """One round planned: when it ends its moves are stored (the tables' marks) but
    no round is made; a bot deactivated afterwards does not change them, and the
    round asked for later is made from them."""
    names = ("s1", "s2", "s3", "s4", "s5", "s6")
    ids = register_bots(storage, tmp_path, names)
    rated = {bot_id: 10.0 - index for index, bot_id in enumerate(ids)}
    one_round = LeaguePlan(LeagueRule(2, 1, 1), 1, ("round-robin", "round-robin"),
                           PLAN.config)
    league = create_league(storage, "one", one_round, ids, lambda wanted: rated)
    keeper = LeagueKeeper(storage, RecordingManager(storage), ratings=lambda wanted: rated)
    s1, s2, s3, s4, s5, s6 = ids
    # Division 1 (s1 s2 s3) ends s3 s1 s2; division 2 (s4 s5 s6) ends s6 s4 s5.
    for season_id in finish_round(storage, league.id, 1,
                                  {s3: 9, s1: 8, s2: 7, s6: 6, s4: 5, s5: 4}):
        keeper.season_finished(season_id)
    expected = [StoredMove(1, s3, 1, 1), StoredMove(1, s1, 1, 1), StoredMove(1, s2, 1, 2),
                StoredMove(1, s6, 2, 1), StoredMove(1, s4, 2, 2), StoredMove(1, s5, 2, 2)]
    assert league_moves(storage, league.id) == expected
    assert len(league_seasons(storage, league.id)) == 2  # no round 2 unasked
    assert keeper.catch_up() == [] and league_moves(storage, league.id) == expected
    # s3 deactivated now would be relegated first by a fresh reading: the moves stand.
    mark_deactivated(storage, s3, "crashed 5 times in a row")
    keeper.next_round(league.id)
    assert divisions_of(storage, league.id, 2) == [{s3, s1, s6}, {s2, s4, s5}]
    assert league_moves(storage, league.id) == expected
