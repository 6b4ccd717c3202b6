"""Admission: which work may take the machine's cores now (one rule for all of it).

Starting a bot (a container's creation and start, an interpreter loading its
libraries, the bot binding its socket and answering its handshake) is the most
CPU-hungry moment of its life. Two starts per core already make each slower than
one after the other, and every one of them is on a start-up clock. So a bot of a
series takes a *start slot* before the sandbox starts it and gives it back once it
answered its handshake (or failed); there are ``slots`` of them, by default one per
core (``os.cpu_count()``), or ``ARENA_START_SLOTS`` from the environment. A bot
container reused for its next series (``arena.sandbox.reuse``) starts nothing and
takes no slot.

Playing bots come first. Work that no series waits for yet, a warm pool's spare
(``arena.sandbox.warm``) or a bot image build ahead of its series, is *background*
work: it starts only if a slot is free, no playing bot waits for one, and, while
any series is playing (``playing``: the match runner marks its play), the
machine has an idle core by its measured load (``LoadSample``: the tasks running
or waiting to run, from ``/proc/loadavg``, and the share of time some task waited
for a core, ``/proc/pressure/cpu``'s ``some avg10``, where the kernel has it). So
adding such work never takes a core from a bot that is playing. A spare that finds
no idle core is not started (``try_acquire``); a build, which its series cannot do
without, waits for an idle core for a while (``await_idle_core``) and then goes
ahead; it holds no start slot while it runs (a build can take minutes).

Series follow the same rule (``series``, taken by ``arena.execution.LocalExecutor``
around each series): the season's ``concurrency`` is only the most that may play at
once. The first series always plays at once, so a machine busy for good still makes
progress; each further one waits until the machine has a core no task wants, by the
same measured load, and is admitted then, or when a series ends.

``ADMISSION`` is the process-wide instance every sandbox and the start-up share;
it reads the real machine. An ``Admission`` built without ``load`` counts slots only.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Final

SLOTS_ENV: Final = "ARENA_START_SLOTS"
PRESSURE_LIMIT_PCT: Final = 25.0
"""Above this share of the last 10 s with some task waiting for a core, no core is
idle, whatever the instant count says (it misses a core shared by turns)."""
BUILD_WAIT_S: Final = 30.0
"""How long a build waits for an idle core before it goes ahead anyway: a build is
needed by its series, so a machine busy for good must not stop it forever."""
_POLL_S: Final = 0.05


def default_slots() -> int:
    """``ARENA_START_SLOTS`` if set to a positive number, else the machine's cores."""
    configured = os.environ.get(SLOTS_ENV, "").strip()
    if configured.isdigit() and int(configured) > 0:
        return int(configured)
    return max(1, os.cpu_count() or 1)


@dataclass(frozen=True)
class LoadSample:
    """The machine's measured load at one moment; ``None`` where it cannot be read."""

    runnable: float | None
    """Tasks running or waiting for a core, the reader itself not counted."""
    pressure_pct: float | None = None
    """Share of the last 10 s in which some task waited for a core (PSI ``some avg10``)."""


LoadSource = Callable[[], LoadSample]


def read_runnable(path: Path = Path("/proc/loadavg")) -> float | None:
    """The running-or-runnable tasks of ``/proc/loadavg`` (its fourth field, ``r/t``),
    less the reader; None if the file is missing or not in that form."""
    try:
        fields = path.read_text().split()
        return max(0.0, float(fields[3].partition("/")[0]) - 1)
    except (OSError, IndexError, ValueError):
        return None


def read_pressure(path: Path = Path("/proc/pressure/cpu")) -> float | None:
    """``some avg10`` of the kernel's CPU pressure (percent); None without PSI."""
    try:
        for line in path.read_text().splitlines():
            words = line.split()
            if words and words[0] == "some":
                for word in words[1:]:
                    key, _, value = word.partition("=")
                    if key == "avg10":
                        return float(value)
    except (OSError, ValueError):
        return None
    return None


def machine_load() -> LoadSample:
    """The real machine's load (``/proc``)."""
    return LoadSample(read_runnable(), read_pressure())


