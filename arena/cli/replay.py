"""``arena replay ID [--bot SEAT=FOLDER]...``: a stored series played again here.

The stored series (its event log, seats, fault and its season's time limits) is
read from the server (``GetSeries``, ``GetSeason``), from a local database
(``--db``), or from a file ``arena export`` wrote (``ID`` is then the path of its
``series/ID.json``; the limits from the ``season.json`` beside the folder, when
there). Each ``--bot SEAT=BOT`` (a folder, a registered bot of ``--db``, or
``tcp:HOST:PORT``, as ``arena play`` takes) plays that seat; every other seat
plays its stored moves (``arena.match.replay``). The verdict: reproduced, or the
first divergence (hand, decision, stored move, new move). Exit status 0 when
reproduced, 1 when it diverged.
"""

from __future__ import annotations

import argparse
import contextlib
import json
from pathlib import Path
from typing import Any

from rich.console import Console

from arena.cli.commands import ClientCommand
from arena.cli.output import CliError, print_json
from arena.cli.play import HandPrinter, Player, resolve_player
from arena.core.defaults import DEFAULT_DB
from arena.core.faults import BotFault, FaultKind
from arena.core.limits import TimeLimits
from arena.core.settings import SETTINGS_BY_NAME
from arena.match.replay import ReplayReport, StoredSeries, StoredSeriesError, fault_text
from arena.sandbox import registry as sandbox_registry

_LIMIT_NAMES = ("startup_s", "decision_s", "reserve_s")


def seat_folder(text: str) -> tuple[int, str]:
    """``SEAT=BOT`` of ``--bot``: seat 0 or 1, and the bot."""
    seat, sep, bot = text.partition("=")
    if not sep or seat.strip() not in ("0", "1") or not bot.strip():
        raise argparse.ArgumentTypeError(
            f"{text!r} is not SEAT=FOLDER (the seat 0 or 1, e.g. --bot 1=./my-bot)")
    return int(seat), bot.strip()


def _limits_of(message: dict[str, Any]) -> TimeLimits:
    """The time limits of a ``SeasonConfig`` message as JSON (proto field names, from
    the server or an export, not the stored form); the default of each one missing."""
    values = {name: message.get(SETTINGS_BY_NAME[name].proto_field) for name in _LIMIT_NAMES}
    return TimeLimits(**{name: float(value) for name, value in values.items() if value})


def _fault_from_json(data: dict[str, Any] | None) -> BotFault | None:
    if not data or not data.get("kind"):
        return None
    try:
        kind = FaultKind(data["kind"])
    except ValueError:
        return None
    return BotFault(kind, str(data.get("message", "")), seat=int(data.get("seat") or 0),
                    hand_number=int(data.get("hand_number") or 0) or None,
                    decision_number=int(data.get("decision_number") or 0) or None)


def _stored(series_id: str, summary: dict[str, Any], log: Any,
            limits: TimeLimits) -> StoredSeries:
    if not isinstance(log, list) or not log:
        raise CliError(f"series {series_id} has no stored event log (has it been played?)")
    try:
        return StoredSeries(series_id, (str(summary.get("seat0_bot", "")),
                                        str(summary.get("seat1_bot", ""))), log, limits,
                            _fault_from_json(summary.get("fault")))
    except StoredSeriesError as error:
        raise CliError(str(error)) from None


def from_server(args: argparse.Namespace, series_id: str) -> StoredSeries:
    import grpc
    from hollywood.arena.v1 import arena_pb2

    from arena.cli.client import connect
    from arena.cli.output import to_json

    with connect(args) as client:
        try:
            full = client.stub.GetSeries(arena_pb2.GetSeriesRequest(series_id=series_id))
            season = client.stub.GetSeason(
                arena_pb2.GetSeasonRequest(season_id=full.series.season_id)).season
        except grpc.RpcError as error:
            if error.code() == grpc.StatusCode.NOT_FOUND:
                raise CliError(f"series {series_id}: {error.details()}") from None
            raise
    log = json.loads(full.event_log_json) if full.event_log_json else []
    return _stored(series_id, to_json(full.series), log, _limits_of(to_json(season.config)))


def from_database(db: Path, series_id: str) -> StoredSeries:
    from arena.storage import NotFoundError, Storage

    if not db.is_file():
        raise CliError(f"no database at {db} (--db)")
    storage = Storage(db)
    try:
        record = storage.get_result(series_id)
        if record is None:
            raise CliError(f"series {series_id} has no stored result in {db}")
        log, _profile = storage.result_log(series_id)
        config = storage.get_season(record.season_id).config
    except NotFoundError as error:
        raise CliError(str(error)) from None
    finally:
        storage.close()
    limits = config.limits
    return StoredSeries(series_id, record.bots, log, limits, record.fault)


