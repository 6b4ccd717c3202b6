"""A thousand bots (plain script; `make bench` runs it; no Docker, no bots played).

Four figures of issue 42, each printed beside its target with ``FIGURE`` lines
for ``tests/bench/summary.py``:

1. **a 1,000-bot ladder plans each round quickly**: the ladder's own planning
   (``arena.season.open_rounds.plan_open_round``: members from the active
   versions, debts, ratings, matchmaking, the round stored) timed round after
   round while results pile up; each round's series are then stored at once with
   made-up results (no play), so the planning is all that is timed (CPU time:
   the figure a loaded machine does not change);
2. **a 1,000-bot round robin's plan (999,000 series) is created and stored**:
   the format's plan and ``Storage.create_season`` (one transaction), as
   CreateSeason does;
3. **its cost per series outside play stays flat** at 0 %, 50 % and 99 % stored:
   the database is filled to each share by direct writes (one SQL statement
   copying the planned series into made-up results, no event logs), then the
   real ``SeasonRunner`` (storage, verification hook, live standings board, event
   hub) plays a window of series whose play costs nothing, and the median gap
   between consecutive stored results and the process's CPU time per series over
   the window are the figures. The runner's start (reading the pending series,
   the board rebuilt from storage once) is outside the window;
4. **a server's first read of the season after a restart** at 99 % stored (its
   standings: ``StandingsBoard.latest`` on a new board, as a restarted server's
   first ``GetStandings``, page or resumed runner does): from the standings
   checkpoint (``arena.season.standings_checkpoint``) and, for comparison, with
   the checkpoint removed (every stored result applied, as before checkpoints);
   CPU time.

Options: --bots N (1000), --ladder-rounds N (30), --window N (2000), --tiny (a few
bots, a few rounds, small windows: that it runs, for ``tests/project/``).
"""

from __future__ import annotations

import argparse
import itertools
import os
import statistics
import sys
import tempfile
import threading
import time
from concurrent.futures import Future
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from figures import report  # noqa: E402

from arena.core.series import SeriesOutcome, SeriesSpec  # noqa: E402
from arena.core.settings import SeasonConfig  # noqa: E402
from arena.season import standings_live  # noqa: E402
from arena.season.events import EventHub, SeasonEvent  # noqa: E402
from arena.season.formats import LADDER_FORMAT, OpenEnded, format_for  # noqa: E402
from arena.season.ladder_gating import GateMatches  # noqa: E402
from arena.season.open_rounds import RoundsRead, plan_open_round  # noqa: E402
from arena.season.runner import SeasonRunner  # noqa: E402
from arena.season.standings_live import StandingsBoard  # noqa: E402
from arena.storage import Storage  # noqa: E402
from arena.storage.schema import RESULT_COLUMNS  # noqa: E402
from tests.helpers.arena_helpers import made_up_outcome, register_bots  # noqa: E402

PLAN_TARGET_S = 10.0
ROUND_TARGET_MS = 100.0
PER_SERIES_TARGET_MS = 2.0
RESTART_TARGET_S = 10.0


def load() -> str:
    return f"load {os.getloadavg()[0]:.1f}"


class Instant:
    """An executor whose every series is done at once with a made-up result."""

    capacity = 2

    def submit(self, spec: SeriesSpec) -> Future[SeriesOutcome]:
        future: Future[SeriesOutcome] = Future()
        future.set_result(made_up_outcome(spec.series_id, winner=spec.seed % 2))
        return future

    def __enter__(self) -> Instant:
        return self

    def __exit__(self, *_: object) -> None:
        return None

    def shutdown(self) -> None:
        return None


def trust(*_: object, **__: object) -> None:
    """Made-up results have no log to replay (``tests.helpers.arena_helpers.trust_outcome``)."""


