"""The ``arena`` argument parser: every command and its options, each wired to its
handler (``set_defaults(handler=...)``), which ``arena.cli.app`` calls.

Where each command's handler lives: ``bots`` in ``arena.cli.bots``; ``season
create | start | cancel | show | list`` in ``arena.cli.seasons``; ``standings``,
``watch`` and ``series`` in ``arena.cli.reads``; ``serve``, ``season run``,
``demo`` and ``images`` in ``arena.cli.local``; ``play`` in ``arena.cli.play``;
``worker`` and ``cluster`` in ``arena.cli.cluster``; ``league`` in ``arena.cli.leagues``;
``backup`` and ``restore`` in ``arena.cli.backup``; ``health`` in ``arena.cli.health``.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from arena.cli.authors import cmd_authors_add, cmd_authors_list, cmd_authors_revoke, cmd_login
from arena.cli.backup import add_backup_commands
from arena.cli.bots import cmd_bots_list, cmd_bots_register
from arena.cli.challenges import add_challenge_commands
from arena.cli.cluster import add_cluster_commands, add_tls_options
from arena.cli.commands import Handler, add_limit
from arena.cli.export import cmd_export
from arena.cli.health import add_health_command
from arena.cli.ladder import add_ladder_commands
from arena.cli.leagues import add_league_commands
from arena.cli.lifecycle import (
    cmd_bots_logs,
    cmd_bots_reactivate,
    cmd_bots_revet,
    cmd_bots_show,
    cmd_check,
)
from arena.cli.local import (
    DEMO_DB,
    cmd_demo,
    cmd_images_prepare_base,
    cmd_match,
    cmd_season_run,
    cmd_serve,
)
from arena.cli.play import add_play_command
from arena.cli.reads import cmd_series_list, cmd_series_show, cmd_standings, cmd_watch
from arena.cli.replay import add_replay_command
from arena.cli.season_options import add_season_options
from arena.cli.seasons import (
    add_list_and_settings,
    cmd_season_cancel,
    cmd_season_create,
    cmd_season_show,
    cmd_season_start,
)
from arena.cli.series_logs import cmd_series_download, cmd_series_logs
from arena.cli.submit import cmd_submit
from arena.cli.verify_deal import cmd_series_verify
from arena.core import arguments
from arena.core.defaults import (
    DEFAULT_DB,
    DEFAULT_HOST,
    DEFAULT_HTTP,
    DEFAULT_LOG_RETENTION_DAYS,
    DEFAULT_MAX_SEASON_BOTS,
    DEFAULT_PORT,
    DEFAULT_UPLOAD_IDLE_SECONDS,
)
from arena.sandbox import registry as sandbox_registry


def _client_options(parser: argparse.ArgumentParser, *, top_level: bool = False) -> None:
    """``--server``, ``--token``, ``--token-file`` and the transport's ``--tls-ca``,
    ``--tls`` and ``--insecure``, accepted before the command
    (``top_level``) and after it; given after it, they win (SUPPRESS: a command that
    does not repeat them keeps the value given before it)."""
    default = None if top_level else argparse.SUPPRESS
    parser.add_argument("--server", default=default,
                        help="arena server HOST:PORT (default $ARENA_SERVER or localhost:50551)")
    parser.add_argument("--token", default=default,
                        help="token (admin's or an author's); else --token-file, "
                             "$ARENA_TOKEN, the credentials file (`arena login`)")
    parser.add_argument("--token-file", type=Path, default=default,
                        help="file holding the token")
    parser.add_argument("--tls-ca", type=Path, default=default, metavar="FILE",
                        help="connect with TLS, trusting the CA certificate(s) in FILE (PEM; "
                             "default $ARENA_TLS_CA)")
    parser.add_argument("--tls", action="store_true", default=default,
                        help="connect with TLS, trusting the system's CAs")
    parser.add_argument("--insecure", action="store_true", default=default,
                        help="send the token in clear to an address off this machine "
                             "(only on a network you trust)")


def _json_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print JSON instead of tables")


def _client_command(subparsers: Any, name: str, text: str,
                    handler: Handler) -> argparse.ArgumentParser:
    """A command that talks to a server: client options, ``--json`` and its handler."""
    parser: argparse.ArgumentParser = subparsers.add_parser(name, help=text)
    _client_options(parser)
    _json_option(parser)
    parser.set_defaults(handler=handler)
    return parser


def _cluster_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--cluster", default=None, metavar="tls://HOST:8786",
                        help="play the series on this Dask scheduler's workers (`arena "
                             "worker`, `arena cluster up`) instead of on this machine")
    add_tls_options(parser)


def _latest_season_option(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    parser.add_argument("--season", type=arguments.positive_int, default=0,
                        help="season number (default: the latest)")
    return parser


def build_parser() -> argparse.ArgumentParser:
    # No abbreviations at the top: it sees every argument, and `export --to` would
    # otherwise be taken for an abbreviation of its --token.
    parser = argparse.ArgumentParser(
        prog="arena", description="Hollywood Gin Arena: bots, league seasons, live standings.",
        allow_abbrev=False)
    parser.add_argument("-v", "--verbose", action="store_true", help="log progress details")
    _client_options(parser, top_level=True)
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    _add_serve(commands)
    _add_bots(commands)
    _add_accounts(commands)
    _add_season(commands)
    add_ladder_commands(commands, _client_command)
    add_league_commands(commands, _client_command)
    add_challenge_commands(commands, _client_command)
    _add_reads(commands)
    _add_images(commands)
    _add_demo(commands)
    _add_match(commands)
    add_play_command(commands)
    add_replay_command(commands, _client_command)
    export = _client_command(commands, "export", "write a season's (or match's) results, "
                             "standings and event logs to a directory", cmd_export)
    _latest_season_option(export)
    export.add_argument("--to", type=Path, required=True, metavar="DIR",
                        help="directory to write results.csv, standings.csv, series/ID.json")
    export.add_argument("--decisions", action="store_true",
                        help="also decisions.jsonl: every decision with what its seat saw, "
                             "the legal actions, the action taken and the outcome")
    add_cluster_commands(commands)
    add_backup_commands(commands)
    add_health_command(commands)
    return parser


def _add_serve(commands: Any) -> None:
    serve = commands.add_parser("serve", help="run the arena gRPC server")
    serve.add_argument("--db", type=Path, default=DEFAULT_DB,
                       help="SQLite database (default .arena/arena.db); the admin token is "
                            "kept next to it")
    serve.add_argument("--host", default=DEFAULT_HOST, help="address to listen on (localhost)")
    serve.add_argument("--port", type=arguments.port, default=DEFAULT_PORT,
                       help="port (default 50551)")
    _http_options(serve, keep_serving=False)
    serve.add_argument("--tls-cert", type=Path, default=None, metavar="FILE",
                       help="serve the API and the website with TLS only: this certificate "
                            "(PEM, the chain after it); needs --tls-key")
    serve.add_argument("--tls-key", type=Path, default=None, metavar="FILE",
                       help="the certificate's private key (PEM)")
    _cluster_option(serve)
    serve.add_argument("--max-season-bots", type=arguments.positive_int,
                       default=DEFAULT_MAX_SEASON_BOTS, metavar="N",
                       help=f"refuse seasons of more bots (default {DEFAULT_MAX_SEASON_BOTS})")
    serve.add_argument("--log-retention-days", type=arguments.days,
                       default=DEFAULT_LOG_RETENTION_DAYS, metavar="DAYS",
                       help="keep each bot's logs of a series (stderr, decision times, debug "
                            f"notes) this long (default {DEFAULT_LOG_RETENTION_DAYS:g}; 0: for "
                            "ever)")
    serve.add_argument("--upload-idle-seconds", type=arguments.seconds,
                       default=DEFAULT_UPLOAD_IDLE_SECONDS, metavar="S",
                       help="end an upload that sends nothing for S seconds (default "
                            f"{DEFAULT_UPLOAD_IDLE_SECONDS:g})")
    serve.add_argument("--metrics", type=arguments.http_address, default=None,
                       metavar="HOST:PORT",
                       help="serve the operator's metrics at http://HOST:PORT/metrics "
                            "(Prometheus's format; port 0 = any free port; default: none)")
    serve.add_argument("--vet-sandbox", default=sandbox_registry.default_name(), metavar="NAME",
                       help="sandbox backend uploads are built and validated in (default "
                       f"{sandbox_registry.default_name()})")
    serve.set_defaults(handler=cmd_serve)


def _http_options(parser: argparse.ArgumentParser, *, keep_serving: bool) -> None:
    """The website's options: where it listens, or not at all."""
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--http", type=arguments.http_address, default=None,
                       metavar="HOST:PORT",
                       help=f"serve the read-only website here (default {DEFAULT_HTTP})")
    where.add_argument("--no-http", action="store_true", help="do not serve the website")
    parser.add_argument("--guest-play", action="store_true",
                        help="let guests play the bots on the website's /play, not only "
                        "signed-in authors (games against people are never rated)")
    parser.add_argument("--human-games", type=arguments.positive_int, default=4, metavar="N",
                        help="at most N games of people against bots at once (default 4)")
    if keep_serving:
        parser.add_argument("--keep-serving", action="store_true",
                            help="after the season, keep serving until Ctrl-C")
    parser.add_argument("--log-format", choices=("text", "json"), default="text",
                        help="the server's event log on stderr (one line per season event "
                        "and fault): text, or json (one object per line)")


