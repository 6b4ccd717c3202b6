"""The web and the terminal show equal standings and time left on a Swiss season
mid-way (issue 27's "one source"): a server with its website plays a Swiss season
with a scripted runner on an injected clock (each series takes 10 s of it), paused
after 12 of its 24 series; the terminal's renderings (``arena standings`` and the
first message of ``season watch``) and the website's page and JSON then show the
same rows in the same order and the same pace and time left, worked out by hand,
from one reading of the server's standings."""

from __future__ import annotations

import dataclasses
import io
import re
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import grpc
import pytest
from hollywood.arena.v1 import arena_pb2, arena_pb2_grpc
from starlette.testclient import TestClient

from arena.cli.render import plain_console, print_standings
from arena.core.series import SeriesOutcome, SeriesSpec
from arena.server.app import RunningServer
from tests.helpers.arena_helpers import make_bot_folder, upload_folder
from tests.helpers.fake_runner import run_fake_series
from tests.helpers.polling import wait_until
from tests.helpers.servers import ServerFactory

BOTS = ("k1", "k2", "k3", "k4", "k5", "k6", "random1", "random2")
SERIES_SECONDS = 10
PAUSED_AFTER = 12
# 8 bots, 3 rounds of 4 pairs, 2 series a pair: 24 series, the first round's 8 planned.
# 12 done in 120 s of play: 6 a minute; 12 left: 120 s.
PACE_LINE = "6.0 series/min, 12/24 series expected, about 2 min 0 s left"
ROW_FIELDS = ("rank", "bot_id", "series_points", "series_played", "series_won",
              "series_drawn", "series_lost", "series_forfeited", "games_won", "games_lost",
              "hands_won", "points_for", "points_against")


class Clock:
    """The storage's clock (result times): moved on only by the scripted runner."""

    def __init__(self) -> None:
        self.now = datetime(2026, 1, 1, 10, 0, 0, tzinfo=UTC)

    def stamp(self) -> str:
        return self.now.strftime("%Y-%m-%dT%H:%M:%SZ")


class ScriptedRunner:
    """The fake runner's series, each taking ``SERIES_SECONDS`` of the clock; the
    series after the first ``PAUSED_AFTER`` waits for ``resume``."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self.started = 0
        self.resume = threading.Event()

    def __call__(self, spec: SeriesSpec) -> SeriesOutcome:
        self.started += 1
        if self.started > PAUSED_AFTER:
            self.resume.wait(timeout=120)  # bounded: a stuck test fails, never hangs
        outcome = run_fake_series(spec)
        self.clock.now += timedelta(seconds=SERIES_SECONDS)
        return dataclasses.replace(outcome, wall_seconds=float(SERIES_SECONDS))


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    clock = Clock()
    monkeypatch.setattr("arena.storage.store.utc_now", clock.stamp)
    return clock


@pytest.fixture
def server(serve: ServerFactory, clock: Clock) -> Iterator[tuple[RunningServer, ScriptedRunner]]:
    runner = ScriptedRunner(clock)
    yield serve(runner=runner, http=("127.0.0.1", 0)), runner
    runner.resume.set()


def terminal_text(standings: arena_pb2.Standings) -> str:
    output = io.StringIO()
    print_standings(plain_console(file=output, width=250), standings)
    return output.getvalue()


def test_web_and_terminal_show_the_same_standings_and_time_left_mid_way(
        server: tuple[RunningServer, ScriptedRunner], tmp_path: Path) -> None:
    running, runner = server
    auth = (("authorization", f"Bearer {running.token}"),)
    with grpc.insecure_channel(running.address) as channel:
        stub = arena_pb2_grpc.ArenaServiceStub(channel)
        for name in BOTS:
            upload_folder(stub, auth, make_bot_folder(tmp_path / "bots", name))
        season_id = stub.CreateSeason(arena_pb2.CreateSeasonRequest(
            bots=list(BOTS), config=arena_pb2.SeasonConfig(
                format="swiss", rounds=3, series_per_pair=2, concurrency=1, max_hands=20,
                seed=5)), metadata=auth).season.id
        wait_until(lambda: running.storage.get_season(season_id).series_done == PAUSED_AFTER,
                   bound_s=120, what="the season to reach its pause")
        season = running.storage.get_season(season_id)
        assert (season.status, season.series_total) == ("running", 16)  # rounds 1 and 2

        readings = running.service.readings
        builds = readings.builds
        standings = stub.GetStandings(
            arena_pb2.GetStandingsRequest(season_id=season_id)).standings
        watched = next(iter(stub.WatchSeason(
            arena_pb2.WatchSeasonRequest(season_id=season_id)))).standings
        web = TestClient(running.web.app)  # type: ignore[union-attr]
        page = web.get(f"/api/seasons/{season_id}").json()
        html = web.get(f"/seasons/{season_id}").text

    # The same table everywhere: rows, order, ranks, the format's columns.
    proto_rows = [{name: getattr(row, name) for name in ROW_FIELDS} for row in standings.rows]
    assert [{name: row[name] for name in ROW_FIELDS} for row in page["standings"]] == proto_rows
    assert [row["rank"] for row in page["standings"]] == list(range(1, 9))
    assert sum(row["series_played"] for row in page["standings"]) == 2 * PAUSED_AFTER
    assert page["format_extras"]["columns"] == list(standings.extra_columns)
    assert [page["format_extras"]["cells"][row.bot_id] for row in standings.rows] == [
        list(row.extra_cells) for row in standings.rows]
    assert watched.rows == standings.rows
    terminal = terminal_text(standings)
    order = [row.bot_id for row in standings.rows]
    # The standings' rows open with their rank; the crosstable's rows carry the same key.
    assert re.findall(r'<tr data-bot="([^"]+)"><td class="num">', html) == order
    assert sorted(order, key=terminal.index) == order  # the terminal lists them in that order

    # The same pace and time left, worked out by hand.
    progress = page["progress"]
    assert (progress["done"], progress["expected"], progress["total"]) == (12, 24, 24)
    assert (progress["series_per_minute"], progress["seconds_left"]) == (6.0, 120.0)
    assert (standings.series_per_minute, standings.seconds_left) == (6.0, 120.0)
    assert PACE_LINE in terminal
    assert f"Season {season_id} — 12/24 series (running)" in terminal  # not 12/16 planned
    assert '<span id="season-done">12</span>/24 series (50.0 %)' in html
    assert PACE_LINE in terminal_text(watched)
    assert PACE_LINE in html

    # One reading served both screens: the website shares the server's readings,
    # and the table of 12 results was built once for the three reads.
    assert running.web.website.readings is readings  # type: ignore[union-attr]
    assert readings.builds == builds + 1

    runner.resume.set()
    wait_until(lambda: running.storage.get_season(season_id).status == "finished",
               bound_s=120, what="the season to finish")
