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
        self._running: dict[str, str] = {}
        self._served: dict[str, int] = {}
        """When each author's last version started (a count of starts): the author
        served longest ago (or never) goes first."""
        self._starts = 0

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
        ready = [author for author, waiting in self._waiting.items()
                 if waiting and author not in self._running]
        if not ready:
            return None
        author = min(ready, key=lambda name: self._served.get(name, -1))
        bot_id = self._waiting[author].popleft()
        if not self._waiting[author]:
            del self._waiting[author]
        self._running[author] = bot_id
        self._starts += 1
        self._served[author] = self._starts
        return author, bot_id

    def done(self, author: str) -> None:
        """``author``'s running version is vetted (or given up)."""
        self._running.pop(author, None)

    def running(self) -> dict[str, str]:
        """Bot id being vetted, by author."""
        return dict(self._running)

    def waiting(self) -> list[str]:
        """Bot ids waiting, in no particular order."""
        return [bot_id for queue in self._waiting.values() for bot_id in queue]
