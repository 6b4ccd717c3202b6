"""Who is signed in to the website: sessions opened with an author's token (or the
admin's), kept in the web server's memory (a restart signs everyone out).

A session is a random id in an HttpOnly, SameSite=Strict cookie; what it stands
for stays here: the author, a CSRF token for its forms, when it expires, and the
stored hash of the token it was opened with (``token_stamp``). Each request
compares that hash with the author's row, so revoking the token (or giving the
author a new one) ends the session at its next request, without hashing again.
The clock is injectable so that tests need no sleeps."""

from __future__ import annotations

import hmac
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Final

from arena.storage import ADMIN_OWNER, Storage, check_author_token, is_author_token, token_stamp

SESSION_SECONDS: Final = 12 * 3600
"""A session's life from its sign-in, whatever it does meanwhile."""
MAX_SESSIONS: Final = 10_000
"""Sessions kept at most; the oldest is forgotten first (it signs in again)."""
_ADMIN_STAMP: Final = b"admin"
"""The admin token is not stored in the database: the server's, for its life."""


@dataclass(frozen=True)
class Viewer:
    """A signed-in visitor: an author, or the admin (``author`` is ``ADMIN_OWNER``),
    with the CSRF token every form of its session carries."""

    author: str
    csrf: str

    @property
    def is_admin(self) -> bool:
        return self.author == ADMIN_OWNER

    def may_see(self, owner: str) -> bool:
        """Whether this viewer sees the owner-only data of a bot owned by ``owner``
        (``ADMIN_OWNER``: the admin's bots): its owner's, and the admin sees all."""
        return self.is_admin or owner == self.author


current_viewer: ContextVar[Viewer | None] = ContextVar("current_viewer", default=None)
"""The viewer of the request being answered (set by ``arena.web.signin``)."""


@dataclass(frozen=True)
class _Session:
    viewer: Viewer
    stamp: bytes
    expires: float


@dataclass(frozen=True)
class SignInResult:
    """A new session's id and viewer, or why the token was refused."""

    session_id: str
    viewer: Viewer | None
    problem: str


class SessionStore:
    """The open sessions over ``storage``'s authors; ``admin_token`` (None: the
    admin cannot sign in here) is the server's."""

    def __init__(self, storage: Storage, admin_token: str | None = None,
                 clock: Callable[[], float] = time.monotonic,
                 seconds: float = SESSION_SECONDS) -> None:
        self._storage = storage
        self._admin_token = admin_token
        self._clock = clock
        self.seconds = seconds
        self._lock = threading.Lock()
        self._sessions: OrderedDict[str, _Session] = OrderedDict()

    def sign_in(self, token: str) -> SignInResult:
        """A new session for ``token`` (its check may cost a scrypt hash: call it
        off the event loop), or the reason it is refused."""
        token = token.strip()
        if not token:
            return SignInResult("", None, "no token given: paste the token `arena authors "
                                          "add` printed")
        if is_author_token(token):
            check = check_author_token(self._storage, token)
            if check.author is None:
                return SignInResult("", None, check.problem)
            stamp = token_stamp(self._storage, check.author)
            if stamp is None:  # revoked between the two reads
                return SignInResult("", None, f"the token of author {check.author} was revoked")
            author = check.author
        elif self._admin_token is not None and hmac.compare_digest(
                token.encode(), self._admin_token.encode()):
            author, stamp = ADMIN_OWNER, _ADMIN_STAMP
        else:
            return SignInResult("", None, "wrong admin token")
        session_id = secrets.token_urlsafe(32)
        viewer = Viewer(author, secrets.token_urlsafe(32))
        with self._lock:
            self._sessions[session_id] = _Session(viewer, stamp, self._clock() + self.seconds)
            while len(self._sessions) > MAX_SESSIONS:
                self._sessions.popitem(last=False)
        return SignInResult(session_id, viewer, "")

    def viewer(self, session_id: str) -> Viewer | None:
        """The viewer of session ``session_id``, None (and the session ended) once
        it expired or its token was revoked or replaced."""
        with self._lock:
            session = self._sessions.get(session_id)
        if session is None:
            return None
        if self._clock() >= session.expires or not self._stamp_holds(session):
            self.sign_out(session_id)
            return None
        return session.viewer

    def _stamp_holds(self, session: _Session) -> bool:
        if session.viewer.is_admin:
            return True
        stamp = token_stamp(self._storage, session.viewer.author)
        return stamp is not None and hmac.compare_digest(stamp, session.stamp)

    def sign_out(self, session_id: str) -> None:
        with self._lock:
            self._sessions.pop(session_id, None)
