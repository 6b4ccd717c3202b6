"""Forfeits count as forfeits (issue 28, point 4d): a bot that forfeited every
series after winning a game and scoring points shows a loss and a forfeit for each,
and no games or points from series it never finished."""

from __future__ import annotations

from arena.season.standings import compute_standings
from tests.helpers.arena_helpers import result

CRASHY, STEADY, OTHER = "crashy@1", "steady@1", "other@1"


def always_forfeiting_season() -> list:
    # crashy leads each of its series (a game won, 147 points up) and then crashes.
    return [
        result("1-0", CRASHY, STEADY, 1, games=(1, 0), hands=(3, 1), points=(147, 0),
               fault_seat=0),
        result("1-1", STEADY, CRASHY, 0, games=(0, 1), hands=(1, 3), points=(0, 147),
               fault_seat=1),
        result("1-2", CRASHY, OTHER, 1, games=(1, 0), hands=(2, 0), points=(120, 10),
               fault_seat=0),
        result("1-3", STEADY, OTHER, 0, games=(2, 1), hands=(6, 4), points=(260, 180)),
    ]


def test_a_bot_that_always_forfeits_shows_losses_forfeits_and_no_score() -> None:
    table = compute_standings([CRASHY, STEADY, OTHER], always_forfeiting_season())
    crashy, steady, other = table.row(CRASHY), table.row(STEADY), table.row(OTHER)
    assert (crashy.series_played, crashy.series_won, crashy.series_drawn,
            crashy.series_lost, crashy.series_forfeited) == (3, 0, 0, 3, 3)
    assert (crashy.games_won, crashy.games_lost, crashy.hands_won) == (0, 0, 0)
    assert (crashy.points_for, crashy.points_against) == (0, 0)
    assert crashy.series_points == 0.0
    # Its opponents win those series, with the score of their finished series only.
    assert (steady.series_won, steady.series_forfeited) == (3, 0)
    assert (steady.games_won, steady.games_lost) == (2, 1)
    assert (steady.points_for, steady.points_against) == (260, 180)
    assert (other.games_won, other.points_for, other.points_against) == (1, 180, 260)
    assert table.crosstable[CRASHY][STEADY].forfeited == 2
    assert table.crosstable[CRASHY][STEADY].lost == 2
    assert [row.bot_id for row in table.rows][-1] == CRASHY


def test_the_terminal_table_shows_the_forfeits_and_no_score_of_them() -> None:
    from hollywood.arena.v1 import arena_pb2
    from rich.console import Console

    from arena.cli.render import crosstable, standings_table

    table = compute_standings([CRASHY, STEADY, OTHER], always_forfeiting_season())
    message = arena_pb2.Standings(season_id=1, series_done=4, series_total=4)
    for row in table.rows:
        message.rows.add(bot_id=row.bot_id, rank=row.rank, series_played=row.series_played,
                         series_won=row.series_won, series_lost=row.series_lost,
                         series_forfeited=row.series_forfeited, games_won=row.games_won,
                         games_lost=row.games_lost, points_for=row.points_for,
                         points_against=row.points_against)
    for bot, opponents in table.crosstable.items():
        for opponent, cell in opponents.items():
            message.crosstable.add(bot_id=bot, opponent_id=opponent, won=cell.won,
                                   lost=cell.lost, drawn=cell.drawn, forfeited=cell.forfeited)
    console = Console(width=200, record=True)
    console.print(standings_table(message))
    console.print(crosstable(message))
    text = console.export_text()
    crashy_line = next(line for line in text.splitlines() if line.lstrip().startswith("3 "))
    # rank, bot, SPts, W-D-L, F, games, hands, points for minus against
    assert crashy_line.split()[:8] == ["3", CRASHY, "0", "0-0-3", "3", "0-0", "0", "+0"]
    crashy_cells = next(line for line in text.splitlines() if line.startswith("│ 3 " + CRASHY))
    assert "0-0-2 F2" in crashy_cells and "0-0-1 F1" in crashy_cells
