"""The arena's own copy of a registered bot's files (so later edits of the
source folder never change a registered version)."""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from pathlib import Path


def bots_dir_for(database: Path) -> Path:
    """Where the bot copies of ``database`` live by default (``arena.bots/`` beside
    ``arena.db``), so two databases never share copies."""
    return database.with_name(database.stem + ".bots")


def copy_bot_files(files: Sequence[tuple[str, Path]], destination: Path) -> None:
    """Copy ``files`` ((relative path, path) pairs) to ``destination``, replacing what
    a registration that was rolled back may have left there."""
    if destination.exists():  # a leftover of a registration that was rolled back
        shutil.rmtree(destination)
    for relative, source in files:
        target = destination / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)
