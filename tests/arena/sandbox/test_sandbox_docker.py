"""The Docker sandbox: hardening settings as Docker reports them, the socket
directory handover, stop on every path, and removal of a crashed run's leftovers."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from arena.match.botclient import BotClient
from arena.sandbox import SandboxError
from arena.sandbox.config import MIB, SandboxConfig
from arena.sandbox.docker import (
    ARENA_LABEL,
    OWNER_LABEL,
    OWNER_START_LABEL,
    PID_NAMESPACE_LABEL,
    DockerSandbox,
    _process_start,
    remove_leftovers_of_dead_arenas,
)
from arena.sandbox.docker_owner import pid_namespace
from tests.helpers.polling import wait_until
from tests.helpers.sandboxes import SAMPLE_BOTS, arena_leftovers, bot_ref

pytestmark = pytest.mark.docker


def dead_pid() -> int:
    """The pid of a process that has just exited (so no arena owns it)."""
    process = subprocess.Popen(["true"])
    process.wait()
    return process.pid


def test_container_is_hardened(docker_sandbox: Any, docker_client: Any) -> None:
    bot = docker_sandbox.start(bot_ref(SAMPLE_BOTS / "random"), series_id="harden", seat=1)
    try:
        attrs = docker_client.api.inspect_container(bot.container_id)
        host = attrs["HostConfig"]
        config = docker_sandbox.config
        assert host["NetworkMode"] == "none"
        assert host["ReadonlyRootfs"] is True
        assert host["Memory"] == host["MemorySwap"] == config.memory_bytes
        assert host["NanoCpus"] == int(config.cpus * 1e9)
        assert host["PidsLimit"] == config.max_processes
        assert host["CapDrop"] == ["ALL"] and not host["CapAdd"]
        assert host["SecurityOpt"] == ["no-new-privileges"]
        assert host["Init"] is True
        assert host["Privileged"] is False
        assert {u["Name"]: u["Hard"] for u in host["Ulimits"]} == {"nofile": config.max_open_files}
        tmpfs = host["Tmpfs"]["/tmp"]
        assert {"noexec", "nosuid", "nodev", f"size={config.tmpfs_size_bytes}"} <= set(
            tmpfs.split(",")
        )
        assert attrs["Config"]["User"] == config.user
        assert attrs["Config"]["Labels"][ARENA_LABEL] == "1"
        assert attrs["Config"]["Labels"]["hollywood.seat"] == "1"
        mounts = [(m["Source"], m["Destination"], m["RW"]) for m in attrs["Mounts"]]
        assert mounts == [(str(bot.socket_dir), "/run/hollywood", True)]
    finally:
        bot.stop()


def test_socket_handover_and_stop(docker_sandbox: Any, docker_client: Any) -> None:
    bot = docker_sandbox.start(bot_ref(SAMPLE_BOTS / "greedy"), series_id="handover", seat=0)
    try:
        assert bot.target == f"unix:{bot.socket_dir}/bot.sock"
        assert len(str(bot.socket_path)) < 107
        bot.wait_ready(10)
        assert sorted(p.name for p in bot.socket_dir.iterdir()) == ["bot.sock"]
        assert stat.S_ISSOCK(bot.socket_path.stat().st_mode)
        if os.geteuid() == 0:
            # Once the socket exists the bot may add nothing else to the directory.
            info = bot.socket_dir.stat()
            assert (info.st_uid, stat.S_IMODE(info.st_mode)) == (0, 0o750)
        with BotClient.connect(bot.target, startup_timeout=5) as client:
            assert client.handshake(5).name == "greedy"
        assert bot.fault_if_dead() is None
    finally:
        bot.stop()
    bot.stop()  # idempotent
    assert not bot.socket_dir.exists()
    assert "serving" in bot.stderr_tail()  # still available after the container is gone
    assert arena_leftovers(docker_client) == []


def test_stop_all_removes_everything(docker_client: Any, base_image: str) -> None:
    sandbox = DockerSandbox(docker_client, base_image=base_image, prepare_base=False)
    for seat in (0, 1):
        sandbox.start(bot_ref(SAMPLE_BOTS / "random"), series_id="stop-all", seat=seat)
    sandbox.stop_all()
    assert arena_leftovers(docker_client) == []


def test_leftovers_of_a_dead_arena_are_removed(docker_client: Any, base_image: str) -> None:
    dead = dead_pid()
    here = {ARENA_LABEL: "1", PID_NAMESPACE_LABEL: pid_namespace()}
    orphan = docker_client.containers.create(
        base_image, ["python3", "-c", "import time; time.sleep(60)"],
        labels={**here, OWNER_LABEL: str(dead)},
    )
    live = docker_client.containers.create(
        base_image, ["python3", "-c", "pass"],
        labels={**here, OWNER_LABEL: str(os.getpid()),
                OWNER_START_LABEL: _process_start(os.getpid())},
    )
    reused_pid = docker_client.containers.create(  # pid alive, but another process now
        base_image, ["python3", "-c", "pass"],
        labels={**here, OWNER_LABEL: str(os.getpid()), OWNER_START_LABEL: "1"},
    )
    # An arena in another pid namespace (another machine or container on the same
    # engine): its pid means nothing here, so its container is never judged dead.
    elsewhere = docker_client.containers.create(
        base_image, ["python3", "-c", "pass"],
        labels={ARENA_LABEL: "1", PID_NAMESPACE_LABEL: "another-boot/pid:[4026531836]",
                OWNER_LABEL: str(dead)},
    )
    orphan_dir = Path(f"/tmp/hw-{dead}-leftover")
    orphan_dir.mkdir()
    try:
        assert remove_leftovers_of_dead_arenas(docker_client) >= 2
        ids = {c.id for c in docker_client.containers.list(all=True)}
        assert orphan.id not in ids and reused_pid.id not in ids
        assert live.id in ids and elsewhere.id in ids
        assert not orphan_dir.exists()
    finally:
        left = {c.id for c in docker_client.containers.list(all=True)}
        for container in (orphan, reused_pid, live, elsewhere):
            if container.id in left:
                container.remove(force=True)


def test_too_long_socket_path_is_an_arena_error(
    docker_client: Any, base_image: str, tmp_path: Path
) -> None:
    deep = tmp_path / ("d" * 100)
    deep.mkdir()
    config = SandboxConfig(socket_dir_root=str(deep), socket_tmpfs=False)
    sandbox = DockerSandbox(docker_client, config,
                            base_image=base_image, prepare_base=False)
    with pytest.raises(SandboxError, match="longer than 107 bytes"):
        sandbox.start(bot_ref(SAMPLE_BOTS / "random"))
    assert arena_leftovers(docker_client) == []


def test_limits_are_configurable_in_one_place(docker_client: Any, base_image: str) -> None:
    config = SandboxConfig().with_overrides(memory_bytes=64 * MIB, max_processes=32, cpus=0.5)
    sandbox = DockerSandbox(docker_client, config, base_image=base_image, prepare_base=False)
    bot = sandbox.start(bot_ref(SAMPLE_BOTS / "random"))
    try:
        host = docker_client.api.inspect_container(bot.container_id)["HostConfig"]
        assert (host["Memory"], host["PidsLimit"], host["NanoCpus"]) == (64 * MIB, 32, 5 * 10**8)
    finally:
        bot.stop()


def test_cpu_limit_holds_a_spinner(docker_sandbox: Any, docker_client: Any) -> None:
    """Four spinning processes get no more than the configured one core."""
    from arena.match import protocol
    from engine.series import Series
    from tests.helpers.sandboxes import HOSTILE_BOTS

    bot = docker_sandbox.start(bot_ref(HOSTILE_BOTS / "cpu_spinner"), series_id="cpu")
    try:
        bot.wait_ready(10)
        with BotClient.connect(bot.target, startup_timeout=5) as client:
            client.handshake(5)
            series = Series(3)
            seat = series.current_player
            assert seat is not None
            request = protocol.decide_request(
                series.observation(seat), series.legal_actions(),
                protocol.profile_to_proto(series.profile, 10), series_id="cpu",
                decision_number=1, decision_s=1.0, reserve_s=0.0,
            )
            call = client._stub.Decide.future(request, timeout=120)  # spins, never answers
            first, first_at = _cpu_nanoseconds(docker_client, bot.container_id)
            # Measure over at least 2 s of CPU time: that the spinner spins is waited
            # for, not timed (how fast it gets CPU depends on the machine's load).
            second, second_at = wait_until(
                lambda: _spent(docker_client, bot.container_id, first, 2 * 10**9),
                what="the spinner to use 2 s of CPU", bound_s=60)
            call.cancel()
        cores = (second - first) / ((second_at - first_at) * 1e9)
        assert cores <= docker_sandbox.config.cpus * 1.15, cores
    finally:
        bot.stop()
    assert arena_leftovers(docker_client) == []


def _spent(docker_client: Any, container_id: str, since_ns: int,
           at_least_ns: int) -> tuple[int, float] | None:
    """The CPU reading once ``at_least_ns`` more than ``since_ns`` were used."""
    used, at = _cpu_nanoseconds(docker_client, container_id)
    return (used, at) if used - since_ns >= at_least_ns else None


def _cpu_nanoseconds(docker_client: Any, container_id: str) -> tuple[int, float]:
    """The container's total CPU time so far, and when it was read."""
    stats = docker_client.api.stats(container_id, stream=False)
    return int(stats["cpu_stats"]["cpu_usage"]["total_usage"]), time.monotonic()


def test_an_image_removed_behind_the_cache_is_rebuilt(
    docker_client: Any, base_image: str, tmp_path: Path
) -> None:
    folder = tmp_path / "copy"
    shutil.copytree(SAMPLE_BOTS / "random", folder)
    manifest = folder / "bot.toml"
    manifest.write_text(manifest.read_text().replace('name = "random"', 'name = "random-copy"'))
    sandbox = DockerSandbox(docker_client, base_image=base_image, prepare_base=False)
    ref = bot_ref(folder)
    tag = sandbox.image_for(ref)
    docker_client.images.remove(tag, force=True)
    bot = sandbox.start(ref)
    try:
        bot.wait_ready(10)
        assert docker_client.images.get(tag).labels["hollywood.bot.name"] == "random-copy"
    finally:
        bot.stop()
        docker_client.images.remove(tag, force=True)
    assert arena_leftovers(docker_client) == []
