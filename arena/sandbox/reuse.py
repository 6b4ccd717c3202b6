"""Bot containers reused across series (as cutechess keeps its engines between games).

Starting a container costs about half a second of CPU, as much as the sample bots
think in a whole series, so a season that starts two per series spends most of its
time on the arena's side. ``ReusePool`` wraps a sandbox and keeps a bot's container
after a series it finished cleanly: the version's next series gets it back, with a
new Handshake (``RunningBot.series_number`` tells the connection which series of
the container it is; the protocol marks each Handshake as the start of a series).
Such a start costs no container, no start slot (``arena.sandbox.admission``) and no
start-up time; the Handshake is timed as always.

The rules:

* one series at a time: a container is leased to one series and comes back only
  when that series hands it back (``release``);
* never the same deal twice: each container remembers the deals it was dealt
  (``SeriesSpec.deal``, a fingerprint of the seed) and is never leased to a series
  that deals one of them: the second series of a duplicate pair (one deal, seats
  swapped), a series replayed from its seed, or a season that deals the same cards
  again gets a fresh process. With ``renew`` (the ``docker`` backend) that is the
  version's idle container renewed (``RunningBot.renew``: restarted, nothing of its
  process left; its deals forgotten with it), so one container serves a version;
  else, or when it cannot be renewed, another container, and two per version take
  turns over the pairs' halves. Held for the process's whole life, whatever
  seasons it serves;
* a container serves one bot version only: the pool is keyed by name, version,
  folder and the folder's content hash (what the image is built from); the limits
  are the wrapped sandbox's, fixed for the pool's life, and the server's pool
  lives for one season (it makes a sandbox per season and closes it at the end);
* a container is replaced (stopped, and the next series starts a fresh one) after
  a fault or crash of its bot in any series (the runner then calls ``stop``, not
  ``release``), after ``series_per_container`` series, when its memory is above
  ``memory_limit_bytes`` when handed back, when it was found dead, when it used more
  than ``IDLE_CPU_S`` (+ ``IDLE_CPU_SHARE``) of CPU while kept (it would take a
  core from playing bots), after ``idle_s`` idle, and when the pool is closed;
* stopping is off the series' path: ``stop`` and ``release`` return at once, the
  pool's stopper threads remove containers and check the ones handed back (alive,
  memory) before another series may take them; the version's next series waits
  for a container being checked (up to ``settle_wait_s``) rather than starting one,
  unless that container was dealt the series' deal.

Starting ahead stays the wrapped sandbox's job: the ``docker`` backend is a
``ReusePool`` over a ``WarmPool`` (``arena.sandbox.warm``; spares only on idle cores),
or with ``series_per_container=1`` (``--fresh-container-per-series``) the
``WarmPool`` alone: a fresh container per bot per series. A version's spare is
started ahead only on the way to its first container, or without ``renew`` to
``AHEAD_CONTAINERS``.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections import defaultdict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Final

from arena.core.manifest import ManifestError, content_hash
from arena.core.settings import DEFAULT_SERIES_PER_CONTAINER
from arena.sandbox.base import BuildReport, LineSink, RunningBot, Sandbox, ignore_line
from arena.sandbox.lease import KeptBot, Lease, ReuseCounters, busy_while_idle
from arena.sandbox.tally import TALLY
from arena.sandbox.warm import WarmPool

if TYPE_CHECKING:
    from arena.core.series import BotRef

log = logging.getLogger(__name__)

DEFAULT_IDLE_S: Final = 60.0
AHEAD_CONTAINERS: Final = 2
"""A version's containers worth starting ahead: one per half of a duplicate pair,
which then take turns over all its series (a spare after that went unused)."""
DEFAULT_SETTLE_WAIT_S: Final = 5.0
"""How long a series waits for its version's container that is being checked
after its last series; far shorter than a start on a loaded machine."""

ContainerKey = tuple[str, str, str, str]


class ReusePool(Sandbox):
    """A ``Sandbox`` that keeps clean bots' containers for their next series; see the
    module docstring."""

    def __init__(
        self, inner: Sandbox, *, series_per_container: int = DEFAULT_SERIES_PER_CONTAINER,
        memory_limit_bytes: int | None = None, idle_s: float = DEFAULT_IDLE_S,
        settle_wait_s: float = DEFAULT_SETTLE_WAIT_S,
        clock: Callable[[], float] = time.monotonic, janitor: bool = True,
        renew: bool = False,
    ) -> None:
        if series_per_container < 1:
            raise ValueError("a container serves at least 1 series")
        self.inner = inner
        self.name = inner.name
        self.description = inner.description
        self.series_per_container = series_per_container
        self.memory_limit_bytes = memory_limit_bytes
        self.idle_s = idle_s
        self.settle_wait_s = settle_wait_s
        self.renew = renew
        self._ahead = 1 if renew else AHEAD_CONTAINERS
        self._now = clock
        self._lock = threading.Lock()
        self._settled = threading.Condition(self._lock)
        self._idle: dict[ContainerKey, list[KeptBot]] = defaultdict(list)
        self._settling: dict[ContainerKey, list[frozenset[str]]] = defaultdict(list)
        """The deals of each container being checked after its series."""
        self._leased: dict[ContainerKey, int] = defaultdict(int)
        self._closed = False
        self.counters = ReuseCounters()
        self._stopper = ThreadPoolExecutor(max_workers=2, thread_name_prefix="reuse-stop")
        self._stopped = threading.Event()
        if janitor:
            threading.Thread(target=self._sweep_idle, name="reuse-janitor",
                             daemon=True).start()

    def prepare(self, bot: BotRef) -> None:
        """Prepare ``bot`` (build its image); a version with a container needs no
        spare started ahead, so only the image is seen to then."""
        key = _container_key(bot)
        with self._lock:
            kept = self._containers(key) > 0
        if kept and isinstance(self.inner, WarmPool):
            self.inner.prepare_image(bot)
        else:
            self.inner.prepare(bot)

    def start(self, bot: BotRef, *, series_id: str = "", seat: int | None = None,
              deal: str = "") -> RunningBot:
        """The version's idle container never dealt ``deal`` if there is one
        (``reuse``), else one renewed (with ``renew``), else a new one."""
        reused = self.reuse(bot, series_id=series_id, seat=seat, deal=deal)
        if reused is not None:
            return reused
        key = _container_key(bot)
        renewed = self._renewed(key, deal) if self.renew else None
        if renewed is not None:
            return renewed
        if isinstance(self.inner, WarmPool):
            with self._lock:
                ahead = self._containers(key) + 1 < self._ahead
            started = self.inner.start(bot, series_id=series_id, seat=seat, deal=deal,
                                       start_spare=ahead)
        else:
            started = self.inner.start(bot, series_id=series_id, seat=seat, deal=deal)
        with self._lock:
            self.counters.started += 1
        return self._lease(key, started, 1, _dealt(frozenset(), deal))

    def reuse(self, bot: BotRef, *, series_id: str = "", seat: int | None = None,
              deal: str = "") -> RunningBot | None:
        """An idle container of ``bot``'s version that was never dealt ``deal``, leased
        to this series, or None (the caller then starts one, under a start slot)."""
        del series_id, seat  # a reused container keeps the labels of its first series
        key = _container_key(bot)
        self._expire_idle()
        while True:
            idle = self._take(key, deal)
            if idle is None:
                return None
            if not idle.bot.alive():
                log.info("an idle container of %s died between series; replaced", bot.name)
                with self._lock:
                    self.counters.retired_dead += 1
            elif busy_while_idle(idle, self._now()):
                log.info("a kept container of %s computed between series; replaced",
                         bot.name)
                with self._lock:
                    self.counters.retired_busy += 1
            else:
                with self._lock:
                    self.counters.reused += 1
                TALLY.reused()
                return self._lease(key, idle.bot, idle.served + 1, _dealt(idle.deals, deal))
            self._stop_later(idle.bot)

    def prepare_host(self, *, force: bool = False) -> None:
        self.inner.prepare_host(force=force)

    def build(self, bot: BotRef, *, timeout_s: float | None = None,
              on_line: LineSink = ignore_line) -> BuildReport:
        return self.inner.build(bot, timeout_s=timeout_s, on_line=on_line)

    def idle(self) -> int:
        """Containers waiting for their next series now."""
        with self._lock:
            return sum(len(idle) for idle in self._idle.values())

    def close(self) -> None:
        """Stop every idle container; containers handed back later are stopped too."""
        self._stopped.set()
        with self._lock:
            self._closed = True
            self._settled.notify_all()
        self._stopper.shutdown(wait=True)
        with self._lock:
            idle = [item for items in self._idle.values() for item in items]
            self._idle.clear()
            self.counters.stopped += len(idle)
        for item in idle:
            with contextlib.suppress(Exception):
                item.bot.stop()
        self.inner.close()

    # -- called by the leases

    def _lease(self, key: ContainerKey, bot: RunningBot, served: int,
               deals: frozenset[str]) -> Lease:
        def hand_back(bot: RunningBot, served: int, deals: frozenset[str]) -> None:
            self._release(key, bot, served, deals)

        def retire(bot: RunningBot) -> None:
            with self._lock:
                self._leased[key] -= 1
            self._retire(bot)

        with self._lock:
            self._leased[key] += 1
        return Lease(bot, served, deals, hand_back=hand_back, retire=retire)

    def _release(self, key: ContainerKey, bot: RunningBot, served: int,
                 deals: frozenset[str]) -> None:
        with self._lock:
            self._leased[key] -= 1
            if self._closed:
                self.counters.stopped += 1
                keep = False
            else:
                self._settling[key].append(deals)
                keep = True
        if not keep:
            bot.stop()
            return
        try:
            self._stopper.submit(self._settle, key, bot, served, deals)
        except RuntimeError:  # closed meanwhile
            with self._lock:
                self._settling[key].remove(deals)
                self._settled.notify_all()
            bot.stop()

    def _retire(self, bot: RunningBot) -> None:
        with self._lock:
            self.counters.stopped += 1
        self._stop_later(bot)

    # -- inside

    def _containers(self, key: ContainerKey) -> int:  # leased, being checked, idle
        return self._leased[key] + len(self._settling[key]) + len(self._idle.get(key, ()))

    def _settle(self, key: ContainerKey, bot: RunningBot, served: int,
                deals: frozenset[str]) -> None:
        """Check a container handed back; keep it idle for the next series or stop it."""
        keep = False
        cpu: float | None = None
        try:
            keep = self._fit_for_more(bot, served)
            cpu = bot.cpu_seconds() if keep else None
        finally:
            with self._lock:
                self._settling[key].remove(deals)
                if keep and not self._closed:
                    self._idle[key].append(KeptBot(bot, served, self._now(), cpu, deals))
                    bot_to_stop = None
                else:
                    bot_to_stop = bot
                self._settled.notify_all()
        if bot_to_stop is not None:
            with contextlib.suppress(Exception):
                bot_to_stop.stop()

    def _fit_for_more(self, bot: RunningBot, served: int) -> bool:
        if served >= self.series_per_container:
            with self._lock:
                self.counters.retired_series += 1
            return False
        if not bot.alive():
            with self._lock:
                self.counters.retired_dead += 1
            return False
        used = bot.memory_bytes()
        if self.memory_limit_bytes is not None and used is not None \
                and used > self.memory_limit_bytes:
            log.info("a container using %d bytes (over %d) is replaced", used,
                     self.memory_limit_bytes)
            with self._lock:
                self.counters.retired_memory += 1
            return False
        return True

    def _renewed(self, key: ContainerKey, deal: str) -> RunningBot | None:
        """The version's idle container with a fresh process (nothing of the old one
        left, so no deal it was dealt), leased to a series dealing ``deal``; None if
        there is none, or it cannot be renewed (it is stopped then)."""
        idle = self._take(key, deal, renewing=True)
        if idle is None:
            return None
        if idle.bot.renew():
            with self._lock:
                self.counters.renewed += 1
            return self._lease(key, idle.bot, 1, _dealt(frozenset(), deal))
        with self._lock:
            self.counters.not_renewed += 1
        self._stop_later(idle.bot)
        return None

    def _take(self, key: ContainerKey, deal: str, *, renewing: bool = False
              ) -> KeptBot | None:
        """The idle container of ``key`` kept last that was never dealt ``deal`` (any,
        when ``renewing`` it), waiting for one being checked that was not either."""
        def fits(deals: frozenset[str]) -> bool:
            return renewing or deal not in deals

        give_up_at = time.monotonic() + self.settle_wait_s
        with self._lock:
            while (not any(fits(item.deals) for item in self._idle.get(key, ()))
                   and any(fits(deals) for deals in self._settling[key])
                   and not self._closed):
                left = give_up_at - time.monotonic()
                if left <= 0:
                    return None
                self._settled.wait(left)
            idle = self._idle.get(key, [])
            for index in range(len(idle) - 1, -1, -1):
                if fits(idle[index].deals):
                    return idle.pop(index)
            return None

    def _stop_later(self, bot: RunningBot) -> None:
        try:
            self._stopper.submit(bot.stop)
        except RuntimeError:  # the pool is closed: stop here
            bot.stop()

    def _sweep_idle(self) -> None:
        while not self._stopped.wait(max(self.idle_s / 2, 0.05)):
            self._expire_idle()

    def _expire_idle(self) -> None:
        now = self._now()
        expired: list[KeptBot] = []
        with self._lock:
            for key, items in self._idle.items():
                expired += [item for item in items if now - item.since >= self.idle_s]
                self._idle[key] = [item for item in items if now - item.since < self.idle_s]
            self.counters.expired += len(expired)
        for item in expired:
            self._stop_later(item.bot)


def _dealt(deals: frozenset[str], deal: str) -> frozenset[str]:
    return deals | {deal} if deal else deals


def _container_key(bot: BotRef) -> ContainerKey:
    folder = Path(bot.folder).resolve()
    try:
        digest = content_hash(folder)
    except (ManifestError, OSError):
        digest = ""  # the start fails where it belongs (the build), not here
    return (bot.name, bot.version, str(folder), digest)


def docker_sandbox(series_per_container: int = DEFAULT_SERIES_PER_CONTAINER, *,
                   renew: bool = True) -> Sandbox:
    """The registry's ``docker`` backend: a ``ReusePool`` over a warm pool of
    ``DockerSandbox`` containers, renewing a kept container where a series needs a
    fresh process (``renew=False``: starting another), or the warm pool alone (a
    fresh container per bot per series) for ``series_per_container=1``."""
    from arena.sandbox.warm import warm_docker_sandbox

    warm = warm_docker_sandbox()
    if series_per_container <= 1:
        return warm
    config = getattr(warm.inner, "config", None)
    return ReusePool(warm, series_per_container=series_per_container,
                     memory_limit_bytes=getattr(config, "reuse_memory_bytes", None),
                     renew=renew)
