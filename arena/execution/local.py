"""``LocalExecutor``: series played on a thread pool in this process, as many at
once as the season's ``concurrency``."""

from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor
from types import TracebackType

from arena.core.series import SeriesOutcome, SeriesSpec
from arena.core.settings import SeasonConfig
from arena.execution.base import Executor, ExecutorFactory, RunnerFactory, RunSeries


class LocalExecutor:
    """Plays each submitted series with ``run_series`` on one of ``concurrency``
    threads."""

    def __init__(self, run_series: RunSeries, concurrency: int, *, name: str = "series") -> None:
        if concurrency < 1:
            raise ValueError(f"concurrency must be at least 1, got {concurrency}")
        self.run_series = run_series
        self._capacity = concurrency
        self._pool = ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix=name)

    @property
    def capacity(self) -> int:
        return self._capacity

    def submit(self, spec: SeriesSpec) -> Future[SeriesOutcome]:
        return self._pool.submit(self.run_series, spec)

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


def local_executor_factory(runner_factory: RunnerFactory) -> ExecutorFactory:
    """An ``ExecutorFactory`` playing each season locally, ``concurrency`` series at
    a time, with the ``RunSeries`` that ``runner_factory`` makes for the season."""

    def make(config: SeasonConfig) -> Executor:
        return LocalExecutor(runner_factory(config), config.concurrency)

    return make
