"""The challenges page, ``/challenges``, and its ``/api/challenges`` twin: the
challenges (newest first, a page at a time) with their results so far, read-only, for everyone (both
owners included). A challenge's season is in no season list (it is unrated); its
series are linked by id to their replays."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict
from typing import Any

from starlette.responses import HTMLResponse
from starlette.routing import Route

from arena.storage import Storage, challenge_tally, list_challenges
from arena.web.paging import Pager
from arena.web.params import query_page
from arena.web.twins import twins

Render = Callable[..., HTMLResponse]


class ChallengePages:
    """The challenges page over ``storage``; ``html(template, **context)`` renders it."""

    def __init__(self, storage: Storage, html: Render) -> None:
        self.storage = storage
        self.html = html

    def challenges_page(self, pager: Pager) -> dict[str, Any]:
        """A page of the challenges, newest first, and its links."""
        challenges, links = pager.cut(list_challenges(self.storage, limit=pager.limit,
                                                      offset=pager.offset))
        return {"challenges": [
            {**asdict(challenge), "status": str(challenge.status),
             **asdict(challenge_tally(self.storage, challenge))}
            for challenge in challenges], "pager": links}

    def routes(self) -> list[Route]:
        return [*twins("/challenges",
                       lambda request: self.challenges_page(Pager(query_page(request))),
                       lambda page: self.html("challenges.html", page=page),
                       also=("/challenges/",))]
