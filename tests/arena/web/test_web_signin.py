"""Signing in to the website (issue 36, point 4): an author signed in with its token
sees its own bot's stderr and vetting logs in the owner panes of series and bot
pages and of their JSON twins; another author and an anonymous visitor see none of
it on any page; the admin sees all. The session cookie's flags, the CSRF checks,
a revoked token or an expired session ending the session, and the rate limit on
failed sign-ins, over Starlette's TestClient with an injected clock."""

from __future__ import annotations

import urllib.parse
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from arena.core.auth_limit import AuthLimits, FailedAuthLimiter
from arena.core.seat_logs import DecisionLog, SeatLog
from arena.season.events import EventHub
from arena.storage import add_author, revoke_author
from arena.storage.logs import encode_document
from arena.storage.seat_log_rows import insert_seat_logs
from arena.web import sessions as sessions_module
from arena.web.app import create_app
from arena.web.owner import OwnerViews, owner_series_view
from arena.web.sessions import SESSION_SECONDS, SessionStore, Viewer
from engine.actions import Action
from tests.helpers.signin_helpers import (
    BUILD_LOG,
    OWNER_ONLY,
    STDERR_MARK,
    VALIDATION_LOG,
    OwnedArena,
    session_csrf,
    sign_in,
    sign_in_form,
)

ADMIN_TOKEN = "admin_the-servers-own-admin-token"


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(scope="module")
def owned(tmp_path_factory: pytest.TempPathFactory) -> OwnedArena:
    root = tmp_path_factory.mktemp("signin")
    return OwnedArena(root, root / "signin.db")


def client_of(owned: OwnedArena, clock: Clock | None = None,
              limiter: FailedAuthLimiter | None = None, base_url: str = "http://testserver"
              ) -> TestClient:
    sessions = SessionStore(owned.storage, ADMIN_TOKEN, clock or Clock())
    return TestClient(create_app(owned.storage, EventHub(), sessions=sessions,
                                 limiter=limiter), base_url=base_url)


def bot_path(bot_id: str) -> str:
    return "/bots/" + urllib.parse.quote(bot_id, safe="@")


def every_route(owned: OwnedArena) -> list[str]:
    """Every page and JSON twin that shows the series or its bots."""
    pages = ["/", f"/seasons/{owned.season_id}", f"/series/{owned.series_id}",
             *[bot_path(bot) for bot in owned.bots.values()], "/bots",
             *[f"/authors/{author}" for author in owned.bots]]
    return [*pages, *["/api" + page for page in pages if page not in ("/",)],
            "/api/seasons", f"/api/series/{owned.series_id}/replay"]


def assert_no_owner_data(client: TestClient, owned: OwnedArena) -> None:
    for path in every_route(owned):
        response = client.get(path)
        assert response.status_code == 200, (path, response.text[:300])
        for text in OWNER_ONLY:
            assert text not in response.text, (path, text)


def test_the_owner_sees_its_bots_stderr_and_vetting_logs(owned: OwnedArena) -> None:
    client = client_of(owned)
    response = sign_in(client, owned.tokens[owned.faulty_owner], f"/series/{owned.series_id}")
    assert response.status_code == 303
    assert response.headers["location"] == f"/series/{owned.series_id}"
    page = client.get(f"/series/{owned.series_id}").text
    assert 'id="owner-pane"' in page and f"signed in as <span id=\"signed-in-as\">" \
        f"{owned.faulty_owner}</span>" in page
    # Escaped like everything a bot wrote (web_helpers.STDERR_TAIL holds HTML and an escape).
    assert "Traceback: &lt;img src=x onerror=alert(2)&gt;\\x1b[2J" in page
    assert "<img src=x" not in page
    [seat] = client.get(f"/api/series/{owned.series_id}").json()["owner_seats"]
    assert seat == {"seat": 1, "bot": owned.faulty, "played": True,
                    "fault": {"kind": "timeout", "message": "decision took 3.2 s <b>late</b>",
                              "hand_number": 1, "decision_number": 4},
                    "stderr": owned.stored_stderr(),
                    "stderr_bytes": len(owned.stored_stderr().encode()),
                    "fault_words": "", "notes_dropped": 0, "decisions": []}
    assert owned.stored_stderr().startswith("Traceback: <img src=x onerror=alert(2)>")

    bot = client.get(bot_path(owned.faulty)).text
    assert "Step 1/2: FROM hollywood-base\nbuild secret: &lt;b&gt;owner-only-build&lt;/b&gt;" \
        in bot and VALIDATION_LOG in bot and STDERR_MARK in bot
    view = client.get("/api" + bot_path(owned.faulty)).json()["owner_view"]
    assert (view["build_log"], view["validation_log"], view["image_id"]) == (
        BUILD_LOG, VALIDATION_LOG, "sha256:abc")
    assert [(f["series_id"], f["seat"], f["kind"], f["stderr"]) for f in view["forfeits"]
            ] == [(owned.series_id, 1, "timeout", owned.stored_stderr())]
    # The owner's other pages: the opponent's bot page has no owner view.
    assert client.get("/api" + bot_path(owned.bots[owned.other_owner])).json()[
        "owner_view"] is None


