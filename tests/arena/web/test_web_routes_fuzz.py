"""No URL answers 500 (issue 26): every route of the website's route table, with
generated path values, query strings, headers and methods, answers 2xx/3xx/4xx, and every
answer carries the Content-Security-Policy and the usual security headers, errors
included. Pinned cases: the malformed ids that once answered 500."""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.applications import Starlette
from starlette.responses import Response
from starlette.routing import Mount, Route
from starlette.testclient import TestClient

from arena.core.settings import SeasonConfig
from arena.season.events import EventHub
from arena.season.league_rules import LeagueRule
from arena.season.leagues import LeaguePlan, create_league
from arena.storage import Storage
from arena.web.app import SecureStarlette, create_app
from arena.web.params import (
    BotIdConvertor,
    GameIdConvertor,
    IdConvertor,
    NameConvertor,
    SeriesIdConvertor,
)
from tests.helpers.season_play import play
from tests.helpers.web_helpers import HOSTILE_NAME, create_season, register

PARAM = re.compile(r"\{(\w+)(?::\w+)?\}")
HEADER_NAMES = ("accept", "accept-encoding", "range", "if-none-match", "if-modified-since",
                "cookie", "user-agent", "x-forwarded-for", "last-event-id")


def assert_safe(response: Response | object, what: str) -> None:
    status = response.status_code  # type: ignore[attr-defined]
    headers = response.headers  # type: ignore[attr-defined]
    assert 200 <= status < 500, (what, status, response.text[:300])  # type: ignore[attr-defined]
    policy = headers.get("content-security-policy", "")
    assert "frame-ancestors 'none'" in policy and "default-src 'none'" in policy, what
    assert headers.get("x-content-type-options") == "nosniff", what
    assert headers.get("referrer-policy") == "same-origin", what


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[TestClient, list[str]]]:
    """A played season of 3 bots (a hostile name among them) behind the website; the
    live feeds closed, so an events stream ends after its first snapshot."""
    root = tmp_path_factory.mktemp("fuzz")
    storage = Storage(root / "web.db")
    ids = [register(storage, root, name) for name in ("alpha", HOSTILE_NAME, "random-dan")]
    season_id = create_season(storage, ids, max_hands=3)
    assert play(storage, season_id) == "finished"
    # A league (its first round planned) for the league pages: /leagues/1.
    create_league(storage, HOSTILE_NAME, LeaguePlan(
        LeagueRule(2, 1, 1), 1, ("round-robin", "round-robin"),
        SeasonConfig.build(sandbox="inprocess", seed=3, max_hands=3)),
        [*ids, register(storage, root, "zed")])
    app = create_app(storage, EventHub())
    app.state.website.feed.close()
    app.state.website.live.close()
    app.state.website.tv.close()
    series = [planned.series_id for planned in storage.planned_series(season_id)]
    with TestClient(app, raise_server_exceptions=False) as client:
        yield client, [str(season_id), *series, *ids]
    storage.close()


def route_templates(app: Starlette) -> list[str]:
    """Every route's path, a Mount's as ``/static/{path}``."""
    paths = []
    for route in app.routes:
        if isinstance(route, Route):
            paths.append(route.path)
        elif isinstance(route, Mount):
            paths.append(route.path + "/{path}")
    return paths


def test_every_path_parameter_passes_the_one_door(site: tuple[TestClient, list[str]]) -> None:
    client, _known = site
    app: Starlette = client.app  # type: ignore[assignment]
    convertors = [convertor for route in app.routes if isinstance(route, Route)
                  for convertor in route.param_convertors.values()]
    assert convertors and all(isinstance(
        c, IdConvertor | SeriesIdConvertor | BotIdConvertor | NameConvertor | GameIdConvertor)
               for c in convertors)
    assert "/static/{path}" in route_templates(app)


