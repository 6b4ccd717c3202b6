"""Vetting builds through the sandbox's ``build`` hook, for a backend declaring
``builds_images`` (a stage of its own, the build log streamed to the owner and kept,
a failed build rejecting the version before any bot starts, the machine's failure
raised as the arena's) and for no other backend."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from arena.core.series import BotRef
from arena.core.status import VersionStatus
from arena.execution.vetting import Vetting, vet_bot
from arena.sandbox import registry
from arena.sandbox.base import BuildReport, RunningBot, SandboxError
from arena.sandbox.process import ProcessSandbox
from tests.helpers.sandboxes import SAMPLE_BOTS

HERE = "tests.arena.execution.test_vetting_build"
EVENTS: list[str] = []
"""What the fake sandboxes were asked, in order (they are made by the registry)."""


class BuildingSandbox(ProcessSandbox):
    """The process sandbox, with a build whose outcome the test sets."""

    outcome: BuildReport | Exception = BuildReport()

    def build(self, bot: BotRef, *, timeout_s: float | None = None,
              on_line: Callable[[str], None] = print) -> BuildReport:
        EVENTS.append(f"build {bot.name} timeout={timeout_s}")
        if isinstance(BuildingSandbox.outcome, Exception):
            raise BuildingSandbox.outcome
        for line in BuildingSandbox.outcome.log.splitlines():
            on_line(line)
        return BuildingSandbox.outcome

    def start(self, bot: BotRef, *, series_id: str = "", seat: int | None = None,
              deal: str = "") -> RunningBot:
        EVENTS.append(f"start {bot.name}")
        return super().start(bot, series_id=series_id, seat=seat, deal=deal)

    def close(self) -> None:
        EVENTS.append("close")


@pytest.fixture
def backends() -> Iterator[None]:
    EVENTS.clear()
    registry.register(registry.Backend("test-builds", "builds", f"{HERE}:BuildingSandbox",
                                       registry.Capabilities(builds_images=True)))
    registry.register(registry.Backend("test-plain", "builds nothing",
                                       f"{HERE}:BuildingSandbox"))
    try:
        yield
    finally:
        registry.unregister("test-builds")
        registry.unregister("test-plain")
        BuildingSandbox.outcome = BuildReport()


def vet(backend: str) -> tuple[Vetting, list[VersionStatus], list[str]]:
    stages: list[VersionStatus] = []
    lines: list[str] = []
    vetting = vet_bot(BotRef.from_folder(SAMPLE_BOTS / "random"), backend, build_timeout_s=9.0,
                      on_stage=stages.append, on_line=lines.append)
    return vetting, stages, lines


@pytest.mark.usefixtures("backends")
def test_a_failed_build_rejects_the_version_with_its_log_before_any_bot_starts() -> None:
    BuildingSandbox.outcome = BuildReport(passed=False, reason="the image did not build: boom",
                                          log="step 1\nboom\n")
    vetting, stages, lines = vet("test-builds")
    assert stages == [VersionStatus.BUILDING]
    assert lines == ["step 1", "boom"]
    assert (vetting.passed, vetting.reason) == (False, "the image did not build: boom")
    assert vetting.build_log == "step 1\nboom\n"
    assert EVENTS == ["build random timeout=9.0", "close"]


@pytest.mark.usefixtures("backends")
def test_the_machine_failing_the_build_is_raised_as_the_arenas() -> None:
    BuildingSandbox.outcome = SandboxError("Docker is not available: gone")
    with pytest.raises(SandboxError, match="Docker is not available: gone"):
        vet("test-builds")
    assert EVENTS == ["build random timeout=9.0", "close"]


@pytest.mark.slow
@pytest.mark.usefixtures("backends")
def test_a_built_version_is_validated_and_keeps_its_image_and_build_log() -> None:
    BuildingSandbox.outcome = BuildReport(log="built\n", image_id="sha256:7", summary="ok")
    vetting, stages, lines = vet("test-builds")
    assert stages == [VersionStatus.BUILDING, VersionStatus.VALIDATING]
    assert lines[0] == "built"
    assert vetting.passed, vetting.reason
    assert (vetting.image_id, vetting.build_log) == ("sha256:7", "built\n")
    assert EVENTS[0] == "build random timeout=9.0" and "start random" in EVENTS


@pytest.mark.slow
@pytest.mark.usefixtures("backends")
def test_a_backend_that_builds_no_images_has_no_build_stage() -> None:
    BuildingSandbox.outcome = BuildReport(passed=False, reason="never asked")
    vetting, stages, _ = vet("test-plain")
    assert stages == [VersionStatus.VALIDATING]
    assert vetting.passed, vetting.reason
    assert (vetting.image_id, vetting.build_log) == ("", "")
    assert not any(event.startswith("build") for event in EVENTS)
