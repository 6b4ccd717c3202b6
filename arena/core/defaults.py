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
DEFAULT_MAX_SEASON_BOTS: Final = 1024
"""A server's default limit on a season's bots (``arena serve --max-season-bots``).
Measured by tests/bench/bench_thousand.py: a 1,000-bot round robin (999,000
series) is planned and stored in about 8 s of CPU, and a 1,000-member ladder plans
a round in under 100 ms; the plan grows with the square of the bots, so the limit
keeps one request from planning unbounded work (docs/arena.md, "Big leagues")."""
DEFAULT_UPLOAD_IDLE_SECONDS: Final = 30.0
"""An upload that sends nothing for this long is ended (``arena serve
--upload-idle-seconds``)."""
DEFAULT_LOG_RETENTION_DAYS: Final = 30.0
"""How long a server keeps each seat's log of a series (its stderr, decision times,
debug notes: ``arena serve --log-retention-days``; 0 keeps them for ever)."""
TOKEN_FILE_NAME: Final = "admin.token"
AUTH_METADATA_KEY: Final = "authorization"


def token_path_for(db_path: Path) -> Path:
    """Where the admin token of the database at ``db_path`` lives."""
    return db_path.parent / TOKEN_FILE_NAME
