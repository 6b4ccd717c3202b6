"""Trust across machines on a real local cluster (issue 26): every process speaks
mutual TLS with the cluster CA's certificates; a worker or client without one (or
with another CA's) can neither join nor fetch anything from a worker; every
listener binds only to the interface it was given; and a worker that forges its
results has them refused, is excluded, and the season ends exactly as planned.
Waits poll with bounds; nothing sleeps."""

from __future__ import annotations

import asyncio
import logging
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import psutil
import pytest

from arena.execution.cluster import ClusterExecutor, ClusterUnavailableError, check_scheduler
from arena.execution.cluster_certs import make_cluster_certs
from arena.execution.cluster_security import ClusterTLS
from arena.execution.local import LocalExecutor
from arena.execution.local_cluster import LocalCluster, down, up, wait_for_workers
from arena.match.runner import run_series
from arena.sandbox import registry
from arena.season.runner import SeasonRunner
from arena.storage import Storage
from tests.arena.execution.test_cluster import (
    BOUND_S,
    REPO_ROOT,
    new_season,
    planned_ids,
    stored_ids,
)
from tests.helpers.clusters import running_cluster
from tests.helpers.polling import wait_until

if TYPE_CHECKING:
    from distributed import Security

pytestmark = [pytest.mark.cluster, pytest.mark.timeout(300)]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCluster]:
    """A TLS scheduler and 1 single-slot worker (in-process sandbox), as `arena
    cluster up` starts them with no options: certificates made in its state folder."""
    yield from running_cluster(tmp_path_factory, 1)


