"""Uploading bots: ``arena submit FOLDER`` (an author's or the admin's token) and the
upload behind ``arena bots register``, ``season run``, ``match`` and ``demo``.

The folder is packed here, on the client, as the cluster packs a bot version
(``arena.execution.bundles.bundle_of``: a gzip'd tar of exactly the files its
content hash covers, so without version control and cache folders, node_modules
and what ``.arenaignore`` lists), then streamed to the server, which checks and
registers it (``SubmitBot``).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from hollywood.arena.v1 import arena_pb2
from rich.console import Console

from arena.cli.client import ArenaClient, connect
from arena.cli.lifecycle import rejection_text, status_of, wait_vetted
from arena.cli.output import CliError, print_json, to_json
from arena.cli.render import shown
from arena.core.manifest import MANIFEST_NAME, BotManifest, ManifestError, submission_problem
from arena.core.status import VersionStatus
from arena.core.text import neutralise
from arena.execution.bundles import bundle_of


def pack(folder: Path) -> bytes:
    """``folder``'s upload archive (a gzip'd tar), after checking its ``bot.toml`` as
    the server will. Raises ``CliError`` naming the problem."""
    try:
        manifest = BotManifest.load(folder)
        problem = submission_problem(manifest)
        if problem is not None:
            raise CliError(f"{folder}: {problem}")
        return bundle_of(folder).archive
    except ManifestError as error:
        raise CliError(str(error)) from None
    except OSError as error:
        raise CliError(f"cannot read the bot folder {folder}: {error}") from None


def upload(client: ArenaClient, folder: Path, *, replace: bool = False
           ) -> arena_pb2.SubmitBotResponse:
    """Pack and upload ``folder``."""
    return client.submit(pack(folder), replace=replace)


def upload_all(client: ArenaClient, folders: Sequence[Path]) -> list[arena_pb2.SubmitBotResponse]:
    return [upload(client, folder) for folder in folders]


def bot_folders(paths: Sequence[Path], console: Console) -> list[Path]:
    """The paths to register: given several (e.g. ``sample_bots/*``), folders without
    a ``bot.toml`` and compiled bots not built yet (``unbuilt``: vetting would reject
    them) are skipped with a note; one path, or a path that is no folder at all, is
    kept (the check reports its problem)."""
    if len(paths) == 1:
        return list(paths)
    kept = []
    for path in paths:
        if path.is_dir() and not (path / MANIFEST_NAME).is_file():
            console.print(f"skipped {path}: no {MANIFEST_NAME}", soft_wrap=True)
        elif path.is_dir() and unbuilt(path):
            console.print(f"skipped {path}: not built (its run.command names a program the "
                          "folder does not have yet; see its build.sh or README)",
                          soft_wrap=True, markup=False)
        else:
            kept.append(path)
    if not kept:
        raise CliError(f"none of the {len(paths)} paths is a bot folder (with a {MANIFEST_NAME})")
    return kept


def unbuilt(folder: Path) -> bool:
    """Whether the bot's ``run.command`` names a program in its folder that is not there
    (a compiled bot before its build, e.g. ``sample_bots/cpp-greedy/build.sh``)."""
    try:
        program = BotManifest.load(folder).run_command[0]
    except ManifestError:
        return False  # registering it says what is wrong
    return "/" in program and not program.startswith("/") and not (folder / program).exists()


def describe(response: arena_pb2.SubmitBotResponse) -> str:
    bot = shown(response.bot)
    if response.replaced:
        state = "code replaced"
    elif response.created:
        state = "registered"
    else:
        state = "already registered (identical): nothing changed"
    size = response.compressed_bytes / (1024 * 1024)
    return (f"{bot.id} {state} (uploaded {size:.2f} MiB, {response.entries} entries; "
            f"owner {bot.owner or 'admin'}, status {bot.status or 'active'})")


def cmd_submit(args: argparse.Namespace, console: Console) -> int:
    archive = pack(args.folder)
    with connect(args) as client:
        response = client.submit(archive, replace=args.replace)
        if not args.json:
            console.print(describe(response), soft_wrap=True)
        if args.no_wait:
            if args.json:
                print_json(to_json(response))
            return 0

        def show(status: str, detail: str) -> None:
            if not args.json:
                shown = detail and status != VersionStatus.REJECTED
                console.print(f"{response.bot.id}: {neutralise(status)}"
                              + (f" ({neutralise(detail)})" if shown else ""), soft_wrap=True)

        version = wait_vetted(client, response.bot.id, on_status=show)
    if args.json:
        print_json({"upload": to_json(response), "version": to_json(version)})
    if status_of(version.bot) is VersionStatus.ACTIVE:
        return 0
    if not args.json:
        console.print(rejection_text(version), soft_wrap=True, markup=False)
    return 1
