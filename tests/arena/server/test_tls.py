"""TLS for the API and the website (issue 26 point 4), over real connections: a
server started with a certificate refuses plaintext clients; a client trusting the
CA reaches the gRPC API (by name and by IP) and the website; a client trusting
another CA is refused; and a client never sends a token in clear to an address off
this machine unless told ``--insecure`` — refused before any channel is used (the
test's channel is a fake that touches no network: no packet leaves for TEST-NET)."""

from __future__ import annotations

import http.client
import ssl
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from hollywood.arena.v1 import arena_pb2, arena_pb2_grpc

from arena.cli import client as client_module
from arena.cli import main
from arena.core.settings import ConfigError
from arena.core.tls import TlsFiles
from arena.core.token_binding import is_loopback
from arena.server.app import RunningServer, start_server
from tests.helpers.servers import servers
from tests.helpers.tls_helpers import Certificates, make_certificates

OFF_MACHINE = "192.0.2.1:50551"  # TEST-NET-1 (RFC 5737): never routed, never reached here


@pytest.fixture(scope="module")
def certificates(tmp_path_factory: pytest.TempPathFactory) -> Certificates:
    return make_certificates(tmp_path_factory.mktemp("tls"))


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, certificates: Certificates
           ) -> Iterator[RunningServer]:
    with servers(tmp_path_factory.mktemp("srv")) as serve:  # one for the module
        yield serve(http=("localhost", 0), tls=TlsFiles(certificates.cert, certificates.key))


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No token from the environment, the user's config or a local .arena/."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    for name in ("ARENA_TOKEN", "ARENA_SERVER", "ARENA_TLS_CA"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def list_bots(channel: grpc.Channel) -> None:
    arena_pb2_grpc.ArenaServiceStub(channel).ListBots(arena_pb2.ListBotsRequest(), timeout=20)


def test_a_tls_server_refuses_a_plaintext_client(server: RunningServer) -> None:
    with grpc.insecure_channel(server.address) as channel, \
            pytest.raises(grpc.RpcError) as refused:
        list_bots(channel)
    assert refused.value.code() == grpc.StatusCode.UNAVAILABLE
    assert server.web is not None and server.web.url.startswith("https://localhost:")
    plain = server.web.url.replace("https://", "http://")
    with pytest.raises((OSError, http.client.HTTPException)):
        urllib.request.urlopen(plain, timeout=20).read()


@pytest.mark.parametrize("host", ["localhost", "127.0.0.1"])
def test_a_client_trusting_the_ca_reaches_the_api(
        server: RunningServer, certificates: Certificates, host: str) -> None:
    credentials = grpc.ssl_channel_credentials(root_certificates=certificates.ca.read_bytes())
    with grpc.secure_channel(f"{host}:{server.port}", credentials) as channel:
        list_bots(channel)


