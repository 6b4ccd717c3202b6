"""A bot version's life after its upload: build, validation, deactivation.

An uploaded version is ``received``; the server's vetting worker moves it to
``building`` (Docker only), ``validating`` and then ``active`` or ``rejected``,
keeping the image id, the build log's tail and the validation's log here
(written by ``arena.storage.vetting_records``, pinned to the code vetted). An
``active`` version that loses too many series in a row by a fault is
``deactivated`` (it plays no more until ``reactivate``). Versions registered before
uploads have no ``bot_versions`` row and count as ``active``. The statuses and the
changes allowed between them are ``arena.core.status.VersionStatus`` and
``VERSION_TRANSITIONS``; every change here is checked against them (``check_move``).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from arena.core.faults import faults_by_seat
from arena.core.status import VersionStatus
from arena.storage.records import (
    BotRecord,
    NotFoundError,
    SeriesRecord,
    bot_from_row,
    result_from_row,
    stored_fault,
    utc_now,
)
from arena.storage.schema import RESULT_COLUMNS
from arena.storage.store import Storage

VETTING: Final = tuple(status for status in VersionStatus if status.is_vetting)
MAX_LOG_CHARS: Final = 16 * 1024
"""A stored build or validation log keeps its last this many characters."""
MAX_DETAIL_CHARS: Final = 2000


class LifecycleError(ValueError):
    """A lifecycle step that does not apply (e.g. reactivating an active version)."""


@dataclass(frozen=True)
class VersionLife:
    """One version's lifecycle record."""

    bot_id: str
    owner: str
    status: VersionStatus
    detail: str
    changed_at: str
    image_id: str
    build_log: str
    validation_log: str


def ensure_version_row(db: sqlite3.Connection, bot_id: str) -> None:
    """A ``bot_versions`` row for a version registered before uploads (the admin's)."""
    if db.execute("SELECT 1 FROM bots WHERE id=?", (bot_id,)).fetchone() is None:
        raise NotFoundError(f"unknown bot {bot_id}")
    db.execute("INSERT OR IGNORE INTO bot_versions (bot_id, submitted_by, bundle, status, "
               "status_changed_at) VALUES (?, '', '', ?, ?)",
               (bot_id, VersionStatus.ACTIVE, utc_now()))


def status_of(db: sqlite3.Connection, bot_id: str) -> VersionStatus:
    """``bot_id``'s status (it has a ``bot_versions`` row: ``ensure_version_row``)."""
    row = db.execute("SELECT status FROM bot_versions WHERE bot_id=?", (bot_id,)).fetchone()
    return VersionStatus(row["status"])


def check_move(db: sqlite3.Connection, bot_id: str, target: VersionStatus,
               why_not: Mapping[VersionStatus, str] | None = None) -> VersionStatus:
    """Check, in the caller's transaction, that ``bot_id`` (with its
    ``bot_versions`` row) may become ``target``; returns its status now. Raises
    ``IllegalTransitionError``, saying ``why_not[current]`` when given."""
    current = status_of(db, bot_id)
    current.checked_move(target, f"bot {bot_id}", (why_not or {}).get(current, ""))
    return current


def unfinished(storage: Storage) -> list[str]:
    """Versions still to vet (received, building or validating), oldest first: what
    a server restart picks up again."""
    with storage.transaction() as db:
        rows = db.execute(
            "SELECT v.bot_id FROM bot_versions v JOIN bots b ON b.id = v.bot_id "
            f"WHERE v.status IN ({','.join('?' * len(VETTING))}) ORDER BY b.seq",
            VETTING).fetchall()
    return [str(row["bot_id"]) for row in rows]


def version_life(storage: Storage, bot_id: str) -> VersionLife:
    """``bot_id``'s record (``NotFoundError`` if it is not registered)."""
    with storage.transaction() as db:
        row = db.execute(
            "SELECT b.id, COALESCE(n.owner, '') AS owner, "
            "COALESCE(v.status, 'active') AS status, COALESCE(v.status_detail, '') AS detail, "
            "COALESCE(v.status_changed_at, b.registered_at) AS changed_at, "
            "COALESCE(v.image_id, '') AS image_id, COALESCE(v.build_log, '') AS build_log, "
            "COALESCE(v.validation_log, '') AS validation_log "
            "FROM bots b LEFT JOIN bot_names n ON n.name = b.name "
            "LEFT JOIN bot_versions v ON v.bot_id = b.id WHERE b.id=?", (bot_id,)).fetchone()
    if row is None:
        raise NotFoundError(f"unknown bot {bot_id}")
    return VersionLife(row["id"], row["owner"], VersionStatus(row["status"]), row["detail"],
                       row["changed_at"], row["image_id"], row["build_log"],
                       row["validation_log"])


def newest_active(storage: Storage) -> list[str]:
    """The newest ``active`` version of every bot name, in registration order."""
    with storage.transaction() as db:
        rows = db.execute(
            "SELECT b.id, b.name FROM bots b LEFT JOIN bot_versions v ON v.bot_id = b.id "
            "WHERE COALESCE(v.status, 'active') = ? ORDER BY b.seq",
            (VersionStatus.ACTIVE,)).fetchall()
    newest: dict[str, str] = {}
    for row in rows:
        newest.pop(row["name"], None)  # keep the newest, placed where it was registered
        newest[row["name"]] = row["id"]
    return list(newest.values())


