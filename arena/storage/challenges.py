"""Challenges: a season of two bots an author asked for, unrated. The season row holds
the plan and results as any season's; the ``challenges`` row (migration 16) says who
asked, for which two versions, and when, and keeps the season out of every season
list, rating and ladder (``Storage.list_seasons`` and ``latest_season_id`` skip it).

``create_challenge`` checks the author's hourly quota of series and stores the
season and its challenge row in ONE transaction, taken with the write lock first,
so two calls at once never both slip under the quota.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Final

from arena.core.status import SeasonStatus
from arena.storage.records import SeriesRecord, result_from_row
from arena.storage.schema import RESULT_COLUMNS
from arena.storage.season_rows import insert_season
from arena.storage.store import Storage
from engine.profiles import Profile

QUOTA_WINDOW: Final = timedelta(hours=1)
CHALLENGES_PER_PAGE: Final = 200
"""Challenges a list shows at a time unless asked for another page size."""


class QuotaError(ValueError):
    """A challenge past its author's quota; the message says when the next fits."""


@dataclass(frozen=True)
class ChallengeRecord:
    """A challenge as stored, with its season's status."""

    season_id: int
    author: str
    challenger: str
    opponent: str
    series: int
    created_at: str
    status: SeasonStatus


@dataclass(frozen=True)
class ChallengeTally:
    """A challenge's results so far, from the challenger's side."""

    series_done: int = 0
    challenger_wins: int = 0
    opponent_wins: int = 0
    draws: int = 0
    challenger_faults: int = 0
    """Series the challenger forfeited by a fault."""
    opponent_faults: int = 0


def challenge_tally(storage: Storage, challenge: ChallengeRecord) -> ChallengeTally:
    counts = dict.fromkeys(("series_done", "challenger_wins", "opponent_wins", "draws",
                            "challenger_faults", "opponent_faults"), 0)
    for result in storage.results(challenge.season_id):
        counts["series_done"] += 1
        if result.winner is None:
            counts["draws"] += 1
        else:
            counts[f"{_side(challenge, result.bots[result.winner])}_wins"] += 1
        for seat in result.forfeiting_seats:
            counts[f"{_side(challenge, result.bots[seat])}_faults"] += 1
    return ChallengeTally(**counts)


def _side(challenge: ChallengeRecord, bot_id: str) -> str:
    return "challenger" if bot_id == challenge.challenger else "opponent"


def _stamp(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def create_challenge(
    storage: Storage, *, author: str, challenger: str, opponent: str, series: int,
    series_per_hour: int, now: datetime, config: dict[str, Any], profile: Profile,
    plan: Sequence[tuple[int, bool, str, str]], deal_key: int | None = None,
) -> int:
    """Store a challenge's season (not started, dealt from the secret ``deal_key``
    when given: ``arena.storage.deal_keys``) and its row; its season id. Raises
    ``QuotaError`` when ``author``'s challenge series of the last hour and these
    would pass ``series_per_hour`` (nothing is stored then)."""
    since = _stamp(now - QUOTA_WINDOW)
    with storage.transaction() as db:
        rows = db.execute("SELECT series, created_at FROM challenges WHERE author=? AND "
                          "created_at > ? ORDER BY created_at", (author, since)).fetchall()
        used = sum(int(row[0]) for row in rows)
        if used + series > series_per_hour:
            raise QuotaError(_quota_message(used, series, series_per_hour, rows))
        season_id = insert_season(
            db, name=f"challenge {challenger} vs {opponent}", config=config, profile=profile,
            bot_ids=(challenger, opponent), plan=plan, deal_key=deal_key)
        db.execute("INSERT INTO challenges (season_id, author, challenger, opponent, series, "
                   "created_at) VALUES (?,?,?,?,?,?)",
                   (season_id, author, challenger, opponent, series, _stamp(now)))
    return season_id


def _quota_message(used: int, series: int, per_hour: int,
                   rows: Sequence[sqlite3.Row]) -> str:
    message = (f"challenge quota: {used} challenge series asked for in the last hour, "
               f"{per_hour} allowed per hour; {series} more would pass it")
    freed = 0
    for row in rows:  # oldest first: the moment enough of them leave the hour
        freed += int(row[0])
        if used - freed + series <= per_hour:
            leaves = datetime.strptime(row[1], "%Y-%m-%dT%H:%M:%SZ") + QUOTA_WINDOW
            return f"{message}; it fits from {_stamp(leaves)}"
    return f"{message}; at most {per_hour} series fit in an hour"


def _record(row: sqlite3.Row) -> ChallengeRecord:
    return ChallengeRecord(int(row["season_id"]), row["author"], row["challenger"],
                           row["opponent"], int(row["series"]), row["created_at"],
                           SeasonStatus(row["status"]))


_SELECT: Final = ("SELECT c.season_id, c.author, c.challenger, c.opponent, c.series, "
                  "c.created_at, s.status FROM challenges c JOIN seasons s "
                  "ON s.id = c.season_id")


def list_challenges(storage: Storage, bot: str = "", before: int = 0,
                    limit: int = CHALLENGES_PER_PAGE, offset: int = 0) -> list[ChallengeRecord]:
    """Challenges newest first, below season id ``before`` (0: from the newest), at
    most ``limit`` after skipping ``offset``; with ``bot`` (a name or name@version)
    only those one of its versions plays in."""
    where, params = " WHERE (? = 0 OR c.season_id < ?)", tuple[str | int, ...]((before, before))
    if bot:
        pattern = _like(bot) if "@" in bot else f"{_like(bot)}@%"
        where += " AND (c.challenger LIKE ? ESCAPE '\\' OR c.opponent LIKE ? ESCAPE '\\')"
        params = (*params, pattern, pattern)
    return [_record(row) for row in storage.query(
        f"{_SELECT}{where} ORDER BY c.season_id DESC LIMIT ? OFFSET ?",
        (*params, limit, offset))]


def _like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def get_challenge(storage: Storage, season_id: int) -> ChallengeRecord | None:
    rows = storage.query(f"{_SELECT} WHERE c.season_id=?", (season_id,))
    return _record(rows[0]) if rows else None


def challenge_seasons(storage: Storage, status: SeasonStatus) -> list[int]:
    """The seasons of challenges with ``status``, oldest first."""
    return [int(row[0]) for row in storage.query(
        "SELECT c.season_id FROM challenges c JOIN seasons s ON s.id = c.season_id "
        "WHERE s.status=? ORDER BY c.season_id", (status,))]


def latest_season_results(storage: Storage, limit: int) -> list[SeriesRecord]:
    """The last ``limit`` results stored of seasons that are not challenges (a challenge
    is unrated and shown apart, on ``/challenges``), newest first."""
    return [result_from_row(row) for row in storage.query(
        f"SELECT {RESULT_COLUMNS} FROM series_results "
        "WHERE season_id NOT IN (SELECT season_id FROM challenges) "
        "ORDER BY finished_at DESC, rowid DESC LIMIT ?", (limit,))]
