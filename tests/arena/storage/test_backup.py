"""arena.storage.backup: a consistent copy of a live database and its bot files, and a
restore that checks every byte before anything is put in place."""

from __future__ import annotations

import io
import json
import sqlite3
import tarfile
import threading
from pathlib import Path

import pytest

from arena.cli import main as arena
from arena.storage import Storage
from arena.storage.backup import BackupError, restore_backup, write_backup
from tests.helpers.arena_helpers import make_bot_folder, register_folder


def stored_arena(root: Path) -> Path:
    """A database with two bot versions (their files copied beside it) and a season."""
    db = root / "live" / "arena.db"
    storage = Storage(db)
    try:
        for name in ("alpha", "beta"):
            register_folder(storage, make_bot_folder(root / "src", name, code=f"# {name}\n"))
    finally:
        storage.close()
    return db


def rows(db: Path, sql: str) -> list[tuple[object, ...]]:
    connection = sqlite3.connect(db)
    try:
        return [tuple(row) for row in connection.execute(sql)]
    finally:
        connection.close()


def test_a_backup_restores_elsewhere_with_its_bot_files(tmp_path: Path) -> None:
    db = stored_arena(tmp_path)
    archive = tmp_path / "copy.tar"
    summary = write_backup(db, archive)
    assert (summary.bots, summary.series_results) == (2, 0)
    # the database and each bot's three files (bot.toml, Dockerfile, its module)
    assert summary.files == 1 + 2 * 3

    new_db = tmp_path / "elsewhere" / "copy.db"
    restored = restore_backup(archive, new_db)
    assert restored.bots == 2
    ids = rows(new_db, "SELECT id, folder FROM bots ORDER BY seq")
    assert [bot_id for bot_id, _ in ids] == ["alpha@1.0.0", "beta@1.0.0"]
    for bot_id, folder in ids:
        folder_path = Path(str(folder))
        assert folder_path.parent == tmp_path / "elsewhere" / "copy.bots"
        name = str(bot_id).split("@")[0]
        assert (folder_path / f"{name}.py").read_text() == f"# {name}\n"
    reopened = Storage(new_db)
    try:
        assert [bot.id for bot in reopened.list_bots()] == ["alpha@1.0.0", "beta@1.0.0"]
    finally:
        reopened.close()


def test_restore_refuses_to_overwrite(tmp_path: Path) -> None:
    db = stored_arena(tmp_path)
    archive = tmp_path / "copy.tar"
    write_backup(db, archive)
    with pytest.raises(BackupError, match="already exists"):
        restore_backup(archive, db)


def rewrite_member(archive: Path, out: Path, name: str, data: bytes) -> None:
    """A copy of ``archive`` with member ``name``'s bytes replaced (size kept)."""
    with tarfile.open(archive) as source, tarfile.open(out, "w") as target:
        for member in source.getmembers():
            content = source.extractfile(member)
            assert content is not None
            body = data if member.name == name else content.read()
            member.size = len(body)
            target.addfile(member, io.BytesIO(body))


def test_a_tampered_backup_is_refused_and_nothing_is_put_in_place(tmp_path: Path) -> None:
    db = stored_arena(tmp_path)
    archive = tmp_path / "copy.tar"
    write_backup(db, archive)
    with tarfile.open(archive) as source:
        member = next(m for m in source.getmembers() if m.name.endswith("alpha.py"))
        size = member.size
    tampered = tmp_path / "tampered.backup"
    rewrite_member(archive, tampered, member.name, b"#" * size)
    target = tmp_path / "restored" / "arena.db"
    with pytest.raises(BackupError, match=r"alpha\.py does not match its SHA-256"):
        restore_backup(tampered, target)
    assert not target.exists()
    assert not (tmp_path / "restored" / "arena.bots").exists()


