"""The one way to declare a route of the website: ``get(path, endpoint)``, and a
page with its JSON twin, ``twins``: the HTML page at ``path`` and ``/api`` +
``path``, both over the one ``data`` function, so the two never tell different
things. Every route is GET: nothing can be changed over HTTP."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, TypeVar

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

GET: Final = ["GET"]
View = TypeVar("View")


def get(path: str, endpoint: Callable[..., Any]) -> Route:
    return Route(path, endpoint, methods=GET)


def _as_is(view: Any) -> Any:
    return view


def twins(path: str, data: Callable[[Request], View], render: Callable[[View], Response],
          json: Callable[[View], Any] = _as_is, *, also: tuple[str, ...] = (),
          api: str = "") -> list[Route]:
    """The page at ``path`` (and at each path of ``also``), ``render`` of ``data``,
    and at ``api`` (by default ``/api`` + ``path``) its ``json`` (by default the
    data itself)."""

    async def page(request: Request) -> Response:
        return render(data(request))

    async def json_twin(request: Request) -> Response:
        return JSONResponse(json(data(request)))

    return [*(get(each, page) for each in (path, *also)),
            get(api or "/api" + path, json_twin)]
