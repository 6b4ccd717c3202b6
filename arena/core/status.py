"""Statuses, each one enum stored and shown by its value: a season's, and a bot
version's with the changes it may make (``VERSION_TRANSITIONS``)."""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Final


class SeasonStatus(StrEnum):
    """Where a season stands. ``created`` (planned, not started), ``running``, and
    the terminal ones: ``finished`` (every planned series played), ``cancelled``,
    ``failed`` (an arena-side error stopped it; the season says why)."""

    CREATED = "created"
    RUNNING = "running"
    FINISHED = "finished"
    CANCELLED = "cancelled"
    FAILED = "failed"

    @property
    def is_terminal(self) -> bool:
        return self in _TERMINAL


_TERMINAL = frozenset({SeasonStatus.FINISHED, SeasonStatus.CANCELLED, SeasonStatus.FAILED})


class VersionStatus(StrEnum):
    """Where a bot version stands (``arena.storage.lifecycle``): an upload is
    ``received``; vetting moves it through ``building`` (Docker only) and
    ``validating`` to ``active`` or ``rejected``; an active version that keeps
    forfeiting is ``deactivated``. Only active versions play. Stored and shown by
    value; a version registered before uploads has no status row and is active."""

    RECEIVED = "received"
    BUILDING = "building"
    VALIDATING = "validating"
    ACTIVE = "active"
    REJECTED = "rejected"
    DEACTIVATED = "deactivated"

    @property
    def is_vetting(self) -> bool:
        """Waiting for vetting or being vetted (a restart vets it again)."""
        return self in _VETTING

    @property
    def is_settled(self) -> bool:
        """Vetting is over for this code: active, rejected or deactivated."""
        return not self.is_vetting

    def can_become(self, target: VersionStatus) -> bool:
        return target in VERSION_TRANSITIONS[self]

    def checked_move(self, target: VersionStatus, subject: str, why_not: str = "") -> None:
        """Nothing if this status may become ``target`` (``VERSION_TRANSITIONS``),
        else ``IllegalTransitionError`` about ``subject`` (e.g. "bot a@1"), saying
        ``why_not`` (e.g. ": the admin reactivates it") instead of the statuses it
        can become when given."""
        if not self.can_become(target):
            raise IllegalTransitionError(subject, self, target, why_not)


_VETTING = frozenset({VersionStatus.RECEIVED, VersionStatus.BUILDING, VersionStatus.VALIDATING})
_VETTING_MOVES = frozenset({VersionStatus.BUILDING, VersionStatus.VALIDATING,
                            VersionStatus.ACTIVE, VersionStatus.REJECTED})

VERSION_TRANSITIONS: Final[Mapping[VersionStatus, frozenset[VersionStatus]]] = {
    # Vetting: its stages in order, or again from the first after a restart, and
    # its verdict at any point (an arena failure may come before the first stage).
    VersionStatus.RECEIVED: _VETTING_MOVES,
    VersionStatus.BUILDING: _VETTING_MOVES,
    VersionStatus.VALIDATING: _VETTING_MOVES,
    # Vetted again (`arena bots revet`, or the arena's retry), or deactivated by a
    # streak of forfeits.
    VersionStatus.ACTIVE: frozenset({VersionStatus.RECEIVED, VersionStatus.DEACTIVATED}),
    VersionStatus.REJECTED: frozenset({VersionStatus.RECEIVED}),
    # Only the admin's `arena bots reactivate`.
    VersionStatus.DEACTIVATED: frozenset({VersionStatus.ACTIVE}),
}
"""Every status change a version may make (uploading new code under a version is
not a change but a new start, as ``received``, or ``active`` on a server that vets
nothing)."""


class IllegalTransitionError(ValueError):
    """A version status change ``VERSION_TRANSITIONS`` does not allow."""

    def __init__(self, subject: str, current: VersionStatus, target: VersionStatus,
                 why_not: str = "") -> None:
        allowed = ", ".join(sorted(VERSION_TRANSITIONS[current])) or "nothing"
        super().__init__(f"{subject} is {current}{why_not}" if why_not else
                         f"{subject} is {current}: it cannot become {target} "
                         f"(a {current} version can become: {allowed})")
        self.current, self.target = current, target
