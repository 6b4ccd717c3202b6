"""``arena season cancel`` reports where the season stands after the cancel (issue 10,
point 7): its status, series finished and planned, and what happened to the series
that were running."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from hollywood.arena.v1 import arena_pb2

from arena.cli import main
from arena.cli.client import ArenaClient
from arena.core.series import SeriesOutcome, SeriesSpec
from arena.server.app import RunningServer
from tests.helpers.fake_runner import run_fake_series
from tests.helpers.servers import ServerFactory, with_bots

BOUND_S = 30.0


class GatedRunner:
    """Plays with the fake runner, each series waiting at the gate first."""

    def __init__(self) -> None:
        self.entered = threading.Event()
        self.gate = threading.Event()

    def __call__(self, spec: SeriesSpec) -> SeriesOutcome:
        self.entered.set()
        assert self.gate.wait(BOUND_S), "the test never opened the gate"
        return run_fake_series(spec)


@pytest.fixture
def runner() -> GatedRunner:
    return GatedRunner()


@pytest.fixture
def server(serve: ServerFactory, tmp_path: Path, runner: GatedRunner) -> Iterator[RunningServer]:
    yield with_bots(serve(runner=runner), tmp_path)
    runner.gate.set()  # no series left waiting


def create(server: RunningServer, *, hold: bool) -> int:
    with ArenaClient(server.address, server.token) as client:
        return int(client.stub.CreateSeason(arena_pb2.CreateSeasonRequest(
            bots=["greedy", "random"], hold=hold,
            config=arena_pb2.SeasonConfig(series_per_pair=4, concurrency=1)),
            metadata=client.auth).season.id)


def cancel(server: RunningServer, season_id: int, *extra: str) -> list[str]:
    return ["season", "cancel", str(season_id), "--server", server.address,
            "--token", server.token, *extra]


def test_cancel_waits_for_the_series_in_flight_and_reports_the_end_state(
    server: RunningServer, runner: GatedRunner, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    season_id = create(server, hold=False)
    assert runner.entered.wait(BOUND_S)  # the first series is in flight, at the gate
    cancel_requested = threading.Event()
    manager_cancel = server.manager.cancel

    def cancel_and_note(cancelled_id: int) -> None:
        manager_cancel(cancelled_id)
        cancel_requested.set()

    monkeypatch.setattr(server.manager, "cancel", cancel_and_note)
    codes: list[int] = []
    command = threading.Thread(target=lambda: codes.append(main(cancel(server, season_id))))
    command.start()
    assert cancel_requested.wait(BOUND_S)
    runner.gate.set()  # the series in flight finishes; no other starts
    command.join(BOUND_S)
    assert codes == [0]
    assert capsys.readouterr().out.splitlines() == [
        f"season {season_id}: cancel requested; waiting for the series in flight to finish "
        "(Ctrl-C stops waiting, not the cancel)",
        f"season {season_id} cancelled: 1/4 series finished, 3 not played; 1 series in "
        "flight at the cancel finished and was stored",
    ]


def test_cancelling_a_season_not_started_reports_it_at_once(
    server: RunningServer, capsys: pytest.CaptureFixture[str]
) -> None:
    season_id = create(server, hold=True)
    assert main(cancel(server, season_id)) == 0
    assert capsys.readouterr().out.splitlines() == [
        f"season {season_id} cancelled: 0/4 series finished, 4 not played; "
        "no series was running"]


def test_cancel_json_is_the_season_after_the_cancel(
    server: RunningServer, capsys: pytest.CaptureFixture[str]
) -> None:
    season_id = create(server, hold=True)
    assert main(cancel(server, season_id, "--json")) == 0
    shown = json.loads(capsys.readouterr().out)
    assert (shown["id"], shown["status"], shown["series_done"], shown["series_total"]) == (
        season_id, "SEASON_STATUS_CANCELLED", 0, 4)


def test_no_wait_reports_the_season_still_running(
    server: RunningServer, runner: GatedRunner, capsys: pytest.CaptureFixture[str]
) -> None:
    season_id = create(server, hold=False)
    assert runner.entered.wait(BOUND_S)
    try:
        assert main(cancel(server, season_id, "--no-wait")) == 0
    finally:
        runner.gate.set()
    assert capsys.readouterr().out.splitlines() == [
        f"season {season_id} running: 0/4 series finished, 4 not played; the series in "
        "flight finish and are stored, then it ends cancelled"]
