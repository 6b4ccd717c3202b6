"""A league on a real local Dask cluster (two single-slot workers, the sample bots
in the in-process sandbox): the season manager plays each division's season through
the ``ClusterExecutor`` as through the local one, and the league keeper moves the
bots and starts round 2 when round 1's last season finishes. The random bot, placed
in division 1 beside greedy, loses and is relegated; the top of division 2 is
promoted."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.core.settings import SeasonConfig
from arena.core.status import SeasonStatus
from arena.execution.cluster import cluster_executor_factory
from arena.execution.local_cluster import LocalCluster
from arena.season.events import EventHub
from arena.season.league_rules import LeagueRule
from arena.season.leagues import LeagueKeeper, LeaguePlan, create_league, final_order
from arena.season.manager import SeasonManager
from arena.storage import Storage, league_moves, league_seasons
from tests.helpers.arena_helpers import register_folder
from tests.helpers.clusters import running_cluster
from tests.helpers.polling import wait_until

pytestmark = [pytest.mark.cluster, pytest.mark.timeout(300)]

SAMPLE_BOTS = Path(__file__).resolve().parents[3] / "sample_bots"


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCluster]:
    yield from running_cluster(tmp_path_factory, 2)



def round_over(storage: Storage, league_id: int, round_number: int) -> bool:
    seasons = [s for s in league_seasons(storage, league_id) if s.round == round_number]
    return bool(seasons) and all(
        storage.get_season(s.season_id).status is SeasonStatus.FINISHED for s in seasons)


def test_a_league_round_plays_on_the_cluster_and_moves_on(cluster: LocalCluster,
                                                          tmp_path: Path) -> None:
    storage = Storage(tmp_path / "arena.db")
    second = tmp_path / "greedy-2"  # greedy's code as version 2.0.0: a fourth bot
    shutil.copytree(SAMPLE_BOTS / "greedy", second)
    manifest = second / "bot.toml"
    manifest.write_text(re.sub(r'(?m)^version = ".*"$', 'version = "2.0.0"',
                               manifest.read_text()))
    ids = [register_folder(storage, folder) for folder in (
        SAMPLE_BOTS / "random", SAMPLE_BOTS / "greedy", SAMPLE_BOTS / "shark", second)]
    manager = SeasonManager(storage, cluster_executor_factory(
        cluster.address, cluster.client_security()), EventHub())
    keeper = LeagueKeeper(storage, manager, ratings=lambda wanted: {})
    config = SeasonConfig.build(sandbox="inprocess", seed=11, max_hands=40, concurrency=2)
    # No ratings: placed in the order given, random and greedy in division 1.
    league = create_league(storage, "cluster cup", LeaguePlan(
        LeagueRule(2, 1, 1), 2, ("round-robin", "round-robin"), config), ids,
        lambda wanted: {})
    keeper.start(league.id)
    wait_until(lambda: round_over(storage, league.id, 2), what="both rounds on the cluster",
               bound_s=240)
    first = [s.season_id for s in league_seasons(storage, league.id) if s.round == 1]
    top, bottom = final_order(keeper.readings, first[1])[0], final_order(
        keeper.readings, first[0])[-1]
    assert bottom == "random@1.0.0"
    moved = {(m.bot_id, m.from_division, m.to_division) for m in league_moves(storage, league.id)
             if m.round == 1 and m.from_division != m.to_division}
    assert moved == {("random@1.0.0", 1, 2), (top, 2, 1)}
    second_round = [storage.get_season(s.season_id) for s in league_seasons(storage, league.id)
                    if s.round == 2]
    assert set(second_round[0].bot_ids) == {"greedy@1.0.0", top}
    for season in second_round:
        results = storage.results(season.id)
        assert results and all(result.played_by for result in results)  # on a worker
