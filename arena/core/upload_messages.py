"""The messages of one ``SubmitBot`` upload: a header, then the archive in chunks of
at most ``CHUNK_BYTES`` (what the server accepts per message). Shared by the client
(``arena submit``) and the server's own registration of a folder on its disk."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Final

from hollywood.arena.v1 import arena_pb2

CHUNK_BYTES: Final = 1024 * 1024


def upload_messages(archive: bytes, *, compression: str = "gzip", replace: bool = False
                    ) -> Iterator[arena_pb2.SubmitBotRequest]:
    yield arena_pb2.SubmitBotRequest(header=arena_pb2.SubmitBotHeader(
        compression=compression, replace=replace))
    view = memoryview(archive)
    for start in range(0, len(archive), CHUNK_BYTES):
        yield arena_pb2.SubmitBotRequest(chunk=bytes(view[start:start + CHUNK_BYTES]))
