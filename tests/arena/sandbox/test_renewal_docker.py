"""A kept container renewed between the halves of a duplicate pair, in Docker
(issue 41, arena/sandbox/container_renewal.py): the reuse pool with ``renew`` plays
both halves in one container per bot, the second by a fresh process. The probe
``tests/hostile_bots/leaves_traces`` writes what it was dealt to ``/tmp`` and
``/dev/shm`` and leaves a background process in its own session; within a series it
finds its traces (they are real), in the renewed container nothing of them. Another
version of the probe never gets its container. Both places a bot's socket may
live in: a tmpfs volume (a root arena) and a host directory. The pool's rule, fast:
tests/arena/sandbox/test_reuse_renewal.py."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.core.limits import TimeLimits
from arena.core.series import BotRef, SeriesSpec
from arena.match.runner import run_series
from arena.sandbox.admission import Admission
from arena.sandbox.config import DEFAULT_CONFIG
from arena.sandbox.docker import DockerSandbox
from arena.sandbox.reuse import ReusePool
from arena.sandbox.warm import WarmPool
from engine.profiles import get_profile
from tests.helpers.polling import wait_until
from tests.helpers.sandboxes import HOSTILE_BOTS, REPO_ROOT
from tests.helpers.seat_recorder import SeatRecorder

pytestmark = [pytest.mark.docker, pytest.mark.timeout(600)]

PROBE = BotRef.from_folder(HOSTILE_BOTS / "leaves_traces")
RANDOM = BotRef.from_folder(REPO_ROOT / "sample_bots" / "random")
LIMITS = TimeLimits(startup_s=30.0, decision_s=2.0, reserve_s=10.0)
LINE = re.compile(r"leaves-traces: hand series_id=\S+ hand=(\d) handshakes=(\d+) pid=\d+ "
                  r"tmp=(\S*) shm=(\S*) keepers=(\d+)")


def spec(series_id: str, bots: tuple[BotRef, BotRef], seed: int = 4141) -> SeriesSpec:
    return SeriesSpec(series_id=series_id, seed=seed, profile=get_profile("friendly"),
                      max_hands=2, swap_seats=False, bots=bots, limits=LIMITS)


def probe_lines(sandbox: SeatRecorder, series_id: str, seat: int) -> list[tuple[str, ...]]:
    return LINE.findall(sandbox.got[(series_id, seat)].stderr_tail())


@pytest.fixture(params=["socket-volume", "socket-directory"])
def sandbox_of_either_socket_place(request: pytest.FixtureRequest, docker_client: Any,
                                   base_image: str, docker_sandbox: Any) -> Iterator[Any]:
    """The session's sandbox (a root arena's socket tmpfs volume), and one whose
    sockets live in host directories (as a non-root arena's do)."""
    if request.param == "socket-volume":
        yield docker_sandbox
        return
    sandbox = DockerSandbox(docker_client, DEFAULT_CONFIG.with_overrides(socket_tmpfs=False),
                            base_image=base_image, prepare_base=False)
    yield sandbox
    sandbox.stop_all()


def test_a_renewed_container_keeps_nothing_of_its_last_process(
        sandbox_of_either_socket_place: Any, tmp_path: Path) -> None:
    warm = WarmPool(sandbox_of_either_socket_place, per_version=0, janitor=False,
                    admission=Admission(2))
    pool = ReusePool(warm, series_per_container=10, janitor=False, renew=True)
    sandbox = SeatRecorder(pool)
    other_version = tmp_path / "leaves_traces"
    shutil.copytree(HOSTILE_BOTS / "leaves_traces", other_version)
    toml = other_version / "bot.toml"
    toml.write_text(toml.read_text().replace('version = "1.0.0"', 'version = "2.0.0"'))
    try:
        first = run_series(spec("pair-a", (PROBE, RANDOM)), sandbox)
        assert first.fault is None, first.fault
        lines = probe_lines(sandbox, "pair-a", 0)
        # A fresh container, then the probe's own traces: files and a background process.
        assert [line[:2] for line in lines] == [("1", "1"), ("2", "1")]
        assert lines[0][2:] == ("", "", "0")
        tmp, shm, keepers = lines[1][2:]
        assert re.fullmatch(r"trace-\S+-1", tmp) and shm == tmp and keepers == "1", lines
        wait_until(lambda: pool.idle() == 2, what="both containers kept")

        second = run_series(spec("pair-b", (RANDOM, PROBE)), sandbox)  # the same deal
        assert second.fault is None, second.fault
        assert sandbox.container("pair-a", 0) == sandbox.container("pair-b", 1)  # the probe
        assert sandbox.container("pair-a", 1) == sandbox.container("pair-b", 0)  # random
        assert (pool.counters.started, pool.counters.renewed, pool.counters.reused) == (2, 2, 0)
        lines = probe_lines(sandbox, "pair-b", 1)
        assert lines and lines[0] == ("1", "1", "", "", "0"), lines  # nothing left
        wait_until(lambda: pool.idle() == 2, what="both containers kept again")

        other = run_series(spec("other", (BotRef.from_folder(other_version), RANDOM),
                                seed=4242), sandbox)
        assert other.fault is None, other.fault
        assert sandbox.container("other", 0) != sandbox.container("pair-b", 1)
        assert sandbox.container("other", 1) == sandbox.container("pair-b", 0)
    finally:
        pool.close()
