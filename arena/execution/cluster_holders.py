"""On the scheduler: a worker reports only on the tasks it holds, as the scheduler
knows them (issue 43).

Dask trusts a worker's word about any task: ``task-erred`` is checked against the
task's run id only (a small counter anyone can guess), ``task-finished`` for a
finished task, and ``add-keys``, make the sender one more holder of the result
(and so a place the arena may fetch it from). A worker with a valid certificate
could fail every series of a season, or serve its own result for a series it never
played. ``guard_reports`` wraps the scheduler's handlers of what a worker says
about a task: a report about a task the scheduler has given to another worker (its
current run, or its result) closes the sender's stream, so the scheduler removes
that worker and gives its tasks to others. Stale reports (an earlier run of a task,
a task already released) go on to Dask, which ignores them or frees them on the
sender, as it always did.

``erred_on`` answers the arena's client which workers a failed task erred on, as
the scheduler saw it (``ClusterExecutor`` excludes those workers and plays the
series elsewhere), never what a worker or a task's exception claims.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from typing import Any, Final

log = logging.getLogger(__name__)

RUN_REPORTS: Final = frozenset({"task-finished", "task-erred", "long-running", "reschedule"})
"""Reports on one run of a task: only its current holder may make them."""
ERRED_ON_OP: Final = "arena-erred-on"
"""The scheduler handler the arena's client asks where a task erred."""


def foreign_report(scheduler: Any, op: str, worker: str, message: dict[str, Any]) -> str:
    """Why ``message`` (``op`` from ``worker``'s stream) is about a task the scheduler
    gave to another worker, '' if it is not (the sender's own task, or stale)."""
    if op == "add-keys":
        keys: Iterable[Any] = message.get("keys") or ()
        # The arena's series have no dependencies: no worker ever fetches another's
        # result, so a worker holds only what it computed.
        held = [key for key in keys if not _holds(scheduler, key, worker)]
        return f"claims to hold {_names(held)}, computed elsewhere" if held else ""
    if op == "steal-response":
        task = scheduler.tasks.get(message.get("key"))
        holder = _processing_on(task)
        if holder and holder != worker:
            return f"answers for {message.get('key')!r}, which {holder} holds"
        return ""
    task = scheduler.tasks.get(message.get("key"))
    if task is None or ("run_id" in message and message.get("run_id") != task.run_id):
        return ""  # unknown or stale: Dask ignores it or frees it on the sender
    holder = _processing_on(task)
    if task.state == "processing" and holder != worker:
        return f"reports on {task.key!r}, which the scheduler gave to {holder}"
    if task.state == "memory" and not _holds(scheduler, task.key, worker):
        return f"reports on {task.key!r}, whose result another worker holds"
    return ""


def _processing_on(task: Any) -> str:
    worker = getattr(task, "processing_on", None)
    return str(worker.address) if worker is not None else ""


def _holds(scheduler: Any, key: Any, worker: str) -> bool:
    task = scheduler.tasks.get(key)
    if task is None:
        return True  # Dask answers "remove-replicas": nothing is added
    return worker in {w.address for w in (task.who_has or ())} \
        or _processing_on(task) == worker


def _names(keys: list[Any], shown: int = 3) -> str:
    names = ", ".join(repr(key) for key in keys[:shown])
    return names + (f" and {len(keys) - shown} more" if len(keys) > shown else "")


def guard_reports(scheduler: Any) -> None:
    """Refuse, by closing its stream, a worker's report on a task it does not hold."""
    for op in (*RUN_REPORTS, "add-keys", "steal-response"):
        handler = scheduler.stream_handlers.get(op)
        if handler is not None:
            scheduler.stream_handlers[op] = _checked(scheduler, op, handler)

    def answer_erred_on(keys: Iterable[Any] = ()) -> dict[str, list[str]]:
        return erred_on(scheduler, keys)

    scheduler.handlers[ERRED_ON_OP] = answer_erred_on


def _checked(scheduler: Any, op: str, handler: Callable[..., Any]) -> Callable[..., Any]:
    def checked(**message: Any) -> Any:
        worker = str(message.get("worker", ""))
        why = foreign_report(scheduler, op, worker, message)
        if why:
            log.error("scheduler: worker %s %s (%r): removing it from the cluster",
                      worker, why, op)
            # Raised in a stream handler: Dask closes the stream and removes the worker.
            raise PermissionError(f"worker {worker} {why}")
        return handler(**message)

    return checked


def erred_on(scheduler: Any, keys: Iterable[Any]) -> dict[str, list[str]]:
    """For each erred task of ``keys``, the workers it erred on (the scheduler's view)."""
    answer: dict[str, list[str]] = {}
    for key in keys:
        task = scheduler.tasks.get(key)
        if task is not None and task.erred_on:
            answer[str(key)] = sorted(task.erred_on)
    return answer
