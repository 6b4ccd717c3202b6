"""Hostile builds with real Docker: a bot whose image build never ends.

Its build is stopped at the (short, test-given) time limit with its step container
removed at once, the failure is remembered (the next series fails at once, without
building), and an honest series running meanwhile is never charged for it.
"""

from __future__ import annotations

import threading
from typing import Any

import pytest

from arena.core.faults import BotFault, FaultKind
from arena.core.limits import TimeLimits
from arena.core.series import BotRef, SeriesOutcome, SeriesSpec
from arena.match.runner import run_series
from arena.sandbox.build_guard import BuildMemory
from arena.sandbox.config import SandboxConfig
from arena.sandbox.docker import DockerSandbox
from engine.profiles import get_profile
from tests.helpers.polling import wait_until
from tests.helpers.sandboxes import HOSTILE_BOTS, SAMPLE_BOTS, arena_leftovers

pytestmark = pytest.mark.docker

ENDLESS = HOSTILE_BOTS / "endless_build"
MARKER = "ENDLESS-BUILD"


def series(sandbox: Any, first: BotRef, second: BotRef, series_id: str,
           startup_s: float = 10.0) -> SeriesOutcome:
    spec = SeriesSpec(series_id=series_id, seed=5, profile=get_profile("friendly"),
                      max_hands=2, swap_seats=False, bots=(first, second),
                      limits=TimeLimits(startup_s=startup_s, decision_s=1.0, reserve_s=2.0))
    return run_series(spec, sandbox)


def endless_build_containers(docker_client: Any) -> list[str]:
    return [c["Id"] for c in docker_client.api.containers(all=True)
            if MARKER in (c.get("Command") or "")]


def sandbox_with(docker_client: Any, base_image: str, build_timeout_s: float) -> DockerSandbox:
    return DockerSandbox(docker_client, SandboxConfig(build_timeout_s=build_timeout_s),
                         base_image=base_image, prepare_base=False, builds=BuildMemory())


def test_an_endless_build_is_stopped_removed_and_remembered(
    docker_client: Any, base_image: str
) -> None:
    sandbox = sandbox_with(docker_client, base_image, build_timeout_s=3)
    random_bot = BotRef.from_folder(SAMPLE_BOTS / "random")
    outcome = series(sandbox, BotRef.from_folder(ENDLESS), random_bot, "endless-1")
    fault = outcome.fault
    assert fault is not None and (fault.kind, fault.seat) == (FaultKind.STARTUP, 0)
    assert "longer than its 3 s limit" in fault.message, fault.message
    assert outcome.winner == 1
    # Removed by the time the build failed: not left for dockerd to get round to.
    assert endless_build_containers(docker_client) == []

    again = series(sandbox, random_bot, BotRef.from_folder(ENDLESS), "endless-2")
    assert again.fault is not None and (again.fault.kind, again.fault.seat) == (
        FaultKind.STARTUP, 1)
    assert "longer than its 3 s limit" in again.fault.message
    assert "remembered from an earlier build" in again.fault.message
    assert endless_build_containers(docker_client) == []
    assert arena_leftovers(docker_client) == []


def test_an_honest_series_is_not_charged_for_another_bots_build(
    docker_client: Any, base_image: str
) -> None:
    sandbox = sandbox_with(docker_client, base_image, build_timeout_s=15)
    honest = (BotRef.from_folder(SAMPLE_BOTS / "random"),
              BotRef.from_folder(SAMPLE_BOTS / "greedy"))
    for bot in honest:
        sandbox.prepare(bot)  # their images are ready before the other build starts
    build_failed: list[BaseException] = []

    def build_the_endless_bot() -> None:
        try:
            sandbox.prepare(BotRef.from_folder(ENDLESS))
        except BotFault as fault:
            build_failed.append(fault)

    builder = threading.Thread(target=build_the_endless_bot)
    builder.start()
    try:
        wait_until(lambda: endless_build_containers(docker_client),
                   what="the endless build's step to run", bound_s=60)
        # While that build runs (and holds its image's lock), the honest bots start
        # on a 5 s clock: their start must not wait for it.
        outcome = series(sandbox, *honest, "honest-meanwhile", startup_s=5.0)
        assert endless_build_containers(docker_client), "the build ended too early to tell"
        assert outcome.fault is None, outcome.fault
        assert outcome.hands_played >= 1
    finally:
        builder.join()
    assert len(build_failed) == 1 and "longer than its 15 s limit" in str(build_failed[0])
    assert endless_build_containers(docker_client) == []
    assert arena_leftovers(docker_client) == []
