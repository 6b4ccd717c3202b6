"""Signing in to the website with an author's token, and out: the only POST routes
of the site, and they change no stored data (a session lives in memory).

Every POST is refused unless it comes from this site: its ``Origin`` (and
``Sec-Fetch-Site``), when the browser sends them, name this site, and its form
carries the CSRF token of the session (signing out) or of the sign-in form (a
cookie set with the form: signing in). The cookies are HttpOnly and
SameSite=Strict, Secure (and ``__Host-`` named) under TLS. Failed sign-ins are
counted per client address by the same limiter as the API's failed token checks
(``arena.core.auth_limit``): the server gives both the one limiter."""

from __future__ import annotations

import hmac
import ipaddress
import math
import secrets
from collections.abc import Callable
from typing import Final
from urllib.parse import parse_qs

from starlette.concurrency import run_in_threadpool
from starlette.datastructures import MutableHeaders
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from arena.core.auth_limit import FailedAuthLimiter, retry_message
from arena.core.peers import client_of
from arena.web.sessions import SessionStore, Viewer, current_viewer

MAX_FORM_BYTES: Final = 4096
SIGN_IN_FORM_SECONDS: Final = 3600
"""How long a sign-in form (its CSRF cookie) may wait before it is sent."""
_SESSION: Final = "arena-session"
_SIGN_IN: Final = "arena-signin"
_TLS_PREFIX: Final = "__Host-"
"""A ``__Host-`` cookie is kept by browsers only if Secure, for this host, on ``/``."""


class FormError(ValueError):
    """A POST whose body is not a small urlencoded form."""


def cookie_name(base: str, request: Request) -> str:
    return _TLS_PREFIX + base if request.url.scheme == "https" else base


class SignedIn:
    """ASGI middleware: the request's viewer (``current_viewer``), from its session
    cookie; a response to a request that carried one is never stored by caches."""

    def __init__(self, app: ASGIApp, sessions: SessionStore) -> None:
        self.app = app
        self.sessions = sessions

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"].startswith("/static/"):
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        session_id = request.cookies.get(cookie_name(_SESSION, request))
        viewer = None if session_id is None else self.sessions.viewer(session_id)

        async def send_private(message: Message) -> None:
            if message["type"] == "http.response.start":
                MutableHeaders(scope=message)["cache-control"] = "private, no-store"
            await send(message)

        reset = current_viewer.set(viewer)
        try:
            await self.app(scope, receive, send if session_id is None else send_private)
        finally:
            current_viewer.reset(reset)


Render = Callable[..., HTMLResponse]


