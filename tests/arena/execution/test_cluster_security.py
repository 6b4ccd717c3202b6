"""The cluster's certificates and the loopback rule, without a cluster: `arena
cluster certs` makes a CA and role certificates that chain to it (checked with the
cryptography package's own verifier), keys 0600; a non-loopback address without
certificates is refused unless --insecure, which warns on stderr."""

from __future__ import annotations

import argparse
import datetime
import ipaddress
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.x509.verification import PolicyBuilder, Store

from arena.cli import main
from arena.cli.cluster import cluster_security
from arena.cli.output import CliError
from arena.core.token_binding import is_loopback_host
from arena.execution.cluster_certs import CertificateError, make_cluster_certs
from arena.execution.cluster_security import (
    ClusterSecurityError,
    ClusterTLS,
    exposure_check,
    host_of,
    scheduler_address,
)

NOW = datetime.datetime(2026, 12, 2, tzinfo=datetime.UTC)


def load(path: Path) -> x509.Certificate:
    return x509.load_pem_x509_certificate(path.read_bytes())


def test_certs_make_a_ca_and_role_certificates_that_chain_to_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "certs"
    assert main(["cluster", "certs", str(folder), "--host", "10.1.2.3", "--host",
                 "arena.example", "--days", "30"]) == 0
    assert "worker.pem + worker-key.pem: each worker's machine" in capsys.readouterr().out
    modes = {p.name: p.stat().st_mode & 0o777 for p in folder.iterdir()}
    assert modes == {"ca.pem": 0o644, "ca-key.pem": 0o600, "scheduler.pem": 0o644,
                     "scheduler-key.pem": 0o600, "worker.pem": 0o644, "worker-key.pem": 0o600,
                     "client.pem": 0o644, "client-key.pem": 0o600, "server.pem": 0o644,
                     "server-key.pem": 0o600}
    assert folder.stat().st_mode & 0o777 == 0o700
    ca = load(folder / "ca.pem")
    store = Store([ca])
    for role in ("scheduler", "worker", "client", "server"):
        cert = load(folder / f"{role}.pem")
        verifier = (PolicyBuilder().store(store).time(datetime.datetime.now(datetime.UTC))
                    .build_client_verifier())
        verifier.verify(cert, [])  # raises unless it chains to the CA
        names = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
        assert names.get_values_for_type(x509.DNSName) == ["localhost", "arena.example"]
        assert names.get_values_for_type(x509.IPAddress) == [
            ipaddress.ip_address("127.0.0.1"), ipaddress.ip_address("::1"),
            ipaddress.ip_address("10.1.2.3")]
        lifetime = cert.not_valid_after_utc - cert.not_valid_before_utc
        assert lifetime == datetime.timedelta(days=30)


def test_certs_refuse_to_overwrite_a_ca_or_take_a_bad_host(tmp_path: Path) -> None:
    make_cluster_certs(tmp_path / "c", now=NOW)
    with pytest.raises(CertificateError, match="already holds a cluster CA"):
        make_cluster_certs(tmp_path / "c")
    with pytest.raises(CertificateError, match="'a b' is neither an IP address nor a host"):
        make_cluster_certs(tmp_path / "d", ["a b"])
    assert not (tmp_path / "d").exists()


def test_a_role_needs_its_files_and_a_private_key(tmp_path: Path) -> None:
    folder = make_cluster_certs(tmp_path / "c")
    tls = ClusterTLS.from_dir(folder, "worker")
    assert (tls.cert.name, tls.key.name, tls.ca.name) == ("worker.pem", "worker-key.pem", "ca.pem")
    (folder / "client.pem").unlink()
    with pytest.raises(ClusterSecurityError, match=r"client\.pem is missing"):
        ClusterTLS.from_dir(folder, "client")
    (folder / "worker-key.pem").chmod(0o644)
    with pytest.raises(ClusterSecurityError, match="can be read by other users"):
        ClusterTLS.from_dir(folder, "worker")


@pytest.mark.parametrize("host, loopback", [
    ("127.0.0.1", True), ("127.9.9.9", True), ("::1", True), ("[::1]", True),
    ("localhost", True), ("0.0.0.0", False), ("::", False), ("192.0.2.10", False),
    ("arena.example", False), ("", False)])
def test_loopback_is_told_apart(host: str, loopback: bool) -> None:
    assert is_loopback_host(host) is loopback


