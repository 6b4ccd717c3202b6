"""Shared pytest fixtures. Each part of the project keeps its fixtures in its own marked section."""

from __future__ import annotations

# ----------------------------------------------------------------------------------
# Sandbox fixtures (sandbox work: tests/test_sandbox_*.py, test_images.py,
# test_runner.py, test_hostile_bots.py). Docker tests never skip: without an engine
# they fail, saying how to start one (`make docker-engine`).
# ----------------------------------------------------------------------------------
import os as _os
import subprocess as _subprocess
from collections.abc import Iterator as _Iterator
from pathlib import Path as _Path
from typing import Any as _Any

import pytest as _pytest
from hypothesis import settings as _hypothesis_settings

REPO_ROOT = _Path(__file__).resolve().parent.parent
HOSTILE_BOTS = REPO_ROOT / "tests" / "hostile_bots"
SAMPLE_BOTS = REPO_ROOT / "sample_bots"


@_pytest.fixture(scope="session")
def docker_client() -> _Any:
    """A live Docker client; fails (never skips) when no engine answers."""
    from arena.sandbox import SandboxError
    from arena.sandbox.docker import docker_client as connect

    try:
        return connect()
    except SandboxError as error:
        _pytest.fail(f"Docker tests need a running engine: {error}", pytrace=False)


@_pytest.fixture(scope="session")
def base_image(docker_client: _Any) -> str:
    """The local base image, built once per machine (reused while up to date)."""
    from arena.sandbox.images import prepare_base

    return str(prepare_base(docker_client).tag)


@_pytest.fixture(scope="session")
def docker_sandbox(docker_client: _Any, base_image: str) -> _Iterator[_Any]:
    """One DockerSandbox for the session (its image cache is shared by the tests)."""
    from arena.sandbox.docker import DockerSandbox

    sandbox = DockerSandbox(docker_client, base_image=base_image, prepare_base=False)
    yield sandbox
    sandbox.stop_all()


def bot_ref(folder: _Path) -> _Any:
    from arena.core.series import BotRef

    return BotRef.from_folder(folder)


def arena_leftovers(docker_client: _Any | None = None) -> list[str]:
    """Containers, socket directories and child processes this test process left."""
    pid = str(_os.getpid())
    found: list[str] = []
    if docker_client is not None:
        containers = docker_client.containers.list(
            all=True, filters={"label": f"hollywood.arena.pid={pid}"}
        )
        found += [f"container {c.name}" for c in containers]
        volumes = docker_client.api.volumes(filters={"label": f"hollywood.arena.pid={pid}"})
        found += [f"volume {v['Name']}" for v in (volumes or {}).get("Volumes") or []]
    found += [f"dir {p}" for p in _Path("/tmp").glob(f"hw-{pid}-*")]
    found += [f"dir {p}" for p in _Path("/tmp").glob(f"hwp-{pid}-*")]
    for stat in _Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        # Sandboxed bots are session leaders (start_new_session); other suites'
        # helper processes are not counted.
        if fields[1] == pid and fields[0] != "Z" and fields[3] == stat.parent.name:
            found.append(f"child process {stat.parent.name}")
    return found


@_pytest.fixture
def processes() -> _Iterator[list[_subprocess.Popen[bytes]]]:
    """Processes a test starts (e.g. ``arena serve``): killed at its end if alive."""
    started: list[_subprocess.Popen[bytes]] = []
    yield started
    for process in started:
        if process.poll() is None:
            process.kill()
            process.wait()


# ----------------------------------------------------------------------------------
# Hypothesis profiles. `make mutation` sets HOLLYWOOD_HYPOTHESIS_PROFILE=mutation: each
# mutant reruns the tests that cover it, and hundreds of property examples per test
# (up to 40 s a mutant in melds.py) would make the run hours long. The mutation
# profile caps every property test at a few examples, the same ones each run
# (derandomized, no example database), so a mutant's verdict does not depend on luck.
# The hand-made fixture tests, not the property tests, are what pin the engine there.
# ----------------------------------------------------------------------------------
MUTATION_EXAMPLES = 12
_hypothesis_settings.register_profile(
    "mutation",
    max_examples=MUTATION_EXAMPLES,
    deadline=None,
    derandomize=True,
    database=None,
    print_blob=False,
)
_HYPOTHESIS_PROFILE = _os.environ.get("HOLLYWOOD_HYPOTHESIS_PROFILE", "")
if _HYPOTHESIS_PROFILE:
    _hypothesis_settings.load_profile(_HYPOTHESIS_PROFILE)


def pytest_collection_modifyitems(items: list[_pytest.Item]) -> None:
    """Under the mutation profile, cap the examples a test's own @settings asks for."""
    if _HYPOTHESIS_PROFILE != "mutation":
        return
    for item in items:
        test = getattr(item, "obj", None)
        own = getattr(test, "_hypothesis_internal_use_settings", None)
        if own is not None and own.max_examples > MUTATION_EXAMPLES:
            # Read by Hypothesis when the test runs, so the cap applies to this run only.
            test._hypothesis_internal_use_settings = _hypothesis_settings(  # type: ignore[union-attr]
                own, max_examples=MUTATION_EXAMPLES, deadline=None, derandomize=True, database=None
            )


@_pytest.fixture
def socket_dir() -> _Iterator[str]:
    """A short temporary folder for a bot's Unix socket (socket paths are limited to
    about 100 bytes, so under /tmp)."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="hgs-", dir="/tmp") as tmp:
        yield tmp
