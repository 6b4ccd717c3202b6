"""Big-league benchmark (plain script; `make bench` runs it; no Docker).

A 200-bot duplicate round robin (39,800 series) played through the arena server
exactly as a real season is (SeasonRunner, local executor, storage, live standings,
the event hub), with 10 ``WatchSeason`` streams open in another process (as the
terminal's live view opens them: the top 20 rows, series events batched). Play
costs nothing: each series answers at once with its outcome, recorded beforehand
for the deal the season planned (the seed and seat swap read from the stored plan,
whatever derives them) by real sample bots (greedy, shark, random, in-process, in
worker processes), so every outcome passes the season's verification, the event
logs have real sizes and every millisecond measured between two stored series is
the arena's own work. The two series of a duplicate pair share one deal, hence one
recording.
Prints, next to the issue's targets:

1. the time to create and store the 39,800-series plan (CreateSeason, one transaction),
   and the plan of a season of the server's default limit of bots (1,024: 1,047,552 series);
2. per-series cost outside play at 0 %, 50 % and 99 % of the season stored: the
   median wall-time gap between consecutive stored results over a window of series,
   and the server process's CPU time per series over that window (the figure that
   does not depend on what else the machine runs). The window (2,000 series, 3 to
   4 s) spans the periodic work (a Bradley-Terry refit at most every 2 s, SQLite's
   checkpoints): a window much shorter than that period shows it or not by chance;
   the 99 % window is the last 2,000 series;
3. watcher lag at the end: last standings received by each stream minus the moment
   the last result was stored;
4. a standings update (one stored result applied and published) at the end, and a
   full recompute, for comparison;
5. database bytes per series, and stored event-log bytes per series (median, p99;
   compressed and raw JSON).

Smaller seasons (--also, 20, 50 and 100 bots: 380, 2,450 and 9,900 series) are
measured first the same way, each over windows of a tenth of its series, to show
how the cost per series and a standings update grow with the field.

Options: --bots N (200), --also N,N,... (20,50,100), --window N (2000), --watchers N
(10), --top N (rows each stream asks for: 20; 0 the whole table), --no-deltas,
--sse N (browsers on the season page's live stream: 0), --concurrency N (2),
--largest N (the default bot limit; 0 skips that plan), --recorders N (worker
processes recording outcomes; the cores), --db PATH (a temp file; with --also ''),
--outcomes PATH (recorded outcomes kept for the next run; with --also '').

The crowd figure of issue 42: --bots 100 --also '' --watchers 100 --top 0 --sse 100
(server CPU per series over the season, and per watcher the delay from a stored
series to the first update showing it and the bytes of a standings update).
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import pickle
import random
import statistics
import sys
import tempfile
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from figures import report  # noqa: E402
from hollywood.arena.v1 import arena_pb2, arena_pb2_grpc  # noqa: E402

from arena.core.defaults import DEFAULT_MAX_SEASON_BOTS  # noqa: E402
from arena.core.limits import TimeLimits  # noqa: E402
from arena.core.series import BotRef, SeriesOutcome, SeriesSpec  # noqa: E402
from arena.season.events import SeasonEvent  # noqa: E402
from arena.season.standings import StandingsState  # noqa: E402
from arena.season.standings_live import StandingsBoard  # noqa: E402
from arena.server.app import start_server  # noqa: E402

GREEDY = BotRef.from_folder(ROOT / "sample_bots" / "greedy")


Deal = tuple[int, bool, int, str]
"""What fixes a series' log: seed, seat swap, hand cap and profile name."""


def deal_of(spec: SeriesSpec) -> Deal:
    return (spec.seed, spec.swap_seats, spec.max_hands, spec.profile.name)


def record_one(spec: SeriesSpec) -> SeriesOutcome:
    """In a worker process: play ``spec``'s deal on the engine alone, a seeded mix of
    greedy and random moves (milliseconds a series: a 100-bot league's 4,950 deals
    are recorded in a minute, where real sample bots took seconds each), into an
    outcome whose log the season's verification replays like any other."""
    from arena.core.series import outcome_of
    from engine.series import Series
    from tests.helpers.deal_helpers import play_series

    series = Series(spec.seed, spec.profile, max_hands=spec.max_hands,
                    swap_seats=spec.swap_seats)
    play_series(series, random.Random(spec.seed))
    return outcome_of(spec.series_id, series, None, None, (0.0, 0.0), 0.0)


