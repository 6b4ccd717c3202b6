"""The arena's database: bots, seasons, their series plans and results (SQLite).

One file (WAL journal, so readers never block the writer), a versioned schema, and
one rule that makes results trustworthy: a season's whole series plan is written
when the season is created, and each played series is written in ONE transaction
(outcome numbers, fault, event log, seed, profile, bot versions) into a row keyed by
its planned series id. A series is therefore stored whole or not at all, and never
twice; a resumed season plays exactly the planned series that have no row.

All methods are thread-safe (one connection behind a lock).
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final, Protocol

SCHEMA_VERSION: Final = 1

SEASON_CREATED: Final = "created"
SEASON_RUNNING: Final = "running"
SEASON_FINISHED: Final = "finished"
SEASON_CANCELLED: Final = "cancelled"
SEASON_FAILED: Final = "failed"
SEASON_STATUSES: Final = (
    SEASON_CREATED, SEASON_RUNNING, SEASON_FINISHED, SEASON_CANCELLED, SEASON_FAILED,
)

_SCHEMA: Final = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE bots (
    id TEXT PRIMARY KEY,                 -- name@version
    seq INTEGER NOT NULL UNIQUE,         -- registration order
    name TEXT NOT NULL,
    version TEXT NOT NULL,
    language TEXT NOT NULL,
    author TEXT NOT NULL,
    description TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    folder TEXT NOT NULL,                -- the arena's own copy of the bot's files
    source_folder TEXT NOT NULL,         -- where it was registered from
    registered_at TEXT NOT NULL
);
CREATE TABLE seasons (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL,
    config_json TEXT NOT NULL,
    profile_json TEXT NOT NULL,
    status TEXT NOT NULL,
    error TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE TABLE season_bots (
    season_id INTEGER NOT NULL REFERENCES seasons(id),
    position INTEGER NOT NULL,
    bot_id TEXT NOT NULL REFERENCES bots(id),
    PRIMARY KEY (season_id, position),
    UNIQUE (season_id, bot_id)
);
CREATE TABLE planned_series (
    id TEXT PRIMARY KEY,                 -- "<season>-<index>"
    season_id INTEGER NOT NULL REFERENCES seasons(id),
    idx INTEGER NOT NULL,
    seed INTEGER NOT NULL,
    swap_seats INTEGER NOT NULL,
    seat0_bot TEXT NOT NULL REFERENCES bots(id),
    seat1_bot TEXT NOT NULL REFERENCES bots(id),
    UNIQUE (season_id, idx)
);
CREATE TABLE series_results (
    series_id TEXT PRIMARY KEY REFERENCES planned_series(id),
    season_id INTEGER NOT NULL REFERENCES seasons(id),
    winner_seat INTEGER,                 -- NULL = draw
    games_won_0 INTEGER NOT NULL, games_won_1 INTEGER NOT NULL,
    hands_won_0 INTEGER NOT NULL, hands_won_1 INTEGER NOT NULL,
    points_0 INTEGER NOT NULL, points_1 INTEGER NOT NULL,
    game_scores_json TEXT NOT NULL,
    hands_played INTEGER NOT NULL,
    capped INTEGER NOT NULL,
    fault_json TEXT,                     -- NULL = no fault
    think_0 REAL NOT NULL, think_1 REAL NOT NULL,
    wall_seconds REAL NOT NULL,
    seed INTEGER NOT NULL,
    swap_seats INTEGER NOT NULL,
    seat0_bot TEXT NOT NULL,
    seat1_bot TEXT NOT NULL,
    profile_json TEXT NOT NULL,
    log_json TEXT NOT NULL,
    finished_at TEXT NOT NULL
);
CREATE INDEX series_results_by_season ON series_results(season_id);
CREATE INDEX planned_series_by_season ON planned_series(season_id, idx);
"""


# Every result column but the event log and profile: standings are recomputed after
# each stored series and must not read every series' (large) log to do it.
_RESULT_COLUMNS: Final = (
    "series_id, season_id, winner_seat, games_won_0, games_won_1, hands_won_0, hands_won_1, "
    "points_0, points_1, game_scores_json, hands_played, capped, fault_json, think_0, "
    "think_1, wall_seconds, seed, swap_seats, seat0_bot, seat1_bot, finished_at"
)
_RESULT_COLUMNS_R: Final = ", ".join(f"r.{c.strip()}" for c in _RESULT_COLUMNS.split(","))


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
    """One series of a season's plan."""

    id: str
    season_id: int
    index: int
    seed: int
    swap_seats: bool
    seat0_bot: str
    seat1_bot: str

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
    status: str
    error: str
    created_at: str
    updated_at: str
    series_total: int
    series_done: int


@dataclass(frozen=True)
class SeriesResult:
    """A stored series result (everything standings and replays need)."""

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


