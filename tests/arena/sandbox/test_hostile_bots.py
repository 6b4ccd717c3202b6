"""Hostile bots, each in its own container against the sample `random` bot.

Every case ends with: the arena healthy (run_series returned an outcome), the
right fault recorded against the right seat, the opponent winning by forfeit, and
no container, socket directory or child process left behind. Short deadlines
(0.3 s, reserve 0.5 s) keep the suite fast.
"""

from __future__ import annotations

import contextlib
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from arena.core.faults import MAX_FAULT_MESSAGE_CHARS, BotFault, FaultKind
from arena.core.limits import TimeLimits
from arena.core.series import BotRef, SeriesOutcome, SeriesSpec
from arena.core.text import first_forbidden
from arena.match.runner import run_series
from engine.profiles import get_profile
from tests.helpers.sandboxes import HOSTILE_BOTS, SAMPLE_BOTS, arena_leftovers

LIMITS = TimeLimits(startup_s=10.0, decision_s=0.3, reserve_s=0.5)
pytestmark = pytest.mark.docker


@dataclass(frozen=True)
class Case:
    folder: str
    kind: FaultKind
    check: Callable[[BotFault], None] = field(default=lambda fault: None)


def _at_start(fault: BotFault) -> None:
    assert fault.hand_number is None and fault.decision_number is None
    assert "code 3" in fault.message and "start-up" in fault.message
    assert "giving up before binding" in fault.stderr_tail


def _mid_series(fault: BotFault) -> None:
    assert "code 7" in fault.message
    assert fault.decision_number is not None and fault.decision_number >= 4  # its 4th
    assert "dying now" in fault.stderr_tail


def _reserve_drained(fault: BotFault) -> None:
    assert fault.decision_number is not None and fault.decision_number >= 3


def _fork_bomb(fault: BotFault) -> None:
    # The pids limit bit: fork (or, once it is full, gRPC's own threads) failed.
    assert re.search(r"fork failed after \d+ children|pthread_create failed: Resource "
                     "temporarily unavailable", fault.stderr_tail), fault.stderr_tail


def _oom(fault: BotFault) -> None:
    assert "memory limit" in fault.message and "holding" in fault.stderr_tail


def _network(fault: BotFault) -> None:
    probes = re.findall(r"PROBE network (\S+:\d+) (\w+)", fault.stderr_tail)
    assert len(probes) == 4, fault.stderr_tail
    assert all(result == "blocked" for _, result in probes), fault.stderr_tail
    assert "PROBE network interfaces: lo\n" in fault.stderr_tail


def _writes(fault: BotFault) -> None:
    results = dict(re.findall(r"PROBE write (\S+) (\w+)", fault.stderr_tail))
    assert results.pop("/tmp") == "WRITTEN", fault.stderr_tail
    assert len(results) == 8 and set(results.values()) == {"refused"}, fault.stderr_tail
    assert "PROBE exec /tmp refused" in fault.stderr_tail


def _snoop(fault: BotFault) -> None:
    tail = fault.stderr_tail
    assert "PROBE snoop found: []" in tail, tail
    # Seen while serving: the directory holds the bot's own socket and nothing else.
    assert "PROBE snoop socket dir: ['bot.sock']" in tail, tail
    processes = re.search(r"PROBE snoop processes: (.*)", tail)
    assert processes is not None
    assert "random_bot" not in processes.group(1) and "pytest" not in processes.group(1)


def _wrong_protocol(fault: BotFault) -> None:
    assert fault.hand_number is None and "protocol version 99" in fault.message


def _nasty_text(fault: BotFault) -> None:
    # Stored and shown neutralised, and bounded (arena.core.text).
    assert "bot error: RuntimeError: [/][bold red]x \\x1b[2J" in fault.bot_words
    assert len(fault.bot_words) <= MAX_FAULT_MESSAGE_CHARS + 40
    assert fault.bot_words.endswith(" characters cut]")
    assert "NASTY stderr [/][bold red]x \\x1b[2J\\x1b]0;owned\\x07 \\u202eevil" in (
        fault.stderr_tail)
    for text in (fault.message, fault.stderr_tail):
        assert first_forbidden(text, multiline=True) is None


def _refused_at_build(line: int, *words: str) -> Callable[[BotFault], None]:
    def check(fault: BotFault) -> None:
        assert fault.hand_number is None
        assert "image did not build" in fault.message and "refused" in fault.message
        assert f"Dockerfile line {line}:" in fault.message, fault.message
        for word in words:
            assert word in fault.message, fault.message
    return check


def _socket_dir_bounded(fault: BotFault) -> None:
    probe = re.search(r"PROBE socket-dir wrote (\d+) bytes \((.*)\)", fault.stderr_tail)
    assert probe is not None, fault.stderr_tail
    # 8 MiB wanted; the bot's tmpfs holds 64 KiB (SandboxConfig.socket_dir_bytes).
    assert int(probe.group(1)) <= 64 * 1024, probe.group(0)
    assert probe.group(2) == "stopped: No space left on device", probe.group(0)


