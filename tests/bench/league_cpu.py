"""Where the CPU of a Docker league goes, for tests/bench/bench_league.py (the wall
share means little on a machine other work keeps saturated: then the arena waits
for cores like everything else, and admits fewer series at once).

Three accounts, read from the kernel:

* the arena: this process's own CPU (the server, its seasons, the match loop, the
  engine, storage, the Docker API client; also the benchmark's own polling);
* Docker's daemons: ``dockerd``, ``containerd`` and the containers' shims (with the
  ``runc`` runs they waited for), as deltas of ``/proc/<pid>/stat``; shared with any
  other Docker work on the machine, and a shim that exited meanwhile is missed;
* the bots: every container of this process, its cgroup's CPU counter, sampled
  while the league runs (a container's counter starts again at a restart, which
  the sampler sees as a drop), their start-ups included.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

CGROUP = Path("/sys/fs/cgroup")
DAEMONS = ("dockerd", "containerd", "containerd-shim", "containerd-shim-runc-v2")
TICK = os.sysconf("SC_CLK_TCK")


def process_cpu(pid: int, children: bool = True) -> float | None:
    """CPU seconds of ``pid`` (and of the children it waited for), or None."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat.rpartition(")")[2].split()
    ticks = sum(int(value) for value in fields[11:15 if children else 13])
    return ticks / TICK


def daemons() -> dict[int, float]:
    """Docker's daemons now: pid -> CPU seconds."""
    found: dict[int, float] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            name = (entry / "comm").read_text().strip()
        except OSError:
            continue
        if name in DAEMONS:
            cpu = process_cpu(int(entry.name))
            if cpu is not None:
                found[int(entry.name)] = cpu
    return found


def daemons_used(before: dict[int, float], after: dict[int, float]) -> float:
    """CPU the daemons used between two readings (a new shim: all of its own)."""
    return sum(cpu - before.get(pid, 0.0) for pid, cpu in after.items())


def container_cpu(container_id: str) -> float | None:
    """A container's cgroup CPU seconds (cgroup v1 or v2), or None."""
    scope = f"docker-{container_id}.scope"
    for path in (CGROUP / "cpuacct" / "docker" / container_id / "cpuacct.usage",
                 CGROUP / "cpuacct" / "system.slice" / scope / "cpuacct.usage"):
        try:
            return int(path.read_text()) / 1e9
        except (OSError, ValueError):
            pass
    for path in (CGROUP / "docker" / container_id / "cpu.stat",
                 CGROUP / "system.slice" / scope / "cpu.stat"):
        try:
            for line in path.read_text().splitlines():
                key, _, value = line.partition(" ")
                if key == "usage_usec":
                    return int(value) / 1e6
        except (OSError, ValueError):
            pass
    return None


class BotsCpu:
    """The CPU of this process's bot containers, summed over their restarts."""

    def __init__(self, client: Any, owner_label: str) -> None:
        self._client = client
        self._label = f"{owner_label}={os.getpid()}"
        self._ids: list[str] = []
        self._last: dict[str, float] = {}
        self.total = 0.0

    def list_containers(self) -> None:
        """Find the containers (a Docker call: not at every sample)."""
        self._ids = [str(found["Id"]) for found in self._client.api.containers(
            filters={"label": self._label}, quiet=True)]

    def sample(self) -> None:
        for container_id in self._ids:
            now = container_cpu(container_id)
            if now is None:
                continue
            last = self._last.get(container_id, 0.0)
            self.total += now - last if now >= last else now  # a drop: restarted
            self._last[container_id] = now
