"""Challenges: an author challenges another author's bot; the series are played by real
bot processes, unrated (in no season list, standings or rating), and both owners
see the result in the CLI and on the website. Bounded: at most 20 series, an hourly
quota of series per author (refused past it, saying when the next fits), only one's
own version as the challenger, and challenges wait while ranked play runs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import grpc
import pytest
from hollywood.arena.v1 import arena_pb2, arena_pb2_grpc
from starlette.testclient import TestClient

from arena.cli.client import ArenaClient
from arena.cli.submit import upload
from arena.core.settings import SeasonConfig
from arena.core.status import SeasonStatus
from arena.season.challenge_queue import ChallengeQueue, ChallengeRules
from arena.season.events import EventHub
from arena.season.seeding import current_ratings
from arena.server.app import RunningServer, start_server
from arena.storage import Storage, challenge_seasons
from arena.web.app import create_app
from tests.helpers.arena_helpers import register_bots
from tests.helpers.web_helpers import create_season

REPO = Path(__file__).resolve().parents[3]
GREEDY = REPO / "sample_bots" / "greedy"
RANDOM = REPO / "sample_bots" / "random"


def arena(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "arena.cli", *args], cwd=REPO,
                          capture_output=True, text=True, timeout=600, env=dict(os.environ))


def bearer(token: str) -> tuple[tuple[str, str]]:
    return (("authorization", f"Bearer {token}"),)


@pytest.fixture
def authors(tmp_path: Path) -> Iterator[tuple[RunningServer, str, str]]:
    """A server (no vetting: uploads are active at once) where alice owns greedy and
    bob owns random; yields it and both tokens."""
    server = start_server(tmp_path / "arena.db", port=0)
    server.service.challenges.rules = ChallengeRules(sandbox="process")
    try:
        stub = arena_pb2_grpc.ArenaServiceStub(grpc.insecure_channel(server.address))
        tokens = [stub.AddAuthor(arena_pb2.AddAuthorRequest(name=name),
                                 metadata=bearer(server.token)).token
                  for name in ("alice", "bob")]
        for token, folder in zip(tokens, (GREEDY, RANDOM), strict=True):
            with ArenaClient(server.address, token) as client:
                upload(client, folder)
        yield server, tokens[0], tokens[1]
    finally:
        server.stop(grace=None)


def test_a_challenge_plays_unrated_and_both_owners_see_it(
        authors: tuple[RunningServer, str, str]) -> None:
    server, alice, bob = authors
    done = arena("challenge", "greedy@1.0.0", "random", "--series", "2", "--wait", "--json",
                 "--server", server.address, "--token", alice)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    challenge = json.loads(done.stdout)
    assert challenge["author"] == "alice"
    assert (challenge["challenger"], challenge["opponent"]) == ("greedy@1.0.0", "random@1.0.0")
    assert challenge["status"] == "SEASON_STATUS_FINISHED"
    assert challenge["series_done"] == 2
    assert (challenge["challenger_wins"] + challenge["opponent_wins"]
            + challenge["draws"]) == 2
    season_id = challenge["season_id"]
    # Played for real: its series are stored, with their logs, under its season.
    storage = server.storage
    assert [result.series_id for result in storage.results(season_id)] == [
        f"{season_id}-0", f"{season_id}-1"]
    # Unrated: in no season list, so in no standings and no rating.
    stub = arena_pb2_grpc.ArenaServiceStub(grpc.insecure_channel(server.address))
    assert stub.ListSeasons(arena_pb2.ListSeasonsRequest()).seasons == []
    with pytest.raises(grpc.RpcError) as none:
        stub.GetStandings(arena_pb2.GetStandingsRequest())
    assert none.value.code() == grpc.StatusCode.NOT_FOUND
    assert current_ratings(storage, ["greedy@1.0.0", "random@1.0.0"]) == {}
    # The other owner sees it in the CLI ...
    listed = arena("challenges", "--bot", "random", "--json", "--server", server.address,
                   "--token", bob)
    assert listed.returncode == 0, listed.stderr
    [seen] = json.loads(listed.stdout)
    assert seen == challenge
    # ... and everyone on the website, read-only.
    web = TestClient(create_app(storage, EventHub()))
    [row] = web.get("/api/challenges").json()["challenges"]
    assert (row["season_id"], row["challenger"], row["opponent"], row["series_done"],
            row["challenger_wins"]) == (season_id, "greedy@1.0.0", "random@1.0.0", 2,
                                        challenge["challenger_wins"])
    page = web.get("/challenges")
    assert page.status_code == 200 and f'href="/series/{season_id}-1"' in page.text
    assert "challenge" not in web.get("/api/seasons").text


def test_the_quota_refuses_past_it_and_says_when_the_next_fits(
        authors: tuple[RunningServer, str, str]) -> None:
    server, alice, bob = authors
    # None plays here (none may at once): only what is stored and refused is tested.
    server.service.challenges.rules = ChallengeRules(at_once=0)
    now = datetime(2026, 12, 7, 8, 0, 0, tzinfo=UTC)
    server.service.challenge_clock = lambda: now
    stub = arena_pb2_grpc.ArenaServiceStub(grpc.insecure_channel(server.address))

    def challenge(series: int, token: str = alice, mine: str = "greedy",
                  other: str = "random") -> arena_pb2.Challenge:
        return stub.CreateChallenge(arena_pb2.CreateChallengeRequest(
            challenger=mine, opponent=other, series=series), metadata=bearer(token)).challenge

    first = challenge(20)
    assert (first.series, first.status) == (20, arena_pb2.SEASON_STATUS_CREATED)
    # One series at a time, and no fault streak in a challenge deactivates anyone.
    config = server.storage.get_season(first.season_id).config
    assert (config.concurrency, config.deactivate_after) == (1, 10_000)
    now += timedelta(minutes=10)
    challenge(20)  # 40 in the hour: the quota
    with pytest.raises(grpc.RpcError) as refused:
        challenge(1)
    assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert refused.value.details() == (
        "challenge quota: 40 challenge series asked for in the last hour, 40 allowed per "
        "hour; 1 more would pass it; it fits from 2026-12-07T09:00:00Z")
    with pytest.raises(grpc.RpcError) as too_many:
        challenge(21)
    assert too_many.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "a challenge plays 1 to 20 series, not 21" in str(too_many.value.details())
    # Another author's quota is its own; but not another author's bot as challenger.
    challenge(2, bob, "random", "greedy")
    with pytest.raises(grpc.RpcError) as not_yours:
        challenge(2, bob, "greedy", "random")
    assert not_yours.value.code() == grpc.StatusCode.PERMISSION_DENIED
    assert "belongs to author alice" in str(not_yours.value.details())
    # An hour after the first, its 20 series have left the hour.
    now += timedelta(minutes=50, seconds=1)
    assert challenge(20).series == 20
    assert len(stub.ListChallenges(arena_pb2.ListChallengesRequest()).challenges) == 4
    with pytest.raises(grpc.RpcError) as anonymous:
        stub.CreateChallenge(arena_pb2.CreateChallengeRequest(challenger="greedy",
                                                              opponent="random"))
    assert anonymous.value.code() == grpc.StatusCode.UNAUTHENTICATED


class _Manager:
    """A season manager that only records the seasons it was asked to start."""

    def __init__(self, storage: Storage) -> None:
        self.storage = storage
        self.started: list[int] = []
        self.finished_hooks: list[object] = []

    def start(self, season_id: int) -> None:
        self.started.append(season_id)
        self.storage.set_season_status(season_id, SeasonStatus.RUNNING)


def test_challenges_wait_for_ranked_play_and_play_a_few_at_once(tmp_path: Path) -> None:
    from arena.storage import create_challenge
    from engine.profiles import FRIENDLY

    storage = Storage(tmp_path / "arena.db")
    ids = register_bots(storage, tmp_path, ["ann", "bob"])
    ranked = create_season(storage, ids)
    storage.set_season_status(ranked, SeasonStatus.RUNNING)
    config = SeasonConfig.build().to_dict()
    made = [create_challenge(storage, author="ann", challenger=ids[0], opponent=ids[1],
                             series=1, series_per_hour=40, now=datetime.now(UTC),
                             config=config, profile=FRIENDLY,
                             plan=[(7, False, ids[0], ids[1])]) for _ in range(3)]
    manager = _Manager(storage)
    queue = ChallengeQueue(storage, manager, ChallengeRules(at_once=2))  # type: ignore[arg-type]
    assert queue.pump() == [] and manager.started == []  # the ranked season plays
    storage.set_season_status(ranked, SeasonStatus.FINISHED)
    assert queue.pump() == made[:2]  # two at once
    assert queue.pump() == []
    storage.set_season_status(made[0], SeasonStatus.FINISHED)
    assert queue.pump() == made[2:]
    assert challenge_seasons(storage, SeasonStatus.RUNNING) == made[1:]
    assert [season.id for season in storage.list_seasons()] == [ranked]
