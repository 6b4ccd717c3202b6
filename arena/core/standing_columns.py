"""The columns of the ranked standings table, declared once for every screen: the
terminal's table and caption (``arena.cli.render``), the website's table and its
legend (``arena/web/templates/_sections.html``, ``_legends.html``) and the order
of ``arena export``'s standings.csv (``arena.cli.export``) all read
``STANDING_COLUMNS``.

A cell is made from a row's values as attributes: the names of the API's
``StandingRow`` message, which are those of ``arena.season.standings.StandingRow``
(its fields and ``DERIVED_COLUMNS``) and of the statistics' ranked values
(``arena.season.season_statistics.SeasonStatistics.ranked_values``: rank,
Bradley-Terry Elo and its interval, the tied and behind marks). The terminal
hands a cell the message's row, the website its row dict seen through
``RowValues``: the same text either way. (Attributes, not strings: the dead-code
check sees a field the columns read.) A
new column for every format is a field of ``StandingRow``, the same-named field
of the message, and its entry here. The rank and the bot lead every table and are
not columns here; a format's own columns are its ``Format.standings``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

Values = Any
"""A row whose values are its attributes: the API's ``StandingRow`` message, or a
website's row dict as ``RowValues``."""


class RowValues:
    """A row dict's values as attributes (what a cell reads)."""

    def __init__(self, values: Mapping[str, Any]) -> None:
        self._values = values

    def __getattr__(self, name: str) -> Any:
        try:
            return self._values[name]
        except KeyError:
            raise AttributeError(name) from None


@dataclass(frozen=True)
class StandingColumn:
    """One column: its header on the website (``header``, also its legend's term)
    and on the terminal (``short``: the table fits 80 columns), what it means (the
    website's legend; ``brief``: the terminal's caption, "" for none), its cell's
    text, and the values it shows (``reads``: the export writes them in the
    columns' order)."""

    header: str
    short: str
    meaning: str
    brief: str
    cell: Callable[[Values], str]
    reads: tuple[str, ...]
    hint: Callable[[Values], str] | None = None
    """The cell's tooltip on the website."""
    alert: Callable[[Values], bool] | None = None
    """When the website marks the cell (a fault's colour)."""
    terminal: bool = True
    """Shown on the terminal too (a column the 80 columns have no room for is not)."""
    legend: tuple[tuple[str, str], ...] = ()
    """More terms of the legend than the header's (a mark's words)."""
    css: str = "num"
    """The website's class of its cells."""


def elo_cell(values: Values) -> str:
    """``+51±62``: the interval is symmetric (elo ± 1.96 standard errors), so its
    half-width says it in 8 characters where ``[low,high]`` took 12 (80 columns)."""
    half = round((values.bt_elo_high - values.bt_elo_low) / 2)
    return f"{round(values.bt_elo):+d}±{half:d}"  # whole numbers: no "-0"


def tied_cell(values: Values) -> str:
    return "tied" if values.tied_with_next else "behind" if values.behind_next else ""


def _interval(values: Values) -> str:
    return f"95 % interval {round(values.bt_elo_low):+d} to {round(values.bt_elo_high):+d}"


PLAYED_OUT: Final = "over the series played to their end"

STANDING_COLUMNS: Final = (
    StandingColumn("pts", "SPts", "series points: a win 1, a draw ½, a loss or a forfeit 0",
                   "series points", lambda v: f"{v.series_points:g}", ("series_points",)),
    StandingColumn("played", "Played", "series played", "",
                   lambda v: str(v.series_played), ("series_played",), terminal=False),
    StandingColumn("W D L", "W-D-L", "series won, drawn and lost; a forfeited series is a "
                   "loss (a draw when neither bot started)", "series won-drawn-lost",
                   lambda v: f"{v.series_won}-{v.series_drawn}-{v.series_lost}",
                   ("series_won", "series_drawn", "series_lost")),
    StandingColumn("F", "F", "series this bot forfeited by a fault (crash, time-out, illegal "
                   "move, …), also counted in L", "forfeits (each also an L; Games, Hands and "
                   "Pts± count the series played to their end)",
                   lambda v: str(v.series_forfeited), ("series_forfeited",),
                   alert=lambda v: bool(v.series_forfeited)),
    StandingColumn("games", "Games", f"score-sheet games won–lost, {PLAYED_OUT} (a forfeited "
                   "series counts none)", "games won-lost",
                   lambda v: f"{v.games_won}-{v.games_lost}", ("games_won", "games_lost")),
    StandingColumn("hands", "Hands", f"hands won, {PLAYED_OUT}", "hands won",
                   lambda v: str(v.hands_won), ("hands_won",)),
    StandingColumn("points ±", "Pts±", f"points scored minus points conceded, {PLAYED_OUT}",
                   "points for minus against",
                   lambda v: f"{v.points_for - v.points_against:+d}",
                   ("points_for", "points_against")),
    StandingColumn("rating", "Rating", "OpenSkill μ ± σ (Plackett-Luce, updated after every "
                   "series); the order reads μ − 3σ", "OpenSkill μ±σ",
                   lambda v: f"{v.rating_mu:.1f}±{v.rating_sigma:.1f}",
                   ("rating_mu", "rating_sigma", "rating_ordinal"), css="num rating"),
    StandingColumn("Elo (95 %)", "Elo (95 %)", "Bradley-Terry fit over all the season's "
                   "series (a drawn series modelled as a draw), centred on the field's mean "
                   "(0), ± the half-width of its (symmetric) 95 % interval, the interval's ends "
                   "in the tooltip; with a prior: each bot has one virtual drawn series against "
                   "a fixed opponent of strength 0, as in BayesElo, which pulls small samples "
                   "towards 0 (see docs/formats.md, standings with error bars)", "",
                   elo_cell, ("bt_elo", "bt_elo_low", "bt_elo_high"), hint=_interval,
                   css="num elo"),
    StandingColumn("", "", "", "", tied_cell, ("tied_with_next", "behind_next"), legend=(
        ("tied", "neither this row nor the next is significantly stronger: neither's "
                 "likelihood of being the stronger reaches 97.5 %"),
        ("behind", "the next row is significantly stronger (likelihood of superiority "
                   "97.5 % or more): the table's order disagrees with the Elo")), css="tied"),
)


def legend_terms() -> list[tuple[str, str]]:
    """The website's legend of the columns: each header and what it means."""
    terms = [("#", "rank, by the ordering rule under the table")]
    for column in STANDING_COLUMNS:
        if column.header:
            terms.append((column.header, column.meaning))
        terms.extend(column.legend)
    return terms


def caption_terms() -> str:
    """The terminal's words for its headers, e.g. ``SPts = series points, ...``."""
    return ", ".join(f"{column.short} = {column.brief}" for column in STANDING_COLUMNS
                     if column.terminal and column.brief)
