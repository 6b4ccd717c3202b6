"""Standings on the terminal: the ``rich`` table, the crosstable, one line per
series, and the live view (progress bar + table + latest series) that follows a
``WatchSeason`` stream."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from typing import Final

from hollywood.arena.v1 import arena_pb2
from rich import box
from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from arena.core.ordering import ORDERING_RULE

RECENT_SERIES: Final = 6
LIVE_TOP_ROWS: Final = 20
"""Standings rows a live view shows (plus the rows of bots the user names)."""
CROSSTABLE_MAX_BOTS: Final = 16
"""Above this many bots the crosstable is too wide for a terminal (``--json`` has it)."""
ORDERING_NOTE: Final = (
    f"Fft = forfeits, SPts = series points, Rating = OpenSkill μ±σ. Ordered by {ORDERING_RULE}."
)


def status_name(status: int) -> str:
    try:
        return arena_pb2.SeasonStatus.Name(status).removeprefix("SEASON_STATUS_").lower()  # type: ignore[arg-type]
    except ValueError:
        return "unknown"


def standings_table(standings: arena_pb2.Standings, title: str | None = None) -> Table:
    """The standings as a ``rich`` table."""
    done, total = standings.series_done, standings.series_total
    table = Table(
        title=title or f"Season {standings.season_id} — {done}/{total} series "
        f"({status_name(standings.status)})",
        caption=ORDERING_NOTE,
        caption_justify="left",
        box=box.SIMPLE_HEAVY,
        pad_edge=False,
        collapse_padding=True,
    )
    table.add_column("#", justify="right", min_width=2, no_wrap=True)
    table.add_column("Bot", style="bold", no_wrap=True)
    for header in ("Pld", "W-D-L", "Fft", "SPts", "Games", "Hands"):
        table.add_column(header, justify="right", no_wrap=True)
    table.add_column("Pts +/-", justify="right", no_wrap=True)
    table.add_column("Rating", justify="right", no_wrap=True)
    for row in standings.rows:
        table.add_row(
            str(row.rank), row.bot_id, str(row.series_played),
            f"{row.series_won}-{row.series_drawn}-{row.series_lost}", str(row.series_forfeited),
            f"{row.series_points:g}", f"{row.games_won}-{row.games_lost}", str(row.hands_won),
            f"{row.points_for}/{row.points_against}",
            f"{row.rating_mu:.1f}±{row.rating_sigma:.1f}",
        )
    return table


def print_standings(console: Console, standings: arena_pb2.Standings) -> None:
    """The standings table, then the crosstable once a series has been played."""
    console.print(standings_table(standings))
    if standings.crosstable and len(standings.rows) <= CROSSTABLE_MAX_BOTS:
        console.print(crosstable(standings))
    elif standings.crosstable:
        console.print(f"(the crosstable of {len(standings.rows)} bots is left out here: "
                      "--json has it, or name bots with --bot)")


def crosstable(standings: arena_pb2.Standings) -> Table:
    """Head-to-head: row bot's wins-draws-losses against each column bot."""
    bots = [row.bot_id for row in standings.rows]
    cells = {(cell.bot_id, cell.opponent_id): cell for cell in standings.crosstable}
    table = Table(title="Head to head (row vs column: W-D-L)")
    table.add_column("")
    for bot in bots:
        table.add_column(bot, justify="center")
    for bot in bots:
        values = []
        for opponent in bots:
            cell = cells.get((bot, opponent))
            if bot == opponent:
                values.append("·")
            elif cell is None:
                values.append("")
            else:
                values.append(f"{cell.won}-{cell.drawn}-{cell.lost}")
        table.add_row(bot, *values)
    return table


def describe_series(series: arena_pb2.SeriesSummary) -> str:
    """One line about a finished series, e.g. ``3-4 greedy@1 beat random@1 3-0 (41 hands)``."""
    bots = (series.seat0_bot_id, series.seat1_bot_id)
    games_won = list(series.games_won) if len(series.games_won) == 2 else [0, 0]
    capped = ", hand cap" if series.capped else ""
    if series.HasField("fault"):
        faulty = bots[series.fault.seat]
        return (f"{series.id} {faulty} forfeited ({series.fault.kind}: "
                f"{series.fault.message[:80]})")
    if series.winner_seat in (0, 1):
        seat = series.winner_seat
        games = f"{games_won[seat]}-{games_won[1 - seat]}"
        return (f"{series.id} {bots[seat]} beat {bots[1 - seat]} {games} "
                f"({series.hands_played} hands{capped})")
    games = f"{games_won[0]}-{games_won[1]}"
    return f"{series.id} {bots[0]} drew {bots[1]} {games} ({series.hands_played} hands{capped})"


class LiveSeasonView:
    """Follows a ``WatchSeason`` stream on the console: a progress bar, the live
    standings table and the latest finished series. Returns the last standings."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.progress = Progress(
            TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
            TimeElapsedColumn(), console=console,
        )
        self.task = self.progress.add_task("series", total=None)
        self.recent: deque[str] = deque(maxlen=RECENT_SERIES)
        self.standings: arena_pb2.Standings | None = None
        self.status = "unknown"

    def _render(self) -> RenderableType:
        parts: list[RenderableType] = [self.progress]
        if self.standings is not None:
            parts.append(standings_table(self.standings))
        if self.recent:
            parts.append(Text("\n".join(self.recent), style="dim"))
        return Group(*parts)

    def follow(
        self, stream: Iterable[arena_pb2.WatchSeasonResponse], *, transient: bool = False
    ) -> arena_pb2.Standings | None:
        """Show the stream until it ends; ``transient`` clears the view at the end
        (for callers that print the final standings themselves)."""
        with Live(self._render(), console=self.console, refresh_per_second=4,
                  transient=transient) as live:
            for message in stream:
                self.status = status_name(message.status)
                self.progress.update(self.task, total=message.series_total,
                                     completed=message.series_done,
                                     description=f"series ({self.status})")
                event = message.WhichOneof("event")
                if event == "standings":
                    self.standings = message.standings
                elif event == "series_finished":
                    self.recent.append(describe_series(message.series_finished.series))
                elif event == "series_started":
                    started = message.series_started
                    self.recent.append(
                        f"{started.series_id} started: {started.seat0_bot_id} vs "
                        f"{started.seat1_bot_id}")
                live.update(self._render())
        return self.standings
