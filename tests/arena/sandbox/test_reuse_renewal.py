"""A kept container renewed for a series that needs a fresh process
(arena/sandbox/reuse.py with ``renew``, issue 41): the second half of a duplicate
pair (its deal already dealt to the version's only container) gets that container
with a new process (``RunningBot.renew``) rather than a second container; the new
process is dealt nothing yet, so it takes the next pair's first half, and no
process is ever dealt a deal twice, in any interleaving; a container that cannot
be renewed is replaced; another version never gets it; over a warm pool only the
version's first container is started ahead. With a fake sandbox whose bots count
their processes; the same in Docker: tests/arena/sandbox/test_renewal_docker.py."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from arena.core.series import BotRef
from arena.sandbox.admission import Admission
from arena.sandbox.base import Sandbox
from arena.sandbox.reuse import ReusePool
from arena.sandbox.warm import WarmPool
from tests.helpers.arena_helpers import make_bot_folder
from tests.helpers.fake_sandbox import IdleBot
from tests.helpers.polling import wait_until


class RenewableBot(IdleBot):
    def __init__(self, number: int, renewable: bool) -> None:
        self.number, self.renewable = number, renewable
        self.process = 1

    def renew(self) -> bool:
        if self.renewable:
            self.process += 1
        return self.renewable


class RenewableSandbox(Sandbox):
    name = "fake"
    description = "fake"

    def __init__(self, renewable: bool = True) -> None:
        self.renewable = renewable
        self.started: list[RenewableBot] = []

    def prepare(self, bot: BotRef) -> None:
        pass

    def start(self, bot: BotRef, *, series_id: str = "", seat: int | None = None,
              deal: str = "") -> RenewableBot:
        self.started.append(RenewableBot(len(self.started), self.renewable))
        return self.started[-1]


def inner_of(lease: Any) -> RenewableBot:
    while not isinstance(lease, RenewableBot):  # lease -> (pooled bot ->) fake bot
        lease = lease._bot
    return lease


@pytest.fixture
def alpha(tmp_path: Path) -> BotRef:
    return BotRef.from_folder(make_bot_folder(tmp_path, "alpha"))


def renewing_pool(renewable: bool = True) -> ReusePool:
    return ReusePool(RenewableSandbox(renewable), series_per_container=100, janitor=False,
                     renew=True)


def play(pool: ReusePool, bot: BotRef, deal: str) -> tuple[int, int, int]:
    """One series dealing ``deal``, handed back clean and settled: (container, its
    process, the series number of that process)."""
    lease = pool.start(bot, series_id=deal, seat=0, deal=deal)
    idle = pool.idle()
    served = inner_of(lease)
    where = (served.number, served.process, lease.series_number)
    lease.release()
    wait_until(lambda: pool.idle() == idle + 1, what="the container kept")
    return where


def test_the_second_half_of_a_pair_renews_the_versions_container(alpha: BotRef) -> None:
    pool = renewing_pool()
    try:
        assert play(pool, alpha, "X") == (0, 1, 1)
        assert play(pool, alpha, "X") == (0, 2, 1)  # the same container, a fresh process
        assert (pool.counters.started, pool.counters.renewed, pool.counters.reused) == (1, 1, 0)
    finally:
        pool.close()


def test_one_container_serves_a_versions_pairs(alpha: BotRef) -> None:
    """Worked by hand: X (new), X (renewed: process 2), Y (process 2 was dealt X
    only: reused), Y (renewed: process 3), Z (reused), Z (renewed: process 4)."""
    pool = renewing_pool()
    try:
        served = [play(pool, alpha, deal) for deal in "XXYYZZ"]
    finally:
        pool.close()
    assert served == [(0, 1, 1), (0, 2, 1), (0, 2, 2), (0, 3, 1), (0, 3, 2), (0, 4, 1)]
    assert (pool.counters.started, pool.counters.renewed, pool.counters.reused) == (1, 3, 2)


def test_a_container_that_cannot_be_renewed_is_replaced(alpha: BotRef) -> None:
    pool = renewing_pool(renewable=False)
    try:
        first = play(pool, alpha, "X")
        second = play(pool, alpha, "X")
        sandbox = pool.inner
        assert isinstance(sandbox, RenewableSandbox)
        wait_until(lambda: sandbox.started[0].stopped, what="the first container stopped")
    finally:
        pool.close()
    assert (first, second) == ((0, 1, 1), (1, 1, 1))
    assert pool.counters.not_renewed == 1 and pool.counters.renewed == 0


def test_another_version_never_gets_the_container(alpha: BotRef, tmp_path: Path) -> None:
    beta = BotRef.from_folder(make_bot_folder(tmp_path, "beta"))
    pool = renewing_pool()
    try:
        assert play(pool, alpha, "X") == (0, 1, 1)
        assert play(pool, beta, "X") == (1, 1, 1)  # alpha's idle one is not beta's
        assert play(pool, alpha, "X")[:2] == (0, 2)
        assert play(pool, beta, "X")[:2] == (1, 2)
    finally:
        pool.close()


def test_no_interleaving_deals_a_process_a_deal_twice(tmp_path: Path) -> None:
    """Random interleavings (fixed seeds) of three bots' series, several at once,
    deals repeating: each process's deals, recorded here, are all different, and
    renewal kept the containers fewer than the series."""
    bots = [BotRef.from_folder(make_bot_folder(tmp_path, name)) for name in ("a", "b", "c")]
    for seed in range(5):
        rng = random.Random(seed)
        pool = ReusePool(RenewableSandbox(), series_per_container=6, clock=lambda: 0.0,
                         janitor=False, renew=True)
        dealt: dict[tuple[int, int], list[str]] = {}
        held: list[Any] = []
        try:
            for step in range(300):
                if held and (len(held) >= 4 or rng.random() < 0.5):
                    hand_back(pool, held.pop(rng.randrange(len(held))))
                    continue
                deal = f"deal-{rng.randrange(12)}"
                lease = pool.start(rng.choice(bots), series_id=str(step), seat=0, deal=deal)
                served = inner_of(lease)
                dealt.setdefault((served.number, served.process), []).append(deal)
                held.append(lease)
        finally:
            pool.close()
        assert pool.counters.renewed > 0 and pool.counters.started < 40
        for deals in dealt.values():
            assert len(deals) == len(set(deals)), deals


def test_only_the_first_container_of_a_version_starts_ahead(alpha: BotRef) -> None:
    inner = RenewableSandbox()
    warm = WarmPool(inner, per_version=1, janitor=False, admission=Admission(8))
    pool = ReusePool(warm, series_per_container=100, janitor=False, renew=True)
    try:
        pool.prepare(alpha)  # nothing kept: a spare for the first series
        wait_until(lambda: warm.spares() == 1, what="alpha's spare")
        for deal in "XXYY":
            play(pool, alpha, deal)
    finally:
        pool.close()  # waits for any spare being started
    assert len(inner.started) == 1 and inner.started[0].process == 3
    assert warm.counters.warm == 1 and warm.counters.spares == 1


def hand_back(pool: ReusePool, lease: Any) -> None:
    """Release ``lease`` and wait for its check to end (kept, or stopped after its
    last series), so that the next start sees it settled."""
    idle, bot = pool.idle(), inner_of(lease)
    lease.release()
    wait_until(lambda: pool.idle() == idle + 1 or bot.stopped, what="the bot checked",
               interval_s=0.001)
