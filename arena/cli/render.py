"""Standings on the terminal: the ``rich`` table, the crosstable, one line per
series, and the live view (progress bar + table + latest series) that follows a
``WatchSeason`` stream.

Everything a reply carries may come from a bot, its author or another client:
``shown`` neutralises every text of a message before it is rendered, and the
CLI's consoles never read markup (``plain_console``), so no stored text can
move the cursor, reorder a line or be taken for ``rich`` markup."""

from __future__ import annotations

import errno
from collections import Counter, deque
from collections.abc import Iterable, Sequence
from typing import Any, Final, TypeVar

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message
from hollywood.arena.v1 import arena_pb2
from rich import box
from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from arena.cli.render_statistics import TIED_NOTE, statistics_parts
from arena.core.ordering import ORDERING_RULE
from arena.core.standing_columns import STANDING_COLUMNS, caption_terms
from arena.core.text import bounded, neutralise

RECENT_SERIES: Final = 6
MAX_REASON_CHARS: Final = 300
"""How much of a fault's message a forfeit line quotes."""
LIVE_TOP_ROWS: Final = 20
"""Standings rows a live view shows (plus the rows of bots the user names)."""
CROSSTABLE_MAX_BOTS: Final = 16
"""Above this many bots the crosstable is too wide for a terminal (``--json`` has it)."""
ORDERING_NOTE: Final = f"{caption_terms()}. Ordered by {ORDERING_RULE}."
TERMINAL_COLUMNS: Final = tuple(column for column in STANDING_COLUMNS if column.terminal)


MULTILINE_FIELDS: Final = frozenset({"stderr", "lines", "error"})
"""Text fields shown with their line breaks."""

M = TypeVar("M", bound=Message)


class _PipeConsole(Console):
    """A console whose closed output raises ``BrokenPipeError`` to the command's
    caller (``arena.cli.app.main`` then ends quietly, exit 0) instead of rich's own
    ``SystemExit(1)``, so every command ends the same way whatever it printed with."""

    def on_broken_pipe(self) -> None:
        self.quiet = True
        raise BrokenPipeError(errno.EPIPE, "the reader of the output went away")


def plain_console(**options: Any) -> Console:
    """A console that prints text as it is: no markup, no highlighting."""
    return _PipeConsole(markup=False, highlight=False, **options)


def shown(message: M) -> M:
    """A copy of ``message`` with every text in it neutralised (``arena.core.text``)."""
    copy = type(message)()
    copy.CopyFrom(message)
    _neutralise_texts(copy)
    return copy


def _neutralise_texts(message: Message) -> None:
    for field, value in message.ListFields():
        multiline = field.name in MULTILINE_FIELDS
        sub = field.message_type
        if field.type == FieldDescriptor.TYPE_STRING:
            if field.is_repeated:
                texts = [neutralise(text, multiline=multiline) for text in value]
                del value[:]
                value.extend(texts)
            else:
                setattr(message, field.name, neutralise(value, multiline=multiline))
        elif sub is not None and sub.GetOptions().map_entry:
            entries = dict(value)
            if sub.fields_by_name["value"].message_type is not None:
                for item in entries.values():
                    _neutralise_texts(item)
            elif sub.fields_by_name["value"].type == FieldDescriptor.TYPE_STRING:
                value.clear()
                value.update({neutralise(str(key)): neutralise(text)
                              for key, text in entries.items()})
        elif sub is not None:
            for item in (value if field.is_repeated else [value]):
                _neutralise_texts(item)


def status_name(status: int) -> str:
    try:
        return arena_pb2.SeasonStatus.Name(status).removeprefix("SEASON_STATUS_").lower()  # type: ignore[arg-type]
    except ValueError:
        return "unknown"


