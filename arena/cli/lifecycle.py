"""A bot version's lifecycle on the command line: waiting for an upload's vetting
(``arena submit`` and the commands that register folders), ``arena bots show``,
``arena bots logs``, ``arena bots reactivate``, ``arena bots revet`` and ``arena check FOLDER`` (the
server's build and validation, run here: ``arena.execution.vetting``)."""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path
from typing import Final

import grpc
from hollywood.arena.v1 import arena_pb2
from rich.console import Console
from rich.markup import escape

from arena.cli.client import ArenaClient, connect
from arena.cli.listing import every_version
from arena.cli.output import CliError, print_json, to_json
from arena.core.status import VersionStatus
from arena.core.text import neutralise

POLL_S: Final = 0.2
LOG_TAIL_LINES: Final = 20
CAUSES: Final = {
    "author": "rejected by its own build or bot: upload a new version",
    "arena": ("rejected by the arena's side, not the bot: vetted again automatically, "
              "or at once with `arena bots revet`"),
}


def status_of(bot: arena_pb2.Bot) -> VersionStatus | str:
    """``bot``'s status (none: active, registered before uploads); a status this
    arena does not know (a newer server's) stays as text, and counts as settled."""
    try:
        return VersionStatus(bot.status or VersionStatus.ACTIVE)
    except ValueError:
        return bot.status


def is_settled(status: VersionStatus | str) -> bool:
    return not isinstance(status, VersionStatus) or status.is_settled


def wait_vetted(client: ArenaClient, bot_id: str, *,
                on_status: Callable[[str, str], None] | None = None,
                poll_s: float = POLL_S) -> arena_pb2.BotVersion:
    """Poll ``bot_id`` until it is active, rejected or deactivated, calling
    ``on_status(status, detail)`` at each change; returns its last state."""
    seen = ""
    while True:
        [version] = client.stub.GetBot(arena_pb2.GetBotRequest(name=bot_id),
                                       metadata=_token_if_any(client)).versions
        status = status_of(version.bot)
        if status != seen and on_status is not None:
            on_status(status, version.status_detail)
        seen = status
        if is_settled(status):
            return version
        time.sleep(poll_s)


def rejection_text(version: arena_pb2.BotVersion) -> str:
    """Why ``version`` was rejected, with the tail of the log that shows it."""
    log = version.validation_log or version.build_log
    tail = "\n".join(log.splitlines()[-LOG_TAIL_LINES:])
    which = "validation" if version.validation_log else "build"
    return (f"{version.bot.id} rejected: {neutralise(version.status_detail)}"
            + (f"\n--- {which} log tail (arena bots logs {version.bot.id} --{which}) ---\n"
               f"{neutralise(tail, multiline=True)}" if tail else ""))


def wait_all_active(client: ArenaClient, bot_ids: list[str]) -> None:
    """Wait until every one of ``bot_ids`` is vetted; ``CliError`` for a rejected one."""
    for bot_id in bot_ids:
        version = wait_vetted(client, bot_id)
        if status_of(version.bot) is not VersionStatus.ACTIVE:
            raise CliError(rejection_text(version), code=1)


def _token_if_any(client: ArenaClient) -> tuple[tuple[str, str], ...]:
    """The token's metadata when this server may have it, else none: anyone may read
    a bot, and only its owner (or the admin) gets its build and validation logs."""
    try:
        return client.auth
    except CliError:
        return ()


def _get(client: ArenaClient, name: str, *, logs: bool = False
         ) -> list[arena_pb2.BotVersion]:
    """``name``'s versions; with ``logs``, asked with the token (a server refuses a
    wrong one, and says why the token was not sent)."""
    metadata = client.auth if logs else _token_if_any(client)
    try:
        return every_version(client, name, metadata)
    except grpc.RpcError as error:
        if error.code() == grpc.StatusCode.NOT_FOUND:
            raise CliError(str(error.details()), code=1) from None
        raise


def gate_text(gate: arena_pb2.LadderGate) -> str:
    """A version's gate on a ladder in one line (rich markup, its texts escaped)."""
    match = f"gate match (season {gate.match_id}) against {escape(gate.predecessor)}"
    if gate.status == "pending":
        verdict = "playing"
    else:
        verdict = (f"{escape(gate.status)} after {gate.pairs} pairs, Elo {gate.elo:+.0f} "
                   f"[{gate.elo_low:+.0f}, {gate.elo_high:+.0f}], LLR {gate.llr:.2f}")
    joined = ("admitted" + (f" by {escape(neutralise(gate.admitted_by))}"
                            if gate.admitted_by else "")) if gate.admitted else "not admitted"
    return f"ladder (season {gate.ladder_id}): {match}: {verdict}; {joined}"