def test_a_member_outside_the_manifest_or_a_path_escape_is_refused(tmp_path: Path) -> None:
    db = stored_arena(tmp_path)
    archive = tmp_path / "copy.tar"
    write_backup(db, archive)
    with tarfile.open(archive, "a") as appended:
        info = tarfile.TarInfo("../escape.txt")
        info.size = 3
        appended.addfile(info, io.BytesIO(b"bad"))
    with pytest.raises(BackupError, match=r"'\.\./escape\.txt' is not in the manifest"):
        restore_backup(archive, tmp_path / "restored" / "arena.db")
    assert not (tmp_path / "restored" / "escape.txt").exists()
    assert not (tmp_path / "escape.txt").exists()


def test_files_that_are_not_backups_get_a_clear_error(tmp_path: Path) -> None:
    not_tar = tmp_path / "notes.txt"
    not_tar.write_text("hello\n")
    with pytest.raises(BackupError, match="not a readable tar archive"):
        restore_backup(not_tar, tmp_path / "a.db")
    other_tar = tmp_path / "other.tar"
    with tarfile.open(other_tar, "w") as archive:
        info = tarfile.TarInfo("backup.json")
        body = json.dumps({"format": "something else"}).encode()
        info.size = len(body)
        archive.addfile(info, io.BytesIO(body))
    with pytest.raises(BackupError, match="not a backup of this format"):
        restore_backup(other_tar, tmp_path / "b.db")
    with pytest.raises(BackupError, match="no database there"):
        write_backup(tmp_path / "missing.db", tmp_path / "x.backup")
    garbage = tmp_path / "garbage.db"
    garbage.write_bytes(b"\x00garbage" * 100)
    with pytest.raises(BackupError, match="cannot be read as an SQLite database"):
        write_backup(garbage, tmp_path / "y.backup")
    assert not (tmp_path / "y.backup").exists()


def test_a_snapshot_taken_during_writes_holds_whole_transactions(tmp_path: Path) -> None:
    # A writer commits pairs of rows (one per table) in one transaction each, as a
    # stored series writes its result and its log; every snapshot holds whole pairs.
    db = stored_arena(tmp_path)
    setup = sqlite3.connect(db)
    setup.execute("CREATE TABLE a (n INTEGER)")
    setup.execute("CREATE TABLE b (n INTEGER)")
    setup.close()
    stop = threading.Event()

    def write() -> None:
        writer = sqlite3.connect(db, isolation_level=None, timeout=30)
        n = 0
        while not stop.is_set():
            writer.execute("BEGIN IMMEDIATE")
            writer.execute("INSERT INTO a VALUES (?)", (n,))
            writer.execute("INSERT INTO b VALUES (?)", (n,))
            writer.execute("COMMIT")
            n += 1
        writer.close()

    thread = threading.Thread(target=write)
    thread.start()
    try:
        counts = []
        for index in range(5):
            archive = tmp_path / f"during-{index}.backup"
            write_backup(db, archive)
            restored = tmp_path / f"r{index}" / "arena.db"
            restore_backup(archive, restored)
            (a,), = rows(restored, "SELECT COUNT(*) FROM a")
            (b,), = rows(restored, "SELECT COUNT(*) FROM b")
            assert a == b
            counts.append(a)
    finally:
        stop.set()
        thread.join()
    assert counts == sorted(counts)


def test_the_commands_report_and_fail_cleanly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = stored_arena(tmp_path)
    archive = tmp_path / "copy.tar"
    assert arena(["backup", "--db", str(db), "--to", str(archive), "--json"]) == 0
    written = json.loads(capsys.readouterr().out)
    assert (written["bots"], written["series_results"]) == (2, 0)
    assert arena(["restore", str(archive), "--db", str(tmp_path / "new.db")]) == 0
    assert "restored" in capsys.readouterr().out
    assert arena(["restore", str(archive), "--db", str(tmp_path / "new.db")]) == 1
    assert "restore failed" in capsys.readouterr().err
