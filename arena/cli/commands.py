"""The ``arena`` command line (see docs/arena.md).

Every command but ``serve``, ``season run``, ``demo`` and ``images`` talks to a
running ``arena serve`` over gRPC (``--server``, default ``$ARENA_SERVER`` or
localhost:50551). ``season run`` and ``demo`` start an embedded server on the
database for their own duration and drive it through the same gRPC API.
Bad arguments or input print ``error: ...`` and exit 2; an unreachable server or
another failure exits 1.
"""

from __future__ import annotations

import argparse
import json
import logging
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Final

import grpc
from google.protobuf.json_format import MessageToDict
from google.protobuf.message import Message
from hollywood.arena.v1 import arena_pb2
from rich.console import Console

from arena.cli.client import ArenaClient, default_server, find_token
from arena.cli.render import (
    LiveSeasonView,
    crosstable,
    describe_series,
    standings_table,
    status_name,
)
from arena.cli.season_options import add_season_options, season_config_message
from arena.core.defaults import DEFAULT_DB
from arena.core.manifest import BotManifest, ManifestError
from arena.core.settings import DEFAULT_SANDBOX, ConfigError
from arena.server.app import start_server
from arena.server.story import NO_HAND_PLAYED
from arena.server.validation import BotFolder, check_season_request, inspect_bot_folder

REPO_ROOT: Final = Path(__file__).resolve().parents[2]
SAMPLE_BOTS: Final = REPO_ROOT / "sample_bots"
DEMO_DB: Final = DEFAULT_DB.with_name("demo.db")
USAGE_ERRORS: Final = frozenset({
    grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.NOT_FOUND,
    grpc.StatusCode.ALREADY_EXISTS, grpc.StatusCode.FAILED_PRECONDITION,
    grpc.StatusCode.UNAUTHENTICATED,
})


class CliError(Exception):
    """A user-facing error: message and exit code."""

    def __init__(self, message: str, code: int = 2) -> None:
        super().__init__(message)
        self.code = code


def to_json(message: Message) -> dict[str, Any]:
    return MessageToDict(message, preserving_proto_field_name=True,
                         always_print_fields_with_no_presence=True)


def print_json(data: Any) -> None:
    print(json.dumps(data, indent=2, sort_keys=False))


# ---------------------------------------------------------------- argument parsing


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"port must be 0..65535, got {value}")
    return value


def _series_id(text: str) -> str:
    season, sep, index = text.partition("-")
    if not (sep and season.isdigit() and index.isdigit()):
        raise argparse.ArgumentTypeError(f"{text!r} is not a series id (like 3-17)")
    return text


def _client_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--server", default=None,
                        help="arena server HOST:PORT (default $ARENA_SERVER or localhost:50551)")
    parser.add_argument("--token", default=None,
                        help="admin token (default $ARENA_TOKEN, else --token-file)")
    parser.add_argument("--token-file", type=Path, default=None,
                        help="file holding the admin token (default .arena/admin.token)")


def _json_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print JSON instead of tables")


def _client_command(
    subparsers: Any, name: str, text: str,
    handler: Callable[[argparse.Namespace, Console], int],
) -> argparse.ArgumentParser:
    """A command that talks to a server: client options, ``--json`` and its handler."""
    parser: argparse.ArgumentParser = subparsers.add_parser(name, help=text)
    _client_options(parser)
    _json_option(parser)
    parser.set_defaults(handler=handler)
    return parser


