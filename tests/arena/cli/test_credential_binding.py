"""Credentials go only where they belong (issue 26 point 3), with real servers: the
admin token that ``arena serve`` writes next to its database is sent only to the
server that wrote it — never to a second server, nor to another server answering
at its recorded address (it cannot prove that it holds the token) — and a token
that ``arena login`` stored for one server is never sent to another. Server B and
the impostor record the metadata of every call they receive."""

from __future__ import annotations

import hashlib
import ipaddress
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from hollywood.arena.v1 import arena_pb2, arena_pb2_grpc

from arena.cli import main
from arena.core.token_binding import (
    IpAddress,
    ServerRecord,
    admin_token_proof,
    read_server_record,
    served_addresses,
    write_server_record,
)
from arena.server.app import RunningServer, start_server
from tests.helpers.fake_runner import run_fake_series


class Recorder(grpc.ServerInterceptor):
    """Keeps (method, authorization header) of every call the server receives."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str | None]] = []

    def intercept_service(self, continuation: Callable[[Any], Any], details: Any) -> Any:
        headers = dict(details.invocation_metadata or ())
        self.calls.append((details.method.rsplit("/", 1)[-1], headers.get("authorization")))
        return continuation(details)

    def tokens_received(self) -> list[str]:
        return [header for _method, header in self.calls if header is not None]


def serve(db: Path, recorder: Recorder | None = None, port: int = 0) -> RunningServer:
    return start_server(db, port=port, runner_factory=lambda config: run_fake_series,
                        interceptors=[recorder] if recorder else [])


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The organiser's folder: `arena serve` runs on its .arena/arena.db."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    for name in ("ARENA_TOKEN", "ARENA_SERVER", "ARENA_TLS_CA"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def server_a(home: Path) -> Iterator[RunningServer]:
    running = serve(Path(".arena") / "arena.db")
    yield running
    running.stop(grace=None)


@pytest.fixture
def server_b(home: Path) -> Iterator[tuple[RunningServer, Recorder]]:
    recorder = Recorder()
    running = serve(home / "elsewhere" / "arena.db", recorder)
    yield running, recorder
    running.stop(grace=None)


def test_the_local_admin_token_goes_to_its_own_server_only(
        server_a: RunningServer, server_b: tuple[RunningServer, Recorder],
        capsys: pytest.CaptureFixture[str]) -> None:
    b, recorder = server_b
    assert main(["authors", "add", "ann", "--server", server_a.address]) == 0  # its own
    capsys.readouterr()
    code = main(["authors", "add", "bob", "--server", b.address])
    err = capsys.readouterr().err
    assert code == 2
    port = server_a.port
    assert (f"the local admin token file .arena/admin.token was held back: it belongs to "
            f"the server at localhost:{port}, 127.0.0.1:{port}, [::1]:{port} (recorded in "
            f".arena/arena.server.json), not to {b.address}") in err
    assert "--token-file .arena/admin.token" in err
    assert main(["bots", "list", "--server", b.address]) == 0  # reads still work
    assert recorder.calls == [("ListBots", None)]
    assert server_a.token not in str(recorder.calls)


def test_a_server_answering_at_the_recorded_address_must_prove_it_holds_the_token(
        home: Path, server_a: RunningServer, capsys: pytest.CaptureFixture[str]) -> None:
    address, port = server_a.address, server_a.port
    server_a.stop(grace=None)
    recorder = Recorder()
    impostor = serve(home / "impostor" / "arena.db", recorder, port=port)
    try:
        code = main(["authors", "add", "ann", "--server", address])
        err = capsys.readouterr().err
    finally:
        impostor.stop(grace=None)
    assert code == 2
    assert (f"the local admin token file .arena/admin.token was held back: the server at "
            f"{address} could not prove that it holds it") in err
    assert recorder.calls == [("ProveAdminToken", None)]
    assert server_a.token not in str(recorder.calls)


def test_an_unrecorded_server_never_gets_the_local_token(
        home: Path, server_b: tuple[RunningServer, Recorder],
        capsys: pytest.CaptureFixture[str]) -> None:
    b, recorder = server_b
    local = home / ".arena" / "admin.token"
    local.parent.mkdir()
    local.write_text("admin_written-by-an-older-server\n")
    assert main(["authors", "add", "ann", "--server", b.address]) == 2
    assert ("the local admin token file .arena/admin.token was held back: no record of "
            "the server it belongs to (.arena/arena.server.json is missing") in (
        capsys.readouterr().err)
    assert recorder.calls == []


def test_a_token_stored_for_one_server_is_never_sent_to_another(
        home: Path, server_b: tuple[RunningServer, Recorder],
        capsys: pytest.CaptureFixture[str]) -> None:
    b, recorder = server_b
    stored = home / "token.txt"
    stored.write_text("ann.secret-for-a\n")
    assert main(["login", "--server", "arena-a.example:50551", "--token-file",
                 str(stored), "--no-check"]) == 0
    code = main(["authors", "add", "bob", "--server", b.address])
    err = capsys.readouterr().err
    assert code == 2 and "UNAUTHENTICATED" in err
    assert ("holds tokens for arena-a.example:50551 only, and a token stored for one "
            "server is never sent to another") in err
    assert recorder.calls == [("AddAuthor", None)]


def test_naming_the_token_file_sends_it_where_the_user_says(
        server_a: RunningServer, server_b: tuple[RunningServer, Recorder],
        capsys: pytest.CaptureFixture[str]) -> None:
    b, recorder = server_b
    assert main(["authors", "add", "bob", "--server", b.address,
                 "--token-file", ".arena/admin.token"]) == 2
    assert "wrong admin token" in capsys.readouterr().err
    assert recorder.tokens_received() == [f"Bearer {server_a.token}"]


def resolver(table: dict[str, tuple[str, ...]]) -> Callable[[str], frozenset[IpAddress]]:
    return lambda name: frozenset(ipaddress.ip_address(a) for a in table.get(name, ()))


def test_the_record_names_the_addresses_a_server_listens_on(tmp_path: Path) -> None:
    both = {ipaddress.ip_address("127.0.0.1"), ipaddress.ip_address("::1")}
    ipv4 = {ipaddress.ip_address("127.0.0.1")}
    hosts = resolver({"localhost": ("127.0.0.1", "::1"), "arena.example": ("10.1.2.3",),
                      "two.example": ("10.1.2.3", "10.9.9.9")})
    assert served_addresses("localhost", 7, both, hosts) == [
        "localhost:7", "127.0.0.1:7", "[::1]:7"]
    # [::1]:7 held by another process: neither it nor localhost (which may reach it).
    assert served_addresses("localhost", 7, ipv4, hosts) == ["127.0.0.1:7"]
    assert served_addresses("127.0.0.1", 7, ipv4, hosts) == ["127.0.0.1:7"]
    assert served_addresses("0.0.0.0", 7, both, hosts) == ["localhost:7", "127.0.0.1:7", "[::1]:7"]
    lan = {ipaddress.ip_address("10.1.2.3")}
    assert served_addresses("10.1.2.3", 7, lan, hosts) == ["10.1.2.3:7"]
    assert served_addresses("Arena.Example", 7, lan, hosts) == ["arena.example:7", "10.1.2.3:7"]
    assert served_addresses("two.example", 7, lan, hosts) == ["10.1.2.3:7"]
    assert served_addresses("localhost", 7, set(), hosts) == []
    record = ServerRecord(("localhost:7", "[::1]:7", "10.1.2.3:7"), tls=True)
    write_server_record(tmp_path / "r.json", record)
    assert read_server_record(tmp_path / "r.json") == record
    assert [record.serves(t) for t in ("LOCALHOST:7", "ipv6:[::1]:7", "10.1.2.3:7",
                                       "localhost:8", "127.0.0.1:7", "10.1.2.3")] == [
        True, True, True, False, False, False]
    (tmp_path / "bad.json").write_text("{")
    assert read_server_record(tmp_path / "bad.json") is None


def test_the_proof_is_an_hmac_sha256_of_the_address_and_the_challenge() -> None:
    # RFC 2104 by hand: H((K ^ opad) || H((K ^ ipad) || message)), K padded to 64 bytes.
    key = b"admin_token".ljust(64, b"\0")
    message = (b"hollywood-arena: this server holds the admin token, v2\0" + b"\x00\x0f"
               + b"127.0.0.1:50551" + b"c" * 32)
    inner = hashlib.sha256(bytes(k ^ 0x36 for k in key) + message).digest()
    expected = hashlib.sha256(bytes(k ^ 0x5C for k in key) + inner).digest()
    assert admin_token_proof("admin_token", "127.0.0.1:50551", b"c" * 32) == expected
    assert admin_token_proof("admin_token", "127.0.0.1:50551", b"d" * 32) != expected
    assert admin_token_proof("admin_token", "[::1]:50551", b"c" * 32) != expected


def test_the_server_proves_its_token_and_refuses_a_challenge_of_the_wrong_size(
        server_a: RunningServer) -> None:
    address = server_a.address
    with grpc.insecure_channel(address) as channel:
        stub = arena_pb2_grpc.ArenaServiceStub(channel)
        challenge = bytes(range(32))
        answer = stub.ProveAdminToken(
            arena_pb2.ProveAdminTokenRequest(challenge=challenge, address=address), timeout=20)
        assert answer.proof == admin_token_proof(server_a.token, address, challenge)
        assert answer.proof != admin_token_proof("admin_another", address, challenge)
        for size in (0, 15, 65):
            with pytest.raises(grpc.RpcError) as refused:
                stub.ProveAdminToken(arena_pb2.ProveAdminTokenRequest(
                    challenge=b"x" * size, address=address), timeout=20)
            assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        for elsewhere in ("", f"localhost:{server_a.port + 1}", "10.1.2.3:50551"):
            with pytest.raises(grpc.RpcError) as refused:
                stub.ProveAdminToken(arena_pb2.ProveAdminTokenRequest(
                    challenge=challenge, address=elsewhere), timeout=20)
            assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
            assert "proves its token only for an address it listens on" in (
                refused.value.details())
