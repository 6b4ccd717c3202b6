"""Admission: how many bots may be starting at once on this machine (one rule).

Starting a bot (a container's creation and start, an interpreter loading its
libraries, the bot binding its socket and answering its handshake) is the most
CPU-hungry moment of its life. Two starts per core already make each slower than
one after the other, and every one of them is on a start-up clock. So a bot of a
series takes a *start slot* before the sandbox starts it and gives it back once it
answered its handshake (or failed); there are ``slots`` of them, by default one per
core (``os.cpu_count()``), or ``ARENA_START_SLOTS`` from the environment.

Playing bots come first: a warm pool's spare (``arena.sandbox.warm``) starts only if
a slot is free *and no playing bot is waiting for one* (``try_acquire``); a series'
bot waits (``acquire``) before its start-up clock runs. ``ADMISSION`` is the
process-wide instance every sandbox and the start-up share.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Final

SLOTS_ENV: Final = "ARENA_START_SLOTS"


def default_slots() -> int:
    """``ARENA_START_SLOTS`` if set to a positive number, else the machine's cores."""
    configured = os.environ.get(SLOTS_ENV, "").strip()
    if configured.isdigit() and int(configured) > 0:
        return int(configured)
    return max(1, os.cpu_count() or 1)


class Admission:
    """``slots`` start slots; playing bots (``acquire``) before spares (``try_acquire``)."""

    def __init__(self, slots: int | None = None) -> None:
        self.slots = default_slots() if slots is None else slots
        if self.slots < 1:
            raise ValueError(f"admission needs at least 1 start slot, got {self.slots}")
        self._in_use = 0
        self._waiting = 0
        self._changed = threading.Condition()

    @property
    def in_use(self) -> int:
        with self._changed:
            return self._in_use

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
        """A slot if one is free and no playing bot waits for one (a spare)."""
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


ADMISSION = Admission()
