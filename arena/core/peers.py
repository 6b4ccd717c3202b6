"""Which client a gRPC call comes from, as the server's per-client limits count them
(failed token checks, ``arena.core.auth_limit``; open streams,
``arena.server.stream_limits``).

gRPC names a call's peer ``ipv4:203.0.113.7:5000``, ``ipv6:[2001:db8::1]:5000`` or,
in the versions this arena runs, percent-encoded: ``ipv6:%5B2001:db8::1%5D:5000``;
a Unix-socket peer is ``unix:PATH``. A client is the address without its port, and
an IPv6 address stands for its /64 network: one host commonly holds a whole /64, so
counting its addresses apart would give it 2^64 allowances. An IPv4 address mapped
into IPv6 (``::ffff:203.0.113.7``, a dual-stack server's IPv4 clients) is that IPv4
address; every Unix-socket peer is one client (they are all on this machine).
"""

from __future__ import annotations

import ipaddress
from typing import Final
from urllib.parse import unquote

IPV6_NETWORK_BITS: Final = 64
UNIX_CLIENT: Final = "unix"
MAX_UNKNOWN_CHARS: Final = 100
"""A peer string of a kind gRPC never sent is kept as the key, cut to this length."""


def client_of(peer: str) -> str:
    """The key of the client behind a gRPC peer string (see the module):
    ``ipv4:ADDRESS``, ``ipv6:[NETWORK/64]``, ``ipv6:[::1]``, ``unix``; an address
    that does not parse stands for itself."""
    kind, _, rest = peer.partition(":")
    if kind in ("unix", "unix-abstract"):
        return UNIX_CLIENT
    if kind not in ("ipv4", "ipv6"):
        return peer[:MAX_UNKNOWN_CHARS]
    host = _host_of(unquote(rest))
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return f"{kind}:{host}"[:MAX_UNKNOWN_CHARS]
    return _client_of_address(address)


def _host_of(text: str) -> str:
    """The address of ``[ADDRESS]:PORT``, ``ADDRESS:PORT`` or a bare address."""
    if text.startswith("["):
        return text[1:].partition("]")[0]
    if text.count(":") > 1:  # an IPv6 address without brackets, perhaps with a port
        try:
            ipaddress.IPv6Address(text)
        except ValueError:
            return text.rpartition(":")[0]
        return text
    return text.partition(":")[0]


def _client_of_address(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> str:
    if isinstance(address, ipaddress.IPv4Address):
        return f"ipv4:{address}"
    if address.ipv4_mapped is not None:
        return f"ipv4:{address.ipv4_mapped}"
    unscoped = ipaddress.IPv6Address(int(address))  # fe80::1%eth0: the zone is no host
    if unscoped.is_loopback:
        return f"ipv6:[{unscoped}]"
    network = ipaddress.IPv6Network((unscoped, IPV6_NETWORK_BITS), strict=False)
    return f"ipv6:[{network}]"
