"""``arena ladder start | stop | status | keep | admit``: the server's ladder, a season of
the ladder format that never ends (docs/formats.md, "ladder"). A ladder is a
season, so start, stop and status are ``season create --all-active`` (or
``start``, to resume a stopped one), ``season cancel`` and ``season show`` on the
ladder found among the seasons; ``keep`` (``KeepOnLadder``) keeps a version on
the ladder beside its newer ones; ``admit`` (``AdmitToLadder``) lets a gated new
version join whatever its gate match says."""

from __future__ import annotations

import argparse
from typing import Any

from hollywood.arena.v1 import arena_pb2
from rich.console import Console
from rich.markup import escape

from arena.cli.client import connect
from arena.cli.commands import ClientCommand
from arena.cli.listing import every_season
from arena.cli.output import CliError, print_json, to_json
from arena.cli.render import shown, status_name
from arena.cli.season_options import add_season_options, season_config_message
from arena.cli.seasons import cmd_season_cancel, cmd_season_show
from arena.core import arguments
from arena.season.formats import LADDER_FORMAT

_RESUMABLE = ("created", "cancelled", "failed")


def latest_ladder(seasons: list[arena_pb2.Season]) -> arena_pb2.Season | None:
    """The newest season of the ladder format among ``seasons`` (None if none)."""
    ladders = [season for season in seasons if season.config.format == LADDER_FORMAT]
    return max(ladders, key=lambda season: season.id, default=None)


def cmd_ladder_start(args: argparse.Namespace, console: Console) -> int:
    """Resume the newest ladder if it is stopped, else create one with every active
    bot (``--new``: create one even when a stopped one exists)."""
    config = season_config_message(args)
    if config.format not in ("", LADDER_FORMAT):
        raise CliError(f"arena ladder plays the {LADDER_FORMAT} format, not {config.format!r} "
                       "(use `arena season create --format ...`)")
    config.format = LADDER_FORMAT
    with connect(args) as client:
        ladder = latest_ladder(every_season(client))
        status = status_name(ladder.status) if ladder is not None else ""
        if ladder is not None and status == "running":
            raise CliError(f"the ladder (season {ladder.id}) is already running; "
                           "`arena ladder stop` stops it")
        if ladder is not None and status in _RESUMABLE and not args.new:
            season = client.stub.StartSeason(arena_pb2.StartSeasonRequest(
                season_id=ladder.id), metadata=client.auth).season
            verb = "resumed"
        else:
            season = client.stub.CreateSeason(arena_pb2.CreateSeasonRequest(
                all_active=True, config=config, name=args.name or LADDER_FORMAT),
                metadata=client.auth).season
            verb = "started"
    if args.json:
        print_json(to_json(season))
    else:
        console.print(f"ladder (season {season.id}) {verb}: {status_name(season.status)}, "
                      f"{season.series_done} series played, with {len(season.bot_ids)} "
                      "bots so far (every newly active version joins)")
    return 0


def _ladder_id(args: argparse.Namespace) -> int:
    if args.ladder:
        return int(args.ladder)
    with connect(args) as client:
        ladder = latest_ladder(every_season(client))
    if ladder is None:
        raise CliError("no ladder yet (start one with `arena ladder start`)")
    return int(ladder.id)


def cmd_ladder_stop(args: argparse.Namespace, console: Console) -> int:
    """Stop the ladder: no new series; those in flight finish and are stored."""
    args.season_id = _ladder_id(args)
    return cmd_season_cancel(args, console)


def cmd_ladder_status(args: argparse.Namespace, console: Console) -> int:
    """The ladder's settings, progress and standings (provisional ratings marked)."""
    args.season_id = _ladder_id(args)
    return cmd_season_show(args, console)


def cmd_ladder_keep(args: argparse.Namespace, console: Console) -> int:
    """Keep a version on the ladder beside its newer ones (``--release``: let a newer
    active version replace it again); its owner or the admin."""
    with connect(args) as client:
        answer = client.stub.KeepOnLadder(arena_pb2.KeepOnLadderRequest(
            bot_id=args.bot_id, keep=not args.release), metadata=client.auth)
    if args.json:
        print_json(to_json(answer))
        return 0
    bot_id = shown(answer).bot.id
    console.print(f"{bot_id} stays on the ladder beside newer versions" if answer.kept else
                  f"{bot_id} leaves the ladder once a newer version is active")
    return 0


def cmd_ladder_admit(args: argparse.Namespace, console: Console) -> int:
    """Admit a gated version to the ladders that gate it (``--withdraw``: leave it
    to its match and the ladder's rule again); its owner or the admin."""
    with connect(args) as client:
        answer = client.stub.AdmitToLadder(arena_pb2.AdmitToLadderRequest(
            bot_id=args.bot_id, admit=not args.withdraw), metadata=client.auth)
    if args.json:
        print_json(to_json(answer))
        return 0
    bot_id = shown(answer).bot.id
    for gate in answer.gates:
        state = "admitted" if gate.admitted else "not admitted"
        console.print(f"{bot_id} on the ladder (season {gate.ladder_id}): {state} "
                      f"(gate match {escape(gate.status)}); takes effect at its next round",
                      soft_wrap=True)
    return 0


def add_ladder_commands(commands: Any, client_command: ClientCommand) -> None:
    """``arena ladder ...`` under ``commands``; ``client_command`` makes a command
    that talks to a server (the parser's)."""
    ladder = commands.add_parser(LADDER_FORMAT,  # `arena ladder` plays that format
                                 help="start, stop and show the never-ending ladder")
    actions = ladder.add_subparsers(dest="ladder_command", required=True, metavar="ACTION")
    start = client_command(actions, "start", "start the ladder with every active bot (or "
                            "resume a stopped one)", cmd_ladder_start)
    start.add_argument("--new", action="store_true",
                       help="start a new ladder even if a stopped one could be resumed")
    add_season_options(start)
    stop = client_command(actions, "stop", "stop the ladder (series in flight finish)",
                           cmd_ladder_stop)
    stop.add_argument("--no-wait", action="store_true",
                      help="report at once instead of after the series in flight")
    status = client_command(actions, "status", "the ladder's progress and standings",
                             cmd_ladder_status)
    keep = client_command(actions, "keep", "keep a version on the ladder beside its newer "
                           "versions (its owner or the admin)", cmd_ladder_keep)
    keep.add_argument("--release", action="store_true", help="let newer versions replace it")
    admit = client_command(actions, "admit", "admit a gated new version whatever its "
                            "gate match says (its owner or the admin)", cmd_ladder_admit)
    admit.add_argument("--withdraw", action="store_true", help="leave it to the gate again")
    for sub in (keep, admit):
        sub.add_argument("bot_id", metavar="NAME@VERSION")
    for sub in (stop, status):
        sub.add_argument("--ladder", type=arguments.positive_int, default=0, metavar="SEASON",
                         help="the ladder's season number (default: the newest ladder)")
