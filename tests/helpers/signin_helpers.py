"""A stored arena for the sign-in tests (issue 36, point 4): two authors, each owning
one bot, one series between them that the second bot lost by a timeout with a
stderr tail, vetting logs on that bot; and signing in over a TestClient."""

from __future__ import annotations

import re
from pathlib import Path

import httpx2
from starlette.testclient import TestClient

from arena.storage import Storage, add_author, read_seat_logs
from tests.helpers.browse_helpers import set_owner, set_status
from tests.helpers.season_play import play
from tests.helpers.web_helpers import create_season, forfeiting, register

BUILD_LOG = "Step 1/2: FROM hollywood-base\nbuild secret: <b>owner-only-build</b>"
VALIDATION_LOG = "validation: played 2 hands, owner-only-validation"
STDERR_MARK = "Traceback"
"""Begins the stderr tail ``web_helpers.forfeiting`` stores for the faulting seat."""
OWNER_ONLY = (STDERR_MARK, "owner-only-build", "owner-only-validation")
"""Text that only the owner of the faulting bot (and the admin) may ever be sent."""


class OwnedArena:
    """Authors ann and bob; ann owns ``ann-bot``, bob owns ``bob-bot``; the season's
    only series (``series_id``) ends with seat 1 timing out, its bot (``faulty``,
    whose owner is ``faulty_owner``) having written a stderr tail."""

    def __init__(self, root: Path, path: Path) -> None:
        self.storage = Storage(path)
        self.tokens: dict[str, str] = {}
        for author in ("ann", "bob"):
            _, self.tokens[author] = add_author(self.storage, author)
        self.bots = {author: register(self.storage, root, f"{author}-bot")
                     for author in ("ann", "bob")}
        for author in self.bots:
            set_owner(self.storage, f"{author}-bot", author)
        self.season_id = create_season(self.storage, list(self.bots.values()))
        [planned] = self.storage.planned_series(self.season_id)
        self.series_id = planned.series_id
        assert play(self.storage, self.season_id, forfeiting({self.series_id})) == "finished"
        self.faulty = planned.bots[1]
        self.faulty_owner = next(a for a, bot in self.bots.items() if bot == self.faulty)
        self.other_owner = "bob" if self.faulty_owner == "ann" else "ann"
        # Stored after the season: a version row says its code was vetted when it has none.
        set_status(self.storage, self.faulty, "active", "built and validated")
        with self.storage.transaction() as db:
            db.execute("UPDATE bot_versions SET build_log=?, validation_log=?, image_id=? "
                       "WHERE bot_id=?", (BUILD_LOG, VALIDATION_LOG, "sha256:abc", self.faulty))

    def stored_stderr(self) -> str:
        """The faulty seat's stderr as stored in its seat log (read apart from the
        website)."""
        [log] = read_seat_logs(self.storage, self.series_id)
        assert log.seat == 1
        return log.stderr


def sign_in_form(client: TestClient, path: str = "/signin") -> str:
    """The CSRF token of a fresh sign-in form (its cookie kept by ``client``)."""
    response = client.get(path)
    assert response.status_code == 200, response.text[:300]
    found = re.search(r'id="signin-form">\s*<input type="hidden" name="csrf" value="([^"]+)"',
                      response.text)
    assert found is not None
    return found.group(1)


def sign_in(client: TestClient, token: str, next_path: str = "/",
            origin: str | None = None) -> httpx2.Response:
    """Send the sign-in form as a browser would (not following the redirect)."""
    csrf = sign_in_form(client)
    headers = {} if origin is None else {"origin": origin}
    return client.post("/signin", data={"csrf": csrf, "token": token, "next": next_path},
                       headers=headers, follow_redirects=False)


def session_csrf(client: TestClient) -> str:
    """The CSRF token of the signed-in session, from its sign-out form."""
    found = re.search(r'action="/signout"><input type="hidden" name="csrf" value="([^"]+)"',
                      client.get("/").text)
    assert found is not None, "not signed in"
    return found.group(1)
