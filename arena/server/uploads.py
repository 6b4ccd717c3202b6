"""Receiving a bot upload (``SubmitBot``): the archive is checked while it streams in.

The chunks are read as one tar stream (gzip or zstd), member by member, and each
member is checked before a byte of it is written: a regular file or a folder only,
a relative path without ``..``, and the running totals within ``UploadLimits``.
Files go into a private staging folder the server names; the archive's bytes are
kept in a temporary file beside it. Only then is ``bot.toml`` read from the staged
copy, never from a path a client names. Every refusal is an ``UploadRefused`` with
its gRPC status code and a message naming the file or the limit.

Memory stays bounded whatever an upload holds: the tar's extension headers are
checked before ``tarfile`` reads them (``arena.server.tar_headers``), a zstd
frame may not ask for a window over ``MAX_ZSTD_WINDOW``, and every buffer is of a
fixed size. Time too: an upload that stalls ends (``arena.server.upload_stream``),
and no author holds more than ``UploadLimits.per_author`` of the server's slots.
"""

from __future__ import annotations

import gzip
import io
import os
import shutil
import stat
import tarfile
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import IO, Final, cast

import grpc
import zstandard
from hollywood.arena.v1 import arena_pb2

from arena.core.defaults import DEFAULT_UPLOAD_IDLE_SECONDS
from arena.core.manifest import BotManifest, ManifestError, content_hash, submission_problem
from arena.core.upload_messages import CHUNK_BYTES
from arena.server.tar_headers import TarHeaderError, TarHeaderGuard
from arena.storage import ADMIN_OWNER, Submission

MIB: Final = 1024 * 1024
MAX_CHUNK_BYTES: Final = CHUNK_BYTES
COMPRESSIONS: Final = {"gzip": ".tar.gz", "zstd": ".tar.zst"}
_BUFFER_BYTES: Final = 64 * 1024
"""Every buffer of an upload: under glibc's 128 KiB threshold, so the buffers of
many uploads on many threads do not each leave a MiB behind in a thread's arena."""
MAX_ZSTD_WINDOW: Final = 8 * MIB
"""The largest zstd window accepted (level 19 uses 8 MiB; a frame may ask for up
to 2 GiB, which the decompressor would allocate)."""


@dataclass(frozen=True)
class UploadLimits:
    """What one upload may hold, how long it may take, and how many the server
    receives at once (each holds a thread of the server's pool while it streams),
    in all and from one author."""

    compressed_bytes: int = 20 * MIB
    unpacked_bytes: int = 100 * MIB
    entries: int = 5000
    concurrent: int = 4
    per_author: int = 2
    """Uploads of one author at once (the admin counts as one author); kept below
    ``concurrent`` so that no author can take every slot."""
    idle_seconds: float = DEFAULT_UPLOAD_IDLE_SECONDS
    """No message for this long ends an upload."""
    total_seconds: float = 600.0
    """An upload still streaming after this long ends (a trickle of bytes that
    never goes idle)."""

    def __post_init__(self) -> None:
        if min(self.concurrent, self.per_author) < 1 or not (
                self.idle_seconds > 0 and self.total_seconds > 0):  # refuses nan too
            raise ValueError(f"upload limits need at least 1 upload at once and times "
                             f"over 0, got {self}")


class UploadSlots:
    """At most ``limits.concurrent`` uploads at once, and ``limits.per_author`` of
    one author (at most ``concurrent - 1`` when ``concurrent`` is above 1); one more
    is refused at once with RESOURCE_EXHAUSTED rather than queued behind a slow
    client."""

    def __init__(self, limits: UploadLimits) -> None:
        self._limit = limits.concurrent
        self.per_author = max(1, min(limits.per_author, limits.concurrent - 1))
        self._lock = threading.Lock()
        self._by_author: dict[str, int] = {}
        self.in_use = 0

    def of(self, author: str) -> int:
        """Uploads of ``author`` in progress."""
        with self._lock:
            return self._by_author.get(author, 0)

    @contextmanager
    def slot(self, author: str) -> Iterator[None]:
        with self._lock:
            mine = self._by_author.get(author, 0)
            if self.in_use >= self._limit:
                raise _too_big(f"the server is receiving {self._limit} uploads, its limit "
                               "at once: try again shortly")
            if mine >= self.per_author:
                who = "the admin" if author == ADMIN_OWNER else f"author {author}"
                raise _too_big(f"{who} is sending {mine} uploads, the limit at once per "
                               "author: wait for one to finish")
            self.in_use += 1
            self._by_author[author] = mine + 1
        try:
            yield
        finally:
            with self._lock:
                self.in_use -= 1
                self._by_author[author] -= 1
                if not self._by_author[author]:
                    del self._by_author[author]