NASTY = st.sampled_from([
    "9223372036854775807", "9223372036854775808", "18446744073709551616", "1" * 400,
    "-1", "0", "²", "١٢", "𝟗", "1e3", "0x10", " 1", "1 ", "%00", "..", "../..", "\x00",
    "1-2", "1-99999999999999999999", "a@b", "@", "/", "%", "\u202e", "\ud800", "",
])


def values(known: list[str]) -> st.SearchStrategy[str]:
    return st.one_of(NASTY, st.sampled_from(known), st.text(max_size=40),
                     st.integers(min_value=-2**70, max_value=2**70).map(str),
                     st.from_regex(r"[0-9]{1,25}-[0-9]{1,25}", fullmatch=True))


def quote(text: str) -> str:
    return urllib.parse.quote(text.encode("utf-8", "surrogatepass"), safe="@/")


@st.composite
def requests(draw: st.DrawFn, templates: list[str], known: list[str]
             ) -> tuple[str, dict[str, str]]:
    template = draw(st.sampled_from(templates))
    path = PARAM.sub(lambda _match: quote(draw(values(known))), template)
    query = draw(st.lists(st.tuples(st.sampled_from(["season", "page", "x", "season[]"]),
                                    values(known)), max_size=3))
    if query:
        path += "?" + "&".join(f"{quote(k)}={quote(v)}" for k, v in query)
    header_text = st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7e), max_size=40)
    headers = draw(st.dictionaries(st.sampled_from(HEADER_NAMES), header_text, max_size=3))
    return path, headers


@settings(max_examples=400, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data())
def test_no_generated_request_answers_500_and_every_answer_is_guarded(
        site: tuple[TestClient, list[str]], data: st.DataObject) -> None:
    client, known = site
    path, headers = data.draw(requests(route_templates(client.app), known))  # type: ignore[arg-type]
    method = data.draw(st.sampled_from(["GET", "GET", "GET", "HEAD", "POST", "OPTIONS"]))
    assert_safe(client.request(method, path, headers=headers), f"{method} {path}")


@pytest.mark.parametrize(("path", "status"), [
    ("/seasons/9223372036854775808", 404),
    ("/api/seasons/9223372036854775807", 404),
    ("/api/seasons/99999999999999999999999999999/events", 404),
    ("/series/1-9223372036854775808", 404),
    ("/api/series/99999999999999999999-1/replay", 404),
    ("/seasons/%C2%B2", 404),
    ("/bots/alpha@1.0.0?season=%C2%B2", 400),
    ("/api/bots/alpha@1.0.0?season=%D9%A1%D9%A2", 400),
    ("/api/bots/alpha@1.0.0?season=9223372036854775808", 400),
    ("/bots/" + "a" * 300, 404),
])
def test_malformed_ids_answer_4xx_naming_the_problem(
        site: tuple[TestClient, list[str]], path: str, status: int) -> None:
    client, _known = site
    response = client.get(path)
    assert response.status_code == status, (path, response.text[:300])
    assert_safe(response, path)
    if status == 400:
        assert "season must be a number of 1 to 18 digits 0-9" in response.text


def test_an_unexpected_error_is_a_500_that_still_carries_the_headers() -> None:
    def broken(request: object) -> Response:
        raise RuntimeError("a bug")

    app = SecureStarlette(routes=[Route("/broken", broken)])
    response = TestClient(app, raise_server_exceptions=False).get("/broken")
    assert response.status_code == 500
    assert "frame-ancestors 'none'" in response.headers["content-security-policy"]
    assert response.headers["x-content-type-options"] == "nosniff"


def test_a_stored_season_number_in_the_query_still_chooses_the_season(
        site: tuple[TestClient, list[str]]) -> None:
    client, known = site
    bot = urllib.parse.quote(known[-1], safe="@")
    assert client.get(f"/api/bots/{bot}?season={known[0]}").status_code == 200
    assert client.get(f"/api/bots/{bot}?season=").status_code == 200  # empty: the latest