def _no_symlink(fault: BotFault) -> None:
    assert fault.hand_number is None
    assert "a symbolic link at its socket path bot.sock" in fault.message, fault.message


def _charged_with_figures(step: str, allowed_s: float) -> Callable[[BotFault], None]:
    """A time fault gives the seat's whole limit and what the bot did with it
    (issue 25: never "within 0.0 s")."""
    def check(fault: BotFault) -> None:
        assert re.fullmatch(
            rf"{step} within {allowed_s:.2f} s \(bot CPU \d+\.\d\d s, waited for a core "
            r"\d+\.\d\d s(, arena late \d+\.\d\d s)?\)", fault.message), fault.message
    return check


def _hangs_in_handshake(fault: BotFault) -> None:
    _charged_with_figures("did not answer the Handshake", LIMITS.startup_s)(fault)
    assert "answering never" in fault.stderr_tail


CASES = [
    Case("never_answers", FaultKind.TIMEOUT,
         _charged_with_figures("no answer to Decide", LIMITS.decision_s + LIMITS.reserve_s)),
    Case("late_answers", FaultKind.TIMEOUT, _reserve_drained),
    Case("exits_at_start", FaultKind.CRASH, _at_start),
    Case("crashes_mid_series", FaultKind.CRASH, _mid_series),
    Case("illegal_card", FaultKind.ILLEGAL_ACTION),
    Case("malformed_bytes", FaultKind.MALFORMED),
    Case("huge_reply", FaultKind.OVERSIZED),
    Case("fork_bomb", FaultKind.TIMEOUT, _fork_bomb),
    Case("memory_hog", FaultKind.OUT_OF_MEMORY, _oom),
    Case("cpu_spinner", FaultKind.TIMEOUT),
    Case("network_probe", FaultKind.ILLEGAL_ACTION, _network),
    Case("write_outside_tmp", FaultKind.ILLEGAL_ACTION, _writes),
    Case("snoop", FaultKind.ILLEGAL_ACTION, _snoop),
    Case("wrong_protocol", FaultKind.PROTOCOL_MISMATCH, _wrong_protocol),
    Case("nasty_text", FaultKind.CRASH, _nasty_text),
    Case("fetches_at_build", FaultKind.STARTUP,
         _refused_at_build(7, "ADD from https://example.com/payload.py")),
    Case("missing_base", FaultKind.STARTUP,
         _refused_at_build(3, "FROM registry.example.com/hollywood/never-here:1.0",
                           "not an image on this machine")),
    Case("fills_socket_dir", FaultKind.ILLEGAL_ACTION, _socket_dir_bounded),
    Case("socket_symlink", FaultKind.STARTUP, _no_symlink),
    Case("hangs_in_handshake", FaultKind.STARTUP, _hangs_in_handshake),
]


def play(sandbox: Any, hostile: Path, seat: int, series_id: str) -> SeriesOutcome:
    bots = [BotRef.from_folder(SAMPLE_BOTS / "random")] * 2
    bots[seat] = BotRef.from_folder(hostile)
    spec = SeriesSpec(series_id=series_id, seed=11, profile=get_profile("friendly"),
                      max_hands=20, swap_seats=False, bots=(bots[0], bots[1]), limits=LIMITS)
    return run_series(spec, sandbox)


@pytest.mark.parametrize("case", CASES, ids=[case.folder for case in CASES])
def test_hostile_bot_forfeits_and_leaves_nothing(
    case: Case, docker_sandbox: Any, docker_client: Any
) -> None:
    seat = CASES.index(case) % 2  # hostile bots sit in both seats across the suite
    # The image is built first, as a season prepares bots before starting them: the
    # bound below is about time, not about how long Docker takes to build.
    with contextlib.suppress(BotFault):
        docker_sandbox.prepare(BotRef.from_folder(HOSTILE_BOTS / case.folder))
    started = time.monotonic()
    outcome = play(docker_sandbox, HOSTILE_BOTS / case.folder, seat, f"hostile-{case.folder}")
    elapsed = time.monotonic() - started
    fault = outcome.fault
    assert fault is not None, f"{case.folder} was not caught"
    assert (fault.kind, fault.seat) == (case.kind, seat), fault
    assert outcome.winner == 1 - seat
    if fault.hand_number is not None:
        assert fault.hand_number >= 1 and fault.decision_number is not None
    case.check(fault)
    # A bot that never answers costs at most its deadline + reserve (plus start-up).
    assert elapsed < LIMITS.startup_s + LIMITS.decision_s + LIMITS.reserve_s + 5
    assert arena_leftovers(docker_client) == []


def test_next_series_after_a_fault_starts_cleanly(docker_sandbox: Any, docker_client: Any) -> None:
    faulted = play(docker_sandbox, HOSTILE_BOTS / "crashes_mid_series", 0, "before")
    assert faulted.fault is not None and faulted.fault.kind is FaultKind.CRASH
    clean = play(docker_sandbox, SAMPLE_BOTS / "greedy", 0, "after")
    assert clean.fault is None
    assert clean.hands_played >= 1 and clean.log[-1]["type"] == "series_end"
    assert arena_leftovers(docker_client) == []
