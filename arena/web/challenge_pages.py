"""The challenges page, ``/challenges``, and its ``/api/challenges`` twin: every
challenge (newest first) with its results so far, read-only, for everyone (both
owners included). A challenge's season is in no season list (it is unrated); its
series are linked by id to their replays."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict
from typing import Any

from starlette.responses import HTMLResponse
from starlette.routing import Route

from arena.storage import Storage, challenge_tally, list_challenges
from arena.web.twins import twins

Render = Callable[..., HTMLResponse]


class ChallengePages:
    """The challenges page over ``storage``; ``html(template, **context)`` renders it."""

    def __init__(self, storage: Storage, html: Render) -> None:
        self.storage = storage
        self.html = html

    def challenges_page(self) -> dict[str, Any]:
        return {"challenges": [
            {**asdict(challenge), "status": str(challenge.status),
             **asdict(challenge_tally(self.storage, challenge))}
            for challenge in list_challenges(self.storage)]}

    def routes(self) -> list[Route]:
        return [*twins("/challenges", lambda request: self.challenges_page(),
                       lambda page: self.html("challenges.html", page=page),
                       also=("/challenges/",))]
