"""What the database holds, as typed records, and how rows become records."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from arena.core.status import SeasonStatus


class StorageError(RuntimeError):
    """The database cannot be used (e.g. written by a newer arena)."""


class NotFoundError(LookupError):
    """An unknown bot, season or series; the message names it."""


class ConflictError(ValueError):
    """The request contradicts what is stored (e.g. same bot version, other content)."""


def utc_now() -> str:
    """The current time, RFC 3339 UTC with seconds."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass(frozen=True)
class BotRecord:
    """A registered bot version."""

    id: str
    name: str
    version: str
    language: str
    author: str
    description: str
    content_hash: str
    folder: Path
    source_folder: str
    registered_at: str


@dataclass(frozen=True)
class PlannedSeries:
    """One series of a season's plan; ``round`` is the round of the season's
    format that planned it (1 for the first)."""

    id: str
    season_id: int
    index: int
    seed: int
    swap_seats: bool
    seat0_bot: str
    seat1_bot: str
    round: int = 1

    @property
    def bots(self) -> tuple[str, str]:
        return (self.seat0_bot, self.seat1_bot)


@dataclass(frozen=True)
class SeasonRecord:
    """A season as stored."""

    id: int
    name: str
    config: dict[str, Any]
    profile: dict[str, Any]
    bot_ids: tuple[str, ...]
    status: SeasonStatus
    error: str
    created_at: str
    updated_at: str
    series_total: int
    series_done: int
    series_voided: int = 0
    """Times a series was voided for arena overload (played again; not a result)."""
    outcomes_refused: int = 0
    """Outcomes its log did not bear out, refused and played again (a forging or
    broken worker): 0 in an honest cluster."""


@dataclass(frozen=True)
class SeriesRecord:
    """A played series as stored (everything standings and lists need; the event
    log is read apart). Not to be confused with ``engine.SeriesResult``, the
    engine's result of a series played out."""

    series_id: str
    season_id: int
    seed: int
    swap_seats: bool
    seat0_bot: str
    seat1_bot: str
    winner_seat: int | None
    games_won: tuple[int, int]
    hands_won: tuple[int, int]
    points: tuple[int, int]
    game_scores: tuple[tuple[int, ...], ...]
    hands_played: int
    capped: bool
    fault: dict[str, Any] | None
    think_seconds: tuple[float, float]
    wall_seconds: float
    finished_at: str
    stored_seq: int = 0
    """1 for the season's first stored result, then 2, ...: the order standings
    apply results in (see ``arena.season.standings``)."""

    @property
    def bots(self) -> tuple[str, str]:
        return (self.seat0_bot, self.seat1_bot)

    @property
    def fault_seat(self) -> int | None:
        if self.fault is None:
            return None
        seat = self.fault.get("seat")
        return seat if seat in (0, 1) else 0

    @property
    def forfeiting_seats(self) -> tuple[int, ...]:
        """Every seat that forfeited: both when neither bot started."""
        first = self.fault_seat
        if first is None:
            return ()
        other = (self.fault or {}).get("other_seat_fault")
        return (first, 1 - first) if other else (first,)


def bot_from_row(row: sqlite3.Row) -> BotRecord:
    return BotRecord(
        id=row["id"], name=row["name"], version=row["version"], language=row["language"],
        author=row["author"], description=row["description"],
        content_hash=row["content_hash"], folder=Path(row["folder"]),
        source_folder=row["source_folder"], registered_at=row["registered_at"],
    )


def planned_from_row(row: sqlite3.Row) -> PlannedSeries:
    return PlannedSeries(
        id=row["id"], season_id=int(row["season_id"]), index=int(row["idx"]),
        seed=int(row["seed"]), swap_seats=bool(row["swap_seats"]),
        seat0_bot=row["seat0_bot"], seat1_bot=row["seat1_bot"], round=int(row["round"]),
    )


def result_from_row(
    row: sqlite3.Row, series_id: str | None = None, season_id: int | None = None
) -> SeriesRecord:
    """The result in ``row`` (``series_id`` and ``season_id`` given apart when the
    row's own columns of those names belong to a joined table)."""
    fault = json.loads(row["fault_json"]) if row["fault_json"] else None
    return SeriesRecord(
        series_id=series_id if series_id is not None else row["series_id"],
        season_id=int(season_id if season_id is not None else row["season_id"]),
        seed=int(row["seed"]),
        swap_seats=bool(row["swap_seats"]), seat0_bot=row["seat0_bot"],
        seat1_bot=row["seat1_bot"], winner_seat=row["winner_seat"],
        games_won=(int(row["games_won_0"]), int(row["games_won_1"])),
        hands_won=(int(row["hands_won_0"]), int(row["hands_won_1"])),
        points=(int(row["points_0"]), int(row["points_1"])),
        game_scores=tuple(tuple(r) for r in json.loads(row["game_scores_json"])),
        hands_played=int(row["hands_played"]), capped=bool(row["capped"]), fault=fault,
        think_seconds=(float(row["think_0"]), float(row["think_1"])),
        wall_seconds=float(row["wall_seconds"]), finished_at=row["finished_at"],
        stored_seq=int(row["stored_seq"]),
    )