def _latest_season_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--season", type=_positive_int, default=0,
                        help="season number (default: the latest)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="arena", description="Hollywood Gin Arena: bots, league seasons, live standings.")
    parser.add_argument("-v", "--verbose", action="store_true", help="log progress details")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    serve = commands.add_parser("serve", help="run the arena gRPC server")
    serve.add_argument("--db", type=Path, default=DEFAULT_DB,
                       help="SQLite database (default .arena/arena.db); the admin token is "
                            "kept next to it")
    serve.add_argument("--host", default="localhost", help="address to listen on (localhost)")
    serve.add_argument("--port", type=_port, default=50551, help="port (default 50551)")
    serve.set_defaults(handler=cmd_serve)

    bots = commands.add_parser("bots", help="register and list bots").add_subparsers(
        dest="bots_command", required=True, metavar="ACTION")
    register = _client_command(bots, "register", "register bot folder(s) (bot.toml + code)",
                               cmd_bots_register)
    register.add_argument("folders", nargs="+", type=Path, metavar="PATH")
    _client_command(bots, "list", "list registered bot versions", cmd_bots_list)

    season = commands.add_parser("season", help="create, run, cancel and show seasons")
    seasons = season.add_subparsers(dest="season_command", required=True, metavar="ACTION")
    create = _client_command(seasons, "create", "create (and start) a season on the server",
                             cmd_season_create)
    create.add_argument("--bots", nargs="+", required=True, metavar="BOT",
                        help="bot ids (name@version, or name = latest version)")
    create.add_argument("--hold", action="store_true", help="store the plan, do not start")
    create.add_argument("--watch", action="store_true", help="follow it live afterwards")
    add_season_options(create)
    run = seasons.add_parser(
        "run", help="run a season to the end with a live table (embedded server on --db)")
    run.add_argument("--bots", nargs="+", required=True, metavar="BOT",
                     help="bot ids or bot folders (folders are registered first)")
    run.add_argument("--db", type=Path, default=DEFAULT_DB, help="database (.arena/arena.db)")
    add_season_options(run)
    _json_option(run)
    run.set_defaults(handler=cmd_season_run)
    for action, text, handler in (
        ("start", "start or resume a season", cmd_season_start),
        ("cancel", "cancel a season (series in flight finish)", cmd_season_cancel),
    ):
        sub = _client_command(seasons, action, text, handler)
        sub.add_argument("season_id", type=_positive_int, metavar="SEASON")
    show = _client_command(seasons, "show", "a season's settings, progress and standings",
                           cmd_season_show)
    show.add_argument("season_id", type=_positive_int, nargs="?", default=0, metavar="SEASON",
                      help="season number (default: the latest)")
    _client_command(seasons, "list", "list seasons", cmd_season_list)

    _latest_season_option(_client_command(
        commands, "standings", "a season's standings and crosstable", cmd_standings))
    _latest_season_option(_client_command(commands, "watch", "follow a season live", cmd_watch))

    series = commands.add_parser("series", help="read series").add_subparsers(
        dest="series_command", required=True, metavar="ACTION")
    series_show = _client_command(series, "show", "a series hand by hand", cmd_series_show)
    series_show.add_argument("series_id", type=_series_id, metavar="ID")
    _latest_season_option(_client_command(
        series, "list", "a season's planned series and results", cmd_series_list))

    images = commands.add_parser("images", help="Docker images").add_subparsers(
        dest="images_command", required=True, metavar="ACTION")
    prepare = images.add_parser("prepare-base", help="build the local base image if needed")
    prepare.add_argument("--force", action="store_true", help="rebuild even if up to date")
    prepare.set_defaults(handler=cmd_images_prepare_base)

    demo = commands.add_parser(
        "demo", help="prepare images, register the sample bots and run a season (make run)")
    demo.add_argument("--db", type=Path, default=DEMO_DB,
                      help="demo database, recreated on every run (.arena/demo.db)")
    add_season_options(demo)
    demo.set_defaults(handler=cmd_demo)
    return parser


# ---------------------------------------------------------------- helpers


def _client(args: argparse.Namespace) -> ArenaClient:
    return ArenaClient(args.server or default_server(), find_token(args.token, args.token_file))


def _print_standings(console: Console, standings: arena_pb2.Standings) -> None:
    console.print(standings_table(standings))
    if standings.crosstable:
        console.print(crosstable(standings))


@contextmanager
def _embedded(db: Path) -> Iterator[ArenaClient]:
    """An arena server on ``db`` on a free localhost port, for this command only."""
    try:
        running = start_server(db, host="localhost", port=0, resume=False)
    except RuntimeError as error:
        raise CliError(str(error), code=1) from None
    client = ArenaClient(running.address, running.token)
    try:
        yield client
    finally:
        client.close()
        running.stop(grace=None)


