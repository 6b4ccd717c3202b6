"""A server playing with the fake runner, with five bots uploaded, and a season played
on it to the end: the format tests over the gRPC API (tests/arena/server/test_format_seasons.py,
tests/arena/season/test_format_king_of_the_hill.py) share them through their fixtures."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import grpc
from hollywood.arena.v1 import arena_pb2, arena_pb2_grpc

from arena.core.series import SeriesOutcome, SeriesSpec
from arena.server.app import RunningServer
from tests.helpers.arena_helpers import make_bot_folder, upload_folder
from tests.helpers.fake_runner import run_fake_series
from tests.helpers.servers import servers


@contextmanager
def fake_runner_server(tmp_path: Path, runner: Callable[[SeriesSpec], SeriesOutcome]
                       = run_fake_series) -> Iterator[RunningServer]:
    with servers(tmp_path) as serve:
        yield serve(runner=runner)


@contextmanager
def stub_with_bots(server: RunningServer,
                   tmp_path: Path) -> Iterator[arena_pb2_grpc.ArenaServiceStub]:
    with grpc.insecure_channel(server.address) as channel:
        stub = arena_pb2_grpc.ArenaServiceStub(channel)
        # The fake runner: a name holding "random" plays at random, others knock.
        for name in ("k1", "k2", "k3", "random1", "random2"):
            upload_folder(stub, auth(server), make_bot_folder(tmp_path / "bots", name))
        yield stub


def auth(server: RunningServer) -> tuple[tuple[str, str]]:
    return (("authorization", f"Bearer {server.token}"),)


def play(stub: arena_pb2_grpc.ArenaServiceStub, server: RunningServer, bots: list[str],
         **config: object) -> tuple[arena_pb2.Season, arena_pb2.Standings]:
    created = stub.CreateSeason(arena_pb2.CreateSeasonRequest(
        bots=bots, config=arena_pb2.SeasonConfig(max_hands=20, seed=5, concurrency=2,
                                                 **config)),  # type: ignore[arg-type]
        metadata=auth(server)).season
    for _ in stub.WatchSeason(arena_pb2.WatchSeasonRequest(season_id=created.id)):
        pass
    season = stub.GetSeason(arena_pb2.GetSeasonRequest(season_id=created.id)).season
    standings = stub.GetStandings(arena_pb2.GetStandingsRequest(season_id=created.id,
                                                               include_los=True)).standings
    assert season.status == arena_pb2.SEASON_STATUS_FINISHED, season.error
    return season, standings
