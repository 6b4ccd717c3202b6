"""Where the client's token comes from, in this order: ``--token``, ``--token-file``,
``$ARENA_TOKEN``, the server's entry in the credentials file
(``$XDG_CONFIG_HOME/hollywood-arena/credentials``, else
``~/.config/hollywood-arena/credentials``; written by ``arena login``, mode 0600),
and last the admin token next to the default database (``.arena/admin.token``),
only for the server that wrote it: a server it did not record as its own
(``arena.core.token_binding``) never gets it, and the client has the server prove
that it holds the token before sending it (``arena.cli.client``). A token stored by
``arena login`` is sent only to the server it was stored for. Each ``Credentials``
knows its source, so an authentication error can say which token was used, or which
was held back and why, and what to do next.

``arena login`` also makes its server the default one (``default-server`` beside the
credentials file): a command without ``--server`` or ``$ARENA_SERVER`` goes there.
"""

from __future__ import annotations

import configparser
import os
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from arena.cli.output import CliError
from arena.core.defaults import DEFAULT_DB, token_path_for
from arena.core.operator_files import MAX_TOKEN_FILE_BYTES, read_operator_file
from arena.core.settings import ConfigError
from arena.core.token_binding import read_server_record, server_record_path_for

TOKEN_ENV: Final = "ARENA_TOKEN"
CONFIG_DIR_NAME: Final = "hollywood-arena"
CREDENTIALS_NAME: Final = "credentials"
DEFAULT_SERVER_NAME: Final = "default-server"
MAX_SERVER_CHARS: Final = 300
MAX_CREDENTIALS_BYTES: Final = 1024 * 1024


def credentials_path() -> Path:
    """The user's credentials file (it may not exist)."""
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / CONFIG_DIR_NAME / CREDENTIALS_NAME


@dataclass(frozen=True)
class Credentials:
    """A token (``None``: none found) and where it came from."""

    token: str | None
    source: str
    """E.g. "--token", "--token-file t.txt", "$ARENA_TOKEN"."""
    advice: str
    """What to do when the server refuses it."""
    proof_needed: bool = False
    """The local admin token: sent only once the server proved it holds it."""
    held_back: str = ""
    """Why a token that was found is not sent to this server (then ``token`` is None)."""


def find_credentials(server: str, token: str | None, token_file: Path | None) -> Credentials:
    """The token for ``server`` from the first source that has one (see the module)."""
    login = f"`arena login --server {server} --token-file FILE`"
    if token:
        return Credentials(token.strip(), "--token",
                           "pass a valid token with --token (or drop it to use other sources)")
    if token_file is not None:
        return Credentials(_read_token_file(token_file), f"--token-file {token_file}",
                           f"put a valid token in {token_file}")
    if os.environ.get(TOKEN_ENV, "").strip():
        return Credentials(os.environ[TOKEN_ENV].strip(), f"${TOKEN_ENV}",
                           f"set {TOKEN_ENV} to a valid token, or unset it to use {login}")
    path = credentials_path()
    entries = read_credentials(path)
    stored = entries.get(server)
    if stored:
        return Credentials(stored, f"the credentials file {path} (entry [{server}])",
                           f"store a valid token with {login}")
    local = _local_admin_token(server, login)
    if local is not None:
        return local
    others = sorted(name for name, token in entries.items() if token)
    kept = (f"; {path} holds tokens for {', '.join(others)} only, and a token stored for "
            "one server is never sent to another" if others else "")
    return Credentials(None, "no token (none of --token, --token-file, "
                       f"${TOKEN_ENV}, {path} had one{kept})",
                       f"give a token: --token-file FILE, ${TOKEN_ENV}, or {login} once")


def _local_admin_token(server: str, login: str) -> Credentials | None:
    """The admin token next to the default database, for its own server only (which
    must still prove that it holds it); held back, saying why, from any other."""
    local = token_path_for(DEFAULT_DB)
    try:
        found = read_operator_file(local, "admin token file", MAX_TOKEN_FILE_BYTES).decode(
            errors="replace").strip()
    except ConfigError:  # missing, or not a file the server wrote
        found = ""
    if not found:
        return None
    source = f"the local admin token file {local}"
    advice = f"give a token with --token-file FILE or {login}"
    record_path = server_record_path_for(DEFAULT_DB)
    record = read_server_record(record_path)
    if record is None:
        why = (f"no record of the server it belongs to ({record_path} is missing or "
               "unreadable: start that server again to write it)")
    elif not record.serves(server):
        why = (f"it belongs to the server at {', '.join(record.addresses)} "
               f"(recorded in {record_path}), not to {server}")
    else:
        return Credentials(found, source, advice, proof_needed=True)
    return Credentials(None, source, f"to send it to {server} anyway, name it: "
                       f"--token-file {local}", held_back=f"{source} was held back: {why}")


def _read_token_file(path: Path) -> str:
    try:
        token = read_operator_file(path, "token file", MAX_TOKEN_FILE_BYTES).decode(
            errors="replace").strip()
    except ConfigError as error:
        raise CliError(str(error)) from None
    if not token:
        raise CliError(f"the token file {path} is empty")
    return token


def read_credentials(path: Path) -> dict[str, str]:
    """Server -> token from the credentials file (empty if there is none). Refuses a
    file that others may read: it holds secrets."""
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        return {}
    except OSError as error:
        raise CliError(f"cannot read the credentials file {path}: {error}") from None
    if mode & 0o077:
        raise CliError(f"the credentials file {path} may be read by others (mode {mode:04o}): "
                       f"it holds tokens, so it is not used; run `chmod 600 {path}`")
    parser = configparser.ConfigParser(interpolation=None)
    try:
        text = read_operator_file(path, "credentials file", MAX_CREDENTIALS_BYTES).decode()
        parser.read_string(text, source=str(path))
    except ConfigError as error:
        raise CliError(str(error)) from None
    except (UnicodeDecodeError, configparser.Error) as error:
        raise CliError(f"cannot read the credentials file {path}: {error}") from None
    return {section: parser[section].get("token", "").strip() for section in parser.sections()}


def store_credentials(path: Path, server: str, token: str) -> None:
    """Write ``server``'s token into the credentials file (created with mode 0600,
    its folder 0700; other servers' entries kept), replacing the file atomically."""
    entries = read_credentials(path)
    entries[server] = token
    parser = configparser.ConfigParser(interpolation=None)
    for name, value in sorted(entries.items()):
        parser[name] = {"token": value}
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    descriptor, temporary = tempfile.mkstemp(prefix=".credentials-", dir=path.parent)
    try:
        with os.fdopen(descriptor, "w") as handle:  # mkstemp's file is mode 0600
            parser.write(handle)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def default_server_path() -> Path:
    """Where ``arena login`` records its server as the default one (may not exist)."""
    return credentials_path().parent / DEFAULT_SERVER_NAME


def stored_default_server() -> str | None:
    """The server ``arena login`` last made the default, or None (no file, an
    unreadable one, or one that holds no single HOST:PORT line)."""
    try:
        text = read_operator_file(default_server_path(), "default server file",
                                  MAX_SERVER_CHARS + 2).decode(errors="replace").strip()
    except ConfigError:
        return None
    if not text or len(text) > MAX_SERVER_CHARS or any(c.isspace() for c in text):
        return None
    return text


def store_default_server(server: str) -> None:
    """Make ``server`` the default of the commands without ``--server``."""
    path = default_server_path()
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    descriptor, temporary = tempfile.mkstemp(prefix=".default-server-", dir=path.parent)
    try:
        with os.fdopen(descriptor, "w") as handle:
            handle.write(server + "\n")
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