@pytest.mark.parametrize("address, host", [
    ("tls://10.0.0.1:8786", "10.0.0.1"), ("tcp://[::1]:8786", "::1"), ("10.0.0.1:1", "10.0.0.1"),
    ("0.0.0.0", "0.0.0.0"), ("::", "::")])
def test_the_host_of_an_address(address: str, host: str) -> None:
    assert host_of(address) == host


def test_a_remote_address_needs_certificates_or_insecure(tmp_path: Path) -> None:
    tls = ClusterTLS.from_dir(make_cluster_certs(tmp_path / "c"), "client")
    assert exposure_check("the scheduler at", "tcp://127.0.0.1:8786", None, False) == ""
    assert exposure_check("the scheduler at", "tls://10.0.0.1:8786", tls, False) == ""
    with pytest.raises(ClusterSecurityError, match="refusing the scheduler at "
                                                   r"tcp://10.0.0.1:8786 without TLS"):
        exposure_check("the scheduler at", "tcp://10.0.0.1:8786", None, False)
    with pytest.raises(ClusterSecurityError, match=r"refusing listening on 0\.0\.0\.0"):
        exposure_check("listening on", "0.0.0.0", None, False)
    warning = exposure_check("the scheduler at", "tcp://10.0.0.1:8786", None, True)
    assert warning.startswith("warning: the scheduler at tcp://10.0.0.1:8786 without TLS")


def test_certificates_mean_tls_addresses(tmp_path: Path) -> None:
    tls = ClusterTLS.from_dir(make_cluster_certs(tmp_path / "c"), "client")
    assert scheduler_address("tcp://10.0.0.1:8786", tls) == "tls://10.0.0.1:8786"
    assert scheduler_address("10.0.0.1:8786", tls) == "tls://10.0.0.1:8786"
    assert scheduler_address("10.0.0.1:8786", None) == "tcp://10.0.0.1:8786"
    with pytest.raises(ClusterSecurityError, match="give --cluster-certs DIR"):
        scheduler_address("tls://10.0.0.1:8786", None)
    with pytest.raises(ClusterSecurityError, match="speaks tls:// only"):
        scheduler_address("ucx://10.0.0.1:8786", tls)


def test_insecure_warns_on_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    args = argparse.Namespace(cluster_certs=None, insecure=True)
    address, security = cluster_security("the scheduler at", "10.0.0.1:8786", args, "client")
    assert (address, security) == ("tcp://10.0.0.1:8786", None)
    assert capsys.readouterr().err.startswith("warning: the scheduler at 10.0.0.1:8786 without")
    with pytest.raises(CliError, match="refusing"):
        cluster_security("the scheduler at", "10.0.0.1:8786",
                         argparse.Namespace(cluster_certs=None, insecure=False), "client")


def test_a_worker_refuses_to_listen_beyond_loopback_without_certificates(
        capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["worker", "--scheduler", "tcp://127.0.0.1:9", "--listen-host", "0.0.0.0",
                 "--sandbox", "process"])
    assert code == 2
    assert "refusing listening on 0.0.0.0 without TLS" in " ".join(
        capsys.readouterr().err.split())


def test_the_server_certificate_serves_the_api_to_clients_trusting_the_ca(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`arena cluster certs` prepares `arena serve --tls-cert/--tls-key` too: a real TLS
    connection from the command line trusting ca.pem, and none from another CA."""
    from arena.core.tls import TlsFiles
    from arena.server.app import start_server

    folder = make_cluster_certs(tmp_path / "certs")
    other = make_cluster_certs(tmp_path / "other")
    running = start_server(tmp_path / "arena.db", port=0, resume=False,
                           tls=TlsFiles(folder / "server.pem", folder / "server-key.pem"))
    try:
        address = f"localhost:{running.port}"
        assert main(["bots", "list", "--server", address, "--tls-ca",
                     str(folder / "ca.pem")]) == 0
        assert main(["bots", "list", "--server", f"127.0.0.1:{running.port}", "--tls-ca",
                     str(folder / "ca.pem")]) == 0
        capsys.readouterr()
        assert main(["bots", "list", "--server", address, "--tls-ca",
                     str(other / "ca.pem")]) == 1
        assert f"cannot reach the arena server at {address}" in capsys.readouterr().err
    finally:
        running.stop(grace=None)
