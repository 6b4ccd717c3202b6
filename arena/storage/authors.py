"""Bot authors and their tokens.

A token is ``<author>.<secret>``: the author's name, in clear, says which row to
check, and only a salted scrypt hash of the secret is stored, compared in constant
time. A revoked author's token fails from the next call on (the author's row is
read on every call).

A scrypt check costs about 16 MiB and tens of milliseconds, so only a token that
can be right pays for one: a malformed token, an unknown or a revoked author is
refused without hashing (author names are public: every bot shows its owner); a
token that passed once is known by its SHA-256 (``_VERIFIED``, enough for a
256-bit random secret) as long as the author's stored hash is the same; and every
check runs on one of ``MAX_HASHES_AT_ONCE`` threads kept for it, whoever calls:
the memory scrypt takes stays with those threads (glibc keeps a freed block of
that size in the arena of the thread that used it, so hashing on every thread of
the server's pool would keep 16 MiB per thread).
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import threading
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Final

from arena.core.manifest import NAME_PATTERN
from arena.storage.records import ConflictError, NotFoundError, utc_now
from arena.storage.store import Storage

TOKEN_SEPARATOR: Final = "."
"""Between the author's name and the secret; neither a name nor a
``secrets.token_urlsafe`` secret (nor the admin token) ever holds one."""
_SALT_BYTES: Final = 16
# scrypt's cost: about 16 MiB and a few tens of milliseconds per check.
_SCRYPT_N: Final = 2**14
_SCRYPT_R: Final = 8
_SCRYPT_P: Final = 1
_HASH_BYTES: Final = 32
_SECRET_BYTES: Final = 32
SECRET_PATTERN: Final = re.compile(r"[A-Za-z0-9_-]{43}")
"""A ``secrets.token_urlsafe(_SECRET_BYTES)`` secret: 43 characters of base64url."""
MAX_HASHES_AT_ONCE: Final = 1
"""scrypt checks at once: 16 MiB each (a token that passed is remembered)."""
_HASHING = ThreadPoolExecutor(MAX_HASHES_AT_ONCE, thread_name_prefix="token-hash")
MAX_VERIFIED: Final = 1024
"""Tokens remembered as verified (the least recently used are forgotten)."""
_VERIFIED: OrderedDict[bytes, bytes] = OrderedDict()
"""SHA-256 of a token that passed -> the stored hash it passed against."""
_VERIFIED_LOCK = threading.Lock()


@dataclass(frozen=True)
class Author:
    """An author as stored (never its token)."""

    name: str
    created_at: str
    revoked_at: str
    bot_names: int

    @property
    def active(self) -> bool:
        return not self.revoked_at


class AuthorError(ValueError):
    """An author name that is not valid."""


def is_author_token(token: str) -> bool:
    """Whether ``token`` has the form of an author's token (else it can only be the
    admin's)."""
    return TOKEN_SEPARATOR in token


def secret_digest(secret: str, salt: bytes) -> bytes:
    """The stored form of a token's secret (the only place a token is hashed)."""
    return _HASHING.submit(hashlib.scrypt, secret.encode(), salt=salt, n=_SCRYPT_N,
                           r=_SCRYPT_R, p=_SCRYPT_P, dklen=_HASH_BYTES).result()


def add_author(storage: Storage, name: str) -> tuple[Author, str]:
    """Create author ``name`` (or give a revoked one a new token); returns the author
    and its token, which is not kept. ``ConflictError`` if ``name`` is an active
    author, ``AuthorError`` if it is not a valid name."""
    if not NAME_PATTERN.fullmatch(name):
        raise AuthorError(f"author name {name!r} must match [a-z0-9][a-z0-9-]{{0,31}} "
                          "(lower-case letters, digits and '-', at most 32 characters)")
    secret = secrets.token_urlsafe(_SECRET_BYTES)
    salt = secrets.token_bytes(_SALT_BYTES)
    digest = secret_digest(secret, salt)
    with storage.transaction() as db:
        row = db.execute("SELECT revoked_at FROM authors WHERE name=?", (name,)).fetchone()
        if row is not None and not row["revoked_at"]:
            raise ConflictError(f"author {name} exists already (revoke it first with "
                                f"`arena authors revoke {name}` to give it a new token)")
        db.execute("INSERT OR REPLACE INTO authors (name, token_salt, token_hash, created_at, "
                   "revoked_at) VALUES (?,?,?,?,'')", (name, salt, digest, utc_now()))
    return get_author(storage, name), f"{name}{TOKEN_SEPARATOR}{secret}"


