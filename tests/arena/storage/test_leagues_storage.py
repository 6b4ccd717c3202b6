"""A league's rounds in storage (arena/storage/leagues.py): each round stored with
the moves before it in one transaction, only as the round after the last one."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.storage import Storage
from arena.storage.leagues import (
    SeasonDraft,
    StoredMove,
    add_league_round,
    create_league,
    get_league,
    league_moves,
    league_of_season,
    league_seasons,
)
from engine.profiles import FRIENDLY
from tests.helpers.arena_helpers import register_bots


def draft(name: str, a: str, b: str) -> SeasonDraft:
    return SeasonDraft(name=name, config={"format": "round-robin", "seed": 3}, profile=FRIENDLY,
                       bot_ids=(a, b), plan=((3, False, a, b), (3, False, b, a)))


def test_a_round_is_stored_once_with_its_moves(tmp_path: Path) -> None:
    storage = Storage(tmp_path / "arena.db")
    a, b, c, d = register_bots(storage, tmp_path, ("a", "b", "c", "d"))
    league = create_league(storage, "  cup  ", {"rounds": 1},
                           [draft("one", a, b), draft("two", c, d)])
    assert (league.name, league.planned_rounds) == ("cup", 1)
    moves = [StoredMove(1, a, 1, 1), StoredMove(1, b, 1, 2), StoredMove(1, c, 2, 1),
             StoredMove(1, d, 2, 2)]
    made = add_league_round(storage, league.id, 2, moves,
                            [draft("three", a, c), draft("four", b, d)], 2)
    assert made == [3, 4]
    assert add_league_round(storage, league.id, 2, moves, [draft("x", a, c)], 2) is None
    assert add_league_round(storage, league.id, 4, moves, [draft("x", a, c)], 4) is None
    assert [(s.round, s.division, s.season_id) for s in league_seasons(storage, league.id)] == [
        (1, 1, 1), (1, 2, 2), (2, 1, 3), (2, 2, 4)]
    assert league_moves(storage, league.id) == moves
    assert get_league(storage, league.id).planned_rounds == 2
    assert [league_of_season(storage, n) for n in (1, 4, 5)] == [league.id, league.id, None]
    assert storage.get_season(3).bot_ids == (a, c)
    assert storage.get_season(3).name == "three"


def test_a_round_that_fails_half_way_stores_nothing(tmp_path: Path) -> None:
    storage = Storage(tmp_path / "arena.db")
    a, b, c, d = register_bots(storage, tmp_path, ("a", "b", "c", "d"))
    league = create_league(storage, "cup", {"rounds": 1}, [draft("one", a, b), draft("two", c, d)])
    broken = draft("two", c, "nobody@1")  # not a bot: its season's row fails
    with pytest.raises(Exception, match="FOREIGN KEY"):
        add_league_round(storage, league.id, 2, [StoredMove(1, a, 1, 1)],
                         [draft("one", a, b), broken], 2)
    assert len(league_seasons(storage, league.id)) == 2
    assert league_moves(storage, league.id) == []
    assert len(storage.list_seasons()) == 2
