"""TLS and other operator files (issue 43 point 8): `arena serve` given a FIFO, a
device or a file that is no certificate as ``--tls-cert`` or ``--tls-key`` stops at
once with an error naming the file and its problem (it used to hang on the FIFO,
read /dev/zero until memory ran out, and call a garbage PEM "Failed to bind to
address"); the client's ``--tls-ca`` and ``--token-file``, the server's database and
admin token file are refused the same way."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from arena.cli import main
from arena.core.operator_files import read_operator_file
from arena.core.settings import ConfigError
from arena.server.app import start_server
from tests.helpers.tls_helpers import Certificates, make_certificates

START_BOUND_S = 120.0
"""Only a server that hangs waits this long (the old one did, forever)."""
GARBAGE_PEM = (b"-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n"
               b"-----END CERTIFICATE-----\n")


@pytest.fixture(scope="module")
def certificates(tmp_path_factory: pytest.TempPathFactory) -> Certificates:
    return make_certificates(tmp_path_factory.mktemp("tls"))


def serve(tmp_path: Path, cert: Path, key: Path) -> subprocess.CompletedProcess[str]:
    """`arena serve` with these TLS files, in a process of its own; its end."""
    return subprocess.run(
        [sys.executable, "-m", "arena.cli", "serve", "--db", str(tmp_path / "a.db"),
         "--port", "0", "--no-http", "--tls-cert", str(cert), "--tls-key", str(key)],
        cwd=tmp_path, capture_output=True, text=True, timeout=START_BOUND_S,
        stdin=subprocess.DEVNULL)


def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "cert.fifo"
    os.mkfifo(path)
    return path


def garbage(tmp_path: Path) -> Path:
    path = tmp_path / "garbage.pem"
    path.write_bytes(GARBAGE_PEM)
    return path


@pytest.mark.parametrize(("make", "problem"), [
    (fifo, "is a FIFO (named pipe), not a regular file"),
    (lambda _: Path("/dev/zero"), "is a character device, not a regular file"),
    (lambda _: Path("/dev/urandom"), "is a character device, not a regular file"),
    (garbage, "holds no valid PEM certificate"),
])
def test_a_certificate_that_is_no_file_or_no_certificate_is_named_at_once(
        tmp_path: Path, certificates: Certificates, make: object, problem: str) -> None:
    assert callable(make)
    cert = make(tmp_path)
    done = serve(tmp_path, cert, certificates.key)
    assert done.returncode == 2, done.stderr
    assert f"error: the TLS certificate {cert} {problem}" in done.stderr
    assert "Failed to bind" not in done.stderr
    assert not (tmp_path / "a.db").exists()


def test_a_key_that_is_a_device_or_not_the_certificates_is_named(
        tmp_path: Path, certificates: Certificates) -> None:
    done = serve(tmp_path, certificates.cert, Path("/dev/zero"))
    assert "error: the TLS key /dev/zero is a character device, not a regular file" in (
        done.stderr)
    other = make_certificates(tmp_path / "other", "other")
    done = serve(tmp_path, certificates.cert, other.key)
    assert done.returncode == 2
    assert (f"error: the TLS key {other.key} is not a private key of the certificate "
            f"{certificates.cert}") in done.stderr
    done = serve(tmp_path, certificates.cert, certificates.cert)
    assert f"error: the TLS key {certificates.cert} holds no private key" in done.stderr


def test_the_clients_ca_and_token_files_are_refused_the_same_way(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    path = fifo(tmp_path)
    assert main(["bots", "list", "--server", "localhost:1", "--tls-ca", str(path)]) == 2
    assert f"the TLS CA certificate {path} is a FIFO (named pipe)" in capsys.readouterr().err
    assert main(["authors", "add", "ann", "--server", "localhost:1",
                 "--token-file", "/dev/zero"]) == 2
    assert "the token file /dev/zero is a character device" in capsys.readouterr().err


def test_a_read_stops_at_its_bound(tmp_path: Path) -> None:
    path = tmp_path / "big"
    path.write_bytes(b"x" * 11)
    assert read_operator_file(path, "test file", 11) == b"x" * 11
    with pytest.raises(ConfigError, match=r"the test file .*big is larger than 10 bytes"):
        read_operator_file(path, "test file", 10)
    with pytest.raises(ConfigError, match=r"the test file .* is a folder"):
        read_operator_file(tmp_path, "test file", 10)
    with pytest.raises(ConfigError, match=r"cannot read the test file .*nope: No such file"):
        read_operator_file(tmp_path / "nope", "test file", 10)


def test_a_database_or_admin_token_that_is_no_regular_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="the database /dev/zero is a character device, "
                                          "not a regular file"):
        start_server(Path("/dev/zero"), port=0, resume=False)
    database = fifo(tmp_path)
    with pytest.raises(ConfigError, match=f"the database {database} is a FIFO"):
        start_server(database, port=0, resume=False)
    token = tmp_path / "server" / "admin.token"
    token.parent.mkdir()
    os.mkfifo(token, 0o600)
    with pytest.raises(ConfigError, match=f"the admin token file {token} is a FIFO"):
        start_server(tmp_path / "server" / "arena.db", port=0, resume=False)
