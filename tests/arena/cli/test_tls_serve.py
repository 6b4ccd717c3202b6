"""`arena serve --tls-cert --tls-key` in a process of its own, and the command line
run from the organiser's folder against it: over TLS (trusting the test CA) the
local admin token reaches its own server; in clear nothing does. A server that
listens off loopback in clear says so."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import grpc
import pytest

from arena.cli import main
from arena.cli.local import warn_clear_listeners
from tests.helpers.ports import free_port
from tests.helpers.tls_helpers import make_certificates


def test_arena_serve_with_a_certificate_serves_tls_to_the_folders_commands(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    certificates = make_certificates(tmp_path / "tls")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    for name in ("ARENA_TOKEN", "ARENA_SERVER", "ARENA_TLS_CA"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "arena.cli", "serve", "--port", str(port), "--no-http",
         "--tls-cert", str(certificates.cert), "--tls-key", str(certificates.key)],
        cwd=tmp_path, env=os.environ.copy(), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        roots = grpc.ssl_channel_credentials(root_certificates=certificates.ca.read_bytes())
        with grpc.secure_channel(f"localhost:{port}", roots) as channel:
            grpc.channel_ready_future(channel).result(timeout=60)
        address = f"localhost:{port}"
        assert main(["authors", "add", "ann", "--server", address,
                     "--tls-ca", str(certificates.ca)]) == 0
        assert "ann" in capsys.readouterr().out
        assert main(["authors", "list", "--server", address]) == 1  # in clear: no answer
        assert "one that serves TLS needs --tls-ca FILE" in capsys.readouterr().err
    finally:
        server.send_signal(signal.SIGINT)
        out, err = server.communicate(timeout=60)
    assert f"arena serving hollywood.arena.v1 on localhost:{port} over TLS" in out.decode()
    assert "warning" not in err.decode()


def test_serving_in_clear_off_loopback_is_warned(capsys: pytest.CaptureFixture[str]) -> None:
    warn_clear_listeners("localhost", "127.0.0.1", "::1", None)
    assert capsys.readouterr().err == ""
    warn_clear_listeners("0.0.0.0", "10.1.2.3")
    err = capsys.readouterr().err.splitlines()
    assert [line.split(":")[0:2] for line in err] == [
        ["warning", " serving in clear on 0.0.0.0"], ["warning", " serving in clear on 10.1.2.3"]]
    assert all("--tls-cert FILE --tls-key FILE" in line for line in err)


def test_a_certificate_without_its_key_is_refused(capsys: pytest.CaptureFixture[str],
                                                   tmp_path: Path) -> None:
    assert main(["serve", "--db", str(tmp_path / "a.db"), "--tls-cert", "c.pem"]) == 2
    assert "--tls-cert and --tls-key go together" in capsys.readouterr().err
