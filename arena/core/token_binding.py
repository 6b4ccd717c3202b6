"""Which server a local admin token belongs to (issue 26: credentials go only where
they belong). ``arena serve`` writes its admin token next to its database; any
``arena`` command run from that folder finds it. So that it never reaches another
server, the server also records the addresses it serves on (``ServerRecord``, next
to the database), and before a client sends the token it asks the server to prove
that it holds it: an HMAC of the address the client dialed and a fresh random
challenge, keyed with the token (``admin_token_proof``), which only a holder of the
token can compute and which reveals nothing of it. A client sends the local admin
token only to a recorded address whose server passes the proof.

The record and the proof hold only addresses the server really listens on (issue
43): ``served_addresses`` is computed from the server's own listening sockets,
never from the host it was asked for (``--host localhost`` binds 127.0.0.1 alone
when another process holds ``[::1]:PORT``), and the server proves its token only
for an address of its record. Otherwise a server on an address the real one does
not hold could relay a client's challenge to the real one, pass on its proof, and
receive the token: the address inside the proof makes a relayed proof useless.

Also here: what counts as a loopback address (a token never crosses the network in
clear, ``arena.cli.client``)."""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import json
import os
import tempfile
from collections.abc import Callable, Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Final

PROOF_CONTEXT: Final = b"hollywood-arena: this server holds the admin token, v2\x00"
"""Keeps the proof's MAC apart from any other use of the token as a key."""
CHALLENGE_BYTES: Final = 32
MIN_CHALLENGE_BYTES: Final = 16
MAX_CHALLENGE_BYTES: Final = 64
MAX_ADDRESS_BYTES: Final = 300
RECORD_SUFFIX: Final = ".server.json"
_WILDCARD_HOSTS: Final = frozenset({"", "0.0.0.0", "::"})
_TARGET_PREFIXES: Final = ("dns:///", "dns:", "ipv4:", "ipv6:")


def admin_token_proof(token: str, address: str, challenge: bytes) -> bytes:
    """HMAC-SHA256 of ``address`` (the one the client dialed, length-prefixed) and
    ``challenge``, keyed with ``token`` (the server computes it, the client checks it)."""
    named = address.encode()
    if len(named) > MAX_ADDRESS_BYTES:
        raise ValueError(f"an address is at most {MAX_ADDRESS_BYTES} bytes")
    message = PROOF_CONTEXT + len(named).to_bytes(2, "big") + named + challenge
    return hmac.new(token.encode(), message, hashlib.sha256).digest()


def server_record_path_for(db_path: Path) -> Path:
    """Where the server on the database at ``db_path`` records its addresses:
    ``.arena/arena.db`` -> ``.arena/arena.server.json``."""
    return db_path.with_name(db_path.stem + RECORD_SUFFIX)


def host_and_port(target: str) -> tuple[str, int] | None:
    """A gRPC target's host (lower case, IPv6 without brackets) and port; None when
    it names no host:port (a Unix socket, a missing port)."""
    for prefix in _TARGET_PREFIXES:
        if target.startswith(prefix):
            target = target[len(prefix):]
            break
    if target.startswith("["):
        host, _, rest = target[1:].partition("]")
        port = rest[1:] if rest.startswith(":") else ""
    else:
        host, _, port = target.rpartition(":")
        if ":" in host:  # a bare IPv6 address has no port
            return None
    if not (port.isascii() and port.isdigit() and len(port) <= 5) or not host:
        return None
    return host.lower(), int(port)


def is_loopback_host(host: str) -> bool:
    """``localhost`` or a loopback IP (127.0.0.0/8, ::1). No name is resolved: a name
    could resolve anywhere, and resolving it already talks to the network."""
    host = host.strip("[]").lower()
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def is_loopback(target: str) -> bool:
    """Whether a gRPC target stays on this machine (loopback, or a Unix socket)."""
    if target.startswith(("unix:", "unix-abstract:")):
        return True
    where = host_and_port(target)
    return where is not None and is_loopback_host(where[0])


IpAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


def served_addresses(host: str, port: int, reachable: Collection[IpAddress],
                     resolve: Callable[[str], frozenset[IpAddress]]) -> list[str]:
    """The addresses clients on this machine may dial to reach a server on port
    ``port`` that listens on ``reachable`` (the loopback and other addresses its
    sockets take connections on): each of those addresses, and ``localhost`` and
    ``host`` when every address they ``resolve`` to is one of them (a client that
    dials a name may reach any of its addresses). Names first, then IPv4, IPv6."""
    names = [name for name in dict.fromkeys(("localhost", host.strip("[]").lower()))
             if _is_name(name) and (found := resolve(name)) and found <= set(reachable)]
    ordered = sorted(reachable, key=lambda a: (a.version, int(a)))
    texts = [*names, *(str(a) for a in ordered)]
    return [f"[{text}]:{port}" if ":" in text else f"{text}:{port}" for text in texts]


def _is_name(host: str) -> bool:
    if host in _WILDCARD_HOSTS:
        return False
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return True
    return False


@dataclass(frozen=True)
class ServerRecord:
    """What a server records next to its database for the clients of this folder."""

    addresses: tuple[str, ...]
    tls: bool

    def serves(self, target: str) -> bool:
        where = host_and_port(target)
        return where is not None and any(where == host_and_port(a) for a in self.addresses)


def write_server_record(path: Path, record: ServerRecord) -> None:
    """Replace the record atomically (a client never reads half of one)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor, temporary = tempfile.mkstemp(prefix=".server-", dir=path.parent)
    try:
        with os.fdopen(descriptor, "w") as handle:
            json.dump({"addresses": list(record.addresses), "tls": record.tls}, handle)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def read_server_record(path: Path) -> ServerRecord | None:
    """The record at ``path``; None when missing or unreadable (the token is then
    held back, which is the safe side)."""
    try:
        data = json.loads(path.read_text())
        addresses = tuple(str(a) for a in data["addresses"])
        return ServerRecord(addresses, bool(data.get("tls", False)))
    except (OSError, ValueError, KeyError, TypeError):
        return None