class Admission:
    """``slots`` start slots; playing bots (``acquire``) before background work
    (``try_acquire``, ``await_idle_core``), which also needs an idle core by ``load``."""

    def __init__(self, slots: int | None = None, *, load: LoadSource | None = None,
                 cores: int | None = None,
                 clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep,
                 poll_s: float = _POLL_S) -> None:
        self.slots = default_slots() if slots is None else slots
        if self.slots < 1:
            raise ValueError(f"admission needs at least 1 start slot, got {self.slots}")
        self.cores = max(1, os.cpu_count() or 1) if cores is None else cores
        self._load = load
        self._now = clock
        self._sleep = sleep
        self._in_use = 0
        self._waiting = 0
        self._playing = 0
        self._series = 0
        self._poll_s = poll_s
        self._changed = threading.Condition()
        self._series_turn = threading.Lock()

    @property
    def in_use(self) -> int:
        with self._changed:
            return self._in_use

    @contextmanager
    def playing(self) -> Iterator[None]:
        """Marks a series' play (its bots deciding): the time background work must
        not take a core from."""
        with self._changed:
            self._playing += 1
        try:
            yield
        finally:
            with self._changed:
                self._playing -= 1

    def idle_core(self) -> bool:
        """Whether background work may have a core: no series is playing, or the
        machine has a core no task wants (always, without a load source)."""
        with self._changed:
            playing = self._playing
        return not playing or self._core_free()

    def _core_free(self) -> bool:
        """Whether the measured load leaves a core no task wants (always, without a
        load source)."""
        if self._load is None:
            return True
        sample = self._load()
        if sample.pressure_pct is not None and sample.pressure_pct >= PRESSURE_LIMIT_PCT:
            return False
        # The slots in use are starts the sample may not see yet (a container being created).
        return sample.runnable is None or sample.runnable + self.in_use < self.cores

    @property
    def series_playing(self) -> int:
        """Series admitted by ``series`` and not finished."""
        with self._changed:
            return self._series

    @contextmanager
    def series(self) -> Iterator[None]:
        """A series' place among those playing at once, held for the block: at once
        when no series plays, else once the machine has an idle core (see the module
        docstring). Waiting series are decided one at a time, in turn."""
        with self._series_turn:
            self._await_room_for_a_series()
        try:
            yield
        finally:
            with self._changed:
                self._series -= 1
                self._changed.notify_all()

    def _await_room_for_a_series(self) -> None:
        while True:
            with self._changed:
                if not self._series:
                    self._series += 1
                    return
            if self._core_free():  # read outside the lock: /proc can be slow under load
                with self._changed:
                    self._series += 1
                    return
            with self._changed:
                if self._series:  # a series that ends wakes this at once
                    self._changed.wait(self._poll_s)

    def acquire(self) -> None:
        """Wait for a slot (a bot of a series about to start)."""
        with self._changed:
            self._waiting += 1
            try:
                while self._in_use >= self.slots:
                    self._changed.wait()
            finally:
                self._waiting -= 1
            self._in_use += 1

    def try_acquire(self) -> bool:
        """A slot for background work (a spare) if one is free, no playing bot waits
        for one and a core is idle; False otherwise (the work is not started)."""
        if not self.idle_core():  # read outside the lock: /proc can be slow under load
            return False
        with self._changed:
            if self._in_use >= self.slots or self._waiting:
                return False
            self._in_use += 1
            return True

    def release(self) -> None:
        with self._changed:
            if self._in_use <= 0:
                raise RuntimeError("admission: a start slot released twice")
            self._in_use -= 1
            self._changed.notify_all()

    @contextmanager
    def slot(self) -> Iterator[None]:
        """A slot held for the block (waiting for it first)."""
        self.acquire()
        try:
            yield
        finally:
            self.release()

    def await_idle_core(self, max_wait_s: float = BUILD_WAIT_S) -> bool:
        """Wait until background work that must be done (an image build) may start:
        as ``try_acquire`` allows, polling up to ``max_wait_s``; True if admitted,
        False if it goes ahead after the wait. It holds no slot afterwards: a long
        build must never keep a playing bot from starting."""
        give_up_at = self._now() + max_wait_s
        while not self.try_acquire():
            if self._now() >= give_up_at:
                return False
            self._sleep(_POLL_S)
        self.release()
        return True


ADMISSION = Admission(load=machine_load)
