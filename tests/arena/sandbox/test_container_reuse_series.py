"""Reuse through ``run_series`` (fast: the reuse pool over the in-process sandbox,
whose bots are objects, so the probe's memory can be read directly): a reused bot
gets a new Handshake per series (its ``on_series_start`` with the series' id and
number) before the series' first decision, keeps what the guide allows (its count
of Handshakes) and forgets its opponent; a bot that faults is never reused while
the other seat's bot is; a fresh container per series is what ``series_per_container=1``
gives. The same over Docker: tests/arena/sandbox/test_container_reuse_docker.py."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from arena.core.faults import FaultKind
from arena.core.series import BotRef
from arena.match.runner import run_series
from arena.sandbox.inprocess import InProcessSandbox
from arena.sandbox.reuse import ReusePool
from tests.helpers.arena_helpers import REPO_ROOT, make_bot_folder
from tests.helpers.series_specs import spec

PROBE = BotRef.from_folder(REPO_ROOT / "tests" / "hostile_bots" / "series_probe")
RANDOM = BotRef.from_folder(REPO_ROOT / "sample_bots" / "random")
HANDS = 3


class Recording(ReusePool):
    """A reuse pool that remembers the bot object each seat of each series got."""

    def __init__(self, inner: Any, **options: Any) -> None:
        super().__init__(inner, janitor=False, **options)
        self.objects: list[tuple[str, int, object]] = []

    def reuse(self, bot: BotRef, *, series_id: str = "", seat: int | None = None,
              deal: str = "") -> Any:
        lease = super().reuse(bot, series_id=series_id, seat=seat, deal=deal)
        if lease is not None:
            self._note(series_id, seat, lease)
        return lease

    def start(self, bot: BotRef, *, series_id: str = "", seat: int | None = None,
              deal: str = "") -> Any:
        lease = super().start(bot, series_id=series_id, seat=seat, deal=deal)
        if not self.objects or self.objects[-1][:2] != (series_id, seat):
            self._note(series_id, seat, lease)
        return lease

    def _note(self, series_id: str, seat: int | None, lease: Any) -> None:
        assert seat is not None
        self.objects.append((series_id, seat, lease.in_process_target.bot))

    def bot_of(self, series_id: str, seat: int) -> Any:
        return next(obj for sid, s, obj in self.objects if (sid, s) == (series_id, seat))


def test_a_reused_bot_gets_a_handshake_per_series_and_forgets_its_opponent() -> None:
    pool = Recording(InProcessSandbox(), series_per_container=10)
    try:
        for number in (1, 2, 3):
            outcome = run_series(spec(PROBE, RANDOM, f"s{number}", max_hands=HANDS), pool)
            assert outcome.fault is None and outcome.hands_played >= 1
            pool_settles(pool, 2)
        probe = pool.bot_of("s1", 0)
        assert pool.bot_of("s2", 0) is probe and pool.bot_of("s3", 0) is probe
        assert pool.bot_of("s3", 1) is pool.bot_of("s1", 1)  # the random bot too
        starts = [line for line in probe.reports if line.startswith("start")]
        # The bot is told an opaque id per series, never the arena's (s1, s2, s3).
        told = [line.split()[1].removeprefix("series_id=") for line in starts]
        assert all(re.fullmatch(r"[0-9a-f]{16}", t) for t in told) and len(set(told)) == 3
        assert [line.split(" forgot=")[0] for line in starts] == [
            f"start series_id={told[0]} series_number=1 handshakes=1",
            f"start series_id={told[1]} series_number=2 handshakes=2",
            f"start series_id={told[2]} series_number=3 handshakes=3"]
        forgot = [int(line.rsplit("=", 1)[1]) for line in starts]
        assert forgot[0] == 0 and forgot[1] > 0 and forgot[2] > 0  # it had learnt something
        assert [line for line in probe.reports if line.startswith("first-decision")] == [
            f"first-decision series_id={t} remembered=0" for t in told]
        assert pool.counters.reused == 4 and pool.counters.started == 2
    finally:
        pool.close()


CRASHES = '''
import hollywood_sdk as hs


class Crashes(hs.Bot):
    decisions = 0

    def decide(self, observation):
        self.decisions += 1
        if self.decisions == 2:
            raise RuntimeError("crashes on its second decision")
        return observation.legal_actions[0]
'''


def crashing_bot(tmp_path: Path) -> BotRef:
    folder = make_bot_folder(tmp_path, "crashes", code=CRASHES)
    manifest = (folder / "bot.toml").read_text()
    (folder / "bot.toml").write_text(manifest.replace("[run]\n",
                                                      '[run]\nsdk_class = "crashes:Crashes"\n'))
    return BotRef.from_folder(folder)


def test_a_crash_ends_only_its_bot(tmp_path: Path) -> None:
    crashes = crashing_bot(tmp_path)
    pool = Recording(InProcessSandbox(), series_per_container=10)
    try:
        first = run_series(spec(crashes, PROBE, "c1", max_hands=HANDS), pool)
        assert first.fault is not None and first.fault.kind is FaultKind.CRASH
        assert first.fault.seat == 0
        pool_settles(pool, 1)  # the probe's, not the crashed bot's
        second = run_series(spec(crashes, PROBE, "c2", max_hands=HANDS), pool)
        assert second.fault is not None and second.fault.seat == 0
        assert pool.bot_of("c2", 0) is not pool.bot_of("c1", 0)  # a fresh one
        assert pool.bot_of("c2", 1) is pool.bot_of("c1", 1)  # the other seat's kept
        probe = pool.bot_of("c2", 1)
        assert [re.sub("series_id=[0-9a-f]{16} ", "", line.split(" handshakes")[0])
                for line in probe.reports if line.startswith("start")] == [
            "start series_number=1", "start series_number=2"]
        assert pool.counters.stopped == 2 and pool.counters.reused == 1
    finally:
        pool.close()


def test_one_series_per_bot_when_told_so() -> None:
    pool = Recording(InProcessSandbox(), series_per_container=1)
    try:
        for number in (1, 2):
            played = spec(PROBE, RANDOM, f"f{number}", max_hands=HANDS)
            assert run_series(played, pool).fault is None
        assert pool.bot_of("f1", 0) is not pool.bot_of("f2", 0)
        for series_id in ("f1", "f2"):
            assert re.match(r"start series_id=[0-9a-f]{16} series_number=1 handshakes=1",
                            pool.bot_of(series_id, 0).reports[0])
        assert pool.counters.reused == 0 and pool.counters.retired_series == 4
    finally:
        pool.close()


def pool_settles(pool: ReusePool, idle: int) -> None:
    from tests.helpers.polling import wait_until

    wait_until(lambda: pool.idle() == idle, what=f"{idle} bot(s) kept for the next series")
