"""``LocalExecutor``: series played on a thread pool in this process, at most the
season's ``concurrency`` at once, each further one only when the machine's measured
load leaves a core for it (``arena.sandbox.admission``, the rule spares and builds
follow too)."""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from types import TracebackType

from arena.core.series import BotRef, SeriesOutcome, SeriesSpec
from arena.core.settings import SeasonConfig
from arena.execution.base import (
    Executor,
    ExecutorFactory,
    RunnerFactory,
    RunSeries,
    StartsAhead,
)
from arena.sandbox.admission import ADMISSION, Admission


class LocalExecutor:
    """Plays each submitted series with ``run_series`` on one of ``concurrency``
    threads; with an ``admission``, a series plays only once it admits it
    (``Admission.series``: the first at once, more while a core is idle)."""

    def __init__(self, run_series: RunSeries, concurrency: int, *, name: str = "series",
                 admission: Admission | None = None) -> None:
        if concurrency < 1:
            raise ValueError(f"concurrency must be at least 1, got {concurrency}")
        self.run_series = run_series
        self.admission = admission
        self._capacity = concurrency
        self._pool = ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix=name)

    @property
    def capacity(self) -> int:
        return self._capacity

    def submit(self, spec: SeriesSpec) -> Future[SeriesOutcome]:
        return self._pool.submit(self._play, spec)

    def start_ahead(self, bots: Sequence[BotRef]) -> None:
        """Hand ``bots`` to ``run_series`` to start ahead, if it can."""
        if isinstance(self.run_series, StartsAhead):
            self.run_series.start_ahead(bots)

    def _play(self, spec: SeriesSpec) -> SeriesOutcome:
        if self.admission is None:
            return self.run_series(spec)
        with self.admission.series():
            return self.run_series(spec)

    def close(self) -> None:
        """Wait for the series in flight, then close ``run_series`` if it can be
        closed (e.g. its sandbox's warm pool)."""
        self._pool.shutdown(wait=True)
        close = getattr(self.run_series, "close", None)
        if callable(close):
            close()

    def __enter__(self) -> LocalExecutor:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


def local_executor_factory(runner_factory: RunnerFactory,
                           admission: Admission | None = ADMISSION) -> ExecutorFactory:
    """An ``ExecutorFactory`` playing each season locally, at most ``concurrency``
    series at a time as ``admission`` (the process-wide one by default) admits them,
    with the ``RunSeries`` that ``runner_factory`` makes for the season."""

    def make(config: SeasonConfig) -> Executor:
        return LocalExecutor(runner_factory(config), config.concurrency,
                             admission=admission)

    return make
