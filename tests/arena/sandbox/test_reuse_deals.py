"""No kept bot is dealt the same cards twice (arena/sandbox/reuse.py, issue 43): the
reuse pool over a fake sandbox never leases a container to a series whose deal it
was dealt, in a duplicate pair, across seasons, and in any interleaving of series;
its two containers per bot take turns over the pairs' halves. Through
``run_series`` with in-process bots (fast): the probe ``tests/hostile_bots/deal_memory``,
which remembers every hand it was dealt, names its opponent's dealt cards exactly
when one object plays both halves, and never under the pool. The same in Docker:
tests/arena/sandbox/test_reuse_deals_docker.py."""

from __future__ import annotations

import random
import re
import threading
from pathlib import Path
from typing import Any

import pytest

from arena.core.limits import TimeLimits
from arena.core.series import BotRef, SeriesSpec, deal_of
from arena.match import runner as runner_module
from arena.match.runner import run_series
from arena.sandbox.base import Sandbox
from arena.sandbox.inprocess import InProcessBot, InProcessSandbox
from arena.sandbox.reuse import ReusePool
from engine.cards import parse_cards
from engine.dealing import deal_hand
from engine.profiles import get_profile
from tests.helpers.arena_helpers import make_bot_folder
from tests.helpers.fake_sandbox import IdleBot
from tests.helpers.polling import wait_until
from tests.helpers.sandboxes import HOSTILE_BOTS


class FakeBot(IdleBot):
    def __init__(self, number: int) -> None:
        self.number = number
        self.memory_read = threading.Event()
        self.memory_read.set()

    def memory_bytes(self) -> int:
        self.memory_read.wait(60)  # a test holds it to keep the bot being checked
        return 1000


class FakeSandbox(Sandbox):
    name = "fake"
    description = "fake"

    def __init__(self) -> None:
        self.started: list[FakeBot] = []

    def prepare(self, bot: BotRef) -> None:
        pass

    def start(self, bot: BotRef, *, series_id: str = "", seat: int | None = None,
              deal: str = "") -> FakeBot:
        self.started.append(FakeBot(len(self.started)))
        return self.started[-1]


def inner_of(lease: object) -> FakeBot:
    bot = lease._bot  # type: ignore[attr-defined]
    assert isinstance(bot, FakeBot)
    return bot


@pytest.fixture
def alpha(tmp_path: Path) -> BotRef:
    return BotRef.from_folder(make_bot_folder(tmp_path, "alpha"))


@pytest.fixture
def pool() -> Any:
    made = ReusePool(FakeSandbox(), series_per_container=100, janitor=False)
    yield made
    made.close()


def play(pool: ReusePool, bot: BotRef, deal: str, series_id: str = "") -> FakeBot:
    """One series of ``bot`` dealing ``deal``, handed back clean and settled."""
    idle = pool.idle()
    lease = pool.start(bot, series_id=series_id or deal, seat=0, deal=deal)
    lease.release()
    wait_until(lambda: pool.idle() == idle + (lease.series_number == 1),
               what="the container kept")
    return inner_of(lease)


def test_the_halves_of_a_duplicate_pair_go_to_two_containers(
        alpha: BotRef, pool: ReusePool) -> None:
    first = play(pool, alpha, "X", "pair-a")
    second = play(pool, alpha, "X", "pair-b")
    assert second is not first
    assert (pool.counters.started, pool.counters.reused) == (2, 0)


def test_two_containers_take_turns_over_the_pairs_halves(
        alpha: BotRef, pool: ReusePool) -> None:
    """Worked by hand: the pool leases the container kept last that may take the
    deal. X: 0 (new), 1 (new; 0 was dealt X); Y: 1 (kept last), 0; Z: 0, 1; W: 1, 0."""
    served = [play(pool, alpha, deal, f"{deal}{half}").number
              for deal in "XYZW" for half in "ab"]
    assert served == [0, 1, 1, 0, 0, 1, 1, 0]
    assert (pool.counters.started, pool.counters.reused) == (2, 6)


