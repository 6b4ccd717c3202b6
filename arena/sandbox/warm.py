"""A warm pool: the next series' bots started while the current ones play.

Starting a container (create, start, the bot binding its socket) is most of what a
short series costs the arena outside the bots' thinking. ``WarmPool`` wraps a
sandbox: whenever a bot version is prepared or started for a series, it tops the
version's spares up in the background, so the version's next series takes a bot
that is up already, or waits (up to ``spare_wait_s``) for the one on its way rather
than starting another beside it (a second container start, competing for the same
cores, is no sooner). The pool is bounded (``per_version`` spares of a version, ``total``
spares in all); a spare is handed to exactly one series and never back (a bot is
never shared between series); a spare found dead when taken is discarded, not
charged to the bot; spares idle for ``idle_s`` seconds (e.g. after the season
ended) are stopped. A spare starts only when a start slot is free and no playing
bot waits for one (``arena.sandbox.admission``): spares yield to playing bots.
The registry's ``docker`` backend is a ``WarmPool`` over
``DockerSandbox``.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections import defaultdict
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from arena.core.faults import BotFault
from arena.sandbox.admission import ADMISSION, Admission
from arena.sandbox.base import (
    BuildReport,
    InProcessTarget,
    LineSink,
    RunningBot,
    Sandbox,
    SandboxError,
    ignore_line,
)
from arena.sandbox.schedstat import SchedSource

if TYPE_CHECKING:
    from arena.core.series import BotRef

log = logging.getLogger(__name__)

DEFAULT_PER_VERSION = 1
"""One spare per version: on 2 cores, two per version started so many more
containers (two left unused per version at a season's end) that the bots' own
thinking slowed and a season got no faster (tests/bench/bench_cluster.py)."""
DEFAULT_TOTAL = 8
DEFAULT_SPARE_WAIT_S = 5.0
"""How long a series waits for a spare of its version that is starting; longer than
a container's start on a loaded machine, far shorter than the start-up limit."""
DEFAULT_IDLE_S = 30.0
WARM_SERIES_ID = "warm"
"""The series label of a spare (it is started before its series is known)."""

VersionKey = tuple[str, str, str]


@dataclass
class _Spare:
    bot: RunningBot
    since: float


@dataclass
class PoolCounters:
    """How the pool served starts (for the benchmark and the log)."""

    warm: int = 0
    cold: int = 0
    spares: int = 0
    """Spares started (``warm`` of them taken; the rest discarded, expired or stopped
    at the close): with ``cold``, every bot this pool started."""
    discarded: int = 0
    expired: int = 0
    yielded: int = 0
    """Spares not started because playing bots needed the start slots."""


class WarmPool(Sandbox):
    """A ``Sandbox`` that starts each version's next bot ahead; see the module docstring."""

    def __init__(
        self,
        inner: Sandbox,
        *,
        per_version: int = DEFAULT_PER_VERSION,
        total: int = DEFAULT_TOTAL,
        idle_s: float = DEFAULT_IDLE_S,
        spare_wait_s: float = DEFAULT_SPARE_WAIT_S,
        clock: Callable[[], float] = time.monotonic,
        janitor: bool = True,
        admission: Admission = ADMISSION,
    ) -> None:
        if per_version < 0 or total < 0:
            raise ValueError("the pool's bounds must be >= 0")
        self.inner = inner
        self.name = inner.name
        self.description = inner.description
        self.per_version = per_version
        self.total = total
        self.idle_s = idle_s
        self.spare_wait_s = spare_wait_s
        self._now = clock
        self.admission = admission
        self._lock = threading.Lock()
        self._spare_done = threading.Condition(self._lock)  # a spare came up or failed
        self._spares: dict[VersionKey, list[_Spare]] = defaultdict(list)
        self._starting: dict[VersionKey, int] = defaultdict(int)
        self._queued: dict[VersionKey, int] = defaultdict(int)
        """Spares of ``_starting`` waiting for a starter thread."""
        self._unwanted: dict[VersionKey, int] = defaultdict(int)
        """Queued spares the version no longer needs."""
        self._closed = False
        self.counters = PoolCounters()
        self._starter = ThreadPoolExecutor(max_workers=2, thread_name_prefix="warm-pool")
        self._reaper = ThreadPoolExecutor(max_workers=2, thread_name_prefix="warm-pool-stop")
        self._stopped = threading.Event()
        if janitor:  # spares left when the season ended are stopped once idle_s passed
            threading.Thread(target=self._sweep_idle, name="warm-pool-janitor",
                             daemon=True).start()

    def _sweep_idle(self) -> None:
        while not self._stopped.wait(max(self.idle_s / 2, 0.05)):
            self._expire_idle()

    def prepare(self, bot: BotRef) -> None:
        """Prepare ``bot`` (e.g. build its image), then see that spares of its version
        are on their way."""
        self.inner.prepare(bot)
        self._refill(_version_key(bot), bot)

    def prepare_host(self, *, force: bool = False) -> None:
        self.inner.prepare_host(force=force)

    def build(self, bot: BotRef, *, timeout_s: float | None = None,
              on_line: LineSink = ignore_line) -> BuildReport:
        return self.inner.build(bot, timeout_s=timeout_s, on_line=on_line)

    def prepare_image(self, bot: BotRef) -> None:
        """Prepare ``bot`` without starting a spare (its container is kept for it)."""
        self.inner.prepare(bot)

    def start(self, bot: BotRef, *, series_id: str = "", seat: int | None = None,
              deal: str = "", start_spare: bool = True) -> RunningBot:
        """A spare of ``bot``'s version if one is up (never dealt anything), else a
        bot started now; either way a spare of the version is started for its next
        series, unless ``start_spare`` is False (the caller keeps bots for it:
        ``arena.sandbox.reuse``)."""
        key = _version_key(bot)
        self._expire_idle()
        taken = self._take(key)
        if taken is None:
            with self._lock:
                self.counters.cold += 1
                if not start_spare:  # the one queued for this series came too late
                    self._unwanted[key] = self._queued[key]
            try:
                taken = self.inner.start(bot, series_id=series_id, seat=seat, deal=deal)
            finally:  # the series' own start first: it is the one waited for
                if start_spare:
                    self._refill(key, bot)
        elif start_spare:
            self._refill(key, bot)
        return _PooledBot(taken, self._reaper)

    def spares(self) -> int:
        """How many spares are up now."""
        with self._lock:
            return sum(len(spares) for spares in self._spares.values())

    def close(self) -> None:
        """Stop every spare (and stop starting new ones)."""
        self._stopped.set()
        with self._lock:
            self._closed = True
            self._spare_done.notify_all()
            spares = [spare for spares in self._spares.values() for spare in spares]
            self._spares.clear()
        self._starter.shutdown(wait=True)
        self._reaper.shutdown(wait=True)
        with self._lock:  # those a starter finished meanwhile
            spares += [spare for spares in self._spares.values() for spare in spares]
            self._spares.clear()
        for spare in spares:
            spare.bot.stop()

    def _take(self, key: VersionKey) -> RunningBot | None:
        give_up_at = time.monotonic() + self.spare_wait_s
        while True:
            with self._lock:
                while not self._spares.get(key) and self._starting[key] and not self._closed:
                    left = give_up_at - time.monotonic()
                    if left <= 0:
                        return None
                    self._spare_done.wait(left)
                spares = self._spares.get(key)
                if not spares:
                    return None
                spare = spares.pop(0)
            if spare.bot.fault_if_dead() is None:
                with self._lock:
                    self.counters.warm += 1
                return spare.bot
            log.info("a spare of %s died while waiting; discarded", key[0])
            with self._lock:
                self.counters.discarded += 1
            spare.bot.stop()

    def _refill(self, key: VersionKey, bot: BotRef) -> None:
        """Start spares of the version until it has ``per_version`` (up or starting),
        within ``total``: the version's next series, even two at once, find theirs
        started a whole series ahead."""
        while True:
            with self._lock:
                idle = sum(len(spares) for spares in self._spares.values())
                starting = sum(self._starting.values())
                if (self._closed
                        or len(self._spares[key]) + self._starting[key] >= self.per_version
                        or idle + starting >= self.total):
                    return
                self._starting[key] += 1
                self._queued[key] += 1
            try:
                self._starter.submit(self._start_spare, key, bot)
            except RuntimeError:  # closed meanwhile
                with self._lock:
                    self._starting[key] -= 1
                    self._queued[key] -= 1
                return

    def _start_spare(self, key: VersionKey, bot: BotRef) -> None:
        with self._lock:
            self._queued[key] -= 1
            if self._unwanted[key] > 0:
                self._unwanted[key] -= 1
                self._starting[key] -= 1
                self._spare_done.notify_all()
                return
        spare: RunningBot | None = None
        admitted = self.admission.try_acquire()  # playing bots first (arena.sandbox.admission)
        try:
            if admitted:
                spare = self.inner.start(bot, series_id=WARM_SERIES_ID, seat=None)
                with self._lock:
                    self.counters.spares += 1
            else:
                with self._lock:
                    self.counters.yielded += 1
        except (BotFault, SandboxError) as error:
            # The series that takes this version next starts it itself and sees the
            # fault where it belongs (the bot's), or the arena-side error.
            log.info("spare of %s not started: %s", key[0], error)
        finally:  # one step: a waiting series sees the spare, or that none is coming
            if admitted:
                self.admission.release()
            with self._lock:
                self._starting[key] -= 1
                if spare is not None and not self._closed:
                    self._spares[key].append(_Spare(spare, self._now()))
                    spare = None
                self._spare_done.notify_all()
        if spare is not None:  # the pool closed meanwhile
            spare.stop()

    def _expire_idle(self) -> None:
        now = self._now()
        expired: list[_Spare] = []
        with self._lock:
            for key, spares in self._spares.items():
                keep = [s for s in spares if now - s.since < self.idle_s]
                expired += [s for s in spares if now - s.since >= self.idle_s]
                self._spares[key] = keep
            self.counters.expired += len(expired)
        for spare in expired:
            with contextlib.suppress(Exception):
                spare.bot.stop()


class _PooledBot(RunningBot):
    """A bot handed to a series. ``stop`` hands the removal (for a container, a few
    hundred milliseconds of Docker's time) to the pool's stopper threads, so the
    series' thread goes on at once; what is read after a stop waits for it."""

    def __init__(self, bot: RunningBot, reaper: ThreadPoolExecutor) -> None:
        self._bot = bot
        self._reaper = reaper
        self._stopping: Future[None] | None = None

    @property
    def target(self) -> str:
        return self._bot.target

    def wait_ready(self, timeout: float) -> None:
        self._bot.wait_ready(timeout)

    @property
    def in_process_target(self) -> InProcessTarget | None:
        return self._bot.in_process_target

    def sched_source(self) -> SchedSource:
        return self._bot.sched_source()

    def stderr_mark(self) -> object:
        return self._bot.stderr_mark()

    def series_stderr(self, mark: object, limit: int) -> tuple[bytes, int]:
        return self._bot.series_stderr(mark, limit)

    def stderr_tail(self) -> str:
        self._stopped()
        return self._bot.stderr_tail()

    def alive(self) -> bool:
        """The started bot's own quick probe (``arena.sandbox.reuse`` asks between series)."""
        return self._stopping is None and self._bot.alive()

    def memory_bytes(self) -> int | None:
        return self._bot.memory_bytes()

    def renew(self) -> bool:
        return self._stopping is None and self._bot.renew()

    def fault_if_dead(self, wait_s: float = 0.0) -> BotFault | None:
        self._stopped()
        return self._bot.fault_if_dead(wait_s)

    def stop(self) -> None:
        if self._stopping is not None:
            return
        try:
            self._stopping = self._reaper.submit(self._bot.stop)
        except RuntimeError:  # the pool is closed: stop here
            self._bot.stop()

    def _stopped(self) -> None:
        if self._stopping is not None:
            self._stopping.result()


def _version_key(bot: BotRef) -> VersionKey:
    return (bot.name, bot.version, str(Path(bot.folder).resolve()))


def warm_docker_sandbox() -> WarmPool:
    """A warm pool over a ``DockerSandbox``: a fresh container per bot per series."""
    from arena.sandbox.docker import DockerSandbox

    return WarmPool(DockerSandbox())
