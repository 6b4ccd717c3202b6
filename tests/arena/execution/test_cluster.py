"""Seasons on a real local Dask cluster (a scheduler and worker processes started by
``arena cluster up``'s code, bots in the in-process sandbox for speed): a season
ends with exactly its planned series; a worker killed with SIGKILL mid-season loses
no result and adds no duplicate (its series are replayed elsewhere from their
seeds), and a worker started after it clears what it left; a second result for a
stored series is dropped and counted; a worker whose Docker engine is missing
refuses to start, saying so; ``cluster down`` stops exactly the processes it
started. Waits poll with bounds; nothing sleeps."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.cli import main
from arena.core.manifest import BotManifest, content_hash, iter_bot_files
from arena.core.series import BotRef, SeriesOutcome, SeriesSpec
from arena.core.settings import SeasonConfig
from arena.execution.cluster import ClusterExecutor
from arena.execution.local_cluster import (
    LocalCluster,
    down,
    is_running,
    up,
    wait_for_workers,
)
from arena.match.runner import run_series
from arena.sandbox import registry
from arena.season.formats import plan_season
from arena.season.runner import SeasonRunner
from arena.storage import Storage
from tests.helpers.clusters import running_cluster

pytestmark = [pytest.mark.cluster, pytest.mark.timeout(300)]

REPO_ROOT = Path(__file__).resolve().parents[3]
SAMPLE_BOTS = REPO_ROOT / "sample_bots"
BOUND_S = 120.0


def poll(condition, what: str, bound: float = BOUND_S) -> None:  # type: ignore[no-untyped-def]
    give_up_at = time.monotonic() + bound
    while not condition():
        if time.monotonic() > give_up_at:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCluster]:
    """A scheduler and 2 single-slot workers offering the in-process sandbox."""
    yield from running_cluster(tmp_path_factory, 2)


def new_season(tmp_path: Path, bots: tuple[str, ...], series_per_pair: int,
               seed: int = 7, sandbox: str = "inprocess",
               deactivate_after: int = 5) -> tuple[Storage, int]:
    storage = Storage(tmp_path / "arena.db")
    ids = []
    for name in bots:
        folder = SAMPLE_BOTS / name
        manifest = BotManifest.load(folder)
        record, _ = storage.register_bot(
            name=manifest.name, version=manifest.version, language=manifest.language,
            author="", description="", content_hash=content_hash(folder),
            source_folder=folder, files=list(iter_bot_files(folder)))
        ids.append(record.id)
    config = SeasonConfig.build(sandbox=sandbox, series_per_pair=series_per_pair,
                                seed=seed, max_hands=40,
                                deactivate_after=deactivate_after)
    season = storage.create_season(
        name="", config=config.to_dict(), profile=config.profile(), bot_ids=ids,
        plan=[p.as_row() for p in plan_season(ids, series_per_pair, seed)])
    return storage, season.id


def planned_ids(storage: Storage, season_id: int) -> list[str]:
    return sorted(p.series_id for p in storage.planned_series(season_id))


def stored_ids(storage: Storage, season_id: int) -> list[str]:
    return sorted(r.series_id for r in storage.results(season_id))


def test_a_season_on_two_workers_ends_with_exactly_the_planned_series(
        cluster: LocalCluster, tmp_path: Path) -> None:
    storage, season_id = new_season(tmp_path, ("random", "greedy", "shark"), 2)
    assert len(planned_ids(storage, season_id)) == 6  # 3 pairs x 2
    with ClusterExecutor(cluster.address, "inprocess",
                         security=cluster.client_security()) as executor:
        assert executor.capacity == 4  # 2 workers x 1 slot, one more queued per slot
        runner = SeasonRunner(storage, season_id, executor)
        assert runner.run() == "finished"
    assert stored_ids(storage, season_id) == planned_ids(storage, season_id)
    assert runner.duplicates_dropped == 0
    assert all(r.fault is None and r.hands_played > 0 for r in storage.results(season_id))


def test_a_series_played_on_a_worker_is_the_series_played_here(
        cluster: LocalCluster, tmp_path: Path) -> None:
    """Same seed, same deterministic bots: the outcome a worker sends back equals the
    outcome of the same specification played in this process."""
    bots = (BotRef.from_folder(SAMPLE_BOTS / "greedy"), BotRef.from_folder(SAMPLE_BOTS / "shark"))
    config = SeasonConfig.build(sandbox="inprocess", max_hands=30)
    specs = [SeriesSpec(series_id=f"9-{i}", seed=100 + i, profile=config.profile(),
                        max_hands=30, swap_seats=bool(i % 2), bots=bots, limits=config.limits)
             for i in range(2)]
    with ClusterExecutor(cluster.address, "inprocess",
                         security=cluster.client_security()) as executor:
        remote = [executor.submit(spec).result(timeout=BOUND_S) for spec in specs]
    local = [run_series(spec, registry.create("inprocess")) for spec in specs]

    def shape(outcome: SeriesOutcome) -> tuple[object, ...]:
        return (outcome.series_id, outcome.winner, outcome.games_won, outcome.points,
                outcome.hands_played, [e for e in outcome.log if e.get("type") == "action"])

    assert [shape(o) for o in remote] == [shape(o) for o in local]


def test_a_bots_fault_on_a_worker_comes_back_with_the_outcome(
        cluster: LocalCluster, tmp_path: Path) -> None:
    """A bot that passes at every decision forfeits on the worker at its first draw;
    the outcome that comes back names the fault, its seat and decision."""
    folder = tmp_path / "cheater"
    folder.mkdir()
    (folder / "bot.toml").write_text(
        'name = "cheater"\nversion = "1.0.0"\nlanguage = "python"\n'
        '[run]\ncommand = ["python3", "-m", "cheater"]\nsdk_class = "cheater:Cheater"\n')
    (folder / "cheater.py").write_text(
        "import hollywood_sdk as hs\n\n\nclass Cheater(hs.Bot):\n"
        "    def decide(self, observation):\n"
        "        return hs.Action(hs.ActionKind.PASS)\n")  # illegal once it must draw
    (folder / "Dockerfile").write_text("FROM scratch\n")
    cheater = BotRef.from_folder(folder)
    greedy = BotRef.from_folder(SAMPLE_BOTS / "greedy")
    config = SeasonConfig.build(sandbox="inprocess", max_hands=5)
    spec = SeriesSpec(series_id="8-0", seed=1, profile=config.profile(), max_hands=5,
                      swap_seats=False, bots=(greedy, cheater), limits=config.limits)
    with ClusterExecutor(cluster.address, "inprocess",
                         security=cluster.client_security()) as executor:
        outcome = executor.submit(spec).result(timeout=BOUND_S)
    assert outcome.winner == 0
    assert outcome.fault is not None and outcome.fault.seat == 1
    assert outcome.fault.kind == "illegal_action"
    assert outcome.fault.hand_number == 1 and outcome.fault.decision_number is not None


def test_a_second_result_for_a_stored_series_is_dropped_and_counted(
        cluster: LocalCluster, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Two runners play the same season at once (e.g. two arenas resumed it): both
    read every series as pending before either submits, so every series comes back
    twice. Each is stored once; the other result is dropped, counted and logged."""
    storage, season_id = new_season(tmp_path, ("greedy", "shark", "random"), 1)
    both_read_the_plan = threading.Barrier(2, timeout=BOUND_S)

    class AfterBothRead(ClusterExecutor):
        first = True

        def submit(self, spec: SeriesSpec):  # type: ignore[no-untyped-def]
            if self.first:
                self.first = False
                both_read_the_plan.wait()
            return super().submit(spec)

    runners = [SeasonRunner(storage, season_id, AfterBothRead(cluster.address, "inprocess",
                                                          security=cluster.client_security()))
               for _ in range(2)]
    statuses: list[str] = []
    threads = [threading.Thread(target=lambda r=r: statuses.append(r.run())) for r in runners]
    with caplog.at_level("WARNING", logger="arena.season.runner"):
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(BOUND_S)
    for runner in runners:
        runner.executor.close()
    assert statuses == ["finished", "finished"]
    assert stored_ids(storage, season_id) == planned_ids(storage, season_id)  # 3 series, once
    assert sum(r.duplicates_dropped for r in runners) == 3
    assert "already had a result; the new one was dropped" in caplog.text


