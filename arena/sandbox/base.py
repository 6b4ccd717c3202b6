"""The sandbox interface: ``Sandbox`` starts a bot, ``RunningBot`` is one started bot."""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from arena.core.faults import BotFault, FaultKind
from arena.sandbox.schedstat import SchedSource, no_source

if TYPE_CHECKING:
    from arena.core.series import BotRef

__all__ = ["BOT_NAME_ENV", "BOT_VERSION_ENV", "InProcessTarget", "RunningBot", "Sandbox",
           "SandboxError", "bot_alive", "check_socket", "cpu_seconds_of", "identity_environment",
           "in_process_target_of", "memory_of", "pid_alive", "release_of",
           "reused_bot", "sched_source_of", "series_number_of", "series_stderr_of",
           "stderr_mark_of", "wait_for_socket"]

BOT_NAME_ENV = "HOLLYWOOD_BOT_NAME"
BOT_VERSION_ENV = "HOLLYWOOD_BOT_VERSION"


def identity_environment(bot: BotRef) -> dict[str, str]:
    """The variables that tell a bot the name and version the arena runs it as (its
    ``bot.toml``'s), so that a compiled bot's handshake need not hard-code them. Every
    backend sets them; both are strict ASCII identifiers (checked by the manifest)."""
    return {BOT_NAME_ENV: bot.name, BOT_VERSION_ENV: bot.version}


class SandboxError(RuntimeError):
    """The arena's side failed (e.g. Docker is unavailable, an image cannot be built).
    Never raised because of a bot's behaviour: that is a ``BotFault``."""


class RunningBot(Protocol):
    """One started bot. ``stop`` must be called on every path; it is idempotent."""

    @property
    def target(self) -> str:
        """The gRPC target, e.g. ``unix:/tmp/hw-123-ab/bot.sock``."""
        ...

    def wait_ready(self, timeout: float) -> None:
        """Wait until the bot's socket exists. Raises ``BotFault`` (CRASH if the bot
        died meanwhile, STARTUP after ``timeout`` seconds)."""
        ...

    def stderr_tail(self) -> str:
        """The last few KiB of the bot's stderr (also after ``stop``)."""
        ...

    def fault_if_dead(self, wait_s: float = 0.0) -> BotFault | None:
        """The sandbox's verdict if the bot is no longer running (OUT_OF_MEMORY beats
        CRASH), waiting up to ``wait_s`` seconds for it to die; ``None`` if alive."""
        ...

    def stop(self) -> None:
        """Kill the bot and remove everything it had (container, processes, socket)."""
        ...


def bot_alive(bot: RunningBot) -> bool:
    """Whether ``bot`` still runs: its own quick probe (``alive``) if it has one."""
    probe = getattr(bot, "alive", None)
    if callable(probe):
        return bool(probe())
    return bot.fault_if_dead() is None


def memory_of(bot: RunningBot) -> int | None:
    """The bytes ``bot``'s sandbox says it uses now (``memory_bytes``), if it can say."""
    reader = getattr(bot, "memory_bytes", None)
    if not callable(reader):
        return None
    used = reader()
    return used if isinstance(used, int) else None


def release_of(bot: RunningBot) -> None:
    """Hand ``bot`` back after a series it finished without fault: kept for its
    version's next series where the sandbox reuses bots, stopped elsewhere."""
    release = getattr(bot, "release", None)
    if callable(release):
        release()
    else:
        bot.stop()


def series_number_of(bot: RunningBot) -> int:
    """Which series of its process ``bot`` is about to play (1 unless reused)."""
    number = getattr(bot, "series_number", 1)
    return number if isinstance(number, int) and number >= 1 else 1


def stderr_mark_of(bot: RunningBot) -> object:
    """Where ``bot``'s stderr stands now (``RunningBot.stderr_mark``: a byte offset, a
    time), so that ``series_stderr_of`` reads what came after; None for a bot whose
    sandbox keeps no stderr of its own."""
    method = getattr(bot, "stderr_mark", None)
    return method() if callable(method) else None


def series_stderr_of(bot: RunningBot, mark: object, limit: int) -> tuple[bytes, int]:
    """What ``bot`` wrote to stderr since ``mark`` (None: since it started): at most
    the last ``limit`` bytes of it, and how many bytes it wrote in all. Nothing for a
    bot whose sandbox keeps no stderr of its own (in process, a TCP bot)."""
    method = getattr(bot, "series_stderr", None)
    if not callable(method):
        return b"", 0
    found = method(mark, limit)
    if (isinstance(found, tuple) and len(found) == 2 and isinstance(found[0], bytes)
            and isinstance(found[1], int)):
        return found[0], found[1]
    return b"", 0


def cpu_seconds_of(bot: RunningBot) -> float | None:
    """The CPU seconds all of ``bot``'s threads ran so far, by the kernel
    (``RunningBot.sched_source``); None where nothing is known."""
    times = sched_source_of(bot)()
    return sum(on_core for on_core, _ in times.values()) if times else None


