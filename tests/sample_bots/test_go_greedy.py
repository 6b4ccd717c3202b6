"""The Go sample bot, sample_bots/go-greedy: its toolchain installs from Debian's packages
(arena/scripts/ensure-go-toolchain.sh, no module proxy), build.sh makes one static
binary, the handshake says the name and version the arena gives it (HOLLYWOOD_BOT_NAME /
HOLLYWOOD_BOT_VERSION, nothing hard-coded), and it plays a season against the Python
greedy bot without a fault: in the process sandbox, through the arena's API with
vetting, and in Docker.

Slow (the first build compiles grpc-go: a minute or two on a loaded machine).
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hollywood.arena.v1 import arena_pb2

from arena.cli.client import ArenaClient
from arena.cli.lifecycle import wait_all_active
from arena.cli.submit import upload
from arena.core.series import BotRef
from arena.match.botclient import BotClient
from arena.sandbox.process import ProcessSandbox
from arena.server.app import RunningServer, start_server
from tests.helpers.compiled_bots import (
    LIMITS,
    build_sample_bot,
    check_clean,
    check_notes,
    play_pair,
)
from tests.helpers.polling import wait_until
from tests.helpers.sandboxes import REPO_ROOT, SAMPLE_BOTS, arena_leftovers

pytestmark = pytest.mark.slow

GO = SAMPLE_BOTS / "go-greedy"


@pytest.fixture(scope="module")
def go_greedy() -> Path:
    """The bot built: the toolchain installed if missing, then build.sh."""
    return build_sample_bot(GO, "ensure-go-toolchain.sh", 1800)


def test_the_binary_is_static_and_alone_in_its_bundle(go_greedy: Path) -> None:
    described = subprocess.run(["file", "-b", str(go_greedy / "bin" / "go-greedy")],
                               capture_output=True, text=True, check=True).stdout
    assert "statically linked" in described, described
    assert sorted(path.name for path in (go_greedy / "bin").iterdir()) == ["go-greedy"]
    # The build leaves sources and the binary only (its work goes to a temporary GOPATH).
    assert {path.name for path in go_greedy.iterdir()} <= {
        ".gitignore", "Dockerfile", "README.md", "bot.toml", "build.sh", "src", "bin"}


def handshake_of(go_greedy: Path, tmp_path: Path, environment: dict[str, str]
                 ) -> tuple[str, str, int]:
    socket_path = tmp_path / "bot.sock"
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"),
           "HOLLYWOOD_BOT_SOCKET": str(socket_path), **environment}
    # Started outside its folder: nothing may come from a bot.toml nearby.
    process = subprocess.Popen([str(go_greedy / "bin" / "go-greedy")], cwd=tmp_path, env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_until(lambda: socket_path.exists() or process.poll() is not None,
                   what="go-greedy to listen")
        client = BotClient.connect(f"unix:{socket_path}", startup_timeout=LIMITS.startup_s)
        try:
            info = client.handshake(timeout=10)
        finally:
            client.close()
    finally:
        process.terminate()
        process.wait(timeout=30)
    return info.name, info.version, info.protocol_version


def test_the_handshake_says_what_the_arena_gives_it(go_greedy: Path, tmp_path: Path) -> None:
    given = {"HOLLYWOOD_BOT_NAME": "renamed", "HOLLYWOOD_BOT_VERSION": "4.5.6"}
    assert handshake_of(go_greedy, tmp_path, given) == ("renamed", "4.5.6", 1)


def test_the_process_sandbox_gives_it_bot_tomls_name_and_version(go_greedy: Path) -> None:
    sandbox = ProcessSandbox()
    running = sandbox.start(BotRef.from_folder(go_greedy), series_id="go-identity", seat=0)
    try:
        running.wait_ready(LIMITS.startup_s)
        client = BotClient.connect(running.target, startup_timeout=LIMITS.startup_s)
        try:
            info = client.handshake(timeout=10)
        finally:
            client.close()
    finally:
        running.stop()
    assert (info.name, info.version) == ("go-greedy", "1.0.0")


def test_plays_greedy_in_the_process_sandbox(go_greedy: Path) -> None:
    outcomes = play_pair(ProcessSandbox(), go_greedy, "go-process")
    check_clean(outcomes)
    check_notes(outcomes)
    assert arena_leftovers() == []


@pytest.fixture
def vetting_server(tmp_path: Path) -> Iterator[RunningServer]:
    running = start_server(tmp_path / "arena.db", port=0, vetting_sandbox="process")
    yield running
    running.stop(grace=None)


def test_a_season_against_greedy_through_the_api(go_greedy: Path,
                                                 vetting_server: RunningServer) -> None:
    """As an author would: uploaded, vetted (its handshake must name go-greedy 1.0.0),
    then a season with the Python greedy bot in the process sandbox."""
    with ArenaClient(vetting_server.address, vetting_server.token) as client:
        ids = [upload(client, folder).bot.id for folder in (go_greedy, SAMPLE_BOTS / "greedy")]
        wait_all_active(client, ids)
        season = client.stub.CreateSeason(arena_pb2.CreateSeasonRequest(
            bots=ids, config=arena_pb2.SeasonConfig(
                sandbox_backend="process", series_per_pair=2, max_hands=10,
                decision_seconds=2.0, startup_seconds=30.0, concurrency=1)),
            metadata=client.auth).season
        *_, last = client.stub.WatchSeason(
            arena_pb2.WatchSeasonRequest(season_id=season.id), timeout=900)
        assert last is not None and last.status == arena_pb2.SEASON_STATUS_FINISHED
        rows = last.standings.rows
        assert sorted(row.bot_id for row in rows) == ["go-greedy@1.0.0", "greedy@1.0.0"]
        assert all(row.series_played == 2 for row in rows)
        for number in range(season.series_total):
            series = client.stub.GetSeries(arena_pb2.GetSeriesRequest(
                series_id=f"{season.id}-{number}")).series
            assert not series.HasField("fault"), series.fault
            assert series.hands_played >= 1


@pytest.mark.docker
def test_plays_greedy_in_docker(go_greedy: Path, docker_sandbox: Any, docker_client: Any
                                ) -> None:
    check_clean(play_pair(docker_sandbox, go_greedy, "go-docker"))
    assert arena_leftovers(docker_client) == []


def test_the_toolchain_script_does_nothing_when_the_tools_are_there(go_greedy: Path) -> None:
    done = subprocess.run(["bash", str(REPO_ROOT / "arena/scripts/ensure-go-toolchain.sh")],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stderr == ""


def test_a_second_build_is_a_no_op(go_greedy: Path) -> None:
    done = subprocess.run(["bash", str(go_greedy / "build.sh")], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0 and "up to date" in done.stderr
