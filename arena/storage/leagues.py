"""Leagues: divisions of bots, each playing a season of its own per round, with the
moves between divisions at the end of every round.

A league is stored with its first round of seasons in one transaction; each later
round is stored with the moves of the round before it (every bot's division in the
ended round and in the new one; stored already, by ``store_round_moves``, when that
round was the last planned one) in one transaction, and only if it is the round
after the last stored one, so a round made twice (a resumed server, two seasons
finishing at once) is stored once; and never once the league is cancelled
(``cancel_league``), however its seasons end.

A league's ``config`` (JSON) holds ``divisions``, ``promote``, ``relegate``,
``rounds`` (how many rounds are played one after another without being asked),
``formats`` (each division's format, division 1 first) and ``season`` (the season
settings every division plays under, before its format and seed).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from arena.core.settings import SeasonConfig
from arena.core.text import safe_text
from arena.storage.records import NotFoundError, season_config, utc_now
from arena.storage.season_rows import insert_season
from arena.storage.store import Storage
from engine.profiles import Profile

MAX_LEAGUE_NAME_CHARS: Final = 200


@dataclass(frozen=True)
class LeagueRecord:
    id: int
    name: str
    config: dict[str, Any]
    created_at: str
    updated_at: str
    cancelled_at: str = ""
    """When the league was cancelled as a whole ('' while it plays on)."""
    season_config: SeasonConfig = field(default_factory=SeasonConfig)
    """The settings every division plays under (``config["season"]``, built once here)."""

    @property
    def planned_rounds(self) -> int:
        """The rounds the league plays one after another without being asked."""
        return int(self.config["rounds"])

    @property
    def division_counts(self) -> tuple[int, int, int]:
        """Its divisions, and the bots promoted and relegated between two of them."""
        return (int(self.config["divisions"]), int(self.config["promote"]),
                int(self.config["relegate"]))

    @property
    def division_formats(self) -> tuple[str, ...]:
        """Each division's format, division 1 first."""
        return tuple(str(name) for name in self.config["formats"])

    @property
    def cancelled(self) -> bool:
        return bool(self.cancelled_at)


@dataclass(frozen=True)
class SeasonDraft:
    """A season of a league's round, as ``insert_season`` stores it."""

    name: str
    config: dict[str, Any]
    profile: Profile
    bot_ids: tuple[str, ...]
    plan: tuple[tuple[int, bool, str, str], ...]
    deal_key: int | None = None
    """The secret its plan was dealt from (None: its configuration's public seed)."""


@dataclass(frozen=True)
class DivisionSeason:
    """The season a division plays in a round."""

    round: int
    division: int
    season_id: int


@dataclass(frozen=True)
class StoredMove:
    """Where a bot played in ``round`` and where it plays in the next."""

    round: int
    bot_id: str
    from_division: int
    to_division: int


def create_league(storage: Storage, name: str, config: dict[str, Any],
                  first_round: Sequence[SeasonDraft]) -> LeagueRecord:
    """Store a league and its first round of seasons (division 1 first) in one
    transaction."""
    now = utc_now()
    with storage.transaction() as db:
        cursor = db.execute("INSERT INTO leagues (name, config_json, created_at, updated_at) "
                            "VALUES (?,?,?,?)", ("", json.dumps(config), now, now))
        league_id = int(cursor.lastrowid or 0)
        db.execute("UPDATE leagues SET name=? WHERE id=?",
                   (safe_text(name.strip(), MAX_LEAGUE_NAME_CHARS) or f"league {league_id}",
                    league_id))
        _insert_seasons(db, league_id, 1, first_round)
    return get_league(storage, league_id)


def add_league_round(storage: Storage, league_id: int, round_number: int,
                     moves: Sequence[StoredMove], drafts: Sequence[SeasonDraft],
                     planned_rounds: int) -> list[int] | None:
    """Store round ``round_number``'s seasons (division 1 first) with the moves
    that ended the round before, and the league's planned rounds, in one
    transaction. Returns the new seasons' ids, or None (nothing stored) unless it
    is the round after the last stored one and the league is not cancelled."""
    with storage.transaction() as db:
        last, cancelled = _latest_round(db, league_id)
        if round_number != last + 1 or cancelled:
            return None
        _insert_moves(db, league_id, moves)
        config = json.loads(db.execute("SELECT config_json FROM leagues WHERE id=?",
                                       (league_id,)).fetchone()[0])
        config["rounds"] = max(int(config["rounds"]), planned_rounds)
        db.execute("UPDATE leagues SET config_json=?, updated_at=? WHERE id=?",
                   (json.dumps(config), utc_now(), league_id))
        return _insert_seasons(db, league_id, round_number, drafts)


def store_round_moves(storage: Storage, league_id: int, moves: Sequence[StoredMove]) -> bool:
    """Store the moves that ended the league's latest round without making the next
    one (the end of its last planned round: the tables show who goes up and down,
    and a round asked for later moves them so). Only moves of the latest round of a
    league not cancelled, once: returns whether they were stored now."""
    with storage.transaction() as db:
        last, cancelled = _latest_round(db, league_id)
        stored = db.execute("SELECT 1 FROM league_moves WHERE league_id=? AND round=? "
                            "LIMIT 1", (league_id, last)).fetchone()
        if cancelled or stored or any(move.round != last for move in moves):
            return False
        _insert_moves(db, league_id, moves)
        return True


