"""The Docker sandbox's build for vetting (``Sandbox.build``): a bot's image built
with the guards of ``arena.sandbox.images``, told apart as the bot's failure (a
report that did not pass, with its log for the owner) or the machine's
(``SandboxError``)."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from arena.sandbox.base import BuildReport, LineSink, SandboxError
from arena.sandbox.build_guard import BuildMemory
from arena.sandbox.build_logs import build_log_dir
from arena.sandbox.config import SandboxConfig
from arena.sandbox.images import ImageBuildError, build_bot_image

if TYPE_CHECKING:
    from arena.core.series import BotRef

BASE_LOCK = threading.Lock()
"""Two versions vetted at once (each in a sandbox of its own) prepare the base image once."""


def build_for_owner(bot: BotRef, client: Any, *, base_image: str, config: SandboxConfig,
                    memory: BuildMemory, timeout_s: float | None,
                    on_line: LineSink) -> BuildReport:
    """Build ``bot``'s image (its base image must be ready) and report it, each line
    of the log also to ``on_line``; ``timeout_s`` overrides ``config``'s limit."""
    try:
        image = build_bot_image(bot.folder, bot.manifest, client=client,
                                base_image=base_image, timeout_s=timeout_s, config=config,
                                memory=memory)
    except ImageBuildError as error:
        # A failure the builder remembers for these files is the bot's too (it is
        # repeated without its flag); anything else unflagged is the machine's.
        if not error.bot_caused and "remembered" not in error.reason:
            raise SandboxError(f"the image could not be built: {error.reason}") from error
        report = BuildReport(passed=False, reason=f"the image did not build: {error.reason}",
                             log=error.log or error.reason)  # a remembered failure has no log
        for line in error.log.splitlines():
            on_line(line)
        return report
    except Exception as error:  # the Docker SDK's errors: the arena's side, not the bot's
        if isinstance(error, SandboxError):
            raise
        raise SandboxError(f"Docker is not available: {type(error).__name__}: {error}"
                           ) from error
    log_path = build_log_dir() / f"{bot.manifest.name}-{image.content_hash[:16]}.log"
    log = (log_path.read_text(errors="replace") if log_path.is_file()
           else f"image {image.tag} already built")
    for line in log.splitlines():
        on_line(line)
    return BuildReport(log=log, image_id=image.image_id,
                       summary=f"image {image.tag} {'built' if image.built else 'up to date'}")
