"""The per-client limits count an IPv6 /64 as one client, whatever spelling gRPC
gives its peer (issue 43 point 5): gRPC percent-encodes the brackets of an IPv6 peer
(``ipv6:%5B2001:db8::1%5D:5000``), and 16 addresses of one /64 in that spelling
share one bucket of failed token checks."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent import futures
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health, health_pb2, health_pb2_grpc  # type: ignore[import-untyped]

from arena.core.auth_limit import AuthLimits, FailedAuthLimiter
from arena.core.defaults import AUTH_METADATA_KEY
from arena.core.peers import client_of
from arena.server.auth import Authenticator
from arena.storage import Storage


@pytest.mark.parametrize(("peer", "client"), [
    ("ipv4:203.0.113.7:5000", "ipv4:203.0.113.7"),
    ("ipv6:[::1]:5000", "ipv6:[::1]"),
    ("ipv6:%5B::1%5D:5000", "ipv6:[::1]"),
    # One host may hold a whole /64: its addresses are one client.
    ("ipv6:[2001:db8:1:2:3:4:5:6]:5000", "ipv6:[2001:db8:1:2::/64]"),
    ("ipv6:%5B2001:db8:1:2:ffff::9%5D:41000", "ipv6:[2001:db8:1:2::/64]"),
    ("ipv6:%5b2001:DB8:1:2::a%5d:1", "ipv6:[2001:db8:1:2::/64]"),
    ("ipv6:2001:db8:1:2::7", "ipv6:[2001:db8:1:2::/64]"),
    ("ipv6:%5Bfe80::1%25eth0%5D:5000", "ipv6:[fe80::/64]"),
    ("ipv6:[2001:db8:1:3::1]:5000", "ipv6:[2001:db8:1:3::/64]"),
    # A dual-stack server's IPv4 clients are their IPv4 addresses.
    ("ipv6:%5B::ffff:203.0.113.7%5D:5000", "ipv4:203.0.113.7"),
    ("ipv6:[::ffff:cb00:7107]:5000", "ipv4:203.0.113.7"),
    ("unix:/tmp/arena.sock", "unix"),
    ("unix-abstract:arena", "unix"),
    ("ipv6:[not-an-address]:5000", "ipv6:not-an-address"),
    ("ipv4:300.1.2.3:5000", "ipv4:300.1.2.3"),
])
def test_a_client_is_its_address_or_its_ipv6_network(peer: str, client: str) -> None:
    assert client_of(peer) == client


class Refused(Exception):
    def __init__(self, code: grpc.StatusCode, details: str) -> None:
        super().__init__(f"{code.name}: {details}")
        self.code = code
        self.details = details


class PeerContext:
    """What ``Authenticator`` reads of a call: its peer and its token."""

    def __init__(self, peer: str, token: str) -> None:
        self._peer = peer
        self._token = token

    def peer(self) -> str:
        return self._peer

    def invocation_metadata(self) -> list[tuple[str, str]]:
        return [(AUTH_METADATA_KEY, f"Bearer {self._token}")]

    def abort(self, code: grpc.StatusCode, details: str) -> None:
        raise Refused(code, details)


class FrozenClock:
    def __call__(self) -> float:
        return 1000.0  # no failure is ever forgiven during the test


def test_sixteen_addresses_of_one_ipv6_network_share_one_bucket(tmp_path: Path) -> None:
    storage = Storage(tmp_path / "arena.db")
    burst = 10
    auth = Authenticator(storage, "admin_right",
                         FailedAuthLimiter(AuthLimits(burst=burst, per_second=0.2),
                                           FrozenClock()))
    # Interface ids spread over the /64, in gRPC's own spelling of a peer.
    peers = [f"ipv6:%5B2001:db8:aa:bb:{i:x}{i:x}:{i * 977:x}:7:{65535 - i:x}%5D:{40000 + i}"
             for i in range(16)]
    verdicts = []
    for peer in peers:
        with pytest.raises(Refused) as refused:
            auth.caller(PeerContext(peer, "admin_wrong"))
        verdicts.append(refused.value.code)
    assert verdicts == ([grpc.StatusCode.UNAUTHENTICATED] * burst
                        + [grpc.StatusCode.RESOURCE_EXHAUSTED] * (16 - burst))
    assert "too many failed token checks from ipv6:[2001:db8:aa:bb::/64]" in (
        refused.value.details)
    # The network is refused even the right token, and a neighbouring /64 is not held up.
    with pytest.raises(Refused) as refused:
        auth.caller(PeerContext("ipv6:%5B2001:db8:aa:bb::1%5D:1", "admin_right"))
    assert refused.value.code == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert auth.caller(PeerContext("ipv6:%5B2001:db8:aa:bc::1%5D:1", "admin_right")).is_admin
    storage.close()


class PeerRecorder(health.HealthServicer):  # type: ignore[misc]
    """A health service that keeps each caller's peer string as gRPC gives it."""

    def __init__(self) -> None:
        super().__init__()
        self.peers: list[str] = []

    def Check(self, request: object, context: grpc.ServicerContext) -> object:
        self.peers.append(context.peer())
        return health_pb2.HealthCheckResponse(status=health_pb2.HealthCheckResponse.SERVING)


@pytest.fixture
def recorder() -> Iterator[tuple[PeerRecorder, int]]:
    servicer = PeerRecorder()
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    health_pb2_grpc.add_HealthServicer_to_server(servicer, server)
    port = server.add_insecure_port("[::]:0")  # dual-stack: IPv4 clients come mapped
    server.start()
    yield servicer, port
    server.stop(grace=None)


def test_the_peers_grpc_reports_are_understood(recorder: tuple[PeerRecorder, int]) -> None:
    servicer, port = recorder
    for target in (f"ipv4:127.0.0.1:{port}", f"ipv6:[::1]:{port}"):
        with grpc.insecure_channel(target) as channel:
            health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(),
                                                      timeout=30)
    assert [client_of(peer) for peer in servicer.peers] == ["ipv4:127.0.0.1", "ipv6:[::1]"]
