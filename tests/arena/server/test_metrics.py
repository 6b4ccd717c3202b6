"""The operator's metrics (``arena serve --metrics``): scraped over HTTP during a season
and at its end, the counters equal what the database stores, the gauges what waits,
and every unary call is timed under its method and status code."""

from __future__ import annotations

import json
import sqlite3
import threading
import urllib.request
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from hollywood.arena.v1 import arena_pb2
from prometheus_client.parser import text_string_to_metric_families

from arena.cli import main as arena
from arena.cli.client import ArenaClient
from arena.core.faults import BotFault, FaultKind
from arena.core.series import SeriesOutcome, SeriesSpec, outcome_of
from arena.sandbox.tally import TALLY
from arena.server.app import RunningServer, start_server
from engine.series import Series
from tests.helpers.arena_helpers import make_bot_folder, upload_folder
from tests.helpers.fake_runner import run_fake_series
from tests.helpers.polling import wait_until

PLAYED_BEFORE_THE_STALL = 3


class StallingRunner:
    """Plays the first series at once, then holds every later one until released;
    "crashy" forfeits (a crash before its first decision) every other series it is
    asked to play, from the first, and plays the others out (seeds are drawn in
    secret, so the choice cannot rest on them)."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self._calls = 0
        self._lock = threading.Lock()

    def __call__(self, spec: SeriesSpec) -> SeriesOutcome:
        with self._lock:
            self._calls += 1
            call = self._calls
        if call > PLAYED_BEFORE_THE_STALL:
            assert self.release.wait(timeout=120), "the test never released the season"
        if call % 2 == 1:
            seat = 0 if spec.bots[0].name == "crashy" else 1
            series = Series(spec.seed, spec.profile, max_hands=spec.max_hands,
                            swap_seats=spec.swap_seats)
            return outcome_of(spec.series_id, series, 1 - seat,
                              BotFault(FaultKind.CRASH, "boom", seat=seat), (0.0, 0.0), 0.0)
        return run_fake_series(spec)


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[RunningServer, StallingRunner]]:
    runner = StallingRunner()
    running = start_server(tmp_path / "arena.db", port=0, resume=False,
                           runner_factory=lambda config: runner, metrics=("127.0.0.1", 0))
    try:
        yield running, runner
    finally:
        runner.release.set()
        running.stop(grace=None)


def scrape(running: RunningServer) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of ``/metrics``, by name and labels, read by Prometheus's parser."""
    url = f"http://127.0.0.1:{running.metrics_port}/metrics"
    with urllib.request.urlopen(url, timeout=30) as response:
        assert response.status == 200
        text = response.read().decode()
    return {(sample.name, tuple(sorted(sample.labels.items()))): sample.value
            for family in text_string_to_metric_families(text) for sample in family.samples}


def stored(db: Path) -> tuple[int, Counter[str]]:
    """Series stored and forfeits by kind, read straight from the database."""
    connection = sqlite3.connect(db)
    try:
        rows = connection.execute("SELECT fault_json FROM series_results").fetchall()
    finally:
        connection.close()
    kinds: Counter[str] = Counter()
    for (fault_json,) in rows:
        fault = json.loads(fault_json) if fault_json else None
        while fault:
            kinds[fault["kind"]] += 1
            fault = fault.get("other_seat_fault")
    return len(rows), kinds


def assert_counters_match(metrics: dict[tuple[str, tuple[tuple[str, str], ...]], float],
                          db: Path) -> None:
    played, kinds = stored(db)
    assert metrics[("arena_series_played_total", ())] == played
    for kind in FaultKind:
        assert metrics[("arena_faults_total", (("kind", str(kind)),))] == kinds[str(kind)]


