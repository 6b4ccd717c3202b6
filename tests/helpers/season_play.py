"""The one way tests play a stored season to its end: ``play(storage, season_id, run)``
runs its ``SeasonRunner`` on a local executor and answers the season's final status."""

from __future__ import annotations

import threading
from typing import Any

from arena.execution import LocalExecutor
from arena.season.runner import SeasonRunner
from arena.season.verify import OutcomeCheck
from arena.storage import Storage
from tests.helpers.arena_helpers import trust_outcome
from tests.helpers.fake_runner import run_fake_series


def play(storage: Storage, season_id: int, run: Any = run_fake_series,
         cancel: threading.Event | None = None, *, concurrency: int = 1,
         verify: OutcomeCheck = trust_outcome, **options: Any) -> str:
    """Play season ``season_id`` with ``run`` (a ``RunSeries``; the fake runner by
    default) on ``concurrency`` threads until it ends or ``cancel`` is set; its final
    status. Outcomes are trusted (most tests' are made up); ``verify=verify_outcome``
    replays each as the server does. Other keywords are ``SeasonRunner``'s (``hub=``,
    ``gate_matches=``...)."""
    with LocalExecutor(run, concurrency) as executor:
        return SeasonRunner(storage, season_id, executor, cancel=cancel, verify=verify,
                            **options).run()
