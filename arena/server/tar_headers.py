"""Tar extension headers are bounded before ``tarfile`` reads them.

``tarfile`` reads a pax extended header ('x', 'g', Solaris 'X') or a GNU long
name or link ('L', 'K') whole into memory, however large its size field says it
is: a few uploads of a small compressed archive holding a gigabyte of pax header
once raised the server's memory by over 1 GB. ``TarHeaderGuard`` sits between the
decompressed stream and ``tarfile`` and reads the same 512-byte headers as they
pass: an extension header over ``MAX_EXTENSION_BYTES``, more than
``MAX_EXTENSIONS_PER_ENTRY`` of them before one entry (``tarfile`` reads such a
chain recursively), a sparse file, or a pax header that sets an entry's size (so
the guard would lose its place) is refused with INVALID_ARGUMENT before a byte of
it reaches ``tarfile``, and so is a header it cannot read (bad checksum or
number). Each refusal names the header's offset in the tar stream and the limit.

The guard follows the stream as ``tarfile`` does: a member's data follows its
header for the types whose data ``tarfile`` skips; at the first zero block (the
end of the archive) ``tarfile`` reads no further entries, and the guard stops
checking there too.
"""

from __future__ import annotations

import io
import re
import tarfile
from typing import IO, Final

import grpc

MAX_EXTENSION_BYTES: Final = 64 * 1024
"""The largest pax header or GNU long name/link accepted (a path is far shorter)."""
MAX_EXTENSIONS_PER_ENTRY: Final = 4
"""Extension headers before one entry (a global and a per-file pax header and a
GNU long name and link at most)."""

_BLOCK: Final = tarfile.BLOCKSIZE
_EXTENSIONS: Final = {
    b"x": "a pax extended header", b"g": "a pax global header",
    b"X": "a Solaris extended header", b"L": "a GNU long name", b"K": "a GNU long link",
}
_PAX_TYPES: Final = (b"x", b"g", b"X")
_FORBIDDEN_PAX: Final = re.compile(rb"(?:^|\n)\d+ (size|GNU\.sparse\.[A-Za-z.]*)=")
_DATA_TYPES: Final = frozenset(tarfile.REGULAR_TYPES)
_KNOWN_TYPES: Final = frozenset(tarfile.SUPPORTED_TYPES)


class TarHeaderError(Exception):
    """A tar stream refused by the guard; ``code`` is its gRPC status."""

    code: Final = grpc.StatusCode.INVALID_ARGUMENT


class TarHeaderGuard(io.RawIOBase):
    """``stream`` (a tar's bytes) passed through unchanged, its headers checked."""

    def __init__(self, stream: IO[bytes]) -> None:
        self._stream = stream
        self._offset = 0
        """Offset in the tar stream of the next byte to scan."""
        self._header = bytearray()
        self._skip = 0
        """Bytes (data and padding) before the next header."""
        self._pax: bytearray | None = None
        """The content of the pax header being read, checked when complete."""
        self._pax_offset = 0
        self._pax_size = 0
        self._extensions = 0
        self._done = False

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        data = self._stream.read(len(buffer))
        if data and not self._done:
            self._scan(memoryview(data))
        buffer[:len(data)] = data
        return len(data)

    def _scan(self, data: memoryview) -> None:
        at = 0
        while at < len(data) and not self._done:
            if self._skip:
                take = min(self._skip, len(data) - at)
                if self._pax is not None:
                    self._pax += data[at:at + take]
                self._skip -= take
                at += take
                self._offset += take
                if not self._skip and self._pax is not None:
                    self._check_pax(bytes(self._pax))
                    self._pax = None
                continue
            take = min(_BLOCK - len(self._header), len(data) - at)
            self._header += data[at:at + take]
            at += take
            self._offset += take
            if len(self._header) == _BLOCK:
                header, self._header = bytes(self._header), bytearray()
                self._on_header(header, self._offset - _BLOCK)

    def _on_header(self, header: bytes, offset: int) -> None:
        if header == bytes(_BLOCK):
            self._done = True  # tarfile's reading ends at the first zero block
            return
        size = _number(header[124:136])
        if size is None or not _checksum_ok(header):
            raise TarHeaderError(f"the tar header at byte {offset} cannot be read (bad "
                                 "checksum or size field)")
        kind = header[156:157]
        if kind == tarfile.AREGTYPE and header[:100].split(b"\0", 1)[0].endswith(b"/"):
            kind = tarfile.DIRTYPE  # as tarfile reads an old-style folder entry
        if kind in _EXTENSIONS:
            self._extension(kind, size, offset)
            return
        if kind == b"S":
            raise TarHeaderError(f"the tar entry at byte {offset} is a GNU sparse file: "
                                 "a bot upload holds regular files and folders only")
        self._extensions = 0
        has_data = kind in _DATA_TYPES or kind not in _KNOWN_TYPES
        self._skip = _padded(size) if has_data else 0

    def _extension(self, kind: bytes, size: int, offset: int) -> None:
        what = _EXTENSIONS[kind]
        if size > MAX_EXTENSION_BYTES:
            raise TarHeaderError(
                f"the tar stream has {what} of {size} bytes at byte {offset}: at most "
                f"{MAX_EXTENSION_BYTES} bytes allowed (a bot's paths are far shorter)")
        self._extensions += 1
        if self._extensions > MAX_EXTENSIONS_PER_ENTRY:
            raise TarHeaderError(
                f"the tar stream has more than {MAX_EXTENSIONS_PER_ENTRY} extension headers "
                f"in a row at byte {offset}: at most {MAX_EXTENSIONS_PER_ENTRY} before an entry")
        self._skip = _padded(size)
        self._pax = bytearray() if kind in _PAX_TYPES and size else None
        self._pax_offset = offset
        self._pax_size = size

    def _check_pax(self, padded: bytes) -> None:
        found = _FORBIDDEN_PAX.search(padded[:self._pax_size])
        if found is not None:
            raise TarHeaderError(
                f"the pax header at byte {self._pax_offset} sets "
                f"{found.group(1).decode()!r}: sparse files and pax sizes are not accepted "
                "in a bot upload")


def _padded(size: int) -> int:
    return -(-size // _BLOCK) * _BLOCK


def _number(field: bytes) -> int | None:
    """A tar number field as ``tarfile`` reads it (octal, or GNU base-256), or None
    if it is not one."""
    if field[:1] == b"\x80":
        return int.from_bytes(field[1:], "big")
    if field[:1] == b"\xff":
        return None  # negative
    text = field.split(b"\0", 1)[0].strip()
    try:
        return int(text or b"0", 8)
    except ValueError:
        return None


def _checksum_ok(header: bytes) -> bool:
    stored = _number(header[148:156])
    blanked = header[:148] + b" " * 8 + header[156:]
    unsigned = sum(blanked)
    signed = sum(byte - 256 if byte > 127 else byte for byte in blanked)
    return stored in (unsigned, signed)
