"""`arena health` asks grpc.health.v1 and exits 0 only for SERVING: against a health
service whose status the test sets (in clear and over TLS), against an address where
nothing listens, and against a real `arena serve`."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent import futures
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health, health_pb2, health_pb2_grpc  # type: ignore[import-untyped]

from arena.cli import main
from tests.helpers.ports import free_port
from tests.helpers.serve_process import start_serve, wait_ready
from tests.helpers.tls_helpers import make_certificates


@pytest.fixture(autouse=True)
def _no_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    for name in ("ARENA_TOKEN", "ARENA_SERVER", "ARENA_TLS_CA"):
        monkeypatch.delenv(name, raising=False)


def _health_server(credentials: grpc.ServerCredentials | None = None
                   ) -> Iterator[tuple[str, health.HealthServicer]]:
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    servicer = health.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(servicer, server)
    address = f"localhost:{free_port()}"
    if credentials is None:
        server.add_insecure_port(address)
    else:
        server.add_secure_port(address, credentials)
    server.start()
    try:
        yield address, servicer
    finally:
        server.stop(None)


@pytest.fixture
def health_server() -> Iterator[tuple[str, health.HealthServicer]]:
    yield from _health_server()


def test_serving_exits_0_and_says_so(health_server: tuple[str, health.HealthServicer],
                                     capsys: pytest.CaptureFixture[str]) -> None:
    address, servicer = health_server
    servicer.set("", health_pb2.HealthCheckResponse.SERVING)
    assert main(["health", "--server", address]) == 0
    assert capsys.readouterr().out.strip() == f"{address}: SERVING"


def test_not_serving_exits_1_naming_the_status(
        health_server: tuple[str, health.HealthServicer],
        capsys: pytest.CaptureFixture[str]) -> None:
    address, servicer = health_server
    servicer.set("", health_pb2.HealthCheckResponse.NOT_SERVING)
    assert main(["health", "--server", address]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert f"{address} is not serving: NOT_SERVING" in captured.err


def test_an_unknown_service_exits_1(health_server: tuple[str, health.HealthServicer],
                                    capsys: pytest.CaptureFixture[str]) -> None:
    address, servicer = health_server
    servicer.set("", health_pb2.HealthCheckResponse.SERVING)
    assert main(["health", "--server", address, "--service", "no.such.Service"]) == 1
    assert "it knows no service 'no.such.Service'" in capsys.readouterr().err


def test_nothing_listening_exits_1_within_the_timeout(
        capsys: pytest.CaptureFixture[str]) -> None:
    address = f"localhost:{free_port()}"
    assert main(["health", "--server", address, "--timeout", "0.5"]) == 1
    assert f"{address} is not healthy: no answer within 0.5 s" in capsys.readouterr().err


def test_over_tls_it_trusts_the_given_ca(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    certificates = make_certificates(tmp_path / "tls")
    credentials = grpc.ssl_server_credentials(
        [(certificates.key.read_bytes(), certificates.cert.read_bytes())])
    for address, servicer in _health_server(credentials):
        servicer.set("", health_pb2.HealthCheckResponse.SERVING)
        assert main(["health", "--server", address, "--tls-ca", str(certificates.ca)]) == 0
        assert capsys.readouterr().out.strip() == f"{address}: SERVING"
        # In clear, a TLS server never answers: unhealthy, not a crash.
        assert main(["health", "--server", address, "--timeout", "0.5"]) == 1
        assert "is not healthy" in capsys.readouterr().err


def test_a_missing_ca_file_is_a_usage_error(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["health", "--server", "localhost:1", "--tls-ca",
                 str(tmp_path / "absent.pem")]) == 2
    assert "absent.pem" in capsys.readouterr().err


def test_a_real_arena_server_is_serving(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    port = free_port()
    server = start_serve(tmp_path / "arena.db", port)
    try:
        wait_ready(f"localhost:{port}", server, timeout=60)
        assert main(["health", "--server", f"localhost:{port}",
                     "--service", "hollywood.arena.v1.ArenaService"]) == 0
        assert "SERVING" in capsys.readouterr().out
    finally:
        server.terminate()
        server.wait(timeout=60)
