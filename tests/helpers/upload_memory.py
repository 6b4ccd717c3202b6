"""The server's peak memory while hostile uploads run (issue 25, point 3): shared by
tests/arena/server/test_upload_memory.py and tests/bench/bench_upload_memory.py.

A real arena server runs in its own process; after a warm-up (authors, one honest
upload each, one of the largest archive, one refused bomb: the server at rest
after its first uploads) its peak resident size is reset
(``/proc/PID/clear_refs``), then, all at once: uploads with 1 GiB pax, global pax,
GNU long name and long link headers, zstd frames asking for a 128 MiB window over
90 MiB of zeros, uploads of a 99 MiB file of zeros (within the limits: a 100 KiB
archive), an upload that stalls mid-stream, a crowd of small uploads, honest
uploads of the largest archive allowed (20 MiB, incompressible) and a flood of
wrong tokens. The reading is the peak (``VmHWM``) over the resident size at rest.
"""

from __future__ import annotations

import random
import subprocess
import sys
import tarfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import grpc
from hollywood.arena.v1 import arena_pb2, arena_pb2_grpc

from arena.core.defaults import AUTH_METADATA_KEY
from tests.helpers.hostile_archives import (
    MIB,
    bot_entries,
    end,
    entry,
    extension_bomb,
    gz,
    gzip_stream,
    messages,
    stalled,
    submit,
    wide_window_zstd,
)

AUTHORS = ("alice", "bob", "carol", "dave")
RETRIES = 200
"""Tries of an upload refused for want of a slot."""
STALLER = "erin"
"""Holds a slot with an upload that stalls until the hostile calls are over."""
SERVER_SCRIPT = """
import sys
from pathlib import Path
from typing import Final
from arena.server.app import start_server
running = start_server(Path(sys.argv[1]) / "arena.db", port=0)
print(running.address, running.token, flush=True)
sys.stdin.read()
running.stop(grace=None)
"""


@dataclass(frozen=True)
class MemoryReading:
    idle_kib: int
    peak_kib: int
    outcomes: dict[str, int]
    """How the hostile calls ended: status code name -> count ("OK" for accepted)."""

    @property
    def over_idle_mib(self) -> float:
        return (self.peak_kib - self.idle_kib) / 1024


def _status(pid: int, key: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1])
    raise AssertionError(f"no {key} in /proc/{pid}/status")


def _call(action: Callable[[], object], *, tries: int = 1) -> str:
    """How ``action`` ends (a status code's name, "OK"); an upload refused for want
    of a slot is sent again up to ``tries`` times, as a determined attacker would."""
    for _ in range(tries):
        try:
            action()
        except grpc.RpcError as error:
            if error.code() != grpc.StatusCode.RESOURCE_EXHAUSTED or "upload" not in (
                    error.details() or ""):
                return error.code().name
            time.sleep(0.05)  # pacing the retries of a load generator, not a timing
            continue
        return "OK"
    return grpc.StatusCode.RESOURCE_EXHAUSTED.name


def _add_authors(address: str, admin: str) -> dict[str, str]:
    tokens = {}
    with grpc.insecure_channel(address) as channel:
        stub = arena_pb2_grpc.ArenaServiceStub(channel)
        for name in (*AUTHORS, STALLER):
            response = stub.AddAuthor(arena_pb2.AddAuthorRequest(name=name),
                                      metadata=[(AUTH_METADATA_KEY, f"Bearer {admin}")])
            tokens[name] = response.token
    return tokens


def _wrong_token_call(address: str) -> None:
    # From another address than the uploads ([::1], not 127.0.0.1): the flood
    # exhausts its own address's allowance of failed checks, not theirs.
    port = address.rpartition(":")[2]
    with grpc.insecure_channel(f"[::1]:{port}") as channel:
        arena_pb2_grpc.ArenaServiceStub(channel).ListAuthors(
            arena_pb2.ListAuthorsRequest(),
            metadata=[(AUTH_METADATA_KEY, "Bearer alice." + "A" * 43)], timeout=120)


Call = Callable[[], object]


