"""The commands that work on this machine rather than through a running server:
``arena serve``, ``arena season run``, ``arena match`` and ``arena demo`` (each starts an arena
server on a database) and ``arena images prepare-base`` (the host's preparation of the
sandbox, e.g. Docker's base image).

``season run`` and ``demo`` start an embedded server for their own duration
(``embedded``) and drive it through the same gRPC API as every other command.
The server modules are imported inside the functions that use them, and a sandbox
backend's module only when one is created, so that loading the command line for
any other command stays light.
"""

from __future__ import annotations

import argparse
import shutil
import signal
import sys
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Final

from hollywood.arena.v1 import arena_pb2
from rich.console import Console
from rich.text import Text

from arena.cli.bots import check_folders, register_folders
from arena.cli.client import ArenaClient, every_bot
from arena.cli.heap import thresholds_for_play
from arena.cli.output import CliError, print_json, to_json
from arena.cli.render import (
    LIVE_TOP_ROWS,
    LiveSeasonView,
    fault_summary,
    plain_console,
    print_standings,
    seed_text,
    shown,
    status_name,
)
from arena.cli.season_options import season_config_message
from arena.cli.submit import unbuilt
from arena.cli.watching import unbatched
from arena.core.defaults import DEFAULT_DB, DEFAULT_HTTP_HOST, DEFAULT_HTTP_PORT
from arena.core.manifest import BotManifest, ManifestError
from arena.core.series import BotRef
from arena.core.settings import ConfigError
from arena.core.text import unknown_name
from arena.core.tls import TlsFiles
from arena.core.token_binding import is_loopback_host
from arena.sandbox import registry as sandbox_registry
from arena.sandbox.base import SandboxError
from arena.season.formats import MATCH_FORMAT

if TYPE_CHECKING:
    from arena.execution import ExecutorFactory
    from arena.match.live_moves import MoveBoard
    from arena.server.validation import BotFolder
    from arena.web.play_games import PlaySettings

REPO_ROOT: Final = Path(__file__).resolve().parents[2]
SAMPLE_BOTS: Final = REPO_ROOT / "sample_bots"
DEMO_DB: Final = DEFAULT_DB.with_name("demo.db")
BUILD_LOG_TAIL_LINES: Final = 40
"""How much of a failed build's log the demo shows (the owner's whole log is on disk)."""


def sample_bot_folders(root: Path = SAMPLE_BOTS) -> list[Path]:
    """Every sample bot folder (one with a bot.toml), the SDK excluded, sorted, but
    for compiled bots not built yet (see ``unbuilt``)."""
    return [folder for folder in _all_sample_bots(root) if not unbuilt(folder)]


def unbuilt_sample_bots(root: Path = SAMPLE_BOTS) -> list[Path]:
    """The sample bots that ``sample_bot_folders`` leaves out until they are built."""
    return [folder for folder in _all_sample_bots(root) if unbuilt(folder)]


def _all_sample_bots(root: Path) -> list[Path]:
    return sorted(path.parent for path in root.glob("*/bot.toml") if path.parent.name != "sdk")


def http_of(args: argparse.Namespace) -> tuple[str, int] | None:
    """Where the website listens (``--http``, default localhost:8080), None with ``--no-http``."""
    if args.no_http:
        return None
    return args.http or (DEFAULT_HTTP_HOST, DEFAULT_HTTP_PORT)


def play_of(args: argparse.Namespace) -> PlaySettings:
    """Who may play the bots on the website and how many at once (``--guest-play``,
    ``--human-games``)."""
    from arena.web.play_games import PlaySettings

    return PlaySettings(guest_play=args.guest_play, max_games=args.human_games)


def wait_for_interrupt() -> None:
    """Block until Ctrl-C or SIGTERM."""
    stop = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stop.set())
    stop.wait()


