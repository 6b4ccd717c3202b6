"""The cluster's certificates: ``make_cluster_certs`` makes a cluster CA and, signed
by it, one certificate per role (scheduler, worker, client: the arena that submits
series), for Dask's mutual TLS (``arena.execution.cluster_security``), and one for
the arena server's own TLS (``server``: ``arena serve --tls-cert``).

Only a holder of a certificate of this CA can join the cluster, in any role, so the
CA's key stays with the organiser (it signs nothing after this command) and each
machine gets only its role's certificate and key. Keys are EC P-256 and written
0600; certificates are valid ``days`` days (a year by default) and name
``localhost``, the loopback addresses and every ``hosts`` entry (DNS name or IP)
as subject alternative names.
"""

from __future__ import annotations

import datetime
import ipaddress
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Final

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

CA_CERT: Final = "ca.pem"
CA_KEY: Final = "ca-key.pem"
DASK_ROLES: Final = ("scheduler", "worker", "client")
"""The cluster's roles (Dask's mutual TLS)."""
ROLES: Final = (*DASK_ROLES, "server")
"""And the arena server's certificate for ``arena serve --tls-cert/--tls-key``, whose
clients trust ``ca.pem`` (``--tls-ca``)."""
DEFAULT_DAYS: Final = 365
LOOPBACK_NAMES: Final = ("localhost", "127.0.0.1", "::1")


def cert_file(role: str) -> str:
    return f"{role}.pem"


def key_file(role: str) -> str:
    return f"{role}-key.pem"


class CertificateError(RuntimeError):
    """Certificates cannot be made where asked; says why."""


def make_cluster_certs(directory: Path, hosts: Sequence[str] = (), *,
                       days: int = DEFAULT_DAYS, now: datetime.datetime | None = None) -> Path:
    """Write the CA and the three role certificates into ``directory`` (created 0700);
    refuses to overwrite a CA already there. Returns ``directory``."""
    if days < 1:
        raise CertificateError(f"certificates must be valid at least 1 day, not {days}")
    if (directory / CA_KEY).exists() or (directory / CA_CERT).exists():
        raise CertificateError(f"{directory} already holds a cluster CA; use it, or "
                               "choose another folder")
    names = _alternative_names(hosts)
    directory.mkdir(parents=True, exist_ok=True, mode=0o700)
    start = (now or datetime.datetime.now(datetime.UTC)) - datetime.timedelta(minutes=5)
    end = start + datetime.timedelta(days=days)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME,
                                            "Hollywood Gin Arena cluster CA")])
    ca = _builder(ca_name, ca_name, ca_key.public_key(), start, end).add_extension(
        x509.BasicConstraints(ca=True, path_length=0), critical=True).add_extension(
        x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True,
                      content_commitment=False, key_encipherment=False,
                      data_encipherment=False, key_agreement=False, encipher_only=False,
                      decipher_only=False), critical=True).add_extension(
        x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False
    ).sign(ca_key, _sha256())
    _write_key(directory / CA_KEY, ca_key)
    _write(directory / CA_CERT, ca.public_bytes(_pem()), 0o644)
    for role in ROLES:
        key = ec.generate_private_key(ec.SECP256R1())
        subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, f"arena-{role}")])
        cert = _builder(subject, ca_name, key.public_key(), start, end).add_extension(
            x509.BasicConstraints(ca=False, path_length=None), critical=True).add_extension(
            # Every role both listens and connects (workers talk to each other).
            x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH,
                                   ExtendedKeyUsageOID.CLIENT_AUTH]), critical=False
        ).add_extension(x509.SubjectAlternativeName(names), critical=False).add_extension(
            x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False
        ).add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(
            ca_key.public_key()), critical=False).sign(ca_key, _sha256())
        _write_key(directory / key_file(role), key)
        _write(directory / cert_file(role), cert.public_bytes(_pem()), 0o644)
    return directory


def _alternative_names(hosts: Sequence[str]) -> list[x509.GeneralName]:
    names: list[x509.GeneralName] = []
    for host in dict.fromkeys([*LOOPBACK_NAMES, *hosts]):
        try:
            names.append(x509.IPAddress(ipaddress.ip_address(host)))
        except ValueError:
            if not host or any(c.isspace() or c in "/:@" for c in host) or len(host) > 253:
                raise CertificateError(f"{host!r} is neither an IP address nor a host "
                                       "name") from None
            names.append(x509.DNSName(host))
    return names


def _builder(subject: x509.Name, issuer: x509.Name, public_key: ec.EllipticCurvePublicKey,
             start: datetime.datetime, end: datetime.datetime) -> x509.CertificateBuilder:
    return (x509.CertificateBuilder().subject_name(subject).issuer_name(issuer)
            .public_key(public_key).serial_number(x509.random_serial_number())
            .not_valid_before(start).not_valid_after(end))


def _sha256() -> hashes.SHA256:
    return hashes.SHA256()


def _pem() -> serialization.Encoding:
    return serialization.Encoding.PEM


def _write_key(path: Path, key: ec.EllipticCurvePrivateKey) -> None:
    data = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption())
    _write(path, data, 0o600)


def _write(path: Path, data: bytes, mode: int) -> None:
    # Created with its final mode: a key is never readable by others, not even briefly.
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    with os.fdopen(descriptor, "wb") as handle:
        handle.write(data)
    os.chmod(path, mode)