def record_outcomes(storage: Any, season_id: int, workers: int) -> dict[Deal, SeriesOutcome]:
    """One outcome per deal of the season's stored plan, recorded in ``workers``
    processes: the replay then answers every planned series with an outcome that
    passes verification, whatever derived its seed."""
    from concurrent.futures import ProcessPoolExecutor


    season = storage.get_season(season_id)
    profile = season.profile
    max_hands = season.config.max_hands
    specs: dict[Deal, SeriesSpec] = {}
    for planned in storage.planned_series(season_id):
        spec = SeriesSpec(series_id=f"record-{planned.seed}-{planned.swap_seats}",
                          seed=planned.seed, profile=profile, max_hands=max_hands,
                          swap_seats=planned.swap_seats, bots=(GREEDY, GREEDY),
                          limits=TimeLimits(20.0, 5.0, 30.0))
        specs.setdefault(deal_of(spec), spec)
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=max(1, workers), mp_context=context) as pool:
        outcomes = pool.map(record_one, specs.values(), chunksize=16)
        return dict(zip(specs, outcomes, strict=True))


Arrivals = tuple[list[float], list[float], int, int]
"""What one watcher saw: for each stored series n (index n - 1) when a message first
showed it (its series event or standings counting it; 0.0: never) and when standings
first counted it; the standings updates received and their bytes."""


class Coverage:
    """One watcher's arrivals (``Arrivals``), filled as its messages come."""

    def __init__(self, total: int) -> None:
        self.any = [0.0] * total
        self.standings = [0.0] * total
        self.shown = self.counted = 0
        self.updates = self.update_bytes = 0

    def saw(self, upto: int, at: float, *, standings: bool = False, size: int = 0) -> None:
        if standings:
            self.updates += 1
            self.update_bytes += size
            while self.counted < min(upto, len(self.standings)):
                self.standings[self.counted] = at
                self.counted += 1
        while self.shown < min(upto, len(self.any)):
            self.any[self.shown] = at
            self.shown += 1

    def arrivals(self) -> Arrivals:
        return self.any, self.standings, self.updates, self.update_bytes


