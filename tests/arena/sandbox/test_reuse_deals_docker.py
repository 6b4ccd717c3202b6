"""A duplicate pair under container reuse, in Docker (issue 43): the reuse pool over
the warm pool over the Docker sandbox plays the pair's two halves (one seed, the
bots exchanged) in two containers of each bot, so the probe
``tests/hostile_bots/deal_memory``, which remembers every hand its process was
dealt, comes to the second half as a fresh process with nothing to name. The rule
itself, fast: tests/arena/sandbox/test_reuse_deals.py."""

from __future__ import annotations

import re
from typing import Any

import pytest

from arena.core.limits import TimeLimits
from arena.core.series import BotRef, SeriesSpec
from arena.match.runner import run_series
from arena.sandbox.admission import Admission
from arena.sandbox.reuse import ReusePool
from arena.sandbox.warm import WarmPool
from engine.profiles import get_profile
from tests.helpers.polling import wait_until
from tests.helpers.sandboxes import HOSTILE_BOTS, REPO_ROOT
from tests.helpers.seat_recorder import SeatRecorder

pytestmark = [pytest.mark.docker, pytest.mark.timeout(600)]

PROBE = BotRef.from_folder(HOSTILE_BOTS / "deal_memory")
RANDOM = BotRef.from_folder(REPO_ROOT / "sample_bots" / "random")
LIMITS = TimeLimits(startup_s=30.0, decision_s=2.0, reserve_s=10.0)


def test_a_duplicate_pair_is_played_by_two_containers_of_each_bot(docker_sandbox: Any) -> None:
    warm = WarmPool(docker_sandbox, per_version=0, janitor=False, admission=Admission(2))
    pool = ReusePool(warm, series_per_container=10, janitor=False)
    sandbox = SeatRecorder(pool)
    halves = [SeriesSpec(series_id=f"pair-{half}", seed=4343, profile=get_profile("friendly"),
                         max_hands=2, swap_seats=False, bots=bots, limits=LIMITS)
              for half, bots in (("a", (PROBE, RANDOM)), ("b", (RANDOM, PROBE)))]
    try:
        for spec, kept in zip(halves, (2, 4), strict=True):
            outcome = run_series(spec, sandbox)
            assert outcome.fault is None, outcome.fault
            wait_until(lambda kept=kept: pool.idle() == kept, what=f"{kept} containers kept")
        assert sandbox.container("pair-a", 0) != sandbox.container("pair-b", 1)  # the probe
        assert sandbox.container("pair-a", 1) != sandbox.container("pair-b", 0)  # random
        assert (pool.counters.started, pool.counters.reused) == (4, 0)
        second = re.findall(r"deal-memory: (hand .*)", sandbox.got[("pair-b", 1)].stderr_tail())
        assert second, "the probe began no hand in the second half"
        for line in second:  # a fresh process: one Handshake (an opaque id), nothing to name
            assert re.fullmatch(r"hand series_id=[0-9a-f]{16} hand=\d seat=1 handshakes=1 "
                                r"predicted=none", line), line
    finally:
        pool.close()
