"""Which kept containers may be restarted for a fresh bot process
(arena/sandbox/container_renewal.py), by their inspection: a read-only root and no
mount but the bot's socket place; a volume the image declares, another bind mount
or a writable root would keep what the last process wrote, so such a container is
replaced instead. And a socket directory on the host emptied and reopened before
the restart. Fast: the attributes are written here as Docker reports them; the
restart itself in Docker: tests/arena/sandbox/test_renewal_docker.py."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from arena.sandbox.container_renewal import renewable
from arena.sandbox.docker_socket import SocketPlace

VOLUME = SocketPlace(Path("/var/lib/docker/volumes/hw-1-ab/_data"), "hw-1-ab")
SOCKET_MOUNT: dict[str, Any] = {"Type": "volume", "Name": "hw-1-ab",
                                "Source": "/var/lib/docker/volumes/hw-1-ab/_data",
                                "Destination": "/run/hollywood", "RW": True}


def attrs(*mounts: dict[str, Any], read_only: bool = True) -> dict[str, Any]:
    return {"HostConfig": {"ReadonlyRootfs": read_only,
                           "Tmpfs": {"/tmp": "rw,noexec,nosuid,nodev,mode=1777"}},
            "Mounts": list(mounts)}


def test_a_read_only_container_with_only_its_socket_volume_may_be_renewed() -> None:
    assert renewable(attrs(SOCKET_MOUNT), VOLUME)
    assert renewable(attrs(), VOLUME)


@pytest.mark.parametrize("extra", [
    {"Type": "volume", "Name": "0123abcd", "Destination": "/data", "RW": True},  # VOLUME /data
    {"Type": "volume", "Name": "hw-2-cd", "Destination": "/run/hollywood", "RW": True},
    {"Type": "bind", "Source": "/srv/shared", "Destination": "/shared", "RW": True},
], ids=["image-volume", "another-bots-volume", "bind"])
def test_any_other_mount_keeps_files_so_the_container_is_replaced(extra: dict[str, Any]) -> None:
    assert not renewable(attrs(SOCKET_MOUNT, extra), VOLUME)


def test_a_writable_root_keeps_files_so_the_container_is_replaced() -> None:
    assert not renewable(attrs(SOCKET_MOUNT, read_only=False), VOLUME)
    assert not renewable({"Mounts": [SOCKET_MOUNT]}, VOLUME)  # nothing said: not renewed


def test_a_socket_directory_on_the_host_is_emptied_and_reopened(tmp_path: Path) -> None:
    place = SocketPlace(tmp_path / "hw-3-ef", None)
    place.directory.mkdir()
    (place.directory / "bot.sock").write_text("")
    (place.directory / "notes").mkdir()
    (place.directory / "notes" / "cards").write_text("AS KD")
    (place.directory / "link").symlink_to(tmp_path)
    place.directory.chmod(0o750)  # sealed after the last process's socket appeared
    bind = {"Type": "bind", "Source": str(place.directory), "Destination": "/run/hollywood"}
    assert renewable(attrs(bind), place)
    place.reopen()
    assert list(place.directory.iterdir()) == []
    assert tmp_path.is_dir()  # the link was removed, not followed
    if os.geteuid() == 0:
        assert place.directory.stat().st_mode & 0o777 == 0o770