def _add_bots(commands: Any) -> None:
    bots = commands.add_parser("bots", help="register and list bots").add_subparsers(
        dest="bots_command", required=True, metavar="ACTION")
    register = _client_command(bots, "register", "register bot folder(s) (bot.toml + code)",
                               cmd_bots_register)
    register.add_argument("folders", nargs="+", type=Path, metavar="PATH")
    register.add_argument("--no-wait", action="store_true",
                          help="return after the uploads, not when every version is vetted")
    add_limit(_client_command(bots, "list", "list bot versions", cmd_bots_list), "versions")
    show = _client_command(bots, "show", "a bot's versions: status, owner, times, image, "
                           "build log tail, validation, rating, recent faults", cmd_bots_show)
    show.add_argument("name", metavar="NAME", help="a bot name, or NAME@VERSION")
    logs = _client_command(bots, "logs", "print a version's build or validation log",
                           cmd_bots_logs)
    logs.add_argument("bot_id", metavar="NAME@VERSION")
    which = logs.add_mutually_exclusive_group(required=True)
    which.add_argument("--build", action="store_true", help="the image build log (tail)")
    which.add_argument("--validation", action="store_true", help="the validation log")
    reactivate = _client_command(bots, "reactivate", "make a deactivated version active "
                                 "again (admin)", cmd_bots_reactivate)
    reactivate.add_argument("bot_id", metavar="NAME@VERSION")
    revet = _client_command(bots, "revet", "vet a version again, e.g. after a rejection "
                            "the arena caused (its owner or the admin)", cmd_bots_revet)
    revet.add_argument("bot_id", metavar="NAME@VERSION")
    revet.add_argument("--wait", action="store_true",
                       help="wait for the verdict (exit status 1 if rejected)")
    check = commands.add_parser("check", help="build and validate a bot folder here, as a "
                                "server vets an upload (prints the build log and each hand)")
    check.add_argument("folder", type=Path, metavar="FOLDER")
    check.add_argument("--sandbox", default=None, metavar="NAME",
                       help=f"sandbox backend (default {sandbox_registry.default_name()}; "
                       "a backend that builds no image skips the build)")
    check.set_defaults(handler=cmd_check)


