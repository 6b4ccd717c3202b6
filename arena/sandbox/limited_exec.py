"""Run a command under resource limits: ``python -m arena.sandbox.limited_exec
--as BYTES --cpu SECONDS --nproc N --nofile N -- COMMAND...``.

The process sandbox starts bots through this launcher instead of a ``preexec_fn``:
Python code run between ``fork`` and ``exec`` in the multi-threaded arena (gRPC
has threads) can deadlock or abort the child, which showed up as bots dying with
signal 6 at start-up. Here the limits are set in a fresh single-threaded process
that then ``exec``s the bot, so the bot keeps this process's pid and group.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="limited_exec")
    parser.add_argument("--as", dest="address_space", type=int, required=True)
    parser.add_argument("--cpu", type=int, required=True)
    parser.add_argument("--nproc", type=int, required=True)
    parser.add_argument("--nofile", type=int, required=True)
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no command given")
    resource.setrlimit(resource.RLIMIT_AS, (args.address_space, args.address_space))
    resource.setrlimit(resource.RLIMIT_CPU, (args.cpu, args.cpu + 5))
    resource.setrlimit(resource.RLIMIT_NPROC, (args.nproc, args.nproc))
    resource.setrlimit(resource.RLIMIT_NOFILE, (args.nofile, args.nofile))
    try:
        os.execvp(command[0], command)
    except OSError as error:
        print(f"limited_exec: cannot run {command[0]}: {error}", file=sys.stderr)
        return 127
    return 0  # not reached: exec replaced this process


if __name__ == "__main__":
    sys.exit(main())
