"""Deal seeds committed before play and checked after it (docs/engine.md#commitments).

Before a series is played the public sees only ``seed_commitment(seed, nonce)``:
SHA-256 over a domain-separated encoding of the seed and a random nonce, so the
seed cannot be recovered from the commitment even when the seed space is small
(the nonce is 128 random bits). After the series the arena reveals the seed and the
nonce; anyone checks them with ``check_commitment`` and re-deals the stored event
log with ``check_revealed_deal`` (every deal of the log is the engine's deal of the
revealed seed, hand by hand).
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from typing import Any, Final

from engine.series import ReplayError, Series

COMMITMENT_DOMAIN: Final = b"hollywood-gin/deal-seed-commitment/v1"
"""Prefix of every committed message: a commitment is never a hash of anything else."""
NONCE_BYTES: Final = 16
_NONCE_TEXT: Final = re.compile(r"[0-9a-f]{32}")


class CommitmentError(ValueError):
    """A revealed seed and nonce that do not match their commitment or their log."""


def new_nonce() -> str:
    """A fresh random nonce (lowercase hex, 32 digits)."""
    return secrets.token_hex(NONCE_BYTES)


def new_nonces(count: int) -> list[str]:
    """``count`` fresh random nonces, as ``new_nonce`` makes them, from one draw of
    the system's randomness (a 999,000-series plan asks for as many)."""
    digits = 2 * NONCE_BYTES
    text = secrets.token_hex(NONCE_BYTES * count)
    return [text[start:start + digits] for start in range(0, len(text), digits)]


def seed_commitment(seed: int, nonce: str) -> str:
    """The commitment to ``seed`` with ``nonce``: lowercase hex SHA-256 of the domain,
    a NUL, the nonce's bytes, a NUL and the seed in decimal."""
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TypeError(f"a seed must be an int, got {type(seed).__name__}")
    if not isinstance(nonce, str) or not _NONCE_TEXT.fullmatch(nonce):
        raise ValueError(f"a nonce is 32 lowercase hex digits, got {nonce!r}")
    message = COMMITMENT_DOMAIN + b"\0" + bytes.fromhex(nonce) + b"\0" + str(seed).encode()
    return hashlib.sha256(message).hexdigest()


def check_commitment(commitment: str, seed: int, nonce: str) -> None:
    """Raise ``CommitmentError`` unless ``seed`` and ``nonce`` open ``commitment``."""
    try:
        expected = seed_commitment(seed, nonce)
    except (TypeError, ValueError) as error:
        raise CommitmentError(str(error)) from None
    if not hmac.compare_digest(expected, commitment.strip().lower()):
        raise CommitmentError(f"seed {seed} with nonce {nonce} does not open commitment "
                              f"{commitment} (it commits to {expected})")


def check_revealed_deal(log: list[dict[str, Any]], commitment: str, seed: int,
                        nonce: str) -> Series:
    """Check a played series against its commitment: ``seed`` and ``nonce`` open
    ``commitment``, the log was played on ``seed``, and replaying the log re-deals
    every hand from that seed (``Series.replay`` deals each hand from the seed and
    compares every logged event, both final hands included). Returns the replayed
    series; raises ``CommitmentError``."""
    check_commitment(commitment, seed, nonce)
    start = log[0] if log else None
    if not isinstance(start, dict) or start.get("seed") != seed:
        logged = start.get("seed") if isinstance(start, dict) else None
        raise CommitmentError(f"the log was played on seed {logged!r}, not the revealed {seed}")
    try:
        return Series.replay(log)
    except ReplayError as error:
        raise CommitmentError(f"the log does not re-deal from seed {seed}: {error}") from None
