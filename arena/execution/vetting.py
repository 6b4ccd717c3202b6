"""Vetting a bot version: build its image (a sandbox that runs bots from images:
``Capabilities.builds_images``) and validate it
(``arena.match.validation``). The server's vetting worker and ``arena check`` both
call ``vet_bot``, so an author sees locally exactly what the server will decide.

Stages are reported as they start (``building``, ``validating``) and lines as they
come (the build log, then each validation hand). A failed build or validation ends
with ``passed = False`` and the reason (``arena_caused`` when the arena's reference
bot failed, not the bot); an arena-side problem (Docker missing, the base image
cannot be built) raises ``SandboxError``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

from arena.core.limits import TimeLimits
from arena.core.series import BotRef
from arena.core.status import VersionStatus
from arena.match.validation import validate_bot
from arena.sandbox import registry as sandbox_registry
from arena.sandbox.base import Sandbox, SandboxError

_BASE_LOCK = threading.Lock()

StageSink = Callable[[VersionStatus], None]
LineSink = Callable[[str], None]


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


def _ignore(_: str) -> None:
    return None


def vet_bot(
    bot: BotRef, sandbox_name: str, *, build_timeout_s: float | None = None,
    on_stage: StageSink = _ignore, on_line: LineSink = _ignore,
    sandbox: Sandbox | None = None, limits: TimeLimits | None = None,
    opponent: BotRef | None = None,
) -> Vetting:
    """Build (where the backend builds images; ``build_timeout_s`` None = the sandbox
    configuration's limit) and validate ``bot`` in a new sandbox of ``sandbox_name``
    (or ``sandbox``, kept open) against ``opponent`` (None: the sample ``random`` bot)."""
    vetting = Vetting(passed=False)
    if sandbox_registry.backend(sandbox_name).capabilities.builds_images:
        on_stage(VersionStatus.BUILDING)
        if not _build(bot, vetting, build_timeout_s, on_line):
            return vetting
    on_stage(VersionStatus.VALIDATING)
    own = sandbox is None
    active = sandbox or sandbox_registry.create(sandbox_name)
    try:
        result = validate_bot(bot, active, limits=limits, on_line=on_line, opponent=opponent)
    finally:
        if own:
            active.close()
    vetting.validation_log = result.log
    vetting.passed, vetting.reason = result.passed, result.reason
    fault = result.fault
    vetting.arena_caused = (fault is not None and fault.seat != result.seat
                            and fault.other_seat_fault is None)
    return vetting


def _build(bot: BotRef, vetting: Vetting, timeout_s: float | None, on_line: LineSink) -> bool:
    # Imported here: the Docker SDK is loaded only where images are built.
    from arena.sandbox.images import (
        BaseImageError,
        ImageBuildError,
        build_bot_image,
        build_log_dir,
        prepare_base,
    )

    try:
        with _BASE_LOCK:  # two versions vetted at once prepare the base image once
            prepare_base()
        image = build_bot_image(bot.folder, bot.manifest, timeout_s=timeout_s)
    except ImageBuildError as error:
        # A failure the builder remembers for these files is the bot's too (it is
        # repeated without its flag); anything else unflagged is the machine's.
        if not error.bot_caused and "remembered" not in error.reason:
            raise SandboxError(f"the image could not be built: {error.reason}") from error
        vetting.build_log = error.log or error.reason  # a remembered failure has no log
        vetting.reason = f"the image did not build: {error.reason}"
        for line in error.log.splitlines():
            on_line(line)
        return False
    except BaseImageError as error:
        raise SandboxError(f"cannot prepare the base image: {error}") from error
    except Exception as error:  # the Docker SDK's errors: the arena's side, not the bot's
        if isinstance(error, SandboxError):
            raise
        raise SandboxError(f"Docker is not available: {type(error).__name__}: {error}"
                           ) from error
    vetting.image_id = image.image_id
    log_path = build_log_dir() / f"{bot.manifest.name}-{image.content_hash[:16]}.log"
    vetting.build_log = (log_path.read_text(errors="replace") if log_path.is_file()
                         else f"image {image.tag} already built")
    for line in vetting.build_log.splitlines():
        on_line(line)
    return True
