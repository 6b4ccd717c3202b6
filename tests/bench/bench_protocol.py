"""Protocol round-trip benchmark (plain script; `make bench` runs it).

Prints, over a Unix socket between this process and a bot in another process:

1. bare gRPC unary round trip (raw bytes, no protobuf work) - the floor;
2. one message each way on an open bidirectional stream - the alternative call shape;
3. ``BotClient.decide`` against every sample bot found in ``sample_bots/*/bot.toml``
   (median of a realistic DecideRequest), among them the Node.js bot ``js-greedy``
   (@grpc/grpc-js), which needs ``node`` and ``make setup``'s node modules;
4. decisions per second over full series (``play_match``): greedy vs greedy,
   js-greedy vs js-greedy, and js-greedy vs greedy;
5. the decision round trip against its anchor (issue 29, target <= 1.25x with the
   random bot): ``BotClient.decide`` to the random bot (and the greedy one) in its
   own process against a bare unary echo of a payload of the same size, each over a
   Unix socket to another process, in chunks of 100 calls interleaved (echo, random,
   greedy, echo, ...) so that all see the same load; the ratio of the medians.

``--tiny``: a few calls and one series per pair, only to show it runs.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import grpc

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repo root, for tests.*

ECHO_SERVER = r"""
import sys, time, grpc
from concurrent import futures
def unary(request, context): return request
def stream(requests, context):
    for request in requests: yield request
