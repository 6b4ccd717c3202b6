"""The server's side of ``ProveAdminToken``: a client that found the admin token next
to a database asks the server to prove that it holds it before sending it
(``arena.core.token_binding`` explains the proof)."""

from __future__ import annotations

from arena.core.token_binding import (
    MAX_CHALLENGE_BYTES,
    MIN_CHALLENGE_BYTES,
    admin_token_proof,
)
from arena.server.lifecycle import RequestError


def prove_admin_token(admin_token: str, challenge: bytes) -> bytes:
    """The proof for ``challenge``; ``RequestError`` (INVALID_ARGUMENT) for a
    challenge too short to be fresh or longer than any client sends."""
    if not MIN_CHALLENGE_BYTES <= len(challenge) <= MAX_CHALLENGE_BYTES:
        raise RequestError(f"challenge must be {MIN_CHALLENGE_BYTES} to {MAX_CHALLENGE_BYTES} "
                           f"random bytes, not {len(challenge)}")
    return admin_token_proof(admin_token, challenge)
