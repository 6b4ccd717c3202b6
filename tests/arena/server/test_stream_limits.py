"""Readers cannot starve the server (issue 10): open watch streams are capped per
client and in total, and unary calls (admin calls included) are still served while
the cap is reached."""

from __future__ import annotations

import threading
from pathlib import Path

import grpc
import pytest
from hollywood.arena.v1 import arena_pb2

from arena.cli.client import ArenaClient
from arena.core.peers import client_of
from arena.server.app import RunningServer
from arena.server.stream_limits import StreamSlots
from tests.helpers.arena_helpers import make_bot_folder, upload_folder
from tests.helpers.servers import ServerFactory

MAX_WORKERS = 12  # 4 stream slots: 12 threads less the 8 kept for unary calls


@pytest.fixture
def server(serve: ServerFactory) -> RunningServer:
    return serve(max_workers=MAX_WORKERS, max_streams_per_client=3)


@pytest.fixture
def one_client_server(serve: ServerFactory) -> RunningServer:
    return serve(max_workers=MAX_WORKERS, max_streams_per_client=MAX_WORKERS)


def _held_season(client: ArenaClient, tmp_path: Path) -> int:
    ids = []
    for name in ("alpha", "beta"):
        folder = make_bot_folder(tmp_path / "bots", name)
        ids.append(upload_folder(client.stub, client.auth, folder).bot.id)
    # A held season never ends, so its watch streams stay open.
    season = client.stub.CreateSeason(
        arena_pb2.CreateSeasonRequest(bots=ids, hold=True), metadata=client.auth).season
    return int(season.id)


class _Watcher:
    """A watch stream read on its own thread until it ends."""

    def __init__(self, target: str, season_id: int) -> None:
        self.channel = grpc.insecure_channel(target)
        from hollywood.arena.v1 import arena_pb2_grpc

        stub = arena_pb2_grpc.ArenaServiceStub(self.channel)
        self.stream = stub.WatchSeason(arena_pb2.WatchSeasonRequest(season_id=season_id))
        self.first = threading.Event()
        self.error: grpc.RpcError | None = None
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        try:
            for _ in self.stream:
                self.first.set()
        except grpc.RpcError as error:
            self.error = error
            self.first.set()

    def close(self) -> None:
        self.stream.cancel()
        self.thread.join(timeout=30)
        self.channel.close()


def test_streams_beyond_the_cap_are_refused_and_unary_calls_still_answer(
    server: RunningServer, tmp_path: Path
) -> None:
    with ArenaClient(server.address, server.token) as client:
        season_id = _held_season(client, tmp_path)
        watchers = [_Watcher(server.address, season_id) for _ in range(3)]
        try:
            for watcher in watchers:
                assert watcher.first.wait(timeout=30)
                assert watcher.error is None
            extra = _Watcher(server.address, season_id)  # 4th from one client: per-client cap
            assert extra.first.wait(timeout=30)
            assert extra.error is not None
            assert extra.error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert "streams open, the limit per client" in str(extra.error.details())
            extra.close()
            # With every stream slot this client may hold in use, unary calls answer,
            # an admin call included, well within a second.
            season = client.stub.GetSeason(arena_pb2.GetSeasonRequest(season_id=season_id),
                                           timeout=1.0).season
            assert season.id == season_id
            listed = client.stub.ListBots(arena_pb2.ListBotsRequest(), timeout=1.0).bots
            assert len(listed) == 2
            started = client.stub.StartSeason(
                arena_pb2.StartSeasonRequest(season_id=season_id), metadata=client.auth,
                timeout=1.0).season
            assert started.id == season_id
        finally:
            for watcher in watchers:
                watcher.close()


def test_as_many_streams_as_server_threads_leave_unary_calls_served(
    one_client_server: RunningServer, tmp_path: Path
) -> None:
    """Without the cap, MAX_WORKERS open streams would hold every thread of the
    server's pool and the unary calls below would time out."""
    server = one_client_server
    with ArenaClient(server.address, server.token) as client:
        season_id = _held_season(client, tmp_path)
        watchers = [_Watcher(server.address, season_id) for _ in range(MAX_WORKERS)]
        try:
            for watcher in watchers:
                assert watcher.first.wait(timeout=30)
            refused = [w for w in watchers if w.error is not None]
            assert len(refused) == MAX_WORKERS - 4
            assert all(w.error is not None
                       and w.error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
                       for w in refused)
            for _ in range(3):
                season = client.stub.GetSeason(
                    arena_pb2.GetSeasonRequest(season_id=season_id), timeout=1.0).season
                assert season.id == season_id
        finally:
            for watcher in watchers:
                watcher.close()


def test_the_total_cap_counts_every_client() -> None:
    slots = StreamSlots(total=3, per_client=2)
    assert slots.acquire("ipv4:10.0.0.1") is None
    assert slots.acquire("ipv4:10.0.0.1") is None
    assert "limit per client" in str(slots.acquire("ipv4:10.0.0.1"))
    assert slots.acquire("ipv4:10.0.0.2") is None
    assert "its limit" in str(slots.acquire("ipv4:10.0.0.3"))
    slots.release("ipv4:10.0.0.1")
    assert slots.acquire("ipv4:10.0.0.3") is None
    assert slots.open_streams() == 3


def test_a_client_is_its_address_without_the_port() -> None:
    assert client_of("ipv4:127.0.0.1:50123") == "ipv4:127.0.0.1"
    assert client_of("ipv6:[::1]:50123") == "ipv6:[::1]"
    assert client_of("unix:/tmp/arena.sock") == "unix"


def test_stream_caps_must_be_consistent() -> None:
    with pytest.raises(ValueError, match="per_client"):
        StreamSlots(total=2, per_client=3)
