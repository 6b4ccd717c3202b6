"""``arena league create | show | list | next | cancel``: leagues of divisions on a running
server, each division playing a season of its own per round, the top moving up and
the bottom moving down at the end of every round."""

from __future__ import annotations

import argparse
from typing import Any, Final

from hollywood.arena.v1 import arena_pb2
from rich.console import Console
from rich.table import Table
from rich.text import Text

from arena.cli.client import connect
from arena.cli.commands import ClientCommand, add_limit
from arena.cli.listing import every_league, whole_league
from arena.cli.output import print_json, to_json
from arena.cli.render import shown, status_name
from arena.cli.season_options import add_season_options, season_config_message
from arena.core import arguments

MARKS: Final = {arena_pb2.MOVEMENT_PROMOTED: ("▲", "green"),
                arena_pb2.MOVEMENT_RELEGATED: ("▼", "red")}
"""The movement marks, as on the website."""
MAX_MOVERS: Final = 10_000


def movers(text: str) -> int:
    """``--promote`` / ``--relegate``: 0 or more bots."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if not 0 <= value <= MAX_MOVERS:
        raise argparse.ArgumentTypeError(f"expected 0 to {MAX_MOVERS}, got {value}")
    return value


def division_format(text: str) -> tuple[int, str]:
    """``--division-format 2=swiss``: a division number and a format name."""
    number, separator, name = text.partition("=")
    if not separator or not name.strip():
        raise argparse.ArgumentTypeError(f"expected DIVISION=FORMAT, e.g. 2=swiss, got {text!r}")
    return arguments.positive_int(number.strip()), name.strip()


def add_league_commands(commands: Any, client_command: ClientCommand) -> None:
    """``arena league ...`` under ``commands``; ``client_command`` makes a command
    that talks to a server (the parser's)."""
    league = commands.add_parser("league", help="leagues of divisions with promotion "
                                                "and relegation")
    actions = league.add_subparsers(dest="league_command", required=True, metavar="ACTION")
    create = client_command(actions, "create", "create (and start) a league of divisions",
                            cmd_league_create)
    create.add_argument("league_name", metavar="NAME", nargs="?", default="",
                        help="the league's name (or --name)")
    entrants = create.add_mutually_exclusive_group(required=True)
    entrants.add_argument("--bots", nargs="+", metavar="BOT",
                          help="bot ids (name@version, or name = latest version)")
    entrants.add_argument("--all-active", action="store_true",
                          help="enter the newest active version of every bot")
    create.add_argument("--divisions", type=arguments.positive_int, required=True,
                        help="how many divisions (division 1 is the top)")
    create.add_argument("--promote", type=movers, required=True,
                        help="bots moving up from each division but the first per round")
    create.add_argument("--relegate", type=movers, required=True,
                        help="bots moving down from each division but the last per round")
    create.add_argument("--league-rounds", type=arguments.positive_int, default=1,
                        metavar="N", help="rounds of seasons played one after another "
                                          "(default 1; `league next` adds more)")
    create.add_argument("--division-format", type=division_format, action="append",
                        default=[], metavar="DIVISION=FORMAT",
                        help="a division's own format, e.g. 2=swiss (others: --format)")
    add_season_options(create)
    for action, text, handler in (
            ("show", "a league's rounds: division tables with ▲ promoted, ▼ relegated",
             cmd_league_show),
            ("next", "make and start the league's next round now", cmd_league_next),
            ("cancel", "cancel the league as a whole: its unfinished seasons, and every "
                       "round it would have made", cmd_league_cancel)):
        sub = client_command(actions, action, text, handler)
        sub.add_argument("league_id", type=arguments.positive_int, metavar="LEAGUE")
    add_limit(client_command(actions, "list", "list leagues", cmd_league_list), "leagues")


def show_league(args: argparse.Namespace, console: Console,
                league: arena_pb2.League) -> int:
    """``league`` as JSON (``--json``) or as its division tables."""
    if args.json:
        print_json(to_json(league))
    else:
        print_league(console, league)
    return 0


def cmd_league_create(args: argparse.Namespace, console: Console) -> int:
    request = arena_pb2.CreateLeagueRequest(
        name=args.league_name or args.name, bots=args.bots or [], all_active=args.all_active,
        config=season_config_message(args), divisions=args.divisions, promote=args.promote,
        relegate=args.relegate, rounds=args.league_rounds,
        division_formats=dict(args.division_format))
    with connect(args) as client:
        league = client.stub.CreateLeague(request, metadata=client.auth).league
    return show_league(args, console, league)


def cmd_league_show(args: argparse.Namespace, console: Console) -> int:
    with connect(args) as client:
        league = whole_league(client, args.league_id)
    return show_league(args, console, league)


def cmd_league_next(args: argparse.Namespace, console: Console) -> int:
    with connect(args) as client:
        league = client.stub.NextLeagueRound(
            arena_pb2.NextLeagueRoundRequest(league_id=args.league_id),
            metadata=client.auth).league
    if args.json:
        print_json(to_json(league))
        return 0
    console.print(f"league {league.id}: round {league.rounds[-1].round} started "
                  f"(seasons {', '.join(str(t.season_id) for t in league.rounds[-1].divisions)})")
    return 0


def cmd_league_cancel(args: argparse.Namespace, console: Console) -> int:
    with connect(args) as client:
        client.stub.CancelLeague(arena_pb2.CancelLeagueRequest(league_id=args.league_id),
                                 metadata=client.auth)
        league = whole_league(client, args.league_id)  # the answer holds its newest round
    return show_league(args, console, league)


def cmd_league_list(args: argparse.Namespace, console: Console) -> int:
    with connect(args) as client:
        leagues = every_league(client, args.limit)
    if args.json:
        print_json([to_json(league) for league in leagues])
        return 0
    for league in map(shown, leagues):
        cancelled = " (cancelled)" if league.cancelled_at else ""
        console.print(f"{league.id:>4}  {rule_text(league)}{cancelled}  {league.name}",
                      soft_wrap=True)
    return 0


def rule_text(league: arena_pb2.League) -> str:
    """E.g. "3 divisions, promote 2, relegate 2, 2 rounds"."""
    return (f"{league.divisions} divisions, promote {league.promote}, relegate "
            f"{league.relegate}, {league.planned_rounds} "
            f"round{'s' if league.planned_rounds != 1 else ''}")


def print_league(console: Console, league: arena_pb2.League) -> None:
    """The league's rule, then every round's division tables with their marks."""
    league = shown(league)
    console.print(Text.assemble((f"{league.name} (league {league.id})", "bold"),
                                f" — {rule_text(league)}, created {league.created_at}"))
    if league.cancelled_at:
        console.print(Text(f"cancelled {league.cancelled_at}: no further rounds", "red"))
    for league_round in league.rounds:
        for division in league_round.divisions:
            console.print(f"round {league_round.round}, division {division.division}: "
                          f"season {division.season_id}, {division.format}, "
                          f"{status_name(division.status)}", soft_wrap=True)
            console.print(division_table(division))


def division_table(division: arena_pb2.DivisionTable) -> Table:
    """A division's rows: rank, bot, series played and points, and its move."""
    table = Table()
    for header, justify in (("#", "right"), ("bot", "left"), ("played", "right"),
                            ("points", "right"), ("move", "center")):
        table.add_column(header, justify=justify)  # type: ignore[arg-type]
    for row in division.rows:
        mark, style = MARKS.get(row.movement, ("", ""))
        table.add_row(str(row.rank), row.bot_id, str(row.series_played),
                      f"{row.series_points:g}", Text(mark, style=style))
    return table
