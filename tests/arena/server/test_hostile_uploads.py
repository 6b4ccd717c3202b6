"""Hostile uploads (issue 25, point 3): no author can hold up another. Huge or
chained tar extension headers (pax, GNU long names and links) are refused with
INVALID_ARGUMENT naming the header before the server reads them; an upload that
stalls ends, stores nothing and frees its slot; an author at its limit of uploads
at once does not block another author. (Peak memory: test_upload_memory.py.)"""

from __future__ import annotations

import tarfile
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import grpc
import pytest
from hollywood.arena.v1 import arena_pb2

from arena.server.app import RunningServer
from arena.server.upload_stream import idle_limited
from arena.server.uploads import UploadLimits, UploadRefused
from arena.storage import add_author, bundles_dir
from tests.helpers.hostile_archives import (
    bot_entries,
    end,
    entry,
    extension_bomb,
    gz,
    gzip_stream,
    header,
    messages,
    pax_records,
    refusal,
    stalled,
    submit,
)
from tests.helpers.polling import wait_until
from tests.helpers.servers import ServerFactory

GIB = 1024 * 1024 * 1024
LIMIT_TEXT = "at most 65536 bytes allowed (a bot's paths are far shorter)"
AFTER_BOT = 3 * 1024
"""Where the entry after ``bot_entries()`` starts: 3 files of one block each."""


def stored_nothing(running: RunningServer) -> bool:
    bundles = bundles_dir(running.storage)
    kept = [p for p in bundles.rglob("*") if p.is_file()] if bundles.exists() else []
    return not running.storage.list_bots() and not kept


def with_header(kind: bytes, content: bytes) -> bytes:
    """``bot_entries()``, then an extension header of ``kind`` holding ``content``,
    then a file."""
    return (bot_entries() + entry("ext", content, kind) + entry("after.py", b"x = 1\n")
            + end())


def bad_checksum() -> bytes:
    block = bytearray(header("after.py", size=0))
    block[0:1] = b"b"  # the name changes, the stored checksum does not
    return bot_entries() + bytes(block) + end()


def negative_size() -> bytes:
    block = bytearray(header("after.py", size=0))
    block[124:136] = b"\xff" * 12
    block[148:156] = b" " * 8
    block[148:155] = f"{sum(block):06o}\0".encode()
    return bot_entries() + bytes(block) + end()


BOMBS = {
    "pax-1-over": (lambda: iter([with_header(tarfile.XHDTYPE, b"1" * (64 * 1024 + 1))]),
                   f"a pax extended header of 65537 bytes at byte {AFTER_BOT}: {LIMIT_TEXT}"),
    "pax-1gib": (lambda: extension_bomb(tarfile.XHDTYPE, GIB),
                 f"a pax extended header of {GIB} bytes at byte {AFTER_BOT}: {LIMIT_TEXT}"),
    "pax-global-1gib": (lambda: extension_bomb(tarfile.XGLTYPE, GIB),
                        f"a pax global header of {GIB} bytes at byte {AFTER_BOT}: "
                        f"{LIMIT_TEXT}"),
    "solaris-1gib": (lambda: extension_bomb(b"X", GIB),
                     f"a Solaris extended header of {GIB} bytes at byte {AFTER_BOT}"),
    "gnu-long-name-1gib": (lambda: extension_bomb(tarfile.GNUTYPE_LONGNAME, GIB),
                           f"a GNU long name of {GIB} bytes at byte {AFTER_BOT}: "
                           f"{LIMIT_TEXT}"),
    "gnu-long-link-1gib": (lambda: extension_bomb(tarfile.GNUTYPE_LONGLINK, GIB),
                           f"a GNU long link of {GIB} bytes at byte {AFTER_BOT}"),
    "chain-of-5": (lambda: iter([bot_entries() + b"".join(
        entry("ext", pax_records(comment=str(n)), tarfile.XHDTYPE) for n in range(5))
        + entry("after.py", b"x = 1\n") + end()]),
        f"more than 4 extension headers in a row at byte {AFTER_BOT + 4 * 1024}: at most 4 "
        "before an entry"),
    "sparse": (lambda: iter([bot_entries() + entry("holes", b"", tarfile.GNUTYPE_SPARSE)
                             + end()]),
               f"the tar entry at byte {AFTER_BOT} is a GNU sparse file"),
    "pax-sparse": (lambda: iter([with_header(tarfile.XHDTYPE, pax_records(
        **{"GNU.sparse.major": "1", "GNU.sparse.map": "0,10"}))]),
        f"the pax header at byte {AFTER_BOT} sets 'GNU.sparse.major': sparse files"),
    "pax-size": (lambda: iter([with_header(tarfile.XHDTYPE, pax_records(size="99999999"))]),
                 f"the pax header at byte {AFTER_BOT} sets 'size'"),
    "bad-checksum": (lambda: iter([bad_checksum()]),
                     f"the tar header at byte {AFTER_BOT} cannot be read (bad checksum or "
                     "size field)"),
    "negative-size": (lambda: iter([negative_size()]),
                      f"the tar header at byte {AFTER_BOT} cannot be read"),
}


