"""Backups of an arena's data while it plays, and their restore.

What an arena keeps is a database and, next to it, the files its rows point to: each
bot version's copy (``bots.folder``, under ``NAME.bots/``) and each uploaded archive
(``bot_versions.bundle``, under ``NAME.bundles/``). A backup is one tar file holding a
snapshot of the database, the files of the snapshot's rows and a manifest of them all
with their SHA-256; the stored event logs are rows of the database, so they are in the
snapshot with the results they belong to.

Consistent while seasons play: the snapshot is SQLite's online backup taken in one
step, which reads the database inside one read transaction of the WAL journal, so it
holds every transaction committed before it and none after, whatever other processes
write meanwhile (a series is stored in one transaction: it is in the snapshot whole or
not at all). The files are taken after the snapshot and only for its rows: a bot's
files are written before the row that names them is committed and never change after,
so every file a row of the snapshot names is complete on disk. ``cp`` of a live WAL
database, by contrast, can copy the main file and the journal at different moments.

The backup is written to a temporary file beside the target and renamed into place
once complete and synced; a restore checks every member against the manifest before
anything is put in place, and refuses to overwrite an existing database.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import sqlite3
import tarfile
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Final

from arena.storage.bot_files import bots_dir_for
from arena.storage.migrations import schema_version
from arena.storage.submissions import bundles_dir_for

BACKUP_FORMAT: Final = "hollywood-arena-backup/1"
MANIFEST_NAME: Final = "backup.json"
DATABASE_MEMBER: Final = "arena.db"
BOTS_PREFIX: Final = "bots"
BUNDLES_PREFIX: Final = "bundles"
MAX_MANIFEST_BYTES: Final = 64 * 1024 * 1024


class BackupError(Exception):
    """A backup or restore that cannot be done; the message names the file and why."""


@dataclass(frozen=True, slots=True)
class BackupSummary:
    """What a backup holds: rows counted in its snapshot, files and bytes."""

    path: Path
    schema_version: int
    bots: int
    series_results: int
    files: int
    bytes: int


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as file:
        for block in iter(lambda: file.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _snapshot(database: Path, target: Path) -> None:
    """SQLite's online backup of ``database`` into ``target``, in one step."""
    if not database.is_file():
        raise BackupError(f"{database}: no database there")
    source = sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=30.0)
    copy = sqlite3.connect(str(target))
    try:
        source.backup(copy)  # pages=-1: one step, one read transaction
        copy.execute("PRAGMA journal_mode=DELETE")
        check = copy.execute("PRAGMA integrity_check").fetchone()[0]
        if check != "ok":
            raise BackupError(f"{database}: the snapshot fails SQLite's integrity check: {check}")
    except sqlite3.Error as error:
        raise BackupError(f"{database}: cannot be read as an SQLite database ({error})") from None
    finally:
        copy.close()
        source.close()


def _referenced_files(snapshot: Path, database: Path) -> Iterator[tuple[str, Path]]:
    """(member name, file on disk) for every file the snapshot's rows name."""
    connection = sqlite3.connect(str(snapshot))
    try:
        folders = [Path(row[0]) for row in connection.execute("SELECT folder FROM bots")]
        bundles = [str(row[0]) for row in connection.execute(
            "SELECT DISTINCT bundle FROM bot_versions WHERE bundle != ''")]
    finally:
        connection.close()
    for folder in folders:
        if not folder.is_dir():
            raise BackupError(f"{folder}: a bot's files named by the database are missing")
        for path in sorted(folder.rglob("*")):
            if path.is_symlink() or not path.is_file():
                continue
            relative = path.relative_to(folder).as_posix()
            yield f"{BOTS_PREFIX}/{folder.name}/{relative}", path
    store = bundles_dir_for(database)
    for name in bundles:
        path = store / name
        if path.is_file():
            yield f"{BUNDLES_PREFIX}/{name}", path


def _counts(snapshot: Path) -> tuple[int, int, int]:
    connection = sqlite3.connect(str(snapshot))
    try:
        schema = schema_version(connection, snapshot)
        bots = int(connection.execute("SELECT COUNT(*) FROM bots").fetchone()[0])
        results = int(connection.execute("SELECT COUNT(*) FROM series_results").fetchone()[0])
    finally:
        connection.close()
    return schema, bots, results


def write_backup(database: Path, to: Path) -> BackupSummary:
    """Write a consistent backup of ``database`` (live or not) to the tar file ``to``."""
    to = to.resolve()
    if to.exists() and not to.is_file():
        raise BackupError(f"{to}: exists and is not a regular file")
    with tempfile.TemporaryDirectory(prefix=".backup-", dir=to.parent) as work:
        snapshot = Path(work) / DATABASE_MEMBER
        _snapshot(database, snapshot)
        schema, bots, results = _counts(snapshot)
        members = [(DATABASE_MEMBER, snapshot), *_referenced_files(snapshot, database)]
        sizes = {name: path.stat().st_size for name, path in members}
        listed = {name: {"sha256": _sha256(path), "size": sizes[name]} for name, path in members}
        manifest = {"format": BACKUP_FORMAT, "schema_version": schema, "files": listed}
        partial = Path(work) / "partial.tar"
        with tarfile.open(partial, "w") as archive:
            encoded = json.dumps(manifest, indent=1, sort_keys=True).encode()
            info = tarfile.TarInfo(MANIFEST_NAME)
            info.size = len(encoded)
            archive.addfile(info, io.BytesIO(encoded))
            for name, path in members:
                archive.add(str(path), arcname=name, recursive=False)
        with partial.open("rb") as file:
            os.fsync(file.fileno())
        os.replace(partial, to)
    size = sum(sizes.values())
    return BackupSummary(to, schema, bots, results, len(members), size)