def fill(storage: Storage, season_id: int, upto: int) -> None:
    """Made-up results for every unplayed series of plan index below ``upto``, in one
    statement (numbered on in plan order, as if stored one by one)."""
    columns = [column.strip() for column in RESULT_COLUMNS.split(",")]
    values = {"series_id": "p.id", "season_id": "p.season_id",
              "winner_seat": "p.seed % 2", "game_scores_json": "'[[0,0,0],[0,0,0]]'",
              "hands_played": "1", "fault_json": "NULL", "seed": "p.seed",
              "swap_seats": "p.swap_seats", "seat0_bot": "p.seat0_bot",
              "seat1_bot": "p.seat1_bot", "game_winners_json": "'[null,null,null]'",
              "played_by": "''", "finished_at": "'2026-01-01T00:00:00Z'",
              "stored_seq": "(SELECT COALESCE(MAX(stored_seq), 0) FROM series_results "
                            "WHERE season_id=?1) + ROW_NUMBER() OVER (ORDER BY p.idx)"}
    with storage.transaction() as db:
        db.execute(
            f"INSERT INTO series_results ({', '.join(columns)}) SELECT "
            + ", ".join(values.get(column, "0") for column in columns)
            + " FROM planned_series p LEFT JOIN series_results r ON r.series_id = p.id "
            "WHERE p.season_id=?1 AND p.idx < ?2 AND r.series_id IS NULL", (season_id, upto))


