"""Sandbox benchmark (plain script; `make bench` runs it). Needs a Docker engine.

Prints, for the sample bots in hardened containers:

1. container start to first answered handshake (median of 10; stop+remove too);
2. decisions per second between two greedy bots in containers (``play_match``);
3. series per second, each series a full ``run_series`` (containers started and
   removed every time);
4. the arena's time per decision (engine + request + validation + notifications)
   against a bare ``Decide`` round trip over the same container socket (target <= 2x);
5. the CPU one bot container costs, started to its first answered handshake and
   stopped (greedy, Python; js-greedy, Node): the whole machine's (from /proc/stat,
   so run it on an idle machine), the Docker daemon's (dockerd + containerd), the
   bot's own process (its container's cgroup) and the arena's. This is the floor
   under any schedule of series: a warm pool can move a container's start off a
   series' path, never make it free, so on a machine whose cores are all busy a
   season's share outside the bots' thinking cannot fall below what its containers
   cost against what its bots think (docs/sandbox.md, "What a container costs").
6. the arena's share of a 4-bot Docker season's wall time (the sample bots greedy,
   random, shark and js-greedy, a round robin, 2 series at once): 1 - the bots'
   thinking / (season wall x series at once), which counts everything outside the
   bots' Decide calls, containers' starts and stops included. Three ways, seasons
   alternating (--rounds) so that the machine's load falls on all alike: fresh
   containers (``DockerSandbox``), the warm pool (``WarmPool``, the strict mode of
   ``--fresh-container-per-series``) and reuse (``ReusePool``, the ``docker``
   backend's default). Reuse is measured twice: the season as it comes (its bots'
   first containers started within it, the old figure) and the same bots' season
   played again, with another seed (a kept container is never dealt the same cards
   twice), on the containers the first left up ("reuse, kept": the share a long
   season tends to, where each container's first start and last stop are spread
   over many series; target <= 15 %), and a longer season from a cold start
   ("reuse-long", --long-series-per-pair, 6 series a pair: 36 series), where the
   same first starts weigh less. Each reuse row prints the containers its season
   started (the warm pool's starts on a series' path and its spares): 8 from a
   cold start for 4 bots at 2 at once, two per bot (the halves of a duplicate pair
   go to two containers of each bot, issue 43; 6-8 before, the runner putting series
   with free bots first, ``arena.season.play_order``), none on kept containers.
   Printed with the load average and the share of the machine the host took
   (steal).

   2026-12-02 15:57-16:22 UTC, load 2.8-8.2 (other helpers' benchmarks), steal
   0-1 %, six runs: reuse from a cold start 26.7-31.3 % (7 containers; 29.6 % and
   8 before), kept 10.1-14.5 % (none), 36 series from a cold start 16.5-20.0 % (7-8
   containers).
   A 12-series cold season cannot reach 15 % here: its first 4 starts alone (two
   per slot, 0.5-1 s each under load) leave both slots idle for 1-2 s of a
   10-14 s season (docs/sandbox.md, "From a cold start").

Options: --season-only (part 6 alone), --rounds N (1), --series-per-pair N (2),
--long-series-per-pair N (6; 0 leaves that season out).
"""

from __future__ import annotations

import os
import resource
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from figures import report  # noqa: E402

from arena.core.limits import TimeLimits  # noqa: E402
from arena.core.series import BotRef, SeriesSpec  # noqa: E402
from arena.match import protocol  # noqa: E402
from arena.match.botclient import BotClient  # noqa: E402
from arena.match.loop import play_match  # noqa: E402
from arena.match.runner import run_series  # noqa: E402
from arena.sandbox.docker import DockerSandbox  # noqa: E402
from engine.profiles import get_profile  # noqa: E402
from engine.series import Series  # noqa: E402

LIMITS = TimeLimits(startup_s=20.0, decision_s=1.0, reserve_s=30.0)
GREEDY = BotRef.from_folder(ROOT / "sample_bots" / "greedy")


