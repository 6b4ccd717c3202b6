"""A Dask cluster on this machine in one command: ``arena cluster up`` starts a
scheduler and N ``arena worker`` processes and records their PIDs in a state file;
``arena cluster down`` stops exactly those processes (each checked to still be the
one started, by its start time, so a reused PID is never signalled).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from arena.core.token_binding import is_loopback_host
from arena.execution.cluster_certs import CA_CERT, make_cluster_certs
from arena.execution.cluster_roles import ROLES_PRELOAD
from arena.execution.cluster_security import LOOPBACK_HOST, ClusterTLS

if TYPE_CHECKING:
    from distributed import Security

ARENA_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_STATE_DIR = Path(".arena") / "cluster"
STATE_FILE = "cluster.json"
SCHEDULER_FILE = "scheduler.json"
DEFAULT_PORT = 8786
SCHEDULER_HTTP_ROUTES = '["distributed.http.health", "distributed.http.scheduler.prometheus"]'
READY_TIMEOUT_S = 90.0
STOP_TIMEOUT_S = 20.0
_POLL_S = 0.1


class LocalClusterError(RuntimeError):
    """The local cluster cannot be started or stopped as asked; says why."""


@dataclass
class ClusterProcess:
    """A process of the local cluster: its role, PID, start time and log file."""

    role: str
    pid: int
    started: str
    log: str


@dataclass
class LocalCluster:
    """The state file's content."""

    address: str
    processes: list[ClusterProcess] = field(default_factory=list)
    certs: str = ""
    """The certificates' folder (``arena cluster certs``); empty for plain TCP."""

    def save(self, state_dir: Path) -> None:
        path = state_dir / STATE_FILE
        path.write_text(json.dumps({"address": self.address, "certs": self.certs,
                                    "processes": [asdict(p) for p in self.processes]},
                                   indent=2) + "\n")

    def client_security(self) -> Security | None:
        """The arena's (client role) security for this cluster; None for plain TCP."""
        if not self.certs:
            return None
        return ClusterTLS.from_dir(Path(self.certs), "client").security()

    @classmethod
    def load(cls, state_dir: Path) -> LocalCluster | None:
        path = state_dir / STATE_FILE
        if not path.exists():
            return None
        try:
            data = json.loads(path.read_text())
            return cls(data["address"], [ClusterProcess(**p) for p in data["processes"]],
                       str(data.get("certs", "")))
        except (ValueError, KeyError, TypeError) as error:
            raise LocalClusterError(f"{path} is not a cluster state file: {error}") from None


