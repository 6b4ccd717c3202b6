"""The arena's database: bots, seasons, their series plans and results (SQLite).

One file (WAL journal, so readers never block the writer), a versioned schema
(``arena.storage.migrations``: migrated forward on open), and one rule that makes
results trustworthy: a season's plan is written a round at a time, each round in
one transaction (the first with the season), and each played series is written in
ONE transaction (outcome numbers, fault, event log, seed, profile, bot versions)
into a row keyed by its planned series id. A series is therefore stored whole or
not at all, and never twice; a resumed season plays exactly the planned series
that have no row, then plans its next round from what is stored.

All methods are thread-safe (one connection behind a lock).
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Final

from arena.core.operator_files import refuse_unless_regular
from arena.core.series import SeriesOutcome
from arena.core.status import SeasonStatus
from arena.core.text import safe_text, unknown_name
from arena.storage.bot_files import bots_dir_for, copy_bot_files
from arena.storage.logs import decode_log, encode_log
from arena.storage.migrations import migrate
from arena.storage.records import (
    BotRecord,
    ConflictError,
    NotFoundError,
    PlannedSeries,
    SeasonPlan,
    SeasonRecord,
    SeriesRecord,
    bot_from_row,
    planned_from_row,
    result_from_row,
    result_values,
    season_config,
    season_profile,
    utc_now,
)
from arena.storage.schema import PLANNED_COLUMNS, RESULT_COLUMNS, RESULT_COLUMNS_OF_R
from arena.storage.season_rows import MAX_NAME_CHARS, insert_round, insert_season
from arena.storage.seat_log_rows import encode_seat_logs, insert_seat_logs
from engine.profiles import Profile

# Free texts from bot authors, operators and exceptions are neutralised and bounded
# before they are stored (arena.core.text).
MAX_DESCRIPTION_CHARS: Final = 2000
MAX_ERROR_CHARS: Final = 4000
# A challenge's season is read by its id only: it is in no list, rating or ladder.
_NOT_CHALLENGE: Final = "id NOT IN (SELECT season_id FROM challenges)"


class Storage:
    """The arena database at ``path`` (created on first use)."""

    def __init__(self, path: Path | str, *, bots_dir: Path | None = None) -> None:
        self.path = Path(path)
        refuse_unless_regular(self.path, "database")  # SQLite would fail with "disk I/O error"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.bots_dir = bots_dir if bots_dir is not None else bots_dir_for(self.path)
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

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[sqlite3.Row]:
        with self._lock:
            return self._connection.execute(sql, params).fetchall()

    def _bot_names(self) -> list[str]:
        return [row[0] for row in self.query("SELECT name FROM bots UNION SELECT id FROM bots")]

    def _migrate(self) -> None:
        with self._lock:
            migrate(self._connection, self.path)

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
                return bot_from_row(row), False
            seq = db.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM bots").fetchone()[0]
            # Named by the (validated) name and the registration number: the free-text
            # version never becomes part of a path.
            destination = self.bots_dir / f"{name}-{seq}"
            copy_bot_files(files, destination)
            db.execute(
                "INSERT INTO bots VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                (bot_id, seq, name, version, language, safe_text(author, MAX_NAME_CHARS),
                 safe_text(description, MAX_DESCRIPTION_CHARS), content_hash,
                 str(destination.resolve()), str(source_folder), utc_now()),
            )
            created = db.execute("SELECT * FROM bots WHERE id=?", (bot_id,)).fetchone()
        return bot_from_row(created), True

    def list_bots(self, after: str = "", limit: int | None = None) -> list[BotRecord]:
        """Bot versions in registration order, after version ``after`` (an id; "": from
        the first), at most ``limit``."""
        return [bot_from_row(row) for row in self.query(
            "SELECT * FROM bots WHERE seq > COALESCE((SELECT seq FROM bots WHERE id=?), 0) "
            "ORDER BY seq LIMIT ?", (after, -1 if limit is None else limit))]

    def get_bot(self, bot_id: str) -> BotRecord:
        rows = self.query("SELECT * FROM bots WHERE id=?", (bot_id,))
        if not rows:
            raise NotFoundError(unknown_name("bot", bot_id, self._bot_names(), "arena bots list"))
        return bot_from_row(rows[0])

    def resolve_bot(self, reference: str) -> BotRecord:
        """``name@version``, or a bare ``name`` meaning its latest registered version."""
        if "@" in reference:
            return self.get_bot(reference)
        rows = self.query("SELECT * FROM bots WHERE name=? ORDER BY seq DESC LIMIT 1",
                           (reference,))
        if not rows:
            return self.get_bot(reference)  # unknown: its error names the closest bot
        return bot_from_row(rows[0])

    # ------------------------------------------------------------ seasons

    def create_season(
        self,
        *,
        name: str,
        config: dict[str, Any],
        profile: Profile,
        bot_ids: Sequence[str],
        plan: Sequence[tuple[int, bool, str, str]],
        deal_key: int | None = None,
    ) -> SeasonRecord:
        """Store a season, its bots and the first round of its plan ((seed,
        swap_seats, seat0, seat1) per series, in order) in one transaction, with the
        secret ``deal_key`` its plan was dealt from (``arena.storage.deal_keys``)."""
        with self.transaction() as db:
            season_id = insert_season(db, name=name, config=config, profile=profile,
                                      bot_ids=bot_ids, plan=plan, deal_key=deal_key)
        return self.get_season(season_id)

    def add_round(
        self, season_id: int, round_number: int, plan: Sequence[tuple[int, bool, str, str]]
    ) -> bool:
        """Store the next round of a season's plan in one transaction, its series
        numbered on from the last planned one. Returns False (and stores nothing)
        unless ``round_number`` is the one after the last stored round, so a round
        planned twice (two runners, a resumed season) is stored once."""
        with self.transaction() as db:
            row = db.execute(
                "SELECT COALESCE(MAX(round), 0), COALESCE(MAX(idx), -1) FROM planned_series "
                "WHERE season_id=?", (season_id,)).fetchone()
            if round_number != int(row[0]) + 1:
                return False
            insert_round(db, season_id, round_number, int(row[1]) + 1, plan)
            db.execute("UPDATE seasons SET updated_at=? WHERE id=?", (utc_now(), season_id))
        return True

    def get_season(self, season_id: int) -> SeasonRecord:
        rows = self.query("SELECT * FROM seasons WHERE id=?", (season_id,))
        if not rows:
            raise NotFoundError(f"unknown season {season_id} (see `arena season list`)")
        return self._season(rows[0])

    def latest_season_id(self) -> int:
        rows = self.query(f"SELECT MAX(id) FROM seasons WHERE {_NOT_CHALLENGE}")
        if rows[0][0] is None:
            raise NotFoundError("no season yet (create one with `arena season create`)")
        return int(rows[0][0])

    def list_seasons(self, before: int = 0, limit: int | None = None,
                     offset: int = 0) -> list[SeasonRecord]:
        """Seasons but challenges' (``arena.storage.challenges``), newest first, below
        id ``before`` (0: from the newest), at most ``limit`` after skipping ``offset``."""
        return [self._season(row) for row in self.query(
            f"SELECT * FROM seasons WHERE {_NOT_CHALLENGE} AND (?1 = 0 OR id < ?1) "
            "ORDER BY id DESC LIMIT ?2 OFFSET ?3",
            (before, -1 if limit is None else limit, offset))]

    def seasons_with_status(self, status: SeasonStatus) -> list[int]:
        return [int(row[0]) for row in
                self.query("SELECT id FROM seasons WHERE status=? ORDER BY id", (status,))]

    def set_season_status(
        self, season_id: int, status: SeasonStatus | str, error: str = ""
    ) -> SeasonRecord:
        status = SeasonStatus(status)  # ValueError for an unknown status
        with self.transaction() as db:
            updated = db.execute(
                "UPDATE seasons SET status=?, error=?, updated_at=? WHERE id=?",
                (status, safe_text(error, MAX_ERROR_CHARS, multiline=True), utc_now(),
                 season_id),
            )
            if updated.rowcount == 0:
                raise NotFoundError(f"unknown season {season_id}")
        return self.get_season(season_id)

    def _season(self, row: sqlite3.Row) -> SeasonRecord:
        season_id = int(row["id"])
        bots = tuple(r[0] for r in self.query(
            "SELECT bot_id FROM season_bots WHERE season_id=? ORDER BY position", (season_id,)))
        # Index look-ups, not counts: indexes run 0..n-1, storage numbers 1..n.
        total, done, voided = self.query(
            "SELECT (SELECT COALESCE(MAX(idx), -1) + 1 FROM planned_series WHERE season_id=?1), "
            "(SELECT COALESCE(MAX(stored_seq), 0) FROM series_results WHERE season_id=?1), "
            "(SELECT COUNT(*) FROM voided_series WHERE season_id=?1)", (season_id,))[0]
        return SeasonRecord(
            id=season_id, name=row["name"],
            config=season_config(row["config_json"]),
            profile=season_profile(row["profile_json"]), bot_ids=bots,
            status=SeasonStatus(row["status"]), outcomes_refused=int(row["outcomes_refused"]),
            error=row["error"], created_at=row["created_at"], updated_at=row["updated_at"],
            series_total=int(total), series_done=int(done), series_voided=int(voided),
            plan=SeasonPlan(season_id, self),
        )

    # ------------------------------------------------------------ series

    def planned_series(self, season_id: int) -> list[PlannedSeries]:
        return [planned_from_row(row) for row in self.query(
            f"SELECT {PLANNED_COLUMNS} FROM planned_series WHERE season_id=? ORDER BY idx",
            (season_id,))]

    def pending_series(self, season_id: int) -> list[PlannedSeries]:
        """Planned series without a stored result, in plan order."""
        columns = ", ".join(f"p.{column.strip()}" for column in PLANNED_COLUMNS.split(","))
        return [planned_from_row(row) for row in self.query(
            f"SELECT {columns} FROM planned_series p "
            "LEFT JOIN series_results r ON r.series_id = p.id "
            "WHERE p.season_id=? AND r.series_id IS NULL ORDER BY p.idx", (season_id,))]

    def series_page(
        self, season_id: int, first_index: int = 0, limit: int | None = None
    ) -> list[tuple[PlannedSeries, SeriesRecord | None]]:
        """Planned series from plan index ``first_index`` on (at most ``limit``), in
        plan order, each with its stored result (None while unplayed)."""
        planned = ", ".join(f"p.{column.strip()}" for column in PLANNED_COLUMNS.split(","))
        rows = self.query(
            f"SELECT {planned}, r.series_id AS result_id, "
            + ", ".join(f"r.{c.strip()}" for c in RESULT_COLUMNS.split(",")[2:])
            + " FROM planned_series p LEFT JOIN series_results r ON r.series_id = p.id "
            "WHERE p.season_id=? AND p.idx >= ? ORDER BY p.idx LIMIT ?",
            (season_id, first_index, -1 if limit is None else limit))
        return [(planned_from_row(row), result_from_row(row, row["id"], row["season_id"])
                 if row["result_id"] is not None else None) for row in rows]

    def get_planned(self, series_id: str) -> PlannedSeries:
        rows = self.query(f"SELECT {PLANNED_COLUMNS} FROM planned_series WHERE id=?",
                           (series_id,))
        if not rows:
            raise NotFoundError(f"unknown series {series_id!r} (ids look like 3-17)")
        return planned_from_row(rows[0])

    def store_result(
        self, planned: PlannedSeries, outcome: SeriesOutcome, profile: dict[str, Any]
    ) -> SeriesRecord | None:
        """Store one played series in ONE transaction (narrow result row numbered next in
        storage order, compressed log, each seat's log apart) and return it as stored;
        None if it already has one."""
        encoded = encode_log(outcome.log)  # outside the lock: the slow part
        seat_logs = encode_seat_logs(outcome.seat_logs, outcome.fault)
        now = utc_now()
        with self.transaction() as db:
            cursor = db.execute(
                f"INSERT OR IGNORE INTO series_results ({RESULT_COLUMNS}) "
                "SELECT " + ",".join("?" * 23) + ", COALESCE(MAX(stored_seq), 0) + 1 "
                f"FROM series_results WHERE season_id=? RETURNING {RESULT_COLUMNS}",
                (*result_values(planned, outcome, now), planned.season_id))
            stored = cursor.fetchall()  # to the end: the statement must be done before COMMIT
            if not stored:
                return None
            db.execute("INSERT INTO series_logs VALUES (?,?,?,?,?)",
                       (planned.series_id, encoded.codec, encoded.raw_bytes, json.dumps(profile),
                        encoded.data))
            insert_seat_logs(db, planned.series_id, seat_logs, now)
            db.execute("UPDATE seasons SET updated_at=? WHERE id=?", (now, planned.season_id))
        return result_from_row(stored[0])

    def results(self, season_id: int) -> list[SeriesRecord]:
        """A season's stored results in plan order."""
        return [result_from_row(row) for row in self.query(
            f"SELECT {RESULT_COLUMNS_OF_R} FROM series_results r "
            "JOIN planned_series p ON p.id = r.series_id "
            "WHERE r.season_id=? ORDER BY p.idx", (season_id,))]

    def results_stored_after(
        self, season_id: int, after: int = 0, until: int | None = None
    ) -> list[SeriesRecord]:
        """A season's results in storage order whose ``stored_seq`` is above
        ``after`` (and at most ``until``)."""
        return [result_from_row(row) for row in self.query(
            f"SELECT {RESULT_COLUMNS} FROM series_results WHERE season_id=? "
            "AND stored_seq > ? AND stored_seq <= ? ORDER BY stored_seq",
            (season_id, after, until if until is not None else 2**62))]

    def results_by_round(self, season_id: int) -> list[list[SeriesRecord]]:
        """A season's stored results grouped by the round that planned them (round 1
        first), each round in plan order; a round without results is an empty list."""
        rounds = self.query("SELECT COALESCE(MAX(round), 0) FROM planned_series "
                             "WHERE season_id=?", (season_id,))[0][0]
        grouped: list[list[SeriesRecord]] = [[] for _ in range(int(rounds))]
        for row in self.query(
                f"SELECT {RESULT_COLUMNS_OF_R}, p.round FROM series_results r "
                "JOIN planned_series p ON p.id = r.series_id "
                "WHERE r.season_id=? ORDER BY p.idx", (season_id,)):
            grouped[int(row["round"]) - 1].append(result_from_row(row))
        return grouped

    def latest_result_ids(self, limit: int) -> list[str]:
        """The series ids of the last ``limit`` results stored, of every season, newest first."""
        return [row[0] for row in self.query(
            "SELECT series_id FROM series_results ORDER BY finished_at DESC, rowid DESC "
            "LIMIT ?", (limit,))]

    def get_result(self, series_id: str) -> SeriesRecord | None:
        rows = self.query(f"SELECT {RESULT_COLUMNS} FROM series_results WHERE series_id=?",
                           (series_id,))
        return result_from_row(rows[0]) if rows else None

    def result_log(self, series_id: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        """(event log, profile) of a played series."""
        rows = self.query("SELECT codec, data, profile_json FROM series_logs WHERE series_id=?",
                           (series_id,))
        if not rows:
            raise NotFoundError(f"series {series_id!r} has not been played")
        return decode_log(rows[0]["codec"], rows[0]["data"]), json.loads(rows[0]["profile_json"])

    def log_sizes(self, season_id: int) -> list[tuple[int, int]]:
        """(stored bytes, raw JSON bytes) of each stored event log of a season."""
        return [(int(row[0]), int(row[1])) for row in self.query(
            "SELECT length(l.data), l.raw_bytes FROM series_logs l "
            "JOIN series_results r ON r.series_id = l.series_id WHERE r.season_id=?",
            (season_id,))]

    def count_rows(self) -> dict[str, int]:
        """Rows per table (tests use it to prove a failed call changed nothing)."""
        tables = ("bots", "seasons", "season_bots", "planned_series", "series_results",
                  "series_logs", "seat_logs")
        return {table: int(self.query(f"SELECT COUNT(*) FROM {table}")[0][0])
                for table in tables}