identity = lambda b: b
handler = grpc.method_handlers_generic_handler("bench.Echo", {
    "Unary": grpc.unary_unary_rpc_method_handler(unary, identity, identity),
    "Stream": grpc.stream_stream_rpc_method_handler(stream, identity, identity),
})
server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
server.add_generic_rpc_handlers((handler,))
server.add_insecure_port(sys.argv[1])
server.start()
server.wait_for_termination()
"""

PAYLOAD = b"x" * 600  # about the size of a serialized DecideRequest
ROUND_TRIP_TARGET = 1.25
"""Decision round trip with the random bot / bare echo (issue 29)."""
CHUNK = 100


def median_us(samples: list[float]) -> float:
    return statistics.median(samples) * 1e6


def timed(call: Callable[[], object], count: int, warmup: int = 200) -> list[float]:
    for _ in range(warmup):
        call()
    samples = []
    for _ in range(count):
        start = time.perf_counter()
        call()
        samples.append(time.perf_counter() - start)
    return samples


def bare_calls(count: int) -> tuple[float, float]:
    with tempfile.TemporaryDirectory(prefix="hgbench-", dir="/tmp") as tmp:
        target = f"unix:{tmp}/echo.sock"
        server = subprocess.Popen([sys.executable, "-c", ECHO_SERVER, target])
        try:
            channel = grpc.insecure_channel(target)
            grpc.channel_ready_future(channel).result(timeout=20)
            unary = channel.unary_unary("/bench.Echo/Unary")
            unary_us = median_us(timed(lambda: unary(PAYLOAD, timeout=5), count))

            stream = channel.stream_stream("/bench.Echo/Stream")
            import queue

            outbox: queue.Queue[bytes | None] = queue.Queue()
            replies = stream(iter(outbox.get, None))

            def one_exchange() -> None:
                outbox.put(PAYLOAD)
                next(replies)

            stream_us = median_us(timed(one_exchange, count))
            outbox.put(None)
            channel.close()
            return unary_us, stream_us
        finally:
            server.kill()
            server.wait()


def sample_request() -> tuple[object, list[object]]:
    """A realistic mid-hand DecideRequest (discard phase, 11 cards, a sheet) and its
    legal actions."""
    from arena.match import protocol
    from engine import Series

    series = Series(seed=99)
    while True:  # play first-legal until a discard decision in hand 2
        legal = series.legal_actions()
        if series.hand_number >= 2 and len(legal) > 5:
            break
        series.apply(legal[0])
    seat = series.current_player
    assert seat is not None
    request = protocol.decide_request(
        series.observation(seat), legal, protocol.profile_to_proto(series.profile, 200),
        series_id="bench", decision_number=1, decision_s=1.0, reserve_s=30.0)
    return request, legal


def bench_decide(count: int) -> None:
    """BotClient.decide round trip against every sample bot (the hook for other
    languages: any bot folder with a bot.toml whose command is installed is measured)."""
    from arena.match.botclient import BotClient
    from tests.helpers.bot_processes import discover_bots, run_bot

    request, legal = sample_request()
    size = len(request.SerializeToString())  # type: ignore[attr-defined]
    for bot in discover_bots():
        if bot.folder.parent.name != "sample_bots":
            continue
        if not bot.runnable():
            print(f"BotClient.decide -> {bot.name:10} skipped: {bot.command[0]} not installed")
            continue
        with run_bot(bot) as running:
            client = BotClient.connect(running.target, startup_timeout=30)
            client.handshake(timeout=10)
            decide = client.decide
            samples = timed(lambda: decide(request, legal, allowed_s=5), count, warmup=50)  # noqa: B023
            client.close()
        print(f"BotClient.decide -> {bot.name:10} ({bot.language}, {size} B request): "
              f"median {median_us(samples):7.0f} us, p90 "
              f"{statistics.quantiles(samples, n=10)[-1] * 1e6:7.0f} us")


def bench_conversion(count: int) -> None:
    """Arena-side cost of building one DecideRequest (observation + legal list)."""
    from arena.match import protocol
    from engine import Series

    series = Series(seed=5)
    profile = protocol.profile_to_proto(series.profile, 200)

    def build() -> None:
        seat = series.current_player
        assert seat is not None
        protocol.decide_request(series.observation(seat), series.legal_actions(), profile,
                                series_id="b", decision_number=1, decision_s=1, reserve_s=30)

    print(f"arena.match.protocol.decide_request (build, no I/O):   median "
          f"{median_us(timed(build, count)):7.0f} us")


SERIES_PAIRS = (("greedy", "greedy"), ("js-greedy", "js-greedy"), ("js-greedy", "greedy"))


def bench_series(series_count: int, names: tuple[str, str]) -> None:
    """Decisions per second over full series between two sample bots (by name)."""
    from arena.core.limits import TimeLimits
    from arena.match.botclient import BotClient
    from arena.match.loop import play_match
    from engine import Series
    from tests.helpers.bot_processes import discover_bots, run_bot

    bots = {bot.name: bot for bot in discover_bots()}
    label = f"{names[0]} vs {names[1]}"
    if not all(bots[name].runnable() for name in names):
        print(f"full series {label}: skipped, a command is not installed")
        return
    decisions = 0
    elapsed = 0.0
    with run_bot(bots[names[0]]) as first, run_bot(bots[names[1]]) as second:
        clients = [BotClient.connect(r.target, startup_timeout=30) for r in (first, second)]
        for client in clients:
            client.handshake(timeout=10)
        for seed in range(series_count):
            start = time.perf_counter()
            result = play_match((clients[0], clients[1]), Series(seed=seed), TimeLimits())
            elapsed += time.perf_counter() - start
            assert result.outcome.fault is None, result.outcome.fault
            decisions += result.decisions
        for client in clients:
            client.close()
    print(f"full series {label + ':':24} {series_count} series, {decisions} decisions, "
          f"{decisions / elapsed:6.0f} decisions/s ({elapsed / series_count:.2f} s per series)")


def round_trip_ratio(rounds: int) -> None:
    """Decide round trips to the random and greedy bots against a bare echo of the
    same size, interleaved chunk by chunk (see the module)."""
    from figures import report

    from arena.match.botclient import BotClient
    from tests.helpers.bot_processes import discover_bots, run_bot

    request, legal = sample_request()
    payload = request.SerializeToString()  # type: ignore[attr-defined]
    bots = {bot.name: bot for bot in discover_bots()}
    with tempfile.TemporaryDirectory(prefix="hgbench-", dir="/tmp") as tmp, \
            run_bot(bots["random"]) as random_bot, run_bot(bots["greedy"]) as greedy_bot:
        target = f"unix:{tmp}/echo.sock"
        server = subprocess.Popen([sys.executable, "-c", ECHO_SERVER, target])
        channel = grpc.insecure_channel(target)
        clients = [BotClient.connect(running.target, startup_timeout=30)
                   for running in (random_bot, greedy_bot)]
        try:
            grpc.channel_ready_future(channel).result(timeout=20)
            unary = channel.unary_unary("/bench.Echo/Unary")
            for client in clients:
                client.handshake(timeout=10)
            calls: dict[str, Callable[[], object]] = {
                "echo": lambda: unary(payload, timeout=5),
                "random": lambda: clients[0].decide(request, legal, allowed_s=5),
                "greedy": lambda: clients[1].decide(request, legal, allowed_s=5),
            }
            samples: dict[str, list[float]] = {name: [] for name in calls}
            for call in calls.values():  # warm-up
                timed(call, 0, warmup=200)
            for _ in range(rounds):
                for name, call in calls.items():
                    samples[name] += timed(call, CHUNK, warmup=0)
        finally:
            for client in clients:
                client.close()
            channel.close()
            server.kill()
            server.wait()
    echo = median_us(samples["echo"])
    print(f"decision round trip against a bare echo of {len(payload)} B (both to another "
          f"process over a Unix socket; {rounds} interleaved chunks of {CHUNK}): echo median "
          f"{echo:.0f} us")
    for name in ("random", "greedy"):
        mine = median_us(samples[name])
        print(f"  BotClient.decide -> {name:7} median {mine:6.0f} us = {mine / echo:.2f}x the "
              "echo" + (f" (target <= {ROUND_TRIP_TARGET}x)" if name == "random" else ""))
        report(f"decision round trip, {name} bot / bare gRPC echo", mine / echo,
               ROUND_TRIP_TARGET if name == "random" else None,
               conditions=f"{mine:.0f} against {echo:.0f} us, medians")


def main() -> None:
    tiny = "--tiny" in sys.argv[1:]  # that it runs (tests/project/), not a figure
    count = 20 if tiny else 2000
    round_trip_ratio(1 if tiny else 50)
    unary_us, stream_us = bare_calls(count)
    print(f"bare gRPC unary round trip (600 B, Unix socket): median {unary_us:7.0f} us")
    print(f"bidi stream, one message each way (600 B):      median {stream_us:7.0f} us")
    bench_conversion(count)
    bench_decide(count)
    for names in SERIES_PAIRS:
        bench_series(1 if tiny else 10, names)


if __name__ == "__main__":
    main()
