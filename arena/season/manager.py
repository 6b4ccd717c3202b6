"""``SeasonManager``: seasons played in background threads, one ``SeasonRunner``
each, on an executor made for the season's configuration. A season that opens
another (a ladder's gate match) starts it here too, in a thread of its own."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from arena.core.status import SeasonStatus
from arena.execution import ExecutorFactory
from arena.season.events import EventHub, SeasonEvent
from arena.season.ladder_gating import GateMatches, settle_match
from arena.season.runner import SeasonRunner
from arena.season.standings_live import StandingsBoard
from arena.season.start_ahead import start_first_series
from arena.storage import Storage

log = logging.getLogger(__name__)


class SeasonManager:
    """Runs seasons in background threads: one ``SeasonRunner`` per running season.
    ``resume_interrupted`` restarts every season a stopped server left RUNNING."""

    def __init__(
        self, storage: Storage, executor_factory: ExecutorFactory, hub: EventHub,
        board: StandingsBoard | None = None,
    ) -> None:
        self.storage = storage
        self.board = board if board is not None else StandingsBoard(storage)
        self.executor_factory = executor_factory
        self.hub = hub
        self._lock = threading.Lock()
        self._threads: dict[int, threading.Thread] = {}
        self._cancels: dict[int, threading.Event] = {}
        self.finished_hooks: list[Callable[[int], None]] = []
        """Called with a season's id on its thread once it has finished (e.g. a
        league making its next round); a hook's error is logged, the season stays
        finished."""

    def is_active(self, season_id: int) -> bool:
        with self._lock:
            thread = self._threads.get(season_id)
            return thread is not None and thread.is_alive()

    def start(self, season_id: int) -> None:
        """Start playing a season in the background (no-op if it is playing already)."""
        with self._lock:
            thread = self._threads.get(season_id)
            if thread is not None and thread.is_alive():
                return
            self.storage.get_season(season_id)  # NotFoundError before anything changes
            cancel = threading.Event()
            # Marked RUNNING before the call returns, so readers never see it idle.
            self.storage.set_season_status(season_id, SeasonStatus.RUNNING)
            thread = threading.Thread(target=self._run, args=(season_id, cancel),
                                      name=f"season-{season_id}", daemon=True)
            self._threads[season_id] = thread
            self._cancels[season_id] = cancel
            self.starting(season_id)
            thread.start()

    def starting(self, season_id: int) -> None:
        """Called as a season is about to start playing, before any of its series
        (a subclass may log it)."""

    def _run(self, season_id: int, cancel: threading.Event) -> None:
        # The executor (e.g. over a Docker sandbox, which may first build the base
        # image) is made here, off the RPC thread; if it cannot be made the season
        # fails with why.
        try:
            season = self.storage.get_season(season_id)
            executor = self.executor_factory(season.config)
            try:
                start_first_series(self.storage, season, executor)
                status = SeasonRunner(self.storage, season_id, executor, hub=self.hub,
                                      cancel=cancel, board=self.board,
                                      gate_matches=GateMatches(self.start, self.cancel)).run()
                settle_match(self.storage, season_id)  # a ladder's gate match: its verdict
            finally:
                executor.close()
            if status is SeasonStatus.FINISHED:
                self._finished(season_id)
        except Exception as error:
            log.exception("season %d stopped", season_id)
            self.storage.set_season_status(
                season_id, SeasonStatus.FAILED, f"{type(error).__name__}: {error}")
            self.hub.publish(SeasonEvent("status", season_id, status=SeasonStatus.FAILED))

    def _finished(self, season_id: int) -> None:
        for hook in list(self.finished_hooks):
            try:
                hook(season_id)
            except Exception:
                log.exception("season %d: a hook on its finish failed", season_id)

    def cancel(self, season_id: int) -> None:
        """Stop starting new series of a season; series in flight finish and are stored."""
        with self._lock:
            cancel = self._cancels.get(season_id)
            thread = self._threads.get(season_id)
        if cancel is not None and thread is not None and thread.is_alive():
            cancel.set()
        else:
            self.storage.set_season_status(season_id, SeasonStatus.CANCELLED)
            self.hub.publish(SeasonEvent("status", season_id, status=SeasonStatus.CANCELLED))

    def resume_interrupted(self) -> list[int]:
        """Start every season left RUNNING by a previous server; returns their ids."""
        resumed = self.storage.seasons_with_status(SeasonStatus.RUNNING)
        for season_id in resumed:
            log.info("resuming season %d", season_id)
            self.start(season_id)
        return resumed

    def wait(self, season_id: int, timeout: float | None = None) -> bool:
        """Wait for a season's thread; True if it is no longer playing."""
        with self._lock:
            thread = self._threads.get(season_id)
        if thread is not None:
            thread.join(timeout)
            return not thread.is_alive()
        return True
