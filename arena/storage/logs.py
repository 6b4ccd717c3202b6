"""Series event logs as stored: compact JSON compressed with Zstandard, in the
``series_logs`` table apart from the (narrow) result rows.

Why Zstandard at level 3: measured on real logs (in-process sample bots), a
random-vs-random series that runs to the 200-hand cap is 1.82 MB of compact JSON;
zstd level 3 stores 81 kB in 2 ms, zlib level 6 66 kB in 15-25 ms, zlib level 3
95 kB in 4-6 ms, lzma 44 kB in 450-850 ms. Short series (4-13 hands) shrink about
tenfold with any codec, zstd being the fastest. The codec is recorded per row, so a
later change needs no rewrite of old rows.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from typing import Any, Final

import zstandard

from arena.storage.records import StorageError

ZSTD_JSON: Final = "zstd-json"
"""Codec name: UTF-8 JSON compressed by Zstandard."""
ZSTD_LEVEL: Final = 3


@dataclass(frozen=True)
class EncodedLog:
    """An event log ready to store: ``data`` compressed with ``codec`` from
    ``raw_bytes`` bytes of JSON."""

    codec: str
    raw_bytes: int
    data: bytes


_compressors = threading.local()


def _compressor() -> zstandard.ZstdCompressor:
    """This thread's compressor (a new one per log costs as much as compressing a
    short log; one must not be used by two threads at once)."""
    compressor: zstandard.ZstdCompressor | None = getattr(_compressors, "zstd", None)
    if compressor is None:
        compressor = _compressors.zstd = zstandard.ZstdCompressor(level=ZSTD_LEVEL)
    return compressor


def encode_json_text(text: str) -> EncodedLog:
    """Compress a log that is already JSON text (a migrated release-1 row)."""
    raw = text.encode()
    return EncodedLog(ZSTD_JSON, len(raw), _compressor().compress(raw))


def encode_log(events: list[dict[str, Any]]) -> EncodedLog:
    """Compact JSON of ``events``, compressed."""
    return encode_json_text(json.dumps(events, separators=(",", ":")))


def decode_log(codec: str, data: bytes) -> list[dict[str, Any]]:
    """The events of a stored log; ``StorageError`` for a codec this arena does not know."""
    if codec != ZSTD_JSON:
        raise StorageError(f"event log stored with unknown codec {codec!r}: written by a "
                           "newer arena release?")
    events: list[dict[str, Any]] = json.loads(zstandard.ZstdDecompressor().decompress(data))
    return events
