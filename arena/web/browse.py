"""The pages to browse the arena by: every bot (``/bots``), an author's bots
(``/authors/NAME``), every version of a bot with its status and, for a rejected or
deactivated one, why, and its ladder gates; and who leads or won each season (the
seasons list). Plain JSON-ready data, read only (the pages' data as ``arena.web.views`` is)."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import asdict
from typing import Any, Final

from arena.core.settings import ConfigError
from arena.season.formats import SeasonView, format_for, reads_plan, rounds_of
from arena.season.ladder_gating import admitted
from arena.season.seeding import current_rows
from arena.season.standings import Standings, compute_standings
from arena.storage import NotFoundError, SeasonRecord, Storage, gates_of_version

ADMIN: Final = "admin"
"""How the arena's admin shows as an owner (stored as '')."""
CAUSES: Final = {
    "author": "its own build or bot failed: a new version is needed",
    "arena": "the arena's side failed, not the bot: it is vetted again",
}
LEADER_CACHE_SIZE: Final = 256
TABLE_CACHE_SIZE: Final = 64

_VERSIONS: Final = (
    "SELECT b.id, b.name, b.version, b.language, b.author, b.registered_at, "
    "COALESCE(n.owner, '') AS owner, COALESCE(v.status, 'active') AS status, "
    "COALESCE(v.status_detail, '') AS detail, "
    "COALESCE(v.status_changed_at, b.registered_at) AS changed_at, "
    "COALESCE(v.rejection_cause, '') AS cause "
    "FROM bots b LEFT JOIN bot_names n ON n.name = b.name "
    "LEFT JOIN bot_versions v ON v.bot_id = b.id")


def _version(row: Any) -> dict[str, Any]:
    status = str(row["status"])
    reason = ""
    if status in ("rejected", "deactivated"):
        reason = str(row["detail"]) or status
        cause = CAUSES.get(str(row["cause"]))
        if status == "rejected" and cause:
            reason = f"{reason} ({cause})"
    return {"id": row["id"], "name": row["name"], "version": row["version"],
            "language": row["language"], "author": row["author"],
            "registered_at": row["registered_at"], "owner": str(row["owner"]) or ADMIN,
            "status": status, "status_changed_at": row["changed_at"], "reason": reason}


def versions_of(storage: Storage, name: str) -> list[dict[str, Any]]:
    """Every version of bot ``name``, oldest first: status, since when, owner and,
    for a rejected or deactivated one, the reason."""
    return [_version(row) for row in storage.query(_VERSIONS + " WHERE b.name=? ORDER BY b.seq",
                                                   (name,))]


def ladder_gates_of(storage: Storage, bot_id: str) -> list[dict[str, Any]]:
    """The version's gates on ladders (``--gate sprt``): its match against its
    predecessor, the verdict with its figures, and whether it is admitted."""
    return [{"ladder_id": gate.ladder_id, "predecessor": gate.predecessor,
             "match_id": gate.match_id, **asdict(gate.verdict), "admitted_by": gate.admitted_by,
             "admitted": admitted(storage, gate)}
            for gate in gates_of_version(storage, bot_id)]


def _last_played(storage: Storage) -> dict[str, str]:
    rows = storage.query(
        "SELECT bot, MAX(finished_at) AS last FROM (SELECT seat0_bot AS bot, finished_at "
        "FROM series_results UNION ALL SELECT seat1_bot, finished_at FROM series_results) "
        "GROUP BY bot")
    return {str(row["bot"]): str(row["last"]) for row in rows}


class FinishedTables:
    """The standings of finished seasons, kept (a finished season's results no longer
    change), so ``/bots`` does not recount every finished season at each reading."""

    def __init__(self, storage: Storage) -> None:
        self.storage = storage
        self._lock = threading.Lock()
        self._tables: dict[tuple[int, int], Standings] = {}

    def __call__(self, season: SeasonRecord) -> Standings:
        key = (season.id, season.series_done)
        with self._lock:
            table = self._tables.get(key)
        if table is None:
            table = compute_standings(season.bot_ids,
                                      self.storage.results_stored_after(season.id))
            with self._lock:
                self._tables[key] = table
                while len(self._tables) > TABLE_CACHE_SIZE:
                    del self._tables[next(iter(self._tables))]
        return table