def _extension_bombs(address: str, tokens: dict[str, str]) -> Iterator[Call]:
    for token in tokens.values():
        for kind in (tarfile.XHDTYPE, tarfile.XGLTYPE, tarfile.GNUTYPE_LONGNAME,
                     tarfile.GNUTYPE_LONGLINK):
            yield lambda t=token, k=kind: submit(  # type: ignore[misc]
                address, t, messages(gzip_stream(extension_bomb(k, 1024 * MIB))))


def _wide_zstd(address: str, tokens: dict[str, str]) -> Iterator[Call]:
    wide = wide_window_zstd(90 * MIB)
    for token in tokens.values():
        yield lambda t=token: submit(address, t, messages([wide], "zstd"))  # type: ignore[misc]


def _zero_files(address: str, tokens: dict[str, str]) -> Iterator[Call]:
    for author, token in tokens.items():
        zeros = gz(bot_entries(f"{author}-zeros"), entry("zeros.bin", bytes(99 * MIB)), end())
        yield lambda t=token, z=zeros: submit(address, t, messages([z]))  # type: ignore[misc]


def _crowd(address: str, tokens: dict[str, str]) -> Iterator[Call]:
    for n in range(10):
        for author, token in tokens.items():
            yield lambda t=token, name=f"{author}-crowd-{n}": submit(  # type: ignore[misc]
                address, t, messages([gz(bot_entries(name), end())]))


def _biggest(address: str, tokens: dict[str, str]) -> Iterator[Call]:
    payload = random.Random(7).randbytes(19 * MIB + MIB // 2)
    for author, token in tokens.items():
        biggest = gz(bot_entries(f"{author}-biggest"), entry("weights.bin", payload), end())
        yield lambda t=token, b=biggest: submit(address, t, messages([b]))  # type: ignore[misc]


def _wrong_tokens(address: str, tokens: dict[str, str]) -> Iterator[Call]:
    for _ in range(30):
        yield lambda: _wrong_token_call(address)


HOSTILE: Final[dict[str, Callable[[str, dict[str, str]], Iterator[Call]]]] = {
    "1 GiB extension headers": _extension_bombs,
    "zstd asking for a 128 MiB window": _wide_zstd,
    "99 MiB files of zeros": _zero_files,
    "40 small uploads at once": _crowd,
    "the largest archives (20 MiB each)": _biggest,
    "30 wrong tokens": _wrong_tokens,
}
"""The hostile calls by class; every class also runs beside an upload that stalls
(holding one of the server's 4 upload slots)."""


def measure_hostile_uploads(root: Path, classes: tuple[str, ...] = tuple(HOSTILE),
                            threads: int = 24) -> MemoryReading:
    """Start a server under ``root``, warm it up, and read its memory while a
    stalled upload and the hostile calls of ``classes`` (keys of ``HOSTILE``) run
    ``threads`` at a time."""
    server = subprocess.Popen([sys.executable, "-c", SERVER_SCRIPT, str(root)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None
        listening, admin = server.stdout.readline().split()
        address = f"127.0.0.1:{listening.rpartition(':')[2]}"
        tokens = _add_authors(address, admin)
        staller = tokens.pop(STALLER)
        warm = random.Random(8).randbytes(19 * MIB + MIB // 2)
        for author, token in tokens.items():  # warm-up: every code path once
            submit(address, token, messages([gz(bot_entries(f"{author}-warm"), end())]))
        submit(address, admin, messages([gz(bot_entries("warm-biggest"),
                                            entry("weights.bin", warm), end())]))
        _call(lambda: submit(address, admin, messages(gzip_stream(
            extension_bomb(tarfile.XHDTYPE, 8 * MIB)))))
        Path(f"/proc/{server.pid}/clear_refs").write_text("5")  # peak := now
        idle = _status(server.pid, "VmRSS")
        release = threading.Event()
        calls = [call for name in classes for call in HOSTILE[name](address, tokens)]
        with ThreadPoolExecutor(threads) as pool:
            stall = pool.submit(_call, lambda: submit(address, staller, stalled(
                gz(bot_entries("stalled"), end()), release)), tries=RETRIES)
            rest = [pool.submit(_call, call, tries=RETRIES) for call in calls]
            outcomes = Counter(future.result() for future in rest)
            release.set()
            outcomes[stall.result()] += 1
        peak = _status(server.pid, "VmHWM")
        return MemoryReading(idle, peak, dict(outcomes))
    finally:
        if server.stdin is not None:
            server.stdin.close()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
