"""Leagues of divisions (issue #30 point 3): bots placed by rating, one season per
division, and at the end of a round the top of each division moving up and the
bottom moving down, stored with the next round in one transaction, made once
however often it is asked (a restart included). Results are made up (the stronger
bot of each series wins), so every expected move below is written by hand."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.core.settings import ConfigError, SeasonConfig
from arena.core.status import SeasonStatus
from arena.season.formats import plan_season
from arena.season.league_rules import LeagueRule
from arena.season.leagues import (
    LeagueError,
    LeagueKeeper,
    LeaguePlan,
    create_league,
    division_formats,
)
from arena.storage import Storage, StoredMove, league_moves, league_seasons
from tests.helpers.arena_helpers import made_up_outcome, register_bots
from tests.helpers.league_helpers import RecordingManager, divisions_of, finish_round
from tests.helpers.lifecycle_helpers import mark_deactivated

NAMES = ("s1", "s2", "s3", "s4", "s5", "s6")
RATED = {f"{name}@1.0.0": 10.0 - index for index, name in enumerate(NAMES)}
"""s1 rated highest ... s6 lowest: s1-s3 start in division 1, s4-s6 in division 2."""


def plan(divisions: int = 2, promote: int = 1, relegate: int = 1, rounds: int = 2,
         formats: tuple[str, ...] = ()) -> LeaguePlan:
    return LeaguePlan(LeagueRule(divisions, promote, relegate), rounds,
                      formats or ("round-robin",) * divisions,
                      SeasonConfig.build(sandbox="process", seed=7, max_hands=20))


def bot(name: str) -> str:
    return f"{name}@1.0.0"


def bots(*names: str) -> set[str]:
    return {bot(name) for name in names}


@pytest.fixture
def storage(tmp_path: Path) -> Storage:
    return Storage(tmp_path / "arena.db")


def test_a_two_division_league_promotes_and_relegates_by_its_rule(
        storage: Storage, tmp_path: Path) -> None:
    ids = register_bots(storage, tmp_path, NAMES)
    league = create_league(storage, "two", plan(), ids, lambda wanted: RATED)
    assert divisions_of(storage, league.id, 1) == [bots("s1", "s2", "s3"),
                                                    bots("s4", "s5", "s6")]
    manager = RecordingManager(storage)
    keeper = LeagueKeeper(storage, manager, ratings=lambda wanted: RATED)
    # Division 1 ends s3, s1, s2; division 2 ends s6, s4, s5.
    strength = {bot("s3"): 9, bot("s1"): 8, bot("s2"): 7,
                bot("s6"): 6, bot("s4"): 5, bot("s5"): 4}
    first, second = finish_round(storage, league.id, 1, strength)
    storage.set_season_status(second, SeasonStatus.RUNNING)
    keeper.season_finished(first)  # one division finished: no round yet
    assert len(league_seasons(storage, league.id)) == 2
    storage.set_season_status(second, SeasonStatus.FINISHED)
    keeper.season_finished(second)
    assert divisions_of(storage, league.id, 2) == [bots("s3", "s1", "s6"),
                                                    bots("s2", "s4", "s5")]
    assert sorted(league_moves(storage, league.id), key=lambda m: m.bot_id) == [
        StoredMove(1, bot("s1"), 1, 1), StoredMove(1, bot("s2"), 1, 2),
        StoredMove(1, bot("s3"), 1, 1), StoredMove(1, bot("s4"), 2, 2),
        StoredMove(1, bot("s5"), 2, 2), StoredMove(1, bot("s6"), 2, 1)]
    round_two = [season.season_id for season in league_seasons(storage, league.id)
                 if season.round == 2]
    assert manager.started == round_two
    # The league plans 2 rounds: the end of round 2 makes no round 3.
    for season_id in finish_round(storage, league.id, 2, strength):
        keeper.season_finished(season_id)
    assert max(season.round for season in league_seasons(storage, league.id)) == 2


def test_three_divisions_move_two_up_and_one_down(storage: Storage, tmp_path: Path) -> None:
    names = [f"{group}{n}" for group in "abc" for n in range(1, 5)]
    ids = register_bots(storage, tmp_path, names)
    ratings = {bot(name): 20.0 - index for index, name in enumerate(names)}
    league = create_league(storage, "three", plan(3, promote=2, relegate=1),
                           ids, lambda wanted: ratings)
    assert divisions_of(storage, league.id, 1) == [
        bots("a1", "a2", "a3", "a4"), bots("b1", "b2", "b3", "b4"),
        bots("c1", "c2", "c3", "c4")]
    keeper = LeagueKeeper(storage, RecordingManager(storage), ratings=lambda wanted: ratings)
    # Every division ends in its rating order except division 2: b4 b3 b2 b1.
    strength = {**ratings, bot("b4"): 16.5, bot("b3"): 16.4, bot("b2"): 16.3,
                bot("b1"): 16.2}
    for season_id in finish_round(storage, league.id, 1, strength):
        keeper.season_finished(season_id)
    assert divisions_of(storage, league.id, 2) == [
        bots("a1", "a2", "a3", "b4", "b3"),      # a4 relegated, b4 and b3 promoted
        bots("a4", "b2", "c1", "c2"),            # b1 relegated, c1 and c2 promoted
        bots("b1", "c3", "c4")]


def test_a_deactivated_bot_is_never_promoted_and_is_relegated_first(
        storage: Storage, tmp_path: Path) -> None:
    ids = register_bots(storage, tmp_path, NAMES)
    league = create_league(storage, "deactivated", plan(), ids, lambda wanted: RATED)
    keeper = LeagueKeeper(storage, RecordingManager(storage), ratings=lambda wanted: RATED)
    # s4 tops division 2 and s1 division 1 on the results, but both are deactivated.
    strength = {bot("s1"): 9, bot("s2"): 8, bot("s3"): 7,
                bot("s4"): 6, bot("s5"): 5, bot("s6"): 4}
    seasons = finish_round(storage, league.id, 1, strength)
    mark_deactivated(storage, bot("s4"), "crashed 5 times in a row")
    mark_deactivated(storage, bot("s1"), "crashed 5 times in a row")
    for season_id in seasons:
        keeper.season_finished(season_id)
    assert divisions_of(storage, league.id, 2) == [bots("s2", "s3", "s5"),
                                                    bots("s1", "s4", "s6")]


def test_the_next_round_is_made_once_after_a_restart(storage: Storage, tmp_path: Path) -> None:
    """The server stopped after round 1's last season finished, before the next
    round was made: two keepers of restarted servers catch up; one round is made,
    its seasons started once; a later catch-up changes nothing."""
    ids = register_bots(storage, tmp_path, NAMES)
    league = create_league(storage, "restart", plan(), ids, lambda wanted: RATED)
    strength = {bot_id: 10 - index for index, bot_id in enumerate(ids)}
    finish_round(storage, league.id, 1, strength)  # no keeper heard of it
    first, again = RecordingManager(storage), RecordingManager(storage)
    assert LeagueKeeper(storage, first, ratings=lambda wanted: RATED).catch_up() == [league.id]
    assert LeagueKeeper(storage, again, ratings=lambda wanted: RATED).catch_up() == []
    round_two = [season.season_id for season in league_seasons(storage, league.id)
                 if season.round == 2]
    assert len(round_two) == 2 and len(league_seasons(storage, league.id)) == 4
    assert first.started == round_two and again.started == []
    assert len(league_moves(storage, league.id)) == 6


def test_a_round_stored_but_not_started_is_started_by_the_catch_up(
        storage: Storage, tmp_path: Path) -> None:
    ids = register_bots(storage, tmp_path, NAMES)
    league = create_league(storage, "created", plan(), ids, lambda wanted: RATED)
    manager = RecordingManager(storage)
    assert LeagueKeeper(storage, manager).catch_up() == []
    assert manager.started == [season.season_id
                               for season in league_seasons(storage, league.id)]


def test_next_round_is_refused_while_a_season_plays_and_goes_past_the_plan(
        storage: Storage, tmp_path: Path) -> None:
    ids = register_bots(storage, tmp_path, NAMES)
    league = create_league(storage, "asked", plan(rounds=1), ids, lambda wanted: RATED)
    keeper = LeagueKeeper(storage, RecordingManager(storage), ratings=lambda wanted: RATED)
    first_season = league_seasons(storage, league.id)[0].season_id
    with pytest.raises(LeagueError, match=rf"round 1 of league {league.id} is not over: "
                                          rf"season\(s\) {first_season}, {first_season + 1}"):
        keeper.next_round(league.id)
    strength = {bot_id: 10 - index for index, bot_id in enumerate(ids)}
    for season_id in finish_round(storage, league.id, 1, strength):
        keeper.season_finished(season_id)  # one round planned: nothing made
    assert len(league_seasons(storage, league.id)) == 2
    made = keeper.next_round(league.id)
    assert len(made) == 2 and storage.get_season(made[0]).status is SeasonStatus.RUNNING


@pytest.mark.parametrize(("divisions", "promote", "relegate", "count", "message"), [
    (2, 4, 1, 6, r"division 2 has 3 bots: too few to promote 4 and relegate 0"),
    (2, 1, 4, 6, r"division 1 has 3 bots: too few to promote 0 and relegate 4"),
    # Allowed by the first check (all of division 1 relegated), not by the second.
    (2, 1, 3, 6, r"division 1 would be left with 1 bot\(s\) after a round"),
    (3, 2, 2, 9, r"division 2 has 3 bots: too few to promote 2 and relegate 2"),
    (2, 1, 1, 3, r"2 divisions need at least 4 bots \(2 each\), got 3"),
    (1, 1, 1, 6, r"divisions must be 2 to 20, got 1"),
    (2, 0, 0, 6, r"promote and relegate are both 0"),
    (2, -1, 1, 6, r"promote and relegate must be 0 or more"),
    # 3 and 3: division 2 gives 2 up and takes none down, left with 1 after round 1.
    (2, 2, 0, 6, r"division 2 would be left with 1 bot\(s\) after a round"),
])
def test_a_rule_its_divisions_cannot_play_is_refused(
        storage: Storage, tmp_path: Path, divisions: int, promote: int, relegate: int,
        count: int, message: str) -> None:
    ids = register_bots(storage, tmp_path, [f"b{n}" for n in range(count)])
    with pytest.raises(ConfigError, match=message):
        create_league(storage, "bad", plan(divisions, promote, relegate), ids,
                      lambda wanted: {})
    assert storage.list_seasons() == []


def test_a_rule_that_drains_a_division_is_refused_over_the_planned_rounds(
        storage: Storage, tmp_path: Path) -> None:
    # 4 and 4, promote 2 relegate 1: division 2 has 4, 3, 2, then 1 bot in round 4.
    ids = register_bots(storage, tmp_path, [f"b{n}" for n in range(8)])
    create_league(storage, "three rounds", plan(promote=2, relegate=1, rounds=3), ids,
                  lambda wanted: {})
    with pytest.raises(ConfigError, match=r"division 2 would be left with 1 bot"):
        create_league(storage, "four rounds", plan(promote=2, relegate=1, rounds=4), ids,
                      lambda wanted: {})


def test_each_division_plays_its_own_format(storage: Storage, tmp_path: Path) -> None:
    formats = division_formats(2, "round-robin", {2: "swiss"})
    assert formats == ("round-robin", "swiss")
    ids = register_bots(storage, tmp_path, NAMES)
    league = create_league(storage, "formats", plan(formats=formats), ids,
                           lambda wanted: RATED)
    seasons = [storage.get_season(season.season_id)
               for season in league_seasons(storage, league.id)]
    assert [season.config.format for season in seasons] == ["round-robin", "swiss"]
    assert [season.name for season in seasons] == ["formats: round 1, division 1",
                                                   "formats: round 1, division 2"]
    assert seasons[0].config.seed != seasons[1].config.seed


@pytest.mark.parametrize(("chosen", "message"), [
    ({3: "swiss"}, r"division 3 is not one of 1..2"),
    ({1: "ladder"}, r"a division cannot play the ladder format"),
    ({2: "sprt"}, r"a division cannot play the sprt format"),
    ({2: "gauntlet"}, r"a division cannot play the gauntlet format"),
    ({2: "bogus"}, r"format must be one of"),
])
def test_a_division_format_that_cannot_rank_is_refused(chosen: dict[int, str],
                                                       message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        division_formats(2, "round-robin", chosen)


def test_bots_are_placed_by_their_current_rating(storage: Storage, tmp_path: Path) -> None:
    """A finished season in which a beat everyone, b everyone but a, and so on,
    rates them a > b > c > d: a league of them, named in the reverse order, puts a
    and b in division 1."""
    a, b, c, d = register_bots(storage, tmp_path, ("a", "b", "c", "d"))
    config = SeasonConfig.build(sandbox="process", seed=2)
    season = storage.create_season(
        name="", config=config.to_dict(), profile=config.profile(),
        bot_ids=[a, b, c, d], plan=[p.as_row() for p in plan_season([a, b, c, d], 2, 2)])
    strength = {a: 4, b: 3, c: 2, d: 1}
    for planned in storage.planned_series(season.id):
        winner = 0 if strength[planned.seat0_bot] > strength[planned.seat1_bot] else 1
        storage.store_result(planned, made_up_outcome(planned.series_id, winner), {})
    storage.set_season_status(season.id, SeasonStatus.FINISHED)
    league = create_league(storage, "rated", plan(), [d, c, b, a])
    assert divisions_of(storage, league.id, 1) == [{a, b}, {c, d}]