def ladder(root: Path, bots: int, rounds: int) -> None:
    storage = Storage(root / "ladder.db")
    ids = register_bots(storage, root / "bots", [f"bot{i:04d}" for i in range(bots)])
    config = SeasonConfig.build(format=LADDER_FORMAT, sandbox="process", seed=7)
    season_id = storage.create_season(name="ladder", config=config.to_dict(),
                                      profile=config.profile().to_dict(), bot_ids=ids,
                                      plan=[]).id
    season_format = format_for(LADDER_FORMAT, config)
    assert isinstance(season_format, OpenEnded)
    gates = GateMatches(lambda _: None, lambda _: None)
    rounds_read = RoundsRead()  # as the season runner keeps it between rounds
    times: list[float] = []
    members = 0
    for _ in range(rounds):
        began = time.process_time()
        pairings = plan_open_round(storage, season_id, season_format, config, gates,
                                   rounds_read)
        times.append((time.process_time() - began) * 1000)
        assert pairings, "the ladder planned nothing"
        members = len({bot for pairing in pairings for bot in (pairing.seat0, pairing.seat1)})
        total = storage.get_season(season_id).series_total
        fill(storage, season_id, total)
    stored = storage.get_season(season_id).series_done
    later = times[len(times) // 2:]
    print(f"ladder of {bots} bots ({members} meeting per round): planning a round (CPU) "
          f"median {statistics.median(later):.1f} ms, max {max(later):.1f} ms over rounds "
          f"{rounds - len(later) + 1}-{rounds} ({stored:,} series stored at the end); "
          f"first round {times[0]:.1f} ms   [target <= {ROUND_TARGET_MS:g} ms]; {load()}")
    report(f"{bots}-bot ladder: planning one round (median of the later rounds)",
           statistics.median(later), ROUND_TARGET_MS, unit="ms",
           conditions=f"max {max(later):.0f} ms, {stored:,} series stored")
    storage.close()


def round_robin(root: Path, bots: int, windows: int) -> None:
    storage = Storage(root / "round-robin.db")
    ids = register_bots(storage, root / "bots", [f"bot{i:04d}" for i in range(bots)])
    config = SeasonConfig.build(sandbox="process", seed=7)
    began, cpu_began = time.perf_counter(), time.process_time()
    season_format = format_for(config.format, config)
    plan = season_format.first_round(ids, config.seed)
    season = storage.create_season(name="round robin", config=config.to_dict(),
                                   profile=config.profile().to_dict(), bot_ids=ids,
                                   plan=[pairing.as_row() for pairing in plan])
    plan_s, plan_cpu = time.perf_counter() - began, time.process_time() - cpu_began
    total = season.series_total
    # The CPU time is the figure a loaded machine does not change (at load 15 on 2
    # cores the wall time is several times it); the wall time is printed beside it.
    print(f"round robin of {bots} bots: the plan of {total:,} series made and stored in "
          f"{plan_cpu:.2f} s of CPU, {plan_s:.2f} s wall   [target < {PLAN_TARGET_S:g} s]; "
          f"{load()}")
    report(f"{bots}-bot round robin: the plan ({total:,} series) stored, CPU", plan_cpu,
           PLAN_TARGET_S, unit="s", conditions=f"{plan_s:.1f} s wall")
    window = max(1, min(windows, total // 100 - 1))  # 1 % stays unplayed at 99 %
    costs = []
    for share in (0.0, 0.5, 0.99):
        fill(storage, season.id, int(share * total))
        wall, cpu = play_window(storage, season.id, window)
        costs.append((wall, cpu))
        print(f"per-series cost outside play at {share:4.0%} stored ({window} series): wall "
              f"gap median {wall:.2f} ms, CPU {cpu:.2f} ms   [target <= "
              f"{PER_SERIES_TARGET_MS:g} ms, flat]; {load()}")
        report(f"{bots}-bot round robin: per-series CPU outside play at {share:.0%} stored",
               cpu, PER_SERIES_TARGET_MS, unit="ms", conditions=f"wall gap median {wall:.2f} ms")
    spread = max(c for _, c in costs) / max(1e-9, min(c for _, c in costs))
    print(f"  spread of the CPU per series: {spread:.2f}x (flat: near 1)")
    report(f"{bots}-bot round robin: per-series CPU, most / least of the three", spread,
           unit="x")
    restart(storage, season.id, bots)
    storage.close()


def restart(storage: Storage, season_id: int, bots: int) -> None:
    """The first read of the season's standings by a new board (a restarted
    server's), from the checkpoint the runner's board saved, then without it."""
    stored = storage.get_season(season_id).series_done
    cpu_began = time.process_time()
    snapshot = StandingsBoard(storage).latest(season_id)
    from_checkpoint = time.process_time() - cpu_began
    assert snapshot.sequence == stored, (snapshot.sequence, stored)
    with storage.transaction() as db:
        db.execute("DELETE FROM standings_checkpoints WHERE season_id=?", (season_id,))
    cpu_began = time.process_time()
    rebuilt = StandingsBoard(storage).latest(season_id)
    every_result = time.process_time() - cpu_began
    assert rebuilt.standings == snapshot.standings, "the checkpoint's standings differ"
    print(f"first read after a restart at {stored:,} stored: {from_checkpoint:.2f} s of CPU "
          f"from the checkpoint (every {standings_live.CHECKPOINT_EVERY:,} results), "
          f"{every_result:.2f} s applying every stored result   [target <= "
          f"{RESTART_TARGET_S:g} s]; {load()}")
    report(f"{bots}-bot round robin: first standings read after a restart at 99 % stored, "
           "CPU", from_checkpoint, RESTART_TARGET_S, unit="s",
           conditions=f"{every_result:.1f} s without the checkpoint")


def play_window(storage: Storage, season_id: int, window: int) -> tuple[float, float]:
    """(median wall gap, CPU per series) in ms over ``window`` series played by the
    real runner with an instant executor."""
    hub = EventHub()
    cancel = threading.Event()
    subscription = hub.subscribe(season_id)
    stored: list[tuple[float, float]] = []

    ended = threading.Event()

    def follow() -> None:
        # Until the window is full, or the season has ended and its events are read
        # (a season that ends with the window's last series must still count it).
        while len(stored) <= window:
            event: SeasonEvent | None = subscription.get(0.1)
            if event is None and ended.is_set():
                break
            if event is not None and event.kind == "series_finished":
                stored.append((time.perf_counter(), time.process_time()))
        cancel.set()

    follower = threading.Thread(target=follow, daemon=True)
    follower.start()
    runner = SeasonRunner(storage, season_id, Instant(), hub=hub, cancel=cancel,  # type: ignore[arg-type]
                          board=StandingsBoard(storage), verify=trust)
    runner.run()
    ended.set()  # a season that ended before the window did: its last events still count
    follower.join()
    if len(stored) <= window:
        raise SystemExit(f"only {len(stored)} series stored for a window of {window}")
    gaps = [(after[0] - before[0]) * 1000 for before, after in itertools.pairwise(stored)]
    cpu = (stored[window][1] - stored[0][1]) * 1000 / window
    return statistics.median(gaps[:window]), cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, default=1000)
    parser.add_argument("--ladder-rounds", type=int, default=30)
    parser.add_argument("--window", type=int, default=2000)
    parser.add_argument("--tiny", action="store_true",
                        help="12 bots, 4 ladder rounds, windows of 10 series")
    args = parser.parse_args()
    if args.tiny:
        args.bots, args.ladder_rounds, args.window = 12, 4, 10
        standings_live.CHECKPOINT_EVERY = 20  # type: ignore[misc]  # the checkpoint's path too
    with tempfile.TemporaryDirectory(prefix="bench-thousand-") as scratch:
        ladder(Path(scratch) / "ladder", args.bots, args.ladder_rounds)
        round_robin(Path(scratch) / "round-robin", args.bots, args.window)


if __name__ == "__main__":
    main()
