"""Validating a bot version before it may play: the server's vetting and
``arena check`` run this same code.

``validate_bot`` starts the bot once in the sandbox and checks that its handshake
names the bot and version of its ``bot.toml``, then plays a whole series (to its
end, under a season's default hand cap ``VALIDATION_HANDS``) through ``run_series``,
the path every season series takes, against an opponent the caller draws (the
server: one of the arena's active versions, ``arena.server.vetting``; else the
sample ``random`` bot). A fault of the bot, or a handshake naming another bot or
version, fails it: the reason is the arena's words (whose fault, its kind, hand and
decision), what the bot said of it and its stderr tail go to the log, which only
its owner reads. Arena-side problems (``SandboxError``) propagate.

The series is played within a time budget (``VETTING_BUDGET_S`` of play, checked
at every move): a bot slow but within its time limits is no worse for it, so a
series that outlasts the budget is stopped there and judged on the hands played
(a fault among them rejects, none passes). One vetting therefore holds a vetting
slot for at most its bot's start-up limit twice (handshake, series), the budget and
one decision's cut-off (deadline + reserve).

Vetting looks like play: the series id a bot is told is drawn at random as for
every series (``arena.core.series.opaque_series_id``), the seed is drawn at random
as a season's deal seeds are (63 bits), and so is the seat, so a bot that behaves
only when it recognises vetting cannot tell.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from arena.core.faults import BotFault, faults_by_seat
from arena.core.limits import TimeLimits
from arena.core.series import BotRef, SeriesSpec, opaque_series_id
from arena.core.settings import SeasonConfig
from arena.core.text import neutralise
from arena.match.connection import BotConnection, connect_running
from arena.match.runner import run_series
from arena.sandbox.base import RunningBot, Sandbox
from engine.profiles import get_profile

REFERENCE_BOT_FOLDER: Final = (Path(__file__).parent / "reference_bot").resolve()
"""The sample ``random`` bot: a link to ``sample_bots/random`` in a checkout, a copy of
its files in the arena's wheel (package data), so an installed arena vets too."""
VALIDATION_HANDS: Final = SeasonConfig.max_hands
"""The hand cap of a vetting series: a season's by default (a whole series)."""
VETTING_BUDGET_S: Final = 60.0
"""How long a vetting series may play (seconds of the wall clock, from its start,
checked at every move): a series still going then is stopped and judged on the hands played. Two
sample bots finish a series in about 1 s (the process sandbox); two ``random``
bots, which rarely knock, play 200 hands in 30-40 s on a loaded machine."""
VALIDATION_SERIES_ID: Final = "validation"
"""The arena's own name for a validation series (logs, sandbox labels); the bot is
told an opaque id as in every series."""
_MIN_CALL_S: Final = 0.5

LineSink = Callable[[str], None]
Clock = Callable[[], float]


class _BudgetSpent(Exception):
    """The vetting series outlasted its time budget: stopped at its next move."""


@dataclass
class ValidationResult:
    """How a validation went: ``passed``, else ``reason``; ``lines`` is its log."""

    passed: bool
    reason: str = ""
    lines: list[str] = field(default_factory=list)
    fault: BotFault | None = None
    seat: int = 0
    """The seat the bot played."""

    @property
    def log(self) -> str:
        return "\n".join(self.lines)


def reference_bot() -> BotRef:
    """The opponent of every validation: the sample ``random`` bot."""
    return BotRef.from_folder(REFERENCE_BOT_FOLDER)


