"""Stored event logs (arena.storage.logs): what is stored is read back unchanged,
whatever the events hold, and the stored bytes are compact JSON under Zstandard."""

from __future__ import annotations

import json

import pytest
import zstandard

from arena.storage.logs import ZSTD_JSON, decode_log, encode_json_text, encode_log
from arena.storage.records import StorageError

EVENTS = [
    {"type": "deal", "hand": 1, "cards": ["AS", "10H"], "name": "Ünïcode bot ✓"},
    {"type": "knock", "seat": 0, "deadwood": 7, "think": 0.125, "nested": {"a": [1, 2]}},
]


def test_a_log_is_stored_as_compact_json_and_read_back() -> None:
    encoded = encode_log(EVENTS)
    assert encoded.codec == ZSTD_JSON
    raw = zstandard.ZstdDecompressor().decompress(encoded.data)
    assert encoded.raw_bytes == len(raw)
    assert b", " not in raw and b": " not in raw  # compact separators
    assert json.loads(raw) == EVENTS
    assert decode_log(encoded.codec, encoded.data) == EVENTS


def test_values_the_fast_encoder_refuses_are_stored_as_the_standard_library_writes_them(
) -> None:
    # An integer beyond 64 bits and a lone surrogate (a Python str can hold one).
    events = [{"huge": 2**70, "text": "half \ud800 a pair"}]
    encoded = encode_log(events)
    assert decode_log(encoded.codec, encoded.data) == events


def test_integer_keys_become_strings_as_in_json() -> None:
    encoded = encode_log([{"scores": {1: 25, 2: 0}, "bot": "✓"}])
    assert decode_log(encoded.codec, encoded.data) == [{"scores": {"1": 25, "2": 0},
                                                        "bot": "✓"}]
    # Still the fast encoder's UTF-8, not the standard library's ASCII escapes.
    assert "✓".encode() in zstandard.ZstdDecompressor().decompress(encoded.data)


def test_a_release_one_log_text_is_read_back() -> None:
    text = '[{"type":"deal","hand":1}]'
    encoded = encode_json_text(text)
    assert encoded.raw_bytes == len(text)
    assert decode_log(encoded.codec, encoded.data) == [{"type": "deal", "hand": 1}]


def test_an_unknown_codec_is_refused_by_name() -> None:
    with pytest.raises(StorageError, match="unknown codec 'brotli-json'"):
        decode_log("brotli-json", b"")
