"""``GetSeriesLogs``: a series' seat logs (the bot's stderr, each decision's
measured time, its debug notes: ``arena.core.seat_logs``) for the owner of the
seat's bot and the admin alone. A mixin of ``arena.server.service.ArenaService``,
which supplies ``_call``, ``storage`` and ``auth``.

Every other read of the arena is public and carries none of it: the results keep
the arena's words about a fault, never the bot's (``arena.storage.seat_logs``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

import grpc
from hollywood.arena.v1 import arena_pb2

from arena.server.auth import Authenticator, Caller
from arena.storage import Storage, read_seat_logs, version_life

Response = TypeVar("Response")


class NotOwnerError(PermissionError):
    """The caller owns no bot whose log it asked for (PERMISSION_DENIED)."""


class LogRequestError(ValueError):
    """A request for logs that names no series or a seat that is not 0 or 1."""


def readable_seats(storage: Storage, seat_bots: tuple[str, str], caller: Caller) -> list[int]:
    """The seats whose logs ``caller`` may read: every seat for the admin, else the
    seats played by a version ``caller`` owns."""
    if caller.is_admin:
        return [0, 1]
    return [seat for seat, bot_id in enumerate(seat_bots)
            if version_life(storage, bot_id).owner == caller.author]


class OwnerLogsMixin:
    """``GetSeriesLogs`` (see the module)."""

    storage: Storage
    auth: Authenticator

    if TYPE_CHECKING:
        def _call(self, context: grpc.ServicerContext, body: Callable[[], Response], *,
                  mutating: bool = False) -> Response: ...

    def GetSeriesLogs(self, request: arena_pb2.GetSeriesLogsRequest,
                      context: grpc.ServicerContext) -> arena_pb2.GetSeriesLogsResponse:
        caller = self.auth.caller(context)  # UNAUTHENTICATED without a valid token
        return self._call(context, lambda: self._series_logs(request, caller))

    def _series_logs(self, request: arena_pb2.GetSeriesLogsRequest,
                     caller: Caller) -> arena_pb2.GetSeriesLogsResponse:
        series_id = request.series_id.strip()
        if not series_id:
            raise LogRequestError("series_id is required, e.g. 3-17")
        planned = self.storage.get_planned(series_id)
        seat_bots = (planned.seat0_bot, planned.seat1_bot)
        readable = readable_seats(self.storage, seat_bots, caller)
        if request.HasField("seat"):
            if request.seat not in (0, 1):
                raise LogRequestError(f"seat must be 0 or 1, not {request.seat}")
            if request.seat not in readable:
                raise NotOwnerError(
                    f"seat {request.seat} of series {series_id} is played by "
                    f"{seat_bots[request.seat]}, which author {caller.author} does not "
                    "own: a bot's logs are its owner's alone")
            readable = [request.seat]
        if not readable:
            raise NotOwnerError(
                f"author {caller.author} owns neither bot of series {series_id} "
                f"({seat_bots[0]} and {seat_bots[1]}): a bot's logs are its owner's alone")
        response = arena_pb2.GetSeriesLogsResponse(series_id=series_id,
                                                   readable_seats=readable)
        for log in read_seat_logs(self.storage, series_id):
            if log.seat not in readable:
                continue
            seat = response.seats.add(seat=log.seat, bot_id=seat_bots[log.seat],
                                      stderr=log.stderr, stderr_bytes=log.stderr_bytes,
                                      notes_dropped=log.notes_dropped,
                                      fault_words=log.fault_words)
            for decision in log.decisions:
                seat.decisions.add(hand_number=decision.hand_number,
                                   decision_number=decision.decision_number,
                                   think_ms=decision.think_ms, debug=decision.debug)
        return response
