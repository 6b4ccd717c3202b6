"""A 2-round league of 4 Docker bots, from cold, through the arena server's API
(issue 41; plain script, `make bench` runs it). Needs a Docker engine.

The sample bots greedy, random, shark and js-greedy (their images built before
timing) in a league of 2 divisions, 2 rounds (a season per division per round,
both divisions at once, ``--concurrency`` series at once in each; the league
moves bots between rounds), every division's season the default round robin of
``--series-per-pair`` series. The server keeps its Docker sandbox across seasons
(``arena.sandbox.shelf``): the containers of round 1 serve round 2. A process never
plays both halves of a duplicate pair (one deal, seats swapped; issue 43): the
Docker backend renews the version's container for the second half (a restart: a
fresh process, ``arena.sandbox.container_renewal``), so one container serves a
version. With ``--compare`` (the default) the same league is played again, side by
side in the run, by the backend that starts a second container instead
(``docker_sandbox(renew=False)``). Prints, for each:

1. containers started and bot processes started (a start or a renewal), over the
   whole league and in round 2 alone, against the target of one container per
   version (4);
2. the arena's share of the league's wall time: 1 - the bots' thinking / (wall x
   series meant to play at once), everything outside the bots' Decide calls
   (starts, renewals, handshakes, engine, storage, moving to round 2), beside the
   load and the series that really played at once (the sum of the series' wall
   over the league's: admission plays fewer at once while the machine has no idle
   core, ``arena.sandbox.admission``), and the share at that number;
3. where the CPU went (``league_cpu``): the arena's process, Docker's daemons, the
   bot containers, and the arena's share of it with and without the daemons. On a
   machine other work keeps saturated the wall share says more about that work
   than about the arena; the CPU share does not depend on it.

``python tests/bench/bench_league.py [--series-per-pair N] [--concurrency N]
[--max-hands N] [--no-compare]``.
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import league_cpu  # noqa: E402
from figures import report  # noqa: E402
from hollywood.arena.v1 import arena_pb2  # noqa: E402

from arena.cli.client import ArenaClient  # noqa: E402
from arena.cli.submit import upload_all  # noqa: E402
from arena.sandbox import reuse  # noqa: E402
from arena.sandbox.docker import OWNER_LABEL, docker_client  # noqa: E402
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
SAMPLE_S = 0.1
"""How often the bots' CPU counters are read (files) while the league plays."""
LIST_EVERY = 10
"""Samples between two listings of the containers (a Docker call)."""


@dataclass
class League:
    """What one league's run measured."""

    wall: float
    series: int
    think: float
    series_wall: float
    containers: int
    renewals: int
    containers_round_two: int
    renewals_round_two: int
    arena_cpu: float
    daemons_cpu: float
    bots_cpu: float
    loads: list[float]

    @property
    def processes(self) -> int:
        return self.containers + self.renewals

    def share(self, at_once: int) -> float:
        return (1 - self.think / (self.wall * at_once)) * 100

    def cpu_share(self, daemons: bool) -> float:
        arena = self.arena_cpu + (self.daemons_cpu if daemons else 0.0)
        return arena / (arena + self.bots_cpu) * 100

    @property
    def load(self) -> str:
        return f"load {min(self.loads):.1f}-{max(self.loads):.1f} on {os.cpu_count()} CPUs"


def seasons(client: ArenaClient, league_id: int) -> list[dict[int, str]]:
    """Each round's seasons and their status."""
    league = client.stub.GetLeague(arena_pb2.GetLeagueRequest(league_id=league_id)).league
    return [{table.season_id: arena_pb2.SeasonStatus.Name(table.status)
             for table in played.divisions} for played in league.rounds]


@contextmanager
def docker_backend(renew: bool) -> Iterator[None]:
    """The registry's ``docker`` backend renewing containers, or starting another."""
    made = reuse.docker_sandbox
    reuse.docker_sandbox = functools.partial(made, renew=renew)  # type: ignore[assignment]
    try:
        yield
    finally:
        reuse.docker_sandbox = made  # type: ignore[assignment]


