"""A fresh bot process in a kept container (``DockerBot.renew``, for
``arena.sandbox.reuse``): the two series of a duplicate pair deal the same cards, so
no process may play both, but one container may, restarted between them.

``docker restart`` ends every process of the container with its first (its PID
namespace goes), and mounts ``/tmp`` and ``/dev/shm`` as new tmpfs; the socket's
tmpfs volume is mounted anew too, and a host directory in its place is emptied
first; the root is read-only. So nothing a bot wrote or left running in one series
reaches the next. A container with any other writable place (a volume its image
declares, a writable root) is not restarted but replaced."""

from __future__ import annotations

import logging
from typing import Any

import docker.errors  # type: ignore[import-untyped]
import requests.exceptions

from arena.sandbox import container_logs
from arena.sandbox.base import SandboxError
from arena.sandbox.docker_socket import SocketPlace

log = logging.getLogger(__name__)


def renewable(attrs: dict[str, Any], place: SocketPlace) -> bool:
    """Whether a restart leaves nothing of a container's bot process, by its
    inspection ``attrs``: a read-only root, and no mount but the bot's socket
    ``place`` (``/tmp`` and ``/dev/shm``, new at every start, are not in ``Mounts``)."""
    host = attrs.get("HostConfig") or {}
    mounts = attrs.get("Mounts") or []
    return bool(host.get("ReadonlyRootfs")) and all(place.holds(mount) for mount in mounts)


def restart_fresh(container: Any, place: SocketPlace) -> float | None:
    """Restart ``container`` for a fresh bot process; the time its new stderr starts,
    or None if it cannot be renewed (then it is left as it was, or stopped)."""
    try:
        container.reload()
        if not renewable(container.attrs, place):
            return None
        place.reopen()
        renewed_at = container_logs.stderr_mark()
        container.restart(timeout=0)
        place.check_mounted()
    except (docker.errors.DockerException, requests.exceptions.RequestException,
            SandboxError, OSError) as error:
        log.info("container %s not renewed: %s", str(container.id)[:12], error)
        return None
    return renewed_at
