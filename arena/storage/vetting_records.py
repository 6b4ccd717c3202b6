"""What vetting writes about a version, pinned to the code it vetted.

Vetting fixes a version's content hash when it starts (``code_to_vet``); every
write it makes afterwards (its stage, its verdict) applies only while the version
still holds that code (``bots.content_hash``), so a replace during vetting leaves
no trace of the old code's vetting on the new code: the new code waits for its
own. An ``active`` verdict records the hash it was vetted with (``vetted_hash``);
a rejection records its cause (``AUTHOR_FAILED`` or ``ARENA_FAILED``).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from arena.core.manifest import content_hash
from arena.core.status import VersionStatus
from arena.core.text import safe_text
from arena.storage.lifecycle import (
    MAX_DETAIL_CHARS,
    MAX_LOG_CHARS,
    LifecycleError,
    check_move,
    ensure_version_row,
)
from arena.storage.records import NotFoundError, utc_now
from arena.storage.store import Storage

AUTHOR_FAILED: Final = "author"
"""The version's own build or bot failed: a new version is needed."""
ARENA_FAILED: Final = "arena"
"""The arena's side failed (its reference bot, Docker, overload): not the author's."""
REJECTION_CAUSES: Final = (AUTHOR_FAILED, ARENA_FAILED)
VERDICTS: Final = (VersionStatus.ACTIVE, VersionStatus.REJECTED)



class UnvettedCodeError(LifecycleError):
    """A version's files are not the code it was vetted with."""


class CodeChangedError(LifecycleError):
    """The version's code was replaced after its vetting started."""


@dataclass(frozen=True)
class CodeToVet:
    """A version's code as vetting found it when it started."""

    bot_id: str
    owner: str
    content_hash: str
    folder: Path


@dataclass(frozen=True)
class VettingVerdict:
    """How vetting ended: ``status`` (active or rejected), why, the cause of a
    rejection, the image id and the logs."""

    status: VersionStatus
    detail: str
    cause: str = ""
    image_id: str = ""
    build_log: str = ""
    validation_log: str = ""


def code_to_vet(storage: Storage, bot_id: str) -> CodeToVet:
    """``bot_id``'s current code and the owner of its name (``NotFoundError``)."""
    rows = storage.query(
        "SELECT b.content_hash, b.folder, COALESCE(n.owner, '') AS owner FROM bots b "
        "LEFT JOIN bot_names n ON n.name = b.name WHERE b.id=?", (bot_id,))
    if not rows:
        raise NotFoundError(f"unknown bot {bot_id}")
    row = rows[0]
    return CodeToVet(bot_id, str(row["owner"]), str(row["content_hash"]), Path(row["folder"]))


def set_stage(storage: Storage, code: CodeToVet, stage: VersionStatus) -> bool:
    """Move the version to vetting's ``stage`` if it still holds ``code``; False if
    replaced (``IllegalTransitionError`` if its status does not allow it)."""
    with storage.transaction() as db:
        if not _holds(db, code):
            return False
        check_move(db, code.bot_id, stage)
        db.execute("UPDATE bot_versions SET status=?, status_detail='', status_changed_at=? "
                   "WHERE bot_id=?", (stage, utc_now(), code.bot_id))
    return True


def _holds(db: sqlite3.Connection, code: CodeToVet) -> bool:
    """Whether the version still holds the code vetting started with."""
    row = db.execute("SELECT content_hash FROM bots WHERE id=?", (code.bot_id,)).fetchone()
    return row is not None and row["content_hash"] == code.content_hash


def record_verdict(storage: Storage, code: CodeToVet, verdict: VettingVerdict) -> None:
    """Store ``verdict`` for ``code`` in one transaction; ``CodeChangedError`` (and
    nothing stored) if the version holds other code now."""
    if verdict.status not in VERDICTS:
        raise ValueError(f"a verdict is one of {VERDICTS}, not {verdict.status!r}")
    status = VersionStatus(verdict.status)
    rejected = status is VersionStatus.REJECTED
    if rejected and verdict.cause not in REJECTION_CAUSES:
        raise ValueError(f"a rejection's cause is one of {REJECTION_CAUSES}, "
                         f"not {verdict.cause!r}")
    vetted = code.content_hash if status is VersionStatus.ACTIVE else ""
    with storage.transaction() as db:
        if not _holds(db, code):
            raise CodeChangedError(f"bot {code.bot_id}'s code changed while it was vetted: "
                                   "its new code is vetted on its own")
        check_move(db, code.bot_id, status)
        db.execute(
            "UPDATE bot_versions SET status=?, status_detail=?, status_changed_at=?, "
            "rejection_cause=?, vetted_hash=?, image_id=?, build_log=?, validation_log=? "
            "WHERE bot_id=?",
            (status, safe_text(verdict.detail, MAX_DETAIL_CHARS, multiline=True),
             utc_now(), verdict.cause if rejected else "", vetted,
             verdict.image_id, _tail(verdict.build_log), _tail(verdict.validation_log),
             code.bot_id))


