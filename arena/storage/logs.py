"""Series event logs as stored: compact JSON compressed with Zstandard, in the
``series_logs`` table apart from the (narrow) result rows.

Why Zstandard at level 3: measured on real logs (in-process sample bots), a
random-vs-random series that runs to the 200-hand cap is 1.82 MB of compact JSON;
zstd level 3 stores 81 kB in 2 ms, zlib level 6 66 kB in 15-25 ms, zlib level 3
95 kB in 4-6 ms, lzma 44 kB in 450-850 ms. Short series (4-13 hands) shrink about
tenfold with any codec, zstd being the fastest. The codec is recorded per row, so a
later change needs no rewrite of old rows.

Why orjson writes the JSON: a short series' log (about 30 kB) took 0.74 ms with
``json.dumps`` and takes 0.07 ms with orjson, and writing it is on the path of every
stored series (issue 17: at most 2 ms per series outside play). The standard
library still writes what orjson refuses (an integer beyond 64 bits, a lone
surrogate), so any log that could be stored before still is.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from typing import Any, Final

import orjson
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
    return _encode_json(text.encode())


def _encode_json(raw: bytes) -> EncodedLog:
    return EncodedLog(ZSTD_JSON, len(raw), _compressor().compress(raw))


def encode_log(events: list[dict[str, Any]]) -> EncodedLog:
    """Compact JSON of ``events``, compressed."""
    try:
        # The engine's logs have string keys only; orjson writes them in half the time
        # it takes when it must check every key for OPT_NON_STR_KEYS.
        raw = orjson.dumps(events)
    except orjson.JSONEncodeError:
        try:
            raw = orjson.dumps(events, option=orjson.OPT_NON_STR_KEYS)
        except orjson.JSONEncodeError:
            raw = json.dumps(events, separators=(",", ":")).encode()  # ASCII: escapes all
    return _encode_json(raw)


def encode_document(document: object) -> EncodedLog:
    """Compact JSON of one document (a seat's log: ``arena.storage.seat_logs``),
    compressed as an event log is: a dict, or a dataclass that orjson writes as the
    dict of its fields in their order (no dict built in Python: a seat's log holds
    one per decision)."""
    return _encode_json(orjson.dumps(document))


def decode_document(codec: str, data: bytes) -> dict[str, Any]:
    """The document ``encode_document`` stored."""
    _check_codec(codec)
    document: dict[str, Any] = orjson.loads(zstandard.ZstdDecompressor().decompress(data))
    return document


def _check_codec(codec: str) -> None:
    if codec != ZSTD_JSON:
        raise StorageError(f"log stored with unknown codec {codec!r}: written by a "
                           "newer arena release?")


def decode_log(codec: str, data: bytes) -> list[dict[str, Any]]:
    """The events of a stored log; ``StorageError`` for a codec this arena does not know."""
    _check_codec(codec)
    raw = zstandard.ZstdDecompressor().decompress(data)
    try:
        events: list[dict[str, Any]] = orjson.loads(raw)
    except orjson.JSONDecodeError:  # written by the standard library's fallback
        events = json.loads(raw)
    return events
