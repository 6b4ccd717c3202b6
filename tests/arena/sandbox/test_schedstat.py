"""The kernel's figures, read for real (``arena.sandbox.schedstat``), and bots that
really hang under the process sandbox, charged at their limit with those figures
(issue 25, points 1 and 5)."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.core.faults import FaultKind
from arena.core.limits import TimeLimits
from arena.core.series import SeriesSpec
from arena.match.runner import run_series
from arena.sandbox.process import ProcessSandbox
from arena.sandbox.schedstat import process_tree, process_tree_source
from engine.profiles import get_profile
from tests.helpers.polling import wait_until
from tests.helpers.sandboxes import HOSTILE_BOTS, SAMPLE_BOTS, arena_leftovers, bot_ref

SPIN = "while True: pass"
PARENT_OF_SPINNER = (
    "import subprocess, sys; "
    f"subprocess.Popen([sys.executable, '-c', {SPIN!r}]).wait()"
)


@pytest.fixture
def spawned() -> Iterator[list[subprocess.Popen[bytes]]]:
    """Processes a test starts, killed (continued first) on every path."""
    processes: list[subprocess.Popen[bytes]] = []
    try:
        yield processes
    finally:
        for process in processes:
            for sent in (signal.SIGCONT, signal.SIGKILL):
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, sent)
            process.wait()


def start(spawned: list[subprocess.Popen[bytes]], code: str, cpu: int | None = None,
          ) -> subprocess.Popen[bytes]:
    process = subprocess.Popen([sys.executable, "-c", code], start_new_session=True)
    spawned.append(process)
    if cpu is not None:
        os.sched_setaffinity(process.pid, {cpu})
    return process


def totals(pid: int) -> tuple[float, float]:
    found = process_tree(pid)
    return sum(t[0] for t in found.values()), sum(t[1] for t in found.values())


def test_a_tree_counts_the_threads_of_every_descendant(
        spawned: list[subprocess.Popen[bytes]]) -> None:
    parent = start(spawned, PARENT_OF_SPINNER)

    def spinner_seen() -> bool:
        found = process_tree(parent.pid)
        pids = {int(p.name) for p in (os.scandir(f"/proc/{parent.pid}/task"))}
        return len(found) > len(pids) and totals(parent.pid)[0] > 0.2

    wait_until(spinner_seen, what="the grandchild spinning, seen through the parent")
    assert parent.pid in process_tree(parent.pid)
    assert process_tree(parent.pid + 10**7) == {}  # no such process: nothing, no error


def test_a_process_sharing_its_core_waits_in_the_run_queue(
        spawned: list[subprocess.Popen[bytes]]) -> None:
    core = min(os.sched_getaffinity(0))
    bot = start(spawned, SPIN, cpu=core)
    for _ in range(3):  # three others on the same core: the bot gets about a quarter
        start(spawned, SPIN, cpu=core)
    source = process_tree_source(bot.pid)
    base_wait = sum(t[1] for t in source().values())
    wait_until(lambda: sum(t[1] for t in source().values()) - base_wait > 0.3,
               what="the bot's run-queue wait growing")


def test_a_stopped_process_is_not_runnable_so_it_never_waits(
        spawned: list[subprocess.Popen[bytes]]) -> None:
    # SIGSTOP is not starvation: a stopped bot (like one that sleeps) is charged.
    core = min(os.sched_getaffinity(0))
    bot = start(spawned, SPIN, cpu=core)
    other = start(spawned, SPIN, cpu=core)
    wait_until(lambda: totals(bot.pid)[0] > 0.05, what="the bot running")
    os.kill(bot.pid, signal.SIGSTOP)
    stat = Path(f"/proc/{bot.pid}/stat")
    wait_until(lambda: stat.read_text().split(")")[1].split()[0] == "T", what="the bot stopped")
    stopped_wait = totals(bot.pid)[1]
    other_ran = totals(other.pid)[0]
    wait_until(lambda: totals(other.pid)[0] - other_ran > 0.3,
               what="time passing on the core the bot shared")
    assert totals(bot.pid)[1] == stopped_wait


FIGURES = r"\(bot CPU \d+\.\d\d s, waited for a core \d+\.\d\d s(, arena late \d+\.\d\d s)?\)"


@pytest.mark.parametrize(("hostile", "limits", "kind", "message"), [
    ("hangs_at_start", TimeLimits(startup_s=3.0, decision_s=1.0, reserve_s=2.0),
     FaultKind.STARTUP, r"did not create its socket within 3\.00 s "),
    ("hangs_in_handshake", TimeLimits(startup_s=3.0, decision_s=1.0, reserve_s=2.0),
     FaultKind.STARTUP, r"did not answer the Handshake within 3\.00 s "),
    ("never_answers", TimeLimits(startup_s=20.0, decision_s=0.3, reserve_s=0.5),
     FaultKind.TIMEOUT, r"no answer to Decide within 0\.80 s "),
], ids=["at-start", "in-handshake", "in-decide"])
def test_a_bot_that_really_hangs_is_charged_with_the_kernels_figures(
        hostile: str, limits: TimeLimits, kind: FaultKind, message: str) -> None:
    bots = (bot_ref(HOSTILE_BOTS / hostile), bot_ref(SAMPLE_BOTS / "random"))
    spec = SeriesSpec(f"hang-{hostile}", 3, get_profile("friendly"), 3, False, bots, limits)
    outcome = run_series(spec, ProcessSandbox())
    fault = outcome.fault
    assert fault is not None and (fault.seat, fault.kind) == (0, kind), fault
    assert re.fullmatch(message + FIGURES, fault.message), fault.message
    assert outcome.winner == 1
    assert arena_leftovers() == []