def standings_table(standings: arena_pb2.Standings, title: str | None = None) -> Table:
    """The standings as a ``rich`` table."""
    standings = shown(standings)
    # Out of what the format expects in all, as the website counts (a Swiss season
    # plans its rounds one at a time).
    done, total = standings.series_done, max(standings.series_total, standings.series_expected)
    table = Table(
        title=title or f"Season {standings.season_id} — {done}/{total} series "
        f"({status_name(standings.status)})",
        caption=" ".join(filter(None, (ORDERING_NOTE, TIED_NOTE, standings.order_note))),
        caption_justify="left",
        box=box.SIMPLE_HEAVY,
        pad_edge=False,
        collapse_padding=True,
        padding=(0, 0),  # one space between columns, no edges: the table fits 80 columns
        show_edge=False,
    )
    table.add_column("#", justify="right", min_width=2, no_wrap=True)
    table.add_column("Bot", style="bold", no_wrap=True)
    for column in TERMINAL_COLUMNS:  # arena.core.standing_columns: every screen's columns
        table.add_column(column.short, justify="right" if column.short else "left",
                         no_wrap=True)
    for header in standings.extra_columns:  # the format's own (e.g. a Swiss score)
        table.add_column(header, justify="right", no_wrap=True)
    for row in standings.rows:
        table.add_row(str(row.rank), row.bot_id,
                      *(column.cell(row) for column in TERMINAL_COLUMNS), *row.extra_cells)
    return table


def print_standings(console: Console, standings: arena_pb2.Standings) -> None:
    """The standings table, then the crosstable once a series has been played."""
    console.print(standings_table(standings))
    for part in statistics_parts(standings):
        console.print(part)
    if standings.crosstable and len(standings.rows) <= CROSSTABLE_MAX_BOTS:
        console.print(crosstable(standings))
    elif standings.crosstable:
        console.print(f"(the crosstable of {len(standings.rows)} bots is left out here: "
                      "--json has it, or name bots with --bot)")


def crosstable(standings: arena_pb2.Standings) -> Table:
    """Head-to-head: row bot's wins-draws-losses against each column bot."""
    standings = shown(standings)
    bots = [row.bot_id for row in standings.rows]
    cells = {(cell.bot_id, cell.opponent_id): cell for cell in standings.crosstable}
    # Columns numbered as the rows: a name per column would not fit 80 columns.
    table = Table(title="Head to head", caption="Row bot vs column bot (columns numbered as "
                  "the rows): W-D-L = series won-drawn-lost, F = of them forfeited.",
                  caption_justify="left")
    table.add_column("")
    for number in range(1, len(bots) + 1):
        table.add_column(str(number), justify="center")
    for number, bot in enumerate(bots, start=1):
        values = []
        for opponent in bots:
            cell = cells.get((bot, opponent))
            if bot == opponent:
                values.append("·")
            elif cell is None:
                values.append("")
            else:
                forfeits = f" F{cell.forfeited}" if cell.forfeited else ""
                values.append(f"{cell.won}-{cell.drawn}-{cell.lost}{forfeits}")
        table.add_row(f"{number} {bot}", *values)
    return table


def describe_series(series: arena_pb2.SeriesSummary) -> str:
    """One line about a finished series, e.g. ``3-4 greedy@1 beat random@1 3-0 (41 hands)``."""
    series = shown(series)
    bots = (series.seat0_bot, series.seat1_bot)
    games_won = list(series.games_won) if len(series.games_won) == 2 else [0, 0]
    capped = ", hand cap" if series.capped else ""
    if series.HasField("fault"):
        fault = series.fault
        seat = 1 if fault.seat == 1 else 0
        what = (f"and {bots[1 - seat]} both forfeited" if fault.HasField("other_seat_fault")
                else f"forfeited to {bots[1 - seat]}")
        return (f"{series.series_id} {bots[seat]} {what} ({fault.kind}: "
                f"{cut_at_word(fault.message, 80)})")
    if series.winner in (0, 1):
        seat = series.winner
        games = f"{games_won[seat]}-{games_won[1 - seat]}"
        return (f"{series.series_id} {bots[seat]} beat {bots[1 - seat]} {games} "
                f"({series.hands_played} hands{capped})")
    games = f"{games_won[0]}-{games_won[1]}"
    return (f"{series.series_id} {bots[0]} drew {bots[1]} {games} "
            f"({series.hands_played} hands{capped})")