def _check_folders(client: ArenaClient, folders: Sequence[Path]) -> list[BotFolder]:
    """Every folder checked for registration before any is registered: a valid
    ``bot.toml`` within the size limits, and no clash with a registered bot (or
    another of ``folders``) of the same name@version but different content.
    Raises ``CliError`` for the first problem."""
    checked = []
    for folder in folders:
        try:
            checked.append(inspect_bot_folder(folder))
        except ManifestError as error:
            raise CliError(str(error)) from None
    registered = {bot.id: bot.content_hash
                  for bot in client.stub.ListBots(arena_pb2.ListBotsRequest()).bots}
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


def _register_folders(client: ArenaClient, folders: Sequence[BotFolder]
                      ) -> list[arena_pb2.RegisterBotResponse]:
    return [client.stub.RegisterBot(arena_pb2.RegisterBotRequest(folder=str(bot.folder)),
                                    metadata=client.auth)
            for bot in folders]


def _is_folder(reference: str) -> bool:
    """Whether a ``--bots`` entry names a bot folder (an existing directory, or a path:
    bot names never hold a slash) rather than a registered bot."""
    return Path(reference).is_dir() or "/" in reference.partition("@")[0]


def _season_bots(client: ArenaClient, references: Sequence[str],
                 config: arena_pb2.SeasonConfig, name: str
                 ) -> tuple[arena_pb2.CreateSeasonRequest, list[BotFolder]]:
    """The season request for ``references`` (bot folders or registered bots) and
    the folders to register first, all checked (folders, bot names, settings) as if
    the folders were registered already, so that nothing is registered for a
    season that would be refused."""
    folders = _check_folders(client, [Path(ref) for ref in references if _is_folder(ref)])
    listed = client.stub.ListBots(arena_pb2.ListBotsRequest()).bots
    registry = [(bot.id, bot.name) for bot in listed]
    manifests: dict[str, BotManifest] = {bot.id: bot.manifest for bot in folders}
    stored_folders = {bot.id: Path(bot.folder) for bot in listed}
    for bot in folders:
        if bot.id not in {bot_id for bot_id, _ in registry}:
            registry.append((bot.id, bot.manifest.name))
    pending = iter(folders)
    ids = [next(pending).id if _is_folder(ref) else ref for ref in references]
    request = arena_pb2.CreateSeasonRequest(bots=ids, config=config, name=name)

    def resolve(reference: str) -> str:  # as the server will, once the folders are in
        matches = [bot_id for bot_id, bot_name in registry
                   if (bot_id if "@" in reference else bot_name) == reference]
        if not matches:
            raise CliError(f"unknown bot {reference!r} (see `arena bots list`)")
        return matches[-1]

    def manifest_of(bot_id: str) -> BotManifest:  # a folder of this command, else registered
        return manifests.get(bot_id) or BotManifest.load(stored_folders[bot_id])

    try:
        check_season_request(request, resolve, manifest_of)
    except (ConfigError, ManifestError) as error:
        raise CliError(str(error)) from None
    return request, folders


def sample_bot_folders(root: Path = SAMPLE_BOTS) -> list[Path]:
    """Every sample bot folder (one with a bot.toml), the SDK excluded, sorted."""
    return sorted(path.parent for path in root.glob("*/bot.toml") if path.parent.name != "sdk")


def _run_and_follow(client: ArenaClient, request: arena_pb2.CreateSeasonRequest,
                    console: Console, as_json: bool) -> int:
    created = client.stub.CreateSeason(request, metadata=client.auth).season
    if not as_json:
        console.print(f"season {created.id}: {len(created.bot_ids)} bots, "
                      f"{created.series_total} series, seed {created.config.seed}, "
                      f"sandbox {created.config.sandbox_backend}, "
                      f"concurrency {created.config.concurrency}")
    stream = client.stub.WatchSeason(arena_pb2.WatchSeasonRequest(season_id=created.id))
    if as_json:
        for _ in stream:
            pass
    else:
        LiveSeasonView(console).follow(stream, transient=True)
    final = client.stub.GetStandings(arena_pb2.GetStandingsRequest(season_id=created.id))
    season = client.stub.GetSeason(arena_pb2.GetSeasonRequest(season_id=created.id)).season
    if as_json:
        print_json({"season": to_json(season), "standings": to_json(final.standings)})
    else:
        console.print()
        console.print(f"[bold]Final standings of season {season.id}[/bold] "
                      f"({status_name(season.status)})")
        _print_standings(console, final.standings)
        if season.error:
            console.print(f"[red]season stopped: {season.error}[/red]")
    return 0 if status_name(season.status) == "finished" else 1


