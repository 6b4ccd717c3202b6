"""The admin token's proof is bound (issue 43 point 4), with `arena serve` in a
process of its own and an impostor listening on an address of the same port that
the server does not hold. The server records only the addresses its sockets take
(``--host localhost`` with ``[::1]:PORT`` taken binds 127.0.0.1 alone, and records
just that); and the impostor, which relays each challenge to the real server, gets
no token: not by relaying the challenge as it came (the server proves its token
only for an address it listens on), nor by naming the server's own address (the
proof then covers that address, not the one the client dialed). The impostor
records the metadata of every call it receives."""

from __future__ import annotations

import ipaddress
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from concurrent import futures
from pathlib import Path
from typing import Any

import grpc
import pytest
from hollywood.arena.v1 import arena_pb2, arena_pb2_grpc

from arena.cli import main
from arena.core.token_binding import (
    ServerRecord,
    read_server_record,
    server_record_path_for,
    write_server_record,
)
from arena.server.listening import reachable_addresses, resolve, unbound
from tests.helpers.polling import wait_until
from tests.helpers.ports import free_port

RECORD = server_record_path_for(Path(".arena") / "arena.db")


class Recorder(grpc.ServerInterceptor):
    """Keeps (method, authorization header) of every call the impostor receives."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str | None]] = []

    def intercept_service(self, continuation: Callable[[Any], Any], details: Any) -> Any:
        headers = dict(details.invocation_metadata or ())
        self.calls.append((details.method.rsplit("/", 1)[-1], headers.get("authorization")))
        return continuation(details)


class RelayingImpostor(arena_pb2_grpc.ArenaServiceServicer):
    """Answers ``ProveAdminToken`` with the real server's answer to the same
    challenge, naming the address the client sent (``rename`` False) or the real
    server's own."""

    def __init__(self, real: str) -> None:
        self.real = real
        self.rename = False
        self.relayed: list[str] = []
        """What the real server answered each relayed challenge: "proof" or its refusal."""

    def ProveAdminToken(self, request: Any, context: grpc.ServicerContext) -> Any:
        address = self.real if self.rename else request.address
        with grpc.insecure_channel(self.real) as channel:
            try:
                answer = arena_pb2_grpc.ArenaServiceStub(channel).ProveAdminToken(
                    arena_pb2.ProveAdminTokenRequest(challenge=request.challenge,
                                                     address=address), timeout=30)
            except grpc.RpcError as error:
                self.relayed.append(f"{error.code().name}: {error.details()}")
                context.abort(error.code(), error.details())
        self.relayed.append("proof")
        return answer


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The organiser's folder: `arena serve` runs on its .arena/arena.db."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    for name in ("ARENA_TOKEN", "ARENA_SERVER", "ARENA_TLS_CA"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def port() -> int:
    return free_port()


@pytest.fixture
def impostor(port: int) -> Iterator[tuple[RelayingImpostor, Recorder]]:
    """Listening on [::1]:PORT before the real server starts."""
    recorder = Recorder()
    relay = RelayingImpostor(f"127.0.0.1:{port}")
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4), interceptors=[recorder],
                         options=[("grpc.so_reuseport", 0)])
    arena_pb2_grpc.add_ArenaServiceServicer_to_server(relay, server)
    assert server.add_insecure_port(f"[::1]:{port}") == port
    server.start()
    yield relay, recorder
    server.stop(grace=None)