class UploadRefused(Exception):
    """An upload that is refused: its gRPC status code and the reason."""

    def __init__(self, code: grpc.StatusCode, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def _invalid(message: str) -> UploadRefused:
    return UploadRefused(grpc.StatusCode.INVALID_ARGUMENT, message)


def _too_big(message: str) -> UploadRefused:
    return UploadRefused(grpc.StatusCode.RESOURCE_EXHAUSTED, message)


@dataclass
class UploadTotals:
    compressed: int = 0
    unpacked: int = 0
    entries: int = 0


class _ChunkReader(io.RawIOBase):
    """The archive's bytes as a file, read from the request stream, copied to
    ``keep`` and counted against the compressed limit."""

    def __init__(self, chunks: Iterator[arena_pb2.SubmitBotRequest], keep: IO[bytes],
                 limits: UploadLimits, totals: UploadTotals) -> None:
        self._chunks = chunks
        self._keep = keep
        self._limits = limits
        self._totals = totals
        self._pending = memoryview(b"")

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        while not self._pending:
            message = next(self._chunks, None)
            if message is None:
                return 0
            if message.WhichOneof("part") != "chunk":
                raise _invalid("the header may only be the first message of an upload")
            chunk = message.chunk  # read once: each read of the field is a copy
            del message
            if len(chunk) > MAX_CHUNK_BYTES:
                raise _invalid(f"a chunk of {len(chunk)} bytes: at most "
                               f"{MAX_CHUNK_BYTES} bytes per message")
            self._totals.compressed += len(chunk)
            if self._totals.compressed > self._limits.compressed_bytes:
                raise _too_big(f"the archive is over the limit of "
                               f"{_size(self._limits.compressed_bytes)} compressed")
            self._keep.write(chunk)
            self._pending = memoryview(chunk)
        size = min(len(buffer), len(self._pending))
        buffer[:size] = self._pending[:size]
        self._pending = self._pending[size:]  # a view: the chunk is never copied whole
        return size


def _size(count: int) -> str:
    return f"{count / MIB:g} MiB" if count % MIB == 0 else f"{count} bytes"


@contextmanager
def receive_upload(
    requests: Iterator[arena_pb2.SubmitBotRequest], work_root: Path, limits: UploadLimits,
) -> Iterator[tuple[Submission, arena_pb2.SubmitBotHeader, UploadTotals]]:
    """Receive, check and unpack one upload into a staging folder under
    ``work_root`` (removed, with the archive unless it was moved away, on exit)."""
    first = next(requests, None)
    if first is None or first.WhichOneof("part") != "header":
        raise _invalid("an upload starts with a header message (compression, replace)")
    header = first.header
    suffix = COMPRESSIONS.get(header.compression)
    if suffix is None:
        raise _invalid(f"header.compression {header.compression!r} is not one of "
                       f"{', '.join(sorted(COMPRESSIONS))}")
    work_root.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".upload-", dir=work_root))
    try:
        unpacked = staging / "bot"
        unpacked.mkdir()
        archive = staging / ("archive" + suffix)
        totals = UploadTotals()
        with archive.open("wb") as keep:
            reader = io.BufferedReader(_ChunkReader(requests, keep, limits, totals),
                                       _BUFFER_BYTES)
            _unpack(reader, header.compression, unpacked, limits, totals)
            # The compressed stream may end before its last chunk: read the rest, so
            # the kept archive and the compressed total are the whole upload.
            while reader.read(_BUFFER_BYTES):
                pass
        manifest = _manifest(unpacked)
        yield (Submission(manifest, content_hash(unpacked), unpacked, archive, suffix),
               header, totals)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


class _BoundedReader(io.RawIOBase):
    """The decompressed tar stream, refused once it is longer than the files' limit
    allows (plus the headers of ``limits.entries`` entries): a decompression bomb
    hidden in a header (tar reads a pax header whole) never fills the memory."""

    def __init__(self, stream: IO[bytes], limits: UploadLimits) -> None:
        self._stream = stream
        self._limits = limits
        self._allowed = limits.unpacked_bytes + limits.entries * _HEADER_ALLOWANCE + MIB
        self._read = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        data = self._stream.read(len(buffer))
        self._read += len(data)
        if self._read > self._allowed:
            raise _too_big(f"the archive unpacks to more than "
                           f"{_size(self._limits.unpacked_bytes)} (its tar stream is over "
                           f"{self._allowed} bytes)")
        buffer[:len(data)] = data
        return len(data)