def test_the_command_line_over_tls_reads_and_sends_its_token(
        server: RunningServer, certificates: Certificates, home: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    address = f"127.0.0.1:{server.port}"
    assert main(["bots", "list", "--server", address, "--tls-ca", str(certificates.ca)]) == 0
    assert main(["authors", "add", "ann", "--server", address, "--tls-ca",
                 str(certificates.ca), "--token", server.token, "--json"]) == 0
    assert '"name": "ann"' in capsys.readouterr().out
    assert main(["bots", "list", "--server", address]) == 1  # plaintext: no answer
    err = capsys.readouterr().err
    assert f"cannot reach the arena server at {address}" in err
    assert "one that serves TLS needs --tls-ca FILE" in err


def test_a_missing_ca_file_is_named(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--tls-ca", "nope.pem", "bots", "list", "--server", "localhost:1"]) == 2
    assert "cannot read the TLS CA certificate nope.pem" in capsys.readouterr().err


def test_the_website_answers_https_to_a_client_trusting_the_ca(
        server: RunningServer, certificates: Certificates) -> None:
    assert server.web is not None
    context = ssl.create_default_context(cafile=str(certificates.ca))
    with urllib.request.urlopen(server.web.url + "/api/seasons", context=context,
                                timeout=20) as response:
        assert response.status == 200
        assert "frame-ancestors 'none'" in response.headers["content-security-policy"]


def test_a_client_trusting_another_ca_is_refused(
        server: RunningServer, tmp_path: Path) -> None:
    other = make_certificates(tmp_path / "other", label="other")
    credentials = grpc.ssl_channel_credentials(root_certificates=other.ca.read_bytes())
    with grpc.secure_channel(server.address, credentials) as channel, \
            pytest.raises(grpc.RpcError) as refused:
        list_bots(channel)
    assert refused.value.code() == grpc.StatusCode.UNAVAILABLE
    assert server.web is not None
    context = ssl.create_default_context(cafile=str(other.ca))
    with pytest.raises(urllib.error.URLError) as error:
        urllib.request.urlopen(server.web.url, context=context, timeout=20)
    assert isinstance(error.value.reason, ssl.SSLCertVerificationError)


def test_a_missing_or_bad_certificate_file_is_named_before_anything_starts(
        tmp_path: Path, certificates: Certificates) -> None:
    with pytest.raises(ConfigError, match=r"cannot read the TLS certificate .*nope\.pem"):
        start_server(tmp_path / "a.db", port=0, tls=TlsFiles(tmp_path / "nope.pem",
                                                              certificates.key))
    (tmp_path / "junk.pem").write_text("not a certificate")
    with pytest.raises(ConfigError, match=r"the TLS key .*junk\.pem is not a PEM file"):
        start_server(tmp_path / "a.db", port=0, tls=TlsFiles(certificates.cert,
                                                              tmp_path / "junk.pem"))
    assert not (tmp_path / "a.db").exists()


class FakeChannel:
    """A channel that never connects: each call is recorded, then answered as
    UNAVAILABLE (what a real unreachable server would answer)."""

    def __init__(self, target: str, *args: Any, **kwargs: Any) -> None:
        self.target = target
        self.calls: list[tuple[str, dict[str, str]]] = []
        CHANNELS.append(self)

    def _method(self, name: str, *args: Any, **kwargs: Any) -> Any:
        def call(request: object, metadata: Any = (), **options: Any) -> Any:
            self.calls.append((name, dict(metadata or ())))
            raise Unreachable()
        return call

    unary_unary = unary_stream = stream_unary = stream_stream = _method

    def close(self) -> None:
        pass


class Unreachable(grpc.RpcError):
    def code(self) -> grpc.StatusCode:
        return grpc.StatusCode.UNAVAILABLE

    def details(self) -> str:
        return "fake channel"


CHANNELS: list[FakeChannel] = []


@pytest.fixture
def fake_channels(monkeypatch: pytest.MonkeyPatch) -> list[FakeChannel]:
    CHANNELS.clear()
    monkeypatch.setattr(client_module.grpc, "insecure_channel", FakeChannel)
    monkeypatch.setattr(client_module.grpc, "secure_channel", FakeChannel)
    return CHANNELS


@pytest.mark.parametrize("target", [OFF_MACHINE, "arena.example.org:50551", "[2001:db8::1]:1"])
def test_a_token_is_never_sent_in_clear_off_this_machine(
        home: Path, fake_channels: list[FakeChannel], capsys: pytest.CaptureFixture[str],
        target: str) -> None:
    code = main(["authors", "add", "ann", "--server", target, "--token", "s3cret"])
    err = capsys.readouterr().err
    assert code == 2
    assert f"refusing to send the token (--token) in clear to {target}" in err
    assert "--insecure" in err and "--tls-ca FILE" in err
    assert [channel.calls for channel in fake_channels] == [[]]  # no call was made


def test_insecure_sends_it_anyway_with_a_warning(
        home: Path, fake_channels: list[FakeChannel], capsys: pytest.CaptureFixture[str]
        ) -> None:
    code = main(["authors", "add", "ann", "--server", OFF_MACHINE, "--token", "s3cret",
                 "--insecure"])
    err = capsys.readouterr().err
    assert code == 1 and f"cannot reach the arena server at {OFF_MACHINE}" in err
    assert f"warning: sending the token (--token) in clear to {OFF_MACHINE} (--insecure)" in err
    (channel,) = fake_channels
    assert channel.calls == [("/hollywood.arena.v1.ArenaService/AddAuthor",
                              {"authorization": "Bearer s3cret"})]


def test_with_tls_a_token_may_go_off_this_machine(
        home: Path, fake_channels: list[FakeChannel], certificates: Certificates,
        capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["authors", "add", "ann", "--server", OFF_MACHINE, "--token", "s3cret",
                 "--tls-ca", str(certificates.ca)])
    assert code == 1 and "warning" not in capsys.readouterr().err
    assert [len(channel.calls) for channel in fake_channels] == [1]


def test_a_read_needs_no_token_and_is_not_refused(
        home: Path, fake_channels: list[FakeChannel]) -> None:
    assert main(["bots", "list", "--server", OFF_MACHINE, "--token", "s3cret"]) == 1
    assert [call for channel in fake_channels for call in channel.calls] == [
        ("/hollywood.arena.v1.ArenaService/ListBots", {})]


@pytest.mark.parametrize(("target", "loopback"), [
    ("localhost:1", True), ("127.0.0.1:1", True), ("127.9.9.9:1", True), ("[::1]:1", True),
    ("ipv4:127.0.0.1:1", True), ("dns:///localhost:1", True), ("unix:/tmp/arena.sock", True),
    ("192.0.2.1:1", False), ("[::ffff:192.0.2.1]:1", False), ("localhost.example:1", False),
    ("10.0.0.1:1", False), ("0.0.0.0:1", False), ("localhost", False), ("::1", False),
])
def test_what_counts_as_this_machine(target: str, loopback: bool) -> None:
    assert is_loopback(target) is loopback
