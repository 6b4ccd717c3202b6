"""The sandbox interface: ``Sandbox`` starts a bot, ``RunningBot`` is one started bot."""

from __future__ import annotations

import os
import stat
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from arena.core.faults import BotFault, FaultKind
from arena.sandbox.schedstat import SchedSource, no_source

if TYPE_CHECKING:
    from arena.core.series import BotRef

__all__ = ["BOT_NAME_ENV", "BOT_VERSION_ENV", "BuildReport", "InProcessTarget", "LineSink",
           "RunningBot", "Sandbox", "SandboxError", "check_socket", "identity_environment",
           "ignore_line", "pid_alive", "wait_for_socket"]

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


class RunningBot(ABC):
    """One started bot. ``stop`` must be called on every path; it is idempotent.

    A backend implements the five abstract members; every other hook has a default
    that fits a bot whose sandbox knows nothing more (no memory reading, no stderr of
    its own, threads shared with the arena), so a backend overrides only what it can
    say. A wrapper (a pool's lease) forwards every hook to the bot it wraps."""

    series_number: int = 1
    """Which series of its process the bot is about to play (above 1 only for a bot
    kept between series, ``arena.sandbox.reuse``)."""

    @property
    @abstractmethod
    def target(self) -> str:
        """The gRPC target, e.g. ``unix:/tmp/hw-123-ab/bot.sock``."""

    @abstractmethod
    def wait_ready(self, timeout: float) -> None:
        """Wait until the bot's socket exists. Raises ``BotFault`` (CRASH if the bot
        died meanwhile, STARTUP after ``timeout`` seconds)."""

    @abstractmethod
    def stderr_tail(self) -> str:
        """The last few KiB of the bot's stderr (also after ``stop``)."""

    @abstractmethod
    def fault_if_dead(self, wait_s: float = 0.0) -> BotFault | None:
        """The sandbox's verdict if the bot is no longer running (OUT_OF_MEMORY beats
        CRASH), waiting up to ``wait_s`` seconds for it to die; ``None`` if alive."""

    @abstractmethod
    def stop(self) -> None:
        """Kill the bot and remove everything it had (container, processes, socket)."""

    def alive(self) -> bool:
        """Whether the bot still runs (a backend may know a quicker probe than the
        full verdict)."""
        return self.fault_if_dead() is None

    def memory_bytes(self) -> int | None:
        """The bytes the bot's sandbox says it uses now; None if it cannot say."""
        return None

    def release(self) -> None:
        """Hand the bot back after a series it finished without fault: kept for its
        version's next series where the sandbox reuses bots, stopped elsewhere."""
        self.stop()

    def renew(self) -> bool:
        """Replace the bot's process by a fresh one in the same place, nothing of the
        old left (no process, no file it wrote), then ready for ``wait_ready``: True if
        done, False if this bot cannot be renewed (a new one is started instead)."""
        return False

    def stderr_mark(self) -> object:
        """Where the bot's stderr stands now (a byte offset, a time), so that
        ``series_stderr`` reads what came after; None for a bot whose sandbox keeps
        no stderr of its own."""
        return None

    def series_stderr(self, mark: object, limit: int) -> tuple[bytes, int]:
        """What the bot wrote to stderr since ``mark`` (None: since it started): at
        most the last ``limit`` bytes of it, and how many bytes it wrote in all.
        Nothing for a bot whose sandbox keeps no stderr of its own (in process, a
        TCP bot)."""
        return b"", 0

    def sched_source(self) -> SchedSource:
        """What the kernel knows of the bot's threads; nothing for a bot (a fake, an
        in-process bot sharing the arena's threads) whose threads are not its own."""
        return no_source

    def cpu_seconds(self) -> float | None:
        """The CPU seconds all of the bot's threads ran so far, by the kernel; None
        where nothing is known."""
        times = self.sched_source()()
        return sum(on_core for on_core, _ in times.values()) if times else None

    @property
    def in_process_target(self) -> InProcessTarget | None:
        """The bot object to call directly, for a running bot that lives in the
        arena's process; None for every bot reached over gRPC."""
        return None