def start_to_handshake(sandbox: DockerSandbox, runs: int = 10) -> None:
    starts, stops = [], []
    for _ in range(runs):
        begun = time.perf_counter()
        bot = sandbox.start(GREEDY, series_id="bench-start")
        bot.wait_ready(20)
        client = BotClient.connect(bot.target, startup_timeout=20)
        client.handshake(20)
        starts.append(time.perf_counter() - begun)
        begun = time.perf_counter()
        bot.stop()
        stops.append(time.perf_counter() - begun)
        client.close()  # after the stop: closing towards a live bot lingers ~0.2 s
    print(f"container start -> first answered handshake: median {statistics.median(starts):.3f} s"
          f" (min {min(starts):.3f}, max {max(starts):.3f}; n={runs})")
    print(f"container stop + remove:                      median {statistics.median(stops):.3f} s")


def decisions_and_overhead(sandbox: DockerSandbox, series_count: int = 5) -> None:
    bots = [sandbox.start(GREEDY, series_id="bench-play", seat=seat) for seat in (0, 1)]
    clients: list[BotClient] = []
    try:
        for bot in bots:
            bot.wait_ready(20)
            client = BotClient.connect(bot.target, startup_timeout=20)
            client.handshake(20)
            clients.append(client)
        decisions = 0
        seconds = 0.0
        for seed in range(series_count):
            result = play_match((clients[0], clients[1]), Series(seed, max_hands=200), LIMITS,
                                series_id=f"bench-{seed}")
            decisions += result.decisions
            seconds += result.outcome.wall_seconds
        per_decision = seconds / decisions
        print(f"decisions per second (greedy v greedy, containers): {decisions / seconds:,.0f}"
              f" ({decisions} decisions in {seconds:.2f} s)")

        # Bare round trip: the same DecideRequest sent again and again on the same socket.
        series = Series(1)
        seat = series.current_player
        assert seat is not None
        request = protocol.decide_request(
            series.observation(seat), series.legal_actions(),
            protocol.profile_to_proto(series.profile, 200), series_id="bench",
            decision_number=1, decision_s=1.0, reserve_s=30.0,
        )
        stub = clients[seat]._stub
        for _ in range(50):
            stub.Decide(request, timeout=5)
        calls = 1000
        begun = time.perf_counter()
        for _ in range(calls):
            stub.Decide(request, timeout=5)
        bare = (time.perf_counter() - begun) / calls
        print(f"bare Decide round trip over the container socket: {bare * 1e6:,.0f} us")
        print(f"arena time per decision (play_match):           {per_decision * 1e6:,.0f} us"
              f"  -> overhead {per_decision / bare:.2f}x the bare round trip (target <= 2x)")
        report("container decision, arena time / bare Decide round trip", per_decision / bare,
               2.0, conditions=f"{per_decision * 1e6:.0f} against {bare * 1e6:.0f} us")
    finally:
        for bot in bots:
            bot.stop()
        for client in clients:
            client.close()


def series_per_second(sandbox: DockerSandbox, count: int = 5) -> None:
    begun = time.perf_counter()
    hands = 0
    for index in range(count):
        spec = SeriesSpec(f"bench-series-{index}", index, get_profile("friendly"), 200, False,
                          (GREEDY, GREEDY), LIMITS)
        outcome = run_series(spec, sandbox)
        assert outcome.fault is None, outcome.fault
        hands += outcome.hands_played
    elapsed = time.perf_counter() - begun
    print(f"series per second (run_series, fresh containers each): {count / elapsed:.2f}"
          f" ({count} series, {hands} hands, {elapsed:.1f} s)")


def cpu_times() -> list[int]:
    """The machine's CPU time counters, in clock ticks (the first line of /proc/stat)."""
    return [int(value) for value in Path("/proc/stat").read_text().split("\n")[0].split()[1:]]


def busy_s(times: list[int]) -> float:
    """CPU seconds the machine spent busy: user, nice, system, irq and softirq; not
    idle, iowait, nor steal (time a virtual machine's host gave to others)."""
    return sum(times[i] for i in (0, 1, 2, 5, 6)) / os.sysconf("SC_CLK_TCK")


def stolen_s(times: list[int]) -> float:
    """CPU seconds the host took from the machine (steal)."""
    return times[7] / os.sysconf("SC_CLK_TCK")