def cmd_serve(args: argparse.Namespace, console: Console) -> int:
    from arena.match.live_moves import MoveBoard
    from arena.server.app import start_server
    from arena.server.event_log import configure_event_log
    from arena.server.uploads import UploadLimits

    configure_event_log(args.log_format)
    tls = tls_of(args)
    board = MoveBoard()  # the series in play, on the website, wherever they are played
    try:
        running = start_server(args.db, host=args.host, port=args.port, http=http_of(args),
                               executor_factory=cluster_factory(args, board),
                               max_season_bots=args.max_season_bots,
                               upload_limits=UploadLimits(
                                   idle_seconds=args.upload_idle_seconds),
                               vetting_sandbox=args.vet_sandbox, tls=tls, board=board,
                               metrics=args.metrics,
                               log_retention_days=args.log_retention_days,
                               play=play_of(args))
    except RuntimeError as error:
        raise CliError(str(error), code=1) from None
    if tls is None:
        warn_clear_listeners(args.host, running.web.host if running.web else None)
    over = "" if tls is None else " over TLS"
    console.print(f"arena serving hollywood.arena.v1 on {running.address}{over} (db {args.db}); "
                  f"admin token in {running.token_path}")
    if running.web is not None:
        console.print(f"website: {running.web.url}", soft_wrap=True)
    if args.metrics is not None:
        metrics_host = args.metrics[0]
        shown = f"[{metrics_host}]" if ":" in metrics_host else metrics_host
        console.print(f"metrics: http://{shown}:{running.metrics_port}/metrics", soft_wrap=True,
                      markup=False)
    with thresholds_for_play():
        wait_for_interrupt()
    console.print("stopping (seasons still running resume on the next start)")
    running.stop(grace=2.0)
    return 0


def tls_of(args: argparse.Namespace) -> TlsFiles | None:
    """``--tls-cert`` and ``--tls-key`` (both or neither)."""
    if (args.tls_cert is None) != (args.tls_key is None):
        raise CliError("--tls-cert and --tls-key go together: give both (TLS) or neither")
    return None if args.tls_cert is None else TlsFiles(args.tls_cert, args.tls_key)


def warn_clear_listeners(*hosts: str | None) -> None:
    """Say so when a server without TLS listens off loopback: tokens then cross the
    network in clear (clients refuse to send one there without --insecure)."""
    for host in hosts:
        if host is not None and not is_loopback_host(host):
            print(f"warning: serving in clear on {host}: tokens sent there cross the network "
                  "unencrypted; serve TLS with --tls-cert FILE --tls-key FILE "
                  "(docs/security.md)", file=sys.stderr)


def cluster_factory(args: argparse.Namespace, board: MoveBoard) -> ExecutorFactory | None:
    """The executor factory of ``--cluster ADDRESS`` with ``--cluster-certs`` (the
    client certificate) or ``--insecure``, its series' moves on ``board``; None: play
    on this machine."""
    address = getattr(args, "cluster", None)
    if not address:
        return None
    from arena.cli.cluster import cluster_security
    from arena.execution.cluster import (
        ClusterUnavailableError,
        check_scheduler,
        cluster_executor_factory,
    )

    address, security = cluster_security("the scheduler at", address, args, "client")
    try:  # before any season is created: say at once that the cluster is not there
        check_scheduler(address, security=security)
    except ClusterUnavailableError as error:
        hint = "" if security is not None else (
            "; a cluster it starts speaks TLS: add --cluster-certs .arena/cluster/certs")
        raise CliError(f"{error} (start one with `arena cluster up`{hint})", code=1) from None
    return cluster_executor_factory(address, security, board)


@contextmanager
def embedded(db: Path, args: argparse.Namespace, console: Console) -> Iterator[ArenaClient]:
    """An arena server on ``db`` on a free localhost port, for this command only,
    with the website where ``args`` say (its address printed first); with
    ``--keep-serving`` it stays up after the command's work until Ctrl-C."""
    from arena.match.live_moves import MoveBoard
    from arena.server.app import start_server
    from arena.server.event_log import configure_event_log

    configure_event_log(getattr(args, "log_format", "text"))
    board = MoveBoard()
    try:
        # No vetting: the folders are this machine's own, registered by its admin to
        # play now (a crashing bot's forfeits included); `arena check` vets one.
        running = start_server(db, host="localhost", port=0, resume=False, http=http_of(args),
                               executor_factory=cluster_factory(args, board), board=board,
                               play=play_of(args))
    except RuntimeError as error:
        raise CliError(str(error), code=1) from None
    if getattr(args, "json", False):  # stdout carries the JSON answer alone
        console = plain_console(stderr=True)
    if running.web is not None:
        console.print(f"watch it live: {running.web.url}", soft_wrap=True)
    client = ArenaClient(running.address, running.token)
    try:
        with thresholds_for_play():
            yield client
            if running.web is not None and args.keep_serving:
                console.print(f"still serving {running.web.url} (Ctrl-C stops)",
                              soft_wrap=True)
                wait_for_interrupt()
    finally:
        client.close()
        running.stop(grace=None)


