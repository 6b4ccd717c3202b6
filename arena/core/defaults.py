"""Constants that the server and its clients share (so no client imports the server)."""

from __future__ import annotations

from pathlib import Path
from typing import Final

DEFAULT_HOST: Final = "localhost"
DEFAULT_PORT: Final = 50551
DEFAULT_SERVER: Final = f"{DEFAULT_HOST}:{DEFAULT_PORT}"
DEFAULT_HTTP_HOST: Final = "localhost"
DEFAULT_HTTP_PORT: Final = 8080
DEFAULT_HTTP: Final = f"{DEFAULT_HTTP_HOST}:{DEFAULT_HTTP_PORT}"
DEFAULT_DB: Final = Path(".arena") / "arena.db"
TOKEN_FILE_NAME: Final = "admin.token"
AUTH_METADATA_KEY: Final = "authorization"


def token_path_for(db_path: Path) -> Path:
    """Where the admin token of the database at ``db_path`` lives."""
    return db_path.parent / TOKEN_FILE_NAME
