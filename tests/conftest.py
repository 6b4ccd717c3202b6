"""Fixtures shared by the whole test tree: the Docker engine and sandbox (used by the
arena's, the sample bots' and the project's tests), and the Hypothesis profiles. Fixtures
of one part live in that part's conftest.py (tests/arena/conftest.py, ...); helper
functions that tests import live in tests/helpers/."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import settings as hypothesis_settings

# ----------------------------------------------------------------------------------
# Docker fixtures. Docker tests never skip: without an engine they fail, saying how to
# start one (`make docker-engine`).
# ----------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def docker_client() -> Any:
    """A live Docker client; fails (never skips) when no engine answers."""
    from arena.sandbox import SandboxError
    from arena.sandbox.docker import docker_client as connect

    try:
        return connect()
    except SandboxError as error:
        pytest.fail(f"Docker tests need a running engine: {error}", pytrace=False)


@pytest.fixture(scope="session")
def base_image(docker_client: Any) -> str:
    """The local base image, built once per machine (reused while up to date)."""
    from arena.sandbox.images import prepare_base

    return str(prepare_base(docker_client).tag)


@pytest.fixture(scope="session")
def docker_sandbox(docker_client: Any, base_image: str) -> Iterator[Any]:
    """One DockerSandbox for the session (its image cache is shared by the tests)."""
    from arena.sandbox.docker import DockerSandbox

    sandbox = DockerSandbox(docker_client, base_image=base_image, prepare_base=False)
    yield sandbox
    sandbox.stop_all()


# ----------------------------------------------------------------------------------
# Hypothesis profiles. `make mutation` sets HOLLYWOODHYPOTHESIS_PROFILE=mutation: each
# mutant reruns the tests that cover it, and hundreds of property examples per test
# (up to 40 s a mutant in melds.py) would make the run hours long. The mutation
# profile caps every property test at a few examples, the same ones each run
# (derandomized, no example database), so a mutant's verdict does not depend on luck.
# The hand-made fixture tests, not the property tests, are what pin the engine there.
# ----------------------------------------------------------------------------------
MUTATION_EXAMPLES = 12
hypothesis_settings.register_profile(
    "mutation",
    max_examples=MUTATION_EXAMPLES,
    deadline=None,
    derandomize=True,
    database=None,
    print_blob=False,
)
HYPOTHESIS_PROFILE = os.environ.get("HOLLYWOODHYPOTHESIS_PROFILE", "")
if HYPOTHESIS_PROFILE:
    hypothesis_settings.load_profile(HYPOTHESIS_PROFILE)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Under the mutation profile, cap the examples a test's own @settings asks for."""
    if HYPOTHESIS_PROFILE != "mutation":
        return
    for item in items:
        test = getattr(item, "obj", None)
        own = getattr(test, "_hypothesis_internal_use_settings", None)
        if own is not None and own.max_examples > MUTATION_EXAMPLES:
            # Read by Hypothesis when the test runs, so the cap applies to this run only.
            test._hypothesis_internal_use_settings = hypothesis_settings(  # type: ignore[union-attr]
                own, max_examples=MUTATION_EXAMPLES, deadline=None, derandomize=True, database=None
            )
