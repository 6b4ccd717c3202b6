"""Validating a bot version before it may play: the server's vetting and
``arena check`` run this same code.

``validate_bot`` starts the bot once in the sandbox and checks that its handshake
names the bot and version of its ``bot.toml``, then plays a short series
(``VALIDATION_HANDS`` hands) against the sample ``random`` bot through
``run_series``, the path every season series takes. A fault of the bot, or a
handshake naming another bot or version, fails it; the log says what happened,
hand by hand. Arena-side problems (``SandboxError``) propagate.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from arena.core.faults import BotFault
from arena.core.limits import TimeLimits
from arena.core.series import BotRef, SeriesSpec
from arena.core.text import neutralise
from arena.match.connection import BotConnection, connect_running
from arena.match.runner import run_series
from arena.sandbox.base import RunningBot, Sandbox
from engine.profiles import get_profile

REFERENCE_BOT_FOLDER: Final = (Path(__file__).parent / "reference_bot").resolve()
"""The sample ``random`` bot: a link to ``sample_bots/random`` in a checkout, a copy of
its files in the arena's wheel (package data), so an installed arena vets too."""
VALIDATION_HANDS: Final = 2
VALIDATION_SEED: Final = 20_061
VALIDATION_SERIES_ID: Final = "validation"
_MIN_CALL_S: Final = 0.5

LineSink = Callable[[str], None]


@dataclass
class ValidationResult:
    """How a validation went: ``passed``, else ``reason``; ``lines`` is its log."""

    passed: bool
    reason: str = ""
    lines: list[str] = field(default_factory=list)
    fault: BotFault | None = None

    @property
    def log(self) -> str:
        return "\n".join(self.lines)


def reference_bot() -> BotRef:
    """The opponent of every validation: the sample ``random`` bot."""
    return BotRef.from_folder(REFERENCE_BOT_FOLDER)


def validate_bot(
    bot: BotRef, sandbox: Sandbox, *, limits: TimeLimits | None = None,
    hands: int = VALIDATION_HANDS, on_line: LineSink | None = None,
    opponent: BotRef | None = None,
) -> ValidationResult:
    """Validate ``bot`` in ``sandbox`` (see the module docstring)."""
    limits = limits or TimeLimits()
    result = ValidationResult(passed=False)

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
    spec = SeriesSpec(series_id=VALIDATION_SERIES_ID, seed=VALIDATION_SEED,
                      profile=get_profile("friendly"), max_hands=hands, swap_seats=False,
                      bots=(bot, opponent), limits=limits)
    say(f"series of {hands} hand(s) against {opponent.name} {opponent.version}")
    outcome = run_series(spec, sandbox, lambda event: _on_event(event, bot, opponent, say))
    fault = outcome.fault
    if fault is None:
        say(f"passed: {outcome.hands_played} hand(s) played, points "
            f"{outcome.points[0]}-{outcome.points[1]}")
        result.passed = True
        return result
    whose = bot.name if fault.seat == 0 else f"the reference bot {opponent.name}"
    result.reason = f"{whose} faulted: {fault.kind}: {fault.message}"
    if fault.seat != 0 and fault.other_seat_fault is None:
        result.reason = f"the arena's reference bot failed, not yours: {result.reason}"
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
        info = client.handshake(max(_MIN_CALL_S, limits.startup_s))
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


def _on_event(event: dict[str, Any], bot: BotRef, opponent: BotRef, say: LineSink) -> None:
    if event.get("type") != "hand_end":
        return
    names = (bot.name, opponent.name)
    winner = event.get("winner")
    points = event.get("points", 0)
    kind = event.get("kind", "")
    outcome = "no winner" if winner is None else f"{names[int(winner)]} +{points}"
    say(f"hand {event.get('hand')}: {kind}, {outcome}")