def _latest_round(db: sqlite3.Connection, league_id: int) -> tuple[int, bool]:
    """The league's latest stored round (0 before any) and whether it is cancelled,
    read inside the caller's transaction."""
    last = int(db.execute("SELECT COALESCE(MAX(round), 0) FROM league_seasons "
                          "WHERE league_id=?", (league_id,)).fetchone()[0])
    cancelled = db.execute("SELECT cancelled_at FROM leagues WHERE id=?",
                           (league_id,)).fetchone()[0]
    return last, bool(cancelled)


def _insert_moves(db: sqlite3.Connection, league_id: int, moves: Sequence[StoredMove]) -> None:
    # OR IGNORE: a round's moves stored when it ended (its league's last planned
    # round) are kept as they were when the next round is made from them.
    db.executemany("INSERT OR IGNORE INTO league_moves VALUES (?,?,?,?,?)",
                   [(league_id, move.round, move.bot_id, move.from_division,
                     move.to_division) for move in moves])


def _insert_seasons(db: sqlite3.Connection, league_id: int, round_number: int,
                    drafts: Sequence[SeasonDraft]) -> list[int]:
    ids = []
    for division, draft in enumerate(drafts, start=1):
        season_id = insert_season(db, name=draft.name, config=draft.config,
                                  profile=draft.profile, bot_ids=draft.bot_ids,
                                  plan=draft.plan, deal_key=draft.deal_key)
        db.execute("INSERT INTO league_seasons VALUES (?,?,?,?)",
                   (league_id, round_number, division, season_id))
        ids.append(season_id)
    return ids


def cancel_league(storage: Storage, league_id: int) -> LeagueRecord:
    """Mark the league cancelled (once: a second call keeps the first time), so that
    no round of it is made again. Raises ``NotFoundError`` for an unknown league."""
    with storage.transaction() as db:
        now = utc_now()
        db.execute("UPDATE leagues SET cancelled_at=?, updated_at=? WHERE id=? "
                   "AND cancelled_at=''", (now, now, league_id))
    return get_league(storage, league_id)


def get_league(storage: Storage, league_id: int) -> LeagueRecord:
    rows = storage.query("SELECT * FROM leagues WHERE id=?", (league_id,))
    if not rows:
        raise NotFoundError(f"unknown league {league_id} (see `arena league list`)")
    return _league(rows[0])


def list_leagues(storage: Storage, before: int = 0, limit: int | None = None,
                 offset: int = 0) -> list[LeagueRecord]:
    """Leagues newest first, below id ``before`` (0: from the newest), at most ``limit``
    after skipping ``offset``."""
    return [_league(row) for row in storage.query(
        "SELECT * FROM leagues WHERE ?1 = 0 OR id < ?1 ORDER BY id DESC LIMIT ?2 OFFSET ?3",
        (before, -1 if limit is None else limit, offset))]


def _league(row: sqlite3.Row) -> LeagueRecord:
    config = json.loads(row["config_json"])
    return LeagueRecord(id=int(row["id"]), name=str(row["name"]), config=config,
                        created_at=str(row["created_at"]), updated_at=str(row["updated_at"]),
                        cancelled_at=str(row["cancelled_at"]),
                        season_config=season_config(json.dumps(config.get("season") or {})))


EVERY_ROUND: Final = (1, 2**62)
"""The rounds ``league_seasons`` and ``league_moves`` read unless told: all."""


def league_seasons(storage: Storage, league_id: int,
                   rounds: tuple[int, int] = EVERY_ROUND) -> list[DivisionSeason]:
    """The league's seasons of the rounds from ``rounds[0]`` to ``rounds[1]`` (every
    round unless given), by round then division."""
    return [DivisionSeason(int(row[0]), int(row[1]), int(row[2])) for row in storage.query(
        "SELECT round, division, season_id FROM league_seasons WHERE league_id=? "
        "AND round BETWEEN ? AND ? ORDER BY round, division", (league_id, *rounds))]


def league_moves(storage: Storage, league_id: int,
                 rounds: tuple[int, int] = EVERY_ROUND) -> list[StoredMove]:
    """The league's stored moves at the end of the rounds from ``rounds[0]`` to
    ``rounds[1]`` (every round unless given), by round."""
    return [StoredMove(int(row[0]), str(row[1]), int(row[2]), int(row[3]))
            for row in storage.query(
                "SELECT round, bot_id, from_division, to_division FROM league_moves "
                "WHERE league_id=? AND round BETWEEN ? AND ? "
                "ORDER BY round, from_division, rowid", (league_id, *rounds))]


def rounds_made(storage: Storage, league_id: int) -> int:
    """How many rounds of the league were made (its newest round's number; 0 before
    the first)."""
    [row] = storage.query("SELECT COALESCE(MAX(round), 0) FROM league_seasons "
                          "WHERE league_id=?", (league_id,))
    return int(row[0])


def league_of_season(storage: Storage, season_id: int) -> int | None:
    """The league a season is a division's season of (None for a season of no league)."""
    rows = storage.query("SELECT league_id FROM league_seasons WHERE season_id=?",
                         (season_id,))
    return int(rows[0][0]) if rows else None
