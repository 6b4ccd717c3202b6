"""A thin client of the arena's gRPC API (what the ``arena`` command line uses)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Final

import grpc
from hollywood.arena.v1 import arena_pb2_grpc

from arena.core.defaults import AUTH_METADATA_KEY, DEFAULT_DB, DEFAULT_SERVER, token_path_for

SERVER_ENV: Final = "ARENA_SERVER"
TOKEN_ENV: Final = "ARENA_TOKEN"
CHANNEL_OPTIONS: Final = [("grpc.initial_reconnect_backoff_ms", 200),
                          ("grpc.max_reconnect_backoff_ms", 2000)]
"""A restarted server is reached within two seconds (gRPC's own default waits up
to two minutes between tries); ``arena.cli.watching`` paces the retries."""


def default_server() -> str:
    return os.environ.get(SERVER_ENV, DEFAULT_SERVER)


def find_token(explicit: str | None, token_file: Path | None) -> str | None:
    """The admin token: ``explicit``, else ``$ARENA_TOKEN``, else the token file
    (default: the one next to the default database). None if there is none."""
    if explicit:
        return explicit.strip()
    if os.environ.get(TOKEN_ENV):
        return os.environ[TOKEN_ENV].strip()
    path = token_file or token_path_for(DEFAULT_DB)
    try:
        return path.read_text().strip() or None
    except OSError:
        return None


class ArenaClient:
    """The API stub plus the admin token's metadata for mutating calls."""

    def __init__(self, target: str, token: str | None = None) -> None:
        self.target = target
        self.channel = grpc.insecure_channel(target, options=CHANNEL_OPTIONS)
        self.stub = arena_pb2_grpc.ArenaServiceStub(self.channel)
        self.token = token

    @property
    def auth(self) -> tuple[tuple[str, str], ...]:
        """Metadata for a mutating call (empty without a token: the server then says
        UNAUTHENTICATED)."""
        return ((AUTH_METADATA_KEY, f"Bearer {self.token}"),) if self.token else ()

    def close(self) -> None:
        self.channel.close()

    def __enter__(self) -> ArenaClient:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def connect(args: argparse.Namespace) -> ArenaClient:
    """The client of the server and token that a command's ``--server``, ``--token``
    and ``--token-file`` name (each with its default)."""
    return ArenaClient(args.server or default_server(), find_token(args.token, args.token_file))
