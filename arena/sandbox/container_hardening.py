"""The options that lock a bot's container down (``arena.sandbox.docker``): no
network, read-only root, small ``/tmp``, memory/CPU/pids/file limits, no
capabilities, non-root; every value from ``SandboxConfig``."""

from __future__ import annotations

import os
from typing import Any

import docker.types  # type: ignore[import-untyped]

from arena.sandbox.config import SandboxConfig


def container_hardening(config: SandboxConfig) -> dict[str, Any]:
    """Keyword arguments of ``containers.create`` applying ``config``'s limits (the bot
    runs as ``config.user`` under a root arena, else as the arena's own user)."""
    user = config.user if os.geteuid() == 0 else f"{os.getuid()}:{os.getgid()}"
    tmpfs = f"{config.tmpfs_options},size={config.tmpfs_size_bytes}"
    return {
        "network_mode": config.network_mode,
        "read_only": config.read_only_root,
        "tmpfs": {"/tmp": tmpfs},
        "shm_size": config.shm_size_bytes,
        "mem_limit": config.memory_bytes,
        "memswap_limit": config.memory_bytes,
        "nano_cpus": int(config.cpus * 1e9),
        "pids_limit": config.max_processes,
        "cap_drop": list(config.cap_drop),
        "security_opt": list(config.security_opt),
        "user": user,
        "ulimits": [docker.types.Ulimit(name="nofile", soft=config.max_open_files,
                                        hard=config.max_open_files)],
        "init": config.init,
        "log_config": docker.types.LogConfig(
            type="json-file", config={"max-size": str(config.log_max_bytes), "max-file": "1"}
        ),
    }
