"""Hostile callers of the token check (issue 25, point 3): a token names its author
in clear, so a malformed token, an unknown or a revoked author is refused without
the scrypt hash that a real check costs; failed checks are rate-limited per client
address, with a message saying when to retry, and other addresses are unaffected."""

from __future__ import annotations

import grpc
import pytest
from hollywood.arena.v1 import arena_pb2, arena_pb2_grpc

from arena.core.auth_limit import AuthLimits, FailedAuthLimiter
from arena.core.defaults import AUTH_METADATA_KEY
from arena.server.app import RunningServer
from arena.storage import add_author, authors, revoke_author

SECRET = "A" * 43
"""A well-formed secret (43 characters of base64url) that is nobody's."""


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def list_authors(address: str, token: str) -> grpc.RpcError | None:
    """Call ListAuthors (the admin's) with ``token``; the error, or None on success."""
    with grpc.insecure_channel(address) as channel:
        stub = arena_pb2_grpc.ArenaServiceStub(channel)
        try:
            stub.ListAuthors(arena_pb2.ListAuthorsRequest(),
                             metadata=[(AUTH_METADATA_KEY, f"Bearer {token}")], timeout=30)
        except grpc.RpcError as error:
            return error
    return None


@pytest.fixture
def hashes(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The secrets hashed from now on (a spy on the only hash of a token)."""
    seen: list[str] = []
    real = authors.secret_digest

    def spy(secret: str, salt: bytes) -> bytes:
        seen.append(secret)
        return real(secret, salt)

    monkeypatch.setattr(authors, "secret_digest", spy)
    return seen


def test_bogus_tokens_are_refused_without_hashing(
        server: RunningServer, hashes: list[str]) -> None:
    server.service.auth.limiter = FailedAuthLimiter(AuthLimits(burst=100))
    _, alice_token = add_author(server.storage, "alice")
    add_author(server.storage, "gone")
    revoke_author(server.storage, "gone")
    hashes.clear()
    bogus = {
        f"nobody.{SECRET}": "the token names no known author",
        "alice.short": "malformed token for author alice: its secret is 43 characters",
        f"alice.{SECRET}!": "malformed token for author alice",
        f"Alice Smith.{SECRET}": "malformed token: an author's token is <author>.<secret>",
        f".{SECRET}": "malformed token: an author's token is <author>.<secret>",
        f"gone.{SECRET}": "the token of author gone was revoked at",
        "x" * 4000 + "." + SECRET: "malformed token",
        "admin_" + SECRET: "wrong admin token",
    }
    for token, expected in bogus.items():
        error = list_authors(server.address, token)
        assert error is not None and error.code() == grpc.StatusCode.UNAUTHENTICATED, token
        assert expected in error.details(), (token, error.details())
    assert hashes == []
    # A token that could be right costs exactly one hash, wrong or right.
    error = list_authors(server.address, f"alice.{SECRET}")
    assert error is not None and "wrong token for author alice" in error.details()
    assert hashes == [SECRET]
    error = list_authors(server.address, alice_token)
    assert error is not None and error.code() == grpc.StatusCode.PERMISSION_DENIED
    assert hashes == [SECRET, alice_token.partition(".")[2]]


def test_a_token_that_passed_costs_no_hash_again_until_its_author_changes(
        server: RunningServer, hashes: list[str]) -> None:
    _, old = add_author(server.storage, "alice")
    hashes.clear()  # the hash stored by add_author
    for _ in range(3):
        error = list_authors(server.address, old)
        assert error is not None and error.code() == grpc.StatusCode.PERMISSION_DENIED
    assert len(hashes) == 1
    revoke_author(server.storage, "alice")
    error = list_authors(server.address, old)  # revoked at once, remembered or not
    assert error is not None and "the token of author alice was revoked" in error.details()
    _, new = add_author(server.storage, "alice")
    hashes.clear()  # the hash stored by add_author
    error = list_authors(server.address, old)  # it passed against the old hash only
    assert error is not None and "wrong token for author alice" in error.details()
    error = list_authors(server.address, new)
    assert error is not None and error.code() == grpc.StatusCode.PERMISSION_DENIED
    assert hashes == [old.partition(".")[2], new.partition(".")[2]]


def test_failed_checks_are_rate_limited_per_client_address(server: RunningServer) -> None:
    clock = FakeClock()
    # 3 failures at once, then one every 2 s.
    server.service.auth.limiter = FailedAuthLimiter(AuthLimits(burst=3, per_second=0.5), clock)
    ipv4 = f"127.0.0.1:{server.port}"
    ipv6 = f"[::1]:{server.port}"
    for _ in range(3):
        error = list_authors(ipv4, "wrong")
        assert error is not None and error.code() == grpc.StatusCode.UNAUTHENTICATED
    for token in ("wrong", server.token):  # even the right token waits: no guessing
        error = list_authors(ipv4, token)
        assert error is not None and error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert error.details() == ("too many failed token checks from ipv4:127.0.0.1: "
                                   "retry in 2 s")
    # Another address is not held up by this one's failures.
    assert list_authors(ipv6, server.token) is None
    error = list_authors(ipv6, "wrong")
    assert error is not None and error.code() == grpc.StatusCode.UNAUTHENTICATED
    clock.now += 1.5
    error = list_authors(ipv4, server.token)
    assert error is not None and "retry in 1 s" in error.details()  # 0.5 s left, rounded up
    clock.now += 0.5
    assert list_authors(ipv4, server.token) is None  # one failure refilled; success is free
    assert list_authors(ipv4, server.token) is None
    error = list_authors(ipv4, "wrong")
    assert error is not None and error.code() == grpc.StatusCode.UNAUTHENTICATED
    error = list_authors(ipv4, server.token)
    assert error is not None and error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED


def test_calls_without_a_token_are_not_counted_as_failures(server: RunningServer) -> None:
    server.service.auth.limiter = FailedAuthLimiter(AuthLimits(burst=1), FakeClock())
    with grpc.insecure_channel(server.address) as channel:
        stub = arena_pb2_grpc.ArenaServiceStub(channel)
        for _ in range(3):
            with pytest.raises(grpc.RpcError) as caught:
                stub.ListAuthors(arena_pb2.ListAuthorsRequest(), timeout=30)
            assert caught.value.code() == grpc.StatusCode.UNAUTHENTICATED
    assert list_authors(server.address, server.token) is None


def test_the_limiter_forgets_forgiven_clients_first_when_full(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from arena.core import auth_limit

    monkeypatch.setattr(auth_limit, "MAX_CLIENTS", 2)
    clock = FakeClock()
    limiter = FailedAuthLimiter(AuthLimits(burst=2, per_second=1.0), clock)
    limiter.failed("old")
    clock.now += 5  # "old" is forgiven (its bucket is full again)
    limiter.failed("owing")
    limiter.failed("owing")
    limiter.failed("new")
    assert limiter.retry_after("owing") == pytest.approx(1.0)
    assert limiter.retry_after("old") is None and limiter.retry_after("new") is None


def test_auth_limits_refuse_nonsense() -> None:
    with pytest.raises(ValueError, match="burst >= 1 and per_second > 0"):
        AuthLimits(burst=0)
    with pytest.raises(ValueError, match="burst >= 1 and per_second > 0"):
        AuthLimits(per_second=0)


def test_guesses_sent_at_once_overdraw_the_bucket_and_are_paid_for() -> None:
    clock = FakeClock()
    limiter = FailedAuthLimiter(AuthLimits(burst=2, per_second=1.0), clock)
    for _ in range(5):  # five guesses checked at once, before any had failed
        limiter.failed("flooder")
    # Overdrawn to -2 (a second burst at most): 3 s until one guess is allowed.
    assert limiter.retry_after("flooder") == pytest.approx(3.0)
    clock.now += 3.0
    assert limiter.retry_after("flooder") is None
