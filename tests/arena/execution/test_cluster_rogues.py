"""Workers cannot sink a season (issue 43), on a real local cluster under mutual
TLS: rogue workers holding the cluster's valid worker certificate (one raising in
its tasks, one answering with another series' real outcome, one reporting other
workers' tasks as erred) are excluded, their series played elsewhere, and the
season ends exactly as an honest one; a forfeit a worker claims is stored and
counted only once a play elsewhere confirms it. Waits poll with bounds."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.execution.cluster import ClusterExecutor
from arena.execution.local import LocalExecutor
from arena.execution.local_cluster import LocalCluster, wait_for_workers
from arena.match.runner import run_series
from arena.sandbox import registry
from arena.season.runner import SeasonRunner
from arena.storage import Storage, deactivations_of
from tests.arena.execution.test_cluster import BOUND_S, REPO_ROOT, planned_ids, stored_ids
from tests.arena.execution.test_cluster import new_season as season_of
from tests.arena.execution.test_cluster_trust import rows
from tests.helpers.clusters import running_cluster
from tests.helpers.polling import wait_until

pytestmark = [pytest.mark.cluster, pytest.mark.timeout(400)]

BOTS = ("greedy", "shark")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCluster]:
    """A fresh TLS scheduler (its task run ids counted from 1) and 1 honest worker."""
    yield from running_cluster(tmp_path_factory, 1, "rogues")


def new_season(root: Path, series_per_pair: int, deactivate_after: int = 5
               ) -> tuple[Storage, int]:
    root.mkdir()
    return season_of(root, BOTS, series_per_pair, deactivate_after=deactivate_after)


def honest_rows(root: Path, series_per_pair: int) -> list[tuple[object, ...]]:
    storage, season_id = new_season(root, series_per_pair)
    with LocalExecutor(lambda spec: run_series(spec, registry.create("inprocess")), 1) as local:
        assert SeasonRunner(storage, season_id, local).run() == "finished"
    return rows(storage, season_id)


def start_rogue(cluster: LocalCluster, mode: str, name: str, insight: Path,
                cache: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, str(REPO_ROOT / "tests" / "helpers" / "rogue_worker.py"), mode,
         str(insight), "--scheduler", cluster.address, "--cluster-certs", cluster.certs,
         "--slots", "1", "--sandbox", "inprocess", "--name", name, "--cache-dir", str(cache)],
        cwd=REPO_ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True)


def stop(processes: list[subprocess.Popen[bytes]]) -> None:
    for process in processes:
        if process.poll() is None:
            process.terminate()
    for process in processes:
        process.wait(BOUND_S)


class RoguesFirst(ClusterExecutor):
    """First plays go to the named rogues while any is left; every key in flight is
    written to ``insight`` (what an insider reporting others' tasks would know)."""

    rogues: frozenset[str] = frozenset()
    insight: Path | None = None

    def _allowed_workers(self, avoid: frozenset[str] = frozenset()) -> list[str] | None:
        workers = self._client.scheduler_info(n_workers=-1)["workers"]
        rogues = [a for a, info in workers.items() if info.get("name") in self.rogues
                  and a not in self._excluded and a not in avoid]
        return rogues or super()._allowed_workers(avoid)

    def _launch(self, play: object) -> None:
        super()._launch(play)  # type: ignore[arg-type]
        if self.insight is not None:
            with self._lock:
                keys = list(self._held)
            written = self.insight.with_suffix(".tmp")
            written.write_text(json.dumps(keys))
            written.replace(self.insight)


def worker_names(executor: ClusterExecutor) -> dict[str, str]:
    return {a: str(info.get("name")) for a, info in
            executor._client.scheduler_info(n_workers=-1)["workers"].items()}


def test_three_rogue_workers_leave_the_season_finished_as_planned(
        cluster: LocalCluster, tmp_path: Path) -> None:
    expected = honest_rows(tmp_path / "honest", 3)
    storage, season_id = new_season(tmp_path / "rogues", 3)
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps([{"series_id": p.series_id, "seed": p.seed,
                                 "swap_seats": p.swap_seats}
                                for p in storage.planned_series(season_id)]))
    keys = tmp_path / "keys.json"
    rogues = [start_rogue(cluster, "raise", "raiser", plan, tmp_path / "c1"),
              start_rogue(cluster, "answer-other", "answerer", plan, tmp_path / "c2"),
              start_rogue(cluster, "report-others", "reporter", keys, tmp_path / "c3")]
    scheduler_log = Path(cluster.processes[0].log)
    try:
        security = cluster.client_security()
        wait_for_workers(cluster.address, 4, security=security)
        with RoguesFirst(cluster.address, "inprocess", security=security) as executor:
            executor.rogues = frozenset({"raiser", "answerer"})
            executor.insight = keys
            names = worker_names(executor)
            runner = SeasonRunner(storage, season_id, executor)
            assert runner.run() == "finished"
            excluded = {names[address] for address in executor._excluded}
        # (The reporter, removed by the scheduler, may also have been given a series.)
        assert excluded - {"reporter"} == {"raiser", "answerer"}
        # The reporter's forged reports removed it from the cluster, not the others.
        wait_until(lambda: rogues[2].poll() is not None, what="the reporter to be removed",
                   bound_s=BOUND_S)
        log = scheduler_log.read_text()
        removals = [line for line in log.splitlines() if "removing it from the cluster" in line]
        assert removals and all("reports on" in line for line in removals)
        assert rogues[0].poll() is None and rogues[1].poll() is None  # still connected
    finally:
        stop(rogues)
    assert stored_ids(storage, season_id) == planned_ids(storage, season_id)
    assert rows(storage, season_id) == expected
    assert runner.duplicates_dropped == 0


def test_a_forfeit_a_worker_claims_is_stored_only_when_a_replay_confirms_it(
        cluster: LocalCluster, tmp_path: Path) -> None:
    expected = honest_rows(tmp_path / "honest", 2)
    storage, season_id = new_season(tmp_path / "claimed", 2, deactivate_after=1)
    claimer = start_rogue(cluster, "claim-forfeit", "claimer", tmp_path / "none.json",
                          tmp_path / "cache")
    try:
        security = cluster.client_security()
        wait_for_workers(cluster.address, 2, security=security)
        with RoguesFirst(cluster.address, "inprocess", security=security) as executor:
            executor.rogues = frozenset({"claimer"})
            runner = SeasonRunner(storage, season_id, executor)
            assert runner.run() == "finished"
            assert executor._excluded == set()
    finally:
        stop([claimer])
    # Each series was claimed as seat 0's start-up forfeit, and played out elsewhere.
    assert runner.forfeits.unconfirmed == len(planned_ids(storage, season_id)) == 2
    assert stored_ids(storage, season_id) == planned_ids(storage, season_id)
    assert rows(storage, season_id) == expected
    assert all(r.fault is None for r in storage.results(season_id))
    bot_ids = storage.get_season(season_id).bot_ids
    assert deactivations_of(storage, bot_ids) == {}
