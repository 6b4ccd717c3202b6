"""A real local Dask cluster for the cluster tests (``arena cluster up`` as a function):
a scheduler and single-slot workers offering the in-process sandbox, stopped at the
end with every process it started gone."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from arena.execution.local_cluster import LocalCluster, down, is_running, up


def running_cluster(tmp_path_factory: pytest.TempPathFactory, workers: int,
                    folder: str = "cluster") -> Iterator[LocalCluster]:
    """Yields a cluster of ``workers`` workers (state under a new ``folder``), then
    stops it; for a fixture to ``yield from``."""
    state = tmp_path_factory.mktemp(folder)
    started = up(workers, slots=1, sandboxes=["inprocess"], port=0, state_dir=state)
    yield started
    down(state)
    assert not any(is_running(process) for process in started.processes)
