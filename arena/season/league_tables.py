"""A league as every screen shows it: each round's division tables, in the order of
each season's own table (``arena.season.readings``, the one source of standings),
with the moves stored at the end of the round (▲ promoted, ▼ relegated). The gRPC
``GetLeague``, the terminal and the website read the same ``LeagueTables``."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Final

from arena.core.status import SeasonStatus
from arena.season.formats import format_summary
from arena.season.league_rules import PROMOTED, RELEGATED, Move
from arena.season.leagues import LeaguePlan
from arena.season.readings import SeasonReading, SeasonReadings
from arena.storage import (
    EVERY_ROUND,
    LeagueRecord,
    Storage,
    get_league,
    league_moves,
    league_seasons,
)


@dataclass(frozen=True)
class DivisionRow:
    rank: int
    bot_id: str
    series_played: int
    series_points: float
    next_division: int
    """The division it plays next; 0 while not decided."""
    mark: str
    """▲ promoted, ▼ relegated, "" stayed or not decided."""
    decided_by: str = ""
    """For a promoted or relegated row: what put it on its side of the line, against
    the bot just across it ("series points 4 v 3"); "" otherwise."""

    @property
    def movement(self) -> str:
        """"promoted", "relegated", "stayed" or "" (not decided)."""
        if not self.next_division:
            return ""
        return {PROMOTED: "promoted", RELEGATED: "relegated"}.get(self.mark, "stayed")


@dataclass(frozen=True)
class DivisionTable:
    division: int
    season_id: int
    format: str
    status: SeasonStatus
    rows: tuple[DivisionRow, ...]


@dataclass(frozen=True)
class LeagueRound:
    number: int
    divisions: tuple[DivisionTable, ...]


@dataclass(frozen=True)
class LeagueTables:
    league: LeagueRecord
    plan: LeaguePlan
    rounds: tuple[LeagueRound, ...]

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (the website's /api/ twin)."""
        return {
            **league_summary(self.league),
            "rounds": [{"round": league_round.number, "divisions": [
                {"division": table.division, "season_id": table.season_id,
                 "format": table.format, "status": table.status.value,
                 "rows": [{"rank": row.rank, "bot_id": row.bot_id,
                           "series_played": row.series_played,
                           "series_points": row.series_points,
                           "movement": row.movement, "mark": row.mark,
                           "decided_by": row.decided_by,
                           "next_division": row.next_division} for row in table.rows]}
                for table in league_round.divisions]} for league_round in self.rounds],
        }


def league_summary(league: LeagueRecord) -> dict[str, Any]:
    """A league's rule in its JSON form, without tables (the list of leagues)."""
    plan = LeaguePlan.of(league)
    return {"id": league.id, "name": league.name, "divisions": plan.rule.divisions,
            "promote": plan.rule.promote, "relegate": plan.rule.relegate,
            "planned_rounds": plan.rounds, "division_formats": list(plan.formats),
            "created_at": league.created_at, "cancelled_at": league.cancelled_at}


def league_tables(storage: Storage, readings: SeasonReadings, league_id: int,
                  rounds_shown: range | None = None) -> LeagueTables:
    """The league's tables: of the rounds in ``rounds_shown``, in its order (every
    round, round 1 first, unless given), reading no other round's seasons; raises
    ``NotFoundError``."""
    league = get_league(storage, league_id)
    if rounds_shown is not None and not rounds_shown:
        return LeagueTables(league, LeaguePlan.of(league), ())
    span = EVERY_ROUND if rounds_shown is None else (min(rounds_shown), max(rounds_shown))
    moved = {(move.round, move.bot_id): Move(move.bot_id, move.from_division,
                                             move.to_division)
             for move in league_moves(storage, league_id, span)}
    rounds: dict[int, list[DivisionTable]] = {}
    for season in league_seasons(storage, league_id, span):
        reading = readings.read(season.season_id)
        rows = []
        for rank, bot_id in enumerate(reading.statistics.order, start=1):
            standing = reading.standings.row(bot_id)
            move = moved.get((season.round, bot_id))
            rows.append(DivisionRow(
                rank=rank, bot_id=bot_id, series_played=standing.series_played,
                series_points=standing.series_points,
                next_division=move.to_division if move else 0,
                mark=move.mark if move else ""))
        rounds.setdefault(season.round, []).append(DivisionTable(
            division=season.division, season_id=season.season_id,
            format=format_summary(reading.season.config), status=reading.season.status,
            rows=tuple(_with_deciders(rows, reading))))
    order = sorted(rounds) if rounds_shown is None else [n for n in rounds_shown if n in rounds]
    return LeagueTables(league, LeaguePlan.of(league), tuple(
        LeagueRound(number, tuple(rounds[number])) for number in order))


_KEYS: Final = ("series points", "rating ordinal (μ − 3σ)", "games won − lost",
                "points for − against", "bot id")
"""The names of ``StandingRow.sort_key``'s parts, in its order (``ORDERING_RULE``)."""
PROMOTED_LINE: Final = 0
RELEGATED_LINE: Final = 1


def _with_deciders(rows: list[DivisionRow], reading: SeasonReading) -> list[DivisionRow]:
    """``rows`` with each promoted or relegated row's ``decided_by``: the first
    criterion of the table's order that separates the last bot moving up from the
    first staying (or the last staying from the first moving down)."""
    promoted = [index for index, row in enumerate(rows) if row.mark == PROMOTED]
    relegated = [index for index, row in enumerate(rows) if row.mark == RELEGATED]
    lines: dict[int, str] = {}
    if promoted and promoted[-1] + 1 < len(rows):
        above, below = rows[promoted[-1]], rows[promoted[-1] + 1]
        lines[PROMOTED_LINE] = _decider(reading, above.bot_id, below.bot_id)
    if relegated and relegated[0] > 0:
        above, below = rows[relegated[0] - 1], rows[relegated[0]]
        lines[RELEGATED_LINE] = _decider(reading, above.bot_id, below.bot_id)
    return [replace(row, decided_by=lines.get(
        PROMOTED_LINE if row.mark == PROMOTED else RELEGATED_LINE, ""))
            if row.mark in (PROMOTED, RELEGATED) else row for row in rows]



def _decider(reading: SeasonReading, above: str, below: str) -> str:
    """What ranks ``above`` before ``below`` in the season's table: the format's
    own order (a Swiss score, a knockout's rounds) when it has one, else the first
    part of the standings' order that differs, with both values."""
    first, second = reading.standings.row(above), reading.standings.row(below)
    by_standings = sorted((first, second), key=lambda row: row.sort_key())[0] is first
    if reading.statistics.order_note or not by_standings:
        return f"the format's order: {reading.statistics.order_note or 'its own'}"
    for name, one, other in zip(_KEYS, first.sort_key(), second.sort_key(), strict=True):
        if one != other:
            if isinstance(one, int | float) and isinstance(other, int | float):
                return f"{name} {_shown(-one)} v {_shown(-other)}"
            return f"{name} ({above} before {below}): every other criterion tied"
    return "tied on everything"


def _shown(value: float) -> str:
    return f"{value:g}" if float(value).is_integer() else f"{value:.2f}"
