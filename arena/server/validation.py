"""The checks of CreateSeason, without the change, for the service; and of bot
folders on the client's own machine, for commands that check a whole batch before
uploading any (``arena bots register``, ``season run``, ``demo``)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from hollywood.arena.v1 import arena_pb2

from arena.core.defaults import DEFAULT_MAX_SEASON_BOTS
from arena.core.manifest import BotManifest, ManifestError, iter_bot_files
from arena.core.settings import ConfigError, SeasonConfig
from arena.core.sizes import human_size
from arena.sandbox import registry as sandbox_registry
from arena.season.formats import check_owned_settings, format_class
from arena.server.convert import config_from_message
from arena.server.uploads import UploadLimits

# A folder is checked against what its upload may hold (arena.server.uploads).
MAX_BOT_FILES: Final = UploadLimits().entries
MAX_BOT_BYTES: Final = UploadLimits().unpacked_bytes
# A round robin of the default bot limit (1,024 bots, one duplicate pair each:
# 1,047,552 series) is a season the arena promises to hold; twice that bounds what one
# CreateSeason may make storage write in one transaction (about 8 us of CPU a series).
MAX_PLANNED_SERIES: Final = 2 * DEFAULT_MAX_SEASON_BOTS * (DEFAULT_MAX_SEASON_BOTS - 1)


@dataclass(frozen=True)
class BotFolder:
    """A bot folder checked for registration: its manifest, files and fingerprint."""

    folder: Path
    manifest: BotManifest
    files: list[tuple[str, Path]]
    content_hash: str

    @property
    def id(self) -> str:
        return f"{self.manifest.name}@{self.manifest.version}"


def inspect_bot_folder(folder: Path) -> BotFolder:
    """Check that ``folder`` can be registered (valid ``bot.toml``, at most
    ``MAX_BOT_FILES`` files and ``MAX_BOT_BYTES`` bytes, readable) without changing
    anything. Raises ``ManifestError`` saying what is wrong."""
    folder = folder.expanduser().resolve()
    try:
        manifest = BotManifest.load(folder)
        files = list(iter_bot_files(folder))
        if len(files) > MAX_BOT_FILES:
            raise ManifestError(f"{folder}: {len(files)} files, more than {MAX_BOT_FILES}")
        size = sum(path.stat().st_size for _, path in files)
        if size > MAX_BOT_BYTES:
            raise ManifestError(f"{folder}: {human_size(size)} of files, more than "
                                f"{human_size(MAX_BOT_BYTES)}")
        fingerprint = manifest.content_hash(folder)
    except OSError as error:  # unreadable file, vanished folder
        raise ManifestError(f"cannot read the bot folder {folder}: {error}") from None
    return BotFolder(folder, manifest, files, fingerprint)


def check_season_request(
    request: arena_pb2.CreateSeasonRequest,
    resolve: Callable[[str], str],
    manifest_of: Callable[[str], BotManifest] | None = None,
    *,
    max_bots: int = DEFAULT_MAX_SEASON_BOTS,
) -> tuple[list[str], SeasonConfig]:
    """The bot ids and the validated configuration of ``request``, changing nothing.
    ``resolve`` turns a bot reference (``name@version`` or ``name``) into a bot id,
    raising ``NotFoundError`` for an unknown bot. Raises ``ConfigError`` for bad
    settings or bot lists; with ``manifest_of`` (bot id -> manifest), also
    ``ManifestError`` for a bot that cannot run in the season's sandbox."""
    references = [reference.strip() for reference in request.bots]
    if any(not reference for reference in references):
        raise ConfigError("bots: an empty bot name")
    if len(references) < 2:
        raise ConfigError(
            f"a season needs at least two bots, got {len(references)}"
            + (f" ({references[0]})" if references else ""))
    if len(references) > max_bots:
        raise ConfigError(
            f"a season of {len(references)} bots is more than this server's limit of "
            f"{max_bots} bots (start the server with a higher --max-season-bots to allow it)")
    ids = [resolve(reference) for reference in references]
    config = config_from_message(request.config)
    chosen = format_class(config.format)
    check_owned_settings(config)
    config, ids = chosen.admit(config, ids, resolve)
    duplicates = sorted({bot_id for bot_id in ids if ids.count(bot_id) > 1})
    if duplicates:
        raise ConfigError(f"bots: {', '.join(duplicates)} named more than once "
                          "(a season needs at least two distinct bots)")
    season_format = chosen.from_config(config)
    planned = season_format.planned_count(len(ids))
    if planned is not None and planned > MAX_PLANNED_SERIES:
        raise ConfigError(f"the season would plan more than {MAX_PLANNED_SERIES} series")
    if len(request.name) > 200:
        raise ConfigError("name is longer than 200 characters")
    if manifest_of is not None:
        check_bots_fit_sandbox(config, (manifest_of(bot_id) for bot_id in ids))
    return ids, config


def check_bots_fit_sandbox(config: SeasonConfig, manifests: Iterable[BotManifest]) -> None:
    """Raise ``ManifestError`` for the first bot that cannot run in the season's
    sandbox backend (e.g. ``inprocess`` without an SDK bot class)."""
    backend = sandbox_registry.backend(config.sandbox)
    for manifest in manifests:
        backend.check_bot(manifest)
