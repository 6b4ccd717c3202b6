"""Season benchmark (plain script; `make bench` runs it). Needs a Docker engine.

A league season of the sample bots (every folder under sample_bots/ with a bot.toml:
random, greedy, shark, js-greedy, whichever exist) in Docker containers, run
through the arena server's gRPC API exactly as `arena season run` does, with 2
series per pair and 2 series played at once (--concurrency; fixed rather than the
machine's core count, so the figures describe "a season on 2 cores" wherever they
are measured). Prints:

1. series per minute (planned series / season wall time);
2. the share of series wall time the arena spends outside the bots' thinking time
   (container start and stop, handshakes, engine, protocol, storage), summed over
   all series: 1 - sum(think time of both bots) / sum(series wall time);
3. the season's wall time and the time from the last series end to the stored,
   watched final standings;
4. how long recomputing the standings takes (what the server does after every
   stored series) for a stored 20-bot season of 380 series with 200 KB event logs.

Options: --series-per-pair N (2), --max-hands N (200), --concurrency N (2),
--db PATH (a temp file).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from engine.profiles import FRIENDLY

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from figures import report  # noqa: E402
from hollywood.arena.v1 import arena_pb2  # noqa: E402

from arena.cli.client import ArenaClient  # noqa: E402
from arena.cli.local import sample_bot_folders  # noqa: E402
from arena.cli.submit import upload_all  # noqa: E402
from arena.core.settings import default_concurrency  # noqa: E402
from arena.sandbox.images import prepare_base  # noqa: E402
from arena.server.app import start_server  # noqa: E402


def standings_recompute_ms(bots: int = 20, log_bytes: int = 200_000) -> tuple[int, float]:
    """(series, median ms) of storage.results + compute_standings on a big season."""
    import statistics

    from arena.season.formats import plan_season
    from arena.season.standings import compute_standings
    from arena.storage import Storage
    from tests.helpers.arena_helpers import made_up_outcome

    with tempfile.TemporaryDirectory(prefix="bench-standings-") as scratch:
        storage = Storage(Path(scratch) / "a.db")
        ids = [f"bot{n}@1" for n in range(bots)]
        with storage.transaction() as db:
            db.executemany(
                "INSERT INTO bots VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                [(bot_id, n + 1, bot_id.split("@")[0], "1", "python", "", "", "x", scratch,
                  scratch, "now") for n, bot_id in enumerate(ids)])
        plan = plan_season(ids, 2, 1)
        season = storage.create_season(name="big", config={}, profile=FRIENDLY, bot_ids=ids,
                                       plan=[entry.as_row() for entry in plan])
        filler = [{"type": "action", "pad": "x" * 100}] * (log_bytes // 120)
        for index, planned in enumerate(storage.planned_series(season.id)):
            outcome = made_up_outcome(
                planned.series_id, (0, 1, None)[index % 3], games_won=(2, 1), hands_won=(5, 3),
                points=(250, 120), game_scores=((100, 100, 50), (60, 40, 100)),
                hands_played=8, log=filler)
            storage.store_result(planned, outcome, {})
        timings = []
        for _ in range(5):
            begun = time.perf_counter()
            compute_standings(ids, storage.results(season.id))
            timings.append((time.perf_counter() - begun) * 1000)
        return len(plan), statistics.median(timings)



def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--series-per-pair", type=int, default=2)
    parser.add_argument("--max-hands", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=2,
                        help="series played at once (default 2, whatever the core count)")
    parser.add_argument("--db", type=Path, default=None)
    options = parser.parse_args()
    prepare_base()
    with tempfile.TemporaryDirectory(prefix="bench-season-") as scratch:
        db = options.db or Path(scratch) / "arena.db"
        server = start_server(db, port=0)
        try:
            with ArenaClient(server.address, server.token) as client:
                ids = [response.bot.id
                       for response in upload_all(client, sample_bot_folders())]
                # Warm-up: build every bot image before timing (builds are cached).
                from arena.sandbox.images import build_bot_image

                for folder in sample_bot_folders():
                    build_bot_image(folder)
                begun = time.perf_counter()
                season = client.stub.CreateSeason(arena_pb2.CreateSeasonRequest(
                    bots=ids, name="bench", config=arena_pb2.SeasonConfig(
                        series_per_pair=options.series_per_pair,
                        max_hands=options.max_hands, concurrency=options.concurrency)),
                    metadata=client.auth).season
                last_series_end = begun
                for message in client.stub.WatchSeason(
                        arena_pb2.WatchSeasonRequest(season_id=season.id)):
                    if message.WhichOneof("event") == "series_finished":
                        last_series_end = time.perf_counter()
                wall = time.perf_counter() - begun
                series = client.stub.ListSeries(
                    arena_pb2.ListSeriesRequest(season_id=season.id)).series
                final = client.stub.GetSeason(
                    arena_pb2.GetSeasonRequest(season_id=season.id)).season
        finally:
            server.stop(grace=None)
    played = [s for s in series if s.played]
    series_wall = sum(s.wall_seconds for s in played)
    think = sum(sum(s.think_seconds) for s in played)
    faults = [s for s in played if s.HasField("fault")]
    hands = sum(s.hands_played for s in played)
    print(f"bots: {', '.join(ids)}; concurrency {final.config.concurrency} (series at once, "
          f"set by --concurrency; this machine has {default_concurrency()} cores); "
          f"{options.series_per_pair} series per pair; max_hands {options.max_hands}")
    print(f"season status: {final.status} ({arena_pb2.SeasonStatus.Name(final.status)}); "
          f"{len(played)}/{len(series)} series, {hands} hands, {len(faults)} forfeits")
    print(f"season wall time: {wall:.1f} s; series per minute: {len(played) / wall * 60:.1f}")
    print(f"arena share of series wall time (outside bot thinking): "
          f"{(1 - think / series_wall) * 100 if series_wall else 0:.1f} % "
          f"(series wall {series_wall:.1f} s, bots thinking {think:.1f} s)")
    # The issue 29 target (<= 15 %) is for containers reused across series; this
    # season runs the default sandbox (docker with its warm pool): no target here.
    report("Docker season arena share of series wall time (warm pool)",
           (1 - think / series_wall) * 100 if series_wall else 0.0, unit="%",
           conditions=f"{len(played)} series, concurrency {final.config.concurrency}")
    print(f"last series end -> stream closed with final standings: "
          f"{(begun + wall - last_series_end) * 1000:.0f} ms")
    count, recompute_ms = standings_recompute_ms()
    print(f"standings recompute for a stored 20-bot season ({count} series, 200 KB logs): "
          f"{recompute_ms:.0f} ms")
    return 0 if arena_pb2.SeasonStatus.Name(final.status) == "SEASON_STATUS_FINISHED" else 1


if __name__ == "__main__":
    sys.exit(main())
