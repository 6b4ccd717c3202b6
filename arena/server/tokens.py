"""The admin token: a secret in a file next to the database (mode 0600), created
on the server's first start; calls that change the arena must present it."""

from __future__ import annotations

import logging
import os
import secrets
import stat
from pathlib import Path
from typing import Final

from arena.core.operator_files import MAX_TOKEN_FILE_BYTES, read_operator_file

log = logging.getLogger(__name__)


ADMIN_TOKEN_PREFIX: Final = "admin_"


def ensure_admin_token(path: Path) -> str:
    """Read the admin token at ``path``, creating it (mode 0600) on first start."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return _read_token(path)
    # A prefix: a bare token_urlsafe starts with "-" one time in 64, and
    # `--token -x...` is then read as an option, not as the token.
    token = ADMIN_TOKEN_PREFIX + secrets.token_urlsafe(32)
    with os.fdopen(descriptor, "w") as handle:
        handle.write(token + "\n")
    return token


def _read_token(path: Path) -> str:
    mode = stat.S_IMODE(path.stat().st_mode)
    if mode & 0o077:
        log.warning("%s was readable by others (mode %o); set to 0600", path, mode)
        path.chmod(0o600)
    token = read_operator_file(path, "admin token file", MAX_TOKEN_FILE_BYTES).decode(
        errors="replace").strip()
    if not token:
        raise RuntimeError(f"{path} is empty; delete it to create a new admin token")
    return token