def validate_bot(
    bot: BotRef, sandbox: Sandbox, *, limits: TimeLimits | None = None,
    hands: int = VALIDATION_HANDS, on_line: LineSink | None = None,
    opponent: BotRef | None = None, seat: int | None = None, seed: int | None = None,
    budget_s: float = VETTING_BUDGET_S, clock: Clock = time.monotonic,
) -> ValidationResult:
    """Validate ``bot`` in ``sandbox`` (see the module docstring); ``seat`` and
    ``seed`` None: drawn at random; ``clock`` measures the budget."""
    limits = limits or TimeLimits()
    seat = secrets.randbelow(2) if seat is None else seat
    result = ValidationResult(passed=False, seat=seat)

    def say(line: str) -> None:
        result.lines.append(line)
        if on_line is not None:
            on_line(line)

    mismatch = _check_handshake(bot, sandbox, limits, say)
    if mismatch is not None:
        result.reason = mismatch
        say(f"rejected: {mismatch}")
        return result
    opponent = opponent or reference_bot()
    names = (bot.name, opponent.name) if seat == 0 else (opponent.name, bot.name)
    spec = SeriesSpec(series_id=VALIDATION_SERIES_ID,
                      seed=secrets.randbits(63) if seed is None else seed,
                      profile=get_profile("friendly"), max_hands=hands, swap_seats=False,
                      bots=(bot, opponent) if seat == 0 else (opponent, bot), limits=limits)
    say(f"a series (at most {hands} hands, {budget_s:g} s) against {opponent.name} "
        f"{opponent.version}, {bot.name} in seat {seat}")
    watch = _Watch(names, say, clock() + budget_s, clock)
    try:
        outcome = run_series(spec, sandbox, watch.on_event)
    except _BudgetSpent:
        say(f"passed: the vetting budget of {budget_s:g} s ran out after "
            f"{watch.hands} hand(s) without a fault (the series stopped there)")
        result.passed = True
        return result
    fault = outcome.fault
    if fault is None:
        say(f"passed: {outcome.hands_played} hand(s) played, points "
            f"{outcome.points[seat]}-{outcome.points[1 - seat]}")
        result.passed = True
        return result
    result.fault = fault
    result.reason = _reason(fault, seat, bot, opponent)
    say(f"rejected: {result.reason}")
    own = outcome.seat_faults[seat]
    if own is not None:  # never the opponent's words: not its owner's
        _own_words(own, say, on_line, result)
    return result


def _reason(fault: BotFault, seat: int, bot: BotRef, opponent: BotRef) -> str:
    """Why a validation failed, in the arena's words only (whose fault, where, its
    kind and the arena's message): the bot's own words stay in its owner's log."""
    whose = bot.name if fault.seat == seat else f"the opponent {opponent.name}"
    where = (f"at hand {fault.hand_number}, decision {fault.decision_number}"
             if fault.hand_number else "before the first deal")
    reason = f"{whose} faulted {where}: {fault.kind}: {fault.message}"
    if faults_by_seat(fault)[seat] is None:
        reason = f"the arena's opponent bot failed, not yours: {reason}"
    return reason


def _own_words(fault: BotFault, say: LineSink, on_line: LineSink | None,
               result: ValidationResult) -> None:
    """What the bot said of its fault and its stderr tail, for its owner's log."""
    if fault.bot_words:
        say(f"your bot said: {fault.bot_words}")
    if fault.stderr_tail:
        say("--- stderr tail ---")
        result.lines.extend(fault.stderr_tail.splitlines())
        if on_line is not None:
            on_line(fault.stderr_tail)


def _check_handshake(bot: BotRef, sandbox: Sandbox, limits: TimeLimits,
                     say: LineSink) -> str | None:
    """Start ``bot`` alone and handshake: the problem, or None if it named itself as
    its ``bot.toml`` does. A fault here is left to the series to report (with the
    sandbox's verdict and stderr), so only a wrong identity is answered."""
    running: RunningBot | None = None
    client: BotConnection | None = None
    try:
        sandbox.prepare(bot)
        running = sandbox.start(bot, series_id=f"{VALIDATION_SERIES_ID}-handshake", seat=0)
        running.wait_ready(limits.startup_s)
        client = connect_running(running, limits.startup_s)
        info = client.handshake(max(_MIN_CALL_S, limits.startup_s),
                                series_id=opaque_series_id())
    except BotFault:
        return None
    finally:
        if running is not None:
            running.stop()
        if client is not None:
            client.close()
    said = f"{neutralise(info.name)} {neutralise(info.version)}"
    say(f"handshake: {said} (protocol {info.protocol_version})")
    if (info.name, info.version) != (bot.name, bot.version):
        return (f"the handshake names {said}, but bot.toml says {bot.name} {bot.version}: "
                "they must agree")
    return None


class _Watch:
    """The vetting series' events: a line per hand, the budget checked at each."""

    def __init__(self, names: tuple[str, str], say: LineSink, deadline: float,
                 clock: Clock) -> None:
        self.names, self.say, self.deadline, self.clock = names, say, deadline, clock
        self.hands = 0

    def on_event(self, event: dict[str, Any]) -> None:
        if event.get("type") == "hand_end":
            self.hands += 1
            winner = event.get("winner")
            outcome = ("no winner" if winner is None
                       else f"{self.names[int(winner)]} +{event.get('points', 0)}")
            self.say(f"hand {event.get('hand')}: {event.get('kind', '')}, {outcome}")
        if event.get("type") != "fault" and self.clock() >= self.deadline:
            raise _BudgetSpent