@pytest.mark.parametrize("case", sorted(BOMBS))
def test_huge_or_odd_tar_headers_are_refused_naming_the_header(
        server: RunningServer, case: str) -> None:
    parts, expected = BOMBS[case]
    error = refusal(server.address, server.token, messages(gzip_stream(parts())))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT, error.details()
    assert expected in error.details(), error.details()
    assert stored_nothing(server)


def test_ordinary_extension_headers_still_upload(server: RunningServer) -> None:
    long_path = "d" * 120 + "/" + "f" * 120 + ".py"
    gnu_path = "g" * 120 + "/" + "h" * 120 + ".py"
    archive = gz(
        entry("global", pax_records(comment="made by hand"), tarfile.XGLTYPE),
        bot_entries(),
        b"".join(entry("ext", pax_records(comment=str(n)), tarfile.XHDTYPE) for n in range(4)),
        entry("chained.py", b"c = 4\n"),
        header(long_path, size=6, tar_format=tarfile.PAX_FORMAT) + b"p = 1\n".ljust(512, b"\0"),
        header(gnu_path, size=6, tar_format=tarfile.GNU_FORMAT) + b"g = 1\n".ljust(512, b"\0"),
        # A folder in the old style, with a size but (as tar reads it) no data.
        header("old-style-folder/", tarfile.AREGTYPE, size=512),
        entry("old-style-folder/inside.py", b"i = 1\n"),
        end())
    response = submit(server.address, server.token, messages([archive]))
    assert response.created
    folder = server.storage.get_bot("tiny@1.0.0").folder
    assert (folder / long_path).read_bytes() == b"p = 1\n"
    assert (folder / gnu_path).read_bytes() == b"g = 1\n"
    assert (folder / "chained.py").read_bytes() == b"c = 4\n"
    assert (folder / "old-style-folder" / "inside.py").read_bytes() == b"i = 1\n"


def incoming_is_empty(running: RunningServer) -> bool:
    incoming = bundles_dir(running.storage) / ".incoming"
    return not incoming.exists() or not any(incoming.iterdir())


def test_a_stalled_upload_ends_stores_nothing_and_frees_its_slot(serve: ServerFactory) -> None:
    # A tiny idle limit: the uploads below stall for good, so the verdict does not
    # depend on how fast the machine is.
    running = serve(upload_limits=UploadLimits(concurrent=1, idle_seconds=0.2))
    never = threading.Event()
    try:
        archive = gz(bot_entries(), end())
        for attempt in range(2):  # the second finds the slot the first held free
            error = refusal(running.address, running.token, stalled(archive, never))
            assert error.code() == grpc.StatusCode.DEADLINE_EXCEEDED, (attempt, error)
            assert error.details() == ("no bytes for 0.2 s: the upload was ended and nothing "
                                       "was stored; send it again")
            assert stored_nothing(running)
            wait_until(lambda: running.service.upload_slots.in_use == 0,
                       what="the stalled upload's slot to be freed")
            wait_until(lambda: incoming_is_empty(running),
                       what="the stalled upload's staging folder to be removed")
            # The server's reader of the silent stream ends with the call.
            wait_until(lambda: not readers(), what="the upload's reader thread to end")
    finally:
        never.set()


def test_an_upload_stalled_after_its_header_ends_too(serve: ServerFactory) -> None:
    running = serve(upload_limits=UploadLimits(idle_seconds=0.2))
    never = threading.Event()

    def header_only() -> Iterator[object]:
        yield from list(messages([]))[:1]
        never.wait(timeout=60)

    try:
        error = refusal(running.address, running.token, header_only())  # type: ignore[arg-type]
        assert error.code() == grpc.StatusCode.DEADLINE_EXCEEDED
        assert "no bytes for 0.2 s" in error.details()
        wait_until(lambda: running.service.upload_slots.in_use == 0,
                   what="the stalled upload's slot to be freed")
    finally:
        never.set()


@pytest.fixture
def patient_server(serve: ServerFactory) -> RunningServer:
    """A server whose idle limit never ends the stalled uploads of a test, however
    slow the machine."""
    return serve(upload_limits=UploadLimits(idle_seconds=600.0))