def _bots(storage: Storage, owner: str | None = None,
          tables: FinishedTables | None = None) -> list[dict[str, Any]]:
    """One row per bot name (registration order of its first version): the latest
    version's status, the owner, the latest active version, its rating (OpenSkill
    μ ± σ in the latest finished season it played) and when any version last played."""
    sql, params = _VERSIONS + " ORDER BY b.seq", tuple[str, ...]()
    if owner is not None:
        sql, params = _VERSIONS + " WHERE COALESCE(n.owner, '') = ? ORDER BY b.seq", (owner,)
    by_name: dict[str, list[dict[str, Any]]] = {}
    for version in storage.query(sql, params):
        by_name.setdefault(str(version["name"]), []).append(_version(version))
    last = _last_played(storage)
    active = {name: next((v for v in reversed(versions) if v["status"] == "active"), None)
              for name, versions in by_name.items()}
    rows = current_rows(storage, [v["id"] for v in active.values() if v is not None], tables)
    bots = []
    for name, versions in by_name.items():
        latest, chosen = versions[-1], active[name]
        row = rows.get(chosen["id"]) if chosen is not None else None
        played = [last[v["id"]] for v in versions if v["id"] in last]
        bots.append({
            "name": name, "owner": latest["owner"], "status": latest["status"],
            "latest": latest["id"], "reason": latest["reason"],
            "active_version": None if chosen is None else chosen["id"],
            "rating_mu": None if row is None else round(row.rating_mu, 4),
            "rating_sigma": None if row is None else round(row.rating_sigma, 4),
            "last_played": max(played) if played else None, "versions": len(versions),
        })
    return bots


def bots_page(storage: Storage, tables: FinishedTables | None = None) -> dict[str, Any]:
    """Every bot (see ``_bots``)."""
    return {"bots": _bots(storage, tables=tables)}


def author_page(storage: Storage, name: str, tables: FinishedTables | None = None
                ) -> dict[str, Any]:
    """An author's account and bots (``admin``: the arena's own); ``NotFoundError``
    for a name that is neither an author nor the admin."""
    rows = storage.query("SELECT name, created_at, revoked_at FROM authors WHERE name=?",
                         (name,))
    if not rows and name != ADMIN:
        raise NotFoundError(f"no author {name!r}")
    author = ({"name": ADMIN, "created_at": None, "revoked_at": ""} if not rows else
              {"name": rows[0]["name"], "created_at": rows[0]["created_at"],
               "revoked_at": rows[0]["revoked_at"]})
    return {"author": author,
            "bots": _bots(storage, "" if name == ADMIN and not rows else name, tables)}


class SeasonLeaders:
    """Who leads a running season, or won a finished one: the first row of its
    standings in its format's order (None before any result). Kept per season until
    the season changes, so the seasons list does not recount every season each time."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._cache: dict[int, tuple[tuple[Any, ...], str | None]] = {}

    def of(self, storage: Storage, seasons: Sequence[SeasonRecord]) -> dict[int, str | None]:
        return {season.id: self._leader(storage, season) for season in seasons}

    def _leader(self, storage: Storage, season: SeasonRecord) -> str | None:
        key = (season.series_done, str(season.status), season.updated_at)
        with self._lock:
            cached = self._cache.get(season.id)
        if cached is not None and cached[0] == key:
            return cached[1]
        leader = first_of(storage, season)
        with self._lock:
            self._cache[season.id] = (key, leader)
            while len(self._cache) > LEADER_CACHE_SIZE:
                del self._cache[next(iter(self._cache))]
        return leader


def first_of(storage: Storage, season: SeasonRecord) -> str | None:
    """The first bot of ``season``'s table in its format's order (None before any
    result)."""
    results = storage.results_stored_after(season.id)
    if not results:
        return None
    standings = compute_standings(season.bot_ids, results)
    try:
        config = season.config
        season_format = format_for(config.format, config)
    except ConfigError:
        return standings.rows[0].bot_id
    planned = storage.planned_series(season.id) if reads_plan(season.config) else []
    added = season_format.standings(SeasonView(
        season.bot_ids, config.seed, planned, results, rounds_of(results, planned),
        {row.bot_id: row.rating_ordinal for row in standings.rows}))
    return added.order[0] if added.order else standings.rows[0].bot_id

