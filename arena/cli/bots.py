"""``arena bots register`` (which waits for the uploads' vetting) and ``arena bots
list``, and the all-or-nothing check of bot folders before registration that ``season
run`` and ``demo`` share. Folders are registered by uploading them (``arena.cli.submit``)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from hollywood.arena.v1 import arena_pb2
from rich.console import Console
from rich.table import Table

from arena.cli.client import ArenaClient, connect
from arena.cli.lifecycle import rejection_text, status_of, wait_all_active, wait_vetted
from arena.cli.listing import every_bot
from arena.cli.output import CliError, print_json, to_json
from arena.cli.render import shown
from arena.cli.submit import bot_folders, describe, upload
from arena.core.manifest import ManifestError, submission_problem
from arena.core.status import VersionStatus
from arena.core.text import neutralise

if TYPE_CHECKING:
    from arena.server.validation import BotFolder


def check_folders(client: ArenaClient, folders: Sequence[Path]) -> list[BotFolder]:
    """Every folder checked for registration before any is registered: a valid
    ``bot.toml`` within the size limits, and no clash with a registered bot (or
    another of ``folders``) of the same name@version but different content.
    Raises ``CliError`` for the first problem."""
    # Imported here: the server package loads storage and seasons, which the other
    # client commands never need.
    from arena.server.validation import inspect_bot_folder

    checked = []
    for folder in folders:
        try:
            bot = inspect_bot_folder(folder)
        except ManifestError as error:
            raise CliError(str(error)) from None
        problem = submission_problem(bot.manifest)
        if problem is not None:
            raise CliError(f"{bot.folder}: {problem}")
        checked.append(bot)
    registered = {bot.id: bot.content_hash
                  for bot in every_bot(client)}
    seen: dict[str, BotFolder] = {}
    for bot in checked:
        known = registered.get(bot.id)
        if known is not None and known != bot.content_hash:
            raise CliError(f"bot {bot.id} is already registered with different content "
                           f"than {bot.folder}; give the new code a new version in bot.toml")
        first = seen.setdefault(bot.id, bot)
        if first.content_hash != bot.content_hash:
            raise CliError(f"{first.folder} and {bot.folder} are both {bot.id} but differ; "
                           "give one of them a new version in bot.toml")
    return checked


def register_folders(client: ArenaClient, folders: Sequence[BotFolder]
                     ) -> list[arena_pb2.SubmitBotResponse]:
    """Upload each checked folder and wait until every one is vetted (``CliError``
    for a rejected one: a season would refuse it)."""
    responses = [upload(client, bot.folder) for bot in folders]
    wait_all_active(client, [response.bot.id for response in responses])
    return responses


def cmd_bots_register(args: argparse.Namespace, console: Console) -> int:
    with connect(args) as client:
        results = []
        # All or nothing: every folder is checked before the first is uploaded.
        for bot in check_folders(client, bot_folders(args.folders, console)):
            response = upload(client, bot.folder)
            results.append(response)
            if not args.json:
                console.print(describe(response), soft_wrap=True)
        # A season refuses a version still being vetted, so by default the command
        # returns once every upload is active or rejected (--no-wait: at once).
        refused = [] if args.no_wait else wait_for_vetting(client, results, console, args.json)
    if args.json:
        print_json([to_json(result) for result in results])
    for version in refused:
        if not args.json:
            console.print(rejection_text(version), soft_wrap=True, markup=False)
    return 1 if refused else 0


def wait_for_vetting(client: ArenaClient, results: Sequence[arena_pb2.SubmitBotResponse],
                     console: Console, quiet: bool) -> list[arena_pb2.BotVersion]:
    """Wait until each upload of ``results`` is vetted, saying each change of status
    (unless ``quiet``), and put its final state into its result; returns the versions
    that did not end active."""
    refused = []
    for result in results:
        def show(status: str, detail: str, bot_id: str = result.bot.id) -> None:
            if not quiet:
                shown = detail and status != VersionStatus.REJECTED
                console.print(f"{neutralise(bot_id)}: {neutralise(status)}"
                              + (f" ({neutralise(detail)})" if shown else ""),
                              soft_wrap=True, markup=False)

        version = wait_vetted(client, result.bot.id, on_status=show)
        result.bot.CopyFrom(version.bot)
        if status_of(version.bot) is not VersionStatus.ACTIVE:
            refused.append(version)
    return refused


def cmd_bots_list(args: argparse.Namespace, console: Console) -> int:
    with connect(args) as client:
        bots = every_bot(client, args.limit)
    if args.json:
        print_json([to_json(bot) for bot in bots])
        return 0
    table = Table(title="Registered bots")
    for header in ("id", "status", "language", "author", "owner", "registered", "content"):
        table.add_column(header)
    table.columns[0].no_wrap = True
    for bot in map(shown, bots):
        table.add_row(bot.id, bot.status or "–", bot.language, bot.author,
                      bot.owner or "admin", bot.registered_at, bot.content_hash[:12])
    console.print(table)
    return 0
