"""A container's tasks read from its cgroup's listing (``arena.sandbox.schedstat.ListedTasks``,
``arena.sandbox.container_health.container_source``): every listed task's two times,
files kept open while the listing names them, nothing once the listing is gone; the
same tasks as the process tree walk finds, for real, in this process and in a
container."""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

import pytest

from arena.sandbox.container_health import container_source, task_listings
from arena.sandbox.schedstat import ListedTasks, process_tree
from tests.helpers.sandboxes import SAMPLE_BOTS, bot_ref


def fake_task(proc: Path, tid: int, ran_ns: int, waited_ns: int) -> None:
    (proc / str(tid)).mkdir(parents=True, exist_ok=True)
    (proc / str(tid) / "schedstat").write_text(f"{ran_ns} {waited_ns} 12\n")


def test_listed_tasks_are_read_and_followed(tmp_path: Path) -> None:
    proc = tmp_path / "proc"
    fake_task(proc, 101, 2_500_000_000, 1_000_000)
    fake_task(proc, 102, 40_000_000, 0)
    listing = tmp_path / "tasks"
    listing.write_text("101\n102\n103\nnot-a-tid\n")  # 103 has no schedstat: skipped
    source = ListedTasks(listing, proc)
    assert source() == {101: (2.5, 0.001), 102: (0.04, 0.0)}
    assert source.open_files() == 2
    # The files stay open and are read again from the start.
    (proc / "101" / "schedstat").write_text("3000000000 2000000 13\n")
    assert source()[101] == (3.0, 0.002)
    # A task that leaves the listing is dropped, its file closed; a new one is read.
    fake_task(proc, 104, 7_000_000, 5_000_000)
    listing.write_text("101\n104\n")
    assert source() == {101: (3.0, 0.002), 104: (0.007, 0.005)}
    assert source.open_files() == 2
    # The container is gone: its listing with it.
    listing.unlink()
    assert source() == {}
    assert source.open_files() == 0


def test_container_source_prefers_the_cgroups_listing(tmp_path: Path) -> None:
    cgroup, proc = tmp_path / "cgroup", tmp_path / "proc"
    fake_task(proc, 7, 1_000_000_000, 0)
    without = container_source("abc", 7, root=cgroup, proc=proc)
    assert not isinstance(without, ListedTasks)  # the tree under its first process
    listing = task_listings("abc", cgroup)[0]
    listing.parent.mkdir(parents=True)
    listing.write_text("7\n")
    with_listing = container_source("abc", 7, root=cgroup, proc=proc)
    assert isinstance(with_listing, ListedTasks) and with_listing() == {7: (1.0, 0.0)}


def test_this_process_listed_as_its_threads_are_the_tree_walks(tmp_path: Path) -> None:
    stop = threading.Event()
    worker = threading.Thread(target=stop.wait, daemon=True)
    worker.start()
    try:
        tids = sorted(int(name) for name in os.listdir("/proc/self/task"))
        listing = tmp_path / "tasks"
        listing.write_text("\n".join(map(str, tids)) + "\n")
        walked = process_tree(os.getpid())
        read = ListedTasks(listing)()  # the real /proc, read after the walk
    finally:
        stop.set()
        worker.join()
    assert worker.native_id in read and sorted(read) == tids
    for tid, (ran, waited) in read.items():
        assert ran >= walked[tid][0] and waited >= walked[tid][1]  # counters only grow


@pytest.mark.docker
def test_a_containers_tasks_come_from_its_cgroup(docker_sandbox: Any,
                                                 docker_client: Any) -> None:
    bot = docker_sandbox.start(bot_ref(SAMPLE_BOTS / "random"), series_id="listed", seat=0)
    try:
        bot.wait_ready(20)
        source = bot.sched_source()
        assert bot.sched_source() is source  # one source, its files kept, for every series
        pid = docker_client.containers.get(bot.container_id).attrs["State"]["Pid"]
        if not any(path.is_file() for path in task_listings(bot.container_id)):
            pytest.fail("this host shows no cgroup task listing for a container")
        assert isinstance(source, ListedTasks)
        listed = source()
        assert len(listed) >= 2 and sorted(listed) == sorted(process_tree(pid))
    finally:
        bot.stop()
    assert source() == {} and source.open_files() == 0