class OutcomeLike(Protocol):
    """What storage needs of a played series (``arena.runner.SeriesOutcome`` fits)."""

    series_id: str
    winner: int | None
    games_won: tuple[int, int]
    game_scores: tuple[tuple[int, int, int], tuple[int, int, int]]
    hands_won: tuple[int, int]
    points: tuple[int, int]
    hands_played: int
    capped: bool
    log: list[dict[str, Any]]
    think_seconds: tuple[float, float]
    wall_seconds: float

    @property
    def fault(self) -> Any: ...


class Storage:
    """The arena database at ``path`` (created on first use)."""

    def __init__(self, path: Path | str, *, bots_dir: Path | None = None) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # Per database (e.g. .arena/arena.bots/), so two databases never share copies.
        self.bots_dir = bots_dir if bots_dir is not None else self.path.with_name(
            self.path.stem + ".bots")
        self._lock = threading.RLock()
        self._connection = sqlite3.connect(
            str(self.path), isolation_level=None, check_same_thread=False, timeout=30.0
        )
        self._connection.row_factory = sqlite3.Row
        self._connection.execute("PRAGMA journal_mode=WAL")
        self._connection.execute("PRAGMA synchronous=NORMAL")
        self._connection.execute("PRAGMA foreign_keys=ON")
        self._migrate()

    def close(self) -> None:
        with self._lock:
            self._connection.close()

    # ------------------------------------------------------------ plumbing

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """A write transaction: all of it is stored, or (on any exception) none."""
        with self._lock:
            self._connection.execute("BEGIN IMMEDIATE")
            try:
                yield self._connection
            except BaseException:
                self._connection.execute("ROLLBACK")
                raise
            self._connection.execute("COMMIT")

    def _query(self, sql: str, params: Sequence[Any] = ()) -> list[sqlite3.Row]:
        with self._lock:
            return self._connection.execute(sql, params).fetchall()

    def _migrate(self) -> None:
        with self._lock:
            exists = self._connection.execute(
                "SELECT 1 FROM sqlite_master WHERE type='table' AND name='meta'"
            ).fetchone()
            if not exists:
                # One script, one transaction: a crash never leaves half a schema.
                self._connection.executescript(
                    "BEGIN IMMEDIATE;" + _SCHEMA
                    + f"INSERT INTO meta VALUES ('schema_version', '{SCHEMA_VERSION}');COMMIT;"
                )
                return
            row = self._connection.execute(
                "SELECT value FROM meta WHERE key='schema_version'"
            ).fetchone()
            version = int(row["value"]) if row else 0
            if version != SCHEMA_VERSION:
                raise StorageError(
                    f"{self.path}: database schema version {version}, this arena uses "
                    f"{SCHEMA_VERSION}; use a matching arena or a new --db"
                )

    # ------------------------------------------------------------ bots

    def register_bot(
        self,
        *,
        name: str,
        version: str,
        language: str,
        author: str,
        description: str,
        content_hash: str,
        source_folder: Path,
        files: Sequence[tuple[str, Path]],
    ) -> tuple[BotRecord, bool]:
        """Store a bot version and copy its ``files`` ((relative path, path) pairs)
        into the arena's bot directory. Returns (record, created). Idempotent for the
        same content; ``ConflictError`` for the same name@version with other content."""
        bot_id = f"{name}@{version}"
        with self.transaction() as db:
            row = db.execute("SELECT * FROM bots WHERE id=?", (bot_id,)).fetchone()
            if row is not None:
                if row["content_hash"] != content_hash:
                    raise ConflictError(
                        f"bot {bot_id} is already registered with different content "
                        f"(from {row['source_folder']}); give the new code a new version "
                        "in bot.toml"
                    )
                return _bot(row), False
            seq = db.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM bots").fetchone()[0]
            # Named by the (validated) name and the registration number: the free-text
            # version never becomes part of a path.
            destination = self.bots_dir / f"{name}-{seq}"
            _copy_files(files, destination)
            db.execute(
                "INSERT INTO bots VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                (bot_id, seq, name, version, language, author, description, content_hash,
                 str(destination.resolve()), str(source_folder), utc_now()),
            )
            created = db.execute("SELECT * FROM bots WHERE id=?", (bot_id,)).fetchone()
        return _bot(created), True

    def list_bots(self) -> list[BotRecord]:
        return [_bot(row) for row in self._query("SELECT * FROM bots ORDER BY seq")]

    def get_bot(self, bot_id: str) -> BotRecord:
        rows = self._query("SELECT * FROM bots WHERE id=?", (bot_id,))
        if not rows:
            raise NotFoundError(f"unknown bot {bot_id!r} (see `arena bots list`)")
        return _bot(rows[0])

    def resolve_bot(self, reference: str) -> BotRecord:
        """``name@version``, or a bare ``name`` meaning its latest registered version."""
        if "@" in reference:
            return self.get_bot(reference)
        rows = self._query("SELECT * FROM bots WHERE name=? ORDER BY seq DESC LIMIT 1",
                           (reference,))
        if not rows:
            raise NotFoundError(f"unknown bot {reference!r} (see `arena bots list`)")
        return _bot(rows[0])

    # ------------------------------------------------------------ seasons

    def create_season(
        self,
        *,
        name: str,
        config: dict[str, Any],
        profile: dict[str, Any],
        bot_ids: Sequence[str],
        plan: Sequence[tuple[int, bool, str, str]],
    ) -> SeasonRecord:
        """Store a season, its bots and its whole plan ((seed, swap_seats, seat0,
        seat1) per series, in order) in one transaction."""
        now = utc_now()
        with self.transaction() as db:
            cursor = db.execute(
                "INSERT INTO seasons (name, config_json, profile_json, status, created_at, "
                "updated_at) VALUES (?,?,?,?,?,?)",
                ("", json.dumps(config), json.dumps(profile), SEASON_CREATED, now, now),
            )
            season_id = int(cursor.lastrowid or 0)
            db.execute("UPDATE seasons SET name=? WHERE id=?",
                       (name or f"season {season_id}", season_id))
            db.executemany(
                "INSERT INTO season_bots VALUES (?,?,?)",
                [(season_id, position, bot_id) for position, bot_id in enumerate(bot_ids)],
            )
            db.executemany(
                "INSERT INTO planned_series VALUES (?,?,?,?,?,?,?)",
                [
                    (f"{season_id}-{index}", season_id, index, seed, int(swap), seat0, seat1)
                    for index, (seed, swap, seat0, seat1) in enumerate(plan)
                ],
            )
        return self.get_season(season_id)

    def get_season(self, season_id: int) -> SeasonRecord:
        rows = self._query("SELECT * FROM seasons WHERE id=?", (season_id,))
        if not rows:
            raise NotFoundError(f"unknown season {season_id} (see `arena season list`)")
        return self._season(rows[0])

    def latest_season_id(self) -> int:
        rows = self._query("SELECT MAX(id) FROM seasons")
        if rows[0][0] is None:
            raise NotFoundError("no season yet (create one with `arena season create`)")
        return int(rows[0][0])

    def list_seasons(self) -> list[SeasonRecord]:
        return [self._season(row) for row in self._query("SELECT * FROM seasons ORDER BY id DESC")]

    def seasons_with_status(self, status: str) -> list[int]:
        return [int(row[0]) for row in
                self._query("SELECT id FROM seasons WHERE status=? ORDER BY id", (status,))]

    def set_season_status(self, season_id: int, status: str, error: str = "") -> SeasonRecord:
        if status not in SEASON_STATUSES:
            raise ValueError(f"unknown season status {status!r}")
        with self.transaction() as db:
            updated = db.execute(
                "UPDATE seasons SET status=?, error=?, updated_at=? WHERE id=?",
                (status, error, utc_now(), season_id),
            )
            if updated.rowcount == 0:
                raise NotFoundError(f"unknown season {season_id}")
        return self.get_season(season_id)

    def _season(self, row: sqlite3.Row) -> SeasonRecord:
        season_id = int(row["id"])
        bots = tuple(r[0] for r in self._query(
            "SELECT bot_id FROM season_bots WHERE season_id=? ORDER BY position", (season_id,)))
        total = self._query("SELECT COUNT(*) FROM planned_series WHERE season_id=?",
                            (season_id,))[0][0]
        done = self._query("SELECT COUNT(*) FROM series_results WHERE season_id=?",
                           (season_id,))[0][0]
        return SeasonRecord(
            id=season_id, name=row["name"], config=json.loads(row["config_json"]),
            profile=json.loads(row["profile_json"]), bot_ids=bots, status=row["status"],
            error=row["error"], created_at=row["created_at"], updated_at=row["updated_at"],
            series_total=int(total), series_done=int(done),
        )

    # ------------------------------------------------------------ series

    def planned_series(self, season_id: int) -> list[PlannedSeries]:
        return [_planned(row) for row in self._query(
            "SELECT * FROM planned_series WHERE season_id=? ORDER BY idx", (season_id,))]

    def pending_series(self, season_id: int) -> list[PlannedSeries]:
        """Planned series without a stored result, in plan order."""
        return [_planned(row) for row in self._query(
            "SELECT p.* FROM planned_series p LEFT JOIN series_results r ON r.series_id = p.id "
            "WHERE p.season_id=? AND r.series_id IS NULL ORDER BY p.idx", (season_id,))]

    def get_planned(self, series_id: str) -> PlannedSeries:
        rows = self._query("SELECT * FROM planned_series WHERE id=?", (series_id,))
        if not rows:
            raise NotFoundError(f"unknown series {series_id!r} (ids look like 3-17)")
        return _planned(rows[0])

    def store_result(
        self, planned: PlannedSeries, outcome: OutcomeLike, profile: dict[str, Any]
    ) -> bool:
        """Store one played series in one transaction. Returns False (and stores
        nothing) if that planned series already has a result."""
        fault = outcome.fault
        fault_json = json.dumps(fault.to_dict()) if fault is not None else None
        with self.transaction() as db:
            cursor = db.execute(
                "INSERT OR IGNORE INTO series_results VALUES (" + ",".join("?" * 23) + ")",
                (
                    planned.id, planned.season_id, outcome.winner,
                    outcome.games_won[0], outcome.games_won[1],
                    outcome.hands_won[0], outcome.hands_won[1],
                    outcome.points[0], outcome.points[1],
                    json.dumps([list(row) for row in outcome.game_scores]),
                    outcome.hands_played, int(outcome.capped), fault_json,
                    float(outcome.think_seconds[0]), float(outcome.think_seconds[1]),
                    float(outcome.wall_seconds), planned.seed, int(planned.swap_seats),
                    planned.seat0_bot, planned.seat1_bot, json.dumps(profile),
                    json.dumps(outcome.log), utc_now(),
                ),
            )
            if cursor.rowcount == 0:
                return False
            db.execute("UPDATE seasons SET updated_at=? WHERE id=?",
                       (utc_now(), planned.season_id))
        return True

    def results(self, season_id: int) -> list[SeriesResult]:
        """A season's stored results in plan order."""
        return [_result(row) for row in self._query(
            f"SELECT {_RESULT_COLUMNS_R} FROM series_results r "
            "JOIN planned_series p ON p.id = r.series_id "
            "WHERE r.season_id=? ORDER BY p.idx", (season_id,))]

    def get_result(self, series_id: str) -> SeriesResult | None:
        rows = self._query(f"SELECT {_RESULT_COLUMNS} FROM series_results WHERE series_id=?",
                           (series_id,))
        return _result(rows[0]) if rows else None

    def result_log(self, series_id: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        """(event log, profile) of a played series."""
        rows = self._query("SELECT log_json, profile_json FROM series_results WHERE series_id=?",
                           (series_id,))
        if not rows:
            raise NotFoundError(f"series {series_id!r} has not been played")
        return json.loads(rows[0]["log_json"]), json.loads(rows[0]["profile_json"])

    def count_rows(self) -> dict[str, int]:
        """Rows per table (tests use it to prove a failed call changed nothing)."""
        tables = ("bots", "seasons", "season_bots", "planned_series", "series_results")
        return {table: int(self._query(f"SELECT COUNT(*) FROM {table}")[0][0])
                for table in tables}


def _copy_files(files: Sequence[tuple[str, Path]], destination: Path) -> None:
    if destination.exists():  # a leftover of a registration that was rolled back
        shutil.rmtree(destination)
    for relative, source in files:
        target = destination / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)


