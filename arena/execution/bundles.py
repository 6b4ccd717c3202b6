"""Bot code carried through the cluster by content hash.

A worker on another machine has no copy of the arena's bot folders, and the design
needs no image registry: the arena packs each bot version's files once into a
``BotBundle`` (a gzip'd tar of exactly the files ``content_hash`` covers, named by
that hash), sends it with each series task, and the worker unpacks it once per hash
into its cache directory (``unpack``), where its sandbox builds the image once per
version. A bundle whose files do not hash to its name is refused.
"""

from __future__ import annotations

import hashlib
import io
import os
import shutil
import stat
import tarfile
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from arena.core.manifest import content_hash, iter_bot_files

__all__ = ["BotBundle", "BundleError", "bundle_of", "unpack"]


class BundleError(RuntimeError):
    """A bundle cannot be unpacked (corrupt, or its files do not match its hash)."""


@dataclass(frozen=True)
class BotBundle:
    """One bot version's files, named by their content hash."""

    content_hash: str
    archive: bytes
    """A gzip'd tar of the folder's files (``iter_bot_files``), modes kept."""


_PACKED: dict[tuple[str, str], BotBundle] = {}
_PACK_LOCK = threading.Lock()


def bundle_of(folder: Path | str) -> BotBundle:
    """The bundle of ``folder`` (packed once per folder and content hash)."""
    folder = Path(folder).resolve()
    digest = content_hash(folder)
    key = (str(folder), digest)
    with _PACK_LOCK:
        cached = _PACKED.get(key)
    if cached is not None:
        return cached
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for relative, path in iter_bot_files(folder):
            info = tarfile.TarInfo(relative)
            data = path.read_bytes()
            info.size = len(data)
            info.mode = 0o755 if os.access(path, os.X_OK) else 0o644
            archive.addfile(info, io.BytesIO(data))
    bundle = BotBundle(digest, buffer.getvalue())
    with _PACK_LOCK:
        _PACKED[key] = bundle
    return bundle


_UNPACK_LOCK = threading.Lock()


def unpack(bundle: BotBundle, cache_root: Path) -> Path:
    """The folder holding ``bundle``'s files under ``cache_root`` (named by its hash),
    unpacked on first use. Safe for several worker processes sharing ``cache_root``:
    each unpacks into a temporary folder and renames it into place."""
    if not _is_hex_digest(bundle.content_hash):
        raise BundleError(f"bundle name {bundle.content_hash[:80]!r} is not a SHA-256 digest")
    destination = cache_root / bundle.content_hash
    if destination.is_dir():
        return destination
    cache_root.mkdir(parents=True, exist_ok=True)
    with _UNPACK_LOCK:
        if destination.is_dir():
            return destination
        staging = Path(tempfile.mkdtemp(prefix=".unpack-", dir=cache_root))
        try:
            _extract(bundle.archive, staging)
            actual = content_hash(staging)
            if actual != bundle.content_hash:
                raise BundleError(f"bundle {bundle.content_hash[:12]} holds files hashing to "
                                  f"{actual[:12]}")
            try:
                staging.rename(destination)
            except OSError:
                if not destination.is_dir():  # not another process's identical copy
                    raise
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    return destination


def _extract(archive: bytes, into: Path) -> None:
    # Each regular file's bytes are written here, not by tar.extract: its "data" filter
    # (which refuses absolute paths, '..' and links) came with Python 3.11.4, and a
    # worker's image may have an older 3.11 (Debian's 3.11.2).
    try:
        with tarfile.open(fileobj=io.BytesIO(archive), mode="r:gz") as tar:
            for member in tar.getmembers():
                if not member.isfile():
                    raise BundleError(f"bundle entry {member.name!r} is not a regular file")
                target = _inside(into, member.name)
                source = tar.extractfile(member)
                if source is None:
                    raise BundleError(f"bundle entry {member.name!r} has no content")
                target.parent.mkdir(parents=True, exist_ok=True)
                with source, target.open("xb") as copy:
                    shutil.copyfileobj(source, copy)
                target.chmod(stat.S_IMODE(member.mode) | stat.S_IRUSR)
    except (tarfile.TarError, OSError, EOFError) as error:
        raise BundleError(f"bundle cannot be unpacked: {error}") from error


def _inside(into: Path, name: str) -> Path:
    """Where the entry ``name`` goes under ``into``; ``BundleError`` for an absolute
    path or one that climbs out with '..'."""
    relative = PurePosixPath(name)
    if relative.is_absolute() or ".." in relative.parts or not relative.parts:
        raise BundleError(f"bundle cannot be unpacked: entry {name!r} leaves its folder")
    return into.joinpath(*relative.parts)


def _is_hex_digest(text: str) -> bool:
    return len(text) == hashlib.sha256().digest_size * 2 and all(
        c in "0123456789abcdef" for c in text)