def cmd_bots_show(args: argparse.Namespace, console: Console) -> int:
    with connect(args) as client:
        versions = _get(client, args.name)
    if args.json:
        print_json([to_json(version) for version in versions])
        return 0
    for version in versions:
        bot = version.bot
        console.print(f"{escape(bot.id)}  {escape(status_of(bot))}"
                      + (f": {escape(neutralise(version.status_detail))}"
                         if version.status_detail else ""), soft_wrap=True)
        console.print(f"  owner {escape(bot.owner or 'admin')}, registered "
                      f"{bot.registered_at}, status since {version.status_changed_at}",
                      soft_wrap=True)
        if version.rejection_cause:
            console.print("  " + CAUSES.get(version.rejection_cause,
                                            escape(version.rejection_cause)), soft_wrap=True)
        if status_of(bot) is VersionStatus.DEACTIVATED:
            console.print(f"  deactivated: it plays in no new season until the admin runs "
                          f"`arena bots reactivate {escape(bot.id)}`", soft_wrap=True)
        console.print(f"  image {escape(version.image_id or '-')}, rating "
                      + (f"{version.rating:.1f} ± {version.rating_sigma:.1f} (OpenSkill μ ± σ,"
                         " latest finished season)" if version.rated else "-"), soft_wrap=True)
        if version.validation_log:
            verdict = next((line for line in reversed(version.validation_log.splitlines())
                            if line.startswith(("passed", "rejected"))), "-")
            console.print(f"  validation: {escape(neutralise(verdict))}", soft_wrap=True)
        if version.build_log:
            tail = version.build_log.splitlines()[-5:]
            console.print("  build log tail:", soft_wrap=True)
            for line in tail:
                console.print(f"    {escape(neutralise(line))}", soft_wrap=True)
        for gate in version.ladder_gates:
            console.print("  " + gate_text(gate), soft_wrap=True)
        for fault in version.recent_faults:
            console.print(f"  fault in {escape(fault.series_id)}: {escape(fault.kind)}: "
                          f"{escape(neutralise(fault.message))}", soft_wrap=True)
    return 0


def cmd_bots_logs(args: argparse.Namespace, console: Console) -> int:
    if "@" not in args.bot_id:
        raise CliError(f"{args.bot_id}: name a version, NAME@VERSION (see `arena bots show "
                       f"{args.bot_id}`)")
    with connect(args) as client:
        if not client.auth:
            raise CliError(f"{args.bot_id}: a version's build and validation logs are its "
                           "owner's (and the admin's): give your token (--token, "
                           "--token-file or arena login)")
        [version] = _get(client, args.bot_id, logs=True)
    text = version.validation_log if args.validation else version.build_log
    if not text:
        which = "validation" if args.validation else "build"
        none = ("it is built only by a sandbox that builds images" if not args.validation
                else "it has not been validated (yet)")
        none += "; or it is not yours: a version's logs are its owner's and the admin's"
        console.print(f"{version.bot.id} has no {which} log: {none}", soft_wrap=True)
        return 0
    print(neutralise(text, multiline=True))
    return 0


def cmd_bots_reactivate(args: argparse.Namespace, console: Console) -> int:
    with connect(args) as client:
        try:
            bot = client.stub.ReactivateBot(arena_pb2.ReactivateBotRequest(bot_id=args.bot_id),
                                            metadata=client.auth).bot
        except grpc.RpcError as error:
            if error.code() in (grpc.StatusCode.NOT_FOUND,
                                grpc.StatusCode.FAILED_PRECONDITION):
                raise CliError(str(error.details()), code=1) from None
            raise
    console.print(f"{bot.id} is {bot.status} again", soft_wrap=True)
    return 0


def cmd_bots_revet(args: argparse.Namespace, console: Console) -> int:
    with connect(args) as client:
        try:
            bot = client.stub.RevetBot(arena_pb2.RevetBotRequest(bot_id=args.bot_id),
                                       metadata=client.auth).bot
        except grpc.RpcError as error:
            if error.code() in (grpc.StatusCode.NOT_FOUND, grpc.StatusCode.FAILED_PRECONDITION,
                                grpc.StatusCode.PERMISSION_DENIED):
                raise CliError(str(error.details()), code=1) from None
            raise
        console.print(f"{escape(bot.id)} is vetted again ({escape(bot.status)})",
                      soft_wrap=True)
        if args.wait:
            version = wait_vetted(client, bot.id)
            if status_of(version.bot) is not VersionStatus.ACTIVE:
                raise CliError(rejection_text(version), code=1)
            console.print(f"{escape(bot.id)}: active", soft_wrap=True)
    return 0


def cmd_check(args: argparse.Namespace, console: Console) -> int:
    """Build and validate a bot folder here, as the server would."""
    from arena.core.manifest import BotManifest, ManifestError, submission_problem
    from arena.core.series import BotRef
    from arena.core.settings import ConfigError
    from arena.execution.vetting import vet_bot
    from arena.sandbox import registry as sandbox_registry
    from arena.sandbox.base import SandboxError

    folder: Path = args.folder
    try:
        problem = submission_problem(BotManifest.load(folder))
        if problem is not None:
            raise CliError(f"{folder}: {problem}", code=1)
        bot = BotRef.from_folder(folder)
    except ManifestError as error:
        raise CliError(str(error), code=1) from None
    sandbox = args.sandbox or sandbox_registry.default_name()

    def stage(name: str) -> None:
        console.print(f"{name} {escape(bot.name)} {escape(bot.version)} "
                      f"({escape(sandbox)} sandbox)", style="bold")

    def line(text: str) -> None:
        console.print(escape(neutralise(text, multiline=True)), soft_wrap=True,
                      highlight=False)

    try:
        vetting = vet_bot(bot, sandbox, on_stage=stage, on_line=line)
    except (SandboxError, ConfigError) as error:
        raise CliError(f"the check could not run: {error}", code=2) from None
    if vetting.passed:
        console.print(f"{escape(bot.name)} {escape(bot.version)} passes: the server "
                      "would make it active", style="green")
        return 0
    console.print(f"{escape(bot.name)} {escape(bot.version)} would be rejected: "
                  f"{escape(neutralise(vetting.reason))}", soft_wrap=True, style="red")
    return 1
