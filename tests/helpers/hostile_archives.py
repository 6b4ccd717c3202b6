"""Hostile uploads for the upload tests and the upload memory bench: tar streams
with huge or chained extension headers (pax, GNU long names and links), sparse
files, zstd frames asking for a wide window, and uploads that stall mid-stream.
Big archives are compressed while they are sent, so the client never holds them."""

from __future__ import annotations

import io
import tarfile
import threading
import zlib
from collections.abc import Iterable, Iterator

import grpc
import zstandard
from hollywood.arena.v1 import arena_pb2, arena_pb2_grpc

from arena.core.defaults import AUTH_METADATA_KEY
from arena.core.upload_messages import CHUNK_BYTES

MIB = 1024 * 1024
GOOD_TOML = (b'name = "tiny"\nversion = "1.0.0"\nlanguage = "python"\n'
             b'[run]\ncommand = ["python3", "-m", "tiny"]\n')


def bot_toml(name: str, version: str = "1.0.0") -> bytes:
    return GOOD_TOML.replace(b'"tiny"', f'"{name}"'.encode(), 1).replace(
        b'"1.0.0"', f'"{version}"'.encode(), 1)


def header(name: str, kind: bytes = tarfile.REGTYPE, size: int = 0,
           tar_format: int = tarfile.USTAR_FORMAT) -> bytes:
    """One tar header block (or more, for a long name in GNU or pax format)."""
    info = tarfile.TarInfo(name)
    info.type, info.size, info.mode = kind, size, 0o644
    return info.tobuf(format=tar_format)


def entry(name: str, data: bytes = b"", kind: bytes = tarfile.REGTYPE) -> bytes:
    padding = -len(data) % tarfile.BLOCKSIZE
    return header(name, kind, len(data)) + data + b"\0" * padding


def pax_records(**records: str) -> bytes:
    """The content of a pax header: ``"%d key=value\\n"`` records."""
    out = b""
    for key, value in records.items():
        body = f" {key}={value}\n".encode()
        length = len(body) + 1
        while len(str(length).encode()) + len(body) != length:
            length += 1
        out += str(length).encode() + body
    return out


def bot_entries(name: str = "tiny", version: str = "1.0.0") -> bytes:
    return (entry("bot.toml", bot_toml(name, version))
            + entry("Dockerfile", b"FROM python:3.11-slim\n") + entry("tiny.py", b"pass\n"))


def end() -> bytes:
    return b"\0" * (2 * tarfile.BLOCKSIZE)


def gz(*parts: bytes) -> bytes:
    return b"".join(gzip_stream(parts))


def gzip_stream(parts: Iterable[bytes]) -> Iterator[bytes]:
    """``parts`` as one gzip stream, compressed as they come."""
    compressor = zlib.compressobj(6, zlib.DEFLATED, 31)
    for part in parts:  # flushed part by part: a bomb's header goes out at once
        yield compressor.compress(part) + compressor.flush(zlib.Z_SYNC_FLUSH)
    yield compressor.flush()


def ones(size: int) -> Iterator[bytes]:
    """``size`` bytes of b"1", a MiB at a time."""
    while size > 0:
        yield b"1" * min(size, MIB)
        size -= MIB


def extension_bomb(kind: bytes, size: int) -> Iterator[bytes]:
    """A bot's files, then an extension header of ``kind`` claiming ``size`` bytes
    (and holding them), then a file: gzip'd, a few KiB per MiB of header."""
    yield bot_entries()
    yield header("bomb", kind, size)
    yield from ones(size)
    yield b"\0" * (-size % tarfile.BLOCKSIZE)
    yield entry("after.py", b"x = 1\n")
    yield end()


def wide_window_zstd(unpacked: int) -> bytes:
    """A zstd tar whose frame asks for a 128 MiB window, holding a file of
    ``unpacked`` zero bytes (the decoder fills its window as it goes)."""
    params = zstandard.ZstdCompressionParameters.from_level(3, window_log=27)
    buffer = io.BytesIO()
    with zstandard.ZstdCompressor(compression_params=params).stream_writer(
            buffer, closefd=False) as writer:
        writer.write(bot_entries() + header("zeros.bin", size=unpacked))
        for _ in range(unpacked // MIB):
            writer.write(b"\0" * MIB)
        writer.write(end())
    return buffer.getvalue()


def messages(compressed: Iterable[bytes], compression: str = "gzip"
             ) -> Iterator[arena_pb2.SubmitBotRequest]:
    """An upload's messages: the header, then each part of ``compressed`` as it
    comes, in chunks of at most ``CHUNK_BYTES``."""
    yield arena_pb2.SubmitBotRequest(header=arena_pb2.SubmitBotHeader(compression=compression))
    for part in compressed:
        for start in range(0, len(part), CHUNK_BYTES):
            yield arena_pb2.SubmitBotRequest(chunk=part[start:start + CHUNK_BYTES])


def stalled(archive: bytes, release: threading.Event) -> Iterator[arena_pb2.SubmitBotRequest]:
    """An upload that sends its header and half its archive, then nothing until
    ``release`` is set (or 60 s pass), then the rest."""
    half = len(archive) // 2
    yield arena_pb2.SubmitBotRequest(header=arena_pb2.SubmitBotHeader(compression="gzip"))
    yield arena_pb2.SubmitBotRequest(chunk=archive[:half])
    release.wait(timeout=60)
    yield arena_pb2.SubmitBotRequest(chunk=archive[half:])


def submit(address: str, token: str, requests: Iterator[arena_pb2.SubmitBotRequest]
           ) -> arena_pb2.SubmitBotResponse:
    with grpc.insecure_channel(address) as channel:
        stub = arena_pb2_grpc.ArenaServiceStub(channel)
        response: arena_pb2.SubmitBotResponse = stub.SubmitBot(
            requests, metadata=[(AUTH_METADATA_KEY, f"Bearer {token}")], timeout=120)
        return response


def refusal(address: str, token: str, requests: Iterator[arena_pb2.SubmitBotRequest]
            ) -> grpc.RpcError:
    """The error an upload ends with (AssertionError if it is accepted)."""
    try:
        submit(address, token, requests)
    except grpc.RpcError as error:
        return error
    raise AssertionError("the upload was accepted")
