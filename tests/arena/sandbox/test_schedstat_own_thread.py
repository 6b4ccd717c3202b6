"""The arena thread's own ``schedstat`` is kept open and read with one ``pread``
(``arena.sandbox.schedstat.current_thread_source``, read by every fair-clock window):
it must read what a fresh open reads, stay with the thread that made it, open one
file per thread, close it when the thread is gone, and not follow a fork."""

from __future__ import annotations

import gc
import os
import threading
from pathlib import Path

import pytest

from arena.sandbox.schedstat import SchedSource, current_thread_source, read_task
from tests.helpers.polling import wait_until

pytestmark = pytest.mark.skipif(not Path("/proc/self/schedstat").exists(),
                                reason="no schedstat on this kernel")


def own_path() -> str:
    return f"/proc/self/task/{threading.get_native_id()}/schedstat"


def schedstat_files(tid: int) -> int:
    """This process's open files that are thread ``tid``'s schedstat (only those:
    other tests' threads open and close files of their own at any time)."""
    count = 0
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:  # closed since the listing
            continue
        count += target.endswith(f"/task/{tid}/schedstat")
    return count


def test_it_reads_what_a_fresh_open_reads() -> None:
    source = current_thread_source()
    first = source()
    fresh = read_task(own_path())
    sum(range(200_000))  # some CPU between the readings (seen at the next tick)
    second = source()
    tid = threading.get_native_id()
    assert list(first) == list(second) == [tid]
    assert fresh is not None
    assert first[tid][0] <= fresh[0] <= second[tid][0]
    assert first[tid][1] <= fresh[1] <= second[tid][1]


def test_it_stays_with_the_thread_that_made_it_and_closes_after_it() -> None:
    made: list[SchedSource] = []
    tids: list[int] = []

    def maker() -> None:
        tids.append(threading.get_native_id())
        made.append(current_thread_source())

    thread = threading.Thread(target=maker)
    thread.start()
    thread.join()
    assert tids[0] != threading.get_native_id()
    assert set(made[0]()) <= {tids[0]}
    wait_until(lambda: not made[0](), what="the maker's task to end")
    made.clear()
    gc.collect()
    assert schedstat_files(tids[0]) == 0


def test_one_file_per_thread_however_many_windows() -> None:
    current_thread_source()()
    tid = threading.get_native_id()
    assert schedstat_files(tid) == 1
    for _ in range(200):
        current_thread_source()()
    assert schedstat_files(tid) == 1


def test_a_forked_child_reads_its_own_thread() -> None:
    current_thread_source()()  # the parent's file is open before the fork
    reader, writer = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - the child reports through the pipe
        try:
            keys = list(current_thread_source()())
            os.write(writer, f"{keys == [threading.get_native_id()]}".encode())
        finally:
            os._exit(0)
    os.close(writer)
    try:
        answer = os.read(reader, 16)
    finally:
        os.close(reader)
        os.waitpid(child, 0)
    assert answer == b"True"