def cmd_season_run(args: argparse.Namespace, console: Console) -> int:
    config = season_config_message(args)
    with embedded(args.db, args, console) as client:
        # All or nothing: folders, bot names and settings are checked before the
        # folders are registered and the season is created.
        request, folders = season_request(client, args.bots, config, args.name)
        register_folders(client, folders)
        return run_and_follow(client, request, console, args.json)


def cmd_match(args: argparse.Namespace, console: Console) -> int:
    """A head-to-head SPRT match: a season of format ``MATCH_FORMAT`` between two bots."""
    config = season_config_message(args)
    if config.format not in ("", MATCH_FORMAT):
        raise CliError(f"arena match plays the {MATCH_FORMAT} format, not {config.format!r} "
                       "(use `arena season run --format ...`)")
    config.format = MATCH_FORMAT
    with embedded(args.db, args, console) as client:
        request, folders = season_request(client, [args.bot_a, args.bot_b], config, args.name)
        if not args.name:
            request.name = f"match {request.bots[0]} vs {request.bots[1]}"
        register_folders(client, folders)
        return run_and_follow(client, request, console, args.json)


def is_folder(reference: str) -> bool:
    """Whether a ``--bots`` entry names a bot folder (an existing directory, or a path:
    bot names never hold a slash) rather than a registered bot."""
    return Path(reference).is_dir() or "/" in reference.partition("@")[0]


def season_request(client: ArenaClient, references: Sequence[str],
                   config: arena_pb2.SeasonConfig, name: str
                   ) -> tuple[arena_pb2.CreateSeasonRequest, list[BotFolder]]:
    """The season request for ``references`` (bot folders or registered bots) and
    the folders to register first, all checked (folders, bot names, settings) as if
    the folders were registered already, so that nothing is registered for a
    season that would be refused."""
    from arena.server.validation import check_bots_fit_sandbox, check_season_request

    folders = check_folders(client, [Path(ref) for ref in references if is_folder(ref)])
    listed = every_bot(client)
    registry = [(bot.id, bot.name) for bot in listed]
    manifests: dict[str, BotManifest] = {bot.id: bot.manifest for bot in folders}
    for bot in folders:
        if bot.id not in {bot_id for bot_id, _ in registry}:
            registry.append((bot.id, bot.manifest.name))
    pending = iter(folders)
    ids = [next(pending).id if is_folder(ref) else ref for ref in references]
    request = arena_pb2.CreateSeasonRequest(bots=ids, config=config, name=name)

    def resolve(reference: str) -> str:  # as the server will, once the folders are in
        matches = [bot_id for bot_id, bot_name in registry
                   if (bot_id if "@" in reference else bot_name) == reference]
        if not matches:
            raise CliError(unknown_name("bot", reference, [name for pair in registry
                                                           for name in pair], "arena bots list"))
        return matches[-1]

    try:
        _, checked = check_season_request(request, resolve)
        # The folders of this command; the server checks the registered bots (it
        # never tells a client where their files are).
        check_bots_fit_sandbox(checked, manifests.values())
    except (ConfigError, ManifestError) as error:
        raise CliError(str(error)) from None
    return request, folders


