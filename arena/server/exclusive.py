"""One server per database and per port.

Two servers on one database would each resume its running seasons and play them
twice; two servers on one port (gRPC turns SO_REUSEPORT on by default) would answer
clients at random. ``DatabaseLock`` holds an exclusive lock on ``<db>.lock`` for
the server's lifetime (released by the kernel if the process dies, so a kill -9
never leaves a stale lock); ``listeners_of`` names the process holding a port.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import socket
from pathlib import Path


class ServerConflictError(RuntimeError):
    """Another live server holds the database or the port; the message names it."""


class DatabaseLock:
    """An exclusive lock on a database for the lifetime of one server."""

    def __init__(self, db_path: Path) -> None:
        self.path = db_path.with_name(db_path.name + ".lock")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(descriptor, 64, 0).decode(errors="replace").strip()
            os.close(descriptor)
            who = f"pid {holder}" if holder.isdigit() else "another process"
            raise ServerConflictError(
                f"the database {db_path} is in use by another arena server ({who}); stop "
                "it, or give this one another --db") from None
        os.ftruncate(descriptor, 0)
        os.pwrite(descriptor, f"{os.getpid()}\n".encode(), 0)
        self._descriptor: int | None = descriptor

    def release(self) -> None:
        if self._descriptor is not None:
            with contextlib.suppress(OSError):
                os.ftruncate(self._descriptor, 0)
            os.close(self._descriptor)
            self._descriptor = None


def listeners_of(port: int) -> list[int]:
    """Pids of the processes with a TCP socket listening on ``port`` (Linux /proc;
    empty where that cannot be read)."""
    inodes: set[str] = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(OSError):
            for line in Path(table).read_text().splitlines()[1:]:
                fields = line.split()
                local, state, inode = fields[1], fields[3], fields[9]
                if state == "0A" and int(local.rsplit(":", 1)[1], 16) == port:
                    inodes.add(inode)
    pids: list[int] = []
    if not inodes:
        return pids
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError):
            for descriptor in (entry / "fd").iterdir():
                target = os.readlink(descriptor)
                if target.startswith("socket:[") and target[8:-1] in inodes:
                    pids.append(int(entry.name))
                    break
    return sorted(pids)


def port_taken(host: str, port: int) -> bool:
    """Whether binding ``host:port`` fails because the address is in use (rather than,
    say, an address this machine does not have)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError:
        return False
    for family, kind, protocol, _, address in infos:
        with socket.socket(family, kind, protocol) as probe:
            try:
                probe.bind(address)
            except OSError as error:
                if error.errno == errno.EADDRINUSE:
                    return True
    return False


def port_in_use_message(address: str, port: int) -> str:
    holders = listeners_of(port)
    who = (f"held by pid {', '.join(map(str, holders))}" if holders
           else "in use by another process")
    return f"cannot listen on {address}: port {port} is {who}; stop it or choose another --port"
