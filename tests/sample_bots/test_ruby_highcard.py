"""The Ruby sample bot, sample_bots/ruby-highcard: Debian's ruby and ruby-grpc
(arena/scripts/ensure-ruby.sh, nothing from RubyGems), stubs generated from proto/ by
build.sh; its policy always answers a legal action; it plays a season against the
Python greedy bot without a fault in the process sandbox, through the arena's API
with vetting, and in Docker with the interpreter bundled under rt/usr/ (the base
image's /lib link kept, the bundle within the 20 MiB upload limit).

Slow (the first run installs Debian's packages).
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hollywood.arena.v1 import arena_pb2

from arena.cli.client import ArenaClient
from arena.cli.lifecycle import wait_all_active
from arena.cli.submit import pack, upload
from arena.sandbox.process import ProcessSandbox
from arena.server.app import RunningServer, start_server
from tests.helpers.compiled_bots import check_clean, play_pair
from tests.helpers.sandboxes import REPO_ROOT, SAMPLE_BOTS, arena_leftovers

pytestmark = pytest.mark.slow

RUBY = SAMPLE_BOTS / "ruby-highcard"


def build(*options: str) -> None:
    for command in (["bash", str(REPO_ROOT / "arena" / "scripts" / "ensure-ruby.sh")],
                    ["bash", str(RUBY / "build.sh"), *options]):
        done = subprocess.run(command, capture_output=True, text=True, timeout=1800)
        assert done.returncode == 0, f"{command}: {done.stderr[-3000:]}"


@pytest.fixture(scope="module")
def ruby_bot() -> Path:
    build()
    return RUBY


def test_the_policy_answers_a_legal_action_for_every_phase(ruby_bot: Path) -> None:
    script = """
$LOAD_PATH.unshift('gen'); $LOAD_PATH.unshift('.')
require 'hollywood/bot/v1/bot_pb'; require 'policy'
A = Hollywood::Bot::V1::Action
def pick(*actions) = Highcard.choose(actions.map { |k, c| A.new(kind: k, card: c.to_s) })
p pick([:ACTION_KIND_DRAW_DISCARD], [:ACTION_KIND_PASS]).kind
p pick([:ACTION_KIND_DRAW_DISCARD], [:ACTION_KIND_DRAW_STOCK]).kind
c = pick([:ACTION_KIND_DISCARD, '7c'], [:ACTION_KIND_DISCARD, 'Kd'], [:ACTION_KIND_DISCARD, 'As'])
p [c.kind, c.card]
k = pick([:ACTION_KIND_DISCARD, 'Kd'], [:ACTION_KIND_KNOCK, '2h'], [:ACTION_KIND_KNOCK, '9s'])
p [k.kind, k.card]
"""
    done = subprocess.run(["ruby", "-e", script], cwd=ruby_bot, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        ":ACTION_KIND_PASS", ":ACTION_KIND_DRAW_STOCK", '[:ACTION_KIND_DISCARD, "Kd"]',
        '[:ACTION_KIND_KNOCK, "9s"]']


def test_plays_greedy_in_the_process_sandbox(ruby_bot: Path) -> None:
    check_clean(play_pair(ProcessSandbox(), ruby_bot, "ruby-process"))
    assert arena_leftovers() == []


@pytest.fixture
def vetting_server(tmp_path: Path) -> Iterator[RunningServer]:
    running = start_server(tmp_path / "arena.db", port=0, vetting_sandbox="process")
    yield running
    running.stop(grace=None)


def test_a_season_against_greedy_through_the_api(ruby_bot: Path,
                                                 vetting_server: RunningServer) -> None:
    with ArenaClient(vetting_server.address, vetting_server.token) as client:
        ids = [upload(client, folder).bot.id for folder in (ruby_bot, SAMPLE_BOTS / "greedy")]
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
        assert sorted(row.bot_id for row in rows) == ["greedy@1.0.0", "ruby-highcard@1.0.0"]
        assert all(row.series_played == 2 for row in rows)
        for number in range(season.series_total):
            series = client.stub.GetSeries(arena_pb2.GetSeriesRequest(
                series_id=f"{season.id}-{number}")).series
            assert not series.HasField("fault"), series.fault


@pytest.mark.docker
def test_plays_greedy_in_docker_with_its_bundled_interpreter(
        docker_sandbox: Any, docker_client: Any) -> None:
    build("--runtime")
    runtime = RUBY / "rt"
    assert sorted(path.name for path in runtime.iterdir()) == ["usr"]  # no rt/lib, no rt/bin
    assert len(pack(RUBY)) < 20 * 1024 * 1024  # the upload limit, compressed
    check_clean(play_pair(docker_sandbox, RUBY, "ruby-docker"))
    assert arena_leftovers(docker_client) == []
