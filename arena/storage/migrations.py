"""The database's schema, as the ordered migrations that build it.

A database records its schema version in ``meta.schema_version``. Opening one runs
every migration above that version, in order, each in ONE transaction together
with the new version number: a crash between two leaves a database at the earlier
version, which the next open carries on from. A new database takes the same road
from version 0, so a fresh file and a migrated one have one definition.

Migrations are history: never edit a released one; add the next.
A database from a newer arena (version above the last migration's) is refused
before anything is written to it.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from arena.storage.logs import encode_json_text
from arena.storage.records import StorageError
from arena.storage.seat_log_rows import CREATE_INDEX, CREATE_TABLE, move_stderr_tails

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Migration:
    """The step that brings a database to ``version``: SQL statements, or Python
    steps for what SQL cannot do (e.g. compressing), run in order."""

    version: int
    summary: str
    statements: tuple[str | Callable[[sqlite3.Connection], None], ...]


_RELEASE_1_TABLES: Final = (
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    """CREATE TABLE bots (
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
)""",
    """CREATE TABLE seasons (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL,
    config_json TEXT NOT NULL,
    profile_json TEXT NOT NULL,
    status TEXT NOT NULL,
    error TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
)""",
    """CREATE TABLE season_bots (
    season_id INTEGER NOT NULL REFERENCES seasons(id),
    position INTEGER NOT NULL,
    bot_id TEXT NOT NULL REFERENCES bots(id),
    PRIMARY KEY (season_id, position),
    UNIQUE (season_id, bot_id)
)""",
    """CREATE TABLE planned_series (
    id TEXT PRIMARY KEY,                 -- "<season>-<index>"
    season_id INTEGER NOT NULL REFERENCES seasons(id),
    idx INTEGER NOT NULL,
    seed INTEGER NOT NULL,
    swap_seats INTEGER NOT NULL,
    seat0_bot TEXT NOT NULL REFERENCES bots(id),
    seat1_bot TEXT NOT NULL REFERENCES bots(id),
    UNIQUE (season_id, idx)
)""",
    """CREATE TABLE series_results (
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
)""",
    "CREATE INDEX series_results_by_season ON series_results(season_id)",
    "CREATE INDEX planned_series_by_season ON planned_series(season_id, idx)",
)

def _move_logs_apart(connection: sqlite3.Connection) -> None:
    """Copy every stored log (and its profile) into ``series_logs``, compressed."""
    rows = connection.execute("SELECT series_id, log_json, profile_json FROM series_results")
    for series_id, log_json, profile_json in rows:  # one at a time: logs can be large
        encoded = encode_json_text(log_json)
        connection.execute(
            "INSERT INTO series_logs VALUES (?,?,?,?,?)",
            (series_id, encoded.codec, encoded.raw_bytes, profile_json, encoded.data))


MIGRATIONS: Final[tuple[Migration, ...]] = (
    Migration(1, "the tables of the first release", _RELEASE_1_TABLES),
    Migration(2, "each planned series records its round of the tournament format", (
        # Every series planned before formats had rounds was planned up front: round 1.
        "ALTER TABLE planned_series ADD COLUMN round INTEGER NOT NULL DEFAULT 1",
    )),
    Migration(3, "event logs stored apart, compressed; results numbered in storage order", (
        """CREATE TABLE series_logs (
    series_id TEXT PRIMARY KEY REFERENCES series_results(series_id),
    codec TEXT NOT NULL,                 -- see arena.storage.logs
    raw_bytes INTEGER NOT NULL,          -- size of the JSON before compression
    profile_json TEXT NOT NULL,
    data BLOB NOT NULL
)""",
        _move_logs_apart,
        "ALTER TABLE series_results DROP COLUMN log_json",
        "ALTER TABLE series_results DROP COLUMN profile_json",
        # Storage order: the order standings apply results in. Results stored before
        # it existed are numbered in plan order, the order their standings used.
        "ALTER TABLE series_results ADD COLUMN stored_seq INTEGER NOT NULL DEFAULT 0",
        """UPDATE series_results SET stored_seq = numbered.n FROM (
    SELECT r.series_id AS sid,
           ROW_NUMBER() OVER (PARTITION BY r.season_id ORDER BY p.idx) AS n
    FROM series_results r JOIN planned_series p ON p.id = r.series_id
) AS numbered WHERE numbered.sid = series_results.series_id""",
        "CREATE UNIQUE INDEX series_results_by_seq ON series_results(season_id, stored_seq)",
    )),
    Migration(4, "bot authors, bot name owners, and each version's upload and status", (
        """CREATE TABLE authors (
    name TEXT PRIMARY KEY,
    token_salt BLOB NOT NULL,
    token_hash BLOB NOT NULL,            -- scrypt of the token's secret, never the token
    created_at TEXT NOT NULL,
    revoked_at TEXT NOT NULL DEFAULT ''  -- '' = the token works
)""",
        """CREATE TABLE bot_names (
    name TEXT PRIMARY KEY,
    owner TEXT NOT NULL,                 -- an author's name; '' = the arena's admin
    claimed_at TEXT NOT NULL
)""",
        # Names registered before accounts existed belong to the admin.
        """INSERT INTO bot_names (name, owner, claimed_at)
    SELECT name, '', MIN(registered_at) FROM bots GROUP BY name""",
        """CREATE TABLE bot_versions (
    bot_id TEXT PRIMARY KEY REFERENCES bots(id),
    submitted_by TEXT NOT NULL,          -- author name; '' = the admin
    bundle TEXT NOT NULL,                -- file name of the uploaded archive
    status TEXT NOT NULL,                -- received, building, validating, active, rejected
    status_detail TEXT NOT NULL DEFAULT '',
    status_changed_at TEXT NOT NULL,
    replaced INTEGER NOT NULL DEFAULT 0  -- times its code was replaced before playing
)""",
    )),
    Migration(5, "each version's build and validation: image id and logs", (
        "ALTER TABLE bot_versions ADD COLUMN image_id TEXT NOT NULL DEFAULT ''",
        "ALTER TABLE bot_versions ADD COLUMN build_log TEXT NOT NULL DEFAULT ''",
        "ALTER TABLE bot_versions ADD COLUMN validation_log TEXT NOT NULL DEFAULT ''",
    )),
    Migration(6, "the code each version was vetted with, and who caused a rejection", (
        # The content hash vetting fixed when it started: only this code plays.
        "ALTER TABLE bot_versions ADD COLUMN vetted_hash TEXT NOT NULL DEFAULT ''",
        # 'author' (its build or its bot failed) or 'arena' (the arena's side
        # failed: retried, and `bots revet` may vet it again); '' unless rejected.
        "ALTER TABLE bot_versions ADD COLUMN rejection_cause TEXT NOT NULL DEFAULT ''",
        # Versions active before this migration played the code they were stored with.
        """UPDATE bot_versions SET vetted_hash = (SELECT content_hash FROM bots
    WHERE bots.id = bot_versions.bot_id) WHERE status IN ('active', 'deactivated')""",
        """UPDATE bot_versions SET rejection_cause = CASE
    WHEN status_detail LIKE 'the arena could not vet it%'
      OR status_detail LIKE '%the arena''s reference bot failed, not yours%' THEN 'arena'
    ELSE 'author' END WHERE status = 'rejected'""",
    )),
    Migration(7, "series voided for arena overload (played again; never a result)", (
        """CREATE TABLE voided_series (
    id INTEGER PRIMARY KEY,
    season_id INTEGER NOT NULL REFERENCES seasons(id),
    series_id TEXT NOT NULL,
    reason TEXT NOT NULL,           -- 'arena_overload'
    message TEXT NOT NULL,          -- what the fair clock saw
    voided_at TEXT NOT NULL
)""",
        "CREATE INDEX voided_series_by_season ON voided_series (season_id, series_id)",
    )),
    Migration(8, "each season counts the outcomes refused by verification", (
        "ALTER TABLE seasons ADD COLUMN outcomes_refused INTEGER NOT NULL DEFAULT 0",
    )),
    Migration(9, "a result keeps its whole outcome: who won each game, who played it", (
        # JSON [seat|null, seat|null, seat|null]; '' for results stored before
        # (arena.storage.records reads those from the game scores).
        "ALTER TABLE series_results ADD COLUMN game_winners_json TEXT NOT NULL DEFAULT ''",
        # The cluster worker that played it, as the executor knew it; '' = the arena.
        "ALTER TABLE series_results ADD COLUMN played_by TEXT NOT NULL DEFAULT ''",
    )),
    Migration(10, "the ladder: the members of each round, and the versions kept on it", (
        "CREATE TABLE ladder_rounds (season_id INTEGER NOT NULL REFERENCES seasons(id), "
        "round INTEGER NOT NULL, members_json TEXT NOT NULL, PRIMARY KEY (season_id, round))",
        "CREATE TABLE ladder_kept (bot_id TEXT PRIMARY KEY REFERENCES bots(id), "
        "kept_by TEXT NOT NULL, kept_at TEXT NOT NULL)",
    )),
    Migration(11, "the ladder's gate: each new version's SPRT match against its predecessor", (
        # One row per ladder and gated version, written with its gate match's season
        # in one transaction; the figures stay empty ('pending') until it is decided.
        "CREATE TABLE ladder_gates (ladder_id INTEGER NOT NULL REFERENCES seasons(id), "
        "bot_id TEXT NOT NULL REFERENCES bots(id), predecessor TEXT NOT NULL, "
        "match_id INTEGER NOT NULL REFERENCES seasons(id), status TEXT NOT NULL, "
        "pairs INTEGER NOT NULL DEFAULT 0, elo REAL NOT NULL DEFAULT 0, "
        "elo_low REAL NOT NULL DEFAULT 0, elo_high REAL NOT NULL DEFAULT 0, "
        "llr REAL NOT NULL DEFAULT 0, admitted_by TEXT NOT NULL DEFAULT '', "
        "opened_at TEXT NOT NULL, decided_at TEXT NOT NULL DEFAULT '', "
        "PRIMARY KEY (ladder_id, bot_id))",
        "CREATE INDEX ladder_gates_by_bot ON ladder_gates (bot_id)",
    )),
    Migration(12, "leagues: divisions, the season of each division per round, the moves", (
        """CREATE TABLE leagues (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL,
    config_json TEXT NOT NULL,           -- see arena.storage.leagues
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
)""",
        """CREATE TABLE league_seasons (
    league_id INTEGER NOT NULL REFERENCES leagues(id),
    round INTEGER NOT NULL,              -- 1, 2, ...: a round of seasons
    division INTEGER NOT NULL,           -- 1 is the top
    season_id INTEGER NOT NULL UNIQUE REFERENCES seasons(id),
    PRIMARY KEY (league_id, round, division)
)""",
        # Every bot of a finished round, where it played and where it plays next.
        """CREATE TABLE league_moves (
    league_id INTEGER NOT NULL REFERENCES leagues(id),
    round INTEGER NOT NULL,              -- the round that ended
    bot_id TEXT NOT NULL REFERENCES bots(id),
    from_division INTEGER NOT NULL,
    to_division INTEGER NOT NULL,
    PRIMARY KEY (league_id, round, bot_id)
)""",
    )),
    Migration(13, "a league cancelled as a whole", (
        # RFC 3339 UTC; '' while the league plays on.
        "ALTER TABLE leagues ADD COLUMN cancelled_at TEXT NOT NULL DEFAULT ''",
    )),
    Migration(14, "deal seeds committed before play: a nonce per series, a secret per season", (
        # The nonce of each seed's public commitment (engine.commitment); series
        # planned before get one now (their seeds derive from a public seed anyway).
        "ALTER TABLE planned_series ADD COLUMN seed_nonce TEXT NOT NULL DEFAULT ''",
        "UPDATE planned_series SET seed_nonce = lower(hex(randomblob(16)))",
        # The secret deal key of a season created without a seed, hex
        # (arena.storage.deal_keys); never shown.
        "CREATE TABLE season_deal_keys (season_id INTEGER PRIMARY KEY REFERENCES seasons(id), "
        "deal_key TEXT NOT NULL)",
    )),
    Migration(15, "each seat's log of a series (stderr, decision times, debug notes), "
              "the owner's alone; the results' stderr tails move there", (
        CREATE_TABLE, CREATE_INDEX, move_stderr_tails,
    )),
    Migration(16, "challenges: an author's unrated season of two bots", (
        # author: who asked ('' = the admin); challenger and opponent: bot ids;
        # created_at: RFC 3339 UTC, what the hourly quota counts by.
        """CREATE TABLE challenges (
    season_id INTEGER PRIMARY KEY REFERENCES seasons(id),
    author TEXT NOT NULL,
    challenger TEXT NOT NULL,
    opponent TEXT NOT NULL,
    series INTEGER NOT NULL,
    created_at TEXT NOT NULL
)""",
        "CREATE INDEX challenges_by_author ON challenges (author, created_at)",
    )),
    Migration(17, "human games: a person against a bot, stored apart, never rated", (
        # Apart from seasons and results: no standings, rating or format reads it.
        """CREATE TABLE human_games (
    id TEXT PRIMARY KEY,                 -- the game's random id (its page)
    bot_id TEXT NOT NULL REFERENCES bots(id),
    player TEXT NOT NULL,                -- the signed-in author, or 'guest'
    person_seat INTEGER NOT NULL,
    seed INTEGER NOT NULL,
    profile_json TEXT NOT NULL,
    max_hands INTEGER NOT NULL,
    started_at TEXT NOT NULL,
    finished_at TEXT NOT NULL,
    winner INTEGER,                      -- a seat; NULL: drawn
    result_json TEXT NOT NULL,           -- the engine's SeriesResult
    ended TEXT NOT NULL,                 -- why it ended early (a forfeit), '' if played out
    log_codec TEXT NOT NULL,
    log BLOB NOT NULL
)""",
        "CREATE INDEX human_games_by_bot ON human_games (bot_id)",
    )),
    Migration(18, "no index that repeats a unique one (issue 42: a thousand bots)", (
        # UNIQUE (season_id, idx) and the unique (season_id, stored_seq) already index
        # a season's rows in these orders: a copy costs one more B-tree write per
        # row, a million of them for a 1,000-bot round robin's plan.
        "DROP INDEX IF EXISTS planned_series_by_season",
        "DROP INDEX IF EXISTS series_results_by_season",
    )),
    Migration(19, "standings checkpoints (a big season's table read again from the last "
                  "one after a restart) and results found by either seat's bot (issue 42)", (
        """CREATE TABLE standings_checkpoints (
    season_id INTEGER PRIMARY KEY REFERENCES seasons(id),
    sequence INTEGER NOT NULL,           -- the stored results it counts (stored_seq 1..N)
    last_series TEXT NOT NULL,           -- the series of stored_seq N: a check at reading
    state BLOB NOT NULL,                 -- arena.season.standings_checkpoint
    saved_at TEXT NOT NULL
)""",
        # When a bot last played, and its faults: an index lookup per bot instead of
        # reading every result (a million at 99 % of a 1,000-bot round robin) for
        # each view of /bots or a bot's page.
        "CREATE INDEX series_results_by_seat0 ON series_results (seat0_bot, finished_at)",
        "CREATE INDEX series_results_by_seat1 ON series_results (seat1_bot, finished_at)",
    )),
    Migration(20, "a planned series' meeting found by index (is_sealed read every series "
                  "of the round: 9,900 rows per stored series at 100 bots)", (
        # The index of the meeting's first series (its round, its two bots); NULL in
        # rows planned before (is_sealed reads their round as before). It grows with
        # the plan, so a million planned series append to this index, not scatter.
        "ALTER TABLE planned_series ADD COLUMN meeting INTEGER",
        "CREATE INDEX planned_series_by_meeting ON planned_series (season_id, meeting)",
    )),
)


def schema_version(connection: sqlite3.Connection, path: Path) -> int:
    """The version recorded in the database (0 for an empty file)."""
    has_meta = connection.execute(
        "SELECT 1 FROM sqlite_master WHERE type='table' AND name='meta'").fetchone()
    if not has_meta:
        return 0
    row = connection.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
    try:
        return int(row[0]) if row else 0
    except ValueError:
        raise StorageError(
            f"{path}: meta.schema_version is {row[0]!r}, not a number; this file was not "
            "written by the arena (use another --db)") from None


def migrate(
    connection: sqlite3.Connection, path: Path,
    migrations: Sequence[Migration] = MIGRATIONS,
) -> int:
    """Bring the database on ``connection`` (autocommit mode) to the last of
    ``migrations``; returns the version it had. Raises ``StorageError`` for a
    database of a newer arena, or a migration that fails (rolled back: the file
    stays at the version before that step)."""
    current = migrations[-1].version
    found = schema_version(connection, path)
    if found > current:
        raise StorageError(
            f"{path}: database schema version {found} is newer than this arena's "
            f"version {current}: it was written by a newer arena release. Open it with "
            "that release (or newer), or give this arena another --db")
    for migration in migrations:
        if migration.version <= found:
            continue
        connection.execute("BEGIN IMMEDIATE")
        # Read again under the write lock: another process may have migrated meanwhile.
        before = schema_version(connection, path)
        try:
            if before < migration.version:
                for statement in migration.statements:
                    if callable(statement):
                        statement(connection)
                    else:
                        connection.execute(statement)
                connection.execute(
                    "INSERT OR REPLACE INTO meta (key, value) VALUES ('schema_version', ?)",
                    (str(migration.version),))
        except sqlite3.Error as error:
            connection.execute("ROLLBACK")
            raise StorageError(
                f"{path}: migrating the database schema from version {before} to "
                f"{migration.version} ({migration.summary}) failed: {error}; the file is "
                f"unchanged at version {before}") from None
        except BaseException:
            connection.execute("ROLLBACK")
            raise
        connection.execute("COMMIT")
        if before < migration.version and found > 0:
            log.info("%s: schema migrated to version %d (%s)", path, migration.version,
                     migration.summary)
    return found
