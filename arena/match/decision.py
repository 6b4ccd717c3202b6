"""One decision the loop asks of a bot, before it is a protocol message.

The loop hands a ``Decision`` to the seat's connection: ``BotClient`` sends its
``DecideRequest`` (``message()``, built on first use by
``protocol.decide_request`` from the engine's ``Observation``, ``view``, also
built on first use); a bot called directly in the arena's process is given views
rendered from the engine's ``SeatView`` (``arena.match.direct_views``), with
neither built at all. Reading a field the message has (``reserve_ms``, ``observation``...)
reads the message's.

A ``HandEnd`` is the same for the notification at each hand's end: its
``HandEndedRequest`` is built when a connection asks for it (a bot called directly
that leaves the SDK's hook, which does nothing, is never told).
"""

from __future__ import annotations

from collections.abc import Sequence

from hollywood.bot.v1 import bot_pb2

from arena.match import protocol
from engine.actions import Action
from engine.hand_result import HandResult
from engine.observation import Observation
from engine.scoresheet import ScoreSheet
from engine.series import Series


class Decision:
    """The deciding seat of a series as it stands (not to be changed until the
    decision is answered), its legal actions, the series' rule profile (as sent to
    bots) and the numbers and times of the request: ``decision_s``, the limit of a
    decision (``TimeLimits.decision_s``; ``deadline_ms`` on the wire), and the
    seat's ``reserve_s`` left."""

    def __init__(self, series: Series, seat: int, legal_actions: Sequence[Action],
                 profile: bot_pb2.RuleProfile, *, series_id: str, decision_number: int,
                 decision_s: float, reserve_s: float) -> None:
        self.series = series
        self.seat = seat
        self._view: Observation | None = None
        self.legal = legal_actions
        self.profile = profile
        self.series_id = series_id
        self.decision_number = decision_number
        self.decision_s = decision_s
        self.reserve_s = reserve_s
        self._message: bot_pb2.DecideRequest | None = None

    def message(self) -> bot_pb2.DecideRequest:
        """The ``DecideRequest`` (built once)."""
        if self._message is None:
            self._message = protocol.decide_request(
                self.view, self.legal, self.profile, series_id=self.series_id,
                decision_number=self.decision_number, decision_s=self.decision_s,
                reserve_s=self.reserve_s)
        return self._message

    @property
    def view(self) -> Observation:
        """The engine's observation for the deciding seat (built once)."""
        if self._view is None:
            self._view = self.series.observation(self.seat)
        return self._view

    @property
    def hand_number(self) -> int:
        return self.series.hand_number

    @property
    def deadline_ms(self) -> int:
        return protocol.millis(self.decision_s)

    @property
    def reserve_ms(self) -> int:
        return protocol.millis(self.reserve_s)

    @property
    def observation(self) -> bot_pb2.Observation:
        return self.message().observation

    @property
    def legal_actions(self) -> Sequence[bot_pb2.Action]:
        return self.message().legal_actions


def request_message(request: Decision | bot_pb2.DecideRequest) -> bot_pb2.DecideRequest:
    """The protocol message of ``request``."""
    return request.message() if isinstance(request, Decision) else request


class HandEnd:
    """How a hand ended, as ``seat`` is told: the ``HandEndedRequest`` of
    ``protocol.hand_ended_request``, built on first use (``message()``), which must
    be before the series goes on (the sheet is the series' own, and changes)."""

    def __init__(self, result: HandResult, seat: int, series_id: str,
                 sheet: ScoreSheet) -> None:
        self.result = result
        self.seat = seat
        self.series_id = series_id
        self.sheet = sheet
        self._message: bot_pb2.HandEndedRequest | None = None

    def message(self) -> bot_pb2.HandEndedRequest:
        """The ``HandEndedRequest`` (built once)."""
        if self._message is None:
            self._message = protocol.hand_ended_request(self.result, self.seat,
                                                        self.series_id, self.sheet)
        return self._message


def hand_end_message(request: HandEnd | bot_pb2.HandEndedRequest) -> bot_pb2.HandEndedRequest:
    """The protocol message of ``request``."""
    return request.message() if isinstance(request, HandEnd) else request