def _add_accounts(commands: Any) -> None:
    submit = _client_command(commands, "submit", "upload a bot folder to a server (an "
                             "author's or the admin's token)", cmd_submit)
    submit.add_argument("folder", type=Path, metavar="FOLDER")
    submit.add_argument("--replace", action="store_true",
                        help="replace the code of this version (only if it has not played)")
    submit.add_argument("--no-wait", action="store_true",
                        help="return after the upload, not when the version is vetted")
    login = commands.add_parser("login", help="check a token with a server, store it in "
                                "your credentials file (~/.config/hollywood-arena/credentials) "
                                "and make that server the default")
    _client_options(login)
    login.add_argument("--no-check", action="store_true",
                       help="store the token without asking the server whose it is")
    login.set_defaults(handler=cmd_login)
    authors = commands.add_parser("authors", help="bot authors and their tokens (admin)")
    actions = authors.add_subparsers(dest="authors_command", required=True, metavar="ACTION")
    add = _client_command(actions, "add", "create an author; prints its token once",
                          cmd_authors_add)
    add.add_argument("name", metavar="NAME")
    add_limit(_client_command(actions, "list", "list authors", cmd_authors_list), "authors")
    revoke = _client_command(actions, "revoke", "revoke an author's token", cmd_authors_revoke)
    revoke.add_argument("name", metavar="NAME")