def machine_cpu_s() -> float:
    """CPU seconds the whole machine has spent busy (every core, since boot)."""
    return busy_s(cpu_times())


def steal_share(before: list[int], after: list[int]) -> float:
    """The share of the time between two /proc/stat readings that the host took."""
    spent = [b - a for a, b in zip(before, after, strict=True)]
    return spent[7] / max(1, sum(spent[:8]))


def daemon_cpu_s(names: tuple[str, ...] = ("dockerd", "containerd")) -> float:
    """CPU seconds of the Docker daemon's processes (with their reaped children)."""
    total = 0
    for entry in Path("/proc").iterdir():
        try:
            if not entry.name.isdigit() or (entry / "comm").read_text().strip() not in names:
                continue
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += sum(int(value) for value in fields[11:15])  # utime stime cutime cstime
    return total / os.sysconf("SC_CLK_TCK")


def container_cpu_s(container_id: str) -> float | None:
    """CPU seconds of a running container's cgroup (v1 cpuacct or v2), if readable."""
    for path, scale in ((f"/sys/fs/cgroup/cpuacct/docker/{container_id}/cpuacct.usage", 1e-9),
                        (f"/sys/fs/cgroup/system.slice/docker-{container_id}.scope/cpu.stat",
                         1e-6),
                        (f"/sys/fs/cgroup/docker/{container_id}/cpu.stat", 1e-6)):
        try:
            text = Path(path).read_text()
        except OSError:
            continue
        value = text.split()[0] if path.endswith("usage") else text.split()[1]
        return int(value) * scale
    return None


def arena_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def container_cpu(sandbox: DockerSandbox, bot: BotRef, runs: int = 15) -> None:
    sandbox.image_for(bot)
    bot_cpu: list[float] = []
    times_before = cpu_times()
    before = (machine_cpu_s(), daemon_cpu_s(), arena_cpu_s(), time.perf_counter())
    for _ in range(runs):
        running = sandbox.start(bot, series_id="bench-cpu")
        running.wait_ready(20)
        client = BotClient.connect(running.target, startup_timeout=20)
        client.handshake(20)
        own = container_cpu_s(running.container_id)
        if own is not None:
            bot_cpu.append(own)
        running.stop()
        client.close()
    after = (machine_cpu_s(), daemon_cpu_s(), arena_cpu_s(), time.perf_counter())
    steal = steal_share(times_before, cpu_times())
    machine, daemon, arena, wall = ((b - a) * 1000 / runs
                                    for a, b in zip(before, after, strict=True))
    own_ms = statistics.median(bot_cpu) * 1000 if bot_cpu else float("nan")
    rest = machine - daemon - arena - own_ms
    print(f"CPU per container of {bot.name:9}, start to handshake + stop (n={runs}, "
          f"{wall:.0f} ms wall each): machine {machine:.0f} ms = Docker daemon {daemon:.0f}"
          f" + the bot's own process {own_ms:.0f} + arena {arena:.0f} + the rest (runtime, "
          f"shim, kernel) {rest:.0f}; the host took {steal:.0%} of the time (steal)")


SEASON_BOTS = ("greedy", "random", "shark", "js-greedy")
SEASON_KINDS = ("fresh", "pool", "reuse")
KEPT = "reuse, kept"
LONG = "reuse-long"


def season_sandbox(kind: str, made: list[Any]) -> Any:
    """The sandbox a season of ``kind`` plays in (``made`` collects what to close)."""
    from arena.sandbox.reuse import ReusePool
    from arena.sandbox.warm import WarmPool

    sandbox: Any = DockerSandbox()
    if kind in ("pool", "reuse"):
        sandbox = WarmPool(sandbox)
    if kind == "reuse":
        sandbox = ReusePool(sandbox)
    made.append(sandbox)
    return sandbox


def started_containers(sandbox: Any) -> int:
    """Containers a reuse pool over a warm pool has started: the warm pool's starts on
    a series' path and its spares (taken or not)."""
    counters = sandbox.inner.counters
    return int(counters.cold + counters.spares)


