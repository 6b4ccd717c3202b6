"""Sandbox benchmark (plain script; `make bench` runs it). Needs a Docker engine.

Prints, for the sample bots in hardened containers:

1. container start to first answered handshake (median of 10; stop+remove too);
2. decisions per second between two greedy bots in containers (``play_match``);
3. series per second, each series a full ``run_series`` (containers started and
   removed every time);
4. the arena's time per decision (engine + request + validation + notifications)
   against a bare ``Decide`` round trip over the same container socket (target <= 2x).
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

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
            seconds += result.wall_seconds
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
            decision_number=1, deadline_s=1.0, reserve_s=30.0,
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


def main() -> None:
    sandbox = DockerSandbox()
    sandbox.image_for(GREEDY)
    start_to_handshake(sandbox)
    decisions_and_overhead(sandbox)
    series_per_second(sandbox)


if __name__ == "__main__":
    main()
