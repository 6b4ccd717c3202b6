"""Executors: where a season's series are played. The season runner submits a
``SeriesSpec`` to an ``Executor`` and receives its ``SeriesOutcome`` (or an error)
through a future; ``LocalExecutor`` plays them on a local thread pool, and a
cluster executor implements the same protocol."""

from arena.execution.base import (
    ExcludesPlayers,
    Executor,
    ExecutorFactory,
    PlaysElsewhere,
    RunnerFactory,
    RunSeries,
    StartsAhead,
)
from arena.execution.local import LocalExecutor, local_executor_factory

__all__ = [
    "ExcludesPlayers",
    "Executor",
    "ExecutorFactory",
    "LocalExecutor",
    "PlaysElsewhere",
    "RunSeries",
    "RunnerFactory",
    "StartsAhead",
    "local_executor_factory",
]
