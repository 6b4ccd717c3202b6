"""The role check of the cluster's connections, on fake comms with fake peer
certificates (as ``ssl.SSLSocket.getpeercert`` gives them): what each role may
send the scheduler and a worker, what a refused message becomes, and that the
connections accepted before the guard was installed are checked too. The real
cluster's refusals are in tests/arena/execution/test_cluster_trust.py."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from arena.execution.cluster_certs import make_cluster_certs
from arena.execution.cluster_peers import role_of
from arena.execution.cluster_roles import (
    REFUSED_OP,
    SCHEDULER_POLICY,
    WORKER_POLICY,
    Permit,
    guard_server,
)
from arena.execution.cluster_security import ClusterTLS

PEER = "tls://10.0.0.7:50123"


def certificate(common_name: str) -> dict[str, Any]:
    return {"subject": ((("organizationName", "Hollywood"),),
                        (("commonName", common_name),)),
            "issuer": ((("commonName", "Hollywood Gin Arena cluster CA"),),)}


@dataclass(eq=False)
class FakeComm:
    peercert: dict[str, Any] | None
    inbox: list[Any]
    peer_address: str = PEER

    @property
    def extra_info(self) -> dict[str, Any]:
        return {} if self.peercert is None else {"peercert": self.peercert}

    async def read(self, deserializers: Any = None) -> Any:
        return self.inbox.pop(0)


@dataclass
class FakeSecurity:
    require_encryption: bool


@dataclass
class FakeServer:
    security: FakeSecurity = field(default_factory=lambda: FakeSecurity(True))
    handlers: dict[str, Any] = field(default_factory=dict)
    stream_handlers: dict[str, Any] = field(default_factory=dict)
    _comms: dict[Any, Any] = field(default_factory=dict)
    accepted: list[Any] = field(default_factory=list)

    def _handle_comm(self, comm: Any) -> None:
        self.accepted.append(comm)


def read_through(policy: Mapping[str, Permit], common_name: str | None, message: Any,
                 *, tls: bool = True, peer: str = PEER) -> Any:
    """``message`` as the server's dispatch would read it from a peer with that CN."""
    server = FakeServer(FakeSecurity(tls))
    guard_server(server, policy)
    comm = FakeComm(None if common_name is None else certificate(common_name), [message],
                    peer)
    server._handle_comm(comm)
    assert server.accepted == [comm]
    return asyncio.run(comm.read())


def refused(message: Any) -> bool:
    return isinstance(message, dict) and message.get("op") == REFUSED_OP


def test_the_role_is_the_common_name_after_arena() -> None:
    assert role_of(certificate("arena-worker")) == "worker"
    assert role_of(certificate("arena-client")) == "client"
    assert role_of(certificate("someone-else")) is None
    assert role_of({"subject": ()}) is None
    assert role_of(None) is None
    assert role_of("arena-worker") is None


@pytest.mark.parametrize("op", ["register-client", "update-graph", "run_function",
                                "run_on_scheduler", "gather", "who_has", "identity",
                                "get_task_stream", "register_worker_plugin", "broadcast",
                                "unregister", "retire_workers", "get_cluster_state"])
def test_a_worker_certificate_cannot_act_as_a_client_on_the_scheduler(op: str) -> None:
    answer = read_through(SCHEDULER_POLICY, "arena-worker", {"op": op, "reply": True})
    assert answer == {"op": REFUSED_OP, "refused": op, "role": "worker",
                      "why": "its certificate's role may not send it", "reply": True}


def test_a_worker_certificate_joins_and_speaks_as_a_worker() -> None:
    register = {"op": "register-worker", "address": "tls://10.0.0.7:40000",
                "resources": {"series_slot": 1}}
    assert read_through(SCHEDULER_POLICY, "arena-worker", dict(register)) == register
    batch = [{"op": "task-finished", "key": "s1"}, {"op": "keep-alive"},
             {"op": "release-worker-data", "key": "s1"}, "OK"]
    assert read_through(SCHEDULER_POLICY, "arena-worker", list(batch)) == batch
    beat = {"op": "heartbeat_worker", "address": "tls://10.0.0.7:40000", "metrics": {}}
    assert read_through(SCHEDULER_POLICY, "arena-worker", dict(beat)) == beat


def test_a_refused_message_in_a_batch_is_replaced_the_others_kept() -> None:
    answer = read_through(SCHEDULER_POLICY, "arena-worker",
                          [{"op": "task-finished", "key": "s1"},
                           {"op": "update-graph", "graph_header": {}}])
    assert answer[0] == {"op": "task-finished", "key": "s1"}
    assert answer[1]["op"] == REFUSED_OP and answer[1]["refused"] == "update-graph"


def test_a_worker_cannot_speak_for_another_worker() -> None:
    assert refused(read_through(SCHEDULER_POLICY, "arena-worker", {
        "op": "worker-status-change", "status": "paused",
        "worker": "tls://10.0.0.8:40000"}))
    assert refused(read_through(SCHEDULER_POLICY, "arena-worker", {
        "op": "heartbeat_worker", "address": "tls://10.0.0.8:40000", "metrics": {}}))
    assert refused(read_through(SCHEDULER_POLICY, "arena-worker", {
        "op": "heartbeat_worker", "address": "tls://10.0.0.7:40000",
        "resources": {"series_slot": 0}}))


def test_a_client_certificate_cannot_pose_as_a_worker() -> None:
    for op in ("update-graph", "register-client", "gather", "run_function"):
        assert read_through(SCHEDULER_POLICY, "arena-client", {"op": op}) == {"op": op}
    for op in ("register-worker", "task-finished", "heartbeat_worker"):
        assert refused(read_through(SCHEDULER_POLICY, "arena-client", {"op": op}))