# ---------------------------------------------------------------- commands


def cmd_serve(args: argparse.Namespace, console: Console) -> int:
    try:
        running = start_server(args.db, host=args.host, port=args.port)
    except RuntimeError as error:
        raise CliError(str(error), code=1) from None
    console.print(f"arena serving hollywood.arena.v1 on {running.address} (db {args.db}); "
                  f"admin token in {running.token_path}")
    stop = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stop.set())
    stop.wait()
    console.print("stopping (seasons still running resume on the next start)")
    running.stop(grace=2.0)
    return 0


def cmd_bots_register(args: argparse.Namespace, console: Console) -> int:
    with _client(args) as client:
        results = []
        # All or nothing: every folder is checked before the first is registered.
        for bot in _check_folders(client, args.folders):
            response = client.stub.RegisterBot(
                arena_pb2.RegisterBotRequest(folder=str(bot.folder)), metadata=client.auth)
            results.append(response)
            if not args.json:
                state = "registered" if response.created else "already registered (identical)"
                console.print(f"{response.bot.id} {state}")
    if args.json:
        print_json([to_json(result) for result in results])
    return 0


def cmd_bots_list(args: argparse.Namespace, console: Console) -> int:
    with _client(args) as client:
        bots = client.stub.ListBots(arena_pb2.ListBotsRequest()).bots
    if args.json:
        print_json([to_json(bot) for bot in bots])
        return 0
    from rich.table import Table

    table = Table(title="Registered bots")
    for header in ("id", "language", "author", "registered", "content"):
        table.add_column(header)
    for bot in bots:
        table.add_row(bot.id, bot.language, bot.author, bot.registered_at, bot.content_hash[:12])
    console.print(table)
    return 0


def cmd_season_create(args: argparse.Namespace, console: Console) -> int:
    request = arena_pb2.CreateSeasonRequest(
        bots=args.bots, config=season_config_message(args), name=args.name, hold=args.hold)
    with _client(args) as client:
        season = client.stub.CreateSeason(request, metadata=client.auth).season
        if args.json:
            print_json(to_json(season))
        else:
            console.print(f"season {season.id} created: {season.series_total} series "
                          f"({status_name(season.status)})")
        if args.watch:
            stream = client.stub.WatchSeason(arena_pb2.WatchSeasonRequest(season_id=season.id))
            standings = LiveSeasonView(console).follow(stream, transient=True)
            if standings is not None:
                _print_standings(console, standings)
    return 0


def cmd_season_run(args: argparse.Namespace, console: Console) -> int:
    config = season_config_message(args)
    with _embedded(args.db) as client:
        # All or nothing: folders, bot names and settings are checked before the
        # folders are registered and the season is created.
        request, folders = _season_bots(client, args.bots, config, args.name)
        _register_folders(client, folders)
        return _run_and_follow(client, request, console, args.json)


def cmd_season_start(args: argparse.Namespace, console: Console) -> int:
    with _client(args) as client:
        season = client.stub.StartSeason(
            arena_pb2.StartSeasonRequest(season_id=args.season_id), metadata=client.auth).season
    _print_season_change(season, args.json, console)
    return 0


def cmd_season_cancel(args: argparse.Namespace, console: Console) -> int:
    with _client(args) as client:
        season = client.stub.CancelSeason(
            arena_pb2.CancelSeasonRequest(season_id=args.season_id), metadata=client.auth).season
    _print_season_change(season, args.json, console)
    return 0


def _print_season_change(season: arena_pb2.Season, as_json: bool, console: Console) -> None:
    if as_json:
        print_json(to_json(season))
    else:
        console.print(f"season {season.id}: {status_name(season.status)}, "
                      f"{season.series_done}/{season.series_total} series played")