def watch(address: str, season_id: int, count: int, top: int, deltas: bool, total: int,
          done: Any) -> None:
    """In a child process: ``count`` WatchSeason streams as the terminal opens them
    (series events batched; standings deltas unless ``deltas`` is off); put each
    stream's ``Arrivals`` (its raw bytes are counted before decoding)."""
    import grpc

    request = arena_pb2.WatchSeasonRequest(season_id=season_id, top=top,
                                           batch_series_events=True,
                                           standings_deltas=deltas)

    def follow(results: list[Arrivals]) -> None:
        coverage = Coverage(total)
        with grpc.insecure_channel(address) as channel:
            stream = channel.unary_stream(
                "/hollywood.arena.v1.ArenaService/WatchSeason",
                request_serializer=arena_pb2.WatchSeasonRequest.SerializeToString,
                response_deserializer=lambda data: data)
            for data in stream(request):
                at = time.time()
                message = arena_pb2.WatchSeasonResponse.FromString(data)
                kind = message.WhichOneof("event")
                if kind == "series_events":
                    seqs = [e.finished.series.stored_seq for e in message.series_events.events
                            if e.WhichOneof("event") == "finished"]
                    coverage.saw(max(seqs, default=0), at)
                elif kind == "standings":
                    coverage.saw(message.standings.sequence, at, standings=True,
                                 size=len(data))
                elif kind == "standings_delta":
                    coverage.saw(message.series_done, at, standings=True, size=len(data))
        results.append(coverage.arrivals())

    results: list[Arrivals] = []
    threads = [threading.Thread(target=follow, args=(results,)) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    done.put(results)


def view_sse(host: str, port: int, season_id: int, count: int, total: int,
             ready: Any, done: Any) -> None:
    """In a child process: ``count`` browsers on the season page's live stream
    (``/api/seasons/{id}/events``, Server-Sent Events, read as raw HTTP); put each
    one's ``Arrivals`` (a snapshot's ``version`` is the series it counts)."""
    import asyncio
    import re

    version = re.compile(rb'"version": (\d+)')
    final = re.compile(rb'"status": "(finished|failed|cancelled)"')

    async def browser() -> Arrivals:
        coverage = Coverage(total)
        reader, writer = await asyncio.open_connection(host, port)
        writer.write(f"GET /api/seasons/{season_id}/events HTTP/1.1\r\nHost: {host}\r\n"
                     "Accept: text/event-stream\r\n\r\n".encode())
        await writer.drain()
        buffer = b""
        while True:
            chunk = await reader.read(1 << 16)
            if not chunk:
                break
            at = time.time()
            buffer += chunk
            *events, buffer = buffer.split(b"\r\n\r\n")
            for event in events:
                found = version.search(event)
                if found:
                    coverage.saw(int(found[1]), at, standings=True, size=len(event) + 4)
                if final.search(event):
                    writer.close()
                    return coverage.arrivals()
        return coverage.arrivals()

    async def crowd() -> list[Arrivals]:
        browsers = [asyncio.ensure_future(browser()) for _ in range(count)]
        await asyncio.sleep(1.0)
        ready.put(True)
        return list(await asyncio.gather(*browsers))

    done.put(asyncio.run(crowd()))


def delays_ms(stored_wall: list[float], seen: list[list[float]]) -> list[float]:
    """Per watcher and stored series: from its storing to the watcher's message."""
    return [(arrived - stored) * 1000 for arrivals in seen
            for stored, arrived in zip(stored_wall, arrivals, strict=False) if arrived]


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, default=200)
    parser.add_argument("--also", default="20,50,100",
                        help="smaller seasons measured first, to show how the cost per "
                             "series grows with the field (20,50,100: 380, 2,450 and 9,900 "
                             "series; '' for none)")
    parser.add_argument("--window", type=int, default=2000,
                        help="series per cost window (2000; at most a tenth of the "
                             "season's series)")
    parser.add_argument("--watchers", type=int, default=10)
    parser.add_argument("--top", type=int, default=20,
                        help="rows each watch stream asks for (20, as the terminal's live "
                             "view; 0: the whole table)")
    parser.add_argument("--deltas", action=argparse.BooleanOptionalAction, default=True,
                        help="watch streams ask for standings deltas (as the terminal does)")
    parser.add_argument("--sse", type=int, default=0,
                        help="browsers on the season page's live stream (0)")
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--largest", type=int, default=DEFAULT_MAX_SEASON_BOTS,
                        help="bots of the second plan timed (the default season limit; "
                             "0: none)")
    parser.add_argument("--recorders", type=int, default=os.cpu_count() or 1,
                        help="worker processes recording the outcomes (the cores)")
    parser.add_argument("--db", type=Path)
    parser.add_argument("--outcomes", type=Path,
                        help="a file keeping the recorded outcomes for the next run of the "
                             "same size (read if it exists, else written)")
    args = parser.parse_args(argv)
    sizes = [int(size) for size in args.also.split(",") if size.strip()] + [args.bots]
    for bots in sizes:
        series = bots * (bots - 1)
        window = max(1, min(args.window, series // 10))
        print(f"== {bots} bots")
        season(argparse.Namespace(**{**vars(args), "bots": bots, "window": window}))


def season(args: argparse.Namespace) -> None:
    recorded: dict[Deal, SeriesOutcome] = {}
    unrecorded: list[str] = []

    def replay(spec: SeriesSpec) -> SeriesOutcome:
        outcome = recorded.get(deal_of(spec))
        if outcome is None:  # a deal the stored plan did not have: play it here
            unrecorded.append(spec.series_id)
            outcome = recorded.setdefault(deal_of(spec), record_one(spec))
        return replace(outcome, series_id=spec.series_id)

    with tempfile.TemporaryDirectory(prefix="bench-big-") as scratch:
        db = args.db or Path(scratch) / "arena.db"
        # Every stream comes from this machine: the per-client cap must admit them all.
        server = start_server(db, port=0, resume=False,
                              runner_factory=lambda config: replay,
                              max_streams_per_client=args.watchers + 1,
                              # a stream holds a thread of the server's pool
                              max_workers=32 + args.watchers,
                              http=("127.0.0.1", 0) if args.sse else None)
        try:
            run(server, args, recorded)
        finally:
            server.stop(grace=None)
    if unrecorded:
        print(f"{len(unrecorded)} series had no recorded outcome and were played in the "
              "server's process (their play counts in its CPU)")


def run(server: Any, args: argparse.Namespace,
        recorded: dict[Deal, SeriesOutcome]) -> None:
    storage = server.storage
    folder = ROOT / "sample_bots" / "greedy"
    files = [(path.name, path) for path in folder.iterdir() if path.is_file()]
    ids = []
    for number in range(max(args.bots, args.largest)):
        record, _ = storage.register_bot(
            name=f"bot{number:03d}", version="1", language="python", author="",
            description="", content_hash=f"h{number}", source_folder=folder, files=files)
        ids.append(record.id)
    ids, extra = ids[:args.bots], ids[args.bots:args.largest]
    import grpc
    channel = grpc.insecure_channel(server.address)
    stub = arena_pb2_grpc.ArenaServiceStub(channel)
    auth = (("authorization", f"Bearer {server.token}"),)
    config = arena_pb2.SeasonConfig(seed=7, concurrency=args.concurrency,
                                    sandbox_backend="process")
    began = time.perf_counter()
    season = stub.CreateSeason(arena_pb2.CreateSeasonRequest(
        bots=ids, config=config, hold=True), metadata=auth).season
    plan_s = time.perf_counter() - began
    total = season.series_total
    largest_text = ""
    if args.largest:
        began = time.perf_counter()
        largest = stub.CreateSeason(arena_pb2.CreateSeasonRequest(
            bots=(ids + extra)[:args.largest], config=config, hold=True),
            metadata=auth).season
        largest_text = (f"; {largest.series_total} series of {args.largest} bots (the "
                        f"default limit is {DEFAULT_MAX_SEASON_BOTS}): "
                        f"{time.perf_counter() - began:.2f} s")
    began = time.perf_counter()
    if args.outcomes is not None and args.outcomes.exists():
        recorded.update(pickle.loads(args.outcomes.read_bytes()))
        print(f"{len(recorded)} recorded deals read from {args.outcomes}")
    else:
        recorded.update(record_outcomes(storage, season.id, args.recorders))
        print(f"{len(recorded)} deals recorded for the plan's {total} series by "
              f"{args.recorders} processes in {time.perf_counter() - began:.0f} s, median "
              f"{statistics.median(o.hands_played for o in recorded.values())} hands")
        if args.outcomes is not None:
            args.outcomes.write_bytes(pickle.dumps(recorded))

    stored_at: list[float] = []
    cpu_at: list[float] = []
    wall_at: list[float] = []
    subscription = server.manager.hub.subscribe(season.id)

    def record() -> None:
        while True:
            event: SeasonEvent | None = subscription.get(1.0)
            if event is None:
                continue
            if event.kind == "series_finished":
                stored_at.append(time.perf_counter())
                cpu_at.append(time.process_time())
                wall_at.append(time.time())
            if event.kind == "status" and event.status in ("finished", "failed", "cancelled"):
                return

    recorder = threading.Thread(target=record, daemon=True)
    recorder.start()
    context = multiprocessing.get_context("spawn")
    results = context.Queue()
    watcher = context.Process(target=watch, args=(
        server.address, season.id, args.watchers, args.top, args.deltas, total, results))
    watcher.start()
    browsers = None
    if args.sse:
        ready, seen_sse = context.Queue(), context.Queue()
        browsers = context.Process(target=view_sse, args=(
            "127.0.0.1", server.web.port, season.id, args.sse, total, ready, seen_sse))
        browsers.start()
        ready.get(timeout=120)
    time.sleep(3.0)  # let the streams open before the season starts
    sampler = None
    if os.environ.get("BENCH_SAMPLE"):  # where the server's CPU goes (tests/bench/sampler.py)
        from sampler import Sampler
        sampler = Sampler()
        sampler.start()
    started = time.perf_counter()
    cpu_started = time.process_time()
    stub.StartSeason(arena_pb2.StartSeasonRequest(season_id=season.id), metadata=auth)
    server.manager.wait(season.id)
    season_s = time.perf_counter() - started
    season_cpu_s = time.process_time() - cpu_started
    if sampler is not None:
        sampler.stop(Path(os.environ["BENCH_SAMPLE"]))
    recorder.join(10)
    seen = results.get(timeout=300)
    watcher.join(30)
    sse_seen: list[Arrivals] = []
    if browsers is not None:
        sse_seen = seen_sse.get(timeout=300)
        browsers.join(30)
    played = storage.get_season(season.id)
    if played.series_done != total or len(stored_at) != total:
        raise SystemExit(f"only {played.series_done}/{total} series played "
                         f"({len(stored_at)} seen stored; status {played.status.value}, "
                         f"{played.outcomes_refused} outcomes refused: {played.error!r})")

    def cost_ms(at: float) -> tuple[float, float]:
        """(median wall gap, CPU per series) over the window of series at ``at``."""
        start = window_start(at)
        gaps = [(stored_at[n + 1] - stored_at[n]) * 1000
                for n in range(start, start + args.window)]
        cpu = (cpu_at[start + args.window] - cpu_at[start]) * 1000 / args.window
        return statistics.median(gaps), cpu

    print(f"{args.bots} bots, {total} series, concurrency {args.concurrency}, "
          f"{args.watchers} watch streams (top {args.top or 'all'} rows), {args.sse} SSE "
          "viewers, zero-cost play")
    print(f"plan created and stored (CreateSeason): {plan_s:.2f} s   [target < 2 s]"
          f"{largest_text}")
    print(f"season wall time: {season_s:.1f} s ({total / season_s:.0f} series/s)")
    def window_start(at: float) -> int:
        return max(0, min(int(at * len(stored_at)), len(stored_at) - args.window - 1))

    costs = {share: cost_ms(share) for share in (0.0, 0.5, 0.99)}
    for share, (median, cpu) in costs.items():
        first = window_start(share) + 1
        print(f"per-series cost outside play at {share:4.0%} stored (series {first:,} to "
              f"{first + args.window - 1:,}): wall gap median {median:.2f} ms, "
              f"server CPU {cpu:.2f} ms   [target <= 2 ms]")
    for name, values in (("wall", [m for m, _ in costs.values()]),
                         ("CPU", [c for _, c in costs.values()])):
        print(f"  spread ({name}): {(max(values) / max(min(values), 1e-9) - 1):.0%}   "
              "[target flat within 25 %]")
    load = os.getloadavg()
    conditions = (f"{args.bots} bots, {args.watchers} watch streams (top {args.top or 'all'}"
                  f"{', deltas' if args.deltas else ''}), {args.sse} SSE viewers; load "
                  f"{load[0]:.1f}")
    cpu_per_series = season_cpu_s * 1000 / total
    print(f"server CPU over the whole season: {cpu_per_series:.2f} ms per series "
          f"(load {load[0]:.1f} {load[1]:.1f} {load[2]:.1f})   [target <= 2 ms]")
    report("big season: server CPU per series outside play", cpu_per_series, 2.0,
           unit="ms", conditions=conditions)
    for name, crowd in (("gRPC watchers", seen), ("SSE viewers", sse_seen)):
        if not crowd:
            continue
        shown = delays_ms(wall_at, [arrivals[0] for arrivals in crowd])
        counted = delays_ms(wall_at, [arrivals[1] for arrivals in crowd])
        missing = sum(1 for arrivals in crowd if not arrivals[0][-1])
        updates = sum(arrivals[2] for arrivals in crowd)
        size = sum(arrivals[3] for arrivals in crowd) / max(1, updates)
        print(f"{name} ({len(crowd)}): delay from a stored series to the first update "
              f"showing it: median {statistics.median(shown):.0f} ms, p90 "
              f"{percentile(shown, 0.9):.0f} ms; to standings counting it: median "
              f"{statistics.median(counted):.0f} ms   [target <= 50 ms]; "
              f"{updates / len(crowd):.0f} standings updates per watcher, "
              f"{size / 1000:.1f} kB each; {missing} never saw the last series")
        report(f"big season: {name}, median delay stored -> update", statistics.median(shown),
               50.0, unit="ms", conditions=conditions)
        report(f"big season: {name}, bytes per standings update per watcher", size,
               unit="B", conditions=conditions)

    board = StandingsBoard(storage)
    began = time.perf_counter()
    board.recompute(season.id)
    recompute_ms = (time.perf_counter() - began) * 1000
    results_all = storage.results_stored_after(season.id)
    state = StandingsState(ids)
    for result in results_all[:-50]:
        state.apply(result)
    updates = []
    for result in results_all[-50:]:
        began = time.perf_counter()
        state.apply(result)
        state.table()
        updates.append((time.perf_counter() - began) * 1000)
    print(f"standings update (apply + publish) at {len(results_all)} stored series: "
          f"median {statistics.median(updates):.2f} ms, max {max(updates):.2f} ms   "
          f"[target <= 5 ms]; full recompute {recompute_ms:.0f} ms")

    storage.query("PRAGMA wal_checkpoint(TRUNCATE)")
    size = Path(storage.path).stat().st_size
    print(f"database: {size / 1e6:.1f} MB, {size / total / 1000:.2f} kB per series")
    sizes = storage.log_sizes(season.id)
    stored = [float(s) for s, _ in sizes]
    raw = [float(r) for _, r in sizes]
    print(f"event log per series: stored median {statistics.median(stored) / 1000:.1f} kB, "
          f"p99 {percentile(stored, 0.99) / 1000:.1f} kB; raw JSON median "
          f"{statistics.median(raw) / 1000:.1f} kB, p99 {percentile(raw, 0.99) / 1000:.1f} kB")
    channel.close()


if __name__ == "__main__":
    main()
