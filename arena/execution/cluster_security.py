"""Who may join the cluster: Dask's mutual TLS with the cluster CA's certificates
(``arena.execution.cluster_certs``), and the rule that nothing listens or connects
beyond loopback without them.

``ClusterTLS.from_dir(DIR, role)`` reads a role's certificate, key and the CA from
a folder ``arena cluster certs`` made; ``security()`` is the
``distributed.Security`` every process of that role uses, with
``require_encryption``: a peer without a certificate of the same CA can neither
connect to nor be connected from it. ``exposure_check`` refuses a non-loopback
address without certificates unless ``--insecure`` asked for it (then it answers
the warning to print).
"""

from __future__ import annotations

import stat
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Final

from arena.core.settings import ConfigError
from arena.core.tls import TlsFiles, read_certificates
from arena.core.token_binding import is_loopback_host
from arena.execution.cluster_certs import CA_CERT, DASK_ROLES, cert_file, key_file
from arena.execution.cluster_peers import role_checked_security

if TYPE_CHECKING:
    from distributed import Security

LOOPBACK_HOST: Final = "127.0.0.1"
"""Where every listener of the cluster binds unless told otherwise."""


class ClusterSecurityError(RuntimeError):
    """Certificates missing or unusable, or an address refused without them."""


@dataclass(frozen=True)
class ClusterTLS:
    """One role's certificate and key, and the cluster CA that every peer must
    present a certificate of."""

    role: str
    ca: Path
    cert: Path
    key: Path

    @classmethod
    def from_dir(cls, directory: Path, role: str) -> ClusterTLS:
        """The ``role`` files in ``directory``; ``ClusterSecurityError`` naming a
        missing file or a key others can read."""
        if role not in DASK_ROLES:
            raise ClusterSecurityError(f"unknown cluster role {role!r}")
        tls = cls(role, directory / CA_CERT, directory / cert_file(role),
                  directory / key_file(role))
        made_by = ("--cluster-certs needs a folder made by `arena cluster certs` (ca.pem "
                   "and this machine's role certificate and key)")
        for path in (tls.ca, tls.cert, tls.key):
            if not path.exists():
                raise ClusterSecurityError(f"{path} is missing: {made_by}")
        if stat.S_IMODE(tls.key.stat().st_mode) & 0o077:
            raise ClusterSecurityError(f"{tls.key} can be read by other users; "
                                       f"`chmod 600 {tls.key}` first")
        # Read here, bounded, so that a FIFO or a device is named instead of hanging
        # Dask's TLS set-up, and a damaged file is named instead of failing a handshake.
        try:
            read_certificates(tls.ca, "cluster CA certificate")
            TlsFiles(tls.cert, tls.key).read()
        except ConfigError as error:
            raise ClusterSecurityError(f"{error}; {made_by}") from None
        return tls

    def security(self) -> Security:
        files = {f"tls_{self.role}_cert": str(self.cert), f"tls_{self.role}_key": str(self.key)}
        return role_checked_security(require_encryption=True, tls_ca_file=str(self.ca),
                                     **files)


def host_of(address: str) -> str:
    """The host of ``tls://HOST:PORT``, ``tcp://HOST:PORT``, ``HOST:PORT`` or ``HOST``."""
    rest = address.split("://", 1)[-1]
    if rest.startswith("["):
        return rest[1:rest.find("]")] if "]" in rest else rest
    return rest.rsplit(":", 1)[0] if rest.count(":") == 1 else rest


def exposure_check(what: str, address: str, tls: ClusterTLS | None, insecure: bool) -> str:
    """'' when ``address`` may be used: loopback, or certificates given; with
    ``insecure`` the warning to print for a non-loopback one without; else
    ``ClusterSecurityError`` saying how to fix it."""
    if tls is not None or is_loopback_host(host_of(address)):
        return ""
    if insecure:
        return (f"warning: {what} {address} without TLS (--insecure): any machine that "
                "can reach it may join the cluster, read bot code and forge results")
    raise ClusterSecurityError(
        f"refusing {what} {address} without TLS: give --cluster-certs DIR (made by `arena "
        "cluster certs DIR --host ...`), or --insecure on a network you trust")


def scheduler_address(address: str, tls: ClusterTLS | None) -> str:
    """``address`` with the protocol its security needs: ``tls://`` with
    certificates (a ``tcp://`` or bare address is upgraded), ``tcp://`` without."""
    scheme, _, rest = address.rpartition("://")
    if tls is not None:
        if scheme not in ("", "tcp", "tls"):
            raise ClusterSecurityError(f"{address}: the cluster speaks tls:// only")
        return f"tls://{rest}"
    if scheme == "tls":
        raise ClusterSecurityError(f"{address} is a TLS scheduler: give --cluster-certs DIR")
    return f"tcp://{rest}"