class SignInPages:
    """``/signin`` (the form, and its POST) and ``/signout`` (POST)."""

    def __init__(self, sessions: SessionStore, limiter: FailedAuthLimiter,
                 html: Render) -> None:
        self.sessions = sessions
        self.limiter = limiter
        self.html = html

    def routes(self) -> list[Route]:
        return [Route("/signin", self.form, methods=["GET"]),
                Route("/signin", self.sign_in, methods=["POST"]),
                Route("/signout", self.sign_out, methods=["POST"])]

    async def form(self, request: Request) -> Response:
        return self._form(request, 200, "", _safe_next(request.query_params.get("next", "")))

    def _form(self, request: Request, status: int, problem: str, next_path: str) -> Response:
        nonce = secrets.token_urlsafe(32)
        response = self.html("signin.html", status, problem=problem, csrf=nonce,
                             next_path=next_path)
        set_cookie(response, request, _SIGN_IN, nonce, SIGN_IN_FORM_SECONDS)
        return response

    async def sign_in(self, request: Request) -> Response:
        form, refusal = await checked_form(request, self.html)
        if refusal is not None:
            return refusal
        next_path = _safe_next(form.get("next", ""))
        expected = request.cookies.get(cookie_name(_SIGN_IN, request), "")
        if not expected or not hmac.compare_digest(form.get("csrf", ""), expected):
            return self._form(request, 403, "this sign-in form expired or was not sent "
                                            "from this site: send it again", next_path)
        client = client_key(request)
        wait = self.limiter.retry_after(client)
        if wait is not None:
            response = self._form(request, 429, retry_message(client, wait), next_path)
            response.headers["retry-after"] = str(max(1, math.ceil(wait)))
            return response
        token = form.get("token", "")
        result = await run_in_threadpool(self.sessions.sign_in, token)
        if result.viewer is None:
            if token.strip():
                self.limiter.failed(client)
            return self._form(request, 401, result.problem, next_path)
        old = request.cookies.get(cookie_name(_SESSION, request))
        if old is not None:
            self.sessions.sign_out(old)
        response = RedirectResponse(next_path, 303)
        set_cookie(response, request, _SESSION, result.session_id, int(self.sessions.seconds))
        response.delete_cookie(cookie_name(_SIGN_IN, request), path="/",
                               secure=request.url.scheme == "https", httponly=True,
                               samesite="strict")
        return response

    async def sign_out(self, request: Request) -> Response:
        form, refusal = await checked_form(request, self.html)
        if refusal is not None:
            return refusal
        viewer = current_viewer.get()
        session_id = request.cookies.get(cookie_name(_SESSION, request))
        if viewer is not None and session_id is not None:
            if not hmac.compare_digest(form.get("csrf", ""), viewer.csrf):
                return _refused(self.html, "the sign-out form carried no valid CSRF token "
                                           "of this session: sign out from a page of this site")
            self.sessions.sign_out(session_id)
        response = RedirectResponse("/", 303)
        response.delete_cookie(cookie_name(_SESSION, request), path="/",
                               secure=request.url.scheme == "https", httponly=True,
                               samesite="strict")
        return response


def signed_in() -> Viewer | None:
    """The viewer of the request being answered (None: anonymous)."""
    return current_viewer.get()


async def checked_form(request: Request, render: Render
                        ) -> tuple[dict[str, str], Response | None]:
    """The POSTed form, or the refusal of a cross-site or malformed POST."""
    origin = request.headers.get("origin")
    if origin is not None and origin != f"{request.url.scheme}://{request.url.netloc}":
        return {}, _refused(render, f"a form sent from {origin} is refused: only this "
                                    "site's own pages may post here")
    if request.headers.get("sec-fetch-site", "same-origin") not in ("same-origin", "none"):
        return {}, _refused(render, "a form sent from another site is refused")
    try:
        return await _read_form(request), None
    except FormError as error:
        return {}, render("error.html", 400, title="Bad request", message=str(error))


async def _read_form(request: Request) -> dict[str, str]:
    kind = request.headers.get("content-type", "").partition(";")[0].strip().lower()
    if kind != "application/x-www-form-urlencoded":
        raise FormError("send the form as application/x-www-form-urlencoded")
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_FORM_BYTES:
            raise FormError(f"the form is over {MAX_FORM_BYTES} bytes")
    try:
        fields = parse_qs(body.decode(), keep_blank_values=True, max_num_fields=8)
    except (UnicodeDecodeError, ValueError) as error:
        raise FormError(f"the form cannot be read: {error}") from None
    return {key: values[0] for key, values in fields.items()}


def _refused(render: Render, message: str) -> Response:
    return render("error.html", 403, title="Forbidden", message=message)


def set_cookie(response: Response, request: Request, base: str, value: str,
                seconds: int) -> None:
    response.set_cookie(cookie_name(base, request), value, max_age=seconds, path="/",
                        secure=request.url.scheme == "https", httponly=True,
                        samesite="strict")


def _safe_next(path: str) -> str:
    """Where to go after signing in: a path of this site, else its front page."""
    if path.startswith("/") and not path.startswith(("//", "/\\")) and path.isprintable():
        return path
    return "/"


def client_key(request: Request) -> str:
    """The client's key in the limiter, as the API names a peer (``ipv4:1.2.3.4``)."""
    host = "" if request.client is None else request.client.host
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return client_of(host or "unknown")
    return client_of(f"ipv6:[{host}]" if address.version == 6 else f"ipv4:{host}")