def revoke_author(storage: Storage, name: str) -> Author:
    """Revoke ``name``'s token (``NotFoundError`` for an unknown author); revoking a
    revoked author changes nothing."""
    with storage.transaction() as db:
        db.execute("UPDATE authors SET revoked_at=? WHERE name=? AND revoked_at=''",
                   (utc_now(), name))
    return get_author(storage, name)


def list_authors(storage: Storage, after: tuple[str, str] | None = None,
                 limit: int | None = None) -> list[Author]:
    """Authors oldest first (by creation time, then name), after the author created
    at ``after[0]`` named ``after[1]`` (None: from the first), at most ``limit``."""
    created, name = after or ("", "")
    with storage.transaction() as db:
        rows = db.execute(_SELECT + " WHERE ?1 = 0 OR (a.created_at, a.name) > (?2, ?3) "
                          "ORDER BY a.created_at, a.name LIMIT ?4",
                          (after is not None, created, name,
                           -1 if limit is None else limit)).fetchall()
    return [Author(row["name"], row["created_at"], row["revoked_at"], row["owned"])
            for row in rows]


def get_author(storage: Storage, name: str) -> Author:
    with storage.transaction() as db:
        row = db.execute(_SELECT + " WHERE a.name=?", (name,)).fetchone()
    if row is None:
        raise NotFoundError(f"no author {name!r} (see `arena authors list`)")
    return Author(row["name"], row["created_at"], row["revoked_at"], row["owned"])


_SELECT: Final = ("SELECT a.name, a.created_at, a.revoked_at, "
                  "(SELECT COUNT(*) FROM bot_names n WHERE n.owner = a.name) AS owned "
                  "FROM authors a")


def token_stamp(storage: Storage, name: str) -> bytes | None:
    """The stored hash of author ``name``'s current token, None once it is revoked
    (or for an unknown author): what a website session is bound to, so that it
    ends when the token is revoked or replaced, at the cost of one row read."""
    with storage.transaction() as db:
        row = db.execute("SELECT token_hash, revoked_at FROM authors WHERE name=?",
                         (name,)).fetchone()
    if row is None or row["revoked_at"]:
        return None
    return bytes(row["token_hash"])


@dataclass(frozen=True)
class TokenCheck:
    """The outcome of checking an author token: the author, or why it failed."""

    author: str | None
    problem: str


def check_author_token(storage: Storage, token: str) -> TokenCheck:
    """Which author ``token`` belongs to, or why it is refused (malformed, unknown
    author, revoked, wrong secret); only the last costs a hash."""
    name, _, secret = token.partition(TOKEN_SEPARATOR)
    if not NAME_PATTERN.fullmatch(name):
        return TokenCheck(None, "malformed token: an author's token is <author>.<secret> "
                                "as `arena authors add` printed it")
    with storage.transaction() as db:
        row = db.execute("SELECT token_salt, token_hash, revoked_at FROM authors WHERE name=?",
                         (name,)).fetchone()
    if row is None:
        return TokenCheck(None, "the token names no known author")
    if not SECRET_PATTERN.fullmatch(secret):
        return TokenCheck(None, f"malformed token for author {name}: its secret is 43 "
                                "characters of A-Z a-z 0-9 _ - as `arena authors add` printed it")
    if row["revoked_at"]:
        return TokenCheck(None, f"the token of author {name} was revoked at "
                                f"{row['revoked_at']}")
    stored = bytes(row["token_hash"])
    known = hashlib.sha256(token.encode()).digest()
    with _VERIFIED_LOCK:
        passed = _VERIFIED.get(known)
        if passed is not None:
            _VERIFIED.move_to_end(known)
    if passed is not None and hmac.compare_digest(passed, stored):
        return TokenCheck(name, "")
    if not hmac.compare_digest(secret_digest(secret, bytes(row["token_salt"])), stored):
        return TokenCheck(None, f"wrong token for author {name}")
    with _VERIFIED_LOCK:
        _VERIFIED[known] = stored
        while len(_VERIFIED) > MAX_VERIFIED:
            _VERIFIED.popitem(last=False)
    return TokenCheck(name, "")