def _add_season(commands: Any) -> None:
    season = commands.add_parser("season", help="create, run, cancel and show seasons")
    seasons = season.add_subparsers(dest="season_command", required=True, metavar="ACTION")
    create = _client_command(seasons, "create", "create (and start) a season on the server",
                             cmd_season_create)
    entrants = create.add_mutually_exclusive_group(required=True)
    entrants.add_argument("--bots", nargs="+", metavar="BOT",
                          help="bot ids (name@version, or name = latest version)")
    entrants.add_argument("--all-active", action="store_true",
                          help="enter the newest active version of every bot")
    create.add_argument("--hold", action="store_true", help="store the plan, do not start")
    create.add_argument("--watch", action="store_true", help="follow it live afterwards")
    add_season_options(create)
    run = seasons.add_parser(
        "run", help="run a season to the end with a live table (embedded server on --db)")
    run.add_argument("--bots", nargs="+", required=True, metavar="BOT",
                     help="bot ids or bot folders (folders are registered first)")
    run.add_argument("--db", type=Path, default=DEFAULT_DB, help="database (.arena/arena.db)")
    add_season_options(run)
    _http_options(run, keep_serving=True)
    _cluster_option(run)
    _json_option(run)
    run.set_defaults(handler=cmd_season_run)
    for action, text, handler in (
        ("start", "start or resume a season", cmd_season_start),
        ("cancel", "cancel a season (series in flight finish)", cmd_season_cancel),
    ):
        sub = _client_command(seasons, action, text, handler)
        sub.add_argument("season_id", type=arguments.positive_int, metavar="SEASON")
        if action == "cancel":
            sub.add_argument("--no-wait", action="store_true",
                             help="report at once instead of after the series in flight")
    show = _client_command(seasons, "show", "a season's settings, progress and standings",
                           cmd_season_show)
    show.add_argument("season_id", type=arguments.positive_int, nargs="?", default=0,
                      metavar="SEASON", help="season number (default: the latest)")
    add_list_and_settings(seasons, _client_command)


