"""A stored series played again on this machine (``arena replay``).

The stored event log starts with the series' own start (seed, rule profile, hand
cap, seat swap: what the season verified before it stored the result), so the
replay deals exactly the stored cards. Each seat is either a bot folder (started
in a sandbox as ``arena play`` starts it) or the stored moves: a stored-moves seat
answers each of its decisions with the move stored at that decision, for as long as
play follows the stored path. Every action played is compared with the stored one
at the same decision number; the first that differs is the ``Divergence`` (hand,
decision, stored move, new move). After it a stored-moves seat has nothing to
play: the replay stops there (``StoredPathEnded``) and reports how far it got.

The series is played by ``run_series`` as any other (same match loop, clocks and
faults); only the stored-moves seats are not started: their ``RunningBot`` starts
nothing and their connection answers from the log (``StoredSeats``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from hollywood.bot.v1 import bot_pb2

from arena.core.faults import BotFault
from arena.core.limits import TimeLimits
from arena.core.manifest import BotManifest
from arena.core.series import BotRef, SeriesOutcome, SeriesSpec
from arena.match.botclient import BotInfo
from arena.match.connection import BotConnection, connect_bot
from arena.match.decision import Decision, HandEnd
from arena.match.fair_clock import Window
from arena.match.runner import run_series
from arena.sandbox.base import RunningBot, Sandbox, SandboxError
from engine.actions import Action, ActionParseError
from engine.profiles import Profile, ProfileError

STORED_MOVES_PREFIX: Final = "stored-moves:"
"""The target of a stored-moves seat (never dialled: ``StoredSeats.connect``)."""

EventSink = Callable[[dict[str, Any]], None]


class StoredSeriesError(ValueError):
    """A stored series that cannot be replayed (no log, or not a series' log)."""


class StoredPathEnded(Exception):
    """A stored-moves seat was asked for a move the stored series does not have."""


@dataclass(frozen=True)
class StoredSeries:
    """A played series as stored: its bots by seat (``name@version``), its event log
    (the deal's settings in its first entry), the season's time limits and the
    fault that forfeited it (None when played out)."""

    series_id: str
    bots: tuple[str, str]
    log: Sequence[dict[str, Any]]
    limits: TimeLimits = field(default_factory=TimeLimits)
    fault: BotFault | None = None

    def __post_init__(self) -> None:
        start = self.log[0] if self.log else None
        if not isinstance(start, dict) or start.get("type") != "series_start":
            raise StoredSeriesError(f"series {self.series_id}: its stored event log does not "
                                    "start with the series' start (was it played?)")
        try:
            Profile.from_dict(start["profile"])
            int(start["seed"]), int(start["max_hands"]), bool(start["swap_seats"])
        except (KeyError, TypeError, ValueError, ProfileError) as error:
            raise StoredSeriesError(f"series {self.series_id}: the start of its stored log "
                                    f"is incomplete ({error})") from None

    @property
    def actions(self) -> list[dict[str, Any]]:
        """The stored ``action`` events, decision 1 first."""
        return [event for event in self.log if event.get("type") == "action"]

    def spec(self, bots: tuple[BotRef, BotRef], *, series_id: str = "") -> SeriesSpec:
        """The stored series' deal, played by ``bots``."""
        start = self.log[0]
        return SeriesSpec(series_id or f"replay-{self.series_id}", int(start["seed"]),
                          Profile.from_dict(start["profile"]), int(start["max_hands"]),
                          bool(start["swap_seats"]), bots, self.limits)


@dataclass(frozen=True)
class Divergence:
    """The first decision at which the replay left the stored path."""

    hand: int | None
    decision: int
    seat: int
    stored: str
    """The stored move in words ("discard Kd"), or how the stored series ended there."""
    new: str


@dataclass(frozen=True)
class ReplayReport:
    """What a replay found: ``divergence`` None means the stored series was
    reproduced (to its end, or, where a stored-moves seat forfeited, to that
    forfeit). ``outcome`` is the new series' outcome; None when it stopped because a
    stored-moves seat had no stored move to play."""

    divergence: Divergence | None
    outcome: SeriesOutcome | None
    decisions: int
    """Decisions played and compared with the stored ones."""

    @property
    def reproduced(self) -> bool:
        return self.divergence is None


def move_text(action: Mapping[str, Any]) -> str:
    try:
        return str(Action.from_dict(dict(action)))
    except ActionParseError:
        return repr(dict(action))


def fault_text(fault: BotFault) -> str:
    return f"forfeit ({fault.kind}: {fault.message})"


class StoredPath:
    """Compares each action played with the stored one at the same decision (the
    match's ``on_event``), and gives stored-moves seats their stored moves."""

    def __init__(self, stored: StoredSeries) -> None:
        self.stored = stored
        self.actions = stored.actions
        self.played = 0
        self.divergence: Divergence | None = None

    def observe(self, event: dict[str, Any]) -> None:
        if event.get("type") != "action":
            return
        index = self.played
        self.played += 1
        if self.divergence is not None:
            return
        stored = self.actions[index] if index < len(self.actions) else None
        if stored == event:
            return
        hand, seat = event.get("hand"), int(event.get("seat", 0))
        was = (move_text(stored["action"]) if stored is not None
               else self._stored_end())
        self.divergence = Divergence(hand if isinstance(hand, int) else None, index + 1,
                                     seat, was, move_text(event.get("action", {})))

    def _stored_end(self) -> str:
        fault = self.stored.fault
        return "nothing: the stored series ended here" + (
            f" with a {fault_text(fault)} of seat {fault.seat}" if fault is not None else "")

    def move_for(self, seat: int, decision_number: int) -> Action:
        """The stored move of ``seat`` at ``decision_number``, while on the path."""
        index = decision_number - 1
        if (self.divergence is not None or index >= len(self.actions)
                or self.actions[index].get("seat") != seat):
            raise StoredPathEnded(f"seat {seat} has no stored move at decision {decision_number}")
        return Action.from_dict(self.actions[index]["action"])

    def report(self, outcome: SeriesOutcome | None) -> ReplayReport:
        """The verdict once the new series ended (``outcome``) or stopped (None)."""
        divergence = self.divergence
        fault = outcome.fault if outcome is not None else None
        if divergence is None and fault is not None:
            divergence = self.fault_divergence(fault)
        return ReplayReport(divergence, outcome, self.played)

    def fault_divergence(self, fault: BotFault) -> Divergence | None:
        """A forfeit in the new series where the stored one played on, or ended
        otherwise (decision 0: at start-up)."""
        decision = fault.decision_number or 0
        index = decision - 1
        stored_fault = self.stored.fault
        seat = fault.seat if fault.seat is not None else 0
        if decision == 0 and self.actions:
            was = "came up and played"
        elif 0 <= index < len(self.actions):
            was = move_text(self.actions[index]["action"])
        elif stored_fault is None or stored_fault.kind != fault.kind or stored_fault.seat != seat:
            was = self._stored_end()
        else:
            return None
        return Divergence(fault.hand_number, decision, seat, was, fault_text(fault))


class _StoredMovesBot(RunningBot):
    """The ``RunningBot`` of a stored-moves seat: nothing runs, nothing to stop."""

    def __init__(self, seat: int) -> None:
        self._seat = seat

    @property
    def target(self) -> str:
        return f"{STORED_MOVES_PREFIX}{self._seat}"

    def wait_ready(self, timeout: float) -> None:
        """Ready at once: there is no process."""

    def stderr_tail(self) -> str:
        return ""

    def fault_if_dead(self, wait_s: float = 0.0) -> BotFault | None:
        return None

    def stop(self) -> None:
        """Nothing was started."""


class _StoredMovesConnection:
    """A stored-moves seat as the match talks to it (``BotConnection``)."""

    def __init__(self, path: StoredPath, seat: int) -> None:
        self.path, self.seat = path, seat

    def handshake(self, timeout: float, *, series_id: str = "",
                  series_number: int = 1) -> BotInfo:
        name, _, version = self.path.stored.bots[self.seat].partition("@")
        return BotInfo(name, version, 1, "stored moves")

    def decide(self, request: Decision | bot_pb2.DecideRequest, legal_actions: Sequence[Action],
               allowed_s: float, window: Window | None = None) -> Action:
        return self.path.move_for(self.seat, request.decision_number)

    def hand_ended(self, request: HandEnd | bot_pb2.HandEndedRequest, timeout: float) -> bool:
        return True

    def series_ended(self, request: bot_pb2.SeriesEndedRequest, timeout: float) -> bool:
        return True

    def close(self) -> None:
        """Nothing to close."""


def stored_moves_ref(stored: StoredSeries, seat: int) -> BotRef:
    """The ``BotRef`` standing for seat ``seat``'s stored moves (no folder)."""
    name = f"{STORED_MOVES_PREFIX}{seat}"
    manifest = BotManifest(name=name, version=stored.bots[seat], language="any",
                           run_command=(name,))
    return BotRef(name, stored.bots[seat], Path("/nonexistent-stored-moves"), manifest)


class StoredSeats(Sandbox):
    """``inner`` with the stored-moves seats started as nothing and connected to
    the stored path (``inner`` None: both seats are stored moves)."""

    def __init__(self, inner: Sandbox | None, path: StoredPath,
                 seats: Mapping[BotRef, int]) -> None:
        self.inner, self.path, self.seats = inner, path, dict(seats)
        self.name = inner.name if inner is not None else "none"
        self.description = (f"{inner.description}; " if inner is not None else "") + (
            "stored moves")

    def _sandbox(self, bot: BotRef) -> Sandbox:
        if self.inner is None:
            raise SandboxError(f"{bot.name}@{bot.version}: no sandbox was given to start it")
        return self.inner

    def prepare(self, bot: BotRef) -> None:
        if bot not in self.seats:
            self._sandbox(bot).prepare(bot)

    def start(self, bot: BotRef, *, series_id: str = "", seat: int | None = None,
              deal: str = "") -> RunningBot:
        if bot in self.seats:
            return _StoredMovesBot(self.seats[bot])
        return self._sandbox(bot).start(bot, series_id=series_id, seat=seat, deal=deal)

    def connect(self, target: str, timeout: float) -> BotConnection:
        if target.startswith(STORED_MOVES_PREFIX):
            return _StoredMovesConnection(self.path, int(target.removeprefix(STORED_MOVES_PREFIX)))
        return connect_bot(target, timeout)


def replay_series(stored: StoredSeries, folders: Mapping[int, BotRef], sandbox: Sandbox | None,
                  on_event: EventSink | None = None) -> ReplayReport:
    """Play ``stored``'s deal again: the seats of ``folders`` by those bots (started
    in ``sandbox``), every other seat by its stored moves; see the module docstring.
    Raises ``SandboxError`` and ``ArenaOverload`` as ``run_series`` does."""
    path = StoredPath(stored)
    refs = tuple(folders[seat] if seat in folders else stored_moves_ref(stored, seat)
                 for seat in (0, 1))
    seats = {ref: seat for seat, ref in enumerate(refs) if seat not in folders}
    wrapped = StoredSeats(sandbox, path, seats)

    def observe(event: dict[str, Any]) -> None:
        path.observe(event)
        if on_event is not None:
            on_event(event)

    try:
        outcome = run_series(stored.spec((refs[0], refs[1])), wrapped, observe,
                             connect=wrapped.connect)
    except StoredPathEnded:
        return path.report(None)
    return path.report(outcome)
