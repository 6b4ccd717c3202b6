"""The ``arena`` command's entry point: parse the arguments, run the command's
handler, and turn every failure into a message and an exit status.

Bad arguments or input print ``error: ...`` and exit 2; an unreachable server or
another failure exits 1; an interrupt exits 130; a closed output pipe
(``arena season show 1 | head -1``) ends any command quietly: exit 0, as the reader
took all it wanted, and nothing on stderr.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Sequence
from typing import Final

import grpc

from arena.cli.client import credentials_of, default_server, transport_of
from arena.cli.commands import Handler
from arena.cli.output import CliError
from arena.cli.parser import build_parser
from arena.cli.render import plain_console
from arena.core.settings import ConfigError
from arena.core.text import neutralise

USAGE_ERRORS: Final = frozenset({
    grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.NOT_FOUND,
    grpc.StatusCode.ALREADY_EXISTS, grpc.StatusCode.FAILED_PRECONDITION,
    grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.PERMISSION_DENIED,
    grpc.StatusCode.RESOURCE_EXHAUSTED,
})


def _token_hint(args: argparse.Namespace, code: grpc.StatusCode | None) -> str:
    """For an authentication error: which token was sent, and what to do next."""
    if code not in (grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.PERMISSION_DENIED):
        return ""
    try:
        credentials = credentials_of(args)
    except CliError:
        return ""
    hint = f"\n  token used: {credentials.source}"
    if code == grpc.StatusCode.UNAUTHENTICATED or credentials.token is None:
        hint += f"\n  next: {credentials.advice}"
    return hint


def main(argv: Sequence[str] | None = None) -> int:
    try:
        return _run(argv)
    except BrokenPipeError:  # the reader went away (`arena series list | head`)
        _silence_stdout()
        return 0


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so the interpreter's final flush of what is left in
    its buffer does not print "Exception ignored ... BrokenPipeError" on the way out."""
    try:
        target = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # replaced by a stream without a file
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, target)
    finally:
        os.close(devnull)


def _run(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    console = plain_console()
    if not console.is_terminal:  # piped or captured: don't squeeze tables into 80 columns
        console = plain_console(width=max(console.width, 120))
    error_console = plain_console(stderr=True)
    handler: Handler = args.handler
    try:
        return handler(args, console)
    except CliError as error:
        error_console.print(f"error: {neutralise(str(error))}", soft_wrap=True)
        return error.code
    except ConfigError as error:  # a bad season setting, e.g. --set, found by the client
        error_console.print(f"error: {neutralise(str(error))}", soft_wrap=True)
        return 2
    except grpc.RpcError as error:
        code = error.code() if hasattr(error, "code") else None
        details = error.details() if hasattr(error, "details") else str(error)
        if code == grpc.StatusCode.UNAVAILABLE:
            target = getattr(args, "server", None) or default_server()
            tls = "" if transport_of(args).tls else "; one that serves TLS needs --tls-ca FILE"
            error_console.print(f"error: cannot reach the arena server at {target} "
                                f"(is `arena serve` running?{tls}): {details}",
                                markup=False, highlight=False, soft_wrap=True)
            return 1
        name = code.name if code is not None else "ERROR"
        error_console.print(f"error: {neutralise(details or '')} ({name})"
                            + _token_hint(args, code), soft_wrap=True)
        return 2 if code in USAGE_ERRORS else 1
    except KeyboardInterrupt:
        error_console.print("interrupted; a season left running resumes when `arena serve` "
                            "starts on the same database (or `arena season start ID`)")
        return 130
