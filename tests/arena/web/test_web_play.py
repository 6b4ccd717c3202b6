"""Playing a bot yourself over HTTP (issue 38, point 3): a signed-in author plays a
one-hand series against greedy through the forms, the game is stored apart and
unrated; an illegal action is refused and the game goes on; guests are refused
unless the organiser allows them; the (N+1)-th game and an address over its limit
are refused with a clear message; a POST from another site is refused."""

from __future__ import annotations

import re
from pathlib import Path

from starlette.testclient import TestClient

from arena.storage import get_human_game
from arena.web.play_games import HumanGames
from tests.helpers.play_helpers import (
    PlayArena,
    game_csrf,
    legal_actions,
    play_settings,
    start_form,
)
from tests.helpers.signin_helpers import sign_in


def start(client: TestClient, bot: str) -> str:
    """Start a game against ``bot``; its page's path."""
    response = client.post("/play", data={"csrf": start_form(client), "bot": bot},
                           follow_redirects=False)
    assert response.status_code == 303, response.text[:500]
    return str(response.headers["location"])


def test_an_author_plays_a_whole_hand_and_the_game_is_stored_unrated(tmp_path: Path) -> None:
    site = PlayArena(tmp_path / "play.db")
    with TestClient(site.app()) as client:
        assert sign_in(client, site.token).status_code == 303
        path = start(client, site.greedy)
        game_id = path.rsplit("/", 1)[1]
        page = client.get(path).text
        moves = 0
        while (csrf := game_csrf(page)) is not None:
            actions = legal_actions(page)
            assert actions, page[:800]
            response = client.post(f"{path}/act", data={"csrf": csrf, "action": actions[-1]})
            assert response.status_code == 200, response.text[:500]
            page = response.text
            moves += 1
            assert moves < 200
        for _ in range(100):  # a loaded machine may still be storing it
            if 'id="storing"' not in page:
                break
            page = client.get(path).text
        assert 'id="game-result"' in page, page[:800]
        assert "Hand 1:" in page and "Unrated" in page
        stored = get_human_game(site.storage, game_id)
        assert stored.player == "ann" and stored.bot_id == site.greedy
        assert stored.result["hands_played"] == 1
        # Never rated: no season, no result row counts it.
        assert site.storage.list_seasons() == []
        counts = site.storage.count_rows()
        assert counts["series_results"] == counts["series_logs"] == 0
        replay = client.get(f"/api/play/{game_id}/replay").json()
        assert replay["hands"][0]["hand"] == 1


def test_an_illegal_action_is_refused_and_the_game_goes_on(tmp_path: Path) -> None:
    site = PlayArena(tmp_path / "play.db")
    with TestClient(site.app()) as client:
        sign_in(client, site.token)
        path = start(client, site.greedy)
        page = client.get(path).text
        csrf = game_csrf(page)
        assert csrf is not None
        legal = legal_actions(page)
        response = client.post(f"{path}/act", data={"csrf": csrf, "action": "discard 2c"}
                               if "discard 2c" not in legal else
                               {"csrf": csrf, "action": "discard 3c"})
        assert response.status_code == 400
        assert "is not legal here; legal: " in response.text
        garbage = client.post(f"{path}/act", data={"csrf": csrf, "action": "<b>win</b>"})
        assert garbage.status_code == 400 and "is not an action" in garbage.text
        assert legal_actions(client.get(path).text) == legal  # still the person's turn
        forged = client.post(f"{path}/act", data={"csrf": "forged", "action": legal[0]})
        assert forged.status_code == 403
        cross = client.post(f"{path}/act", data={"csrf": csrf, "action": legal[0]},
                            headers={"origin": "https://evil.example"})
        assert cross.status_code == 403


def test_the_game_after_the_last_table_is_refused_clearly(tmp_path: Path) -> None:
    site = PlayArena(tmp_path / "play.db", play_settings(max_games=1))
    with TestClient(site.app()) as client:
        sign_in(client, site.token)
        start(client, site.greedy)
        response = client.post("/play", data={"csrf": start_form(client), "bot": site.greedy})
        assert response.status_code == 503
        assert ("all 1 tables are taken: at most 1 games against the bots are played at "
                "once") in response.text


def test_an_address_over_its_limit_is_refused(tmp_path: Path) -> None:
    now = [0.0]
    site = PlayArena(tmp_path / "play.db", play_settings(starts_per_window=1, window_s=60))
    site.games = HumanGames(site.storage, site.games.settings, clock=lambda: now[0])
    with TestClient(site.app()) as client:
        sign_in(client, site.token)
        start(client, site.greedy)
        now[0] = 59.0
        response = client.post("/play", data={"csrf": start_form(client), "bot": site.greedy})
        assert response.status_code == 429 and "try again later" in response.text
        assert re.search(r"started 1 games in the last 1 minutes", response.text)
        now[0] = 60.0  # the first start has left the window
        assert start(client, site.greedy).startswith("/play/")


def test_guests_play_only_when_the_organiser_allows(tmp_path: Path) -> None:
    closed = PlayArena(tmp_path / "closed.db")
    with TestClient(closed.app()) as client:
        assert 'id="play-sign-in"' in client.get("/play").text
        # A guest's POST with a valid form token (the form itself is not shown).
        form_token = client.cookies.get("arena-play-form")
        assert form_token
        refused = client.post("/play", data={"csrf": form_token, "bot": closed.greedy})
        assert refused.status_code == 403 and "sign in to play the bots" in refused.text
    opened = PlayArena(tmp_path / "open.db", play_settings(guest_play=True))
    with TestClient(opened.app()) as client:
        path = start(client, opened.greedy)
        assert f"You vs {opened.greedy}" in client.get(path).text
        assert opened.games.playing() == 1
    # Another browser does not see the guest's game while it is played.
    with TestClient(opened.app()) as other:
        assert other.get(path).status_code == 403