def test_a_container_never_gets_a_deal_again_in_a_later_season(
        alpha: BotRef, pool: ReusePool) -> None:
    """Two seasons with one seed (a local ``--seed``) on one pool (a pool outliving
    its season): the second season's pair gets neither container of the first."""
    first_season = {play(pool, alpha, "X", f"1-{half}").number for half in "ab"}
    assert first_season == {0, 1}
    second_season = [play(pool, alpha, "X", f"2-{half}").number for half in "ab"]
    assert second_season == [2, 3]
    assert play(pool, alpha, "Y").number == 3  # a new deal: kept containers serve it


def test_a_container_being_checked_is_not_waited_for_when_it_was_dealt_the_deal(
        alpha: BotRef) -> None:
    pool = ReusePool(FakeSandbox(), settle_wait_s=600.0, janitor=False)
    try:
        first = pool.start(alpha, series_id="a", seat=0, deal="X")
        inner_of(first).memory_read.clear()  # its check after the series hangs
        first.release()
        mirrored: list[Any] = []
        thread = threading.Thread(target=lambda: mirrored.append(
            pool.start(alpha, series_id="b", seat=0, deal="X")), daemon=True)
        thread.start()
        # Waiting for the container being checked would take the whole 600 s.
        wait_until(lambda: mirrored, what="the mirrored half's container, without waiting")
        assert inner_of(mirrored[0]) is not inner_of(first)
        assert pool.idle() == 0  # the first is still being checked
        inner_of(first).memory_read.set()
        wait_until(lambda: pool.idle() == 1, what="the first container kept")
    finally:
        pool.close()


def test_no_interleaving_hands_a_container_a_deal_twice(tmp_path: Path) -> None:
    """Random interleavings (fixed seeds) of three bots' series, many at once,
    handed back or stopped in any order, deals repeating (pairs, replays, later
    seasons): each container's deals, recorded here, are all different."""
    bots = [BotRef.from_folder(make_bot_folder(tmp_path, name)) for name in ("a", "b", "c")]
    for seed in range(5):
        rng = random.Random(seed)
        pool = ReusePool(FakeSandbox(), series_per_container=6, clock=lambda: 0.0,
                         janitor=False)
        dealt: dict[int, list[str]] = {}
        held: list[Any] = []
        try:
            for step in range(300):
                if held and (len(held) >= 4 or rng.random() < 0.5):
                    hand_back(pool, held.pop(rng.randrange(len(held))), rng)
                    continue
                deal = f"deal-{rng.randrange(12)}"
                lease = pool.start(rng.choice(bots), series_id=str(step), seat=0, deal=deal)
                dealt.setdefault(inner_of(lease).number, []).append(deal)
                held.append(lease)
        finally:
            pool.close()
        starts = pool.counters.reused + pool.counters.started
        assert pool.counters.reused > starts / 3  # containers were kept and reused
        for deals in dealt.values():
            assert len(deals) == len(set(deals)), deals


def hand_back(pool: ReusePool, lease: Any, rng: random.Random) -> None:
    """Stop ``lease`` (a fault) or release it and wait for its check to end (kept,
    or stopped after its last series), so that the next start sees it settled."""
    if rng.random() < 0.1:
        lease.stop()
        return
    idle, bot = pool.idle(), inner_of(lease)
    lease.release()
    wait_until(lambda: pool.idle() == idle + 1 or bot.stopped, what="the bot checked",
               interval_s=0.001)


# ------------------------------------------------ through run_series, in process

PROBE = BotRef.from_folder(HOSTILE_BOTS / "deal_memory")
OPPONENT = BotRef.from_folder(HOSTILE_BOTS / "series_probe")  # plays its first legal action
LIMITS = TimeLimits(startup_s=10.0, decision_s=1.0, reserve_s=2.0)


def pair(seed: int, name: str) -> list[SeriesSpec]:
    """A duplicate pair as the round robin plans it: one seed, the bots exchanged."""
    return [SeriesSpec(series_id=f"{name}-{half}", seed=seed, profile=get_profile("friendly"),
                       max_hands=3, swap_seats=False, bots=bots, limits=LIMITS)
            for half, bots in (("a", (PROBE, OPPONENT)), ("b", (OPPONENT, PROBE)))]


