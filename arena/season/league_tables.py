"""A league as every screen shows it: each round's division tables, in the order of
each season's own table (``arena.season.readings``, the one source of standings),
with the moves stored at the end of the round (▲ promoted, ▼ relegated). The gRPC
``GetLeague``, the terminal and the website read the same ``LeagueTables``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from arena.core.status import SeasonStatus
from arena.season.formats import format_summary
from arena.season.league_rules import PROMOTED, RELEGATED, Move
from arena.season.leagues import LeaguePlan
from arena.season.readings import SeasonReadings
from arena.storage import Storage
from arena.storage.leagues import LeagueRecord, get_league, league_moves, league_seasons


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


def league_tables(storage: Storage, readings: SeasonReadings, league_id: int) -> LeagueTables:
    """The league's tables; raises ``NotFoundError``."""
    league = get_league(storage, league_id)
    moved = {(move.round, move.bot_id): Move(move.bot_id, move.from_division,
                                             move.to_division)
             for move in league_moves(storage, league_id)}
    rounds: dict[int, list[DivisionTable]] = {}
    for season in league_seasons(storage, league_id):
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
            rows=tuple(rows)))
    return LeagueTables(league, LeaguePlan.of(league), tuple(
        LeagueRound(number, tuple(tables)) for number, tables in sorted(rounds.items())))