def cmd_season_show(args: argparse.Namespace, console: Console) -> int:
    with _client(args) as client:
        season = client.stub.GetSeason(arena_pb2.GetSeasonRequest(season_id=args.season_id)).season
        standings = client.stub.GetStandings(
            arena_pb2.GetStandingsRequest(season_id=season.id)).standings
    if args.json:
        print_json({"season": to_json(season), "standings": to_json(standings)})
        return 0
    config = season.config
    overrides = ", ".join(f"{k}={v}" for k, v in sorted(config.profile_overrides.items()))
    title = season.name if season.name == f"season {season.id}" else (
        f"{season.name} (season {season.id})")
    console.print(f"[bold]{title}[/bold] — "
                  f"{status_name(season.status)}, {season.series_done}/{season.series_total} "
                  f"series, created {season.created_at}")
    console.print(f"profile {config.profile}{' [' + overrides + ']' if overrides else ''}, "
                  f"{config.series_per_pair} series per pair, max {config.max_hands} hands, "
                  f"sandbox {config.sandbox_backend}, concurrency {config.concurrency}, "
                  f"limits startup {config.startup_seconds:g} s / decision "
                  f"{config.decision_seconds:g} s / reserve {config.reserve_seconds:g} s, "
                  f"seed {config.seed}")
    if season.error:
        console.print(f"[red]error: {season.error}[/red]")
    _print_standings(console, standings)
    return 0


def cmd_season_list(args: argparse.Namespace, console: Console) -> int:
    with _client(args) as client:
        seasons = client.stub.ListSeasons(arena_pb2.ListSeasonsRequest()).seasons
    if args.json:
        print_json([to_json(season) for season in seasons])
        return 0
    for season in seasons:
        console.print(f"{season.id:>4}  {status_name(season.status):<9} "
                      f"{season.series_done:>5}/{season.series_total:<5} {season.name}  "
                      f"({', '.join(season.bot_ids)})")
    return 0


def cmd_standings(args: argparse.Namespace, console: Console) -> int:
    with _client(args) as client:
        standings = client.stub.GetStandings(
            arena_pb2.GetStandingsRequest(season_id=args.season)).standings
    if args.json:
        print_json(to_json(standings))
    else:
        _print_standings(console, standings)
    return 0


def cmd_watch(args: argparse.Namespace, console: Console) -> int:
    with _client(args) as client:
        stream = client.stub.WatchSeason(arena_pb2.WatchSeasonRequest(season_id=args.season))
        if args.json:
            for message in stream:  # one JSON object per line, as they arrive
                print(json.dumps(to_json(message)), flush=True)
            return 0
        standings = LiveSeasonView(console).follow(stream)
    if standings is not None:
        console.print()
        console.print(crosstable(standings))
    return 0


def cmd_series_show(args: argparse.Namespace, console: Console) -> int:
    with _client(args) as client:
        response = client.stub.GetSeries(arena_pb2.GetSeriesRequest(series_id=args.series_id))
    if args.json:
        data = to_json(response)
        data["event_log"] = json.loads(response.event_log_json or "[]")
        del data["event_log_json"]
        print_json(data)
        return 0
    series = response.series
    console.print(f"[bold]Series {series.id}[/bold] (season {series.season_id}): seat 0 "
                  f"{series.seat0_bot_id}, seat 1 {series.seat1_bot_id}; seed {series.seed}"
                  f"{', seats swapped' if series.swap_seats else ''}")
    if not series.played:
        console.print("not played yet")
        return 0
    for hand in response.hands:
        console.rule(f"hand {hand.number}")
        for line in hand.lines:
            console.print(line, markup=False, highlight=False)
    if not response.hands:
        console.print(NO_HAND_PLAYED, markup=False, highlight=False)
    console.rule("result")
    console.print(describe_series(series), markup=False)
    if series.HasField("fault"):
        fault = series.fault
        where = (f"at hand {fault.hand_number}, decision {fault.decision_number}"
                 if fault.hand_number else "before the first deal")
        console.print(f"fault: {fault.kind} by seat {fault.seat} {where}: {fault.message}",
                      markup=False)
        if fault.stderr_tail:
            console.print("stderr tail:\n" + fault.stderr_tail, markup=False)
    return 0


def cmd_series_list(args: argparse.Namespace, console: Console) -> int:
    with _client(args) as client:
        series = client.stub.ListSeries(arena_pb2.ListSeriesRequest(season_id=args.season)).series
    if args.json:
        print_json([to_json(item) for item in series])
        return 0
    for item in series:
        text = describe_series(item) if item.played else (
            f"{item.id} {item.seat0_bot_id} vs {item.seat1_bot_id} (pending)")
        console.print(text, markup=False, highlight=False)
    return 0


