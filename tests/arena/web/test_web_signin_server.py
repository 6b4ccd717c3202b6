"""Signing in to the website of a running arena server (issue 36, point 4), over
real HTTP and gRPC: the admin signs in with the server's admin token; an author's
session ends when the admin revokes the author over the API; failed sign-ins and
failed API token checks count against one limit per client address; under TLS the
session cookie is Secure and ``__Host-`` named."""

from __future__ import annotations

import re
import ssl
from pathlib import Path

import grpc
import httpx2
import pytest
from hollywood.arena.v1 import arena_pb2, arena_pb2_grpc

from arena.core.tls import TlsFiles
from arena.server.app import RunningServer, start_server
from tests.helpers.servers import ServerFactory
from tests.helpers.tls_helpers import make_certificates

LOCAL = "127.0.0.1"


@pytest.fixture
def running(serve: ServerFactory) -> RunningServer:
    return serve(runner=None, host=LOCAL, resume=False, http=(LOCAL, 0))


def web_url(running: RunningServer) -> str:
    assert running.web is not None
    return running.web.url


def sign_in(client: httpx2.Client, token: str) -> httpx2.Response:
    form = client.get("/signin").text
    found = re.search(r'id="signin-form">\s*<input type="hidden" name="csrf" value="([^"]+)"',
                      form)
    assert found is not None
    return client.post("/signin", data={"csrf": found.group(1), "token": token, "next": "/"},
                       headers={"origin": str(client.base_url).rstrip("/")})


def signed_in_as(client: httpx2.Client) -> str | None:
    found = re.search(r'<span id="signed-in-as">([^<]*)</span>', client.get("/").text)
    return None if found is None else found.group(1)


def call(running: RunningServer, method: str, request: object, token: str) -> object:
    with grpc.insecure_channel(running.address) as channel:
        stub = arena_pb2_grpc.ArenaServiceStub(channel)
        return getattr(stub, method)(request, metadata=[("authorization", f"Bearer {token}")],
                                     timeout=30)


def test_the_admin_signs_in_and_a_revoked_author_is_signed_out(
        running: RunningServer) -> None:
    with httpx2.Client(base_url=web_url(running)) as admin:
        assert sign_in(admin, running.token).status_code == 303
        assert signed_in_as(admin) == "the admin"
    added = call(running, "AddAuthor", arena_pb2.AddAuthorRequest(name="ann"), running.token)
    token = added.token  # type: ignore[attr-defined]
    with httpx2.Client(base_url=web_url(running)) as ann:
        assert sign_in(ann, token).status_code == 303 and signed_in_as(ann) == "ann"
        call(running, "RevokeAuthor", arena_pb2.RevokeAuthorRequest(name="ann"), running.token)
        assert signed_in_as(ann) is None


def test_failed_sign_ins_and_failed_api_checks_share_one_limit(
        running: RunningServer) -> None:
    burst = running.service.auth.limiter.limits.burst
    with httpx2.Client(base_url=web_url(running)) as client:
        for _ in range(burst):
            assert sign_in(client, "admin_wrong").status_code == 401
        refused = sign_in(client, running.token)
        assert refused.status_code == 429
        assert f"too many failed token checks from ipv4:{LOCAL}" in refused.text
    # The API refuses the same address now, the right admin token too.
    with pytest.raises(grpc.RpcError) as caught:
        call(running, "WhoAmI", arena_pb2.WhoAmIRequest(), running.token)
    assert caught.value.code() is grpc.StatusCode.RESOURCE_EXHAUSTED


def test_under_tls_the_session_cookie_is_secure_and_host_only(tmp_path: Path) -> None:
    certificates = make_certificates(tmp_path / "tls")
    running = start_server(tmp_path / "arena.db", host="localhost", port=0, resume=False,
                           http=("localhost", 0),
                           tls=TlsFiles(certificates.cert, certificates.key))
    try:
        url = web_url(running)
        assert url.startswith("https://")
        trust = ssl.create_default_context(cafile=str(certificates.ca))
        with httpx2.Client(base_url=url, verify=trust) as admin:
            response = sign_in(admin, running.token)
            assert response.status_code == 303
            [session] = [value for key, value in response.headers.multi_items()
                         if key == "set-cookie" and value.startswith("__Host-arena-session=")]
            flags = [flag.strip().lower() for flag in session.split(";")[1:]]
            assert {"httponly", "secure", "path=/", "samesite=strict", "max-age=43200"} <= set(
                flags)
            assert signed_in_as(admin) == "the admin"
    finally:
        running.stop()
