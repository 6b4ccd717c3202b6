"""In-process versus process sandbox (plain script): series per second, greedy v
random, each series a full ``run_series`` (bots started and stopped every time),
played one after another. ``python tests/bench/bench_inprocess.py [SERIES]``."""

from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from arena.core.limits import TimeLimits  # noqa: E402
from arena.core.series import BotRef, SeriesSpec  # noqa: E402
from arena.match.runner import run_series  # noqa: E402
from arena.sandbox import registry  # noqa: E402
from engine.profiles import get_profile  # noqa: E402

LIMITS = TimeLimits(startup_s=20.0, decision_s=1.0, reserve_s=30.0)
BOTS = (BotRef.from_folder(ROOT / "sample_bots" / "greedy"),
        BotRef.from_folder(ROOT / "sample_bots" / "random"))


def series_per_second(backend: str, count: int) -> tuple[float, float]:
    """(series per second, decisions per second) over ``count`` series."""
    sandbox = registry.create(backend)
    decisions = 0
    begun = time.perf_counter()
    for index in range(count):
        spec = SeriesSpec(series_id=f"bench-{index}", seed=1000 + index,
                          profile=get_profile("friendly"), max_hands=200,
                          swap_seats=bool(index % 2), bots=BOTS, limits=LIMITS)
        outcome = run_series(spec, sandbox)
        assert outcome.fault is None, outcome.fault
        decisions += sum(1 for event in outcome.log if event.get("type") == "action")
    elapsed = time.perf_counter() - begun
    return count / elapsed, decisions / elapsed


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    for backend in ("inprocess", "process"):
        series, decisions = series_per_second(backend, count)
        print(f"{backend:>9}: {series:6.2f} series/s, {decisions:7.0f} decisions/s "
              f"(greedy v random, {count} series, 200-hand cap)")


if __name__ == "__main__":
    main()
