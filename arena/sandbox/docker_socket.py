"""Where a container's bot socket lives on the host: a directory holding a socket and
nothing else.

A root arena gives each bot a fresh tmpfs volume (Docker's ``local`` driver, mounted
by dockerd) of ``socket_dir_bytes`` bytes and ``socket_dir_inodes`` files, owned by
root with the bot's group: the bot can create its socket there, and can store no more
than a few KiB on the host through it. The arena reaches it at the volume's mount
point. Without root (the container runs as the arena's own user) the place is a
per-bot host directory, bounded only by the disk: docs/sandbox.md says so.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import docker.errors  # type: ignore[import-untyped]

from arena.sandbox.base import SandboxError
from arena.sandbox.config import SandboxConfig
from arena.sandbox.docker_owner import SOCKET_DIR_PREFIX, remove_volume

SOCKET_MOUNT = "/run/hollywood"
SOCKET_NAME = "bot.sock"
MAX_SOCKET_PATH = 107


@dataclass(frozen=True)
class SocketPlace:
    """The host directory of one bot's socket, and the volume behind it if any."""

    directory: Path
    volume: str | None

    @property
    def socket_path(self) -> Path:
        return self.directory / SOCKET_NAME

    def mount(self) -> dict[str, dict[str, str]]:
        """The ``volumes`` argument of ``containers.create``."""
        source = self.volume if self.volume is not None else str(self.directory)
        return {source: {"bind": SOCKET_MOUNT, "mode": "rw"}}

    def check_mounted(self) -> None:
        """After the container started: the arena sees the bot's tmpfs (not an empty
        directory of its own), else ``SandboxError`` (e.g. a remote Docker engine)."""
        if self.volume is not None and not os.path.ismount(self.directory):
            raise SandboxError(
                f"the bot's socket volume is not mounted at {self.directory} on this machine;"
                " the Docker sandbox needs a Docker engine on the arena's own machine")

    def seal(self) -> None:
        """Once the bot's socket exists: the bot may create, rename or replace nothing
        more there (root arena; the directory is root's, group the bot's)."""
        if os.geteuid() == 0:
            self.directory.chmod(0o750)

    def reopen(self) -> None:
        """Before the container restarts for a fresh bot: a host directory emptied
        and open for the new socket again (a volume is a new tmpfs at the restart)."""
        if self.volume is not None:
            return
        for entry in self.directory.iterdir():
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry, ignore_errors=True)
            else:
                entry.unlink(missing_ok=True)
        if os.geteuid() == 0:
            self.directory.chmod(0o770)

    def holds(self, mount: dict[str, Any]) -> bool:
        """Whether ``mount`` (an entry of a container's ``Mounts``) is this place."""
        if self.volume is not None:
            return bool(mount.get("Type") == "volume" and mount.get("Name") == self.volume)
        return bool(mount.get("Type") == "bind" and mount.get("Source") == str(self.directory))

    def remove(self, client: Any) -> None:
        if self.volume is not None:
            remove_volume(client, self.volume)
        else:
            shutil.rmtree(self.directory, ignore_errors=True)


def make_socket_place(client: Any, config: SandboxConfig, labels: dict[str, str]) -> SocketPlace:
    """A fresh place for one bot's socket; see the module docstring."""
    if os.geteuid() == 0 and config.socket_tmpfs:
        place = _tmpfs_volume(client, config, labels)
    else:
        place = SocketPlace(_host_directory(config), None)
    if len(str(place.socket_path)) > MAX_SOCKET_PATH:
        place.remove(client)
        raise SandboxError(
            f"socket path {place.socket_path} is longer than {MAX_SOCKET_PATH} bytes; "
            "set SandboxConfig.socket_dir_root to a shorter directory")
    return place


def _tmpfs_volume(client: Any, config: SandboxConfig, labels: dict[str, str]) -> SocketPlace:
    name = f"{SOCKET_DIR_PREFIX}{os.getpid()}-{uuid.uuid4().hex[:8]}"
    options = (f"size={config.socket_dir_bytes},nr_inodes={config.socket_dir_inodes},"
               f"mode=0770,uid=0,gid={config.uid_gid[1]}")
    try:
        volume = client.api.create_volume(
            name, driver="local", labels=labels,
            driver_opts={"type": "tmpfs", "device": "tmpfs", "o": options})
    except docker.errors.DockerException as error:
        raise SandboxError(f"Docker could not create a socket volume: {error}") from error
    return SocketPlace(Path(volume["Mountpoint"]), name)


def _host_directory(config: SandboxConfig) -> Path:
    directory = Path(tempfile.mkdtemp(prefix=f"{SOCKET_DIR_PREFIX}{os.getpid()}-",
                                      dir=config.socket_dir_root))
    if os.geteuid() == 0:
        # Root-owned, group = the bot's: the bot can create its socket but, once
        # the socket exists (``seal``), nothing else.
        os.chown(directory, 0, config.uid_gid[1])
        directory.chmod(0o770)
    return directory
