"""What the database holds, as typed records, and how rows become records."""

from __future__ import annotations

import functools
import json
import sqlite3
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Protocol

import orjson

from arena.core.faults import BotFault
from arena.core.series import SeriesOutcome
from arena.core.settings import SeasonConfig, all_settings
from arena.core.status import SeasonStatus
from engine.commitment import seed_commitment
from engine.profiles import FRIENDLY, PROFILES, Profile
from engine.series import SeriesResult


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

    series_id: str
    season_id: int
    index: int
    seed: int
    swap_seats: bool
    seat0_bot: str
    seat1_bot: str
    round: int = 1
    seed_nonce: str = ""
    """The random nonce of the seed's commitment (``engine.commitment``): secret, like
    the seed, until the series is revealed (``arena.storage.deal_keys``)."""

    @property
    def bots(self) -> tuple[str, str]:
        return (self.seat0_bot, self.seat1_bot)

    @property
    def seed_commitment(self) -> str:
        """The public commitment to the seed, shown from the series' planning on."""
        return seed_commitment(self.seed, self.seed_nonce) if self.seed_nonce else ""


def season_config(stored_json: str) -> SeasonConfig:
    """The typed configuration of a season stored as ``stored_json``: the one place a
    stored configuration is read (``SeasonConfig.from_stored``). A configuration never
    changes once stored and ``SeasonConfig`` is frozen, so each stored text is parsed
    and validated once (per set of registered settings), not at every read."""
    return _parsed_config(stored_json, len(all_settings()))


@functools.lru_cache(maxsize=1024)
def _parsed_config(stored_json: str, _settings_known: int) -> SeasonConfig:
    return SeasonConfig.from_stored(json.loads(stored_json))


def season_profile(stored_json: str) -> Profile:
    """The typed rule profile of a season stored as ``stored_json``: the one place a
    stored profile is read. The arena stores every field (``Profile.to_dict``); a
    field missing from an older or hand-made row is the named built-in profile's
    (friendly's when the name is none of them), as ``SeasonConfig.profile`` fills it."""
    return _parsed_profile(stored_json)


@functools.lru_cache(maxsize=1024)
def _parsed_profile(stored_json: str) -> Profile:
    stored = json.loads(stored_json)
    if not isinstance(stored, dict):
        return Profile.from_dict(stored)  # ProfileError: names what is stored instead
    base = PROFILES.get(str(stored.get("name", "")), FRIENDLY)
    return Profile.from_dict({**base.to_dict(), **stored})


class PlanReader(Protocol):
    """Where a season's plan is read from (``Storage``)."""

    def planned_series(self, season_id: int) -> list[PlannedSeries]: ...

    def pending_series(self, season_id: int) -> list[PlannedSeries]: ...

    def series_page(self, season_id: int, first_index: int = 0, limit: int | None = None
                    ) -> list[tuple[PlannedSeries, SeriesRecord | None]]: ...


@dataclass(frozen=True)
class SeasonPlan:
    """A season's planned series, read from storage when asked and as stored at that
    moment (a format may plan round after round while the season plays). Not read
    with the season: a 1,000-bot round robin plans 999,000 series, and most readers
    of a season never look at them."""

    season_id: int
    reader: PlanReader

    def series(self) -> list[PlannedSeries]:
        """Every planned series, in plan order."""
        return self.reader.planned_series(self.season_id)

    def pending(self) -> list[PlannedSeries]:
        """The planned series without a stored result, in plan order."""
        return self.reader.pending_series(self.season_id)

    def page(self, first_index: int = 0, limit: int | None = None
             ) -> list[tuple[PlannedSeries, SeriesRecord | None]]:
        """The planned series from plan index ``first_index`` on (at most ``limit``),
        each with its stored result (None while unplayed)."""
        return self.reader.series_page(self.season_id, first_index, limit)


@dataclass(frozen=True)
class SeasonRecord:
    """A season as stored, typed (built once, by storage, from the stored form: its
    configuration by ``season_config``, its profile by ``season_profile``), its plan
    read when asked (``plan``)."""

    id: int
    name: str
    config: SeasonConfig
    profile: Profile
    bot_ids: tuple[str, ...]
    status: SeasonStatus
    error: str
    created_at: str
    updated_at: str
    series_total: int
    series_done: int
    plan: SeasonPlan = field(compare=False, repr=False)
    series_voided: int = 0
    """Times a series was voided for arena overload (played again; not a result)."""
    outcomes_refused: int = 0
    """Outcomes its log did not bear out, refused and played again (a forging or
    broken worker): 0 in an honest cluster."""