def test_anonymous_visitors_and_other_authors_see_no_owner_data(owned: OwnedArena) -> None:
    anonymous = client_of(owned)
    assert_no_owner_data(anonymous, owned)
    series = anonymous.get(f"/series/{owned.series_id}").text
    assert 'id="owner-pane"' not in series and 'id="owner-sign-in"' in series
    assert anonymous.get(f"/api/series/{owned.series_id}").json()["owner_seats"] == []
    assert anonymous.get("/api" + bot_path(owned.faulty)).json()["owner_view"] is None
    # The public fault keeps the arena's words.
    assert "decision took 3.2 s &lt;b&gt;late&lt;/b&gt;" in series

    other = client_of(owned)
    assert sign_in(other, owned.tokens[owned.other_owner]).status_code == 303
    assert_no_owner_data(other, owned)
    # Its own seat's pane, with nothing kept (its bot did not forfeit).
    [seat] = other.get(f"/api/series/{owned.series_id}").json()["owner_seats"]
    assert (seat["seat"], seat["bot"], seat["stderr"], seat["fault"]) == (
        0, owned.bots[owned.other_owner], "", None)


def test_the_admin_sees_every_seat(owned: OwnedArena) -> None:
    client = client_of(owned)
    assert sign_in(client, ADMIN_TOKEN).status_code == 303
    seats = client.get(f"/api/series/{owned.series_id}").json()["owner_seats"]
    assert [(s["seat"], s["stderr"]) for s in seats] == [
        (0, ""), (1, owned.stored_stderr())]
    assert "the admin" in client.get("/").text
    # Without the server's admin token, the admin cannot sign in here.
    plain = TestClient(create_app(owned.storage, EventHub()))
    response = sign_in(plain, ADMIN_TOKEN)
    assert response.status_code == 401 and "wrong admin token" in response.text


def test_the_session_cookie_is_httponly_strict_expiring_and_secure_under_tls(
        owned: OwnedArena) -> None:
    response = sign_in(client_of(owned), owned.tokens["ann"])
    cookie = response.headers["set-cookie"]
    flags = {part.strip().split("=")[0].lower() for part in cookie.split(";")}
    assert cookie.startswith("arena-session=")
    assert {"httponly", "samesite", "max-age", "path"} <= flags and "secure" not in flags
    assert "samesite=strict" in cookie.lower() and f"max-age={SESSION_SECONDS}" in cookie.lower()
    assert SESSION_SECONDS == 12 * 3600
    response = sign_in(client_of(owned, base_url="https://testserver"), owned.tokens["ann"])
    [session] = [value for key, value in response.headers.multi_items()
                 if key == "set-cookie" and value.startswith("__Host-arena-session=")]
    assert "; secure" in session.lower() and "; httponly" in session.lower()
    assert "samesite=strict" in session.lower() and "; path=/" in session.lower()


