"""What the kernel says a bot did with its time: ``/proc/<tid>/schedstat``.

Each task's ``schedstat`` holds three numbers: nanoseconds it ran on a core, nanoseconds
it was runnable but waited in a run queue, and how many times it ran. A *source* is a
callable answering those two times for every task (thread) of something, keyed by
thread id, so that a caller can take differences over a window (see
``arena.match.fair_clock``). Tasks are keyed by their host-wide thread id, so a thread
that exits keeps its last reading in the caller's books, and one that appears counts
from zero (a new task starts with both counters at zero).

Sources: a process tree (the process sandbox's child, a Docker container's processes
as the host sees them, found from the container's first process through
``/proc/<pid>/task/<tid>/children``), a set of threads (the in-process sandbox's
serving threads), and the calling thread (the arena's own scheduling delay). Where
``/proc`` offers no ``schedstat`` (another OS, a kernel without schedstats) every
source answers an empty mapping and the caller falls back to the wall clock.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Final

TaskTimes = tuple[float, float]
"""(seconds on a core, seconds runnable but waiting for one)."""
SchedSource = Callable[[], Mapping[int, TaskTimes]]

PROC: Final = Path("/proc")
MAX_TASKS: Final = 4096
"""A bot cannot make the arena read without bound: a tree is walked this far at most
(the sandboxes allow far fewer processes)."""


def read_task(path: Path | str) -> TaskTimes | None:
    """The two times in one ``schedstat`` file, or None if it is gone or unreadable."""
    try:
        # os.open/os.read rather than Path.read_text: a window reads one at every
        # decision, and the text layer costs more than the read.
        descriptor = os.open(path, os.O_RDONLY)
        try:
            fields = os.read(descriptor, 128).split()
        finally:
            os.close(descriptor)
        return int(fields[0]) / 1e9, int(fields[1]) / 1e9
    except (OSError, ValueError, IndexError):
        return None


def process_tree(root_pid: int, proc: Path = PROC) -> dict[int, TaskTimes]:
    """Every thread of ``root_pid`` and of its descendants (bounded by ``MAX_TASKS``).
    Read at every decision, so on strings and raw reads, not ``pathlib`` objects."""
    found: dict[int, TaskTimes] = {}
    pending = [root_pid]
    seen: set[int] = set()
    base = str(proc)
    while pending and len(seen) < MAX_TASKS:
        pid = pending.pop()
        if pid in seen:
            continue
        seen.add(pid)
        try:
            names = os.listdir(f"{base}/{pid}/task")
        except OSError:
            continue
        for name in names[:MAX_TASKS]:
            if not name.isdigit():
                continue
            task = f"{base}/{pid}/task/{name}"
            times = read_task(f"{task}/schedstat")
            if times is not None:
                found[int(name)] = times
            pending.extend(int(child) for child in _read_small(f"{task}/children").split()
                           if child.isdigit())
    return found


def _read_small(path: str) -> bytes:
    """A small /proc file's bytes (empty if it cannot be read)."""
    try:
        descriptor = os.open(path, os.O_RDONLY)
    except OSError:
        return b""
    try:
        return os.read(descriptor, 65536)
    except OSError:
        return b""
    finally:
        os.close(descriptor)


def process_tree_source(root_pid: int, proc: Path = PROC) -> SchedSource:
    """A source over ``root_pid``'s process tree."""
    return lambda: process_tree(root_pid, proc)


def threads_source(thread_ids: Iterable[int], proc: Path = PROC) -> SchedSource:
    """A source over the given threads of this process (read live: the set may grow)."""
    def read() -> dict[int, TaskTimes]:
        found: dict[int, TaskTimes] = {}
        for tid in list(thread_ids):
            times = read_task(f"{proc}/self/task/{tid}/schedstat")
            if times is not None:
                found[tid] = times
        return found
    return read


def current_thread_source(proc: Path = PROC) -> SchedSource:
    """A source over the calling thread (how late the arena itself was run)."""
    return threads_source([threading.get_native_id()], proc)


def no_source() -> dict[int, TaskTimes]:
    """A source that knows nothing (the wall clock decides alone)."""
    return {}
