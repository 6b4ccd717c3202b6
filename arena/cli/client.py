"""A thin client of the arena's gRPC API (what the ``arena`` command line uses).

A token is sent only where it belongs: never in clear to an address off this
machine (TLS, or ``--insecure`` on a network one trusts), and the admin token found
next to the database only to the server that proves it holds it (see
``arena.core.token_binding``). Every refusal happens before the token leaves: the
check runs when a call first needs the token, before that call is made."""

from __future__ import annotations

import argparse
import hmac
import os
import secrets
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import grpc
from hollywood.arena.v1 import arena_pb2, arena_pb2_grpc

from arena.cli.credentials import Credentials, find_credentials, stored_default_server
from arena.cli.output import CliError
from arena.core.defaults import AUTH_METADATA_KEY, DEFAULT_SERVER
from arena.core.settings import ConfigError
from arena.core.tls import read_certificates
from arena.core.token_binding import CHALLENGE_BYTES, admin_token_proof, is_loopback
from arena.core.upload_messages import upload_messages

SERVER_ENV: Final = "ARENA_SERVER"
TLS_CA_ENV: Final = "ARENA_TLS_CA"
CHANNEL_OPTIONS: Final = [("grpc.initial_reconnect_backoff_ms", 200),
                          ("grpc.max_reconnect_backoff_ms", 2000)]
"""A restarted server is reached within two seconds (gRPC's own default waits up
to two minutes between tries); ``arena.cli.watching`` paces the retries."""
PROOF_TIMEOUT_S: Final = 30.0


def default_server() -> str:
    """``$ARENA_SERVER``, else the server ``arena login`` last stored, else localhost."""
    return os.environ.get(SERVER_ENV) or stored_default_server() or DEFAULT_SERVER


@dataclass(frozen=True)
class Transport:
    """How the client reaches its server: in clear (the default), or TLS checked
    against ``ca_file`` (PEM) or, without one, the system's CAs."""

    tls: bool = False
    ca_file: Path | None = None
    insecure: bool = False
    """Send a token in clear to an address off this machine anyway (warned)."""

    def channel(self, target: str) -> grpc.Channel:
        if not self.tls:
            return grpc.insecure_channel(target, options=CHANNEL_OPTIONS)
        roots = (None if self.ca_file is None
                 else read_certificates(self.ca_file, "CA certificate"))
        return grpc.secure_channel(target, grpc.ssl_channel_credentials(root_certificates=roots),
                                   options=CHANNEL_OPTIONS)


class ArenaClient:
    """The API stub plus the token's metadata for calls that need one."""

    def __init__(self, target: str, token: str | Credentials | None = None,
                 token_problem: CliError | None = None, *,
                 transport: Transport = Transport()) -> None:
        self.target = target
        self.transport = transport
        self.channel = transport.channel(target)
        self.stub = arena_pb2_grpc.ArenaServiceStub(self.channel)
        self.credentials = (token if isinstance(token, Credentials)
                            else Credentials(token, "the token given", ""))
        self._token_problem = token_problem
        """Why the token could not be read: raised when a call needs it (reads do not)."""
        self._proved = False
        self._warned = False

    @property
    def token(self) -> str | None:
        return self.credentials.token

    @property
    def auth(self) -> tuple[tuple[str, str], ...]:
        """Metadata for a call that needs a token (empty without one: the server then
        says UNAUTHENTICATED). ``CliError``, before anything is sent, when the token
        must not go to this server."""
        if self._token_problem is not None:
            raise self._token_problem
        credentials = self.credentials
        if credentials.token is None:
            if credentials.held_back:
                raise CliError(f"{credentials.held_back}; {credentials.advice}")
            return ()
        self._check_transport(credentials)
        if credentials.proof_needed and not self._proved:
            self._prove(credentials)
        return ((AUTH_METADATA_KEY, f"Bearer {credentials.token}"),)

    def _check_transport(self, credentials: Credentials) -> None:
        """Refuse to send a token in clear off this machine (``--insecure`` overrides)."""
        if self.transport.tls or is_loopback(self.target):
            return
        if not self.transport.insecure:
            raise CliError(
                f"refusing to send the token ({credentials.source}) in clear to {self.target}: "
                "it is not a loopback address, and anyone on the way could read the token; "
                "connect with TLS (--tls-ca FILE, or --tls to trust the system's CAs) or, on "
                "a network you trust, pass --insecure")
        if not self._warned:
            self._warned = True
            print(f"warning: sending the token ({credentials.source}) in clear to "
                  f"{self.target} (--insecure)", file=sys.stderr)

    def _prove(self, credentials: Credentials) -> None:
        """Have the server prove it holds the local admin token before it is sent."""
        assert credentials.token is not None
        challenge = secrets.token_bytes(CHALLENGE_BYTES)
        held_back = f"{credentials.source} was held back: the server at {self.target}"
        try:
            answer = self.stub.ProveAdminToken(
                arena_pb2.ProveAdminTokenRequest(challenge=challenge, address=self.target),
                timeout=PROOF_TIMEOUT_S)
        except grpc.RpcError as error:
            if error.code() == grpc.StatusCode.UNAVAILABLE:
                raise  # "cannot reach the arena server at ..."
            raise CliError(f"{held_back} did not prove that it holds it ({error.code().name}: "
                           f"{error.details()}); {credentials.advice}") from None
        # The proof names the address dialed here: one relayed from a server elsewhere
        # names that server's address, and fails.
        expected = admin_token_proof(credentials.token, self.target, challenge)
        if not hmac.compare_digest(answer.proof, expected):
            raise CliError(f"{held_back} could not prove that it holds it (is another server "
                           f"answering at that address?); {credentials.advice}")
        self._proved = True

    def submit(self, archive: bytes, *, compression: str = "gzip", replace: bool = False
               ) -> arena_pb2.SubmitBotResponse:
        """Upload a bot archive (a tar, gzip or zstd) in chunks of at most 1 MiB."""
        response: arena_pb2.SubmitBotResponse = self.stub.SubmitBot(
            upload_messages(archive, compression=compression, replace=replace),
            metadata=self.auth)
        return response

    def close(self) -> None:
        self.channel.close()

    def __enter__(self) -> ArenaClient:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def credentials_of(args: argparse.Namespace) -> Credentials:
    """The token a command's options (``--token``, ``--token-file``) and the
    environment give for its server (see ``arena.cli.credentials``)."""
    return find_credentials(getattr(args, "server", None) or default_server(),
                            getattr(args, "token", None), getattr(args, "token_file", None))


def transport_of(args: argparse.Namespace) -> Transport:
    """TLS with ``--tls-ca`` (else ``$ARENA_TLS_CA``) or ``--tls``; ``--insecure``."""
    ca = getattr(args, "tls_ca", None) or os.environ.get(TLS_CA_ENV) or None
    return Transport(tls=bool(getattr(args, "tls", None)) or ca is not None,
                     ca_file=None if ca is None else Path(ca),
                     insecure=bool(getattr(args, "insecure", None)))


def connect(args: argparse.Namespace) -> ArenaClient:
    """The client of the server, token and transport that a command's ``--server``,
    ``--token``, ``--token-file``, ``--tls-ca``, ``--tls`` and ``--insecure`` name
    (each with its default)."""
    target = args.server or default_server()
    transport = transport_of(args)
    try:
        try:
            credentials: Credentials | None = credentials_of(args)
            problem = None
        except CliError as error:  # e.g. a credentials file others may read
            credentials, problem = None, error
        return ArenaClient(target, credentials, problem, transport=transport)
    except ConfigError as error:  # a missing or bad CA file
        raise CliError(str(error)) from None

