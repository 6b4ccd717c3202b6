"""A running bot that does nothing, for the tests of the pools and the season's play
order that drive a fake sandbox: each test subclasses it for the one thing it counts."""

from __future__ import annotations

from arena.core.faults import BotFault
from arena.sandbox.base import RunningBot


class IdleBot(RunningBot):
    """Ready at once, never faulted, 1,000 bytes of memory; remembers being stopped."""

    target = "unix:/fake"
    stopped = False

    def wait_ready(self, timeout: float) -> None:
        pass

    def stderr_tail(self) -> str:
        return ""

    def fault_if_dead(self, wait_s: float = 0.0) -> BotFault | None:
        return None

    def memory_bytes(self) -> int:
        return 1000

    def stop(self) -> None:
        self.stopped = True
