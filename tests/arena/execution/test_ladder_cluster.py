"""A ladder on a real local Dask cluster (two single-slot workers, the sample bots
in the in-process sandbox): the season runner plays it through the
``ClusterExecutor`` exactly as through the local one; a new version of a member
registered while it plays joins and the old version leaves, and the ladder ends
with every planned series played once; a gated ladder's gate match plays on the
workers too."""

from __future__ import annotations

import re
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.core.settings import SeasonConfig
from arena.execution.cluster import ClusterExecutor
from arena.execution.local_cluster import LocalCluster
from arena.season.formats import LADDER_FORMAT
from arena.season.runner import SeasonRunner
from arena.storage import Storage, add_ladder_round, gates_of_ladder, members_by_round
from tests.helpers.clusters import running_cluster
from tests.helpers.gate_helpers import make_gated_ladder, register_folder, sample_as
from tests.helpers.polling import wait_until

pytestmark = [pytest.mark.cluster, pytest.mark.timeout(300)]

SAMPLE_BOTS = Path(__file__).resolve().parents[3] / "sample_bots"
ROUNDS = 4


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCluster]:
    yield from running_cluster(tmp_path_factory, 2)



def test_a_ladder_on_two_workers_takes_in_a_new_bot(cluster: LocalCluster,
                                                     tmp_path: Path) -> None:
    storage = Storage(tmp_path / "arena.db")
    ids = [register_folder(storage, SAMPLE_BOTS / name) for name in ("random", "greedy", "shark")]
    second = tmp_path / "greedy-2"  # a new version of greedy: the same code, version 2.0.0
    shutil.copytree(SAMPLE_BOTS / "greedy", second)
    manifest = second / "bot.toml"
    manifest.write_text(re.sub(r'(?m)^version = ".*"$', 'version = "2.0.0"',
                               manifest.read_text()))
    config = SeasonConfig.build(format=LADDER_FORMAT, sandbox="inprocess", seed=9,
                                max_hands=40, ladder_rounds=ROUNDS, ladder_meetings=1)
    season_id = storage.create_season(name="ladder", config=config.to_dict(),
                                      profile=config.profile(), bot_ids=ids,
                                      plan=[]).id
    outcome: list[str] = []
    with ClusterExecutor(cluster.address, "inprocess",
                         security=cluster.client_security()) as executor:
        runner = SeasonRunner(storage, season_id, executor)
        playing = threading.Thread(target=lambda: outcome.append(runner.run()))
        playing.start()
        wait_until(lambda: len(storage.results(season_id)) >= 2, what="round 1 played",
                   bound_s=120)
        newcomer = register_folder(storage, second)
        playing.join(timeout=240)
    assert outcome == ["finished"] and runner.duplicates_dropped == 0
    members = members_by_round(storage, season_id)
    assert len(members) == ROUNDS and newcomer not in members[0]
    assert newcomer == "greedy@2.0.0" and newcomer in members[-1]
    assert ids[1] not in members[-1]  # greedy's old version left when the new one came
    assert newcomer in storage.get_season(season_id).bot_ids
    planned = sorted(p.series_id for p in storage.planned_series(season_id))
    assert len(planned) == ROUNDS * 2
    assert sorted(r.series_id for r in storage.results(season_id)) == planned
    assert all(r.fault is None and r.hands_played > 0 for r in storage.results(season_id))


def test_a_gated_ladders_gate_match_plays_on_the_cluster(cluster: LocalCluster,
                                                         tmp_path: Path) -> None:
    """The gate (``--gate sprt``): greedy as player@2.0.0 replacing random as
    player@1.0.0 plays its SPRT match on the workers, is accepted, and joins."""
    storage = Storage(tmp_path / "arena.db")
    bots = tmp_path / "bots"
    ids = [register_folder(storage, sample_as(bots, "random", "player", "1.0.0")),
           register_folder(storage, sample_as(bots, "random", "rival", "1.0.0"))]
    ladder_id = make_gated_ladder(storage, ids)
    # Round 1 is stored before the new version comes: it meets a member's predecessor.
    add_ladder_round(storage, ladder_id, 1, ids, [(7, False, ids[0], ids[1]),
                                                  (7, False, ids[1], ids[0])])
    newcomer = register_folder(storage, sample_as(bots, "greedy", "player", "2.0.0"))
    with ClusterExecutor(cluster.address, "inprocess",
                         security=cluster.client_security()) as executor:
        assert SeasonRunner(storage, ladder_id, executor).run() == "finished"
    [gate] = gates_of_ladder(storage, ladder_id)
    assert (gate.bot_id, gate.verdict.status) == (newcomer, "accepted")
    verdict = gate.verdict
    print(f"GATE on the cluster accepted after {verdict.pairs} pairs: Elo {verdict.elo:+.0f} "
          f"[{verdict.elo_low:+.0f}, {verdict.elo_high:+.0f}], LLR {verdict.llr:.2f}")
    played = storage.results(gate.match_id)
    assert len(played) == 2 * gate.verdict.pairs and all(r.fault is None for r in played)
    assert all(r.played_by for r in played)  # by the cluster's workers, not the arena
    assert members_by_round(storage, ladder_id) == [ids, [ids[1], newcomer]]
