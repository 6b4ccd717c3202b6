"""Bots the author started by hand, reached over TCP (``arena play ... tcp:HOST:PORT``).

A bot in any language can be run by its author (in a terminal, under a debugger)
listening on ``HOLLYWOOD_BOT_ADDRESS=HOST:PORT``; the arena then only connects to it.
``HandStartedBot`` is the ``RunningBot`` of such a bot: it starts and stops nothing
(the process is the author's) and has no stderr to keep (it is in the author's
terminal). ``WithHandStartedBots`` wraps a real sandbox: the bots it was given
addresses for are connected to, every other bot is started by the wrapped sandbox.
No isolation applies to a hand-started bot: it is for trying one's own bot locally.
"""

from __future__ import annotations

import re
import socket
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from arena.core.faults import BotFault, FaultKind
from arena.core.manifest import BotManifest
from arena.sandbox.base import RunningBot, Sandbox, SandboxError

if TYPE_CHECKING:
    from arena.core.series import BotRef

TCP_PREFIX = "tcp:"
_HOST_PORT = re.compile(r"(?P<host>\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):(?P<port>[0-9]{1,5})")
_POLL_S = 0.05
_CONNECT_TIMEOUT_S = 1.0


class AddressError(ValueError):
    """A ``tcp:HOST:PORT`` reference that is not one; the message says why."""


@dataclass(frozen=True)
class TcpAddress:
    """Where a hand-started bot listens."""

    host: str
    port: int

    @property
    def target(self) -> str:
        """The gRPC target (``host:port``)."""
        return f"{self.host}:{self.port}"

    @classmethod
    def parse(cls, reference: str) -> TcpAddress:
        """``tcp:HOST:PORT`` (``tcp:[::1]:PORT`` for IPv6); ``AddressError`` otherwise."""
        if not reference.startswith(TCP_PREFIX):
            raise AddressError(f"{reference!r} does not start with {TCP_PREFIX!r}")
        match = _HOST_PORT.fullmatch(reference.removeprefix(TCP_PREFIX))
        if match is None:
            raise AddressError(f"{reference!r} is not tcp:HOST:PORT (e.g. tcp:localhost:50051)")
        port = int(match["port"])
        if not 1 <= port <= 65535:
            raise AddressError(f"{reference!r}: the port must be 1-65535, got {port}")
        return cls(match["host"], port)


def hand_started_ref(address: TcpAddress) -> BotRef:
    """The ``BotRef`` standing for the bot at ``address``: its name is the address
    (the bot's own name is what it says in the handshake); it has no folder."""
    from arena.core.series import BotRef  # a runtime import keeps the module light

    name = f"{TCP_PREFIX}{address.target}"
    manifest = BotManifest(name=name, version="by hand", language="any",
                           run_command=(name,))
    return BotRef(name, "by hand", Path("/nonexistent-hand-started-bot"), manifest)


class HandStartedBot(RunningBot):
    """A bot already running at ``address``; see ``arena.sandbox.RunningBot``."""

    def __init__(self, address: TcpAddress, *,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.address = address
        self._clock = clock

    @property
    def target(self) -> str:
        return self.address.target

    def wait_ready(self, timeout: float) -> None:
        """Wait until something accepts connections at the address (the author may
        start the bot a moment after ``arena play``)."""
        give_up_at = self._clock() + timeout
        while True:
            try:
                with socket.create_connection((self.address.host, self.address.port),
                                              timeout=_CONNECT_TIMEOUT_S):
                    return
            except OSError as error:
                if self._clock() >= give_up_at:
                    raise BotFault(FaultKind.STARTUP, (
                        f"nothing accepts connections at {self.target} ({error}); start "
                        f"your bot there first, e.g. HOLLYWOOD_BOT_ADDRESS={self.target}"
                    )) from None
            time.sleep(_POLL_S)

    def stderr_tail(self) -> str:
        return ""  # the bot writes to its author's terminal

    def fault_if_dead(self, wait_s: float = 0.0) -> BotFault | None:
        return None  # not ours to watch: a broken connection is the client's fault

    def stop(self) -> None:
        """Nothing: the process belongs to the author, who may play it again."""


class WithHandStartedBots(Sandbox):
    """``inner`` with the bots of ``addresses`` connected to rather than started
    (``inner`` None: every bot is hand-started, no sandbox is needed)."""

    def __init__(self, inner: Sandbox | None, addresses: Mapping[BotRef, TcpAddress]) -> None:
        self.inner = inner
        self.addresses = dict(addresses)
        self.name = inner.name if inner is not None else "none"
        self.description = (f"{inner.description}; " if inner is not None else "") + (
            "hand-started bots over TCP")

    def _sandbox(self, bot: BotRef) -> Sandbox:
        if self.inner is None:
            raise SandboxError(f"{bot.name}@{bot.version} is not hand-started, and no "
                               "sandbox was given to start it")
        return self.inner

    def prepare(self, bot: BotRef) -> None:
        if bot not in self.addresses:
            self._sandbox(bot).prepare(bot)

    def start(self, bot: BotRef, *, series_id: str = "", seat: int | None = None,
              deal: str = "") -> RunningBot:
        """The hand-started bot at the bot's address (one process for every series:
        its author's own, which may remember deals), else one the sandbox starts."""
        address = self.addresses.get(bot)
        if address is not None:
            return HandStartedBot(address)
        return self._sandbox(bot).start(bot, series_id=series_id, seat=seat, deal=deal)

    def close(self) -> None:
        if self.inner is not None:
            self.inner.close()
