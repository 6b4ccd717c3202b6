"""``arena season create | start | cancel | show | list``: seasons on a running
server (``season run``, which brings its own server, is in ``arena.cli.local``);
``arena season settings``: every setting's table, from the declarations."""

from __future__ import annotations

import argparse
from typing import Any

from hollywood.arena.v1 import arena_pb2
from rich.console import Console
from rich.text import Text

from arena.cli.client import connect
from arena.cli.commands import add_limit
from arena.cli.listing import every_season, whole_standings
from arena.cli.output import print_json, to_json
from arena.cli.render import (
    LIVE_TOP_ROWS,
    LiveSeasonView,
    print_standings,
    seed_text,
    shown,
    status_name,
)
from arena.cli.season_options import (
    format_settings_table,
    season_config_message,
    settings_table,
)
from arena.cli.watching import ResilientWatch, say_retry


def add_list_and_settings(seasons: Any, client_command: Any) -> None:
    """``arena season list`` (a client of the server) and ``arena season settings``
    (no server needed)."""
    add_limit(client_command(seasons, "list", "list seasons", cmd_season_list), "seasons")
    seasons.add_parser(
        "settings", help="every season setting, the common ones then each format's own, as "
        "Markdown tables made from their declarations (no server needed)"
    ).set_defaults(handler=cmd_season_settings)


def cmd_season_settings(args: argparse.Namespace, console: Console) -> int:
    """Print the settings tables in Markdown: the common settings (as docs/arena.md
    has them), then each format's own (docs/formats.md points here for them)."""
    print("## Common settings\n\n" + settings_table() + "\n## Settings of each format\n\n"
          + format_settings_table(), end="")
    return 0


def cmd_season_create(args: argparse.Namespace, console: Console) -> int:
    request = arena_pb2.CreateSeasonRequest(
        bots=args.bots or [], config=season_config_message(args), name=args.name,
        hold=args.hold, all_active=args.all_active)
    with connect(args) as client:
        season = client.stub.CreateSeason(request, metadata=client.auth).season
        if args.json:
            print_json(to_json(season))
        else:
            console.print(f"season {season.id} created: {season.series_total} series "
                          f"({status_name(season.status)})")
        if args.watch:
            stream = ResilientWatch(client.stub, arena_pb2.WatchSeasonRequest(
                season_id=season.id, top=LIVE_TOP_ROWS), on_retry=say_retry)
            LiveSeasonView(console).follow(stream, transient=True)
            print_standings(console, whole_standings(client, season.id))
    return 0


def cmd_season_start(args: argparse.Namespace, console: Console) -> int:
    with connect(args) as client:
        season = client.stub.StartSeason(
            arena_pb2.StartSeasonRequest(season_id=args.season_id), metadata=client.auth).season
    _print_season_change(season, args.json, console)
    return 0


def cmd_season_cancel(args: argparse.Namespace, console: Console) -> int:
    """Cancel, wait for the series in flight to finish (they are stored), then say
    where the season stands: its status, series finished and planned, and how many
    of the series running at the cancel finished."""
    with connect(args) as client:
        at_cancel = client.stub.CancelSeason(
            arena_pb2.CancelSeasonRequest(season_id=args.season_id), metadata=client.auth).season
        season = at_cancel
        if status_name(at_cancel.status) == "running" and not args.no_wait:
            if not args.json:
                console.print(f"season {at_cancel.id}: cancel requested; waiting for the "
                              "series in flight to finish (Ctrl-C stops waiting, not the "
                              "cancel)")
            for _ in ResilientWatch(  # ends once the season has stopped
                    client.stub, arena_pb2.WatchSeasonRequest(season_id=at_cancel.id, top=1),
                    on_retry=say_retry):
                pass
            season = client.stub.GetSeason(
                arena_pb2.GetSeasonRequest(season_id=at_cancel.id)).season
    if args.json:
        print_json(to_json(season))
    else:
        console.print(cancel_report(at_cancel, season), soft_wrap=True)
    return 0


def cancel_report(at_cancel: arena_pb2.Season, season: arena_pb2.Season) -> str:
    """E.g. ``season 3 cancelled: 5/12 series finished, 7 not played; the series in
    flight at the cancel finished and were stored (2)``."""
    status = status_name(season.status)
    text = (f"season {season.id} {status}: {season.series_done}/{season.series_total} "
            f"series finished, {season.series_total - season.series_done} not played")
    if status == "running":  # --no-wait, or a cancel that does not end the season
        return text + "; the series in flight finish and are stored, then it ends cancelled"
    finished_in_flight = season.series_done - at_cancel.series_done
    if status_name(at_cancel.status) != "running":
        return text + "; no series was running"
    return text + (f"; {finished_in_flight} series in flight at the cancel finished and "
                   f"{'was' if finished_in_flight == 1 else 'were'} stored")


def _print_season_change(season: arena_pb2.Season, as_json: bool, console: Console) -> None:
    if as_json:
        print_json(to_json(season))
    else:
        console.print(f"season {season.id}: {status_name(season.status)}, "
                      f"{season.series_done}/{season.series_total} series played")


def cmd_season_show(args: argparse.Namespace, console: Console) -> int:
    with connect(args) as client:
        season = client.stub.GetSeason(arena_pb2.GetSeasonRequest(season_id=args.season_id)).season
        standings = client.stub.GetStandings(
            arena_pb2.GetStandingsRequest(season_id=season.id)).standings
    if args.json:
        print_json({"season": to_json(season), "standings": to_json(standings)})
        return 0
    season = shown(season)
    config = season.config
    overrides = ", ".join(f"{k}={v}" for k, v in sorted(config.profile_overrides.items()))
    title = season.name if season.name == f"season {season.id}" else (
        f"{season.name} (season {season.id})")
    console.print(Text.assemble(
        (title, "bold"), f" — {status_name(season.status)}, {season.series_done}/"
        f"{season.series_total} series, created {season.created_at}"))
    console.print(f"format {season.format_summary or config.format}")
    console.print(f"profile {config.profile}{' [' + overrides + ']' if overrides else ''}, "
                  f"{config.series_per_pair} series per pair, max {config.max_hands} hands, "
                  f"sandbox {config.sandbox_backend}, concurrency {config.concurrency}, "
                  f"limits startup {config.startup_seconds:g} s / decision "
                  f"{config.decision_seconds:g} s / reserve {config.reserve_seconds:g} s, "
                  f"{seed_text(config.seed)}")
    if season.series_voided:
        console.print(f"{season.series_voided} series voided for arena overload (the machine "
                      "did not run a bot; no bot was charged; played again)")
    if season.error:
        console.print(f"error: {season.error}", style="red")
    if season.outcomes_refused:
        console.print(f"outcomes refused: {season.outcomes_refused} (their logs did not bear "
                      "them out; the workers were excluded and the series played again; "
                      "the server's log names them)", style="red")
    print_standings(console, standings)
    return 0


def cmd_season_list(args: argparse.Namespace, console: Console) -> int:
    with connect(args) as client:
        seasons = every_season(client, args.limit)
    if args.json:
        print_json([to_json(season) for season in seasons])
        return 0
    for season in map(shown, seasons):
        console.print(f"{season.id:>4}  {status_name(season.status):<9} "
                      f"{season.series_done:>5}/{season.series_total:<5} "
                      f"{season.config.format:<11} {season.name}  "
                      f"({', '.join(season.bot_ids)})")
    return 0