def cmd_images_prepare_base(args: argparse.Namespace, console: Console) -> int:
    from arena.sandbox.images import BaseImageError, prepare_base

    try:
        base = prepare_base(force=args.force)
    except BaseImageError as error:
        raise CliError(f"cannot prepare the base image: {error}", code=1) from None
    except Exception as error:  # docker SDK errors: the engine is missing or refused
        raise CliError(f"Docker is not available: {error}", code=1) from None
    console.print(f"{base.tag} {'built' if base.built else 'up to date'}")
    return 0


def cmd_demo(args: argparse.Namespace, console: Console) -> int:
    folders = sample_bot_folders()
    if len(folders) < 2:
        raise CliError(f"fewer than two sample bots under {SAMPLE_BOTS}", code=1)
    sandbox = args.sandbox or DEFAULT_SANDBOX
    if sandbox == "docker":
        _prepare_images(folders, console)
    config = season_config_message(args)
    # A fresh database every time: the sample bots' code may have changed under the
    # same version since the last demo, which a kept database would rightly refuse.
    _remove_database(args.db)
    console.print(f"demo database: {args.db} (recreated on every run; browse it with "
                  f"`arena serve --db {args.db}`)")
    with _embedded(args.db) as client:
        bots = [response.bot for response in
                _register_folders(client, _check_folders(client, folders))]
        console.print("registered: " + ", ".join(bot.id for bot in bots))
        request = arena_pb2.CreateSeasonRequest(
            bots=[bot.id for bot in bots], config=config, name=args.name or "demo season")
        return _run_and_follow(client, request, console, as_json=False)


def _remove_database(db: Path) -> None:
    import shutil

    for path in (db, db.with_name(db.name + "-wal"), db.with_name(db.name + "-shm")):
        path.unlink(missing_ok=True)
    shutil.rmtree(db.with_name(db.stem + ".bots"), ignore_errors=True)


def _prepare_images(folders: Sequence[Path], console: Console) -> None:
    from arena.sandbox.images import BaseImageError, ImageBuildError, build_bot_image, prepare_base

    try:
        with console.status("preparing the local base image (first time: a minute or two)"):
            base = prepare_base()
        console.print(f"base image {base.tag} {'built' if base.built else 'up to date'}")
        for folder in folders:
            with console.status(f"building the image of {folder.name}"):
                image = build_bot_image(folder)
            console.print(f"image {image.tag} {'built' if image.built else 'up to date'}")
    except (BaseImageError, ImageBuildError) as error:
        raise CliError(f"image preparation failed: {error}", code=1) from None
    except Exception as error:  # docker SDK errors
        raise CliError(f"Docker is not available ({error}); run `make docker-engine` or use "
                       "--sandbox process", code=1) from None


# ---------------------------------------------------------------- entry point

Handler = Callable[[argparse.Namespace, Console], int]


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    console = Console()
    if not console.is_terminal:  # piped or captured: don't squeeze tables into 80 columns
        console = Console(width=max(console.width, 120))
    error_console = Console(stderr=True)
    handler: Handler = args.handler
    try:
        return handler(args, console)
    except CliError as error:
        error_console.print(f"error: {error}", markup=False, highlight=False, soft_wrap=True)
        return error.code
    except ConfigError as error:  # a bad season setting, e.g. --set, found by the client
        error_console.print(f"error: {error}", markup=False, highlight=False, soft_wrap=True)
        return 2
    except grpc.RpcError as error:
        code = error.code() if hasattr(error, "code") else None
        details = error.details() if hasattr(error, "details") else str(error)
        if code == grpc.StatusCode.UNAVAILABLE:
            target = getattr(args, "server", None) or default_server()
            error_console.print(f"error: cannot reach the arena server at {target} "
                                f"(is `arena serve` running?): {details}",
                                markup=False, highlight=False, soft_wrap=True)
            return 1
        name = code.name if code is not None else "ERROR"
        error_console.print(f"error: {details} ({name})", markup=False, highlight=False,
                            soft_wrap=True)
        return 2 if code in USAGE_ERRORS else 1
    except KeyboardInterrupt:
        error_console.print("interrupted; a season left running resumes when `arena serve` "
                            "starts on the same database (or `arena season start ID`)")
        return 130


if __name__ == "__main__":
    sys.exit(main())
