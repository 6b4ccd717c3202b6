"""The cluster commands: ``arena worker`` (serve series to a Dask scheduler) and
``arena cluster up | down`` (a scheduler and workers on this machine).

A season is sent to a cluster with ``--cluster tcp://HOST:8786`` on ``arena serve``
or ``arena season run``. The Dask and sandbox modules are imported inside the
handlers, so that loading the command line for other commands stays light.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from rich.console import Console

from arena.cli.output import CliError
from arena.core import arguments

DEFAULT_WORKER_SANDBOX = "docker"


def add_cluster_commands(commands: Any) -> None:
    """``worker`` and ``cluster up | down`` on the top-level parser."""
    from arena.sandbox import registry

    worker = commands.add_parser(
        "worker", help="serve series to a Dask scheduler (a machine of the cluster)")
    worker.add_argument("--scheduler", required=True, metavar="tcp://HOST:8786",
                        help="the scheduler's address")
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
    _worker_options(start, registry.names())
    start.add_argument("--state-dir", type=Path, default=Path(".arena") / "cluster",
                       help="where the PIDs and logs are kept (.arena/cluster)")
    start.set_defaults(handler=cmd_cluster_up)
    stop = cluster.add_parser("down", help="stop the processes `cluster up` started")
    stop.add_argument("--state-dir", type=Path, default=Path(".arena") / "cluster",
                      help="the state directory `cluster up` used (.arena/cluster)")
    stop.set_defaults(handler=cmd_cluster_down)


def _worker_options(parser: argparse.ArgumentParser, sandboxes: tuple[str, ...]) -> None:
    parser.add_argument("--slots", type=arguments.positive_int, default=None,
                        help="series played at once by a worker (default: its cores)")
    parser.add_argument("--sandbox", action="append", choices=sandboxes, default=None,
                        help="a sandbox backend the worker offers (repeatable; default "
                             f"{DEFAULT_WORKER_SANDBOX}); each is checked before it serves")


def cmd_worker(args: argparse.Namespace, console: Console) -> int:
    from arena.execution.worker import WorkerSetupError, serve

    slots = args.slots or os.cpu_count() or 1
    sandboxes = args.sandbox or [DEFAULT_WORKER_SANDBOX]
    console.print(f"worker: checking sandbox(es) {', '.join(sandboxes)}, then serving "
                  f"{args.scheduler} with {slots} slot(s)")
    try:
        serve(args.scheduler, slots=slots, sandboxes=sandboxes, cache_dir=args.cache_dir,
              name=args.name)
    except WorkerSetupError as error:
        raise CliError(f"worker refused to start: {error}", code=1) from None
    return 0


def cmd_cluster_up(args: argparse.Namespace, console: Console) -> int:
    from arena.execution.local_cluster import LocalClusterError, up

    try:
        cluster = up(args.workers, slots=args.slots,
                     sandboxes=args.sandbox or [DEFAULT_WORKER_SANDBOX], port=args.port,
                     state_dir=args.state_dir)
    except LocalClusterError as error:
        raise CliError(f"cluster up failed: {error}", code=1) from None
    console.print(f"cluster up: scheduler {cluster.address}, {args.workers} worker(s); "
                  f"PIDs and logs in {args.state_dir}")
    for process in cluster.processes:
        console.print(f"  {process.role}: pid {process.pid}")
    console.print(f"play on it: arena season run --cluster {cluster.address} ... ; "
                  "stop it: arena cluster down")
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
