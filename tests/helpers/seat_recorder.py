"""A sandbox wrapper for the container-reuse tests: it passes every call to the
sandbox it wraps and remembers the running bot each seat of each series got, so a
test can ask which Docker container played it."""

from __future__ import annotations

from typing import Any

from arena.core.series import BotRef
from arena.sandbox.base import Sandbox


def container_of(running: Any) -> str:
    """The Docker container behind a running bot, through any leases and pools."""
    while not hasattr(running, "container_id"):  # lease -> pooled bot -> DockerBot
        running = running._bot
    return str(running.container_id)


class SeatRecorder(Sandbox):
    """Wraps ``inner`` and records ``got[(series_id, seat)]``, the bot each seat got."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.name, self.description = inner.name, inner.description
        self.got: dict[tuple[str, int], Any] = {}

    def prepare(self, bot: BotRef) -> None:
        self.inner.prepare(bot)

    def reuse(self, bot: BotRef, *, series_id: str = "", seat: int | None = None,
              deal: str = "") -> Any:
        kept = self.inner.reuse(bot, series_id=series_id, seat=seat, deal=deal)
        if kept is not None:
            self.got[(series_id, seat or 0)] = kept
        return kept

    def start(self, bot: BotRef, *, series_id: str = "", seat: int | None = None,
              deal: str = "") -> Any:
        started = self.inner.start(bot, series_id=series_id, seat=seat, deal=deal)
        self.got[(series_id, seat or 0)] = started
        return started

    def container(self, series_id: str, seat: int) -> str:
        return container_of(self.got[(series_id, seat)])