@pytest.fixture(scope="module")
def foreign(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Certificates of another CA: valid certificates, of the wrong cluster."""
    return make_cluster_certs(tmp_path_factory.mktemp("foreign") / "certs")


def listening(pid: int) -> list[tuple[str, int]]:
    return [(c.laddr.ip, c.laddr.port) for c in psutil.Process(pid).net_connections("inet")
            if c.status == psutil.CONN_LISTEN]


def test_cluster_up_speaks_tls_with_certificates_it_made(cluster: LocalCluster) -> None:
    assert cluster.address.startswith("tls://127.0.0.1:")
    certs = Path(cluster.certs)
    assert sorted(p.name for p in certs.iterdir()) == [
        "ca-key.pem", "ca.pem", "client-key.pem", "client.pem", "scheduler-key.pem",
        "scheduler.pem", "server-key.pem", "server.pem", "worker-key.pem", "worker.pem"]
    assert {oct(p.stat().st_mode & 0o777) for p in certs.glob("*-key.pem")} == {"0o600"}
    assert check_scheduler(cluster.address, security=cluster.client_security()) == 1


def test_every_listener_binds_only_to_loopback(cluster: LocalCluster) -> None:
    sockets = {p.role: listening(p.pid) for p in cluster.processes}
    assert sockets["scheduler"] and sockets["worker-0"]  # each listens somewhere
    assert {ip for found in sockets.values() for ip, _ in found} == {"127.0.0.1"}


def test_a_cluster_given_another_interface_listens_only_there(tmp_path: Path) -> None:
    lan = next((a.address for addresses in psutil.net_if_addrs().values() for a in addresses
                if a.family.name == "AF_INET" and not a.address.startswith("127.")), None)
    if lan is None:
        pytest.skip("this machine has no non-loopback IPv4 address")
    state = tmp_path / "state"
    started = up(1, slots=1, sandboxes=["inprocess"], port=0, state_dir=state, host=lan)
    try:
        assert started.address.startswith(f"tls://{lan}:")
        found = {ip for p in started.processes for ip, _ in listening(p.pid)}
        assert found == {lan}
    finally:
        down(state)


def test_an_arena_without_the_cluster_certificate_cannot_connect(
        cluster: LocalCluster, foreign: Path) -> None:
    plain = cluster.address.replace("tls://", "tcp://")
    with pytest.raises(ClusterUnavailableError):
        check_scheduler(plain, timeout=5)
    with pytest.raises(ClusterUnavailableError):
        check_scheduler(cluster.address, timeout=5,
                        security=ClusterTLS.from_dir(foreign, "client").security())


def worker_command(cluster: LocalCluster, *options: str) -> list[str]:
    return [sys.executable, "-m", "arena.cli", "worker", "--scheduler", cluster.address,
            "--slots", "1", "--sandbox", "inprocess", *options]


def test_a_worker_without_the_cluster_certificate_cannot_join(
        cluster: LocalCluster, foreign: Path, tmp_path: Path) -> None:
    without = subprocess.run(worker_command(cluster, "--cache-dir", str(tmp_path / "a")),
                             cwd=REPO_ROOT, capture_output=True, text=True, timeout=BOUND_S)
    assert without.returncode == 2
    assert "is a TLS scheduler: give --cluster-certs DIR" in " ".join(without.stderr.split())
    other_ca = subprocess.run(
        worker_command(cluster, "--cluster-certs", str(foreign), "--connect-timeout", "5",
                       "--cache-dir", str(tmp_path / "b")),
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=BOUND_S)
    assert other_ca.returncode == 1
    assert "cannot reach the scheduler" in " ".join(other_ca.stderr.split())
    assert check_scheduler(cluster.address, security=cluster.client_security()) == 1


def test_nothing_is_fetched_from_a_worker_without_the_certificate(
        cluster: LocalCluster, foreign: Path) -> None:
    from distributed.comm import connect

    with ClusterExecutor(cluster.address, "inprocess",
                         security=cluster.client_security()) as executor:
        workers = list(executor._client.scheduler_info(n_workers=-1)["workers"])
    assert len(workers) == 1 and workers[0].startswith("tls://127.0.0.1:")
    # As the scheduler reaches its workers (a worker accepts a scheduler's anything).
    own = ClusterTLS.from_dir(Path(cluster.certs), "scheduler").security()
    other = ClusterTLS.from_dir(foreign, "scheduler").security()

    async def reach(address: str, arguments: dict[str, object]) -> bool:
        try:
            comm = await connect(address, timeout=5, **arguments)
            # A TLS peer that refuses the certificate may let the handshake end first
            # and drop the connection at once: asking for data tells the two apart.
            await comm.write({"op": "versions", "reply": True})
            await comm.read()
        except (OSError, TimeoutError):
            return False
        await comm.close()
        return True

    assert asyncio.run(reach(workers[0], own.get_connection_args("scheduler")))
    assert not asyncio.run(reach(workers[0], other.get_connection_args("scheduler")))
    assert not asyncio.run(reach(workers[0].replace("tls://", "tcp://"), {}))


def test_a_forging_worker_is_refused_excluded_and_the_season_ends_as_planned(
        cluster: LocalCluster, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    bots = ("greedy", "shark")
    honest_storage, honest_season = new_season(tmp_path / "honest", bots, 4)
    with LocalExecutor(lambda spec: run_series(spec, registry.create("inprocess")), 1) as local:
        assert SeasonRunner(honest_storage, honest_season, local).run() == "finished"

    forger = subprocess.Popen(
        [sys.executable, str(REPO_ROOT / "tests" / "helpers" / "forging_worker.py"), "--scheduler",
         cluster.address, "--cluster-certs", cluster.certs, "--slots", "1", "--sandbox",
         "inprocess", "--name", "forger", "--cache-dir", str(tmp_path / "forger-cache")],
        cwd=REPO_ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True)
    try:
        security = cluster.client_security()
        wait_for_workers(cluster.address, 2, security=security)

        class ForgerFirst(ClusterExecutor):
            """Every series goes to the forger until it is excluded."""

            def _allowed_workers(self, avoid: frozenset[str] = frozenset()
                                 ) -> list[str] | None:
                allowed = super()._allowed_workers(avoid)
                if allowed is not None:
                    return allowed
                workers = self._client.scheduler_info(n_workers=-1)["workers"]
                return [a for a, info in workers.items() if info.get("name") == "forger"]

        (tmp_path / "forged").mkdir()
        storage, season_id = new_season(tmp_path / "forged", bots, 4)
        with ForgerFirst(cluster.address, "inprocess", security=security) as executor, \
                caplog.at_level(logging.ERROR, logger="arena.season.runner"):
            runner = SeasonRunner(storage, season_id, executor)
            assert runner.run() == "finished"
            forger_address = [a for a, info in executor._client.scheduler_info(
                n_workers=-1)["workers"].items() if info.get("name") == "forger"]
            assert executor._excluded == set(forger_address)
        assert runner.outcomes_refused >= 1
        refusals = [r.getMessage() for r in caplog.records if "was refused" in r.getMessage()]
        assert len(refusals) == runner.outcomes_refused
        assert all(forger_address[0] in message for message in refusals)
    finally:
        forger.terminate()
        forger.wait(BOUND_S)
    assert stored_ids(storage, season_id) == planned_ids(storage, season_id)
    assert rows(storage, season_id) == rows(honest_storage, honest_season)
    assert all(r.points != (9999, 0) for r in storage.results(season_id))


def rows(storage: Storage, season_id: int) -> list[tuple[object, ...]]:
    return [(r.series_id, r.winner, r.games_won, r.hands_won, r.points, r.game_scores,
             r.hands_played) for r in storage.results(season_id)]


def test_a_non_loopback_scheduler_without_certificates_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from arena.cli import main

    code = main(["season", "run", "--cluster", "tcp://192.0.2.10:8786", "--db",
                 str(tmp_path / "a.db"), "--bots", str(REPO_ROOT / "sample_bots" / "greedy"),
                 str(REPO_ROOT / "sample_bots" / "random"), "--sandbox", "inprocess"])
    assert code == 2
    message = " ".join(capsys.readouterr().err.split())
    assert "refusing the scheduler at tcp://192.0.2.10:8786 without TLS" in message
    assert not (tmp_path / "a.db").exists()


def as_a_client(certs: Path, role: str) -> Security:
    """The security of a process that holds only ``role``'s certificate and uses it
    to connect as a Dask client."""
    from distributed import Security

    return Security(  # type: ignore[no-untyped-call]
        require_encryption=True, tls_ca_file=str(certs / "ca.pem"),
        tls_client_cert=str(certs / f"{role}.pem"),
        tls_client_key=str(certs / f"{role}-key.pem"))


def ask(address: str, security: Security, op: str, **arguments: object) -> object:
    """``op`` sent straight to the server at ``address`` (no Dask client); its
    answer, or the exception it raised."""
    from distributed.core import rpc

    async def call() -> object:
        async with rpc(address, connection_args=security.get_connection_args("client"),
                       timeout=BOUND_S) as server:
            try:
                return await getattr(server, op)(**arguments)
            except Exception as error:
                return error

    return asyncio.run(call())


def test_a_worker_certificate_cannot_act_as_a_client_while_the_arena_plays(
        cluster: LocalCluster, tmp_path: Path) -> None:
    from distributed import Client

    stolen = as_a_client(Path(cluster.certs), "worker")
    with pytest.raises((OSError, TimeoutError)):
        Client(cluster.address, security=stolen, timeout=5, set_as_default=False)
    scheduler_log = Path(cluster.processes[0].log)
    wait_until(lambda: "refused 'register-client' from" in scheduler_log.read_text(),
               what="the scheduler to log the refused client", bound_s=BOUND_S)
    assert "whose certificate's role is 'worker'" in scheduler_log.read_text()
    # What would reveal a task (and so an author's bundle) or run code on the
    # scheduler or through it on every worker.
    calls: list[tuple[str, dict[str, object]]] = [
        ("register-client", {"client": "thief"}), ("update-graph", {"graph_header": {}}),
        ("run_function", {"function": b"", "wait": True}),  # run_on_scheduler's op
        ("get_cluster_state", {"exclude": []}), ("get_task_stream", {}), ("who_has", {}),
        ("processing", {}), ("gather", {"keys": []}), ("broadcast", {"msg": {"op": "run"}}),
        ("register_worker_plugin", {"plugin": b"", "name": "x"})]
    for op, arguments in calls:
        answer = ask(cluster.address, stolen, op, **arguments)
        assert isinstance(answer, PermissionError), (op, answer)
        assert str(answer) == (f"'{op}' refused to a 'worker' certificate: its "
                               "certificate's role may not send it")
    # The arena's own client (client certificate) plays on the real, certified worker.
    storage, season_id = new_season(tmp_path, ("greedy", "random"), 2)
    with ClusterExecutor(cluster.address, "inprocess",
                         security=cluster.client_security()) as executor:
        assert SeasonRunner(storage, season_id, executor).run() == "finished"
    assert stored_ids(storage, season_id) == planned_ids(storage, season_id)


def test_a_worker_certificate_cannot_make_a_worker_run_anything(
        cluster: LocalCluster) -> None:
    with ClusterExecutor(cluster.address, "inprocess",
                         security=cluster.client_security()) as executor:
        worker = next(iter(executor._client.scheduler_info(n_workers=-1)["workers"]))
    stolen = as_a_client(Path(cluster.certs), "worker")
    calls: list[tuple[str, dict[str, object]]] = [
        ("run", {"function": b""}), ("run_coroutine", {"function": b""}),
        ("plugin-add", {"plugin": b""}), ("upload_file", {}), ("update_data", {"data": {}})]
    for op, arguments in calls:
        answer = ask(worker, stolen, op, **arguments)
        assert isinstance(answer, PermissionError), (op, answer)
        assert f"'{op}' refused to a 'worker' certificate" in str(answer)
    # What a worker does ask another worker: a result it needs.
    assert ask(worker, stolen, "get_data", keys=[]) == {"status": "OK", "data": {}}
    assert ask(worker, as_a_client(Path(cluster.certs), "server"), "get_data",
               keys=[]).__class__ is PermissionError


def test_the_schedulers_http_server_shows_no_info_pages(cluster: LocalCluster) -> None:
    """It asks no certificate, so it answers health and metrics only: Dask's info
    pages (workers' logs, call stacks, tasks' errors) would go around the roles."""
    import urllib.error
    import urllib.request

    scheduler = cluster.processes[0]
    cluster_port = int(cluster.address.rsplit(":", 1)[1])
    [http_port] = [port for _, port in listening(scheduler.pid) if port != cluster_port]

    def status(path: str) -> int:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{http_port}{path}",
                                        timeout=BOUND_S) as answer:
                return int(answer.status)
        except urllib.error.HTTPError as error:
            return error.code

    assert status("/health") == 200
    for path in ("/info/main/workers.html", "/info/main/logs.html", "/json/identity.json",
                 "/info/main/exceptions.html"):
        assert status(path) == 404, path


def test_a_worker_sending_a_clients_message_on_its_stream_is_dropped(
        cluster: LocalCluster) -> None:
    """A worker (Dask's own, with the worker certificate) that joins and then sends
    `update-graph` on its stream has that stream closed and is removed; the
    scheduler and the honest worker go on."""
    from distributed import Worker

    security = ClusterTLS.from_dir(Path(cluster.certs), "worker").security()

    async def join_and_misbehave() -> None:
        worker = Worker(cluster.address, security=security, protocol="tls",
                        host="127.0.0.1", nthreads=1, dashboard=False, name="thief")
        await worker
        worker.batched_stream.send({"op": "update-graph", "graph_header": {},
                                    "graph_frames": []})
        await asyncio.wait_for(worker.finished(), BOUND_S)  # dropped by the scheduler

    asyncio.run(join_and_misbehave())
    client = cluster.client_security()
    wait_until(lambda: check_scheduler(cluster.address, security=client) == 1,
               what="the misbehaving worker to be removed", bound_s=BOUND_S)
    assert "refused 'update-graph' from" in Path(cluster.processes[0].log).read_text()
