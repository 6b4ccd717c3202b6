"""A thin client of the arena's gRPC API (what the ``arena`` command line uses)."""

from __future__ import annotations

import argparse
import os
from typing import Final

import grpc
from hollywood.arena.v1 import arena_pb2, arena_pb2_grpc

from arena.cli.credentials import Credentials, find_credentials
from arena.cli.output import CliError
from arena.core.defaults import AUTH_METADATA_KEY, DEFAULT_SERVER
from arena.core.upload_messages import upload_messages

SERVER_ENV: Final = "ARENA_SERVER"
CHANNEL_OPTIONS: Final = [("grpc.initial_reconnect_backoff_ms", 200),
                          ("grpc.max_reconnect_backoff_ms", 2000)]
"""A restarted server is reached within two seconds (gRPC's own default waits up
to two minutes between tries); ``arena.cli.watching`` paces the retries."""


def default_server() -> str:
    return os.environ.get(SERVER_ENV, DEFAULT_SERVER)


class ArenaClient:
    """The API stub plus the admin token's metadata for mutating calls."""

    def __init__(self, target: str, token: str | None = None,
                 token_problem: CliError | None = None) -> None:
        self.target = target
        self.channel = grpc.insecure_channel(target, options=CHANNEL_OPTIONS)
        self.stub = arena_pb2_grpc.ArenaServiceStub(self.channel)
        self.token = token
        self._token_problem = token_problem
        """Why the token could not be read: raised when a call needs it (reads do not)."""

    @property
    def auth(self) -> tuple[tuple[str, str], ...]:
        """Metadata for a mutating call (empty without a token: the server then says
        UNAUTHENTICATED)."""
        if self._token_problem is not None:
            raise self._token_problem
        return ((AUTH_METADATA_KEY, f"Bearer {self.token}"),) if self.token else ()

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


def connect(args: argparse.Namespace) -> ArenaClient:
    """The client of the server and token that a command's ``--server``, ``--token``
    and ``--token-file`` name (each with its default)."""
    target = args.server or default_server()
    try:
        return ArenaClient(target, credentials_of(args).token)
    except CliError as problem:  # e.g. a credentials file others may read
        return ArenaClient(target, None, problem)