def serve(home: Path, host: str, port: int) -> Iterator[subprocess.Popen[bytes]]:
    """`arena serve --host HOST --port PORT` in the organiser's folder, once it answers."""
    RECORD.unlink(missing_ok=True)
    process = subprocess.Popen(
        [sys.executable, "-m", "arena.cli", "serve", "--host", host, "--port", str(port),
         "--no-http"], cwd=home, env=os.environ.copy(), stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            grpc.channel_ready_future(channel).result(timeout=120)
        wait_until(lambda: read_server_record(RECORD), what="the server's record")
        yield process
    finally:
        process.send_signal(signal.SIGINT)
        process.communicate(timeout=60)


@pytest.fixture
def real_on_localhost(home: Path, port: int, impostor: object) -> Iterator[object]:
    yield from serve(home, "localhost", port)


@pytest.fixture
def real_on_ipv4(home: Path, port: int, impostor: object) -> Iterator[object]:
    yield from serve(home, "127.0.0.1", port)


@pytest.mark.usefixtures("real_on_localhost")
def test_a_server_records_only_the_addresses_it_listens_on(
        port: int, impostor: tuple[RelayingImpostor, Recorder],
        capsys: pytest.CaptureFixture[str]) -> None:
    relay, recorder = impostor
    # gRPC's resolver gives both loopbacks for localhost (whatever /etc/hosts says).
    assert resolve("localhost") >= {ipaddress.ip_address("127.0.0.1"),
                                    ipaddress.ip_address("::1")}
    assert read_server_record(RECORD) == ServerRecord((f"127.0.0.1:{port}",), tls=False)
    for dialed in (f"[::1]:{port}", f"localhost:{port}"):
        assert main(["authors", "add", "ann", "--server", dialed]) == 2
        assert (f"the local admin token file .arena/admin.token was held back: it belongs "
                f"to the server at 127.0.0.1:{port}") in capsys.readouterr().err
    assert recorder.calls == []
    assert main(["authors", "add", "ann", "--server", f"127.0.0.1:{port}"]) == 0
    assert relay.relayed == []


@pytest.mark.usefixtures("real_on_ipv4")
def test_an_impostor_relaying_the_challenge_gets_no_token(
        home: Path, port: int, impostor: tuple[RelayingImpostor, Recorder],
        capsys: pytest.CaptureFixture[str]) -> None:
    relay, recorder = impostor
    assert read_server_record(RECORD) == ServerRecord((f"127.0.0.1:{port}",), tls=False)
    # The record a server that claimed [::1] wrote (what the old server did).
    write_server_record(RECORD, ServerRecord((f"127.0.0.1:{port}", f"[::1]:{port}"), False))
    dialed = f"[::1]:{port}"
    assert main(["authors", "add", "ann", "--server", dialed]) == 2
    err = capsys.readouterr().err
    assert (f"the local admin token file .arena/admin.token was held back: the server at "
            f"{dialed} did not prove that it holds it (INVALID_ARGUMENT: this server does "
            f"not listen on {dialed}") in err
    relay.rename = True  # the real server proves, but for its own address
    assert main(["authors", "add", "ann", "--server", dialed]) == 2
    assert (f"the server at {dialed} could not prove that it holds it") in (
        capsys.readouterr().err)
    assert relay.relayed[0].startswith(f"INVALID_ARGUMENT: this server does not listen on "
                                       f"{dialed} (it listens on 127.0.0.1:{port})")
    assert relay.relayed[1:] == ["proof"]
    assert recorder.calls == [("ProveAdminToken", None), ("ProveAdminToken", None)]
    token = (home / ".arena" / "admin.token").read_text().strip()
    assert token not in str(recorder.calls)


@pytest.mark.parametrize(("host", "expected"), [
    ("127.0.0.1", {"127.0.0.1"}),
    ("[::1]", {"::1"}),
    ("localhost", {"127.0.0.1", "::1"}),
    ("0.0.0.0", {"127.0.0.1", "::1"}),  # gRPC binds it as a dual-stack [::]
    ("[::]", {"127.0.0.1", "::1"}),
])
def test_the_addresses_a_grpc_listener_takes(host: str, expected: set[str]) -> None:
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=1),
                         options=[("grpc.so_reuseport", 0)])
    bound = server.add_insecure_port(f"{host}:0")
    try:
        assert reachable_addresses(bound) == {ipaddress.ip_address(a) for a in expected}
    finally:
        server.stop(grace=None)


def test_the_addresses_of_a_name_left_unbound_are_named() -> None:
    loopbacks = [ipaddress.ip_address("127.0.0.1"), ipaddress.ip_address("::1")]
    assert unbound("localhost", loopbacks[:1]) == loopbacks[1:]  # warned at start
    assert unbound("localhost", loopbacks) == []
    assert unbound("127.0.0.1", []) == [] and unbound("[::]", []) == []
