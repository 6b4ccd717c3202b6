"""Where image builds write their whole logs: beside the database of the server
running in this process, not wherever it was started."""

from __future__ import annotations

from pathlib import Path

DEFAULT_LOG_DIR = Path(".arena") / "build-logs"
BUILD_LOGS_NAME = "build-logs"
_log_dir = [DEFAULT_LOG_DIR]
"""Where builds write their whole logs, unless a caller names a folder: beside the
database of the server running in this process (``keep_build_logs_beside``), else
``.arena/build-logs`` under the working directory (a tool run by hand)."""


def keep_build_logs_beside(db_path: Path) -> Path:
    """Make the builds of this process log to ``build-logs`` beside ``db_path`` (the
    server's database: its data folder, not wherever the server was started)."""
    folder = Path(db_path).resolve().parent / BUILD_LOGS_NAME
    _log_dir[0] = folder
    return folder


def build_log_dir() -> Path:
    """The folder builds log to (see ``keep_build_logs_beside``)."""
    return _log_dir[0]