def expected_hash(storage: Storage, bot_id: str) -> str | None:
    """The content hash ``bot_id`` was vetted with (``''``: not vetted, or replaced
    since), or None for a version registered without an upload (before uploads, or
    by a trusted tool), which was never vetted and plays the files it has.
    ``NotFoundError`` for an unknown version."""
    rows = storage.query(
        "SELECT v.vetted_hash, v.bot_id IS NULL AS unrecorded FROM bots b "
        "LEFT JOIN bot_versions v ON v.bot_id = b.id WHERE b.id=?", (bot_id,))
    if not rows:
        raise NotFoundError(f"unknown bot {bot_id}")
    return None if rows[0]["unrecorded"] else str(rows[0]["vetted_hash"])


def vetted_code(storage: Storage, bot_id: str) -> tuple[Path, str]:
    """(folder, vetted content hash) of the code ``bot_id`` plays: its files, checked
    against the hash it was vetted with (``UnvettedCodeError`` if it was not vetted
    or its files hash otherwise). A version registered without an upload has no
    vetted hash (``''``) and is not checked."""
    expected = expected_hash(storage, bot_id)
    folder = storage.get_bot(bot_id).folder
    if expected is None:
        return folder, ""
    if not expected:
        raise UnvettedCodeError(f"bot {bot_id} holds code that was not vetted (replaced "
                                "since, or still being vetted): it cannot play")
    actual = content_hash(folder)
    if actual != expected:
        raise UnvettedCodeError(f"bot {bot_id}'s files hash to {actual[:12]}, not to "
                                f"{expected[:12]}, the code it was vetted with: refusing "
                                "to play code that was not vetted")
    return folder, expected


def rejection_cause(storage: Storage, bot_id: str) -> str:
    """``AUTHOR_FAILED`` or ``ARENA_FAILED`` for a rejected version, else ``''``."""
    rows = storage.query("SELECT rejection_cause FROM bot_versions WHERE bot_id=?",
                          (bot_id,))
    return str(rows[0]["rejection_cause"]) if rows else ""


def rejected_by_arena(storage: Storage) -> list[str]:
    """Versions rejected by the arena's side, oldest first (a restart vets them again)."""
    rows = storage.query(
        "SELECT v.bot_id FROM bot_versions v JOIN bots b ON b.id = v.bot_id "
        "WHERE v.status=? AND v.rejection_cause=? ORDER BY b.seq",
        (VersionStatus.REJECTED, ARENA_FAILED))
    return [str(row["bot_id"]) for row in rows]


def mark_for_revetting(storage: Storage, bot_id: str, asked_by: str) -> None:
    """Move a rejected or active ``bot_id`` back to ``received`` for vetting again
    (``IllegalTransitionError`` while it is being vetted, or when it is deactivated:
    that is the admin's ``reactivate``)."""
    with storage.transaction() as db:
        ensure_version_row(db, bot_id)
        check_move(db, bot_id, VersionStatus.RECEIVED, {
            **{status: ": it is being vetted already" for status in VersionStatus
               if status.is_vetting},
            VersionStatus.DEACTIVATED: (": the admin reactivates it (`arena bots "
                                        "reactivate`), vetting again does not")})
        db.execute(
            "UPDATE bot_versions SET status=?, status_detail=?, status_changed_at=?, "
            "rejection_cause='', vetted_hash='' WHERE bot_id=?",
            (VersionStatus.RECEIVED, f"vetting again, asked by {asked_by}", utc_now(),
             bot_id))


def _tail(text: str) -> str:
    return safe_text(text, MAX_LOG_CHARS, multiline=True, keep="tail")