class Making(InProcessSandbox):
    """The in-process sandbox, remembering each probe object it made; with
    ``one_object`` it hands every series the probe object it made first (what a
    kept bot was before the rule)."""

    def __init__(self, *, one_object: bool = False) -> None:
        super().__init__()
        self.one_object = one_object
        self.probes: list[Any] = []
        self.kept: Any = None

    def start(self, bot: BotRef, *, series_id: str = "", seat: int | None = None,
              deal: str = "") -> InProcessBot:
        if self.one_object and bot is PROBE and self.probes:
            return InProcessBot(self.kept)
        made = super().start(bot, series_id=series_id, seat=seat, deal=deal)
        if bot is PROBE:
            self.probes.append(made.in_process_target.bot)
            self.kept = made.in_process_target
        return made


def guesses(probe: Any) -> list[tuple[str, int, int, str]]:
    """(series id, hand, seat, predicted) of each hand the probe began."""
    found = [re.fullmatch(r"hand series_id=(\S+) hand=(\d+) seat=(\d) handshakes=\d+ "
                          r"predicted=(.*)", line) for line in probe.reports]
    assert all(found), probe.reports
    return [(m[1], int(m[2]), int(m[3]), m[4]) for m in found if m]


def named_exactly(specs: list[SeriesSpec], probes: list[Any]) -> int:
    """Hands in which a probe named its opponent's 10 dealt cards exactly."""
    seeds = {spec.series_id: spec.seed for spec in specs}
    right = 0
    for probe in probes:
        for series_id, hand, seat, predicted in guesses(probe):
            dealt = deal_hand(seeds[series_id], hand).hands[1 - seat]
            right += predicted != "none" and set(parse_cards(predicted)) == set(dealt)
    return right


def told_the_arenas_ids(monkeypatch: pytest.MonkeyPatch, specs: list[SeriesSpec]) -> None:
    """Bots hear an opaque id per series; here they hear the arena's own, in the
    order the specs are played, so that a probe's reports name the series."""
    ids = iter([spec.series_id for spec in specs])
    monkeypatch.setattr(runner_module, "opaque_series_id", lambda: next(ids))


def test_one_object_playing_both_halves_names_its_opponents_cards(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """What the probe does with a kept bot that plays both halves (the rule off):
    in the second half it names the opponent's 10 dealt cards of every hand the
    first half dealt it too."""
    sandbox = Making(one_object=True)
    specs = pair(101, "p")
    told_the_arenas_ids(monkeypatch, specs)
    assert all(run_series(spec, sandbox).fault is None for spec in specs)
    assert len(sandbox.probes) == 1
    hands = [{hand for series, hand, *_ in guesses(sandbox.probes[0]) if series == half}
             for half in ("p-a", "p-b")]
    assert named_exactly(specs, sandbox.probes) == len(hands[0] & hands[1]) >= 1


def test_under_the_reuse_pool_the_mirrored_half_gets_a_fresh_bot(
        monkeypatch: pytest.MonkeyPatch) -> None:
    sandbox = Making()
    pool = ReusePool(sandbox, series_per_container=10, janitor=False)
    specs = pair(101, "p") + pair(202, "q")
    told_the_arenas_ids(monkeypatch, specs)
    try:
        for spec, kept in zip(specs, (2, 4, 4, 4), strict=True):
            assert run_series(spec, pool).fault is None
            wait_until(lambda kept=kept: pool.idle() == kept, what=f"{kept} bots kept")
    finally:
        pool.close()
    assert len(sandbox.probes) == 2  # a second object for the mirrored half, then turns
    played = [{series for series, *_ in guesses(probe)} for probe in sandbox.probes]
    assert played == [{"p-a", "q-b"}, {"p-b", "q-a"}]
    assert named_exactly(specs, sandbox.probes) == 0
    assert (pool.counters.started, pool.counters.reused) == (4, 4)
    assert deal_of(101) != deal_of(202)