def test_a_post_without_the_csrf_token_or_from_another_site_is_refused(
        owned: OwnedArena) -> None:
    client = client_of(owned)
    sign_in_form(client)
    token = owned.tokens["ann"]
    for data, headers in [({"token": token}, {}),
                          ({"token": token, "csrf": "forged"}, {})]:
        response = client.post("/signin", data=data, headers=headers, follow_redirects=False)
        assert response.status_code == 403 and "set-cookie" not in {
            k for k, v in response.headers.multi_items() if v.startswith("arena-session")}
        assert "sign-in form expired or was not sent from this site" in response.text
    response = sign_in(client, token, origin="https://evil.example")
    assert response.status_code == 403 and "sent from https://evil.example is refused" in (
        response.text)
    assert sign_in(client, token, origin="null").status_code == 403  # an opaque origin
    csrf = sign_in_form(client)
    response = client.post("/signin", data={"csrf": csrf, "token": token},
                           headers={"sec-fetch-site": "cross-site"}, follow_redirects=False)
    assert response.status_code == 403
    assert "signed-in-as" not in client.get("/").text

    assert sign_in(client, token, origin="http://testserver").status_code == 303
    refused = client.post("/signout", data={"csrf": "forged"}, follow_redirects=False)
    assert refused.status_code == 403 and "no valid CSRF token" in refused.text
    refused = client.post("/signout", data={"next": "/"}, follow_redirects=False)
    assert refused.status_code == 403
    assert "signed-in-as" in client.get("/").text  # still signed in


def test_signing_out_ends_the_session(owned: OwnedArena) -> None:
    rows = owned.storage.count_rows()
    client = client_of(owned)
    sign_in(client, owned.tokens[owned.faulty_owner])
    session = client.cookies["arena-session"]
    response = client.post("/signout", data={"csrf": session_csrf(client)},
                           follow_redirects=False)
    assert response.status_code == 303 and response.headers["location"] == "/"
    assert 'arena-session=""' in response.headers["set-cookie"]
    # The old cookie, sent again, opens nothing: the session is gone on the server.
    client.cookies.set("arena-session", session)
    assert_no_owner_data(client, owned)
    assert 'id="sign-in"' in client.get("/").text
    assert owned.storage.count_rows() == rows  # sessions are kept in memory only


def test_revoking_the_token_ends_the_session_at_its_next_request(
        tmp_path: Path) -> None:
    owned = OwnedArena(tmp_path, tmp_path / "revoke.db")
    owner = owned.faulty_owner
    client = client_of(owned)
    sign_in(client, owned.tokens[owner])
    assert STDERR_MARK in client.get(f"/series/{owned.series_id}").text
    revoke_author(owned.storage, owner)
    assert_no_owner_data(client, owned)
    # Signing in with the revoked token fails and says why.
    response = sign_in(client_of(owned), owned.tokens[owner])
    assert response.status_code == 401 and f"author {owner} was revoked" in response.text
    # A new token for the author does not revive the session of the revoked one.
    _, new_token = add_author(owned.storage, owner)
    assert_no_owner_data(client, owned)
    sign_in(client, new_token)
    assert STDERR_MARK in client.get(f"/series/{owned.series_id}").text


def test_a_session_expires_after_twelve_hours(owned: OwnedArena) -> None:
    clock = Clock()
    client = client_of(owned, clock)
    sign_in(client, owned.tokens[owned.faulty_owner])
    clock.now += SESSION_SECONDS - 1
    assert STDERR_MARK in client.get(f"/series/{owned.series_id}").text
    clock.now += 1
    assert_no_owner_data(client, owned)


def test_failed_sign_ins_are_rate_limited_per_client(owned: OwnedArena) -> None:
    clock = Clock()
    limiter = FailedAuthLimiter(AuthLimits(burst=2, per_second=0.1), clock)
    client = client_of(owned, limiter=limiter)
    wrong = owned.tokens["ann"][:-3] + "xyz"
    for _ in range(2):
        response = sign_in(client, wrong)
        assert response.status_code == 401 and "wrong token for author ann" in response.text
    # Refused before the token is looked at, the right one too, saying when to retry.
    refused = sign_in(client, owned.tokens["ann"])
    assert refused.status_code == 429 and refused.headers["retry-after"] == "10"
    assert "too many failed token checks from testclient: retry in 10 s" in refused.text
    clock.now += 10
    assert sign_in(client, owned.tokens["ann"]).status_code == 303
    # Success costs nothing; an empty token is no guess.
    assert sign_in(client, "").status_code == 401
    assert limiter.retry_after("testclient") is None


def test_after_signing_in_only_a_path_of_this_site_is_followed(owned: OwnedArena) -> None:
    for asked, followed in [("/bots", "/bots"), ("//evil.example/x", "/"),
                            ("https://evil.example", "/"), ("/\\evil.example", "/")]:
        response = sign_in(client_of(owned), owned.tokens["ann"], asked)
        assert response.headers["location"] == followed, asked