def play_league(folders: list[Path], options: argparse.Namespace, renew: bool) -> League:
    """One league from cold (a new server: no container kept), measured."""
    loads = [os.getloadavg()[0]]
    bots_cpu = league_cpu.BotsCpu(docker_client(), OWNER_LABEL)
    with docker_backend(renew), tempfile.TemporaryDirectory(prefix="bench-league-") as scratch:
        server = start_server(Path(scratch) / "arena.db", port=0)
        # Asking the server whether the league is over costs its CPU: it is asked
        # only when one of its seasons ended (the in-process manager's hook, before
        # the league's own, which makes the next round: so the counts at round 1's
        # last season's end are those before round 2).
        ended = threading.Event()
        counts_at_ends: list[tuple[int, int]] = []

        def season_ended(season_id: int) -> None:
            counts_at_ends.append((TALLY.container_starts, TALLY.container_renewals))
            ended.set()

        server.manager.finished_hooks.insert(0, season_ended)
        try:
            with ArenaClient(server.address, server.token) as client:
                ids = [response.bot.id for response in upload_all(client, folders)]
                starts, renewals = TALLY.container_starts, TALLY.container_renewals
                daemons, own = league_cpu.daemons(), os.times()
                begun = time.perf_counter()
                league = client.stub.CreateLeague(arena_pb2.CreateLeagueRequest(
                    bots=ids, divisions=DIVISIONS, rounds=ROUNDS, promote=1, relegate=1,
                    config=arena_pb2.SeasonConfig(
                        series_per_pair=options.series_per_pair, max_hands=options.max_hands,
                        concurrency=options.concurrency, seed=7)),
                    metadata=client.auth).league
                samples = 0
                while True:
                    if samples % LIST_EVERY == 0:
                        bots_cpu.list_containers()
                    bots_cpu.sample()
                    samples += 1
                    loads.append(os.getloadavg()[0])
                    if not ended.wait(SAMPLE_S):
                        continue
                    wall = time.perf_counter() - begun
                    ended.clear()
                    rounds = seasons(client, league.id)
                    statuses = [status for played in rounds for status in played.values()]
                    if any(status in STOPPED for status in statuses):
                        raise SystemExit(f"a season stopped: {statuses}")
                    if len(rounds) == ROUNDS and all(s == FINISHED for s in statuses):
                        break
                round_two = counts_at_ends[DIVISIONS - 1]
                used = os.times()
                bots_cpu.list_containers()
                bots_cpu.sample()
                daemons_cpu = league_cpu.daemons_used(daemons, league_cpu.daemons())
                think = series_wall = 0.0
                series = 0
                for season_id in (s for played in rounds for s in played):
                    for played_series in client.stub.ListSeries(
                            arena_pb2.ListSeriesRequest(season_id=season_id)).series:
                        series += 1
                        think += sum(played_series.think_seconds)
                        series_wall += played_series.wall_seconds
        finally:
            server.stop(grace=None)
    return League(
        wall=wall, series=series, think=think, series_wall=series_wall,
        containers=TALLY.container_starts - starts, renewals=TALLY.container_renewals - renewals,
        containers_round_two=TALLY.container_starts - round_two[0],
        renewals_round_two=TALLY.container_renewals - round_two[1],
        arena_cpu=used.user + used.system - own.user - own.system,
        daemons_cpu=daemons_cpu, bots_cpu=bots_cpu.total, loads=loads)


def describe(title: str, run: League, at_once: int) -> None:
    print(f"{title}: {run.series} series in {run.wall:.1f} s, bots thinking {run.think:.1f} s, "
          f"{run.series_wall / run.wall:.2f} series playing at once on average "
          f"({at_once} meant; {run.load})")
    print(f"  containers started: {run.containers} in all, {run.containers_round_two} in "
          f"round 2 (target <= {STARTS_TARGET}, one per version); bot processes started: "
          f"{run.processes} ({run.renewals} in renewed containers; "
          f"{run.containers_round_two + run.renewals_round_two} in round 2)")
    played = max(1.0, run.series_wall / run.wall)
    print(f"  arena share of the league's wall time: {run.share(at_once):.1f} % "
          f"(target <= {SHARE_TARGET} %); {(1 - run.think / (run.wall * played)) * 100:.1f} % "
          f"at the {played:.2f} series at once admission allowed")
    print(f"  CPU: arena process {run.arena_cpu:.1f} s, Docker daemons {run.daemons_cpu:.1f} s "
          f"(shared with the machine's other Docker work), bot containers "
          f"{run.bots_cpu:.1f} s (their start-ups included): arena share of the CPU "
          f"{run.cpu_share(daemons=False):.1f} %, {run.cpu_share(daemons=True):.1f} % "
          f"with the daemons")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--series-per-pair", type=int, default=2)
    parser.add_argument("--concurrency", type=int, default=1,
                        help="series at once in each division (both divisions play at once)")
    parser.add_argument("--max-hands", type=int, default=200)
    parser.add_argument("--compare", action=argparse.BooleanOptionalAction, default=True,
                        help="also play the league with two containers per version")
    options = parser.parse_args()
    folders = [ROOT / "sample_bots" / name for name in BOTS]
    prepare_base()
    for folder in folders:
        build_bot_image(folder)
    at_once = DIVISIONS * options.concurrency
    warm_up = argparse.Namespace(**{**vars(options), "max_hands": 1})
    play_league(folders, warm_up, renew=True)  # the process's first league pays imports
    kept = play_league(folders, options, renew=True)
    shape = (f"league of {len(BOTS)} Docker bots, {DIVISIONS} divisions, {ROUNDS} rounds, "
             f"{options.series_per_pair} series a pair")
    describe(f"{shape}, one container per version (renewed between a pair's halves)",
             kept, at_once)
    if options.compare:
        describe(f"{shape}, two containers per version (the same league, after it)",
                 play_league(folders, options, renew=False), at_once)
    report("2-round league of 4 Docker bots: container starts", kept.containers,
           STARTS_TARGET, unit="", conditions=f"{kept.processes} bot processes started "
           f"({kept.renewals} renewals); {options.series_per_pair} series a pair; {kept.load}")
    report("2-round league of 4 Docker bots: arena share of wall time", kept.share(at_once),
           SHARE_TARGET, unit="%", conditions=f"{kept.series} series, {at_once} meant at once, "
           f"{kept.series_wall / kept.wall:.2f} played at once; {kept.load}")
    report("2-round league of 4 Docker bots: arena share of CPU", kept.cpu_share(daemons=True),
           SHARE_TARGET, unit="%", conditions=f"arena {kept.arena_cpu:.1f} s + Docker daemons "
           f"{kept.daemons_cpu:.1f} s (shared) against bots {kept.bots_cpu:.1f} s; {kept.load}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
