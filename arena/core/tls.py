"""TLS files: a server's certificate chain and key (``arena serve --tls-cert
--tls-key``), a client's CA (``--tls-ca``). Read once, at start, as operator files
(``arena.core.operator_files``: regular files only, bounded), and parsed before
anything uses them, so a wrong file is named with its problem rather than
reported by gRPC as "Failed to bind to address"."""

from __future__ import annotations

import ssl
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from arena.core.operator_files import MAX_PEM_BYTES, read_operator_file
from arena.core.settings import ConfigError

PEM_BEGIN: Final = b"-----BEGIN "
_ENCRYPTED_MARKS: Final = (b"ENCRYPTED PRIVATE KEY", b"Proc-Type: 4,ENCRYPTED")


def read_pem(path: Path, what: str) -> bytes:
    """The PEM file at ``path`` (``what`` names it in errors: "certificate", ...)."""
    data = read_operator_file(path, f"TLS {what}", MAX_PEM_BYTES)
    if PEM_BEGIN not in data:
        raise ConfigError(f"the TLS {what} {path} is not a PEM file (no '-----BEGIN' line)")
    return data


def read_certificates(path: Path, what: str) -> bytes:
    """The PEM certificates at ``path``, each checked to parse; ``ConfigError``
    naming the file otherwise."""
    data = read_pem(path, what)
    try:
        ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT).load_verify_locations(
            cadata=data.decode("ascii"))
    except (ssl.SSLError, UnicodeDecodeError, ValueError) as error:
        raise ConfigError(f"the TLS {what} {path} holds no valid PEM certificate "
                          f"({_reason(error)})") from None
    return data


def _reason(error: Exception) -> str:
    if isinstance(error, ssl.SSLError) and error.reason:
        return str(error.reason).replace("_", " ").lower()
    if isinstance(error, UnicodeDecodeError):
        return "it is not text"
    return str(error)


@dataclass(frozen=True)
class TlsFiles:
    """A server's certificate (chain) and private key, PEM."""

    cert: Path
    key: Path

    def read(self) -> tuple[bytes, bytes]:
        """(certificate chain, key); ``ConfigError`` naming a missing or bad file, or
        a key that is encrypted or does not belong to the certificate."""
        chain = read_certificates(self.cert, "certificate")
        key = read_pem(self.key, "key")
        if b"PRIVATE KEY-----" not in key:
            raise ConfigError(f"the TLS key {self.key} holds no private key (no "
                              "'-----BEGIN ... PRIVATE KEY-----' line)")
        if any(mark in key for mark in _ENCRYPTED_MARKS):
            raise ConfigError(f"the TLS key {self.key} is encrypted: the server needs it "
                              "unencrypted (readable by its user only)")
        try:
            # Both files were just checked to be small regular files.
            ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER).load_cert_chain(
                self.cert.expanduser(), self.key.expanduser(), password=_no_password)
        except (ssl.SSLError, OSError) as error:
            raise ConfigError(f"the TLS key {self.key} is not a private key of the "
                              f"certificate {self.cert} ({_reason(error)})") from None
        return chain, key


def _no_password() -> bytes:
    """Never ask for a password on the terminal (an encrypted key is refused above)."""
    return b""