def _add_reads(commands: Any) -> None:
    standings = _latest_season_option(_client_command(
        commands, "standings", "a season's standings and crosstable", cmd_standings))
    standings.add_argument("--los", action="store_true",
                           help="also print the likelihood-of-superiority matrix")
    standings.add_argument("--top", type=arguments.positive_int, metavar="N",
                           help="only the first N rows")
    standings.add_argument("--page-size", type=arguments.positive_int, default=50,
                           metavar="N", help="rows per page (default 50)")
    standings.add_argument("--page", default="", metavar="TOKEN",
                           help="the page a previous page named as next")
    standings.add_argument("--bot", action="append", default=[], metavar="NAME",
                           help="only this bot's row (name or name@version; repeatable)")
    standings.add_argument("--recompute", action="store_true",
                           help="have the server recompute them from every stored result "
                                "first (same numbers as the live standings)")
    watch = _latest_season_option(
        _client_command(commands, "watch", "follow a season live", cmd_watch))
    watch.add_argument("--top", type=arguments.positive_int, default=20, metavar="N",
                       help="standings rows shown live (default 20)")
    watch.add_argument("--bot", action="append", default=[], metavar="NAME",
                       help="also show this bot's row (repeatable)")
    series = commands.add_parser("series", help="read series").add_subparsers(
        dest="series_command", required=True, metavar="ACTION")
    series_show = _client_command(series, "show", "a series hand by hand", cmd_series_show)
    series_show.add_argument("series_id", type=arguments.series_id, metavar="ID")
    series_verify = _client_command(
        series, "verify", "check a played series' revealed seed against its commitment "
        "and re-deal its event log from it", cmd_series_verify)
    series_verify.add_argument("series_id", nargs="?", default=None, type=arguments.series_id,
                               metavar="ID")
    series_verify.add_argument("--file", type=Path, default=None, metavar="PATH",
                               help="a series/ID.json of `arena export` (no server asked)")
    series_list = _latest_season_option(_client_command(
        series, "list", "a season's planned series and results", cmd_series_list))
    series_list.add_argument("--page-size", type=arguments.positive_int, default=100,
                             metavar="N", help="series per page (default 100)")
    series_list.add_argument("--page", default="", metavar="TOKEN",
                             help="the page a previous page named as next")
    series_list.add_argument("--bot", default="", metavar="NAME",
                             help="only the series this bot (NAME or NAME@VERSION) played")
    series_logs = _client_command(
        series, "logs", "your bot's stderr, decision times and debug notes in a series "
        "(its owner's token, or the admin's)", cmd_series_logs)
    series_logs.add_argument("series_id", type=arguments.series_id, metavar="ID")
    series_logs.add_argument("--seat", type=int, choices=(0, 1), default=None,
                             help="only this seat (default: every seat you own)")
    series_download = _client_command(
        series, "download", "one JSON file: the replay, your logs, debug notes and "
        "timings", cmd_series_download)
    series_download.add_argument("series_id", type=arguments.series_id, metavar="ID")
    series_download.add_argument("--seat", type=int, choices=(0, 1), default=None,
                                 help="only this seat's log (default: every seat you own)")
    series_download.add_argument("-o", "--output", default="", metavar="FILE",
                                 help="where to write it (default series-ID.json; - for "
                                      "stdout)")


def _add_images(commands: Any) -> None:
    images = commands.add_parser("images", help="Docker images").add_subparsers(
        dest="images_command", required=True, metavar="ACTION")
    prepare = images.add_parser("prepare-base", help="prepare the default sandbox's host "
                                "(Docker: build the local base image if needed)")
    prepare.add_argument("--force", action="store_true", help="rebuild even if up to date")
    prepare.set_defaults(handler=cmd_images_prepare_base)


def _add_match(commands: Any) -> None:
    match = commands.add_parser(
        "match", help="a head-to-head match of duplicate pairs stopped by an SPRT "
        "(--sprt elo0=0,elo1=10,alpha=0.05,beta=0.05 --max-pairs N; embedded server on --db)")
    match.add_argument("bot_a", metavar="A", help="the bot tested (id or folder)")
    match.add_argument("bot_b", metavar="B", help="its opponent (id or folder)")
    match.add_argument("--db", type=Path, default=DEFAULT_DB, help="database (.arena/arena.db)")
    add_season_options(match)
    _http_options(match, keep_serving=True)
    _json_option(match)
    match.set_defaults(handler=cmd_match)


def _add_demo(commands: Any) -> None:
    demo = commands.add_parser(
        "demo", help="prepare images, register the sample bots and run a season (make run)")
    demo.add_argument("--db", type=Path, default=DEMO_DB,
                      help="demo database, recreated on every run (.arena/demo.db)")
    add_season_options(demo)
    _http_options(demo, keep_serving=True)
    demo.set_defaults(handler=cmd_demo)
