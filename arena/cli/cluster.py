"""The cluster commands: ``arena worker`` (serve series to a Dask scheduler),
``arena cluster up | down`` (a scheduler and workers on this machine) and ``arena
cluster certs DIR`` (the cluster CA and its certificates for mutual TLS).

A season is sent to a cluster with ``--cluster tls://HOST:8786 --cluster-certs DIR``
on ``arena serve`` or ``arena season run``. Nothing of the cluster listens beyond
loopback, or connects there, without certificates unless ``--insecure`` says so.
The Dask and sandbox modules are imported inside the handlers, so that loading the
command line for other commands stays light.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console

from arena.cli.output import CliError
from arena.core import arguments
from arena.sandbox import registry

if TYPE_CHECKING:
    from distributed import Security

LOOPBACK = "127.0.0.1"


def add_tls_options(parser: argparse.ArgumentParser) -> None:
    """``--cluster-certs DIR`` and ``--insecure``, for every command that joins a cluster."""
    parser.add_argument("--cluster-certs", type=Path, default=None, metavar="DIR",
                        help="the cluster's certificates (`arena cluster certs DIR`): mutual "
                             "TLS with the cluster CA; needed beyond loopback")
    parser.add_argument("--insecure", action="store_true",
                        help="allow a non-loopback cluster address without certificates "
                             "(anyone who can reach it can join; warns)")


def cluster_security(what: str, address: str, args: argparse.Namespace,
                     role: str) -> tuple[str, Security | None]:
    """The address (``tls://`` with certificates) and security of ``role`` for
    ``args``; ``CliError`` for a non-loopback address without certificates (unless
    ``--insecure``, which warns on stderr) or unusable certificates."""
    from arena.execution.cluster_security import (
        ClusterSecurityError,
        ClusterTLS,
        exposure_check,
        scheduler_address,
    )

    try:
        tls = (None if args.cluster_certs is None
               else ClusterTLS.from_dir(args.cluster_certs, role))
        warning = exposure_check(what, address, tls, args.insecure)
        address = scheduler_address(address, tls)
    except ClusterSecurityError as error:
        raise CliError(str(error), code=2) from None
    if warning:
        print(warning, file=sys.stderr)
    return address, None if tls is None else tls.security()


def add_cluster_commands(commands: Any) -> None:
    """``worker`` and ``cluster up | down`` on the top-level parser."""
    worker = commands.add_parser(
        "worker", help="serve series to a Dask scheduler (a machine of the cluster)")
    worker.add_argument("--scheduler", required=True, metavar="tls://HOST:8786",
                        help="the scheduler's address")
    worker.add_argument("--listen-host", default=LOOPBACK, metavar="HOST",
                        help="the only interface the worker listens on, for the scheduler "
                             f"and other workers ({LOOPBACK}; the machine's cluster-network "
                             "address when the scheduler is elsewhere)")
    worker.add_argument("--connect-timeout", type=arguments.seconds, default=60.0,
                        metavar="SECONDS", help="give up when the scheduler cannot be "
                        "reached (or refuses this worker) for this long (60)")
    add_tls_options(worker)
    _worker_options(worker, registry.names())
    worker.add_argument("--name", default=None, help="the worker's name (default: its pid)")
    worker.add_argument("--cache-dir", type=Path, default=Path(".arena") / "worker-cache",
                        help="where bot code is unpacked, once per content hash")
    worker.set_defaults(handler=cmd_worker)

    cluster = commands.add_parser(
        "cluster", help="a scheduler and workers on this machine").add_subparsers(
        dest="cluster_command", required=True, metavar="ACTION")
    start = cluster.add_parser("up", help="start a scheduler and N workers here")
    start.add_argument("--workers", type=arguments.positive_int, default=2,
                       help="how many worker processes (2)")
    start.add_argument("--port", type=int, default=8786,
                       help="the scheduler's port (8786; 0 = any free port)")
    start.add_argument("--host", default=LOOPBACK,
                       help=f"the one interface the scheduler and workers listen on ({LOOPBACK})")
    add_tls_options(start)
    _worker_options(start, registry.names())
    start.add_argument("--state-dir", type=Path, default=Path(".arena") / "cluster",
                       help="where the PIDs and logs are kept (.arena/cluster)")
    start.set_defaults(handler=cmd_cluster_up)
    stop = cluster.add_parser("down", help="stop the processes `cluster up` started")
    stop.add_argument("--state-dir", type=Path, default=Path(".arena") / "cluster",
                      help="the state directory `cluster up` used (.arena/cluster)")
    stop.set_defaults(handler=cmd_cluster_down)
    certs = cluster.add_parser(
        "certs", help="make the cluster CA and its scheduler, worker, client and server "
        "certificates")
    certs.add_argument("directory", type=Path, metavar="DIR", help="where to write them")
    certs.add_argument("--host", action="append", default=[], metavar="HOST",
                       help="a name or IP the cluster's machines use (repeatable; "
                            "localhost and loopback are always included)")
    certs.add_argument("--days", type=arguments.positive_int, default=365,
                       help="how long the certificates are valid (365 days)")
    certs.set_defaults(handler=cmd_cluster_certs)


def _worker_options(parser: argparse.ArgumentParser, sandboxes: tuple[str, ...]) -> None:
    parser.add_argument("--slots", type=arguments.positive_int, default=None,
                        help="series played at once by a worker (default: its cores)")
    parser.add_argument("--sandbox", action="append", choices=sandboxes, default=None,
                        help="a sandbox backend the worker offers (repeatable; default "
                             f"{registry.default_name()}); each is checked before it serves")


def cmd_worker(args: argparse.Namespace, console: Console) -> int:
    from arena.execution.worker import WorkerSetupError, serve

    slots = args.slots or os.cpu_count() or 1
    sandboxes = args.sandbox or [registry.default_name()]
    from arena.execution.worker import Listening

    scheduler, security = cluster_security("the scheduler at", args.scheduler, args, "worker")
    cluster_security("listening on", args.listen_host, args, "worker")
    console.print(f"worker: checking sandbox(es) {', '.join(sandboxes)}, then serving "
                  f"{scheduler} with {slots} slot(s), listening on {args.listen_host}")
    try:
        serve(scheduler, slots=slots, sandboxes=sandboxes, cache_dir=args.cache_dir,
              name=args.name, listen=Listening(args.listen_host, security),
              connect_timeout=args.connect_timeout)
    except WorkerSetupError as error:
        raise CliError(f"worker refused to start: {error}", code=1) from None
    return 0


def cmd_cluster_up(args: argparse.Namespace, console: Console) -> int:
    from arena.execution.cluster_certs import CertificateError
    from arena.execution.cluster_security import ClusterSecurityError
    from arena.execution.local_cluster import LocalClusterError, up

    if args.cluster_certs is not None or args.insecure:  # else: certificates made here
        cluster_security("listening on", args.host, args, "scheduler")
    try:
        cluster = up(args.workers, slots=args.slots,
                     sandboxes=args.sandbox or [registry.default_name()], port=args.port,
                     state_dir=args.state_dir, host=args.host, certs=args.cluster_certs,
                     insecure=args.insecure)
    except (LocalClusterError, ClusterSecurityError, CertificateError) as error:
        raise CliError(f"cluster up failed: {error}", code=1) from None
    console.print(f"cluster up: scheduler {cluster.address}, {args.workers} worker(s); "
                  f"PIDs and logs in {args.state_dir}")
    if cluster.certs:
        console.print(f"  certificates (mutual TLS): {cluster.certs}")
    for process in cluster.processes:
        console.print(f"  {process.role}: pid {process.pid}")
    certs = f" --cluster-certs {cluster.certs}" if cluster.certs else ""
    console.print(f"play on it: arena season run --cluster {cluster.address}{certs} ... ; "
                  "stop it: arena cluster down", soft_wrap=True)
    return 0


def cmd_cluster_down(args: argparse.Namespace, console: Console) -> int:
    from arena.execution.local_cluster import LocalClusterError, down

    try:
        stopped = down(args.state_dir)
    except LocalClusterError as error:
        raise CliError(str(error), code=1) from None
    if not stopped:
        console.print(f"no local cluster running (state in {args.state_dir})")
    for process in stopped:
        console.print(f"stopped {process.role} (pid {process.pid})")
    return 0


def cmd_cluster_certs(args: argparse.Namespace, console: Console) -> int:
    from arena.execution.cluster_certs import CertificateError, make_cluster_certs

    try:
        directory = make_cluster_certs(args.directory, args.host, days=args.days)
    except (CertificateError, OSError) as error:
        raise CliError(f"cluster certs failed: {error}", code=1) from None
    console.print(f"cluster CA and certificates in {directory} (valid {args.days} days):",
                  soft_wrap=True)
    console.print("  ca.pem: to every machine; ca-key.pem: keep it off the cluster\n"
                  "  scheduler.pem + scheduler-key.pem: the scheduler's machine\n"
                  "  worker.pem + worker-key.pem: each worker's machine\n"
                  "  client.pem + client-key.pem: the arena server's machine (--cluster-certs)\n"
                  "  server.pem + server-key.pem: arena serve --tls-cert/--tls-key; its "
                  "clients trust ca.pem (--tls-ca)")
    return 0