def _bot(row: sqlite3.Row) -> BotRecord:
    return BotRecord(
        id=row["id"], name=row["name"], version=row["version"], language=row["language"],
        author=row["author"], description=row["description"],
        content_hash=row["content_hash"], folder=Path(row["folder"]),
        source_folder=row["source_folder"], registered_at=row["registered_at"],
    )


def _planned(row: sqlite3.Row) -> PlannedSeries:
    return PlannedSeries(
        id=row["id"], season_id=int(row["season_id"]), index=int(row["idx"]),
        seed=int(row["seed"]), swap_seats=bool(row["swap_seats"]),
        seat0_bot=row["seat0_bot"], seat1_bot=row["seat1_bot"],
    )


def _result(row: sqlite3.Row) -> SeriesResult:
    fault = json.loads(row["fault_json"]) if row["fault_json"] else None
    return SeriesResult(
        series_id=row["series_id"], season_id=int(row["season_id"]), seed=int(row["seed"]),
        swap_seats=bool(row["swap_seats"]), seat0_bot=row["seat0_bot"],
        seat1_bot=row["seat1_bot"], winner_seat=row["winner_seat"],
        games_won=(int(row["games_won_0"]), int(row["games_won_1"])),
        hands_won=(int(row["hands_won_0"]), int(row["hands_won_1"])),
        points=(int(row["points_0"]), int(row["points_1"])),
        game_scores=tuple(tuple(r) for r in json.loads(row["game_scores_json"])),
        hands_played=int(row["hands_played"]), capped=bool(row["capped"]), fault=fault,
        think_seconds=(float(row["think_0"]), float(row["think_1"])),
        wall_seconds=float(row["wall_seconds"]), finished_at=row["finished_at"],
    )
