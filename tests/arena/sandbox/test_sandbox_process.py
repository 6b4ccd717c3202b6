"""The process sandbox (weaker fallback): series between sample bots, faults with
the right verdict, and the whole process group killed on stop."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from arena.core.faults import FaultKind
from arena.core.limits import TimeLimits
from arena.core.series import BotRef, SeriesOutcome, SeriesSpec
from arena.match.runner import run_series
from arena.sandbox.config import MIB, SandboxConfig
from arena.sandbox.process import WEAKER_WARNING, ProcessSandbox
from engine.profiles import get_profile
from tests.helpers.polling import wait_until
from tests.helpers.sandboxes import HOSTILE_BOTS, SAMPLE_BOTS, arena_leftovers, bot_ref

LIMITS = TimeLimits(startup_s=10.0, decision_s=0.3, reserve_s=0.5)


def play(sandbox: ProcessSandbox, first: BotRef, second: BotRef, series_id: str,
         limits: TimeLimits = LIMITS) -> SeriesOutcome:
    spec = SeriesSpec(series_id, 5, get_profile("friendly"), 20, False, (first, second), limits)
    return run_series(spec, sandbox)


def test_says_plainly_that_it_is_weaker(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level("WARNING"):
        sandbox = ProcessSandbox()
    assert WEAKER_WARNING in caplog.text
    assert "WEAKER" in sandbox.description


def test_sample_bots_play_a_series() -> None:
    outcome = play(ProcessSandbox(), bot_ref(SAMPLE_BOTS / "greedy"),
                   bot_ref(SAMPLE_BOTS / "random"), "process-ok")
    assert outcome.fault is None and outcome.hands_played >= 1
    assert arena_leftovers() == []


@pytest.mark.parametrize(
    ("folder", "kind", "evidence"),
    [
        ("exits_at_start", FaultKind.CRASH, "code 3"),
        ("crashes_mid_series", FaultKind.CRASH, "code 7"),
        ("never_answers", FaultKind.TIMEOUT, "Decide"),
        ("illegal_card", FaultKind.ILLEGAL_ACTION, "not legal"),
    ],
)
def test_faults(folder: str, kind: FaultKind, evidence: str) -> None:
    outcome = play(ProcessSandbox(), bot_ref(SAMPLE_BOTS / "random"),
                   bot_ref(HOSTILE_BOTS / folder), f"process-{folder}")
    fault = outcome.fault
    assert fault is not None and (fault.kind, fault.seat) == (kind, 1), fault
    assert evidence in fault.message
    assert outcome.winner == 0
    assert arena_leftovers() == []


def test_memory_limit_is_out_of_memory() -> None:
    sandbox = ProcessSandbox(SandboxConfig(address_space_bytes=1024 * MIB))
    # Filling 1 GiB takes over a second on a busy machine: time must not run out first.
    roomy = TimeLimits(startup_s=10.0, decision_s=0.3, reserve_s=20.0)
    outcome = play(sandbox, bot_ref(HOSTILE_BOTS / "memory_hog"),
                   bot_ref(SAMPLE_BOTS / "random"), "process-oom", roomy)
    assert outcome.fault is not None
    assert (outcome.fault.kind, outcome.fault.seat) == (FaultKind.OUT_OF_MEMORY, 0)
    assert "MemoryError" in outcome.fault.stderr_tail
    assert arena_leftovers() == []


def test_stop_kills_the_whole_process_group(tmp_path: Path) -> None:
    folder = tmp_path / "forker"
    folder.mkdir()
    (folder / "bot.toml").write_text(
        'name = "forker"\nversion = "1"\nlanguage = "python"\n'
        '[run]\ncommand = ["python3", "forker.py"]\n'
    )
    (folder / "Dockerfile").write_text("FROM scratch\n")
    (folder / "forker.py").write_text(
        "import os, time\n"
        "for _ in range(3):\n"
        "    if os.fork() == 0:\n"
        "        time.sleep(60)\n"
        "print(os.getpid(), flush=True)\n"
        "time.sleep(60)\n"
    )
    bot = ProcessSandbox().start(BotRef.from_folder(folder))
    group = bot.process.pid
    wait_until(lambda: len(_group_members(group)) == 4, what="the bot and its 3 forks")
    bot.stop()
    wait_until(lambda: _group_members(group) == [], what="the process group to be gone")
    assert not bot.work.exists()
    assert arena_leftovers() == []


def _group_members(group: int) -> list[Path]:
    return [p for p in Path("/proc").glob("[0-9]*") if _pgid(p) == group]


def _pgid(proc: Path) -> int | None:
    try:
        fields = (proc / "stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return int(fields[2]) if fields[0] != "Z" else None


def test_runs_as_the_arena_user() -> None:
    # Documented weakness: no user isolation at all.
    bot = ProcessSandbox().start(bot_ref(SAMPLE_BOTS / "random"))
    try:
        assert os.stat(f"/proc/{bot.process.pid}").st_uid == os.getuid()
    finally:
        bot.stop()


def test_bots_of_a_dead_arena_are_killed() -> None:
    import subprocess
    import sys

    from arena.sandbox.process import remove_leftovers_of_dead_arenas

    gone = subprocess.Popen(["true"])
    gone.wait()
    work = Path(f"/tmp/hwp-{gone.pid}-orphan")
    work.mkdir()
    orphan = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(60)"], start_new_session=True,
        env={"HOLLYWOOD_BOT_SOCKET": str(work / "bot.sock")},
    )
    try:
        # The variable is visible in /proc only once the child has exec'd.
        wait_until(lambda: _environ_has(orphan.pid, b"HOLLYWOOD_BOT_SOCKET="),
                   what="the orphan to start")
        assert remove_leftovers_of_dead_arenas() == 1
        assert orphan.wait(timeout=5) == -9
        assert not work.exists()
    finally:
        if orphan.poll() is None:
            orphan.kill()
            orphan.wait()


def _environ_has(pid: int, prefix: bytes) -> bool:
    try:
        return any(variable.startswith(prefix)
                   for variable in Path(f"/proc/{pid}/environ").read_bytes().split(b"\0"))
    except OSError:
        return False


def _greedy_started_by_a_script(folder: Path, command: str) -> BotRef:
    """The greedy sample bot in ``folder``, started by the executable ``bin/start-bot``
    (as a compiled bot's binary would be), with ``run.command = [command]``."""
    import shutil
    import sys

    shutil.copytree(SAMPLE_BOTS / "greedy", folder)
    (folder / "bin").mkdir()
    script = folder / "bin" / "start-bot"
    script.write_text(f"#!/bin/sh\nexec {sys.executable} -m greedy_bot\n")
    script.chmod(0o755)
    manifest = (folder / "bot.toml").read_text()
    (folder / "bot.toml").write_text(
        manifest.replace('command = ["python3", "-m", "greedy_bot"]', f'command = ["{command}"]'))
    return bot_ref(folder)


def test_a_relative_run_command_is_found_in_the_bot_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bot = _greedy_started_by_a_script(tmp_path / "scripted", "bin/start-bot")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # the arena's own directory must not matter
    outcome = play(ProcessSandbox(), bot, bot_ref(SAMPLE_BOTS / "random"), "process-relative")
    assert outcome.fault is None and outcome.hands_played >= 1
    assert arena_leftovers() == []


def test_a_missing_relative_program_is_a_startup_fault_naming_the_folder(tmp_path: Path) -> None:
    bot = _greedy_started_by_a_script(tmp_path / "unbuilt", "bin/not-built-yet")
    outcome = play(ProcessSandbox(), bot, bot_ref(SAMPLE_BOTS / "random"), "process-missing")
    fault = outcome.fault
    assert fault is not None and (fault.kind, fault.seat) == (FaultKind.STARTUP, 0), fault
    assert "bin/not-built-yet is not an executable file in the bot folder" in fault.message
    assert arena_leftovers() == []