def fault_streak(storage: Storage, bot_id: str, season_id: int, at_most: int) -> int:
    """How many of ``bot_id``'s latest results in ``season_id``, in storage order,
    were series it lost by its own fault (the current streak), counted up to
    ``at_most`` (only that many latest results are read)."""
    with storage.transaction() as db:
        rows = db.execute(
            "SELECT seat0_bot, seat1_bot, fault_json FROM series_results "
            "WHERE season_id=? AND (seat0_bot=? OR seat1_bot=?) ORDER BY stored_seq DESC "
            "LIMIT ?", (season_id, bot_id, bot_id, at_most)).fetchall()
    streak = 0
    for row in rows:
        if not _faulted(row, bot_id):
            break
        streak += 1
    return streak


def _faulted(row: sqlite3.Row, bot_id: str) -> bool:
    seats = (row["seat0_bot"], row["seat1_bot"])
    return any(fault is not None and seat_bot == bot_id
               for seat_bot, fault in zip(seats, faults_by_seat(stored_fault(row)), strict=True))


def deactivations_of(storage: Storage, bot_ids: Sequence[str]) -> dict[str, str]:
    """Why each deactivated one of ``bot_ids`` is deactivated (the others are absent).

    Asked before every series a season plays, so one read and no write lock
    (``transaction`` would take the writer's lock for a read)."""
    marks = ",".join("?" * len(bot_ids))
    rows = storage.query(
        f"SELECT bot_id, status_detail FROM bot_versions WHERE status=? AND bot_id IN ({marks})",
        (VersionStatus.DEACTIVATED, *bot_ids))
    return {str(row["bot_id"]): str(row["status_detail"]) or "deactivated" for row in rows}


def deactivate_if_streak(storage: Storage, bot_id: str, season_id: int, limit: int) -> bool:
    """Deactivate ``bot_id`` if it lost its last ``limit`` series of ``season_id`` by
    its own fault; True if this call deactivated it."""
    streak = fault_streak(storage, bot_id, season_id, limit)
    if streak < limit:
        return False
    with storage.transaction() as db:
        ensure_version_row(db, bot_id)
        if not status_of(db, bot_id).can_become(VersionStatus.DEACTIVATED):
            return False  # deactivated already, or vetted again meanwhile: it plays no more
        db.execute(
            "UPDATE bot_versions SET status=?, status_detail=?, status_changed_at=? "
            "WHERE bot_id=?",
            (VersionStatus.DEACTIVATED,
             f"lost {streak} series in a row by a fault in season {season_id}",
             utc_now(), bot_id))
    return True


def reactivate(storage: Storage, bot_id: str) -> None:
    """Make a deactivated ``bot_id`` active again (``LifecycleError`` if it is not
    deactivated)."""
    with storage.transaction() as db:
        ensure_version_row(db, bot_id)
        status = status_of(db, bot_id)
        if status is not VersionStatus.DEACTIVATED:  # the admin's move is this one only
            raise LifecycleError(f"bot {bot_id} is {status}, not deactivated: nothing to "
                                 "reactivate")
        check_move(db, bot_id, VersionStatus.ACTIVE)
        db.execute(
            "UPDATE bot_versions SET status=?, status_detail='reactivated', "
            "status_changed_at=? WHERE bot_id=?",
            (VersionStatus.ACTIVE, utc_now(), bot_id))



@dataclass(frozen=True)
class LostByFault:
    """A series ``bot_id`` lost by its own fault."""

    series_id: str
    kind: str
    message: str


def recent_faults(storage: Storage, bot_id: str, limit: int = 5) -> list[LostByFault]:
    """``bot_id``'s latest ``limit`` series lost by its fault, newest first."""
    with storage.transaction() as db:
        rows = db.execute(
            "SELECT series_id, seat0_bot, seat1_bot, fault_json FROM series_results "
            "WHERE fault_json IS NOT NULL AND (seat0_bot=? OR seat1_bot=?) "
            "ORDER BY finished_at DESC, stored_seq DESC LIMIT ?",
            (bot_id, bot_id, limit * 4)).fetchall()
    found = []
    for row in rows:
        if _faulted(row, bot_id):
            fault = stored_fault(row)
            assert fault is not None  # _faulted
            found.append(LostByFault(row["series_id"], str(fault.kind), fault.message))
    return found[:limit]


def faulted_results(storage: Storage, season_id: int, bot_id: str) -> list[SeriesRecord]:
    """The season's results with a fault in a series ``bot_id`` played (either
    seat's), in storage order: a bot page's faults without reading the season's
    every result (989,000 of them at 99 % of a 1,000-bot round robin)."""
    return [result_from_row(row) for row in storage.query(
        f"SELECT {RESULT_COLUMNS} FROM series_results WHERE season_id=? AND fault_json "
        "IS NOT NULL AND (seat0_bot=? OR seat1_bot=?) ORDER BY stored_seq",
        (season_id, bot_id, bot_id))]


def versions_of_name(storage: Storage, name: str, after: str = "",
                     limit: int | None = None) -> list[BotRecord]:
    """The versions of bot ``name`` in registration order, after version ``after``
    (an id of that name; "": from the first), at most ``limit``: a page of one bot's
    versions however many it has (``GetBot``)."""
    return [bot_from_row(row) for row in storage.query(
        "SELECT * FROM bots WHERE name=? AND seq > COALESCE((SELECT seq FROM bots "
        "WHERE id=? AND name=?), 0) ORDER BY seq LIMIT ?",
        (name, after, name, -1 if limit is None else limit))]
