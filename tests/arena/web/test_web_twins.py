"""The one way to declare a page and its JSON twin (arena/web/twins.py): the page at
its path (and its other paths), the twin at /api + path or the path given, both from
one call of the one data function per request, and nothing but GET."""

from __future__ import annotations

from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.testclient import TestClient

from arena.web.twins import twins


def test_a_page_and_its_twin_show_the_one_data() -> None:
    calls: list[str] = []

    def data(request: Request) -> dict[str, Any]:
        calls.append(request.url.path)
        return {"name": request.path_params.get("name", "all"), "count": len(calls)}

    routes = [
        *twins("/things/{name}", data, lambda page: PlainTextResponse(f"page of {page['name']}")),
        *twins("/", data, lambda page: PlainTextResponse("home"),
               json=lambda page: {"home": page["count"]}, api="/api/home", also=("/home",)),
    ]
    with TestClient(Starlette(routes=routes)) as client:
        assert client.get("/things/a%3Cb").text == "page of a<b"
        assert client.get("/api/things/x").json() == {"name": "x", "count": 2}
        assert client.get("/").text == client.get("/home").text == "home"
        assert client.get("/api/home").json() == {"home": 5}
        assert client.get("/api/").status_code == 404
        assert client.post("/api/things/x").status_code == 405
        assert client.post("/things/x").status_code == 405
    assert calls == ["/things/a<b", "/api/things/x", "/", "/home", "/api/home"]
