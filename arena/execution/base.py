"""The executor protocol: the seam between a season and the machines that play it.

An executor takes series specifications and answers each with a future that holds
the series' outcome, or the arena-side error that kept it from being played (a bot's
own failure is part of the outcome, as a fault). It may play a series more than
once (a retried task, a lost worker): the season stores results idempotently by
series id, so a second result for the same series is dropped, not stored twice.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import Future
from typing import Protocol, runtime_checkable

from arena.core.series import BotRef, SeriesOutcome, SeriesSpec
from arena.core.settings import SeasonConfig

RunSeries = Callable[[SeriesSpec], SeriesOutcome]
"""Plays one series and returns its outcome; raises only for arena-side failures."""
RunnerFactory = Callable[[SeasonConfig], RunSeries]
"""Makes the ``RunSeries`` for a season's configuration (e.g. binds its sandbox)."""


class Executor(Protocol):
    """Plays submitted series, up to ``capacity`` at a time."""

    @property
    def capacity(self) -> int:
        """How many series it plays at once; the season keeps that many submitted."""
        ...

    def submit(self, spec: SeriesSpec) -> Future[SeriesOutcome]:
        """Start playing ``spec``; the future gets its outcome or the error."""
        ...

    def close(self) -> None:
        """Release the executor's workers (after waiting for series in flight)."""
        ...


@runtime_checkable
class ExcludesPlayers(Protocol):
    """An executor that can stop giving series to one of its players (a cluster
    worker whose outcome was refused)."""

    def exclude(self, played_by: str, series_id: str) -> None:
        """Give no more series to ``played_by`` (an outcome's ``played_by``); the next
        submission of ``series_id`` is played afresh, never joined to the refused one."""
        ...


@runtime_checkable
class PlaysElsewhere(Protocol):
    """An executor whose players are other machines: it can play a series again
    away from the one that reported an outcome (a forfeit to confirm)."""

    def submit_elsewhere(self, spec: SeriesSpec, avoid: str) -> Future[SeriesOutcome]:
        """Play ``spec`` again, not on ``avoid`` (an outcome's ``played_by``) if
        another player is left."""
        ...


@runtime_checkable
class StartsAhead(Protocol):
    """An executor (or the ``RunSeries`` of a local one) that can start the bots of
    the first series while the season gets ready (``arena.season.start_ahead``)."""

    def start_ahead(self, bots: Sequence[BotRef]) -> None:
        """Get ``bots`` ready to play (images, containers started within the admission
        limits) in the background; returns at once, and a failure is left for the
        series that starts the bot to meet where it belongs."""
        ...


ExecutorFactory = Callable[[SeasonConfig], Executor]
"""Makes the executor for a season's configuration."""