def test_metrics_during_and_after_a_season_equal_the_stored_counts(
    served: tuple[RunningServer, StallingRunner], tmp_path: Path
) -> None:
    running, runner = served
    db = tmp_path / "arena.db"
    with ArenaClient(running.address, running.token) as client:
        for name in ("crashy", "steady"):
            upload_folder(client.stub, client.auth, make_bot_folder(tmp_path / "bots", name))
        season = client.stub.CreateSeason(arena_pb2.CreateSeasonRequest(
            bots=["crashy", "steady"], config=arena_pb2.SeasonConfig(
                series_per_pair=10, concurrency=2, max_hands=5)), metadata=client.auth).season
        with pytest.raises(grpc.RpcError) as refused:
            client.stub.GetBot(arena_pb2.GetBotRequest(name="nobody"))
        assert refused.value.code() == grpc.StatusCode.NOT_FOUND

        during = wait_until(
            lambda: (lambda m: m if m[("arena_series_played_total", ())]
                     >= PLAYED_BEFORE_THE_STALL else None)(scrape(running)),
            what="the first series stored")
        stream = client.stub.WatchSeason(arena_pb2.WatchSeasonRequest(season_id=season.id),
                                         timeout=120)
        next(stream)  # the stream is open once its first message arrives
        during = scrape(running)
        assert during[("arena_series_played_total", ())] == PLAYED_BEFORE_THE_STALL
        assert_counters_match(during, db)
        assert during[("arena_series_pending", ())] == 10 - PLAYED_BEFORE_THE_STALL
        assert during[("arena_open_streams", ())] == 1
        assert during[("arena_vetting_queue", (("state", "waiting"),))] == 0
        assert during[("arena_uploads_in_progress", ())] == 0

        runner.release.set()
        *_, last = stream
        assert last.status == arena_pb2.SEASON_STATUS_FINISHED

    after = scrape(running)
    assert_counters_match(after, db)
    assert after[("arena_series_played_total", ())] == 10
    played, kinds = stored(db)
    assert kinds["crash"] >= 1 and played == 10  # the season really had forfeits
    assert after[("arena_series_pending", ())] == 0
    assert after[("arena_series_voided_total", ())] == 0
    assert after[("arena_outcomes_refused_total", ())] == 0
    assert after[("arena_open_streams", ())] == 0
    assert after[("arena_rpc_duration_seconds_count",
                  (("code", "OK"), ("method", "CreateSeason")))] == 1
    assert after[("arena_rpc_duration_seconds_count",
                  (("code", "NOT_FOUND"), ("method", "GetBot")))] == 1


def test_a_restarted_server_counts_what_was_stored_before(tmp_path: Path) -> None:
    first = start_server(tmp_path / "arena.db", port=0, resume=False,
                         runner_factory=lambda config: run_fake_series, metrics=("127.0.0.1", 0))
    try:
        with ArenaClient(first.address, first.token) as client:
            for name in ("greedy", "random"):
                upload_folder(client.stub, client.auth, make_bot_folder(tmp_path / "bots", name))
            season = client.stub.CreateSeason(arena_pb2.CreateSeasonRequest(
                bots=["greedy", "random"], config=arena_pb2.SeasonConfig(
                    series_per_pair=4, max_hands=5)), metadata=client.auth).season
        assert first.manager.wait(season.id, timeout=60)
    finally:
        first.stop(grace=None)
    second = start_server(tmp_path / "arena.db", port=0, resume=False,
                          metrics=("127.0.0.1", 0))
    try:
        assert scrape(second)[("arena_series_played_total", ())] == 4
    finally:
        second.stop(grace=None)


def test_a_taken_metrics_port_is_a_clear_error(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    holder = start_server(tmp_path / "a.db", port=0, resume=False, metrics=("127.0.0.1", 0))
    try:
        taken = holder.metrics_port
        with pytest.raises(RuntimeError, match=f"cannot serve metrics on 127.0.0.1:{taken}"):
            start_server(tmp_path / "b.db", port=0, resume=False, metrics=("127.0.0.1", taken))
        assert arena(["serve", "--db", str(tmp_path / "c.db"), "--port", "0", "--no-http",
                      "--metrics", f"127.0.0.1:{taken}"]) == 1
        assert f"cannot serve metrics on 127.0.0.1:{taken}" in capsys.readouterr().err
        with pytest.raises(SystemExit) as bad:
            arena(["serve", "--metrics", "nowhere"])
        assert bad.value.code == 2
        assert "argument --metrics: 'nowhere' is not HOST:PORT" in capsys.readouterr().err
    finally:
        holder.stop(grace=None)


def test_the_sandboxes_starts_reuses_and_renewals_are_counted(
        served: tuple[RunningServer, StallingRunner]) -> None:
    running, _ = served
    names = ("arena_container_starts_total", "arena_container_reuses_total",
             "arena_container_renewals_total")
    before = scrape(running)
    TALLY.started()
    TALLY.reused()
    TALLY.renewed()
    TALLY.renewed()
    after = scrape(running)
    assert [after[(name, ())] - before[(name, ())] for name in names] == [1, 1, 2]