def season_share(rounds: int, series_per_pair: int, long_series_per_pair: int,
                 concurrency: int = 2) -> None:
    from bench_cluster import in_sandbox, play

    from arena.execution import LocalExecutor

    folders = [ROOT / "sample_bots" / name for name in SEASON_BOTS]
    warm_up = DockerSandbox()
    for folder in folders:
        warm_up.image_for(BotRef.from_folder(folder))
    kinds = (*SEASON_KINDS, KEPT, *((LONG,) if long_series_per_pair else ()))
    totals = {kind: [0.0] * 6 for kind in kinds}
    started = dict.fromkeys(kinds, 0)
    loads: list[float] = []
    for _ in range(rounds):
        for kind in (*SEASON_KINDS, *((LONG,) if long_series_per_pair else ())):
            made: list[Any] = []
            sandbox = season_sandbox("reuse" if kind == LONG else kind, made)
            loads.append(os.getloadavg()[0])
            place = Path(tempfile.mkdtemp(prefix="bench-season-"))

            def season(pairs: int, sandbox: Any = sandbox, place: Path = place,
                       seed: int = 3) -> list[float]:
                return list(play(lambda: LocalExecutor(in_sandbox(sandbox), concurrency),
                                 "docker", folders, pairs, concurrency, place, seed))

            measured = season(long_series_per_pair if kind == LONG else series_per_pair)
            reuses = kind in ("reuse", LONG)
            first_starts = started_containers(sandbox) if reuses else 0
            if kind == "reuse":  # again, the same bots on the containers left up
                kept = season(series_per_pair, seed=4)  # other deals: kept containers serve
                totals[KEPT] = [a + b for a, b in zip(totals[KEPT], kept, strict=True)]
                started[KEPT] += started_containers(sandbox) - first_starts
            shutil.rmtree(place, ignore_errors=True)
            for item in made:
                close = getattr(item, "close", None)
                if callable(close):
                    close()
            if reuses:
                print(f"  {kind}: {sandbox.counters}; warm pool: {sandbox.inner.counters}")
            started[kind] += first_starts
            totals[kind] = [a + b for a, b in zip(totals[kind], measured, strict=True)]
    cores = os.cpu_count() or 1
    loads.append(os.getloadavg()[0])
    targets = {KEPT: "target <= 15 %; on the containers of the season before",
               "reuse": "target <= 15 %; its first containers started within it",
               LONG: (f"{long_series_per_pair} series a pair, from a cold start: the first "
                      "starts amortised"),
               "pool": "55 % before reuse", "fresh": "71 % before reuse"}
    for kind in kinds:
        count, wall, series_wall, think, busy, stolen = totals[kind]
        share = (1 - think / (wall * concurrency)) * 100
        reused = (f"{started[kind] / rounds:.1f} containers started a season, "
                  if kind in (KEPT, LONG, "reuse") else "")
        print(f"docker season arena share, {kind}: {share:.1f} % of season wall "
              f"({targets[kind]}; {reused}{int(count)} series in {wall:.1f} s, "
              f"{count / wall * 60:.1f} series/min, bots thinking {think:.1f} s, "
              f"{(1 - think / series_wall) * 100:.1f} % of series wall; machine busy "
              f"{busy / (wall * cores) * 100:.0f} % of {cores} cores, steal "
              f"{stolen / (wall * cores) * 100:.0f} %, load {min(loads):.1f}-{max(loads):.1f})")


def main() -> None:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--season-only", action="store_true")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--series-per-pair", type=int, default=2)
    parser.add_argument("--long-series-per-pair", type=int, default=6,
                        help="the longer cold reuse season (0: none)")
    options = parser.parse_args()
    if not options.season_only:
        sandbox = DockerSandbox()
        sandbox.image_for(GREEDY)
        start_to_handshake(sandbox)
        decisions_and_overhead(sandbox)
        series_per_second(sandbox)
        for bot in (GREEDY, BotRef.from_folder(ROOT / "sample_bots" / "js-greedy")):
            container_cpu(sandbox, bot)
    season_share(options.rounds, options.series_per_pair, options.long_series_per_pair)


if __name__ == "__main__":
    main()
