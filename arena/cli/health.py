"""``arena health``: asks a server's gRPC health service (grpc.health.v1) whether it
serves, for container health checks, service managers and load balancers.

Exit 0 when the server answers SERVING, 1 otherwise (unreachable, not serving, or no
answer within ``--timeout``), with one line on stderr saying which. It sends no token:
the health service needs none, so it works beside any server, TLS or not.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc  # type: ignore[import-untyped]
from rich.console import Console

from arena.cli.client import default_server, transport_of
from arena.cli.output import CliError
from arena.core import arguments
from arena.core.settings import ConfigError

DEFAULT_HEALTH_TIMEOUT_S = 5.0


def add_health_command(commands: Any) -> None:
    health = commands.add_parser(
        "health", help="ask a server's gRPC health service whether it serves: exit 0 "
        "when SERVING, 1 otherwise (for container health checks)")
    health.add_argument("--server", default=argparse.SUPPRESS,
                        help="arena server HOST:PORT (default $ARENA_SERVER or localhost:50551)")
    health.add_argument("--tls-ca", type=Path, default=argparse.SUPPRESS,
                        metavar="FILE", help="connect with TLS, trusting the CA certificate(s) "
                        "in FILE (PEM; default $ARENA_TLS_CA)")
    health.add_argument("--service", default="", metavar="NAME",
                        help="the service to ask about (default: the server as a whole)")
    health.add_argument("--timeout", type=arguments.seconds, default=DEFAULT_HEALTH_TIMEOUT_S,
                        help=f"give up after this many seconds (default "
                        f"{DEFAULT_HEALTH_TIMEOUT_S:g})")
    health.set_defaults(handler=cmd_health)


def cmd_health(args: argparse.Namespace, console: Console) -> int:
    target = getattr(args, "server", None) or default_server()
    try:
        channel = transport_of(args).channel(target)
    except ConfigError as error:  # a missing or unreadable CA file
        raise CliError(str(error)) from None
    with channel:
        stub = health_pb2_grpc.HealthStub(channel)
        request = health_pb2.HealthCheckRequest(service=args.service)
        try:
            reply = stub.Check(request, timeout=args.timeout, wait_for_ready=True)
        except grpc.RpcError as error:
            code = error.code() if hasattr(error, "code") else None
            if code == grpc.StatusCode.DEADLINE_EXCEEDED:
                why = f"no answer within {args.timeout:g} s"
            elif code == grpc.StatusCode.NOT_FOUND:
                why = f"it knows no service {args.service!r}"
            else:
                name = code.name if code is not None else "ERROR"
                why = f"{error.details() if hasattr(error, 'details') else error} ({name})"
            raise CliError(f"{target} is not healthy: {why}", code=1) from None
    status = health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status)
    if reply.status != health_pb2.HealthCheckResponse.SERVING:
        raise CliError(f"{target} is not serving: {status}", code=1)
    console.print(f"{target}: {status}", markup=False, highlight=False)
    return 0
