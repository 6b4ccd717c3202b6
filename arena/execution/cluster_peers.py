"""Whom a cluster process talks to: the role a peer's certificate names
(``arena-<role>``, set by ``arena.execution.cluster_certs``), read on connections
a process accepts (``arena.execution.cluster_roles``) and checked in the TLS
handshake of those it opens.

The cluster's TLS checks no host names (Dask's default): any certificate of the CA
passes the handshake. So whoever holds a worker's certificate and can redirect
traffic could pose as the scheduler, and the arena's client would hand it every
series task (every author's bundle). ``role_checked_security`` is a ``Security``
that refuses, in the handshake, before a byte is sent, a peer whose certificate does not name a role
that process's role connects to: the arena's client only to the scheduler, a
worker to the scheduler and to other workers, the scheduler to workers.
"""

from __future__ import annotations

import functools
import logging
import ssl
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar, Final

if TYPE_CHECKING:
    from distributed import Security

log = logging.getLogger(__name__)

ROLE_PREFIX: Final = "arena-"
PEERS: Final[Mapping[str, frozenset[str]]] = {
    "client": frozenset({"scheduler"}),
    "worker": frozenset({"scheduler", "worker"}),
    "scheduler": frozenset({"worker"}),
}
"""The roles each role opens connections to."""


def role_of(peercert: object) -> str | None:
    """The cluster role named by a peer certificate's common name ``arena-<role>``
    (as ``ssl.SSLSocket.getpeercert`` gives it); None without one."""
    if not isinstance(peercert, dict):
        return None
    for rdn in peercert.get("subject", ()):
        for name, value in rdn:
            if name == "commonName" and isinstance(value, str) \
                    and value.startswith(ROLE_PREFIX):
                return value[len(ROLE_PREFIX):]
    return None


class PeerCheckingSocket(ssl.SSLSocket):
    """A TLS socket whose handshake fails unless the peer's certificate names one of
    ``expected`` roles."""

    expected: ClassVar[frozenset[str]] = frozenset()

    def do_handshake(self, block: bool = False) -> None:
        super().do_handshake(block)
        role = role_of(self.getpeercert())
        if role not in self.expected:
            why = (f"the peer's certificate names the role {role or 'none'!r}, not "
                   f"{' or '.join(repr(r) for r in sorted(self.expected))}")
            # Dask reports only "TLS certificate does not match": say which.
            log.error("refusing the TLS connection to %s: %s", self._peer(), why)
            # SSL_ERROR_SSL: Tornado then closes the stream as for a bad certificate.
            raise ssl.SSLCertVerificationError(ssl.SSL_ERROR_SSL, why)

    def _peer(self) -> str:
        try:
            return ":".join(str(part) for part in self.getpeername()[:2])
        except OSError:
            return "a peer"


def peer_checking_socket(expected: frozenset[str]) -> type[PeerCheckingSocket]:
    return type(f"PeerChecking{'_'.join(sorted(expected))}", (PeerCheckingSocket,),
                {"expected": expected})


def role_checked_security(**options: Any) -> Security:
    """Dask's ``Security(**options)``, its outgoing connections checking the peer's
    role (``PEERS``) in the TLS handshake."""
    return _role_checked_class()(**options)


@functools.cache
def _role_checked_class() -> type[Security]:
    from distributed import Security

    # No __slots__ here: Security reads its own (its fields) through self.__slots__.
    class RoleCheckedSecurity(Security):
        def get_connection_args(self, role: str) -> dict[str, Any]:
            args: dict[str, Any] = super().get_connection_args(role)  # type: ignore[no-untyped-call]
            context = args.get("ssl_context")
            if isinstance(context, ssl.SSLContext) and role in PEERS:
                context.sslsocket_class = peer_checking_socket(PEERS[role])
            return args

    return RoleCheckedSecurity