_HEADER_ALLOWANCE: Final = 2048
"""Tar bytes per entry besides its data: a 512-byte header, padding, a pax record."""


def _unpack(reader: IO[bytes], compression: str, into: Path, limits: UploadLimits,
            totals: UploadTotals) -> None:
    try:
        if compression == "zstd":
            stream: IO[bytes] = zstandard.ZstdDecompressor(
                max_window_size=MAX_ZSTD_WINDOW).stream_reader(reader)
        else:
            stream = cast("IO[bytes]", gzip.GzipFile(fileobj=reader, mode="rb"))
        bounded = io.BufferedReader(_BoundedReader(stream, limits), _BUFFER_BYTES)
        with tarfile.open(fileobj=TarHeaderGuard(bounded), mode="r|") as tar:
            for member in tar:
                _check_member(member, limits, totals)
                _extract(tar, member, into)
    except UploadRefused:
        raise
    except TarHeaderError as error:
        raise UploadRefused(error.code, str(error)) from None
    except (tarfile.TarError, zstandard.ZstdError, EOFError, OSError) as error:
        raise _invalid(f"the archive cannot be read as a {compression} tar: {error}") from None


_KINDS: Final = (
    (tarfile.TarInfo.issym, "a symbolic link"), (tarfile.TarInfo.islnk, "a hard link"),
    (tarfile.TarInfo.ischr, "a character device"), (tarfile.TarInfo.isblk, "a block device"),
    (tarfile.TarInfo.isfifo, "a fifo"),
)


def _check_member(member: tarfile.TarInfo, limits: UploadLimits, totals: UploadTotals) -> None:
    name = member.name
    if not (member.isfile() or member.isdir()):
        kind = next((text for test, text in _KINDS if test(member)), "not a regular file")
        raise _invalid(f"{name!r} is {kind}: a bot upload holds regular files and "
                       "folders only")
    if name.startswith("/") or PurePosixPath(name).is_absolute():
        raise _invalid(f"{name!r} is an absolute path: paths must be relative to the bot "
                       "folder")
    if ".." in PurePosixPath(name).parts:
        raise _invalid(f"{name!r} contains '..': paths must stay inside the bot folder")
    if "\\" in name or "\0" in name:
        raise _invalid(f"{name!r} is not a portable path (backslash or NUL)")
    totals.entries += 1
    if totals.entries > limits.entries:
        raise _too_big(f"the archive has more than {limits.entries} entries (at {name!r})")
    totals.unpacked += member.size if member.isfile() else 0
    if totals.unpacked > limits.unpacked_bytes:
        raise _too_big(f"the archive unpacks to more than {_size(limits.unpacked_bytes)} "
                       f"(at {name!r})")


def _extract(tar: tarfile.TarFile, member: tarfile.TarInfo, into: Path) -> None:
    parts = [part for part in PurePosixPath(member.name).parts if part not in ("", ".")]
    if not parts:
        return
    target = into.joinpath(*parts)
    try:
        if member.isdir():
            target.mkdir(parents=True, exist_ok=True)
            return
        target.parent.mkdir(parents=True, exist_ok=True)
        source = tar.extractfile(member)
        assert source is not None  # a regular file always has data
        with target.open("wb") as out:
            shutil.copyfileobj(source, out, _BUFFER_BYTES)
    except (FileExistsError, NotADirectoryError, IsADirectoryError):
        raise _invalid(f"{member.name!r} clashes with another entry of the archive "
                       "(a file and a folder of the same name)") from None
    executable = member.mode & stat.S_IXUSR
    os.chmod(target, 0o755 if executable else 0o644)


def _manifest(unpacked: Path) -> BotManifest:
    # Messages name paths inside the bot folder, never the server's staging folder.
    try:
        manifest = BotManifest.load(unpacked)
    except ManifestError as error:
        raise _invalid(str(error).replace(f"{unpacked}/", "").replace(
            str(unpacked), "the bot folder")) from None
    problem = submission_problem(manifest)
    if problem is not None:
        raise _invalid(problem)
    return manifest
