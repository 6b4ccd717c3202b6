"""The scheduler takes a worker's report on a task only from the worker it gave the
task to (issue 43): the check on a scheduler's task table in miniature (the real
cluster is in test_cluster_rogues.py)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from arena.execution.cluster_holders import erred_on, foreign_report, guard_reports

A = "tls://127.0.0.1:1001"
B = "tls://127.0.0.1:1002"


def task(key: str, state: str, run_id: int, on: str | None = None,
         who_has: tuple[str, ...] = (), erred: set[str] | None = None) -> SimpleNamespace:
    return SimpleNamespace(key=key, state=state, run_id=run_id,
                           processing_on=None if on is None else SimpleNamespace(address=on),
                           who_has=[SimpleNamespace(address=w) for w in who_has],
                           erred_on=erred)


def scheduler(*tasks: SimpleNamespace) -> SimpleNamespace:
    return SimpleNamespace(tasks={t.key: t for t in tasks}, handlers={}, stream_handlers={})


TABLE = scheduler(task("run", "processing", 7, on=A), task("done", "memory", 3, who_has=(A,)),
                  task("failed", "erred", 5, erred={A}))


@pytest.mark.parametrize("op", ["task-erred", "task-finished", "long-running"])
def test_a_report_on_another_workers_current_run_is_refused(op: str) -> None:
    assert foreign_report(TABLE, op, A, {"key": "run", "run_id": 7}) == ""
    assert foreign_report(TABLE, op, B, {"key": "run", "run_id": 7}) == (
        f"reports on 'run', which the scheduler gave to {A}")


def test_stale_and_unknown_reports_go_on_to_dask() -> None:
    assert foreign_report(TABLE, "task-erred", B, {"key": "run", "run_id": 6}) == ""
    assert foreign_report(TABLE, "task-erred", B, {"key": "gone", "run_id": 7}) == ""
    assert foreign_report(TABLE, "task-erred", B, {"key": "failed", "run_id": 5}) == ""


def test_only_a_holder_reports_on_a_finished_task_or_claims_its_result() -> None:
    assert foreign_report(TABLE, "task-finished", A, {"key": "done", "run_id": 3}) == ""
    assert "whose result another worker holds" in foreign_report(
        TABLE, "task-finished", B, {"key": "done", "run_id": 3})
    assert foreign_report(TABLE, "add-keys", A, {"keys": ["done", "run"]}) == ""
    assert foreign_report(TABLE, "add-keys", B, {"keys": ["done", "gone"]}) == (
        "claims to hold 'done', computed elsewhere")


def test_rescheduling_or_answering_a_steal_is_for_the_holder() -> None:
    assert foreign_report(TABLE, "reschedule", A, {"key": "run"}) == ""
    assert "which the scheduler gave to" in foreign_report(TABLE, "reschedule", B,
                                                            {"key": "run"})
    assert foreign_report(TABLE, "steal-response", A, {"key": "run"}) == ""
    assert foreign_report(TABLE, "steal-response", B, {"key": "run"}) == (
        f"answers for 'run', which {A} holds")


def test_the_guard_closes_the_senders_stream_and_answers_where_a_task_erred() -> None:
    table = scheduler(task("run", "processing", 7, on=A), task("failed", "erred", 5, erred={B}))
    handled: list[dict[str, Any]] = []
    table.stream_handlers["task-erred"] = lambda **message: handled.append(message)
    guard_reports(table)
    table.stream_handlers["task-erred"](key="run", run_id=7, worker=A, stimulus_id="s")
    assert handled == [{"key": "run", "run_id": 7, "worker": A, "stimulus_id": "s"}]
    with pytest.raises(PermissionError, match=f"worker {B} reports on 'run'"):
        table.stream_handlers["task-erred"](key="run", run_id=7, worker=B, stimulus_id="s")
    assert len(handled) == 1
    assert table.handlers["arena-erred-on"](keys=["failed", "run", "gone"]) == {"failed": [B]}
    assert erred_on(table, ["run"]) == {}
