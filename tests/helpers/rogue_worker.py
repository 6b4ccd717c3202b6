"""Cluster workers that try to sink a season (issue 43), for tests only: ``python
tests/helpers/rogue_worker.py MODE INSIGHT-FILE WORKER-ARGS...`` runs ``arena worker
WORKER-ARGS`` holding the cluster's valid worker certificate, misbehaving as MODE:

* ``raise``: every series task raises;
* ``answer-other``: answers each series with the real outcome of another planned
  series (INSIGHT-FILE: a JSON list of ``{"series_id", "seed", "swap_seats"}``);
* ``report-others``: plays honestly, and from the moment it joins reports every task
  key in INSIGHT-FILE (a JSON list, the arena's keys in flight, which an insider
  could know) as erred, under every run id up to ``RUN_IDS``;
* ``claim-forfeit``: answers each series with seat 0's start-up forfeit, an outcome
  verification accepts (the log stops before the first action).
"""

from __future__ import annotations

import json
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import arena.execution.worker as worker
from arena.cli import main
from arena.core.faults import BotFault, FaultKind
from arena.core.series import SeriesOutcome, SeriesSpec, outcome_of
from arena.match.runner import EventSink
from arena.sandbox.base import Sandbox
from engine.series import Series

RUN_IDS = 200
"""The run ids tried for each key (a fresh scheduler counts them from 1)."""
SPAM_BOUND_S = 240.0
"""How long the reporter keeps trying (it is removed long before, once it hits)."""

honest = worker.run_series


def read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return []


def raising(spec: SeriesSpec, sandbox: Sandbox, on_event: EventSink | None = None
            ) -> SeriesOutcome:
    raise RuntimeError(f"rogue: series {spec.series_id} is not played here")


def answering_other(insight: Path) -> Any:
    def play(spec: SeriesSpec, sandbox: Sandbox, on_event: EventSink | None = None
             ) -> SeriesOutcome:
        other = next(p for p in read_json(insight) if p["series_id"] != spec.series_id)
        return honest(replace(spec, series_id=other["series_id"], seed=other["seed"],
                              swap_seats=other["swap_seats"]), sandbox, None)

    return play


def claiming_forfeit(spec: SeriesSpec, sandbox: Sandbox, on_event: EventSink | None = None
                     ) -> SeriesOutcome:
    series = Series(spec.seed, spec.profile, max_hands=spec.max_hands,
                    swap_seats=spec.swap_seats)
    fault = BotFault(FaultKind.STARTUP, "the bot did not come up (says this worker)", seat=0)
    return outcome_of(spec.series_id, series, 1, fault, (0.0, 0.0), 0.0)


def reporting_others(insight: Path) -> Any:
    """``guard_server`` wrapped: the worker, once it serves, starts reporting."""
    guard = worker.guard_server

    def guard_and_report(dask_worker: Any, policy: Any) -> None:
        guard(dask_worker, policy)
        threading.Thread(target=report, args=(dask_worker, insight), daemon=True).start()

    return guard_and_report


def report(dask_worker: Any, insight: Path) -> None:
    give_up_at = time.monotonic() + SPAM_BOUND_S
    while time.monotonic() < give_up_at and dask_worker.status.name != "closed":
        own = set(dask_worker.state.tasks)
        forged = [{"op": "task-erred", "key": key, "run_id": run_id, "stimulus_id": "rogue",
                   "exception": None, "traceback": None, "exception_text": "forged",
                   "traceback_text": "", "thread": None, "startstops": []}
                  for key in read_json(insight) if key not in own
                  for run_id in range(1, RUN_IDS + 1)]
        if forged:
            dask_worker.loop.add_callback(send, dask_worker, forged)
        time.sleep(0.3)


def send(dask_worker: Any, messages: list[dict[str, Any]]) -> None:
    try:
        for message in messages:
            dask_worker.batched_stream.send(message)
    except Exception:  # the scheduler closed the stream: this worker was removed
        return


if __name__ == "__main__":
    mode, insight_file, *arguments = sys.argv[1:]
    insight = Path(insight_file)
    if mode == "raise":
        worker.run_series = raising  # type: ignore[assignment]
    elif mode == "answer-other":
        worker.run_series = answering_other(insight)
    elif mode == "report-others":
        worker.guard_server = reporting_others(insight)
    elif mode == "claim-forfeit":
        worker.run_series = claiming_forfeit  # type: ignore[assignment]
    else:
        sys.exit(f"unknown mode {mode!r}")
    sys.exit(main(["worker", *arguments]))
