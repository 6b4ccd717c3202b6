"""Validating a bot version before it may play: the server's vetting and
``arena check`` run this same code.

``validate_bot`` starts the bot once in the sandbox and checks that its handshake
names the bot and version of its ``bot.toml``, then plays a short series
(``VALIDATION_HANDS`` hands) through ``run_series``, the path every season series
takes, against an opponent the caller draws (the server: one of the arena's
active versions, ``arena.server.vetting``; else the sample ``random`` bot). A fault
of the bot, or a handshake naming another bot or version, fails it; the log says
what happened, hand by hand. Arena-side problems (``SandboxError``) propagate.

Vetting looks like play: the series id a bot is told is drawn at random as for
every series (``arena.core.series.opaque_series_id``), the seed is drawn at random
as a season's deal seeds are (63 bits), and so is the seat, so a bot that behaves
only when it recognises vetting cannot tell.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from arena.core.faults import BotFault
from arena.core.limits import TimeLimits
from arena.core.series import BotRef, SeriesSpec, opaque_series_id
from arena.core.text import neutralise
from arena.match.connection import BotConnection, connect_running
from arena.match.runner import run_series
from arena.sandbox.base import RunningBot, Sandbox
from engine.profiles import get_profile

REFERENCE_BOT_FOLDER: Final = (Path(__file__).parent / "reference_bot").resolve()
"""The sample ``random`` bot: a link to ``sample_bots/random`` in a checkout, a copy of
its files in the arena's wheel (package data), so an installed arena vets too."""
VALIDATION_HANDS: Final = 2
VALIDATION_SERIES_ID: Final = "validation"
"""The arena's own name for a validation series (logs, sandbox labels); the bot is
told an opaque id as in every series."""
_MIN_CALL_S: Final = 0.5

LineSink = Callable[[str], None]


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
) -> ValidationResult:
    """Validate ``bot`` in ``sandbox`` (see the module docstring); ``seat`` and
    ``seed`` None: drawn at random."""
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
    say(f"series of {hands} hand(s) against {opponent.name} {opponent.version}, "
        f"{bot.name} in seat {seat}")
    outcome = run_series(spec, sandbox, lambda event: _on_event(event, names, say))
    fault = outcome.fault
    if fault is None:
        say(f"passed: {outcome.hands_played} hand(s) played, points "
            f"{outcome.points[seat]}-{outcome.points[1 - seat]}")
        result.passed = True
        return result
    whose = bot.name if fault.seat == seat else f"the opponent {opponent.name}"
    result.reason = f"{whose} faulted: {fault.kind}: {fault.full_message}"
    if fault.seat != seat and fault.other_seat_fault is None:
        result.reason = f"the arena's opponent bot failed, not yours: {result.reason}"
    result.fault = fault
    say(f"rejected: {result.reason}")
    if fault.stderr_tail:
        say("--- stderr tail ---")
        result.lines.extend(fault.stderr_tail.splitlines())
        if on_line is not None:
            on_line(fault.stderr_tail)
    return result


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


def _on_event(event: dict[str, Any], names: tuple[str, str], say: LineSink) -> None:
    if event.get("type") != "hand_end":
        return
    winner = event.get("winner")
    points = event.get("points", 0)
    kind = event.get("kind", "")
    outcome = "no winner" if winner is None else f"{names[int(winner)]} +{points}"
    say(f"hand {event.get('hand')}: {kind}, {outcome}")
