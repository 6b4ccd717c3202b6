"""The read commands: ``arena standings``, ``arena watch`` (a season live) and
``arena series show | list``."""

from __future__ import annotations

import argparse
import json
import sys

from hollywood.arena.v1 import arena_pb2
from rich.console import Console
from rich.text import Text

from arena.cli.client import connect
from arena.cli.output import print_json, to_json
from arena.cli.render import LiveSeasonView, describe_series, print_standings, shown
from arena.cli.render_statistics import los_table
from arena.cli.watching import ResilientWatch, say_retry
from arena.server.story import NO_HAND_PLAYED


def cmd_standings(args: argparse.Namespace, console: Console) -> int:
    request = arena_pb2.GetStandingsRequest(
        season_id=args.season, page_size=args.top or args.page_size, page_token=args.page,
        bot_ids=args.bot, recompute=args.recompute, include_los=args.los)
    with connect(args) as client:
        response = client.stub.GetStandings(
            request, metadata=client.auth if args.recompute else ())
    standings = response.standings
    if args.json:
        data = to_json(standings)
        # The cursor of the next page ("" on the last one), as `series list --json` has it.
        data["next_page_token"] = "" if args.top else response.next_page_token
        print_json(data)
    else:
        print_standings(console, standings)
        if args.los:
            console.print(los_table(standings))
    if response.next_page_token and not args.top:
        _next_page_hint(console, args, "standings", response.next_page_token)
    return 0


def _next_page_hint(console: Console, args: argparse.Namespace, command: str,
                    token: str) -> None:
    """Say how to get the next page (on stderr with --json, so stdout stays JSON; the
    JSON carries the cursor itself as ``next_page_token``)."""
    season = f" --season {args.season}" if args.season else ""
    text = f"next page: arena {command}{season} --page-size {args.page_size} --page {token}"
    if args.json:
        print(text, file=sys.stderr)
    else:
        console.print(text, markup=False, highlight=False)


def cmd_watch(args: argparse.Namespace, console: Console) -> int:
    """Follow a season live; across server restarts (``arena.cli.watching``)."""
    with connect(args) as client:
        stream = ResilientWatch(client.stub, arena_pb2.WatchSeasonRequest(
            season_id=args.season, top=args.top, bot_ids=args.bot), on_retry=say_retry)
        if args.json:
            for message in stream:  # one JSON object per line, as they arrive
                print(json.dumps(to_json(message)), flush=True)
            return 0
        LiveSeasonView(console).follow(stream)
    return 0


def cmd_series_show(args: argparse.Namespace, console: Console) -> int:
    with connect(args) as client:
        response = client.stub.GetSeries(arena_pb2.GetSeriesRequest(series_id=args.series_id))
    if args.json:
        data = to_json(response)
        data["event_log"] = json.loads(response.event_log_json or "[]")
        del data["event_log_json"]
        print_json(data)
        return 0
    response = shown(response)
    series = response.series
    console.print(Text.assemble(
        (f"Series {series.series_id}", "bold"), f" (season {series.season_id}): seat 0 "
        f"{series.seat0_bot}, seat 1 {series.seat1_bot}; "
        + (f"seed {series.seed} (nonce {series.seed_nonce}), " if series.seed_revealed
           else "seed not revealed yet, ") + f"commitment {series.seed_commitment}"
        f"{', seats swapped' if series.swap_seats else ''}"))
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
        console.print(f"the bot's stderr is its owner's: `arena series logs {series.series_id}`",
                      markup=False, highlight=False)
    return 0


def cmd_series_list(args: argparse.Namespace, console: Console) -> int:
    bot = getattr(args, "bot", "")
    with connect(args) as client:
        response = client.stub.ListSeries(arena_pb2.ListSeriesRequest(
            season_id=args.season, page_size=0 if bot else args.page_size,
            page_token="" if bot else args.page))
    if bot:  # the whole season read, this bot's series kept: no further page
        kept = [item for item in response.series
                if _plays(item.seat0_bot, bot) or _plays(item.seat1_bot, bot)]
        del response.series[:]
        response.series.extend(kept)
    if args.json:  # the reply as it is: the series and, with more to come, the cursor
        print_json(to_json(response))
    else:
        for item in map(shown, response.series):
            text = describe_series(item) if item.played else (
                f"{item.series_id} {item.seat0_bot} vs {item.seat1_bot} (pending)")
            console.print(text, markup=False, highlight=False)
    if response.next_page_token:
        _next_page_hint(console, args, "series list", response.next_page_token)
    return 0


def _plays(bot_id: str, wanted: str) -> bool:
    """Whether version ``bot_id`` (name@version) is ``wanted`` (a name or name@version)."""
    return bot_id == wanted or bot_id.partition("@")[0] == wanted
