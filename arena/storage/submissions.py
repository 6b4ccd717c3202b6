"""Uploaded bot versions: who owns a bot name, each version's bundle and status.

A bot name belongs to whoever first registered it (an author, or the admin for
``''``). ``store_submission`` registers an uploaded version in ONE transaction: the
name's owner is checked, the unpacked files are copied to the arena's own folder
(``Storage.bots_dir``, as every registered version), the version row and its
``bot_versions`` row are written, and the archive is moved into the bundle store,
named by the version's content hash (``arena.core.manifest.content_hash``, the same
name the cluster's bundles carry). A failure leaves none of it behind.

A version's ``status`` is an ``arena.core.status.VersionStatus``; an upload is
stored as ``received`` for the server's vetting to move on
(``arena.storage.lifecycle``), or ``active`` at once by a server that vets nothing
(tests, trusted tools). Versions
registered before uploads have no ``bot_versions`` row and count as ``active``,
owned by the admin.
"""

from __future__ import annotations

import shutil
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from arena.core.manifest import BotManifest, iter_bot_files
from arena.core.status import VersionStatus
from arena.core.text import safe_text
from arena.storage.bot_files import copy_bot_files
from arena.storage.records import BotRecord, ConflictError, bot_from_row, utc_now
from arena.storage.season_rows import MAX_NAME_CHARS
from arena.storage.store import MAX_DESCRIPTION_CHARS, Storage

STORED_STATUSES: Final = (VersionStatus.RECEIVED, VersionStatus.ACTIVE)
"""What new code under a version starts as (a new start, not a status change)."""
ADMIN_OWNER: Final = ""


class NameTakenError(Exception):
    """The bot name belongs to another author."""


class ReplaceRefusedError(ValueError):
    """The version's code cannot be replaced (it has played)."""


@dataclass(frozen=True)
class VersionState:
    """A version's owner and status."""

    owner: str
    status: VersionStatus


@dataclass(frozen=True)
class Submission:
    """An upload, unpacked and checked, ready to be registered."""

    manifest: BotManifest
    content_hash: str
    unpacked: Path
    archive: Path
    """The uploaded archive (a temporary file, moved into the bundle store)."""
    archive_suffix: str
    """``.tar.gz`` or ``.tar.zst``."""


def bundles_dir(storage: Storage) -> Path:
    """Where uploaded archives are kept, next to the database (like its bot copies)."""
    return bundles_dir_for(storage.path)


def bundles_dir_for(database: Path) -> Path:
    """Where the uploaded archives of ``database`` are kept."""
    return database.with_name(database.stem + ".bundles")


def name_owner(db: sqlite3.Connection, name: str) -> str | None:
    """The owner of bot name ``name`` (``''`` = the admin), ``None`` if unclaimed."""
    row = db.execute("SELECT owner FROM bot_names WHERE name=?", (name,)).fetchone()
    if row is not None:
        return str(row["owner"])
    registered = db.execute("SELECT 1 FROM bots WHERE name=? LIMIT 1", (name,)).fetchone()
    return ADMIN_OWNER if registered is not None else None


