"""Which addresses this server really takes connections on, read from its own
listening sockets (``arena.core.token_binding`` records them, and the server proves
its admin token for them only).

The host a server is asked for says too little: gRPC binds ``localhost`` to
127.0.0.1 alone when another process holds ``[::1]:PORT`` (it only warns), and binds
``0.0.0.0`` as a dual-stack ``[::]``. So the server looks at the TCP sockets of its
own process (``/proc/self/fd``) that listen on its port: a specific address is
itself (an IPv4 address mapped into IPv6 is that IPv4 address); a wildcard stands
for the loopback addresses it takes (``0.0.0.0``: 127.0.0.1; ``::``: ::1, and
127.0.0.1 unless the socket is IPv6-only). Where ``/proc`` cannot be read nothing
is found, and the local admin token is then held back: the safe side.
"""

from __future__ import annotations

import contextlib
import ipaddress
import os
import socket
from collections.abc import Collection
from typing import Final

from arena.core.token_binding import IpAddress

FD_FOLDER: Final = "/proc/self/fd"
IPV4_LOOPBACK: Final = ipaddress.IPv4Address("127.0.0.1")
IPV6_LOOPBACK: Final = ipaddress.IPv6Address("::1")


def reachable_addresses(port: int) -> frozenset[IpAddress]:
    """The addresses this process's TCP sockets listening on ``port`` take
    connections on (see the module)."""
    found: set[IpAddress] = set()
    try:
        descriptors = os.listdir(FD_FOLDER)
    except OSError:
        return frozenset()
    for name in descriptors:
        with contextlib.suppress(OSError, ValueError):
            if os.readlink(f"{FD_FOLDER}/{name}").startswith("socket:["):
                found |= _reached_through(int(name), port)
    return frozenset(found)


def _reached_through(descriptor: int, port: int) -> set[IpAddress]:
    """What the socket ``descriptor`` (a copy of it: the original stays gRPC's)
    takes connections on when it listens on ``port``."""
    copy = os.dup(descriptor)
    try:
        listener = socket.socket(fileno=copy)
    except OSError:  # closed and reused for something else since it was listed
        os.close(copy)
        raise
    with listener:
        return _reached_by(listener, port)


def _reached_by(listener: socket.socket, port: int) -> set[IpAddress]:
    if (listener.family not in (socket.AF_INET, socket.AF_INET6)
            or listener.type != socket.SOCK_STREAM
            or not listener.getsockopt(socket.SOL_SOCKET, socket.SO_ACCEPTCONN)):
        return set()
    host, bound_port = listener.getsockname()[:2]
    if bound_port != port:
        return set()
    address = ipaddress.ip_address(str(host).partition("%")[0])
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    if not address.is_unspecified:
        return {address}
    if isinstance(address, ipaddress.IPv4Address):
        return {IPV4_LOOPBACK}
    v6_only = listener.getsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY)
    return {IPV6_LOOPBACK} if v6_only else {IPV6_LOOPBACK, IPV4_LOOPBACK}


def resolve(name: str) -> frozenset[IpAddress]:
    """The addresses a client on this machine may reach when it dials ``name``
    (none if it does not resolve): the system's answer, and for ``localhost`` both
    loopback addresses whatever /etc/hosts says, since gRPC's resolver (c-ares)
    gives both and a client tries each."""
    found: set[IpAddress] = set()
    if name == "localhost" or name.endswith(".localhost"):
        found |= {IPV4_LOOPBACK, IPV6_LOOPBACK}
    try:
        infos = socket.getaddrinfo(name, None, type=socket.SOCK_STREAM)
    except OSError:
        return frozenset(found)
    for *_, sockaddr in infos:
        with contextlib.suppress(ValueError):
            found.add(ipaddress.ip_address(str(sockaddr[0]).partition("%")[0]))
    return frozenset(found)


def unbound(host: str, reachable: Collection[IpAddress]) -> list[IpAddress]:
    """The addresses a named ``host`` resolves to that the server's sockets do not
    take (gRPC binds what it can and only warns in its own log); none for an IP
    address or a wildcard, which gRPC binds whole or not at all."""
    bare = host.strip("[]").lower()
    try:
        ipaddress.ip_address(bare)
    except ValueError:
        return sorted(resolve(bare) - set(reachable), key=lambda a: (a.version, int(a)))
    return []
