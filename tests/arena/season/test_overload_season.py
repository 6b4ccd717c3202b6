"""A series the machine starved is void, not a result (issue 25, point 1): stored as
``arena_overload``, played again from the same seed and seats, counted and shown;
after three voids of one series in a run the season pauses, saying why."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from arena.core.faults import ArenaOverload
from arena.core.series import SeriesOutcome, SeriesSpec
from arena.core.status import SeasonStatus
from arena.season.readings import SeasonReadings
from arena.season.runner import MAX_VOID_TRIES
from arena.server.convert import season_message
from arena.storage import Storage, version_life, voids_of
from arena.web.views import season_page
from tests.arena.season.test_scheduler import _season, _winner_by_seed
from tests.helpers.season_play import play


class StarvedFirst:
    """Plays every series (the seed decides), except that ``series_id`` raises
    ``ArenaOverload`` its first ``times`` tries; remembers every spec it was given."""

    def __init__(self, series_id: str, times: int) -> None:
        self.series_id, self.times = series_id, times
        self.specs: list[SeriesSpec] = []
        self.lock = threading.Lock()

    def __call__(self, spec: SeriesSpec) -> SeriesOutcome:
        with self.lock:
            self.specs.append(spec)
            if spec.series_id == self.series_id and self.times > 0:
                self.times -= 1
                raise ArenaOverload(f"seat 0: no answer to Decide within 1.00 s of its own "
                                    f"time, but in 3.00 s the machine gave it only 0.10 s "
                                    f"(try {len(self.specs)})")
        return _winner_by_seed(spec)


def test_a_voided_series_is_played_again_from_the_same_seed_and_seats(tmp_path: Path) -> None:
    storage = Storage(tmp_path / "a.db")
    season_id = _season(storage, tmp_path)
    first = storage.pending_series(season_id)[0]
    run = StarvedFirst(first.series_id, times=1)
    assert play(storage, season_id, run, concurrency=2) == SeasonStatus.FINISHED
    tries = [(s.seed, s.swap_seats, s.bots[0].name, s.bots[1].name)
             for s in run.specs if s.series_id == first.series_id]
    seats = (first.seed, first.swap_seats, first.seat0_bot.split("@")[0],
             first.seat1_bot.split("@")[0])
    assert tries == [seats, seats]
    # One result per planned series: the void is not one.
    results = storage.results(season_id)
    assert sorted(r.series_id for r in results) == sorted(
        p.series_id for p in storage.planned_series(season_id))
    (void,) = voids_of(storage, season_id)
    assert (void.series_id, void.reason) == (first.series_id, "arena_overload")
    assert "the machine gave it only 0.10 s" in void.message
    season = storage.get_season(season_id)
    assert (season.series_voided, season.series_done) == (1, 6)  # 3 pairs, 2 each
    assert season_message(season).series_voided == 1
    assert season_page(storage, SeasonReadings(storage), season_id)["season"]["series_voided"] == 1


def test_three_voids_of_one_series_pause_the_season_and_a_restart_resumes(
        tmp_path: Path) -> None:
    storage = Storage(tmp_path / "a.db")
    season_id = _season(storage, tmp_path)
    stubborn = storage.pending_series(season_id)[0]
    run = StarvedFirst(stubborn.series_id, times=MAX_VOID_TRIES)
    assert play(storage, season_id, run, concurrency=2) == SeasonStatus.FAILED
    season = storage.get_season(season_id)
    assert season.error.startswith(
        f"paused: series {stubborn.series_id} was voided 3 times in a row because the machine "
        "did not run its bots (arena overload; no bot was charged). Last: seat 0: no answer")
    assert season.error.endswith("Start the season again when the machine has room; it "
                                 "resumes where it stopped")
    assert [s.series_id for s in run.specs].count(stubborn.series_id) == 3
    assert storage.get_result(stubborn.series_id) is None  # never a result
    assert season.series_voided == 3
    # No bot was charged: nobody's fault streak moved.
    for bot_id in season.bot_ids:
        assert version_life(storage, bot_id).status == "active"
    # Started again on a machine with room: the season resumes and finishes.
    assert play(storage, season_id, run, concurrency=2) == SeasonStatus.FINISHED
    assert storage.get_result(stubborn.series_id) is not None
    assert storage.get_season(season_id).series_voided == 3


def test_the_website_and_the_api_show_the_voids(tmp_path: Path) -> None:
    from starlette.testclient import TestClient

    from arena.cli.output import to_json
    from arena.season.events import EventHub
    from arena.web.app import create_app

    storage = Storage(tmp_path / "a.db")
    season_id = _season(storage, tmp_path)
    first = storage.pending_series(season_id)[0]
    starved = StarvedFirst(first.series_id, times=2)
    assert play(storage, season_id, starved, concurrency=2) == SeasonStatus.FINISHED
    client = TestClient(create_app(storage, EventHub()))
    page = client.get(f"/seasons/{season_id}").text
    assert ('<p class="voided" id="voided">2 series voided for arena overload (the machine '
            "did not run a bot; no bot was charged; each was played again from the same "
            "seed and seats)</p>") in page
    assert client.get(f"/api/seasons/{season_id}").json()["season"]["series_voided"] == 2
    # What `arena season show --json` prints of the season.
    assert to_json(season_message(storage.get_season(season_id)))["series_voided"] == 2


def test_season_show_counts_the_voids(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                      ) -> None:
    import json

    from arena.cli import main
    from arena.server.app import start_server
    from tests.helpers.arena_helpers import REPO_ROOT
    from tests.helpers.fake_runner import run_fake_series

    tries: dict[str, int] = {}

    def starved_once(spec: SeriesSpec) -> object:
        tries[spec.series_id] = tries.get(spec.series_id, 0) + 1
        if spec.series_id.endswith("-0") and tries[spec.series_id] == 1:
            raise ArenaOverload("seat 0: starved")
        return run_fake_series(spec)

    running = start_server(tmp_path / "arena.db", port=0,
                           runner_factory=lambda config: starved_once)
    remote = ["--server", running.address, "--token-file", str(running.token_path)]

    def arena(*argv: str) -> str:
        assert main([*argv, *remote]) == 0
        return capsys.readouterr().out

    try:
        arena("bots", "register", str(REPO_ROOT / "sample_bots" / "random"),
              str(REPO_ROOT / "sample_bots" / "greedy"))
        season = json.loads(arena("season", "create", "--bots", "random", "greedy",
                                  "--max-hands", "5", "--seed", "5", "--json"))
        assert running.manager.wait(int(season["id"]), timeout=60)
        shown = " ".join(arena("season", "show").split())
        assert ("1 series voided for arena overload (the machine did not run a bot; no bot "
                "was charged; played again)") in shown
        assert json.loads(arena("season", "show", "--json"))["season"]["series_voided"] == 1
        assert tries == {f"{season['id']}-0": 2, f"{season['id']}-1": 1}
    finally:
        running.stop(grace=None)
