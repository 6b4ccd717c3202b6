"""Files an operator names on the command line (TLS certificates and keys, cluster
certificates, token files): read only when they are regular files, and only up to
a bound. A FIFO would hang the reader until someone writes to it, ``/dev/zero``
would be read until memory runs out, a folder or a socket cannot be read at all;
each is refused at once with an error that names the file and what it is."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Final

from arena.core.settings import ConfigError

MAX_PEM_BYTES: Final = 1024 * 1024
"""A certificate chain, a key or a CA bundle (the system's whole bundle is ~220 KB)."""
MAX_TOKEN_FILE_BYTES: Final = 64 * 1024
_KINDS: Final = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def kind_of(mode: int) -> str:
    """What a file of ``mode`` is, in words ("a FIFO (named pipe)", ...)."""
    for test, name in _KINDS:
        if test(mode):
            return name
    return "not a regular file"


def read_operator_file(path: Path, what: str, max_bytes: int) -> bytes:
    """The contents of the regular file at ``path`` (``what`` names it in errors:
    "TLS certificate", ...); ``ConfigError`` saying why for a file that is missing,
    unreadable, not a regular file, or larger than ``max_bytes``."""
    # O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer.
    try:
        descriptor = os.open(path.expanduser(),
                             os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    except OSError as error:
        raise ConfigError(f"cannot read the {what} {path}: {error.strerror or error}") from None
    try:
        mode = os.fstat(descriptor).st_mode
        if not stat.S_ISREG(mode):
            raise ConfigError(f"the {what} {path} is {kind_of(mode)}, not a regular file")
        chunks: list[bytes] = []
        size = 0
        while size <= max_bytes:
            chunk = os.read(descriptor, max_bytes + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as error:
        raise ConfigError(f"cannot read the {what} {path}: {error.strerror or error}") from None
    finally:
        os.close(descriptor)
    if size > max_bytes:
        raise ConfigError(f"the {what} {path} is larger than {max_bytes} bytes: "
                          "it cannot be the file meant")
    return b"".join(chunks)


def refuse_unless_regular(path: Path, what: str) -> None:
    """``ConfigError`` when something other than a regular file is at ``path`` (a
    database given as ``/dev/zero`` or a FIFO); nothing there is fine (it is made)."""
    try:
        mode = os.stat(path.expanduser()).st_mode
    except FileNotFoundError:
        return
    except OSError as error:
        raise ConfigError(f"cannot use the {what} {path}: {error.strerror or error}") from None
    if not stat.S_ISREG(mode):
        raise ConfigError(f"the {what} {path} is {kind_of(mode)}, not a regular file")