@dataclass(frozen=True)
class InProcessTarget:
    """A bot object living in the arena's own process, which the match calls directly
    (no transport) instead of dialling ``RunningBot.target``. ``bot`` is a
    ``hollywood_sdk.Bot``; name, version and author are what its handshake says."""

    bot: object
    name: str
    version: str
    author: str


LineSink = Callable[[str], None]
"""Where a build's log goes, line by line, as it comes (the bot's owner only)."""


def ignore_line(_: str) -> None:
    return None


@dataclass(frozen=True)
class BuildReport:
    """What building a bot for its sandbox did (``Sandbox.build``): ``passed``, else
    ``reason`` (the bot's files are at fault: an upload is rejected with it); the
    whole ``log`` (its owner's only), ``image_id`` of what was built (empty where
    nothing is), and a one-line ``summary`` for a console."""

    passed: bool = True
    reason: str = ""
    log: str = ""
    image_id: str = ""
    summary: str = ""


class Sandbox(ABC):
    """Starts bots. ``name`` (its name in ``arena.sandbox.registry``) and
    ``description`` say which isolation a season runs under.

    A backend implements ``start``; the other hooks default to "nothing to do"
    (nothing to prepare, no bot kept between series, no host set-up, nothing to
    close). What a backend can do is declared with its registry entry
    (``arena.sandbox.registry.Capabilities``): callers ask that, never the name. A
    wrapper (a pool) forwards every hook to the sandbox it wraps."""

    name: str = ""
    description: str = ""

    def prepare(self, bot: BotRef) -> None:
        """Get ``bot`` ready to start (build its image, load its class; nothing by
        default). Not charged to the start-up deadline. Raises ``BotFault``
        (STARTUP) if the bot cannot be prepared, ``SandboxError`` for an arena-side
        problem."""
        del bot

    @abstractmethod
    def start(self, bot: BotRef, *, series_id: str = "", seat: int | None = None,
              deal: str = "") -> RunningBot:
        """Start ``bot`` for the series that deals ``deal`` (``SeriesSpec.deal``; ""
        for none, e.g. a spare started ahead); raises ``SandboxError`` for an
        arena-side problem and ``BotFault`` if the bot cannot even be started. A
        sandbox that keeps bots between series never hands one a deal it was dealt
        before (``arena.sandbox.reuse``); the others start a fresh bot each time."""

    def reuse(self, bot: BotRef, *, series_id: str = "", seat: int | None = None,
              deal: str = "") -> RunningBot | None:
        """A running bot of ``bot``'s version kept between series that was never
        dealt ``deal``, or None (the default: nothing is kept): start one."""
        del bot, series_id, seat, deal
        return None

    def build(self, bot: BotRef, *, timeout_s: float | None = None,
              on_line: LineSink = ignore_line) -> BuildReport:
        """Build what ``bot`` runs from (an image), as vetting does before a version is
        admitted: a failure the bot's files caused is a report that did not pass (its
        log also sent to ``on_line``), a failure of the machine is ``SandboxError``.
        ``timeout_s`` overrides the backend's build time limit. Nothing to build by
        default (a passed, empty report); only a backend declaring
        ``Capabilities.builds_images`` builds."""
        del bot, timeout_s, on_line
        return BuildReport()

    def prepare_host(self, *, force: bool = False) -> None:
        """Get the machine ready before the first bot (e.g. the base image a worker
        needs before it offers this sandbox), redone from scratch if ``force`` (e.g.
        ``arena images prepare-base --force``); ``SandboxError`` saying what to do
        if it cannot. Nothing by default."""
        del force

    def close(self) -> None:
        """Stop everything this sandbox still holds (kept bots, spares). Nothing by
        default."""
        return None


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
