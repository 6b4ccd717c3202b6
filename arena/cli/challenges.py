"""``arena challenge MINE OTHER [--series N] [--wait]``: an unrated challenge of
another bot by a version of one's own, played on the server when its turn comes;
``arena challenges [--bot NAME]``: challenges and their results (both owners, and
everyone, see them; the website's /challenges page shows the same)."""

from __future__ import annotations

import argparse
from typing import Any

from hollywood.arena.v1 import arena_pb2
from rich.console import Console
from rich.table import Table

from arena.cli.client import connect
from arena.cli.commands import ClientCommand, add_limit
from arena.cli.listing import every_challenge
from arena.cli.output import print_json, to_json
from arena.cli.render import shown, status_name
from arena.core import arguments


def add_challenge_commands(commands: Any, client_command: ClientCommand) -> None:
    """``arena challenge`` and ``arena challenges`` under ``commands``."""
    challenge = client_command(
        commands, "challenge", "challenge another bot with a version of yours: unrated "
        "series (in no rating, standings or ladder), played when their turn comes",
        cmd_challenge)
    challenge.add_argument("challenger", metavar="MINE",
                           help="your version: name@version (or name: its newest active one)")
    challenge.add_argument("opponent", metavar="OTHER",
                           help="the bot challenged: name or name@version")
    challenge.add_argument("--series", type=arguments.positive_int, default=2, metavar="N",
                           help="series to play, at most 20 (default 2: one duplicate pair)")
    challenge.add_argument("--wait", action="store_true",
                           help="wait until it has been played, then print its result")
    listing = client_command(commands, "challenges", "challenges and their results",
                             cmd_challenges)
    listing.add_argument("--bot", default="", metavar="NAME",
                         help="only those of this bot (name or name@version)")
    add_limit(listing, "challenges (the newest)")


def challenge_line(challenge: arena_pb2.Challenge) -> str:
    challenge = shown(challenge)
    return (f"challenge {challenge.season_id}: {challenge.challenger} vs "
            f"{challenge.opponent}, {challenge.series_done}/{challenge.series} series "
            f"played ({status_name(challenge.status)}): {challenge.challenger} won "
            f"{challenge.challenger_wins}, {challenge.opponent} won "
            f"{challenge.opponent_wins}, drawn {challenge.draws}; forfeits "
            f"{challenge.challenger_faults}-{challenge.opponent_faults}")


def cmd_challenge(args: argparse.Namespace, console: Console) -> int:
    with connect(args) as client:
        challenge = client.stub.CreateChallenge(arena_pb2.CreateChallengeRequest(
            challenger=args.challenger, opponent=args.opponent, series=args.series),
            metadata=client.auth).challenge
        if args.wait:
            for _ in client.stub.WatchSeason(arena_pb2.WatchSeasonRequest(
                    season_id=challenge.season_id)):
                pass  # to the stream's end: the challenge's season is over
            [challenge] = [found for found in client.stub.ListChallenges(
                arena_pb2.ListChallengesRequest(bot=challenge.challenger)).challenges
                if found.season_id == challenge.season_id]
    if args.json:
        print_json(to_json(challenge))
        return 0
    console.print(challenge_line(challenge), markup=False, highlight=False, soft_wrap=True)
    console.print(f"its series: {challenge.season_id}-0 to "
                  f"{challenge.season_id}-{challenge.series - 1} (`arena series show ID`, "
                  "`arena replay ID`)", markup=False, highlight=False, soft_wrap=True)
    return 0


def cmd_challenges(args: argparse.Namespace, console: Console) -> int:
    with connect(args) as client:
        challenges = every_challenge(client, args.bot, args.limit)
    if args.json:
        print_json([to_json(challenge) for challenge in challenges])
        return 0
    table = Table(title="challenges (unrated)")
    for column in ("id", "author", "challenger", "opponent", "played", "status", "result"):
        table.add_column(column)
    for challenge in map(shown, challenges):
        table.add_row(str(challenge.season_id), challenge.author,
                      challenge.challenger, challenge.opponent,
                      f"{challenge.series_done}/{challenge.series}",
                      status_name(challenge.status),
                      f"{challenge.challenger_wins}-{challenge.opponent_wins}-"
                      f"{challenge.draws}")
    console.print(table)
    return 0
