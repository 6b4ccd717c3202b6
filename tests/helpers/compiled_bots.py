"""The compiled sample bots (C++, Go): built by their own scripts, then a duplicate pair
against the Python greedy bot whose outcomes must be clean."""

from __future__ import annotations

import subprocess
from pathlib import Path

from arena.core.limits import TimeLimits
from arena.core.series import BotRef, SeriesOutcome, SeriesSpec
from arena.match.runner import run_series
from arena.sandbox.base import Sandbox
from engine.profiles import get_profile
from engine.series import Series
from tests.helpers.sandboxes import REPO_ROOT, SAMPLE_BOTS

LIMITS = TimeLimits(startup_s=30.0, decision_s=2.0, reserve_s=30.0)


def build_sample_bot(folder: Path, toolchain_script: str, timeout_s: float) -> Path:
    """``folder`` built: its toolchain installed if missing (``arena/scripts/<script>``),
    then its ``build.sh``; a failed step fails the test with its stderr's tail."""
    for command in (["bash", str(REPO_ROOT / "arena" / "scripts" / toolchain_script)],
                    ["bash", str(folder / "build.sh")]):
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout_s)
        assert done.returncode == 0, f"{command}: {done.stderr[-3000:]}"
    return folder


def play_pair(sandbox: Sandbox, folder: Path, tag: str) -> list[SeriesOutcome]:
    """A duplicate pair against the Python greedy bot, the bot of ``folder`` in either
    seat (the same deal seed; the bots exchange seats)."""
    bot, greedy = BotRef.from_folder(folder), BotRef.from_folder(SAMPLE_BOTS / "greedy")
    outcomes = []
    for number, bots in enumerate(((bot, greedy), (greedy, bot))):
        spec = SeriesSpec(f"{tag}-{number}", 11, get_profile("friendly"), 40, False,
                          bots, LIMITS)
        outcomes.append(run_series(spec, sandbox))
    return outcomes


def check_notes(outcomes: list[SeriesOutcome], compiled_seats: tuple[int, ...] = (0, 1)) -> None:
    """The compiled bot (seat 0 of the first outcome, 1 of the second, as ``play_pair``
    seats it) sent a debug note naming its move at every decision (issue 36)."""
    for outcome, seat in zip(outcomes, compiled_seats, strict=True):
        decisions = outcome.seat_logs[seat].decisions
        assert decisions and all(d.debug.startswith("greedy: ACTION_KIND_") for d in decisions)


def check_clean(outcomes: list[SeriesOutcome]) -> None:
    """No fault, at least a hand each, and every log replays through the engine to the
    same number of hands."""
    for outcome in outcomes:
        assert outcome.fault is None, (outcome.fault, outcome.fault and outcome.fault.stderr_tail)
        assert outcome.hands_played >= 1
        replayed = Series.replay(outcome.log)
        assert replayed.result is not None
        assert replayed.result.hands_played == outcome.hands_played