def run_and_follow(client: ArenaClient, request: arena_pb2.CreateSeasonRequest,
                   console: Console, as_json: bool) -> int:
    """Create the season, follow it to its end, print the final standings; exit
    status 0 if it finished, 1 if it stopped."""
    created = shown(client.stub.CreateSeason(request, metadata=client.auth).season)
    if not as_json:
        console.print(f"season {created.id}: {len(created.bot_ids)} bots, "
                      f"{created.series_total} series, {seed_text(created.config.seed)}, "
                      f"sandbox {created.config.sandbox_backend}, "
                      f"concurrency {created.config.concurrency}")
    stream = unbatched(client.stub.WatchSeason(arena_pb2.WatchSeasonRequest(
        season_id=created.id, top=LIVE_TOP_ROWS, batch_series_events=True)))
    view = LiveSeasonView(console)
    if as_json:  # stdout is the JSON answer alone (the event log on stderr has the faults)
        for _ in stream:
            pass
    else:
        view.follow(stream, transient=True)
    final = client.stub.GetStandings(arena_pb2.GetStandingsRequest(season_id=created.id))
    season = client.stub.GetSeason(arena_pb2.GetSeasonRequest(season_id=created.id)).season
    if not as_json:
        season = shown(season)
    if as_json:
        print_json({"season": to_json(season), "standings": to_json(final.standings)})
    else:
        console.print()
        console.print(Text.assemble((f"Final standings of season {season.id}", "bold"),
                                    f" ({status_name(season.status)})"))
        print_standings(console, final.standings)
        for line in fault_summary(view.forfeits):
            console.print(line)
        if season.error:
            console.print(f"season stopped: {season.error}", style="red")
    return 0 if status_name(season.status) == "finished" else 1


def cmd_demo(args: argparse.Namespace, console: Console) -> int:
    folders = sample_bot_folders()
    if len(folders) < 2:
        raise CliError(f"fewer than two sample bots under {SAMPLE_BOTS}", code=1)
    for folder in unbuilt_sample_bots():
        console.print(f"left out {folder.name}: not built yet (see {folder}/README.md)",
                      markup=False, highlight=False)
    if sandbox_registry.backend(args.sandbox or "").capabilities.builds_images:
        _build_bots(args.sandbox or "", folders, console)
    config = season_config_message(args)
    # A fresh database every time: the sample bots' code may have changed under the
    # same version since the last demo, which a kept database would rightly refuse.
    _remove_database(args.db)
    console.print(f"demo database: {args.db} (recreated on every run; browse it with "
                  f"`arena serve --db {args.db}`)")
    with embedded(args.db, args, console) as client:
        bots = [response.bot for response in
                register_folders(client, check_folders(client, folders))]
        console.print("registered: " + ", ".join(bot.id for bot in bots), soft_wrap=True,
                      markup=False, highlight=False)
        request = arena_pb2.CreateSeasonRequest(
            bots=[bot.id for bot in bots], config=config, name=args.name or "demo season")
        return run_and_follow(client, request, console, as_json=False)


def _remove_database(db: Path) -> None:
    for path in (db, db.with_name(db.name + "-wal"), db.with_name(db.name + "-shm")):
        path.unlink(missing_ok=True)
    shutil.rmtree(db.with_name(db.stem + ".bots"), ignore_errors=True)


def _build_bots(sandbox_name: str, folders: Sequence[Path], console: Console) -> None:
    """Build the bots in ``folders`` for the season's sandbox ahead of it (the first
    build takes minutes), saying what each build did; CliError if one fails."""
    try:
        sandbox = sandbox_registry.create(sandbox_name)
        try:
            with console.status("preparing the host (first time: a minute or two)"):
                sandbox.prepare_host()
            for folder in folders:
                with console.status(f"building {folder.name}"):
                    built = sandbox.build(BotRef.from_folder(folder))
                if not built.passed:
                    tail = "\n".join(built.log.splitlines()[-BUILD_LOG_TAIL_LINES:])
                    raise CliError(f"building {folder.name} failed: {built.reason}\n{tail}",
                                   code=1)
                console.print(built.summary, markup=False, highlight=False)
        finally:
            sandbox.close()
    except (SandboxError, ManifestError) as error:
        raise CliError(f"preparing the bots failed: {error}", code=1) from None


def cmd_images_prepare_base(args: argparse.Namespace, console: Console) -> int:
    name = sandbox_registry.default_name()
    try:
        sandbox = sandbox_registry.create(name)
        try:
            sandbox.prepare_host(force=args.force)
        finally:
            sandbox.close()
    except SandboxError as error:
        raise CliError(str(error), code=1) from None
    console.print(f"the host is ready for the {name} sandbox")
    return 0