def test_a_form_that_is_not_a_small_urlencoded_form_is_refused(owned: OwnedArena) -> None:
    client = client_of(owned)
    csrf = sign_in_form(client)
    response = client.post("/signin", content=b'{"token": "x"}',
                           headers={"content-type": "application/json"})
    assert response.status_code == 400 and "x-www-form-urlencoded" in response.text
    response = client.post("/signin", data={"csrf": csrf, "token": "a" * 5000})
    assert response.status_code == 400 and "over 4096 bytes" in response.text


def test_owner_panes_take_any_provider(owned: OwnedArena) -> None:
    """The seam later owner-only data slots into: a provider's extra keys reach the
    JSON twin of the owner, and still nobody else's."""

    def with_notes(storage: object, series_id: str, viewer: Viewer) -> list[dict[str, object]]:
        seats = owner_series_view(owned.storage, series_id, viewer)
        return [{**seat, "debug_notes": ["kept the 7"]} for seat in seats]

    sessions = SessionStore(owned.storage, ADMIN_TOKEN, Clock())
    client = TestClient(create_app(owned.storage, EventHub(), sessions=sessions,
                                   owner_views=OwnerViews(series=with_notes)))
    assert client.get(f"/api/series/{owned.series_id}").json()["owner_seats"] == []
    sign_in(client, owned.tokens[owned.faulty_owner])
    [seat] = client.get(f"/api/series/{owned.series_id}").json()["owner_seats"]
    assert seat["debug_notes"] == ["kept the 7"] and seat["bot"] == owned.faulty


def test_responses_to_a_signed_in_visitor_are_not_cached(owned: OwnedArena) -> None:
    client = client_of(owned)
    assert "cache-control" not in client.get("/").headers
    sign_in(client, owned.tokens["ann"])
    for path in ("/", f"/series/{owned.series_id}", f"/api/series/{owned.series_id}"):
        headers = client.get(path).headers
        assert headers["cache-control"] == "private, no-store", path
        assert "form-action 'self'" in headers["content-security-policy"]


def test_the_oldest_session_is_forgotten_past_the_cap(
        owned: OwnedArena, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sessions_module, "MAX_SESSIONS", 2)
    store = SessionStore(owned.storage, ADMIN_TOKEN, Clock())
    opened = [store.sign_in(ADMIN_TOKEN).session_id for _ in range(3)]
    assert [store.viewer(session) is not None for session in opened] == [False, True, True]


def test_the_owner_sees_each_decisions_time_and_debug_note_beside_its_move(
        tmp_path: Path) -> None:
    owned = OwnedArena(tmp_path, tmp_path / "notes.db")
    events, _ = owned.storage.result_log(owned.series_id)
    taken = [entry["action"] for entry in events if entry.get("type") == "action"]
    # Seat 1's decisions 2 and 4 of hand 1 as a seat log records them: the fourth
    # timed out (the series' forfeit), so no move was made.
    assert len(taken) == 3
    log = SeatLog(1, "Traceback: x", 12, (DecisionLog(1, 2, 12.5, "kept <the> 7"),
                                          DecisionLog(1, 4, 3200.0, "")))
    with owned.storage.transaction() as db:
        insert_seat_logs(db, owned.series_id, [(1, encode_document(log.to_dict()))],
                         "2026-12-07T10:00:00Z")
    client = client_of(owned)
    sign_in(client, owned.tokens[owned.faulty_owner])
    [seat] = client.get(f"/api/series/{owned.series_id}").json()["owner_seats"]
    assert seat["decisions"] == [
        {"hand_number": 1, "decision_number": 2, "think_ms": 12.5, "debug": "kept <the> 7",
         "move": str(Action.from_dict(taken[1]))},
        {"hand_number": 1, "decision_number": 4, "think_ms": 3200.0, "debug": "",
         "move": ""}]
    page = client.get(f"/series/{owned.series_id}").text
    assert (f'<tr data-decision="2"><td>1</td><td>2</td><td>{Action.from_dict(taken[1])}'
            '</td><td>12.5 ms</td><td class="debug-note">kept &lt;the&gt; 7</td></tr>') in page
    # The opponent's owner and anonymous visitors see no note.
    assert "kept &lt;the&gt; 7" not in client_of(owned).get(f"/series/{owned.series_id}").text
    other = client_of(owned)
    sign_in(other, owned.tokens[owned.other_owner])
    assert "kept" not in other.get(f"/api/series/{owned.series_id}").text