def test_a_certificate_without_a_cluster_role_may_send_nothing_but_close() -> None:
    for name in ("arena-server", "arena-nobody", "localhost"):
        assert refused(read_through(SCHEDULER_POLICY, name, {"op": "identity"}))
        assert read_through(SCHEDULER_POLICY, name, {"op": "close"}) == {"op": "close"}


def test_on_a_worker_a_worker_certificate_may_only_fetch_data() -> None:
    get = {"op": "get_data", "keys": ["s1"], "who": "tls://10.0.0.7:40001"}
    assert read_through(WORKER_POLICY, "arena-worker", dict(get)) == get
    for op in ("run", "run_coroutine", "plugin-add", "upload_file", "update_data",
               "gather", "terminate", "actor_execute", "free_keys"):
        assert refused(read_through(WORKER_POLICY, "arena-worker", {"op": op}))
    for name in ("arena-scheduler", "arena-client"):
        assert read_through(WORKER_POLICY, name, {"op": "run"}) == {"op": "run"}


def test_without_tls_there_are_no_roles_to_check() -> None:
    message = {"op": "run_function"}
    assert read_through(SCHEDULER_POLICY, None, dict(message), tls=False) == message
    assert refused(read_through(SCHEDULER_POLICY, None, dict(message), tls=True))


def test_a_tls_listener_is_checked_even_without_require_encryption() -> None:
    @dataclass
    class Listener:
        contact_address: str

    server = FakeServer(FakeSecurity(False))
    server.listeners = [Listener("tls://10.0.0.1:8786")]  # type: ignore[attr-defined]
    guard_server(server, SCHEDULER_POLICY)
    comm = FakeComm(certificate("arena-worker"), [{"op": "run_function"}])
    server._handle_comm(comm)
    assert refused(asyncio.run(comm.read()))


def test_connections_accepted_before_the_guard_are_checked_too() -> None:
    server = FakeServer()
    early = FakeComm(certificate("arena-worker"), [{"op": "run_function"}])
    server._comms[early] = None
    guard_server(server, SCHEDULER_POLICY)
    assert refused(asyncio.run(early.read()))


def test_the_refusal_answers_a_permission_error_naming_the_operation_and_role() -> None:
    server = FakeServer()
    guard_server(server, SCHEDULER_POLICY)
    answer = server.handlers[REFUSED_OP](refused="run_function", role="worker",
                                         why="its certificate's role may not send it")
    assert answer["status"] == "uncaught-error"  # what Dask's rpc raises again
    assert answer["exception_text"] == (
        "PermissionError(\"'run_function' refused to a 'worker' certificate: its "
        "certificate's role may not send it\")")
    with pytest.raises(PermissionError, match=r"'update-graph' refused to a 'worker' "
                       r"certificate: .*; its stream is closed"):
        server.stream_handlers[REFUSED_OP](refused="update-graph", role="worker",
                                           why="its certificate's role may not send it",
                                           worker="tls://10.0.0.7:40000")


@pytest.fixture(scope="module")
def certs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_cluster_certs(tmp_path_factory.mktemp("roles") / "certs")


def handshake(certs: Path, listening_role: str, connecting_role: str) -> str:
    """'connected', or why not: a process of ``connecting_role`` opening a real Dask
    TLS connection to a listener that presents ``listening_role``'s certificate."""
    from distributed import Security
    from distributed.comm import connect, listen

    async def run() -> str:
        listening = Security(  # type: ignore[no-untyped-call]
            require_encryption=True, tls_ca_file=str(certs / "ca.pem"),
            tls_scheduler_cert=str(certs / f"{listening_role}.pem"),
            tls_scheduler_key=str(certs / f"{listening_role}-key.pem"))

        async def accept(comm: Any) -> None:
            await comm.close()

        listener = listen("tls://127.0.0.1:0", accept,
                          **listening.get_listen_args("scheduler"))
        await listener.start()
        try:
            security = ClusterTLS.from_dir(certs, connecting_role).security()
            comm = await connect(listener.contact_address, timeout=30,
                                 **security.get_connection_args(connecting_role))
            await comm.close()
            return "connected"
        except OSError as error:
            return str(error)
        finally:
            listener.stop()

    return asyncio.run(run())


@pytest.mark.parametrize(("listening", "connecting", "expected"), [
    ("scheduler", "client", None), ("worker", "client", "'worker', not 'scheduler'"),
    ("client", "client", "'client', not 'scheduler'"),
    ("scheduler", "worker", None), ("worker", "worker", None),
    ("client", "worker", "'client', not 'scheduler' or 'worker'"),
    ("server", "worker", "'server', not 'scheduler' or 'worker'")])
def test_a_connection_reaches_only_a_peer_of_the_role_it_expects(
        certs: Path, listening: str, connecting: str, expected: str | None,
        caplog: pytest.LogCaptureFixture) -> None:
    """A certificate of the CA posing as the scheduler (a worker's, with the traffic
    redirected to it) gets nothing from the arena's client: the handshake fails
    before a byte is sent."""
    with caplog.at_level(logging.ERROR, logger="arena.execution.cluster_peers"):
        answer = handshake(certs, listening, connecting)
    if expected is None:
        assert answer == "connected"
    else:
        assert "TLS certificate does not match" in answer
        assert [r.getMessage().split(": ", 1)[1] for r in caplog.records] == [
            f"the peer's certificate names the role {expected}"]
