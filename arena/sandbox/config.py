"""Every hardening setting of the sandboxes, with its default, in one place.

Change a limit here (or pass a modified ``SandboxConfig``); nothing else in the
arena hard-codes one. See docs/sandbox.md for what each setting defends against.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

MIB = 1024 * 1024


@dataclass(frozen=True)
class SandboxConfig:
    """Limits and isolation for one bot. The defaults are the arena's."""

    # -- both sandboxes
    memory_bytes: int = 256 * MIB
    """Docker: memory limit, swap equal to it (no swap). Process: see address_space_bytes."""
    max_processes: int = 128
    """Docker: pids limit of the container (threads count). Process: RLIMIT_NPROC."""
    max_open_files: int = 256
    """File descriptors (RLIMIT_NOFILE / nofile ulimit)."""
    reuse_memory_bytes: int = 192 * MIB
    """Docker: a container using more than this when its series ends is replaced
    rather than reused (``arena.sandbox.reuse``)."""
    stderr_tail_bytes: int = 4096
    """How much of the end of the bot's stderr a fault carries."""

    # -- Docker sandbox
    cpus: float = 1.0
    """CPU limit in cores. Half a core throttles even a trivial bot's replies."""
    user: str = "10001:10001"
    """uid:gid the bot runs as (when the arena runs as root; else the arena's own)."""
    network_mode: str = "none"
    read_only_root: bool = True
    tmpfs_size_bytes: int = 16 * MIB
    tmpfs_options: str = "rw,noexec,nosuid,nodev,mode=1777"
    shm_size_bytes: int = 8 * MIB
    cap_drop: tuple[str, ...] = ("ALL",)
    security_opt: tuple[str, ...] = ("no-new-privileges",)
    init: bool = True
    """Run the bot under dockerd's init (docker-init), so it is never PID 1."""
    log_max_bytes: int = 1 * MIB
    """Container log cap (a bot printing without end cannot fill the disk)."""
    socket_dir_root: str = "/tmp"
    """Host directory for the per-bot socket directories when they are not tmpfs
    volumes; keep it short (a Unix socket path must stay under 107 bytes)."""

    socket_tmpfs: bool = True
    """Root arena: each bot's socket directory is its own small tmpfs volume (False:
    a host directory under ``socket_dir_root``, bounded only by the disk)."""
    socket_dir_bytes: int = 64 * 1024
    """Size of the per-bot tmpfs that holds the bot's socket (root arena): the bot
    cannot store more than this on the host through its socket directory."""
    socket_dir_inodes: int = 16
    """Files the socket tmpfs may hold (an empty file costs kernel memory too)."""

    # -- Docker image builds (untrusted Dockerfiles)
    build_timeout_s: float = 300.0
    """A build running longer is stopped and its step container removed."""
    build_log_bytes: int = 64 * 1024
    """How much of a build's log (its tail) is kept, in memory and on disk."""
    max_image_bytes: int = 1024 * MIB
    """A bot image larger than this is refused and removed."""
    build_memory_bytes: int = 1024 * MIB
    """Memory limit of a build's step containers."""

    # -- Process sandbox (weaker)
    address_space_bytes: int = 2048 * MIB
    """RLIMIT_AS. gRPC reserves much more address space than it uses, so this is far
    above the memory it really needs and only stops runaway allocation."""
    cpu_seconds: int = 600
    """RLIMIT_CPU: total CPU seconds of the bot process for the whole series."""

    def with_overrides(self, **overrides: Any) -> SandboxConfig:
        """A copy with some settings changed, e.g. ``memory_bytes=64 * MIB``."""
        return replace(self, **overrides)

    @property
    def uid_gid(self) -> tuple[int, int]:
        uid, _, gid = self.user.partition(":")
        return int(uid), int(gid or uid)


DEFAULT_CONFIG = SandboxConfig()
