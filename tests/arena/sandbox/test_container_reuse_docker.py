"""Bot containers reused across series, in Docker (arena/sandbox/reuse.py over the
warm pool over the Docker sandbox): the probe bot (tests/hostile_bots/series_probe)
reports every Handshake its process answers and what it still remembers when a
series starts; read from its container's stderr. A reused container gets a fresh
Handshake per series and keeps only what the guide allows; a crash ends only its
container; a fresh container per series (the warm pool alone, what
``--fresh-container-per-series`` builds) still gives one Handshake per container."""

from __future__ import annotations

import re
from typing import Any

import pytest

from arena.core.faults import FaultKind
from arena.core.limits import TimeLimits
from arena.core.series import BotRef
from arena.match.runner import run_series
from arena.sandbox.admission import Admission
from arena.sandbox.reuse import ReusePool
from arena.sandbox.warm import WarmPool
from tests.helpers.polling import wait_until
from tests.helpers.sandboxes import HOSTILE_BOTS, REPO_ROOT
from tests.helpers.seat_recorder import SeatRecorder
from tests.helpers.series_specs import spec

pytestmark = [pytest.mark.docker, pytest.mark.timeout(600)]

PROBE = BotRef.from_folder(HOSTILE_BOTS / "series_probe")
RANDOM = BotRef.from_folder(REPO_ROOT / "sample_bots" / "random")
CRASHES = BotRef.from_folder(HOSTILE_BOTS / "crashes_mid_series")
LIMITS = TimeLimits(startup_s=30.0, decision_s=2.0, reserve_s=10.0)
SERIES: dict[str, Any] = {"max_hands": 3, "limits": LIMITS}


def reports(stderr: str) -> list[str]:
    return re.findall(r"series-probe: (.*)", stderr)


OPAQUE_ID = re.compile(r"series_id=([0-9a-f]{16})\b")


def heard(lines: list[str]) -> tuple[list[str], list[str]]:
    """The series ids a bot heard (opaque: 16 hex digits, never the arena's) and its
    lines with each id written ``ID``."""
    ids = [match[1] for line in lines for match in OPAQUE_ID.finditer(line)]
    return ids, [OPAQUE_ID.sub("series_id=ID", line) for line in lines]


@pytest.fixture
def reusing(docker_sandbox: Any) -> Any:
    warm = WarmPool(docker_sandbox, per_version=0, janitor=False, admission=Admission(2))
    pool = ReusePool(warm, series_per_container=10, janitor=False)
    yield pool
    pool.close()


def test_a_reused_container_gets_a_fresh_handshake_per_series(reusing: ReusePool) -> None:
    sandbox = SeatRecorder(reusing)
    for number in (1, 2, 3):
        outcome = run_series(spec(PROBE, RANDOM, f"r{number}", **SERIES), sandbox)
        assert outcome.fault is None, outcome.fault
        wait_until(lambda: reusing.idle() == 2, what="both containers kept")
    probe = {sandbox.container("r1", 0), sandbox.container("r2", 0), sandbox.container("r3", 0)}
    assert len(probe) == 1  # one container served the three series
    assert sandbox.container("r3", 1) == sandbox.container("r1", 1)
    assert reusing.counters.started == 2 and reusing.counters.reused == 4
    lines = reports(sandbox.got[("r3", 0)].stderr_tail())
    starts = [line for line in lines if line.startswith("start")]
    told, shown = heard(starts)
    assert [line.split(" forgot=")[0] for line in shown] == [
        f"start series_id=ID series_number={n} handshakes={n}" for n in (1, 2, 3)]
    assert len(set(told)) == 3  # a new opaque id for each series
    forgot = [int(line.rsplit("=", 1)[1]) for line in starts]
    assert forgot[0] == 0 and min(forgot[1:]) > 0  # it had learnt something, then forgot it
    decided, shown = heard([line for line in lines if line.startswith("first-decision")])
    assert decided == told and shown == ["first-decision series_id=ID remembered=0"] * 3


def test_a_crash_ends_only_its_container(reusing: ReusePool, docker_client: Any) -> None:
    sandbox = SeatRecorder(reusing)
    first = run_series(spec(CRASHES, PROBE, "x1", **SERIES), sandbox)
    assert first.fault is not None and first.fault.kind is FaultKind.CRASH
    assert first.fault.seat == 0
    crashed = sandbox.container("x1", 0)
    # One listing call (``containers.list`` inspects each container it lists, and the
    # one being removed may be gone by then: NotFound).
    wait_until(lambda: not docker_client.api.containers(all=True, filters={"id": crashed},
                                                        quiet=True),
               what="the crashed container removed")
    wait_until(lambda: reusing.idle() == 1, what="the probe's container kept")
    second = run_series(spec(CRASHES, PROBE, "x2", **SERIES), sandbox)
    assert second.fault is not None and second.fault.seat == 0
    assert sandbox.container("x2", 0) != crashed  # a new container for the crasher
    assert sandbox.container("x2", 1) == sandbox.container("x1", 1)  # the other bot's kept
    told, starts = heard([line.split(" handshakes")[0] for line in
                          reports(sandbox.got[("x2", 1)].stderr_tail())
                          if line.startswith("start")])
    assert starts == ["start series_id=ID series_number=1", "start series_id=ID series_number=2"]
    assert len(set(told)) == 2


def test_a_fresh_container_per_series_still_works(docker_sandbox: Any) -> None:
    fresh = WarmPool(docker_sandbox, per_version=0, janitor=False, admission=Admission(2))
    sandbox = SeatRecorder(fresh)
    try:
        for number in (1, 2):
            assert run_series(spec(PROBE, RANDOM, f"f{number}", **SERIES), sandbox).fault is None
        assert sandbox.container("f1", 0) != sandbox.container("f2", 0)
        for series_id in ("f1", "f2"):
            lines = reports(sandbox.got[(series_id, 0)].stderr_tail())  # after its removal
            _, shown = heard([line.split(" forgot=")[0] for line in lines
                              if line.startswith("start")])
            assert shown == ["start series_id=ID series_number=1 handshakes=1"]
    finally:
        fresh.close()


def test_a_container_over_the_memory_threshold_is_replaced(docker_sandbox: Any) -> None:
    warm = WarmPool(docker_sandbox, per_version=0, janitor=False, admission=Admission(2))
    pool = ReusePool(warm, series_per_container=10, memory_limit_bytes=1024, janitor=False)
    sandbox = SeatRecorder(pool)
    try:
        for number in (1, 2):
            assert run_series(spec(PROBE, RANDOM, f"m{number}", **SERIES), sandbox).fault is None
            wait_until(lambda n=number: pool.counters.retired_memory == 2 * n,
                       what="both containers replaced (each uses more than 1 KiB)")
        assert sandbox.container("m1", 0) != sandbox.container("m2", 0)
        assert pool.counters.reused == 0
    finally:
        pool.close()
