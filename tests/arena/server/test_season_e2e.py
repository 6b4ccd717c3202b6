"""End to end: a season of the sample bots in Docker containers, driven through the
gRPC API (client -> arena server -> runner -> sandboxed bots), checked in the
database and through the API's standings and series replay."""

from __future__ import annotations

import json
import os
from typing import Any

import pytest
from hollywood.arena.v1 import arena_pb2

from arena.cli.client import ArenaClient
from arena.cli.local import sample_bot_folders
from arena.cli.submit import upload
from arena.sandbox.docker import OWNER_LABEL
from arena.server.app import RunningServer
from engine import Series
from tests.helpers.servers import ServerFactory

pytestmark = pytest.mark.docker


@pytest.fixture
def server(serve: ServerFactory, base_image: str) -> RunningServer:
    return serve(runner=None)  # bots run in Docker, from the base image built first


def test_docker_season_through_the_api(server: RunningServer, docker_client: Any) -> None:
    folders = sample_bot_folders()
    assert len(folders) >= 2, "the sample bots are missing"
    with ArenaClient(server.address, server.token) as client:
        # Uploaded as `arena bots register` does: the images are built from the
        # server's unpacked copies of the bundles.
        ids = [upload(client, folder).bot.id for folder in folders]
        season = client.stub.CreateSeason(arena_pb2.CreateSeasonRequest(
            bots=ids, config=arena_pb2.SeasonConfig(
                sandbox_backend="docker", series_per_pair=2, max_hands=8,
                decision_seconds=2.0, startup_seconds=30.0, concurrency=2)),
            metadata=client.auth).season
        pairs = len(ids) * (len(ids) - 1) // 2
        assert season.series_total == 2 * pairs
        finished = []
        last = None
        for last in client.stub.WatchSeason(
                arena_pb2.WatchSeasonRequest(season_id=season.id), timeout=600):
            if last.WhichOneof("event") == "series_finished":
                finished.append(last.series_finished.series)
        assert last is not None and last.status == arena_pb2.SEASON_STATUS_FINISHED, (
            client.stub.GetSeason(arena_pb2.GetSeasonRequest(season_id=season.id)).season.error)
        assert sorted(s.series_id for s in finished) == sorted(
            f"{season.id}-{i}" for i in range(season.series_total))
        for summary in finished:
            assert not summary.HasField("fault"), summary.fault
            assert summary.hands_played >= 1
            assert summary.think_seconds[0] > 0 and summary.think_seconds[1] > 0
        rows = last.standings.rows
        assert {row.bot_id for row in rows} == set(ids)
        assert all(row.series_played == 2 * (len(ids) - 1) for row in rows)

        detail = client.stub.GetSeries(arena_pb2.GetSeriesRequest(series_id=f"{season.id}-1"))
        log = json.loads(detail.event_log_json)
        replayed = Series.replay(log)
        assert len(replayed.hands) == detail.series.hands_played
        assert len(detail.hands) == detail.series.hands_played
        first = client.stub.GetSeries(arena_pb2.GetSeriesRequest(series_id=f"{season.id}-0"))
        assert first.series.seed == detail.series.seed
        assert (first.series.seat0_bot, first.series.seat1_bot) == (
            detail.series.seat1_bot, detail.series.seat0_bot)
    # The season's containers outlive it, kept by the server for its bots' next
    # seasons (arena/sandbox/shelf.py); every one is removed (this process owns them)
    # when the server closes its shelf, as its stop does.
    assert server.manager.wait(season.id, timeout=120)
    owner = f"{OWNER_LABEL}={os.getpid()}"
    assert docker_client.api.containers(filters={"label": owner})  # kept, up
    assert server.shelf is not None
    server.shelf.close()
    assert docker_client.api.containers(all=True, filters={"label": owner}) == []

