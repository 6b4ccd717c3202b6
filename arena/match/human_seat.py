"""A person in one seat of a series: the seat's ``BotConnection`` fed by the person's
actions (the website's play pages), and ``play_against``, a series between that seat
and a bot in its usual sandbox on its usual clock.

The person's time is not the match clock's: their seat is metered by a clock that
never moves (the loop charges them nothing), and their own, generous clock is the
seat's idle time-out (``idle_s``): a person who does not act within it forfeits, as
a bot that never answers would. Every action they send is checked as a bot's reply
is (parsed, then found among the legal actions, ``submit``), and the engine then
applies it in the loop like any other.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from hollywood.bot.v1 import bot_pb2

from arena.core.faults import BotFault, FaultKind, one_seat_fault
from arena.core.limits import TimeLimits
from arena.core.series import BotRef, SeriesOutcome
from arena.match.botclient import BotInfo
from arena.match.connection import BotConnection, connect_running
from arena.match.decision import Decision, HandEnd
from arena.match.fair_clock import Meter, Window, meter_for
from arena.match.loop import EventSink, play_match
from arena.match.protocol import describe_actions
from arena.sandbox.base import RunningBot, Sandbox
from arena.sandbox.schedstat import TaskTimes
from engine.actions import Action, ActionParseError
from engine.observation import Observation
from engine.profiles import Profile
from engine.series import Series

Clock = Callable[[], float]


class RefusedAction(ValueError):
    """An action the person sent that is not taken: not an action, not legal now,
    or sent when it is not their turn. The series goes on."""


@dataclass(frozen=True)
class SeatView:
    """What the person's seat is shown now: their last view of the table (None
    before the first deal), the legal actions when it is their turn, the results
    of the hands ended so far (both hands face up, as every seat is told) and,
    once over, how the series ended."""

    view: Observation | None
    legal: tuple[Action, ...]
    hands: tuple[dict[str, Any], ...]
    over: bool
    ended: str
    """Why the series ended early (a forfeit), '' otherwise."""

    @property
    def my_turn(self) -> bool:
        return bool(self.legal)


class HumanSeat:
    """The person's ``BotConnection``. ``decide`` waits for ``submit`` (another
    thread: a web request) at most ``idle_s`` by ``wait`` (the condition's wait:
    tests pass a clock-driven one)."""

    def __init__(self, name: str, idle_s: float) -> None:
        self.name = name
        self.idle_s = idle_s
        self._lock = threading.Condition()
        self._view: Observation | None = None
        self._legal: tuple[Action, ...] = ()
        self._chosen: Action | None = None
        self._hands: list[dict[str, Any]] = []
        self._over = False
        self._ended = ""
        self.changes = 0
        """Counts every change of what the seat is shown (a page waits for the next)."""

    # -- the match's side

    def handshake(self, timeout: float, *, series_id: str = "",
                  series_number: int = 1) -> BotInfo:
        return BotInfo(self.name, "person", bot_pb2.PROTOCOL_VERSION_1, self.name)

    def decide(self, request: Decision | bot_pb2.DecideRequest, legal_actions: Sequence[Action],
               allowed_s: float, window: Window | None = None) -> Action:
        assert isinstance(request, Decision), "a person's seat is called in-process"
        with self._lock:
            self._view, self._legal, self._chosen = request.view, tuple(legal_actions), None
            self._changed()
            if not self._lock.wait_for(lambda: self._chosen is not None, self.idle_s):
                self._legal = ()
                raise BotFault(FaultKind.TIMEOUT, f"the person did not act within "
                                                  f"{self.idle_s:g} s")
            chosen, self._chosen, self._legal = self._chosen, None, ()
            self._changed()
            assert chosen is not None
            return chosen

    def hand_ended(self, request: HandEnd | bot_pb2.HandEndedRequest, timeout: float) -> bool:
        assert isinstance(request, HandEnd)
        with self._lock:
            # As a bot is told: after a dead hand, no cards; a face-down knock
            # discard only to its knocker.
            self._hands.append({**request.result.public_dict(request.seat),
                                "sheet": request.sheet.to_dict()})
            self._changed()
        return True

    def series_ended(self, request: bot_pb2.SeriesEndedRequest, timeout: float) -> bool:
        return True

    def close(self) -> None:
        return None

    def watch(self, series: Series, seat: int) -> EventSink:
        """The event sink that keeps the seat's view of the table current while the
        bot plays (the person sees the bot's draws and discards)."""

        def on_event(event: dict[str, Any]) -> None:
            if series.hand_number and series.current_player is not None:
                with self._lock:
                    self._view = series.observation(seat)
                    self._changed()
        return on_event

    def finish(self, ended: str) -> None:
        with self._lock:
            self._over, self._ended, self._legal = True, ended, ()
            self._changed()

    def _changed(self) -> None:
        self.changes += 1
        self._lock.notify_all()

    # -- the person's side

    def submit(self, text: str) -> Action:
        """Take the action ``text`` names (``Action.parse``'s notation: "discard 7c"),
        checked as a bot's reply is; ``RefusedAction`` says why not."""
        try:
            action = Action.parse(text)
        except ActionParseError as error:
            raise RefusedAction(f"{text!r} is not an action: {error}") from None
        with self._lock:
            if not self._legal:
                raise RefusedAction("it is not your turn")
            if action not in self._legal:
                raise RefusedAction(f"'{action}' is not legal here; legal: "
                                    f"{describe_actions(self._legal)}")
            # Taken: no longer the person's turn, so a page drawn now shows no stale
            # buttons (the next decision brings the next legal actions).
            self._chosen, self._legal = action, ()
            self._changed()
        return action

    def shown(self, after: int = -1, wait_s: float = 0.0) -> tuple[int, SeatView]:
        """What the seat is shown, once it changed since ``after`` or ``wait_s``
        passed; with the change count to wait on next."""
        with self._lock:
            self._lock.wait_for(lambda: self.changes != after, wait_s)
            return self.changes, SeatView(self._view, self._legal, tuple(self._hands),
                                          self._over, self._ended)


def _still() -> Mapping[int, TaskTimes]:
    return {}


def uncharged_meter() -> Meter:
    """A meter whose clock never moves: the person's seat is charged nothing by the
    match (their idle time-out is their clock)."""
    return Meter(_still, clock=lambda: 0.0, arena=lambda: _still)


@dataclass(frozen=True)
class HumanSeries:
    """A series between a person and a bot: ``person_seat`` is the person's seat."""

    series_id: str
    seed: int
    profile: Profile
    max_hands: int
    person_seat: int
    bot: BotRef
    limits: TimeLimits


def play_against(game: HumanSeries, person: HumanSeat, sandbox: Sandbox,
                 on_event: EventSink | None = None, *,
                 clock: Clock = time.monotonic) -> SeriesOutcome:
    """Play ``game``: start its bot in ``sandbox`` (its start-up on its clock),
    then the series; the bot is stopped on every path. A bot that fails to start
    forfeits."""
    started = clock()
    series = Series(game.seed, game.profile, max_hands=game.max_hands, swap_seats=False)
    bot_seat = 1 - game.person_seat
    running: RunningBot | None = None
    client: BotConnection | None = None
    watch = person.watch(series, game.person_seat)

    def events(event: dict[str, Any]) -> None:
        watch(event)
        if on_event is not None:
            on_event(event)
    try:
        try:
            sandbox.prepare(game.bot)
            running = sandbox.start(game.bot, series_id=game.series_id, seat=bot_seat,
                                    deal="")
            running.wait_ready(game.limits.startup_s)
            client = connect_running(running, game.limits.startup_s)
            client.handshake(game.limits.startup_s, series_id=game.series_id)
        except BotFault as fault:
            person.finish(f"{game.bot.name} did not start: {fault.message}")
            return SeriesOutcome.forfeit(game.series_id, series,
                                         one_seat_fault(bot_seat, fault), (0.0, 0.0),
                                         clock() - started)
        seats: list[BotConnection] = [person, person]
        seats[bot_seat] = client
        meters = [uncharged_meter(), uncharged_meter()]
        meters[bot_seat] = meter_for(running.sched_source(), clock)
        outcome = play_match((seats[0], seats[1]), series, game.limits, events,
                             series_id=game.series_id, meters=(meters[0], meters[1])).outcome
        forfeit = outcome.fault
        person.finish("" if forfeit is None else
                      f"{'you' if forfeit.seat == game.person_seat else game.bot.name} "
                      f"forfeited: {forfeit.message}")
        return outcome
    finally:
        if running is not None:
            running.stop()
        if client is not None:
            client.close()
