"""What the host can tell of a running container without asking Docker: whether its
first process still runs, how much memory its cgroup uses (file reads, for the
checks ``arena.sandbox.reuse`` makes between series), and which tasks it runs (for
the fair clock's reading of them at every decision)."""

from __future__ import annotations

import contextlib
from pathlib import Path

from arena.sandbox.schedstat import PROC, ListedTasks, SchedSource, process_tree_source

CGROUP_ROOT = Path("/sys/fs/cgroup")


def process_running(pid: int) -> bool:
    """Whether ``pid`` exists and is not a zombie (its container's init exited)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[:1] != ["Z"]


def memory_counters(container_id: str, root: Path = CGROUP_ROOT) -> list[Path]:
    """Where the host may show a container's memory use: cgroup v1 and v2, with
    Docker's cgroupfs and systemd drivers."""
    return [root / "memory" / "docker" / container_id / "memory.usage_in_bytes",
            root / "docker" / container_id / "memory.current",
            root / "system.slice" / f"docker-{container_id}.scope" / "memory.current",
            root / "memory" / "system.slice" / f"docker-{container_id}.scope"
            / "memory.usage_in_bytes"]


def cgroup_memory(container_id: str, root: Path = CGROUP_ROOT) -> int | None:
    """The container's memory use from the first counter the host shows, or None."""
    for path in memory_counters(container_id, root):
        with contextlib.suppress(OSError, ValueError):
            return int(path.read_text().strip())
    return None


def task_listings(container_id: str, root: Path = CGROUP_ROOT) -> list[Path]:
    """Where the host may list every thread of a container: cgroup v1's ``tasks``
    (its pids or cpuacct hierarchy) and v2's ``cgroup.threads``, with Docker's
    cgroupfs and systemd drivers."""
    scope = f"docker-{container_id}.scope"
    return [root / "pids" / "docker" / container_id / "tasks",
            root / "cpuacct" / "docker" / container_id / "tasks",
            root / "pids" / "system.slice" / scope / "tasks",
            root / "docker" / container_id / "cgroup.threads",
            root / "system.slice" / scope / "cgroup.threads"]


def container_source(container_id: str, pid: int, root: Path = CGROUP_ROOT,
                     proc: Path = PROC) -> SchedSource:
    """The container's tasks: its cgroup's listing where the host shows one (one
    read, the files kept open: ``ListedTasks``), else the tree under its first
    process ``pid``."""
    for listing in task_listings(container_id, root):
        if listing.is_file():
            return ListedTasks(listing, proc)
    return process_tree_source(pid, proc)