def _safe_member_name(name: str) -> PurePosixPath:
    path = PurePosixPath(name)
    if path.is_absolute() or ".." in path.parts or not path.parts or "\x00" in name:
        raise BackupError(f"the backup names an unsafe path: {name!r}")
    return path


def _read_manifest(archive: tarfile.TarFile, source: Path) -> dict[str, dict[str, object]]:
    try:
        member = archive.getmember(MANIFEST_NAME)
    except KeyError:
        raise BackupError(f"{source}: not an arena backup (no {MANIFEST_NAME})") from None
    if not member.isfile() or member.size > MAX_MANIFEST_BYTES:
        raise BackupError(f"{source}: its {MANIFEST_NAME} is not a readable manifest")
    stream = archive.extractfile(member)
    assert stream is not None
    try:
        manifest = json.loads(stream.read())
    except ValueError as error:
        raise BackupError(f"{source}: its manifest is not JSON ({error})") from None
    if not isinstance(manifest, dict) or manifest.get("format") != BACKUP_FORMAT:
        raise BackupError(f"{source}: not a backup of this format ({BACKUP_FORMAT})")
    files = manifest.get("files")
    if not isinstance(files, dict) or DATABASE_MEMBER not in files:
        raise BackupError(f"{source}: its manifest lists no database")
    return files


def _extract_checked(archive: tarfile.TarFile, source: Path,
                     files: dict[str, dict[str, object]], into: Path) -> None:
    """Every listed member into ``into``, each checked against its size and hash."""
    seen: set[str] = set()
    for member in archive.getmembers():
        if member.name == MANIFEST_NAME:
            continue
        if member.name not in files:
            raise BackupError(f"{source}: {member.name!r} is not in the manifest")
        if not member.isfile():
            raise BackupError(f"{source}: {member.name!r} is not a regular file")
        expected = files[member.name]
        if member.size != expected.get("size"):
            raise BackupError(f"{source}: {member.name} has the wrong size")
        target = into.joinpath(*_safe_member_name(member.name).parts)
        target.parent.mkdir(parents=True, exist_ok=True)
        stream = archive.extractfile(member)
        assert stream is not None
        digest = hashlib.sha256()
        with target.open("wb") as out:
            for block in iter(lambda: stream.read(1 << 20), b""):  # noqa: B023
                digest.update(block)
                out.write(block)
        if digest.hexdigest() != expected.get("sha256"):
            raise BackupError(f"{source}: {member.name} does not match its SHA-256")
        seen.add(member.name)
    missing = sorted(set(files) - seen)
    if missing:
        raise BackupError(f"{source}: missing from the archive: {', '.join(missing[:5])}")


def restore_backup(source: Path, database: Path) -> BackupSummary:
    """Restore the backup ``source`` as ``database`` (which must not exist yet), its bot
    copies and archives beside it; the bots' folders are pointed at their new place."""
    database = database.resolve()
    bots, bundles = bots_dir_for(database), bundles_dir_for(database)
    for existing in (database, bots, bundles):
        if existing.exists():
            raise BackupError(f"{existing}: already exists; restore into a new place "
                              "(or move it away first)")
    if not source.is_file():
        raise BackupError(f"{source}: not a regular file")
    database.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".restore-", dir=database.parent) as work:
        unpacked = Path(work)
        try:
            with tarfile.open(source, "r") as archive:
                files = _read_manifest(archive, source)
                _extract_checked(archive, source, files, unpacked)
        except tarfile.TarError as error:
            raise BackupError(f"{source}: not a readable tar archive ({error})") from None
        restored = unpacked / DATABASE_MEMBER
        connection = sqlite3.connect(str(restored))
        try:
            check = connection.execute("PRAGMA integrity_check").fetchone()[0]
            if check != "ok":
                raise BackupError(f"{source}: its database fails SQLite's integrity check")
            for bot_id, folder in connection.execute("SELECT id, folder FROM bots").fetchall():
                connection.execute("UPDATE bots SET folder=? WHERE id=?",
                                   (str(bots / Path(folder).name), bot_id))
            connection.commit()
        finally:
            connection.close()
        schema, bot_count, results = _counts(restored)
        if (unpacked / BOTS_PREFIX).is_dir():
            shutil.move(unpacked / BOTS_PREFIX, bots)
        if (unpacked / BUNDLES_PREFIX).is_dir():
            shutil.move(unpacked / BUNDLES_PREFIX, bundles)
        os.replace(restored, database)
    return BackupSummary(database, schema, bot_count, results, len(files),
                         sum(int(str(entry.get("size", 0))) for entry in files.values()))
