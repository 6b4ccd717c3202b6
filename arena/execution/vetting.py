"""Vetting a bot version: build it (``Sandbox.build``, a stage of its own where the
backend builds images: ``Capabilities.builds_images``) and validate it
(``arena.match.validation``). The server's vetting worker and ``arena check`` both
call ``vet_bot``, so an author sees locally exactly what the server will decide.

Stages are reported as they start (``building``, ``validating``) and lines as they
come (the build log, then each validation hand). A failed build or validation ends
with ``passed = False`` and the reason (``arena_caused`` when the arena's reference
bot failed, not the bot); an arena-side problem (Docker missing, the base image
cannot be built) raises ``SandboxError``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from arena.core.limits import TimeLimits
from arena.core.series import BotRef
from arena.core.status import VersionStatus
from arena.match.validation import validate_bot
from arena.sandbox import registry as sandbox_registry
from arena.sandbox.base import LineSink as LineSink  # the server's vetting worker names it here
from arena.sandbox.base import Sandbox, ignore_line
from arena.sandbox.registry import Capabilities

StageSink = Callable[[VersionStatus], None]


@dataclass
class Vetting:
    """What vetting found: ``passed``, else ``reason``; the image id (Docker), the
    build log and the validation log."""

    passed: bool
    reason: str = ""
    arena_caused: bool = False
    """A failure of the arena's side (its reference bot faulted), not the bot's."""
    image_id: str = ""
    build_log: str = ""
    validation_log: str = ""


def _ignore_stage(_: VersionStatus) -> None:
    return None


def vet_bot(
    bot: BotRef, sandbox_name: str, *, build_timeout_s: float | None = None,
    on_stage: StageSink = _ignore_stage, on_line: LineSink = ignore_line,
    sandbox: Sandbox | None = None, limits: TimeLimits | None = None,
    opponent: BotRef | None = None,
) -> Vetting:
    """Build (where the backend builds images; ``build_timeout_s`` None = the sandbox
    configuration's limit) and validate ``bot`` in a new sandbox of ``sandbox_name``
    (or ``sandbox``, kept open) against ``opponent`` (None: the sample ``random`` bot)."""
    own = sandbox is None
    active = sandbox or sandbox_registry.create(sandbox_name)
    try:
        return _vet(bot, active, sandbox_registry.backend(sandbox_name).capabilities,
                    build_timeout_s, on_stage, on_line, limits, opponent)
    finally:
        if own:
            active.close()


def _vet(bot: BotRef, sandbox: Sandbox, capabilities: Capabilities,
         build_timeout_s: float | None, on_stage: StageSink, on_line: LineSink,
         limits: TimeLimits | None, opponent: BotRef | None) -> Vetting:
    vetting = Vetting(passed=False)
    if capabilities.builds_images:  # the others have no build stage to show
        on_stage(VersionStatus.BUILDING)
        built = sandbox.build(bot, timeout_s=build_timeout_s, on_line=on_line)
        vetting.image_id, vetting.build_log = built.image_id, built.log
        if not built.passed:
            vetting.reason = built.reason
            return vetting
    on_stage(VersionStatus.VALIDATING)
    result = validate_bot(bot, sandbox, limits=limits, on_line=on_line, opponent=opponent)
    vetting.validation_log = result.log
    vetting.passed, vetting.reason = result.passed, result.reason
    fault = result.fault
    vetting.arena_caused = (fault is not None and fault.seat != result.seat
                            and fault.other_seat_fault is None)
    return vetting
