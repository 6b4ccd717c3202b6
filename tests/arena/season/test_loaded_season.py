"""The loaded-machine season (issue 25, points 1 and 5): hog processes keep every
core busy, 4 per core, while the sample bots play a season in Docker; no fault may
be charged to an honest bot (series voided for arena overload are allowed, and
counted), and a bot that really hangs on that machine is still charged.

The figures of each run (series, faults, voids, the slack a hanging bot was given)
are printed on one ``LOADED-SEASON`` line; docs/testing.md records three runs.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.core.faults import BotFault, FaultKind
from arena.core.limits import TimeLimits
from arena.core.manifest import content_hash, iter_bot_files
from arena.core.series import BotRef, SeriesSpec
from arena.core.settings import SeasonConfig
from arena.core.status import SeasonStatus
from arena.execution import LocalExecutor
from arena.match.runner import run_series
from arena.sandbox import registry
from arena.season.formats import plan_season
from arena.season.runner import SeasonRunner
from arena.storage import Storage, voids_of
from engine.profiles import get_profile
from tests.helpers.sandboxes import HOSTILE_BOTS, SAMPLE_BOTS

pytestmark = [pytest.mark.slow, pytest.mark.docker]

HOGS_PER_CORE = 4
HONEST = ("greedy", "random", "shark")
LIMITS = TimeLimits(startup_s=10.0, decision_s=0.3, reserve_s=0.5)
"""The hostile suite's tight limits: a wall clock would charge honest bots at this load."""
FIGURES = re.compile(r"bot CPU (\d+\.\d\d) s, waited for a core (\d+\.\d\d) s"
                     r"(?:, arena late (\d+\.\d\d) s)?")


@pytest.fixture
def hogs() -> Iterator[int]:
    """Busy processes, ``HOGS_PER_CORE`` per core, killed on every path."""
    count = HOGS_PER_CORE * (os.cpu_count() or 1)
    processes = [subprocess.Popen([sys.executable, "-c", "while True: pass"],
                                  start_new_session=True) for _ in range(count)]
    try:
        yield count
    finally:
        for process in processes:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def register(storage: Storage, folder: Path) -> str:
    record, _ = storage.register_bot(
        name=folder.name, version="1.0.0", language="python", author="", description="",
        content_hash=content_hash(folder), source_folder=folder,
        files=list(iter_bot_files(folder)))
    return record.id


def test_honest_bots_are_never_charged_on_a_loaded_machine(
        base_image: str, hogs: int, tmp_path: Path) -> None:
    storage = Storage(tmp_path / "arena.db")
    ids = [register(storage, SAMPLE_BOTS / name) for name in HONEST]
    config = SeasonConfig.build(sandbox="docker", seed=25, max_hands=20, concurrency=2,
                                startup_s=LIMITS.startup_s, decision_s=LIMITS.decision_s,
                                reserve_s=LIMITS.reserve_s)
    plan = plan_season(ids, config.series_per_pair, config.seed)
    season = storage.create_season(name="loaded", config=config.to_dict(),
                                   profile=config.profile(), bot_ids=ids,
                                   plan=[entry.as_row() for entry in plan])
    sandbox = registry.create("docker")  # reused containers over a warm pool: spares yield
    begun = time.monotonic()
    try:
        with LocalExecutor(lambda spec: run_series(spec, sandbox), config.concurrency) as pool:
            status = SeasonRunner(storage, season.id, pool).run()
        hang = _hanging_bot_under_load(sandbox)
    finally:
        close = getattr(sandbox, "close", None)
        if callable(close):
            close()
    took = time.monotonic() - begun
    results = storage.results(season.id)
    faults = [r for r in results if r.fault is not None]
    voids = voids_of(storage, season.id)
    figures = FIGURES.search(hang.message)
    cpu, waited, late = (float(x or 0) for x in figures.groups()) if figures else (-1, -1, 0)
    print(f"\nLOADED-SEASON hogs={hogs} series={len(results)}/{len(plan)} "
          f"faults_charged_to_honest_bots={len(faults)} series_voided={len(voids)} "
          f"status={status} hang_slack_s={waited + late:.2f} (bot CPU {cpu:.2f}) "
          f"took_s={took:.0f}")
    for void in voids:
        print(f"  voided {void.series_id}: {void.message}")
    for result in faults:
        print(f"  fault in {result.series_id}: {result.fault}")
    assert figures is not None, hang.message
    assert faults == [], [(r.series_id, r.fault) for r in faults]
    paused = storage.get_season(season.id).error.startswith("paused:")
    assert status is SeasonStatus.FINISHED or paused
    assert storage.get_season(season.id).series_voided == len(voids)
    assert hang.kind is FaultKind.TIMEOUT and hang.seat == 0


def _hanging_bot_under_load(sandbox: object) -> BotFault:
    """``never_answers`` against ``random`` on the same loaded machine: still charged."""
    bots = (BotRef.from_folder(HOSTILE_BOTS / "never_answers"),
            BotRef.from_folder(SAMPLE_BOTS / "random"))
    spec = SeriesSpec("loaded-hang", 3, get_profile("friendly"), 3, False, bots, LIMITS)
    outcome = run_series(spec, sandbox)  # type: ignore[arg-type]
    assert outcome.fault is not None, "the hanging bot was not charged"
    return outcome.fault