def from_export(path: Path) -> StoredSeries:
    """A ``series/ID.json`` of ``arena export`` (its season's limits from the
    ``season.json`` two levels up, if there)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        summary, log = data["series"], data["event_log"]
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise CliError(f"{path}: not a series file of `arena export` ({error})") from None
    season_file = path.parent.parent / "season.json"
    limits = TimeLimits()
    if season_file.is_file():
        # Unreadable: the defaults (the deal does not depend on them).
        with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
            limits = _limits_of(json.loads(season_file.read_text(encoding="utf-8"))
                                ["season"]["config"])
    return _stored(str(summary.get("series_id", path.stem)), summary, log, limits)


def load_stored(args: argparse.Namespace) -> StoredSeries:
    reference: str = args.series
    if reference.endswith(".json") or Path(reference).is_file():
        return from_export(Path(reference))
    from arena.core.arguments import series_id

    try:
        series = series_id(reference)
    except argparse.ArgumentTypeError as error:
        raise CliError(f"{error}, nor a file `arena export` wrote") from None
    if args.db is not None:
        return from_database(args.db, series)
    return from_server(args, series)


def report_data(stored: StoredSeries, report: ReplayReport,
                names: tuple[str, str]) -> dict[str, Any]:
    divergence = report.divergence
    outcome = report.outcome
    return {
        "series_id": stored.series_id, "seats": list(names),
        "reproduced": report.reproduced, "decisions": report.decisions,
        "divergence": None if divergence is None else {
            "hand": divergence.hand, "decision": divergence.decision,
            "seat": divergence.seat, "stored": divergence.stored, "new": divergence.new},
        "winner": None if outcome is None else outcome.winner,
        "fault": None if outcome is None or outcome.fault is None else outcome.fault.to_dict(),
    }


def verdict_lines(stored: StoredSeries, report: ReplayReport,
                  names: tuple[str, str]) -> list[str]:
    divergence = report.divergence
    if divergence is None:
        end = ("to its end" if report.outcome is not None
               else "to where a stored-moves seat forfeited")
        if report.outcome is not None and report.outcome.fault is not None:
            end += f" (the same {fault_text(report.outcome.fault)})"
        return [f"reproduced: series {stored.series_id} followed the stored path {end}, "
                f"{report.decisions} decisions, every move the stored one"]
    where = ("at start-up" if divergence.decision == 0
             else f"hand {divergence.hand}, decision {divergence.decision}")
    return [f"diverged: series {stored.series_id}, {where}, "
            f"seat {divergence.seat} ({names[divergence.seat]})",
            f"  stored move: {divergence.stored}",
            f"  new move:    {divergence.new}"]


def cmd_replay(args: argparse.Namespace, console: Console) -> int:
    from arena.core.faults import ArenaOverload
    from arena.match.replay import replay_series, stored_moves_ref
    from arena.sandbox import registry
    from arena.sandbox.base import SandboxError
    from arena.sandbox.tcp import WithHandStartedBots

    stored = load_stored(args)
    given = dict(args.bot)
    if len(given) != len(args.bot):
        raise CliError("--bot names a seat twice")
    db: Path = args.db if args.db is not None else DEFAULT_DB
    players: dict[int, Player] = {seat: resolve_player(bot, db) for seat, bot in given.items()}
    names = tuple(f"{players[seat].bot.name} ({players[seat].reference})" if seat in players
                  else f"{stored.bots[seat]} (stored moves)" for seat in (0, 1))
    shown = (names[0], names[1])
    if not args.json:
        console.print(f"arena replay {stored.series_id}: seat 0 {shown[0]}, seat 1 {shown[1]}; "
                      f"sandbox {args.sandbox}", markup=False, highlight=False, soft_wrap=True)
    addresses = {p.bot: p.address for p in players.values() if p.address is not None}
    try:
        needs_sandbox = any(p.address is None for p in players.values())
        if needs_sandbox:
            backend = registry.backend(args.sandbox)
            for player in players.values():
                if player.address is None:
                    backend.check_bot(player.bot.manifest)
        inner = registry.create(args.sandbox) if needs_sandbox else None
    except Exception as error:  # an unknown backend, a bot it cannot run, no Docker
        raise CliError(f"cannot use the {args.sandbox} sandbox: {error}", code=1) from None
    sandbox = WithHandStartedBots(inner, addresses)
    refs = tuple(players[seat].bot if seat in players else stored_moves_ref(stored, seat)
                 for seat in (0, 1))
    printer = None if args.json else HandPrinter(stored.spec((refs[0], refs[1])), shown,
                                                 console, show_play=args.show)
    try:
        report = replay_series(stored, {seat: p.bot for seat, p in players.items()},
                               sandbox if players else None, printer)
    except SandboxError as error:
        raise CliError(f"the {args.sandbox} sandbox failed: {error}", code=1) from None
    except ArenaOverload as overload:
        raise CliError(f"the replay was voided: the machine did not run a bot (arena "
                       f"overload): {overload}; try again when the machine has room",
                       code=1) from None
    finally:
        if inner is not None:
            inner.close()
    if args.json:
        print_json(report_data(stored, report, shown))
    else:
        console.rule("replay")
        for line in verdict_lines(stored, report, shown):
            console.print(line, markup=False, highlight=False, soft_wrap=True)
    return 0 if report.reproduced else 1


def add_replay_command(commands: Any, client_command: ClientCommand) -> None:
    """``arena replay``: its arguments, wired to ``cmd_replay``."""
    replay = client_command(
        commands, "replay", "play a stored series again on this machine (same deal, seats "
        "and limits): seats given a bot play it, the others their stored moves; reports "
        "the first move that differs from the stored one", cmd_replay)
    replay.add_argument("series", metavar="ID",
                        help="the series id (like 3-17), or a series/ID.json `arena export` "
                             "wrote")
    replay.add_argument("--bot", action="append", type=seat_folder, default=[],
                        metavar="SEAT=BOT", help="play seat 0 or 1 with this bot (a folder, "
                        "a registered bot of --db, or tcp:HOST:PORT); repeatable; a seat "
                        "without one plays its stored moves")
    replay.add_argument("--db", type=Path, default=None,
                        help="read the stored series from this database instead of the server")
    replay.add_argument("--sandbox", default=sandbox_registry.default_name(),
                        help=f"how the given bots run (default {sandbox_registry.default_name()})")
    replay.add_argument("--show", action="store_true",
                        help="print each hand's deal and every move too")
