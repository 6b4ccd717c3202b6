"""Which arena owns a container or volume, and cleaning up only what is one's own.

Several arenas may share one Docker engine (two servers on a machine, or arenas in
their own containers talking to the host's engine). Each ``DockerSandbox`` labels what
it creates with its instance id (new per sandbox, i.e. per server start), its process
id and start time, and its pid namespace (boot id + ``/proc/self/ns/pid``). It removes:

* its own containers and volumes (``remove_instance``), and
* leftovers of an arena that crashed: only when the owner's pid namespace is this
  process's, so that "that pid is dead" is a fact and not a guess about another
  machine or container (``remove_leftovers_of_dead_arenas``).

Listing never inspects containers one by one and every removal tolerates a
container or volume that someone else removed meanwhile.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import shutil
import uuid
from pathlib import Path
from typing import Any

import docker.errors  # type: ignore[import-untyped]

from arena.sandbox.base import SandboxError, pid_alive

log = logging.getLogger(__name__)

ARENA_LABEL = "hollywood.arena"
OWNER_LABEL = "hollywood.arena.pid"
OWNER_START_LABEL = "hollywood.arena.pid-start"
INSTANCE_LABEL = "hollywood.arena.instance"
PID_NAMESPACE_LABEL = "hollywood.arena.pid-namespace"
SOCKET_DIR_PREFIX = "hw-"


def process_start(pid: int) -> str:
    """The process's start time in clock ticks since boot ("" if unknown): with the
    pid it names a process uniquely, even after the pid is reused."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return ""


def pid_namespace() -> str:
    """This process's pid namespace on this boot of this machine ("" if unknown)."""
    try:
        boot = Path("/proc/sys/kernel/random/boot_id").read_text().strip()
        return f"{boot}/{os.readlink('/proc/self/ns/pid')}"
    except OSError:
        return ""


def owner_labels(instance_id: str) -> dict[str, str]:
    """The labels saying that this process, as arena instance ``instance_id``, owns it."""
    return {
        ARENA_LABEL: "1",
        INSTANCE_LABEL: instance_id,
        OWNER_LABEL: str(os.getpid()),
        OWNER_START_LABEL: process_start(os.getpid()),
        PID_NAMESPACE_LABEL: pid_namespace(),
    }


def _list_containers(client: Any, label: str) -> list[dict[str, Any]]:
    try:
        # The plain listing (no inspect per container): a container another arena
        # removes meanwhile must not fail the listing.
        found: list[dict[str, Any]] = client.api.containers(all=True, filters={"label": label})
    except docker.errors.DockerException as error:
        raise SandboxError(f"Docker could not list containers: {error}") from error
    return found


def _list_volumes(client: Any, label: str) -> list[dict[str, Any]]:
    try:
        answer = client.api.volumes(filters={"label": label}) or {}
    except docker.errors.DockerException as error:
        log.warning("Docker could not list volumes: %s", error)
        return []
    volumes: list[dict[str, Any]] = answer.get("Volumes") or []
    return volumes


CONFLICT = 409


def remove_container(client: Any, container_id: str) -> bool:
    """Remove a container; False when it was gone already or Docker refused."""
    try:
        client.api.remove_container(container_id, force=True)
    except docker.errors.NotFound:
        return False
    except docker.errors.APIError as error:
        if error.status_code == CONFLICT and "already in progress" in str(error):
            return False  # another thread of this arena is removing it right now
        log.warning("could not remove container %s: %s", container_id[:12], error)
        return False
    except docker.errors.DockerException as error:
        log.warning("could not remove container %s: %s", container_id[:12], error)
        return False
    return True


def remove_volume(client: Any, name: str) -> None:
    """Remove a volume; one gone already (or still in use) is left as it is."""
    with contextlib.suppress(docker.errors.DockerException):
        client.api.remove_volume(name, force=True)


def remove_instance(client: Any, instance_id: str) -> int:
    """Remove every container and volume of arena instance ``instance_id`` (and
    nothing of any other). Returns how many containers were removed."""
    label = f"{INSTANCE_LABEL}={instance_id}"
    removed = sum(remove_container(client, c["Id"]) for c in _list_containers(client, label))
    for volume in _list_volumes(client, label):
        remove_volume(client, volume["Name"])
    return removed


def _owner_gone(labels: dict[str, str], namespace: str) -> bool:
    """Whether the arena process named by ``labels`` is known to be gone: it ran in
    this pid namespace, and its pid is dead or now names another process."""
    if not namespace or labels.get(PID_NAMESPACE_LABEL) != namespace:
        return False  # another machine's or container's arena: not ours to judge
    owner = labels.get(OWNER_LABEL, "")
    if not owner.isdigit():
        return False
    started = labels.get(OWNER_START_LABEL, "")
    alive = pid_alive(int(owner)) and (not started or started == process_start(int(owner)))
    return not alive


def remove_leftovers_of_dead_arenas(client: Any, socket_dir_root: str = "/tmp") -> int:
    """Remove arena containers, volumes and socket directories whose owning arena
    process (in this pid namespace) is gone: a crashed or killed run. Everything of
    live arenas, and of arenas elsewhere, is left alone. Returns how many containers
    were removed."""
    namespace = pid_namespace()
    removed = 0
    for container in _list_containers(client, f"{ARENA_LABEL}=1"):
        if _owner_gone(container.get("Labels") or {}, namespace):
            removed += remove_container(client, container["Id"])
    for volume in _list_volumes(client, f"{ARENA_LABEL}=1"):
        if _owner_gone(volume.get("Labels") or {}, namespace):
            remove_volume(client, volume["Name"])
    pattern = re.compile(rf"{re.escape(SOCKET_DIR_PREFIX)}(\d+)-")
    with contextlib.suppress(OSError):
        for entry in Path(socket_dir_root).iterdir():
            match = pattern.match(entry.name)
            if match and entry.is_dir() and not pid_alive(int(match.group(1))):
                shutil.rmtree(entry, ignore_errors=True)
    return removed


def container_name(series_id: str, seat: int | None) -> str:
    """A unique container name saying which series and seat it was started for."""
    slug = re.sub(r"[^a-zA-Z0-9_.-]", "-", series_id)[:40].strip("-.") or "series"
    seat_part = "x" if seat is None else str(seat)
    return f"hollywood-{slug}-s{seat_part}-{uuid.uuid4().hex[:8]}"


def remove_container_by_name(client: Any, name: str) -> None:
    """Remove a container half made by a failed start (if it exists)."""
    with contextlib.suppress(docker.errors.DockerException):
        client.containers.get(name).remove(force=True)