def test_kill_9_of_a_worker_mid_season_loses_nothing_and_duplicates_nothing(
        tmp_path: Path) -> None:
    state = tmp_path / "cluster"
    cluster = up(2, slots=1, sandboxes=["inprocess"], port=0, state_dir=state)
    try:
        storage, season_id = new_season(tmp_path, ("random", "greedy", "shark"), 4)
        planned = planned_ids(storage, season_id)
        assert len(planned) == 12
        victim = cluster.processes[1]
        executor = ClusterExecutor(cluster.address, "inprocess", security=cluster.client_security())
        runner = SeasonRunner(storage, season_id, executor)
        status: list[str] = []
        thread = threading.Thread(target=lambda: status.append(runner.run()))
        thread.start()
        client = executor._client

        def victim_is_playing() -> bool:
            processing = client.processing()
            return any(tasks for address, tasks in processing.items()
                       if _worker_pid(client, address) == victim.pid)

        poll(lambda: len(stored_ids(storage, season_id)) >= 1 and victim_is_playing(),
             "a stored result and a series playing on the victim")
        os.kill(victim.pid, signal.SIGKILL)
        thread.join(BOUND_S)
        executor.close()
        assert status == ["finished"]
        assert stored_ids(storage, season_id) == planned
        assert runner.duplicates_dropped == 0
        assert len(storage.results(season_id)) == 12
        # In-process bots are called directly (no sockets since issue 29 point 3):
        # the killed worker leaves nothing on disk for the next worker to sweep.
        assert not list(Path("/tmp").glob(f"hwi-{victim.pid}-*"))
    finally:
        stopped = down(state)
    assert victim.pid not in [p.pid for p in stopped]  # already dead: not signalled again
    assert not any(is_running(p) for p in cluster.processes)


