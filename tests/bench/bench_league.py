"""A 2-round league of 4 Docker bots, from cold, through the arena server's API
(issue 41; plain script, `make bench` runs it). Needs a Docker engine.

The sample bots greedy, random, shark and js-greedy (their images built before
timing) in a league of 2 divisions, 2 rounds (a season per division per round,
both divisions at once, ``--concurrency`` series at once in each; the league
moves bots between rounds), every division's season the default round robin of
``--series-per-pair`` series. The server keeps its Docker sandbox across seasons
(``arena.sandbox.shelf``): the containers of round 1 serve round 2. Prints:

1. containers started over the whole league (``arena.sandbox.tally``: every start,
   spares started ahead included) and in round 2 alone, against the target of one
   per version (4). A container is never dealt the same deal twice
   (``arena.sandbox.reuse``), so the two halves of a duplicate pair (one deal,
   seats swapped: the default ``series_per_pair`` of 2) need two containers of each
   bot: with duplicate pairs the floor is two per version, whatever is kept;
2. the arena's share of the league's wall time: 1 - the bots' thinking / (wall x
   series played at once), everything outside the bots' Decide calls (starts,
   stops, handshakes, engine, storage, moving to round 2).

``python tests/bench/bench_league.py [--series-per-pair N] [--concurrency N] [--max-hands N]``.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from figures import report  # noqa: E402
from hollywood.arena.v1 import arena_pb2  # noqa: E402

from arena.cli.client import ArenaClient  # noqa: E402
from arena.cli.submit import upload_all  # noqa: E402
from arena.sandbox.images import build_bot_image, prepare_base  # noqa: E402
from arena.sandbox.tally import TALLY  # noqa: E402
from arena.server.app import start_server  # noqa: E402

BOTS = ("greedy", "random", "shark", "js-greedy")
ROUNDS = 2
DIVISIONS = 2
STARTS_TARGET = len(BOTS)
SHARE_TARGET = 15.0
FINISHED = "SEASON_STATUS_FINISHED"
STOPPED = ("SEASON_STATUS_FAILED", "SEASON_STATUS_CANCELLED")


def season_ids(client: ArenaClient, league_id: int) -> list[list[int]]:
    league = client.stub.GetLeague(arena_pb2.GetLeagueRequest(league_id=league_id)).league
    return [[table.season_id for table in played.divisions] for played in league.rounds]


def status_of(client: ArenaClient, season_id: int) -> str:
    season = client.stub.GetSeason(arena_pb2.GetSeasonRequest(season_id=season_id)).season
    return arena_pb2.SeasonStatus.Name(season.status)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--series-per-pair", type=int, default=2)
    parser.add_argument("--concurrency", type=int, default=1,
                        help="series at once in each division (both divisions play at once)")
    parser.add_argument("--max-hands", type=int, default=200)
    options = parser.parse_args()
    folders = [ROOT / "sample_bots" / name for name in BOTS]
    prepare_base()
    for folder in folders:
        build_bot_image(folder)
    loads = [os.getloadavg()[0]]
    with tempfile.TemporaryDirectory(prefix="bench-league-") as scratch:
        server = start_server(Path(scratch) / "arena.db", port=0)
        try:
            with ArenaClient(server.address, server.token) as client:
                ids = [response.bot.id for response in upload_all(client, folders)]
                starts_before = TALLY.container_starts
                begun = time.perf_counter()
                league = client.stub.CreateLeague(arena_pb2.CreateLeagueRequest(
                    bots=ids, divisions=DIVISIONS, rounds=ROUNDS, promote=1, relegate=1,
                    config=arena_pb2.SeasonConfig(
                        series_per_pair=options.series_per_pair, max_hands=options.max_hands,
                        concurrency=options.concurrency, seed=7)),
                    metadata=client.auth).league
                round_two_starts = starts_before
                while True:
                    rounds = season_ids(client, league.id)
                    statuses = [status_of(client, s) for played in rounds for s in played]
                    if any(status in STOPPED for status in statuses):
                        print(f"a season stopped: {statuses}")
                        return 1
                    if len(rounds) == ROUNDS and all(s == FINISHED for s in statuses):
                        break
                    if len(rounds) < ROUNDS:
                        round_two_starts = TALLY.container_starts
                    loads.append(os.getloadavg()[0])
                    time.sleep(0.1)
                wall = time.perf_counter() - begun
                starts = TALLY.container_starts - starts_before
                in_round_two = TALLY.container_starts - round_two_starts
                think = series = 0.0
                for season_id in (s for played in rounds for s in played):
                    for played_series in client.stub.ListSeries(
                            arena_pb2.ListSeriesRequest(season_id=season_id)).series:
                        series += 1
                        think += sum(played_series.think_seconds)
        finally:
            server.stop(grace=None)
    at_once = DIVISIONS * options.concurrency
    share = (1 - think / (wall * at_once)) * 100
    load = f"load {min(loads):.1f}-{max(loads):.1f} on {os.cpu_count()} CPUs"
    print(f"league of {len(BOTS)} Docker bots, {DIVISIONS} divisions, {ROUNDS} rounds, "
          f"{options.series_per_pair} series a pair, {at_once} series at once: {int(series)} "
          f"series in {wall:.1f} s, bots thinking {think:.1f} s ({load})")
    print(f"  containers started: {starts} in all, {in_round_two} in round 2 (target <= "
          f"{STARTS_TARGET}, one per version; duplicate pairs need two per version)")
    print(f"  arena share of the league's wall time: {share:.1f} % (target <= {SHARE_TARGET} %)")
    report("2-round league of 4 Docker bots: container starts", starts, STARTS_TARGET,
           unit="", conditions=f"{in_round_two} in round 2; {options.series_per_pair} series "
           f"a pair; {load}")
    report("2-round league of 4 Docker bots: arena share of wall time", share, SHARE_TARGET,
           unit="%", conditions=f"{int(series)} series, {at_once} at once, {load}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
