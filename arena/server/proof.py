"""The server's side of ``ProveAdminToken``: a client that found the admin token next
to a database asks the server to prove that it holds it before sending it
(``arena.core.token_binding`` explains the proof). The server proves it only for an
address it listens on: a relayed challenge names the relay's address."""

from __future__ import annotations

from arena.core.token_binding import (
    MAX_ADDRESS_BYTES,
    MAX_CHALLENGE_BYTES,
    MIN_CHALLENGE_BYTES,
    ServerRecord,
    admin_token_proof,
)
from arena.server.lifecycle import RequestError


def prove_admin_token(admin_token: str, served: ServerRecord | None, address: str,
                      challenge: bytes) -> bytes:
    """The proof for ``challenge`` sent to ``address``; ``RequestError``
    (INVALID_ARGUMENT) for a challenge too short to be fresh or longer than any client
    sends, or an address that is not one of ``served`` (None: not listening yet)."""
    if not MIN_CHALLENGE_BYTES <= len(challenge) <= MAX_CHALLENGE_BYTES:
        raise RequestError(f"challenge must be {MIN_CHALLENGE_BYTES} to {MAX_CHALLENGE_BYTES} "
                           f"random bytes, not {len(challenge)}")
    if served is None or len(address.encode()) > MAX_ADDRESS_BYTES or not served.serves(address):
        listens = ", ".join(served.addresses) if served is not None else "nothing yet"
        raise RequestError(f"this server does not listen on {address or 'the address given'} "
                           f"(it listens on {listens}) and proves its token only for an "
                           "address it listens on")
    return admin_token_proof(admin_token, address, challenge)