def process_start(pid: int) -> str:
    """The process's start time in clock ticks since boot ("" if it is gone, or dead
    and not yet reaped by its parent)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return ""
    return "" if len(fields) < 20 or fields[0] in ("Z", "X") else fields[19]


def is_running(process: ClusterProcess) -> bool:
    """Whether ``process`` is still the very process that was started."""
    return process.started != "" and process_start(process.pid) == process.started


def up(workers: int, *, slots: int | None, sandboxes: Sequence[str], port: int = DEFAULT_PORT,
       state_dir: Path = DEFAULT_STATE_DIR, host: str = LOOPBACK_HOST,
       certs: Path | None = None, insecure: bool = False) -> LocalCluster:
    """Start a scheduler on ``host:port`` (0 = any free port) and ``workers`` workers
    listening on ``host`` too, wait until all workers have joined, record them;
    ``LocalClusterError`` if a cluster recorded in ``state_dir`` still runs or a
    process fails to start (then every process started here is stopped again).

    Every process speaks mutual TLS with the certificates in ``certs``; without
    them, with those made in ``state_dir/certs`` (made once, on first use), or,
    with ``insecure``, plain TCP."""
    state_dir.mkdir(parents=True, exist_ok=True)
    existing = LocalCluster.load(state_dir)
    if existing is not None and any(is_running(p) for p in existing.processes):
        raise LocalClusterError(f"a local cluster is already up at {existing.address} "
                                "(`arena cluster down` first)")
    if certs is None and not insecure:
        certs = state_dir / "certs"
        if not (certs / CA_CERT).exists():
            make_cluster_certs(certs, [] if is_loopback_host(host) else [host])
    if certs is not None:
        certs = certs.resolve()
    scheduler_file = state_dir / SCHEDULER_FILE
    scheduler_file.unlink(missing_ok=True)
    cluster = LocalCluster("", certs=str(certs or ""))
    try:
        cluster.processes.append(_spawn(
            "scheduler", [sys.executable, "-m", "distributed.cli.dask_scheduler",
                          "--host", host, "--port", str(port), "--no-dashboard",
                          # Its HTTP server (health, metrics) runs without the dashboard
                          # too, on every interface unless told: same host, any port.
                          "--dashboard-address", _host_port(host, 0),
                          "--scheduler-file", str(scheduler_file),
                          # Certificates' roles checked on every connection.
                          "--preload", ROLES_PRELOAD,
                          *_scheduler_tls(certs)], state_dir))
        cluster.address = _wait_for(lambda: _scheduler_address(scheduler_file),
                                    cluster.processes[0], "the scheduler to start")
        cluster.save(state_dir)
        for index in range(workers):
            command = [sys.executable, "-m", "arena.cli", "worker",
                       "--scheduler", cluster.address, "--name", f"local-{index}",
                       "--cache-dir", str(state_dir / "worker-cache"), "--listen-host", host]
            command += ["--cluster-certs", str(certs)] if certs is not None else []
            command += ["--insecure"] if insecure else []
            if slots is not None:
                command += ["--slots", str(slots)]
            for sandbox in sandboxes:
                command += ["--sandbox", sandbox]
            cluster.processes.append(_spawn(f"worker-{index}", command, state_dir))
            cluster.save(state_dir)
        wait_for_workers(cluster.address, workers, cluster.processes[1:],
                         security=cluster.client_security())
    except BaseException:
        down(state_dir)
        raise
    return cluster


def down(state_dir: Path = DEFAULT_STATE_DIR) -> list[ClusterProcess]:
    """Stop the recorded processes that still run (SIGTERM, then SIGKILL after a
    bounded wait; workers first), remove the state file; returns those stopped."""
    cluster = LocalCluster.load(state_dir)
    if cluster is None:
        return []
    running = [p for p in reversed(cluster.processes) if is_running(p)]
    for process in running:
        with contextlib.suppress(ProcessLookupError):
            os.kill(process.pid, signal.SIGTERM)
    give_up_at = time.monotonic() + STOP_TIMEOUT_S
    while any(is_running(p) for p in running) and time.monotonic() < give_up_at:
        time.sleep(_POLL_S)
    for process in running:
        if is_running(process):
            with contextlib.suppress(ProcessLookupError):
                os.kill(process.pid, signal.SIGKILL)
    (state_dir / STATE_FILE).unlink(missing_ok=True)
    (state_dir / SCHEDULER_FILE).unlink(missing_ok=True)
    return running


def _host_port(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def _scheduler_tls(certs: Path | None) -> list[str]:
    if certs is None:
        return []
    tls = ClusterTLS.from_dir(certs, "scheduler")
    return ["--protocol", "tls", "--tls-ca-file", str(tls.ca), "--tls-cert", str(tls.cert),
            "--tls-key", str(tls.key)]


def wait_for_workers(address: str, count: int, processes: Sequence[ClusterProcess] = (),
                     timeout: float = READY_TIMEOUT_S, security: Security | None = None
                     ) -> None:
    """Wait until ``count`` workers have joined the scheduler at ``address``;
    ``LocalClusterError`` if one of ``processes`` exits first (its log's tail shown)."""
    from distributed import Client

    with Client(address, timeout=timeout, set_as_default=False, security=security) as client:
        give_up_at = time.monotonic() + timeout
        while len(client.scheduler_info(n_workers=-1).get("workers", {})) < count:
            for process in processes:
                if not is_running(process):
                    raise LocalClusterError(f"{process.role} exited while starting:\n"
                                            + _tail(Path(process.log)))
            if time.monotonic() >= give_up_at:
                raise LocalClusterError(f"{count} worker(s) did not join {address} "
                                        f"within {timeout:.0f} s")
            time.sleep(_POLL_S)


def _spawn(role: str, command: list[str], state_dir: Path) -> ClusterProcess:
    log_path = state_dir / f"{role}.log"
    # The workers run the very arena that started them, whatever the current folder.
    environment = dict(os.environ)
    environment["PYTHONPATH"] = os.pathsep.join(
        [str(ARENA_ROOT), *filter(None, [environment.get("PYTHONPATH")])])
    if "--tls-cert" in command:  # the scheduler's command line has no such option
        environment["DASK_DISTRIBUTED__COMM__REQUIRE_ENCRYPTION"] = "True"
    if role == "scheduler":
        # Its HTTP server answers anyone who reaches it, no certificate asked: only
        # health and metrics, not Dask's info pages (workers' logs and call stacks,
        # tasks' errors), which would go around the roles' check.
        environment["DASK_DISTRIBUTED__SCHEDULER__HTTP__ROUTES"] = SCHEDULER_HTTP_ROUTES
    with log_path.open("wb") as log_file:
        process = subprocess.Popen(command, stdout=log_file, stderr=subprocess.STDOUT,
                                   stdin=subprocess.DEVNULL, start_new_session=True,
                                   env=environment)
    started = ""
    while not started and process.poll() is None:
        started = process_start(process.pid)
    return ClusterProcess(role, process.pid, started, str(log_path))


def _scheduler_address(scheduler_file: Path) -> str | None:
    try:
        address = json.loads(scheduler_file.read_text()).get("address")
    except (OSError, ValueError):
        return None
    return str(address) if address else None


def _wait_for(probe: Callable[[], str | None], process: ClusterProcess, what: str) -> str:
    give_up_at = time.monotonic() + READY_TIMEOUT_S
    while (answer := probe()) is None:
        if not is_running(process):
            raise LocalClusterError(f"{process.role} exited while starting:\n"
                                    + _tail(Path(process.log)))
        if time.monotonic() >= give_up_at:
            raise LocalClusterError(f"timed out waiting for {what}")
        time.sleep(_POLL_S)
    return answer


def _tail(path: Path, lines: int = 20) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"