def cut_at_word(text: str, limit: int) -> str:
    """``text`` if it fits in ``limit`` characters, else its words that fit and
    "...", never a word cut in half (a single longer word is cut)."""
    if len(text) <= limit:
        return text
    head = text[:limit + 1].rsplit(" ", 1)[0] if " " in text[:limit + 1] else text[:limit]
    return head.rstrip(" ,;:") + " ..."


def forfeit_line(series: arena_pb2.SeriesSummary) -> str:
    """What a forfeit was and why, e.g. ``forfeit in 1-3: crashy@1 (seat 0), crash: ...``."""
    series = shown(series)
    fault = series.fault
    bot = (series.seat0_bot, series.seat1_bot)[1 if fault.seat == 1 else 0]
    where = (f" at hand {fault.hand_number}, decision {fault.decision_number}"
             if fault.hand_number else " before the first deal")
    return (f"forfeit in {series.series_id}: {bot} (seat {fault.seat}){where}, {fault.kind}: "
            f"{bounded(fault.message, MAX_REASON_CHARS)}")


def fault_summary(forfeits: Sequence[arena_pb2.SeriesSummary]) -> list[str]:
    """The forfeits of a season by bot and kind, most first, e.g.
    ``["faults: 3 forfeits", "  crashy@1: 2 (crash 2)", ...]``."""
    if not forfeits:
        return ["faults: none"]
    by_bot: dict[str, Counter[str]] = {}
    for series in map(shown, forfeits):
        bot = (series.seat0_bot, series.seat1_bot)[1 if series.fault.seat == 1 else 0]
        by_bot.setdefault(bot, Counter())[series.fault.kind] += 1
    lines = [f"faults: {len(forfeits)} forfeit{'s' if len(forfeits) != 1 else ''}"]
    for bot, kinds in sorted(by_bot.items(), key=lambda item: (-item[1].total(), item[0])):
        detail = ", ".join(f"{kind} {count}" for kind, count in
                           sorted(kinds.items(), key=lambda item: (-item[1], item[0])))
        lines.append(f"  {bot}: {kinds.total()} ({detail})")
    return lines


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
        self.forfeits: list[arena_pb2.SeriesSummary] = []

    def _render(self) -> RenderableType:
        standings = self.standings
        # A format with no number of series to reach (a ladder without rounds, an
        # SPRT match) expects none: its series played and their rate, never a bar.
        no_count = standings is not None and not standings.series_expected
        parts: list[RenderableType] = [Text(
            f"{standings.series_done} series played, {standings.series_per_minute:.1f} "
            f"series/min ({self.status})") if standings is not None and no_count
            else self.progress]
        if self.standings is not None:
            parts.append(standings_table(self.standings))
            parts.extend(statistics_parts(self.standings))
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
            for message in map(shown, stream):
                self.status = status_name(message.status)
                event = message.WhichOneof("event")
                if event == "standings":
                    self.standings = message.standings
                expected = self.standings.series_expected if self.standings else 0
                self.progress.update(self.task, total=max(message.series_total, expected),
                                     completed=message.series_done,
                                     description=f"series ({self.status})")
                if event == "series_finished":
                    series = message.series_finished.series
                    self.recent.append(describe_series(series))
                    if series.HasField("fault"):  # said at once, kept above the view
                        self.forfeits.append(series)
                        live.console.print(forfeit_line(series), soft_wrap=True)
                elif event == "series_started":
                    started = message.series_started
                    self.recent.append(
                        f"{started.series_id} started: {started.seat0_bot} vs "
                        f"{started.seat1_bot}")
                live.update(self._render())
        return self.standings


def seed_text(seed: int) -> str:
    """A season's seed as the terminal says it: a given seed is public (anyone can
    compute the deals from it); 0 means the server deals from a secret."""
    return f"seed {seed} (public)" if seed else "dealt from the server's secret"
