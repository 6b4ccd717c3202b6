"""``arena demo`` builds the sample bots through the sandbox's hooks (``prepare_host``,
then ``build`` per bot) for a backend that builds images, and ``arena images
prepare-base`` prepares the default backend's host: what each says, and a failed
build or an unavailable engine ending the command with the reason."""

from __future__ import annotations

import argparse
import io
from collections.abc import Callable, Iterator

import pytest
from rich.console import Console

from arena.cli import local
from arena.cli.output import CliError
from arena.core.series import BotRef
from arena.sandbox import registry
from arena.sandbox.base import BuildReport, RunningBot, Sandbox, SandboxError
from tests.helpers.sandboxes import SAMPLE_BOTS

HERE = "tests.arena.cli.test_demo_builds"
EVENTS: list[str] = []
FOLDERS = [SAMPLE_BOTS / "random", SAMPLE_BOTS / "greedy"]


class RecordingSandbox(Sandbox):
    """Builds by the test's script: ``FAILS`` names a bot whose build fails,
    ``HOST_ERROR`` makes the host's preparation fail."""

    FAILS = ""
    HOST_ERROR = ""

    def prepare_host(self, *, force: bool = False) -> None:
        EVENTS.append(f"prepare_host force={force}")
        if RecordingSandbox.HOST_ERROR:
            raise SandboxError(RecordingSandbox.HOST_ERROR)

    def build(self, bot: BotRef, *, timeout_s: float | None = None,
              on_line: Callable[[str], None] = print) -> BuildReport:
        EVENTS.append(f"build {bot.name}")
        if bot.name == RecordingSandbox.FAILS:
            log = "\n".join(f"line {n}" for n in range(1, 46))
            return BuildReport(passed=False, reason="the image did not build: exit 1", log=log)
        return BuildReport(summary=f"image of {bot.name} built")

    def start(self, bot: BotRef, *, series_id: str = "", seat: int | None = None,
              deal: str = "") -> RunningBot:
        raise AssertionError("building starts no bot")

    def close(self) -> None:
        EVENTS.append("close")


@pytest.fixture
def backend(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    EVENTS.clear()
    registry.register(registry.Backend("test-demo", "records", f"{HERE}:RecordingSandbox",
                                       registry.Capabilities(builds_images=True)))
    monkeypatch.setattr(registry, "DEFAULT", "test-demo")
    try:
        yield "test-demo"
    finally:
        registry.unregister("test-demo")
        RecordingSandbox.FAILS = RecordingSandbox.HOST_ERROR = ""


def console() -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, width=200), out


def test_the_demo_builds_every_bot_after_preparing_the_host(backend: str) -> None:
    shown, out = console()
    local._build_bots(backend, FOLDERS, shown)
    assert EVENTS == ["prepare_host force=False", "build random", "build greedy", "close"]
    assert out.getvalue().splitlines() == ["image of random built", "image of greedy built"]


def test_a_failed_build_stops_the_demo_with_its_reason_and_log_tail(backend: str) -> None:
    RecordingSandbox.FAILS = "greedy"
    with pytest.raises(CliError) as failed:
        local._build_bots(backend, FOLDERS, console()[0])
    lines = str(failed.value).splitlines()
    assert lines[0] == "building greedy failed: the image did not build: exit 1"
    assert lines[1:] == [f"line {n}" for n in range(6, 46)]  # the last 40 lines
    assert failed.value.code == 1 and EVENTS[-1] == "close"


def test_a_host_that_cannot_be_prepared_stops_the_demo_with_the_reason(backend: str) -> None:
    RecordingSandbox.HOST_ERROR = "Docker is not available (no engine)"
    with pytest.raises(CliError) as failed:
        local._build_bots(backend, FOLDERS, console()[0])
    assert str(failed.value) == "preparing the bots failed: Docker is not available (no engine)"
    assert EVENTS == ["prepare_host force=False", "close"]


def test_images_prepare_base_prepares_the_default_backends_host(backend: str) -> None:
    shown, out = console()
    assert local.cmd_images_prepare_base(argparse.Namespace(force=True), shown) == 0
    assert EVENTS == ["prepare_host force=True", "close"]
    assert out.getvalue().strip() == "the host is ready for the test-demo sandbox"
    RecordingSandbox.HOST_ERROR = "cannot prepare the base image: no python3.11"
    with pytest.raises(CliError) as failed:
        local.cmd_images_prepare_base(argparse.Namespace(force=False), shown)
    assert str(failed.value) == "cannot prepare the base image: no python3.11"