def test_an_author_at_its_upload_limit_does_not_block_another_author(
        patient_server: RunningServer) -> None:
    server = patient_server
    _, alice = add_author(server.storage, "alice")
    _, bob = add_author(server.storage, "bob")
    release = threading.Event()
    slots = server.service.upload_slots
    with ThreadPoolExecutor(2) as pool:
        try:
            held = [pool.submit(submit, server.address, alice,
                                stalled(gz(bot_entries(f"alice-{n}"), end()), release))
                    for n in range(2)]
            wait_until(lambda: slots.of("alice") == 2, what="alice to hold 2 upload slots")
            error = refusal(server.address, alice, messages([gz(bot_entries("alice-3"), end())]))
            assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert error.details() == ("author alice is sending 2 uploads, the limit at once "
                                       "per author: wait for one to finish")
            response = submit(server.address, bob, messages([gz(bot_entries("bobs"), end())]))
            assert response.created and response.bot.owner == "bob"
            admins = submit(server.address, server.token,
                            messages([gz(bot_entries("admins"), end())]))
            assert admins.created
        finally:
            release.set()
        assert sorted(future.result(timeout=60).bot.id for future in held) == [
            "alice-0@1.0.0", "alice-1@1.0.0"]
    assert slots.in_use == 0


class FakeClock:
    def __init__(self) -> None:
        self.now = 50.0

    def __call__(self) -> float:
        return self.now


def test_an_upload_that_trickles_past_its_total_time_ends() -> None:
    clock = FakeClock()
    trickle = iter(range(100))  # always a message ready: never idle
    with idle_limited(trickle, UploadLimits(total_seconds=10.0), clock) as stream:
        assert [next(stream), next(stream)] == [0, 1]
        clock.now += 9.5
        assert next(stream) == 2
        clock.now += 0.5
        with pytest.raises(UploadRefused) as caught:
            next(stream)
    assert caught.value.code == grpc.StatusCode.DEADLINE_EXCEEDED
    assert caught.value.message == ("the upload took over 10 s, the limit: the upload was "
                                    "ended and nothing was stored; send it again")


def test_the_stream_ends_and_fails_as_the_requests_do() -> None:
    with idle_limited(iter(["a"]), UploadLimits()) as stream:
        assert list(stream) == ["a"]
        assert list(stream) == []  # and stays ended

    def failing() -> Iterator[str]:
        yield "a"
        raise ValueError("decoding failed")

    with idle_limited(failing(), UploadLimits()) as stream:
        assert next(stream) == "a"
        with pytest.raises(ValueError, match="decoding failed"):
            next(stream)


def readers() -> set[threading.Thread]:
    return {thread for thread in threading.enumerate() if thread.name == "upload-reader"}


def test_closing_lets_the_reader_thread_end() -> None:
    before = readers()
    endless = iter(range(10**9))
    with idle_limited(endless, UploadLimits()) as stream:
        assert next(stream) == 0
        assert readers() - before
    wait_until(lambda: not readers() - before,
               what="the reader thread to end once the stream is closed")


def test_the_idle_limit_is_a_server_setting(monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    from arena.cli import main
    from arena.server import app

    seen: list[UploadLimits] = []

    def fake_start(*args: object, upload_limits: UploadLimits, **kwargs: object) -> None:
        seen.append(upload_limits)
        raise RuntimeError("not starting in a test")

    monkeypatch.setattr(app, "start_server", fake_start)
    assert main(["serve", "--upload-idle-seconds", "7.5", "--db", "unused.db"]) == 1
    assert seen == [UploadLimits(idle_seconds=7.5)]
    assert main(["serve"]) == 1
    assert seen[-1].idle_seconds == 30.0
    with pytest.raises(SystemExit):
        main(["serve", "--upload-idle-seconds", "0"])
    assert "--upload-idle-seconds: must be more than 0, got 0" in capsys.readouterr().err


@pytest.mark.parametrize("limits", [
    {"concurrent": 0}, {"per_author": 0}, {"idle_seconds": 0.0},
    {"total_seconds": float("nan")}])
def test_upload_limits_refuse_nonsense(limits: dict[str, float]) -> None:
    with pytest.raises(ValueError, match="upload limits need at least 1 upload at once"):
        UploadLimits(**limits)  # type: ignore[arg-type]


def test_an_author_never_holds_every_slot() -> None:
    from arena.server.uploads import UploadSlots

    assert UploadSlots(UploadLimits(concurrent=4, per_author=9)).per_author == 3
    assert UploadSlots(UploadLimits(concurrent=1, per_author=2)).per_author == 1
    assert UploadSlots(UploadLimits()).per_author == 2


def test_a_message_refused_at_the_door_mid_upload_ends_it_with_the_doors_reason(
        server: RunningServer) -> None:
    # The door's check runs on the upload's reader thread: its refusal still
    # reaches the client as it is, and frees the slot.
    def oversized() -> Iterator[object]:
        yield from messages([gz(bot_entries(), end())])
        yield arena_pb2.SubmitBotRequest(chunk=b"\0" * (1024 * 1024 + 1))

    error = refusal(server.address, server.token, oversized())  # type: ignore[arg-type]
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert error.details() == "SubmitBotRequest.chunk: 1048577 bytes, at most 1048576 allowed"
    assert stored_nothing(server)
    wait_until(lambda: server.service.upload_slots.in_use == 0, what="the slot to be freed")
