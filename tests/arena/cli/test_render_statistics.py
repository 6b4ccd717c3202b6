"""The terminal parts of the statistics: Elo column and tied marks, the Swiss
columns, the bracket, the SPRT lines and the LOS matrix, from hand-made messages."""

from __future__ import annotations

from hollywood.arena.v1 import arena_pb2
from rich.console import Console

from arena.cli.render import print_standings
from arena.cli.render_statistics import los_table


def rendered(standings: arena_pb2.Standings, *extra: object) -> str:
    console = Console(record=True, width=200)
    print_standings(console, standings)
    for part in extra:
        console.print(part)
    return console.export_text()


def row(rank: int, bot: str, **values: object) -> arena_pb2.StandingRow:
    return arena_pb2.StandingRow(rank=rank, bot_id=bot, **values)  # type: ignore[arg-type]


def test_elo_interval_tied_mark_and_the_formats_columns() -> None:
    # The renderer shows a format's columns and note without knowing the format.
    standings = arena_pb2.Standings(
        season_id=4, format="some-format", extra_columns=["Byes", "Score", "Buchholz"],
        order_note="Ordered by score, then Buchholz.", rows=[
        row(1, "a@1", bt_elo=51.4, bt_elo_low=-10.2, bt_elo_high=113.0, tied_with_next=True,
            extra_cells=["1", "4.5", "7"]),
        row(2, "b@1", bt_elo=-51.4, bt_elo_low=-113.0, bt_elo_high=10.2,
            extra_cells=["0", "3", "8.5"]),
    ], los=[arena_pb2.LosCell(bot_id="a@1", opponent_id="b@1", los=0.9512),
            arena_pb2.LosCell(bot_id="b@1", opponent_id="a@1", los=0.0488)])
    text = rendered(standings, los_table(standings))
    lines = {line.split()[1]: line for line in text.splitlines()
             if line.strip()[:1].isdigit() and "@1" in line}
    assert "+51±62" in lines["a@1"] and "tied" in lines["a@1"]
    assert "-51±62" in lines["b@1"] and "tied" not in lines["b@1"]
    assert lines["a@1"].split()[-3:] == ["1", "4.5", "7"]
    assert lines["b@1"].split()[-3:] == ["0", "3", "8.5"]
    flowing = " ".join(text.split())  # the caption wraps at the table's width
    assert "Buchholz" in text and "Ordered by score, then Buchholz." in flowing
    assert "95.1" in text and "4.9" in text


def test_the_formats_sections_are_shown_without_knowing_the_format() -> None:
    standings = arena_pb2.Standings(
        season_id=5, format="some-format", series_per_minute=12.0, seconds_left=-1, sections=[
            arena_pb2.StandingsSection(
                title="Bracket — champion b@1", headers=["Round", "Through"],
                rows=[arena_pb2.SectionRow(cells=["1", "a@1 (bye)"]),
                      arena_pb2.SectionRow(cells=["2", "b@1 (seed)"])]),
            arena_pb2.StandingsSection(lines=["LLR 1.250  bounds [-2.944, 2.944]",
                                              "second line"])])
    text = rendered(standings)
    assert "Bracket — champion b@1" in text and "Through" in text
    cells = [line.replace("│", " ").split() for line in text.splitlines()]
    assert ["1", "a@1", "(bye)"] in cells and ["2", "b@1", "(seed)"] in cells
    assert "LLR 1.250  bounds [-2.944, 2.944]\nsecond line" in text
    assert "12.0 series/min" in text
