"""The sandbox contract (arena.sandbox.base): a backend implements only what differs.
A ``RunningBot`` with just its five required members answers every other hook
with the default for a bot its sandbox knows nothing more about, and a ``Sandbox``
with just ``start`` prepares nothing, builds nothing, keeps nothing, sets up no
host and closes nothing (the pools forward the hooks to the sandbox they wrap); a
class missing a required member cannot be made at all."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from arena.core.faults import BotFault, FaultKind
from arena.core.series import BotRef
from arena.sandbox.base import BuildReport, RunningBot, Sandbox
from arena.sandbox.reuse import ReusePool
from arena.sandbox.schedstat import no_source
from arena.sandbox.warm import WarmPool
from tests.helpers.sandboxes import SAMPLE_BOTS


class MinimalBot(RunningBot):
    def __init__(self) -> None:
        self.dead = False
        self.stops = 0

    @property
    def target(self) -> str:
        return "unix:/nowhere"

    def wait_ready(self, timeout: float) -> None:
        pass

    def stderr_tail(self) -> str:
        return ""

    def fault_if_dead(self, wait_s: float = 0.0) -> BotFault | None:
        return BotFault(FaultKind.CRASH, "gone") if self.dead else None

    def stop(self) -> None:
        self.stops += 1


class MinimalSandbox(Sandbox):
    name = "minimal"

    def start(self, bot: BotRef, *, series_id: str = "", seat: int | None = None,
              deal: str = "") -> RunningBot:
        return MinimalBot()


def test_a_running_bot_gets_the_defaults_of_a_bot_its_sandbox_knows_little_of() -> None:
    bot = MinimalBot()
    assert bot.alive() is True
    bot.dead = True
    assert bot.alive() is False  # the default probe is the sandbox's verdict
    assert bot.memory_bytes() is None
    assert bot.series_number == 1
    assert bot.stderr_mark() is None
    assert bot.series_stderr(None, 100) == (b"", 0)
    assert bot.sched_source() is no_source
    assert bot.cpu_seconds() is None
    assert bot.in_process_target is None
    bot.release()  # nothing keeps it: handing it back stops it
    assert bot.stops == 1


def test_a_sandbox_gets_the_defaults_of_one_that_keeps_nothing() -> None:
    sandbox = MinimalSandbox()
    bot = BotRef.from_folder(SAMPLE_BOTS / "random")
    sandbox.prepare(bot)
    lines: list[str] = []
    report = sandbox.build(bot, timeout_s=1.0, on_line=lines.append)
    assert (report.passed, report.reason, report.log, report.image_id) == (True, "", "", "")
    assert lines == []
    sandbox.prepare_host()
    sandbox.prepare_host(force=True)
    assert sandbox.reuse(bot, series_id="s", seat=0, deal="d") is None
    assert isinstance(sandbox.start(bot), MinimalBot)
    sandbox.close()


def test_a_backend_missing_a_required_member_cannot_be_made() -> None:
    class NoStop(RunningBot):
        target = "unix:/nowhere"

        def wait_ready(self, timeout: float) -> None:
            pass

        def stderr_tail(self) -> str:
            return ""

        def fault_if_dead(self, wait_s: float = 0.0) -> BotFault | None:
            return None

    class NoStart(Sandbox):
        pass

    with pytest.raises(TypeError, match="stop"):
        NoStop()  # type: ignore[abstract]
    with pytest.raises(TypeError, match="start"):
        NoStart()  # type: ignore[abstract]




class BuildingSandbox(MinimalSandbox):
    """Records what its hooks were asked, to see the pools pass them on."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, object]] = []

    def build(self, bot: BotRef, *, timeout_s: float | None = None,
              on_line: Callable[[str], None] = print) -> BuildReport:
        on_line(f"building {bot.name}")
        self.asked.append(("build", timeout_s))
        return BuildReport(passed=False, reason="the image did not build: no", log="no")

    def prepare_host(self, *, force: bool = False) -> None:
        self.asked.append(("prepare_host", force))


@pytest.mark.parametrize("pool", ["warm", "reuse"])
def test_the_pools_pass_build_and_host_preparation_to_the_sandbox_they_wrap(pool: str) -> None:
    inner = BuildingSandbox()
    warm = WarmPool(inner, janitor=False)
    wrapper: Sandbox = warm if pool == "warm" else ReusePool(warm, janitor=False)
    lines: list[str] = []
    try:
        report = wrapper.build(BotRef.from_folder(SAMPLE_BOTS / "random"), timeout_s=7.0,
                               on_line=lines.append)
        wrapper.prepare_host(force=True)
    finally:
        wrapper.close()
    assert report == BuildReport(passed=False, reason="the image did not build: no", log="no")
    assert lines == ["building random"]
    assert inner.asked == [("build", 7.0), ("prepare_host", True)]
