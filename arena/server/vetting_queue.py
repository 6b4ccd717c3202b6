"""Which version the vetting worker vets next: round robin by author, at most one
version of an author at once, at most ``slots`` at once.

One author's endless builds then hold one slot at most: another author's version
waits for at most one build (none while a slot is free), however many versions
the first author queues.
"""

from __future__ import annotations

from collections import deque


class FairQueue:
    """Versions waiting for vetting, by author (not thread-safe: the worker holds
    its lock around every call)."""

    def __init__(self, slots: int) -> None:
        if slots < 1:
            raise ValueError(f"vetting needs at least 1 slot, got {slots}")
        self.slots = slots
        self._waiting: dict[str, deque[str]] = {}
        """Authors in turn order (the next to serve first), each with its versions."""
        self._running: dict[str, str] = {}

    def add(self, author: str, bot_id: str) -> bool:
        """Queue ``bot_id`` of ``author``; False if it waits already."""
        waiting = self._waiting.setdefault(author, deque())
        if bot_id in waiting:
            return False
        waiting.append(bot_id)
        return True

    def take(self) -> tuple[str, str] | None:
        """(author, bot id) to vet now, marked running, or None: every slot busy, or
        every waiting author has a version running."""
        if len(self._running) >= self.slots:
            return None
        for author, waiting in self._waiting.items():
            if waiting and author not in self._running:
                bot_id = waiting.popleft()
                self._running[author] = bot_id
                del self._waiting[author]  # to the end of the turn order
                if waiting:
                    self._waiting[author] = waiting
                return author, bot_id
        return None

    def done(self, author: str) -> None:
        """``author``'s running version is vetted (or given up)."""
        self._running.pop(author, None)

    def running(self) -> dict[str, str]:
        """Bot id being vetted, by author."""
        return dict(self._running)

    def waiting(self) -> list[str]:
        """Bot ids waiting, in no particular order."""
        return [bot_id for queue in self._waiting.values() for bot_id in queue]