@dataclass(frozen=True, kw_only=True)
class SeriesRecord(SeriesOutcome):
    """A played series as stored: its ``SeriesOutcome`` (the engine's result, the
    typed fault, the timings, who played it; the event log is read apart, with
    ``Storage.result_log``) plus where it sits in its season. Written by
    ``Storage.store_result``, read back by ``result_from_row``: the one conversion."""

    season_id: int
    seed: int
    swap_seats: bool
    seat0_bot: str
    seat1_bot: str
    finished_at: str
    stored_seq: int = 0
    """1 for the season's first stored result, then 2, ...: the order standings
    apply results in (see ``arena.season.standings``)."""

    @property
    def bots(self) -> tuple[str, str]:
        return (self.seat0_bot, self.seat1_bot)


def bot_from_row(row: sqlite3.Row) -> BotRecord:
    return BotRecord(
        id=row["id"], name=row["name"], version=row["version"], language=row["language"],
        author=row["author"], description=row["description"],
        content_hash=row["content_hash"], folder=Path(row["folder"]),
        source_folder=row["source_folder"], registered_at=row["registered_at"],
    )


def planned_from_row(row: sqlite3.Row) -> PlannedSeries:
    return PlannedSeries(
        series_id=row["id"], season_id=int(row["season_id"]), index=int(row["idx"]),
        seed=int(row["seed"]), swap_seats=bool(row["swap_seats"]),
        seat0_bot=row["seat0_bot"], seat1_bot=row["seat1_bot"], round=int(row["round"]),
        seed_nonce=row["seed_nonce"],
    )


def result_values(planned: PlannedSeries, outcome: SeriesOutcome,
                  finished_at: str) -> tuple[object, ...]:
    """``outcome`` of ``planned`` as the values of ``schema.RESULT_COLUMNS`` but the
    last (``stored_seq``, numbered by the insert): the inverse of
    ``result_from_row`` (the event log is stored apart)."""
    result, fault = outcome.result, outcome.fault
    return (
        planned.series_id, planned.season_id, result.winner,
        result.games_won[0], result.games_won[1], result.hands_won[0], result.hands_won[1],
        result.points[0], result.points[1],
        json.dumps([list(row) for row in result.game_scores]), result.hands_played,
        int(result.capped), None if fault is None else json.dumps(fault.public_dict()),
        float(outcome.think_seconds[0]), float(outcome.think_seconds[1]),
        float(outcome.wall_seconds), planned.seed, int(planned.swap_seats),
        planned.seat0_bot, planned.seat1_bot, json.dumps(list(result.game_winners)),
        outcome.played_by, finished_at,
    )


def result_from_row(
    row: sqlite3.Row, series_id: str | None = None, season_id: int | None = None
) -> SeriesRecord:
    """The result in ``row`` (``series_id`` and ``season_id`` given apart when the
    row's own columns of those names belong to a joined table)."""
    # orjson reads these short texts 5 times as fast: a season's full recompute
    # reads every result of it.
    game_scores = orjson.loads(row["game_scores_json"])
    scores = (_three(game_scores[0]), _three(game_scores[1]))
    games_won = (int(row["games_won_0"]), int(row["games_won_1"]))
    result = SeriesResult(
        winner=row["winner_seat"], games_won=games_won,
        game_winners=_game_winners(row["game_winners_json"], scores),
        game_scores=scores,
        hands_won=(int(row["hands_won_0"]), int(row["hands_won_1"])),
        points=(int(row["points_0"]), int(row["points_1"])),
        hands_played=int(row["hands_played"]), capped=bool(row["capped"]),
    )
    return SeriesRecord(
        series_id=series_id if series_id is not None else row["series_id"],
        result=result, fault=stored_fault(row),
        think_seconds=(float(row["think_0"]), float(row["think_1"])),
        wall_seconds=float(row["wall_seconds"]), played_by=row["played_by"],
        season_id=int(season_id if season_id is not None else row["season_id"]),
        seed=int(row["seed"]), swap_seats=bool(row["swap_seats"]),
        seat0_bot=row["seat0_bot"], seat1_bot=row["seat1_bot"],
        finished_at=row["finished_at"], stored_seq=int(row["stored_seq"]),
    )


def stored_fault(row: sqlite3.Row) -> BotFault | None:
    """The fault of a ``series_results`` row, typed as it was stored (None without one)."""
    return BotFault.from_dict(orjson.loads(row["fault_json"])) if row["fault_json"] else None


def _three(values: list[int]) -> tuple[int, int, int]:
    first, second, third = values  # written by ``result_values``: three ints
    return (first, second, third)


def _game_winners(
    stored: str, scores: tuple[tuple[int, int, int], tuple[int, int, int]]
) -> tuple[int | None, int | None, int | None]:
    """Who won each game, as stored; a result stored before schema version 9 has no
    record of it, and gets the higher score in each game (None on a tie), which is
    the engine's own answer for every game except one left unfinished by a series
    won in two games."""
    if stored:
        first, second, third = orjson.loads(stored)  # written by ``result_values``
        return (first, second, third)
    won = [None if a == b else (0 if a > b else 1) for a, b in zip(*scores, strict=True)]
    return (won[0], won[1], won[2])