def _worker_pid(client, address: str) -> int:  # type: ignore[no-untyped-def]
    return int(client.run(os.getpid, workers=[address])[address])


def test_a_worker_without_docker_refuses_to_start_saying_why(tmp_path: Path) -> None:
    environment = dict(os.environ, DOCKER_HOST=f"unix://{tmp_path}/no-engine.sock")
    finished = subprocess.run(
        [sys.executable, "-m", "arena.cli", "worker", "--scheduler", "tcp://127.0.0.1:9",
         "--sandbox", "docker"], cwd=REPO_ROOT, env=environment, capture_output=True,
        text=True, timeout=BOUND_S)
    assert finished.returncode == 1
    message = " ".join(finished.stderr.split())
    assert message.startswith("error: worker refused to start: this worker cannot offer the "
                              "docker sandbox: Docker is not available")
    assert "make docker-engine" in message


def test_season_run_with_cluster_plays_on_the_cluster(
        cluster: LocalCluster, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["season", "run", "--cluster", cluster.address, "--cluster-certs", cluster.certs,
                 "--db", str(tmp_path / "a.db"),
                 "--bots", str(SAMPLE_BOTS / "greedy"), str(SAMPLE_BOTS / "random"),
                 "--sandbox", "inprocess", "--max-hands", "20", "--json", "--no-http"])
    assert code == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["season"]["series_done"] == answer["season"]["series_total"] == 2


def test_cluster_up_and_down_from_the_command_line(tmp_path: Path) -> None:
    state = tmp_path / "state"
    assert main(["cluster", "up", "--workers", "1", "--slots", "1", "--port", "0",
                 "--sandbox", "process", "--state-dir", str(state)]) == 0
    recorded = LocalCluster.load(state)
    assert recorded is not None
    assert [p.role for p in recorded.processes] == ["scheduler", "worker-0"]
    assert all(is_running(p) for p in recorded.processes)
    assert main(["cluster", "down", "--state-dir", str(state)]) == 0
    assert not any(is_running(p) for p in recorded.processes)
    assert LocalCluster.load(state) is None


@pytest.mark.docker
def test_a_docker_season_on_two_workers_survives_a_kill_9_and_leaves_no_container(
        tmp_path: Path, docker_client: object, base_image: str) -> None:
    """Real Docker on both workers: a worker killed while its containers play is
    replaced by one that removes those containers (by their owner label) before it
    takes work; the season ends with exactly its plan, once each."""
    state = tmp_path / "cluster"
    cluster = up(2, slots=1, sandboxes=["docker"], port=0, state_dir=state)
    victim = cluster.processes[1]

    def containers_of(pid: int) -> list[object]:  # the plain listing (no inspect)
        return docker_client.api.containers(  # type: ignore[attr-defined,no-any-return]
            all=True, filters={"label": f"hollywood.arena.pid={pid}"})

    try:
        storage, season_id = new_season(tmp_path, ("random", "greedy"), 4, sandbox="docker")
        executor = ClusterExecutor(cluster.address, "docker", security=cluster.client_security())
        runner = SeasonRunner(storage, season_id, executor)
        status: list[str] = []
        thread = threading.Thread(target=lambda: status.append(runner.run()))
        thread.start()
        poll(lambda: bool(containers_of(victim.pid)), "containers started by the victim",
             bound=240)
        os.kill(victim.pid, signal.SIGKILL)
        thread.join(300)
        executor.close()
        assert status == ["finished"]
        assert stored_ids(storage, season_id) == planned_ids(storage, season_id)
        assert len(storage.results(season_id)) == 4 and runner.duplicates_dropped == 0
        replacement = subprocess.Popen(
            [sys.executable, "-m", "arena.cli", "worker", "--scheduler", cluster.address,
             "--cluster-certs", cluster.certs, "--slots", "1", "--sandbox", "docker",
             "--cache-dir", str(tmp_path / "cache")],
            cwd=REPO_ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True)
        try:
            wait_for_workers(cluster.address, 2, security=cluster.client_security())
            assert containers_of(victim.pid) == []
        finally:
            replacement.send_signal(signal.SIGTERM)
            replacement.wait(BOUND_S)
    finally:
        down(state)
    for process in cluster.processes:
        assert containers_of(process.pid) == []


def test_season_run_with_an_unreachable_cluster_fails_before_creating_anything(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "a.db"
    code = main(["season", "run", "--cluster", "tcp://127.0.0.1:9", "--db", str(db),
                 "--bots", str(SAMPLE_BOTS / "greedy"), str(SAMPLE_BOTS / "random"),
                 "--sandbox", "inprocess"])
    assert code == 1
    message = " ".join(capsys.readouterr().err.split())
    assert message.startswith("error: cannot reach the Dask scheduler at tcp://127.0.0.1:9")
    assert message.endswith("(start one with `arena cluster up`; a cluster it starts speaks "
                            "TLS: add --cluster-certs .arena/cluster/certs)")
    assert not db.exists()
