"""The pages to browse the arena by: every bot (``/bots``), an author's bots
(``/authors/NAME``), every version of a bot with its status and, for a rejected or
deactivated one, why, and its ladder gates; and who leads or won each season (the
seasons list). Plain JSON-ready data, read only (the pages' data as ``arena.web.views`` is)."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import asdict
from typing import Any, Final

from arena.season.ladder_gating import admitted
from arena.season.readings import SeasonReadings
from arena.season.seeding import current_rows
from arena.storage import NotFoundError, SeasonRecord, Storage, gates_of_version
from arena.web.paging import Pager

ADMIN: Final = "admin"
"""How the arena's admin shows as an owner (stored as '')."""
CAUSES: Final = {
    "author": "its own build or bot failed: a new version is needed",
    "arena": "the arena's side failed, not the bot: it is vetted again",
}
LEADER_CACHE_SIZE: Final = 256

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


def versions_of(storage: Storage, name: str, pager: Pager
                ) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """A page of bot ``name``'s versions, oldest first (status, since when, owner and,
    for a rejected or deactivated one, the reason), and its links."""
    return pager.cut([_version(row) for row in storage.query(
        _VERSIONS + " WHERE b.name=? ORDER BY b.seq LIMIT ? OFFSET ?",
        (name, pager.limit, pager.offset))])


def version_of(storage: Storage, bot_id: str) -> dict[str, Any]:
    """One stored version as ``versions_of`` shows it."""
    [row] = storage.query(_VERSIONS + " WHERE b.id=?", (bot_id,))
    return _version(row)


def shown_version(storage: Storage, name: str) -> str | None:
    """The version a bare name shows: its newest active one, else its newest (None
    for a name with no version)."""
    rows = storage.query(
        "SELECT b.id FROM bots b LEFT JOIN bot_versions v ON v.bot_id = b.id WHERE b.name=? "
        "ORDER BY COALESCE(v.status, 'active') = 'active' DESC, b.seq DESC LIMIT 1", (name,))
    return str(rows[0]["id"]) if rows else None


def ladder_gates_of(storage: Storage, bot_id: str) -> list[dict[str, Any]]:
    """The version's gates on ladders (``--gate sprt``): its match against its
    predecessor, the verdict with its figures, and whether it is admitted."""
    return [{"ladder_id": gate.ladder_id, "predecessor": gate.predecessor,
             "match_id": gate.match_id, **asdict(gate.verdict), "admitted_by": gate.admitted_by,
             "admitted": admitted(storage, gate)}
            for gate in gates_of_version(storage, bot_id)]


def _last_played(storage: Storage, bot_ids: Sequence[str]) -> dict[str, str]:
    """When each of ``bot_ids`` last played (absent: never): two index seeks per
    version (``series_results_by_seat0``/``1``), however many results are stored."""
    marks = ",".join("?" * len(bot_ids))
    rows = storage.query(
        "SELECT b.id, (SELECT MAX(finished_at) FROM series_results WHERE seat0_bot = b.id) "
        "AS first, (SELECT MAX(finished_at) FROM series_results WHERE seat1_bot = b.id) "
        f"AS second FROM bots b WHERE b.id IN ({marks})", tuple(bot_ids))
    played = {str(row["id"]): max(str(row["first"] or ""), str(row["second"] or ""))
              for row in rows}
    return {bot_id: last for bot_id, last in played.items() if last}


def _names(storage: Storage, owner: str | None, pager: Pager) -> list[str]:
    """The page's bot names (of ``owner``'s only, if given), in registration order of
    each name's first version."""
    where, params = "", tuple[str | int, ...]()
    if owner is not None:
        where, params = " WHERE COALESCE(n.owner, '') = ?", (owner,)
    return [str(row[0]) for row in storage.query(
        "SELECT b.name FROM bots b LEFT JOIN bot_names n ON n.name = b.name"
        f"{where} GROUP BY b.name ORDER BY MIN(b.seq) LIMIT ? OFFSET ?",
        (*params, pager.limit, pager.offset))]


def _bots(storage: Storage, readings: SeasonReadings, pager: Pager,
          owner: str | None = None) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """One row per bot name (registration order of its first version), a page of
    them: the latest version's status, the owner, the latest active version, its
    rating (OpenSkill μ ± σ in the latest finished season it played, as the server's
    standings of that season have it: ``readings``) and when any version last
    played; and the page's links (``Pager.cut``)."""
    names, links = pager.cut(_names(storage, owner, pager))
    by_name: dict[str, list[dict[str, Any]]] = {name: [] for name in names}
    marks = ",".join("?" * len(names))
    for version in storage.query(_VERSIONS + f" WHERE b.name IN ({marks}) ORDER BY b.seq",
                                 tuple(names)):
        by_name[str(version["name"])].append(_version(version))
    last = _last_played(storage, [v["id"] for versions in by_name.values() for v in versions])
    active = {name: next((v for v in reversed(versions) if v["status"] == "active"), None)
              for name, versions in by_name.items()}
    rows = current_rows(storage, [v["id"] for v in active.values() if v is not None],
                        lambda season: readings.board.snapshot(season.id).standings)
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
    return bots, links


def bots_page(storage: Storage, readings: SeasonReadings, pager: Pager) -> dict[str, Any]:
    """A page of every bot (see ``_bots``) and its links (``pager``)."""
    bots, links = _bots(storage, readings, pager)
    return {"bots": bots, "pager": links}


def author_page(storage: Storage, readings: SeasonReadings, name: str,
                pager: Pager) -> dict[str, Any]:
    """An author's account and a page of its bots (``admin``: the arena's own);
    ``NotFoundError`` for a name that is neither an author nor the admin."""
    rows = storage.query("SELECT name, created_at, revoked_at FROM authors WHERE name=?",
                         (name,))
    if not rows and name != ADMIN:
        raise NotFoundError(f"no author {name!r}")
    author = ({"name": ADMIN, "created_at": None, "revoked_at": ""} if not rows else
              {"name": rows[0]["name"], "created_at": rows[0]["created_at"],
               "revoked_at": rows[0]["revoked_at"]})
    bots, links = _bots(storage, readings, pager, "" if name == ADMIN and not rows else name)
    return {"author": author, "bots": bots, "pager": links}


class SeasonLeaders:
    """Who leads a running season, or won a finished one: the first row of the
    server's table of it in its format's order (``readings``; None before any
    result). Kept per season until the season changes, so the seasons list does not
    read every season's table each time."""

    def __init__(self, readings: SeasonReadings) -> None:
        self.readings = readings
        self._lock = threading.Lock()
        self._cache: dict[int, tuple[tuple[Any, ...], str | None]] = {}

    def of(self, seasons: Sequence[SeasonRecord]) -> dict[int, str | None]:
        return {season.id: self._leader(season) for season in seasons}

    def _leader(self, season: SeasonRecord) -> str | None:
        key = (season.series_done, str(season.status), season.updated_at)
        with self._lock:
            cached = self._cache.get(season.id)
        if cached is not None and cached[0] == key:
            return cached[1]
        reading = self.readings.read(season.id)
        leader = reading.statistics.order[0] if reading.results else None
        with self._lock:
            self._cache[season.id] = (key, leader)
            while len(self._cache) > LEADER_CACHE_SIZE:
                del self._cache[next(iter(self._cache))]
        return leader
