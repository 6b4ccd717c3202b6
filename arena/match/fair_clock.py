"""A bot's clock that charges only the time the bot had (docs/arena.md, "Fair clocks").

A wall clock cannot tell a bot that hangs from a bot the host did not run. A
``Window`` measures one timed step (a start-up, one ``Decide``) and charges the bot

    charged = wall - starved - arena_late      (never less than its CPU time)

where ``starved`` is how long the bot was runnable but waiting for a core (the
run-queue wait of its threads, at most the wall time it did not run) and
``arena_late`` how long the arena's own thread waited for a core. The deadline
stretches while the bot is starved, up to a hard wall cap (``CAP_FACTOR`` times the
limit, at least ``MIN_CAP_EXTRA_S`` more). So:

* a bot that sleeps or blocks (really hangs) is never runnable: nothing is
  subtracted and it is charged on time;
* a bot that spins is charged once its running time passes the limit;
* only when the cap is reached before the charged time is, that is when the bot was
  starved for most of its window, the step is the arena's fault: ``ArenaOverload``
  voids the series (it is played again later).

The clock and both readers are injected (``arena.sandbox.schedstat`` in production,
fakes in the tests), so every verdict is exact in a test.

The time words, from the settings to this clock: ``decision_s`` is the limit of one
decision (``TimeLimits.decision_s``, ``deadline_ms`` on the wire), ``reserve_s``
what a seat has left to draw on past it, and ``allowed_s`` what one timed step may
take (for a decision, ``decision_s`` plus the reserve left; for a start-up,
``startup_s``). Every wait for a timed step is ``wait_within``: a ``Window``, or a
``WallWindow`` where no fair clock runs.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from threading import get_ident
from typing import Final, TypeVar

from arena.core.faults import ArenaOverload, BotFault, FaultKind
from arena.sandbox.schedstat import SchedSource, TaskTimes, current_thread_source

Clock = Callable[[], float]
T = TypeVar("T")

CAP_FACTOR: Final = 8.0
"""The wall time a step may take, as a multiple of its limit, while the bot is starved.
Above the share of a core a bot gets on a machine loaded 4 busy processes per core
(about 1/5), so that a bot spinning on such a machine still reaches its limit of
running time, and is charged, before the cap voids its series."""
MIN_CAP_EXTRA_S: Final = 2.0
"""...and at least this much more than the limit (short limits: a few scheduler slices)."""
ARENA_READING_REUSE_S: Final = 0.001
"""How old the arena's reading a window starts from may be (``meter_for`` with the
real clock). Reading the kernel at every decision cost an in-process season more
than a tenth of its time; a reading this recent, of the same thread, is reused, and
the wait it may include from before the window is not forgiven (see ``Window``)."""


@dataclass(frozen=True)
class Usage:
    """What a bot did with one window. ``measured`` is False where the kernel said
    nothing (then the wall clock decides alone)."""

    wall_s: float
    cpu_s: float
    starved_s: float
    arena_late_s: float
    measured: bool

    @property
    def charged_s(self) -> float:
        uncharged = self.wall_s - self.starved_s - self.arena_late_s
        return max(min(self.cpu_s, self.wall_s), uncharged, 0.0)

    def figures(self) -> str:
        """E.g. ``bot CPU 0.49 s, waited for a core 0.01 s`` (what a fault message quotes)."""
        if not self.measured:
            return f"{self.wall_s:.2f} s by the wall clock; the kernel gave no CPU figures"
        text = f"bot CPU {self.cpu_s:.2f} s, waited for a core {self.starved_s:.2f} s"
        if self.arena_late_s >= 0.005:
            text += f", arena late {self.arena_late_s:.2f} s"
        return text


class _Tally:
    """Differences of one source since a window began; a task that vanished keeps
    its last reading."""

    def __init__(self, source: SchedSource, start: Mapping[int, TaskTimes]) -> None:
        self._source = source
        self._start = start
        self._last = dict(start)

    def since_start(self) -> tuple[float, float, bool]:
        self._last.update(self._source())
        cpu = wait = 0.0
        for tid, (ran, waited) in self._last.items():
            base_ran, base_waited = self._start.get(tid, (0.0, 0.0))
            cpu += max(0.0, ran - base_ran)
            wait += max(0.0, waited - base_waited)
        return cpu, wait, bool(self._last)


class Window:
    """One timed step of ``allowed_s`` charged seconds; see the module docstring."""

    __slots__ = ("_arena_before_s", "_begun", "_clock", "_sources", "_starts", "_tallies",
                 "allowed_s", "cap_s")  # one a decision

    def __init__(self, allowed_s: float, clock: Clock, bot: SchedSource,
                 arena: SchedSource, cap_factor: float = CAP_FACTOR, *,
                 arena_start: tuple[float, Mapping[int, TaskTimes]] | None = None) -> None:
        """``arena_start``: when (by ``clock``) an earlier reading of ``arena`` was
        taken, and what it said, instead of a fresh one. The arena may have waited for a
        core in between, by at most that long: so much less of its lateness is
        forgiven (the bot is never charged less than by a fresh reading, and at most
        that much more)."""
        self.allowed_s = allowed_s
        capped = allowed_s * cap_factor  # max() of two: a call at every decision
        least = allowed_s + MIN_CAP_EXTRA_S
        self.cap_s = capped if capped > least else least
        self._clock = clock
        self._begun = begun = clock()
        # Made at every decision, and most are never asked how they were used: the
        # readings are kept as read, and tallied only when asked.
        self._sources = (bot, arena)
        if arena_start is None:
            self._starts = (bot(), arena())
            self._arena_before_s = 0.0
        else:
            self._starts = (bot(), arena_start[1])
            self._arena_before_s = begun - arena_start[0]
        self._tallies: tuple[_Tally, _Tally] | None = None

    def wall_s(self) -> float:
        return self._clock() - self._begun

    def arena_start(self) -> tuple[float, Mapping[int, TaskTimes]]:
        """When the arena's reading this window starts from was taken (at the latest),
        and what it said (``arena_start`` of a later window)."""
        return self._begun - self._arena_before_s, self._starts[1]

    def usage(self) -> Usage:
        wall = self.wall_s()
        if self._tallies is None:
            self._tallies = (_Tally(self._sources[0], self._starts[0]),
                             _Tally(self._sources[1], self._starts[1]))
        bot_tally, arena_tally = self._tallies
        cpu, waited, measured = bot_tally.since_start()
        _, arena_late, _ = arena_tally.since_start()
        arena_late = max(0.0, arena_late - self._arena_before_s)
        starved = min(waited, max(0.0, wall - cpu))
        return Usage(wall, cpu, starved, min(arena_late, wall), measured)

    def charged_s(self, exact_above: float | None = None) -> float:
        """The charged time so far; the wall time while that is within
        ``exact_above`` (the limit by default), where the difference cannot matter
        to the caller, so the kernel is not asked."""
        wall = self.wall_s()
        threshold = self.allowed_s if exact_above is None else exact_above
        return wall if wall <= threshold else self.usage().charged_s

    def remaining(self) -> float:
        """How long the step may still wait: charged time left, within the wall cap.
        A lower bound while the wall clock is within the limit (asked again later)."""
        wall = self.wall_s()
        if wall < self.allowed_s:
            return self.allowed_s - wall
        return max(0.0, min(self.allowed_s - self.usage().charged_s, self.cap_s - wall))

    def over(self) -> bool:
        return self.remaining() <= 0.0

    def verdict(self, kind: FaultKind, what: str, who: str = "the bot") -> Exception:
        """The end of a step that ran out: the bot's ``BotFault`` if it was charged its
        whole limit, else ``ArenaOverload`` (the cap came first: it was starved).
        Before the cap, the step ran out because an earlier reading charged the whole
        limit: a reading taken a moment later (a forking bot's new tasks, the kernel's
        own rounding) may split the same time a hair differently, and must not turn
        the bot's time-out into a void."""
        usage = self.usage()
        if (usage.charged_s >= self.allowed_s or usage.wall_s < self.cap_s
                or not usage.measured):
            return BotFault(kind, f"{what} within {self.allowed_s:.2f} s ({usage.figures()})")
        return ArenaOverload(
            f"{who}: {what} within {self.allowed_s:.2f} s of its own time, but in "
            f"{usage.wall_s:.2f} s the machine gave it only {usage.charged_s:.2f} s "
            f"({usage.figures()})")


