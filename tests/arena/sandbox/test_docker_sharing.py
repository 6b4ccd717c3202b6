"""Arenas sharing one Docker engine: each labels what it creates with its own
instance id and removes only its own; listing and cleanup tolerate containers that
someone else removes meanwhile."""

from __future__ import annotations

import os
import subprocess
from typing import Any

import pytest

from arena.sandbox.docker import DockerSandbox
from arena.sandbox.docker_owner import (
    ARENA_LABEL,
    INSTANCE_LABEL,
    OWNER_LABEL,
    PID_NAMESPACE_LABEL,
    pid_namespace,
    remove_instance,
    remove_leftovers_of_dead_arenas,
)
from tests.helpers.sandboxes import SAMPLE_BOTS, arena_leftovers, bot_ref

pytestmark = pytest.mark.docker


def labelled(docker_client: Any, label: str) -> set[str]:
    return {c["Id"] for c in docker_client.api.containers(all=True, filters={"label": label})}


def labelled_volumes(docker_client: Any, label: str) -> set[str]:
    answer = docker_client.api.volumes(filters={"label": label}) or {}
    return {v["Name"] for v in answer.get("Volumes") or []}


def test_each_arena_removes_only_its_own_containers(docker_client: Any, base_image: str) -> None:
    first = DockerSandbox(docker_client, base_image=base_image, prepare_base=False,
                          instance_id=f"first-{os.urandom(4).hex()}")
    second = DockerSandbox(docker_client, base_image=base_image, prepare_base=False,
                           instance_id=f"second-{os.urandom(4).hex()}")
    assert first.instance_id != second.instance_id
    mine = first.start(bot_ref(SAMPLE_BOTS / "random"), series_id="share-a")
    theirs = second.start(bot_ref(SAMPLE_BOTS / "random"), series_id="share-b")
    try:
        second_label = f"{INSTANCE_LABEL}={second.instance_id}"
        assert labelled(docker_client, f"{INSTANCE_LABEL}={first.instance_id}") == {
            mine.container_id}
        assert labelled(docker_client, second_label) == {theirs.container_id}
        assert first.remove_own() == 0  # its bot was stopped (removed) by stop_all first
        assert labelled(docker_client, f"{INSTANCE_LABEL}={first.instance_id}") == set()
        assert labelled_volumes(docker_client, f"{INSTANCE_LABEL}={first.instance_id}") == set()
        assert labelled(docker_client, second_label) == {theirs.container_id}
        if os.geteuid() == 0:  # the other arena's socket volume is untouched too
            assert len(labelled_volumes(docker_client, second_label)) == 1
        theirs.wait_ready(10)  # and its bot still comes up
    finally:
        second.remove_own()
    assert labelled(docker_client, f"{INSTANCE_LABEL}={second.instance_id}") == set()
    assert arena_leftovers(docker_client) == []


def test_remove_instance_also_finds_containers_it_lost_track_of(
    docker_client: Any, base_image: str
) -> None:
    instance = f"lost-{os.urandom(4).hex()}"
    stray = docker_client.containers.create(
        base_image, ["python3", "-c", "pass"], labels={ARENA_LABEL: "1", INSTANCE_LABEL: instance})
    other = docker_client.containers.create(
        base_image, ["python3", "-c", "pass"],
        labels={ARENA_LABEL: "1", INSTANCE_LABEL: f"other-{instance}"})
    try:
        assert remove_instance(docker_client, instance) == 1
        ids = labelled(docker_client, ARENA_LABEL)
        assert stray.id not in ids and other.id in ids
    finally:
        other.remove(force=True)


class _RacingApi:
    """A Docker API whose listings are stale: every container listed is removed by
    "another arena" just before it is returned."""

    def __init__(self, api: Any) -> None:
        self._api = api

    def containers(self, **kwargs: Any) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = self._api.containers(**kwargs)
        for container in found:
            self._api.remove_container(container["Id"], force=True)
        return found

    def __getattr__(self, name: str) -> Any:
        return getattr(self._api, name)


class _RacingClient:
    def __init__(self, client: Any) -> None:
        self.api = _RacingApi(client.api)


def test_cleanup_tolerates_containers_removed_meanwhile(
    docker_client: Any, base_image: str
) -> None:
    process = subprocess.Popen(["true"])
    process.wait()
    instance = f"racing-{os.urandom(4).hex()}"
    labels = {ARENA_LABEL: "1", INSTANCE_LABEL: instance, OWNER_LABEL: str(process.pid),
              PID_NAMESPACE_LABEL: pid_namespace()}
    for _ in range(2):
        docker_client.containers.create(base_image, ["python3", "-c", "pass"], labels=labels)
    racing = _RacingClient(docker_client)
    # Both vanish between the listing and the removal: nothing raises, none counted.
    assert remove_leftovers_of_dead_arenas(racing) == 0
    assert labelled(docker_client, f"{INSTANCE_LABEL}={instance}") == set()
    docker_client.containers.create(base_image, ["python3", "-c", "pass"], labels=labels)
    assert remove_instance(racing, instance) == 0
    assert labelled(docker_client, f"{INSTANCE_LABEL}={instance}") == set()