def sched_source_of(bot: RunningBot) -> SchedSource:
    """What the kernel knows of ``bot``'s threads; nothing for a bot (a fake, an
    in-process bot sharing the arena's threads) whose threads are not its own."""
    method = getattr(bot, "sched_source", None)
    if method is None:
        return no_source
    source: SchedSource = method()
    return source


@dataclass(frozen=True)
class InProcessTarget:
    """A bot object living in the arena's own process, which the match calls directly
    (no transport) instead of dialling ``RunningBot.target``. ``bot`` is a
    ``hollywood_sdk.Bot``; name, version and author are what its handshake says."""

    bot: object
    name: str
    version: str
    author: str


def in_process_target_of(bot: RunningBot) -> InProcessTarget | None:
    """The bot object to call directly, for a running bot that lives in the arena's
    process (the ``inprocess`` sandbox); None for every bot reached over gRPC."""
    found = getattr(bot, "in_process_target", None)
    return found if isinstance(found, InProcessTarget) else None


class Sandbox(Protocol):
    """Starts bots. ``name`` (its name in ``arena.sandbox.registry``) and
    ``description`` say which isolation a season runs under."""

    name: str
    description: str

    def prepare(self, bot: BotRef) -> None:
        """Get ``bot`` ready to start (build its image, load its class; a no-op where
        nothing is built). Not charged to the start-up deadline. Raises ``BotFault``
        (STARTUP) if the bot cannot be prepared, ``SandboxError`` for an arena-side
        problem."""
        ...

    def start(self, bot: BotRef, *, series_id: str = "", seat: int | None = None,
              deal: str = "") -> RunningBot:
        """Start ``bot`` for the series that deals ``deal`` (``SeriesSpec.deal``; ""
        for none, e.g. a spare started ahead); raises ``SandboxError`` for an
        arena-side problem and ``BotFault`` if the bot cannot even be started. A
        sandbox that keeps bots between series never hands one a deal it was dealt
        before (``arena.sandbox.reuse``); the others start a fresh bot each time."""
        ...


def reused_bot(sandbox: Sandbox, bot: BotRef, *, series_id: str, seat: int,
               deal: str) -> RunningBot | None:
    """A running bot of ``bot``'s version the sandbox keeps between series (its
    ``reuse``, e.g. ``arena.sandbox.reuse.ReusePool``) that was never dealt ``deal``,
    or None: start one."""
    reuse = getattr(sandbox, "reuse", None)
    if not callable(reuse):
        return None
    found: RunningBot | None = reuse(bot, series_id=series_id, seat=seat, deal=deal)
    return found


def pid_alive(pid: int) -> bool:
    """Whether process ``pid`` exists (used to tell a crashed arena's leftovers)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, owned by another user
        return True
    return True


def wait_for_socket(
    socket_path: Path,
    timeout: float,
    fault_if_dead: Callable[[], BotFault | None],
    *,
    status_every_s: float = 0.0,
    poll_s: float = 0.01,
    seal: Callable[[], None] | None = None,
) -> None:
    """Wait until the bot has created ``socket_path``: ``BotFault`` STARTUP after
    ``timeout`` seconds, or the sandbox's verdict (``fault_if_dead``, asked at most
    every ``status_every_s`` seconds) if the bot died first.

    Once something is there, ``seal`` (if given) stops the bot from changing the
    directory; then it must be a Unix socket itself, not a symbolic link (which could
    lead the arena to any socket of the host) nor anything else: STARTUP otherwise."""
    give_up_at = time.monotonic() + timeout
    next_status_check = time.monotonic() + status_every_s
    while not os.path.lexists(socket_path):
        now = time.monotonic()
        if now >= next_status_check:
            next_status_check = now + status_every_s
            fault = fault_if_dead()
            if fault is not None:
                raise BotFault(fault.kind, f"{fault.message} during start-up, "
                               "before binding its socket")
        if now >= give_up_at:
            raise BotFault(FaultKind.STARTUP,
                           f"the bot did not create its socket within {timeout:.1f} s")
        time.sleep(poll_s)
    if seal is not None:
        seal()
    check_socket(socket_path)


def check_socket(socket_path: Path) -> None:
    """``BotFault`` STARTUP unless ``socket_path`` is a Unix socket (never following
    a link): the arena connects only to a socket the bot created."""
    try:
        mode = os.lstat(socket_path).st_mode
    except OSError as error:
        raise BotFault(FaultKind.STARTUP,
                       f"the bot's socket {socket_path.name} vanished: {error}") from None
    if stat.S_ISSOCK(mode):
        return
    what = "a symbolic link" if stat.S_ISLNK(mode) else (
        "a directory" if stat.S_ISDIR(mode) else "a file")
    raise BotFault(FaultKind.STARTUP,
                   f"the bot put {what} at its socket path {socket_path.name}, not a Unix "
                   "socket; the arena connects only to a socket the bot created")
