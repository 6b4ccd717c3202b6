"""Where the test bots live, and what a sandboxed run may leave behind (checked by the
sandbox, match and season tests after each series)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[2]
HOSTILE_BOTS = REPO_ROOT / "tests" / "hostile_bots"
SAMPLE_BOTS = REPO_ROOT / "sample_bots"


def bot_ref(folder: Path) -> Any:
    from arena.core.series import BotRef

    return BotRef.from_folder(folder)


def arena_leftovers(docker_client: Any | None = None) -> list[str]:
    """Containers, socket directories and child processes this test process left."""
    pid = str(os.getpid())
    found: list[str] = []
    if docker_client is not None:
        containers = docker_client.containers.list(
            all=True, filters={"label": f"hollywood.arena.pid={pid}"}
        )
        found += [f"container {c.name}" for c in containers]
        volumes = docker_client.api.volumes(filters={"label": f"hollywood.arena.pid={pid}"})
        found += [f"volume {v['Name']}" for v in (volumes or {}).get("Volumes") or []]
    found += [f"dir {p}" for p in Path("/tmp").glob(f"hw-{pid}-*")]
    found += [f"dir {p}" for p in Path("/tmp").glob(f"hwp-{pid}-*")]
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        # Sandboxed bots are session leaders (start_new_session); other suites'
        # helper processes are not counted.
        if fields[1] == pid and fields[0] != "Z" and fields[3] == stat.parent.name:
            found.append(f"child process {stat.parent.name}")
    return found
