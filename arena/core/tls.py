"""TLS files: a server's certificate chain and key (``arena serve --tls-cert
--tls-key``), a client's CA (``--tls-ca``). Read once, at start, with errors that
name the file."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from arena.core.settings import ConfigError

PEM_BEGIN = b"-----BEGIN "


def read_pem(path: Path, what: str) -> bytes:
    """The PEM file at ``path`` (``what`` names it in errors: "certificate", ...)."""
    try:
        data = path.expanduser().read_bytes()
    except OSError as error:
        raise ConfigError(f"cannot read the TLS {what} {path}: "
                          f"{error.strerror or error}") from None
    if PEM_BEGIN not in data:
        raise ConfigError(f"the TLS {what} {path} is not a PEM file (no '-----BEGIN' line)")
    return data


@dataclass(frozen=True)
class TlsFiles:
    """A server's certificate (chain) and private key, PEM."""

    cert: Path
    key: Path

    def read(self) -> tuple[bytes, bytes]:
        """(certificate chain, key); ``ConfigError`` naming a missing or bad file."""
        return read_pem(self.cert, "certificate"), read_pem(self.key, "key")