class WallWindow:
    """A step timed by the wall clock alone, where no fair clock runs (a handshake or
    a notification, a connection used outside a match): a ``Window``'s ``remaining``
    and ``verdict``, so every wait has one shape (``wait_within``)."""

    __slots__ = ("_begun", "_clock", "allowed_s", "cap_s")

    def __init__(self, allowed_s: float, clock: Clock = time.monotonic) -> None:
        self.allowed_s = self.cap_s = allowed_s  # nothing stretches it
        self._clock = clock
        self._begun = clock()

    def wall_s(self) -> float:
        return self._clock() - self._begun

    def remaining(self) -> float:
        return self.allowed_s - (self._clock() - self._begun)

    def verdict(self, kind: FaultKind, what: str, who: str = "the bot") -> Exception:
        del who  # the wall clock cannot tell the machine's fault from the bot's
        return BotFault(kind, f"{what} within {self.allowed_s:.3f} s")


TimedStep = Window | WallWindow


def wait_within(step: TimedStep, wait: Callable[[float], T], what: str, *,
                kind: FaultKind = FaultKind.TIMEOUT, who: str = "the bot",
                not_yet: tuple[type[BaseException], ...] = ()) -> T:
    """``wait(seconds)`` with what is left of ``step``'s time, until it returns. A
    wait that ends by one of ``not_yet`` while the step still has time (the bot was
    starved: the window stretched) is made again with what is left; once none is
    left, the step's verdict (``what``: e.g. ``no answer to Decide``) is raised."""
    while True:
        left = step.remaining()
        if left <= 0.0:
            raise step.verdict(kind, what, who)
        try:
            return wait(left)
        except not_yet:
            continue


