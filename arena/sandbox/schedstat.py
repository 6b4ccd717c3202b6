"""What the kernel says a bot did with its time: ``/proc/<tid>/schedstat``.

Each task's ``schedstat`` holds three numbers: nanoseconds it ran on a core, nanoseconds
it was runnable but waited in a run queue, and how many times it ran. A *source* is a
callable answering those two times for every task (thread) of something, keyed by
thread id, so that a caller can take differences over a window (see
``arena.match.fair_clock``). Tasks are keyed by their host-wide thread id, so a thread
that exits keeps its last reading in the caller's books, and one that appears counts
from zero (a new task starts with both counters at zero).

Sources: a process tree (the process sandbox's child, or a Docker container's
processes as the host sees them, found from the container's first process through
``/proc/<pid>/task/<tid>/children``), the tasks a listing names (a Docker
container's cgroup, where the host shows it: ``ListedTasks``), a set of threads (the
in-process sandbox's serving threads), and the calling thread (the arena's own
scheduling delay). Where
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


class ListedTasks:
    """A source over the tasks a listing names (a container's cgroup ``tasks`` or
    ``cgroup.threads``: every thread of the container, one read), each task's
    ``schedstat`` opened once and read with one ``pread`` while the listing names it.
    A fair-clock window reads its bot at every decision; walking the process tree
    (a directory listing per process, two files per thread) took 0.3 ms for a Python
    bot's ten threads, this 0.03 ms. The listing is read every time, so a task that
    appears is seen at once; an unreadable listing (the container is gone) answers
    nothing and closes every file."""

    def __init__(self, listing: Path | str, proc: Path = PROC) -> None:
        self._listing = str(listing)
        self._proc = str(proc)
        self._open: dict[int, int] = {}
        self._lock = threading.Lock()

    def __call__(self) -> dict[int, TaskTimes]:
        listed = _read_small(self._listing).split()
        with self._lock:
            found: dict[int, TaskTimes] = {}
            for word in listed[:MAX_TASKS]:
                if not word.isdigit():
                    continue
                tid = int(word)
                times = self._read(tid)
                if times is not None:
                    found[tid] = times
            for tid in [tid for tid in self._open if tid not in found]:
                os.close(self._open.pop(tid))
            return found

    def _read(self, tid: int) -> TaskTimes | None:
        descriptor = self._open.get(tid)
        if descriptor is None:
            try:
                descriptor = self._open[tid] = os.open(f"{self._proc}/{tid}/schedstat",
                                                       os.O_RDONLY)
            except OSError:
                return None
        try:
            fields = os.pread(descriptor, 128, 0).split()
            return int(fields[0]) / 1e9, int(fields[1]) / 1e9
        except (OSError, ValueError, IndexError):  # the task is gone
            return None

    def open_files(self) -> int:
        with self._lock:
            return len(self._open)

    def __del__(self) -> None:
        for descriptor in self._open.values():
            os.close(descriptor)


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


class _OwnFile:
    """The ``schedstat`` of the thread that made it, opened once and read with one
    ``pread`` each time: every fair-clock window reads it (at each decision), and
    opening, reading and closing the file cost five times as much."""

    def __init__(self) -> None:
        self.tid = threading.get_native_id()
        try:
            self._descriptor: int | None = os.open(f"{PROC}/self/task/{self.tid}/schedstat",
                                                   os.O_RDONLY)
        except OSError:
            self._descriptor = None

    def read(self) -> dict[int, TaskTimes]:
        if self._descriptor is None:
            return {}
        try:
            fields = os.pread(self._descriptor, 128, 0).split()
            return {self.tid: (int(fields[0]) / 1e9, int(fields[1]) / 1e9)}
        except (OSError, ValueError, IndexError):  # the thread is gone
            return {}

    def __del__(self) -> None:
        if self._descriptor is not None:
            os.close(self._descriptor)


class _PerThread(threading.local):
    own: _OwnFile | None = None


_per_thread = _PerThread()


def _forget_in_child() -> None:
    """A forked child's only thread is not the thread whose file it inherited."""
    global _per_thread
    _per_thread = _PerThread()


os.register_at_fork(after_in_child=_forget_in_child)


def current_thread_source(proc: Path = PROC) -> SchedSource:
    """A source over the calling thread (how late the arena itself was run); it keeps
    reading that thread whichever thread calls it."""
    if proc is not PROC:  # a test's /proc (identity: a Path comparison is a Python call)
        return threads_source([threading.get_native_id()], proc)
    own = _per_thread.own
    if own is None:
        own = _per_thread.own = _OwnFile()
    return own.read


def no_source() -> dict[int, TaskTimes]:
    """A source that knows nothing (the wall clock decides alone)."""
    return {}
