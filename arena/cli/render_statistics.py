"""The season statistics on the terminal: what the Elo column and tied marks of the
standings table mean (their cells are ``arena.core.standing_columns``'), the
likelihood-of-superiority matrix (``standings --los``), the
parts a format adds under the table (``Standings.sections``), and throughput with
time left."""

from __future__ import annotations

from hollywood.arena.v1 import arena_pb2
from rich.console import RenderableType
from rich.table import Table
from rich.text import Text

from arena.core.progress_text import progress_line

TIED_NOTE = ("Elo = Bradley-Terry over all series with its 95 % interval (a draw model, and "
             "a prior of one virtual drawn series against a fixed opponent at 0, as in "
             "BayesElo: see docs/formats.md); 'tied' = neither this row nor the next is "
             "significantly stronger (95 %); 'behind' = the next row is significantly "
             "stronger (95 %).")


def los_table(standings: arena_pb2.Standings) -> Table:
    """Likelihood of superiority: row bot stronger than column bot, in %."""
    bots = [row.bot_id for row in standings.rows]
    values = {(cell.bot_id, cell.opponent_id): cell.los for cell in standings.los}
    table = Table(title="Likelihood of superiority (row stronger than column, %)")
    table.add_column("")
    for bot in bots:
        table.add_column(bot, justify="right")
    for bot in bots:
        table.add_row(bot, *("·" if bot == other else f"{100 * values.get((bot, other), 0.5):.1f}"
                             for other in bots))
    return table


def section_part(section: arena_pb2.StandingsSection) -> RenderableType:
    """A part a format adds under the table: a table, or lines of text."""
    if section.headers:
        table = Table(title=section.title or None)
        for header in section.headers:
            table.add_column(header)
        for row in section.rows:
            table.add_row(*row.cells)
        return table
    return Text("\n".join([section.title, *section.lines] if section.title else section.lines))


def statistics_parts(standings: arena_pb2.Standings) -> list[RenderableType]:
    """Throughput, then the format's own parts under the standings table (e.g. a
    bracket), shown without knowing the format."""
    return [Text(throughput_text(standings), style="dim"),
            *(section_part(section) for section in standings.sections)]


def throughput_text(standings: arena_pb2.Standings) -> str:
    """``12.5 series/min, 40/192 series expected, about 3 min 20 s left``: the
    website's progress line too (``arena.core.progress_text``), of the results
    these standings count (``sequence``)."""
    return progress_line(standings.series_per_minute, standings.sequence,
                         standings.series_expected or None,
                         None if standings.seconds_left < 0 else standings.seconds_left)