class Meter:
    """Makes the windows of one seat: the bot's threads (``bot``) and the clock.
    With ``arena_reuse_s``, a window starts from the reading of the arena's thread
    that an earlier window of this meter took, if that thread's and at most that old
    (``Window``'s ``arena_start``), rather than reading it again."""

    def __init__(self, bot: SchedSource, *, clock: Clock = time.monotonic,
                 arena: Callable[[], SchedSource] = current_thread_source,
                 cap_factor: float = CAP_FACTOR, arena_reuse_s: float = 0.0) -> None:
        self._bot = bot
        self._clock = clock
        self._arena = arena
        self._cap_factor = cap_factor
        self._reuse_s = arena_reuse_s
        self._recent: tuple[int, SchedSource, float, Mapping[int, TaskTimes]] | None = None
        """The thread whose source was last read, the source, when, and what it said."""

    def window(self, allowed_s: float) -> Window:
        """A window starting now; the arena's side is the calling thread."""
        recent = self._recent
        if (recent is not None and recent[0] == get_ident()
                and self._clock() - recent[2] <= self._reuse_s):
            return Window(allowed_s, self._clock, self._bot, recent[1], self._cap_factor,
                          arena_start=(recent[2], recent[3]))
        arena = self._arena()
        window = Window(allowed_s, self._clock, self._bot, arena, self._cap_factor)
        if self._reuse_s > 0.0:
            self._recent = (get_ident(), arena, *window.arena_start())
        return window


def meter_for(bot: SchedSource, clock: Clock = time.monotonic) -> Meter:
    """A seat's meter over ``bot``'s threads. The arena's own delay is read from the
    kernel only with the real clock: a test's fake clock and real figures do not mix."""
    if clock is time.monotonic:
        return Meter(bot, clock=clock, arena_reuse_s=ARENA_READING_REUSE_S)
    return Meter(bot, clock=clock, arena=lambda: _nothing)


def _nothing() -> Mapping[int, TaskTimes]:
    return {}
