"""What verifying an outcome costs (issue 26: the season replays every outcome's log
before storing it), next to what playing the series cost (plain script).

Series of greedy v shark (sample bots) are played one after another with
``run_series``, in the ``inprocess`` sandbox (the cheapest way to play: no process,
no container; the process and Docker sandboxes only make play dearer) and, for
comparison, the ``process`` sandbox. Each outcome is then verified
(``arena.season.verify.verify_outcome``) ``REPEATS`` times. Printed: per series,
play and verification in wall milliseconds and verification CPU milliseconds, and
verification as a share of play against the target.
``python tests/bench/bench_verify.py [SERIES]``.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from arena.core.limits import TimeLimits  # noqa: E402
from arena.core.series import BotRef, SeriesOutcome, SeriesSpec  # noqa: E402
from arena.match.runner import run_series  # noqa: E402
from arena.sandbox import registry  # noqa: E402
from arena.season.verify import verify_outcome  # noqa: E402
from tests.helpers import series_specs  # noqa: E402

TARGET_SHARE = 0.05
"""Verification must stay small next to play: at most 5 % of a series' play time."""
REPEATS = 5
LIMITS = TimeLimits(startup_s=20.0, decision_s=1.0, reserve_s=30.0)
BOTS = (BotRef.from_folder(ROOT / "sample_bots" / "greedy"),
        BotRef.from_folder(ROOT / "sample_bots" / "shark"))


def spec(index: int) -> SeriesSpec:
    return series_specs.spec(*BOTS, f"bench-{index}", seed=5000 + index, max_hands=200,
                             swap_seats=bool(index % 2), limits=LIMITS)


def play(backend: str, count: int) -> list[tuple[SeriesSpec, SeriesOutcome, float]]:
    sandbox = registry.create(backend)
    played = []
    for index in range(count):
        planned = spec(index)
        begun = time.perf_counter()
        outcome = run_series(planned, sandbox)
        played.append((planned, outcome, time.perf_counter() - begun))
    close = getattr(sandbox, "close", None)
    if callable(close):
        close()
    return played


def verify_times(planned: SeriesSpec, outcome: SeriesOutcome) -> tuple[float, float]:
    """(wall s, CPU s) of one verification, the median of ``REPEATS``."""
    walls, cpus = [], []
    for _ in range(REPEATS):
        wall, cpu = time.perf_counter(), time.process_time()
        verify_outcome(outcome, seed=planned.seed, profile=planned.profile,
                       max_hands=planned.max_hands, swap_seats=planned.swap_seats)
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return statistics.median(walls), statistics.median(cpus)


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    for backend in ("inprocess", "process"):
        played = play(backend, count)
        plays = [seconds for _, _, seconds in played]
        checks = [verify_times(planned, outcome) for planned, outcome, _ in played]
        actions = [sum(1 for e in outcome.log if e.get("type") == "action")
                   for _, outcome, _ in played]
        play_ms = statistics.mean(plays) * 1000
        verify_ms = statistics.mean(wall for wall, _ in checks) * 1000
        verify_cpu_ms = statistics.mean(cpu for _, cpu in checks) * 1000
        share = verify_ms / play_ms
        verdict = "ok" if share <= TARGET_SHARE else "OVER TARGET"
        print(f"{backend:>9}: {count} series greedy v shark, {statistics.mean(actions):.0f} "
              f"actions each: play {play_ms:7.1f} ms/series, verify {verify_ms:5.1f} ms "
              f"wall ({verify_cpu_ms:5.1f} ms CPU) = {share:6.2%} of play "
              f"(target <= {TARGET_SHARE:.0%}: {verdict})")


if __name__ == "__main__":
    main()
