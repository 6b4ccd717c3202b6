"""Cluster and warm-pool benchmark (plain script; `make bench` runs it).

1. Series per minute of one season of the in-process sample bots (random, greedy,
   shark; --series-per-pair, 200-hand cap), two series at a time, played by the
   local executor (concurrency 2), by a local Dask cluster of 1 worker with 2 slots,
   and by one of 2 workers with 1 slot each (scheduler and workers started here
   as `arena cluster up` does; their start-up is not timed).
2. The arena's share of a Docker season's time (the four sample bots, --concurrency
   series at once, 2), without and with the warm pool, seasons alternating (--rounds) so that the
   machine's load falls on both alike. Two measures: outside the bots' thinking in
   the series' own wall time (1 - think / sum of series wall, as bench_season.py),
   and in the season's wall time (1 - think / (season wall x concurrency)), which also
   counts starting and stopping containers between series; and how busy the
   machine's cores were meanwhile (from /proc/stat: run it on an idle machine). On a
   machine whose cores are all busy, a container a warm pool starts early takes the
   CPU a playing bot needs (bench_sandbox.py prints what one costs).

Options: --series-per-pair N (4), --rounds N (1), --concurrency N (2), --per-version N
(1), --skip-docker,
--skip-cluster.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from arena.cli.local import sample_bot_folders  # noqa: E402
from arena.core.manifest import BotManifest, content_hash, iter_bot_files  # noqa: E402
from arena.core.series import SeriesOutcome, SeriesSpec  # noqa: E402
from arena.core.settings import SeasonConfig  # noqa: E402
from arena.execution import Executor, LocalExecutor  # noqa: E402
from arena.match.runner import run_series  # noqa: E402
from arena.sandbox.base import Sandbox  # noqa: E402
from arena.season.formats import plan_season  # noqa: E402
from arena.season.runner import SeasonRunner  # noqa: E402
from arena.storage import Storage  # noqa: E402

IN_PROCESS_BOTS = ("random", "greedy", "shark")


def new_season(db: Path, folders: list[Path], sandbox: str, series_per_pair: int,
               concurrency: int = 2, seed: int = 3) -> tuple[Storage, int]:
    storage = Storage(db)
    ids = []
    for folder in folders:
        manifest = BotManifest.load(folder)
        record, _ = storage.register_bot(
            name=manifest.name, version=manifest.version, language=manifest.language,
            author="", description="", content_hash=content_hash(folder),
            source_folder=folder, files=list(iter_bot_files(folder)))
        ids.append(record.id)
    config = SeasonConfig.build(sandbox=sandbox, series_per_pair=series_per_pair, seed=seed,
                                concurrency=concurrency, max_hands=200)
    season = storage.create_season(
        name="bench", config=config.to_dict(), profile=config.profile(),
        bot_ids=ids, plan=[p.as_row() for p in plan_season(ids, series_per_pair, seed)])
    return storage, season.id


def play(make_executor: Callable[[], Executor], sandbox: str, folders: list[Path],
         series_per_pair: int, concurrency: int = 2, place: Path | None = None,
         seed: int = 3) -> tuple[int, float, float, float, float, float]:
    """(series, season wall s, sum of series wall s, sum of think s, machine busy CPU
    s, CPU s the host took: steal). The database lives in ``place`` when given (a
    second season there plays the same registered bot folders), else in a temporary
    directory. A second season on kept containers needs another ``seed``: a kept
    container is never dealt the same cards twice (``arena.sandbox.reuse``)."""
    from bench_sandbox import busy_s, cpu_times, stolen_s

    with contextlib.ExitStack() as stack:
        scratch = place or stack.enter_context(
            tempfile.TemporaryDirectory(prefix="bench-cluster-"))
        storage, season_id = new_season(Path(scratch) / "a.db", folders, sandbox,
                                        series_per_pair, concurrency, seed)
        executor = make_executor()
        begun, before = time.perf_counter(), cpu_times()
        status = SeasonRunner(storage, season_id, executor).run()
        executor.close()
        wall, after = time.perf_counter() - begun, cpu_times()
        busy, stolen = busy_s(after) - busy_s(before), stolen_s(after) - stolen_s(before)
        results = storage.results(season_id)
        storage.close()
    assert status == "finished", status
    return (len(results), wall, sum(r.wall_seconds for r in results),
            sum(sum(r.think_seconds) for r in results), busy, stolen)


def in_sandbox(sandbox: Sandbox) -> Callable[[SeriesSpec], SeriesOutcome]:
    return lambda spec: run_series(spec, sandbox)


def bench_cluster(series_per_pair: int) -> None:
    from arena.execution.cluster import ClusterExecutor
    from arena.execution.local_cluster import down, up
    from arena.sandbox import registry

    folders = [ROOT / "sample_bots" / name for name in IN_PROCESS_BOTS]
    count, wall, *_ = play(
        lambda: LocalExecutor(in_sandbox(registry.create("inprocess")), 2), "inprocess",
        folders, series_per_pair)
    print(f"local executor, 2 at once: {count / wall * 60:7.1f} series/min "
          f"({count} series in {wall:.1f} s; in-process bots)")
    for workers, slots in ((1, 2), (2, 1)):
        with tempfile.TemporaryDirectory(prefix="bench-cluster-state-") as state:
            cluster = up(workers, slots=slots, sandboxes=["inprocess"], port=0,
                         state_dir=Path(state))
            try:
                # The cluster takes mutual TLS only: the client shows its certificate.
                count, wall, *_ = play(partial(ClusterExecutor, cluster.address, "inprocess",
                                               security=cluster.client_security()),
                                       "inprocess", folders, series_per_pair)
            finally:
                down(Path(state))
        print(f"cluster, {workers} worker(s) x {slots} slot(s): {count / wall * 60:7.1f} "
              f"series/min ({count} series in {wall:.1f} s)")


def bench_warm_pool(rounds: int, concurrency: int, per_version: int) -> None:
    from arena.sandbox.docker import DockerSandbox
    from arena.sandbox.images import build_bot_image, prepare_base
    from arena.sandbox.warm import WarmPool

    prepare_base()
    folders = sample_bot_folders()
    for folder in folders:
        build_bot_image(folder)
    totals: dict[str, list[float]] = {"cold": [0] * 6, "warm": [0] * 6}
    pools: list[WarmPool] = []

    def executor(kind: str) -> Executor:
        sandbox: Sandbox = DockerSandbox()
        if kind == "warm":
            pool = WarmPool(sandbox, per_version=per_version)
            pools.append(pool)
            sandbox = pool
        return LocalExecutor(in_sandbox(sandbox), concurrency)

    for _ in range(rounds):
        for kind in ("cold", "warm"):
            measured = play(lambda kind=kind: executor(kind),  # type: ignore[misc]
                            "docker", folders, 2, concurrency)
            totals[kind] = [a + b for a, b in zip(totals[kind], measured, strict=True)]
            for pool in pools:
                pool.close()
    cores = os.cpu_count() or 1
    for kind, (count, wall, series_wall, think, busy, stolen) in totals.items():
        label = "warm pool" if kind == "warm" else "no pool  "
        print(f"docker season, {concurrency} at once, {label}: {count / wall * 60:6.1f} "
              f"series/min; arena share {(1 - think / series_wall) * 100:5.1f} % of series "
              f"wall, {(1 - think / (wall * concurrency)) * 100:5.1f} % of season wall x "
              f"{concurrency} slot(s) "
              f"({int(count)} series, season {wall:.1f} s, bots thinking {think:.1f} s; "
              f"machine busy {busy / (wall * cores) * 100:.0f} % of {cores} cores, "
              f"{stolen / (wall * cores) * 100:.0f} % taken by the host)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--series-per-pair", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--concurrency", type=int, default=2,
                        help="series at once in the Docker seasons (2)")
    parser.add_argument("--per-version", type=int, default=1,
                        help="the warm pool's spares per bot version (1)")
    parser.add_argument("--skip-docker", action="store_true")
    parser.add_argument("--skip-cluster", action="store_true")
    options = parser.parse_args()
    if not options.skip_cluster:
        bench_cluster(options.series_per_pair)
    if not options.skip_docker:
        bench_warm_pool(options.rounds, options.concurrency, options.per_version)
    return 0


if __name__ == "__main__":
    sys.exit(main())
