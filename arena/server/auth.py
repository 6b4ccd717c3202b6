"""Who is calling: the admin (the server's admin token) or an author (a token from
``AddAuthor``, checked against its stored hash on every call, so a revoked token
fails at once). Reads need neither. Failed token checks are rate-limited per client
address (``arena.core.auth_limit``)."""

from __future__ import annotations

import hmac
from dataclasses import dataclass

import grpc

from arena.core.auth_limit import (
    AuthLimits,
    FailedAuthLimiter,
    retry_message,
)
from arena.core.defaults import AUTH_METADATA_KEY
from arena.core.peers import client_of
from arena.storage import ADMIN_OWNER, Storage, check_author_token, is_author_token

NO_TOKEN = (
    "this call changes the arena and needs a token: send metadata 'authorization: "
    "Bearer <token>' (the admin token is in admin.token next to the server's database; "
    "an author's token comes from `arena authors add`)")


@dataclass(frozen=True)
class Caller:
    """An authenticated caller: the admin, or the author ``author``."""

    author: str

    @property
    def is_admin(self) -> bool:
        return self.author == ADMIN_OWNER


ADMIN = Caller(ADMIN_OWNER)


class Authenticator:
    """Checks the token of a call."""

    def __init__(self, storage: Storage, admin_token: str,
                 limiter: FailedAuthLimiter | None = None) -> None:
        self._storage = storage
        self._admin_token = admin_token
        self.limiter = limiter or FailedAuthLimiter(AuthLimits())

    def caller(self, context: grpc.ServicerContext) -> Caller:
        """The caller, or abort with UNAUTHENTICATED saying why."""
        presented = ""
        for key, value in context.invocation_metadata():
            if key == AUTH_METADATA_KEY:
                presented = value if isinstance(value, str) else value.decode(errors="replace")
        scheme, _, token = presented.partition(" ")
        token = token.strip()
        if scheme.lower() != "bearer" or not token:
            context.abort(grpc.StatusCode.UNAUTHENTICATED, NO_TOKEN)
        client = client_of(context.peer())
        wait = self.limiter.retry_after(client)
        if wait is not None:
            context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, retry_message(client, wait))
        if is_author_token(token):
            check = check_author_token(self._storage, token)
            if check.author is not None:
                return Caller(check.author)
            problem = check.problem
        elif hmac.compare_digest(token.encode(), self._admin_token.encode()):
            return ADMIN
        else:
            problem = "wrong admin token"
        self.limiter.failed(client)
        context.abort(grpc.StatusCode.UNAUTHENTICATED, problem)
        raise AssertionError("unreachable: context.abort raises")

    def optional_caller(self, context: grpc.ServicerContext) -> Caller | None:
        """The caller of a call that anyone may make, when it carries a token (None
        without one); a token that does not check out aborts as in ``caller``."""
        if not any(key == AUTH_METADATA_KEY for key, _ in context.invocation_metadata()):
            return None
        return self.caller(context)

    def check(self, context: grpc.ServicerContext) -> None:
        """Abort unless the call carries a valid token (any role)."""
        self.caller(context)

    def admin(self, context: grpc.ServicerContext) -> Caller:
        """The admin, or abort: UNAUTHENTICATED without a valid token,
        PERMISSION_DENIED for an author."""
        caller = self.caller(context)
        if not caller.is_admin:
            context.abort(grpc.StatusCode.PERMISSION_DENIED,
                          f"author {caller.author} may only submit its own bots: this call "
                          "needs the admin token")
        return caller
