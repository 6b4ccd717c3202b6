"""The database schema: the current version's tables, created in one transaction."""

from __future__ import annotations

from typing import Final

SCHEMA_VERSION: Final = 1


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