def store_submission(
    storage: Storage, submission: Submission, *, submitter: str, replace: bool,
    status: VersionStatus = VersionStatus.ACTIVE,
) -> tuple[BotRecord, bool, bool]:
    """Register ``submission`` for ``submitter`` (an author's name, or ``ADMIN_OWNER``
    for the admin, who may use any name), its status ``status``. Returns (record,
    created, replaced).
    Raises ``NameTakenError``, ``ConflictError`` (other code under an existing
    version, no ``replace``) or ``ReplaceRefusedError``; then nothing is stored."""
    if status not in STORED_STATUSES:
        raise ValueError(f"an upload is stored as one of {STORED_STATUSES}, not {status!r}")
    manifest = submission.manifest
    bot_id = f"{manifest.name}@{manifest.version}"
    bundle_name = submission.content_hash + submission.archive_suffix
    bundle = bundles_dir(storage) / bundle_name
    moved = False
    destination: Path | None = None
    try:
        with storage.transaction() as db:
            owner = name_owner(db, manifest.name)
            if owner is not None and submitter != ADMIN_OWNER and owner != submitter:
                holder = f"author {owner}" if owner else "the arena's admin"
                raise NameTakenError(
                    f"bot name {manifest.name} belongs to {holder}: choose another name "
                    "in bot.toml")
            row = db.execute("SELECT * FROM bots WHERE id=?", (bot_id,)).fetchone()
            replaced = False
            if row is not None:
                if row["content_hash"] == submission.content_hash:
                    return bot_from_row(row), False, False
                if not replace:
                    raise ConflictError(
                        f"bot {bot_id} is already registered with different content: bump "
                        "the version in bot.toml (or replace it with --replace while it "
                        "has not played)")
                if _has_played(db, bot_id):
                    raise ReplaceRefusedError(
                        f"bot {bot_id} has played season series: its code cannot be "
                        "replaced; bump the version in bot.toml")
                seq, replaced = int(row["seq"]), True
            else:
                seq = db.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM bots").fetchone()[0]
            # Named by the (validated) name, the registration number and the code:
            # the free-text version never becomes part of a path.
            destination = storage.bots_dir / f"{manifest.name}-{seq}-{submission.content_hash[:12]}"
            copy_bot_files(list(iter_bot_files(submission.unpacked)), destination)
            values = (manifest.language, safe_text(manifest.author, MAX_NAME_CHARS),
                      safe_text(manifest.description, MAX_DESCRIPTION_CHARS),
                      submission.content_hash, str(destination.resolve()),
                      f"upload:{bundle_name}", utc_now())
            if replaced:
                db.execute("UPDATE bots SET language=?, author=?, description=?, "
                           "content_hash=?, folder=?, source_folder=?, registered_at=? "
                           "WHERE id=?", (*values, bot_id))
            else:
                db.execute("INSERT INTO bots (id, seq, name, version, language, author, "
                           "description, content_hash, folder, source_folder, registered_at) "
                           "VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                           (bot_id, seq, manifest.name, manifest.version, *values))
            if owner is None:
                db.execute("INSERT INTO bot_names (name, owner, claimed_at) VALUES (?,?,?)",
                           (manifest.name, submitter, utc_now()))
            db.execute(
                "INSERT INTO bot_versions (bot_id, submitted_by, bundle, status, "
                "status_changed_at, replaced, vetted_hash) VALUES (?,?,?,?,?,0,?) "
                "ON CONFLICT(bot_id) DO UPDATE SET submitted_by=excluded.submitted_by, "
                "bundle=excluded.bundle, status=excluded.status, status_detail='', "
                "status_changed_at=excluded.status_changed_at, replaced=replaced+1, "
                "image_id='', build_log='', validation_log='', rejection_cause='', "
                "vetted_hash=excluded.vetted_hash",
                # Stored active (a server that vets nothing): it plays what it stored.
                (bot_id, submitter, bundle_name, status, utc_now(),
                 submission.content_hash if status is VersionStatus.ACTIVE else ""))
            if not bundle.exists():
                bundle.parent.mkdir(parents=True, exist_ok=True)
                shutil.move(submission.archive, bundle)
                moved = True
            record = bot_from_row(db.execute("SELECT * FROM bots WHERE id=?", (bot_id,)).fetchone())
    except BaseException:
        if moved:
            bundle.unlink(missing_ok=True)
        if destination is not None:
            shutil.rmtree(destination, ignore_errors=True)
        raise
    return record, True, replaced


def _has_played(db: sqlite3.Connection, bot_id: str) -> bool:
    return db.execute("SELECT 1 FROM series_results WHERE seat0_bot=? OR seat1_bot=? LIMIT 1",
                      (bot_id, bot_id)).fetchone() is not None


def version_states(storage: Storage) -> dict[str, VersionState]:
    """Owner and status of every registered version, by bot id."""
    with storage.transaction() as db:
        rows = db.execute(
            "SELECT b.id, COALESCE(n.owner, '') AS owner, COALESCE(v.status, 'active') AS status "
            "FROM bots b LEFT JOIN bot_names n ON n.name = b.name "
            "LEFT JOIN bot_versions v ON v.bot_id = b.id").fetchall()
    return {row["id"]: VersionState(row["owner"], VersionStatus(row["status"]))
            for row in rows}
