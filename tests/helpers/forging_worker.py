"""A cluster worker that forges its results, for tests only: ``python
tests/helpers/forging_worker.py WORKER-ARGS...`` runs ``arena worker WORKER-ARGS`` whose every
outcome claims a 9999-0 win for seat 0 (issue 26's forged result). It holds a valid
cluster certificate: the attack of an insider, which only verification stops."""

from __future__ import annotations

import sys
from dataclasses import replace

import arena.execution.worker as worker
from arena.cli import main
from arena.core.series import SeriesOutcome, SeriesSpec
from arena.match.runner import EventSink
from arena.sandbox.base import Sandbox

honest = worker.run_series


def forged(spec: SeriesSpec, sandbox: Sandbox, on_event: EventSink | None = None
           ) -> SeriesOutcome:
    outcome = honest(spec, sandbox, on_event)
    return replace(outcome, fault=None, result=replace(outcome.result, winner=0,
                                                       points=(9999, 0), games_won=(3, 0)))


worker.run_series = forged  # type: ignore[assignment]

if __name__ == "__main__":
    sys.exit(main(["worker", *sys.argv[1:]]))
