"""An arena to play the bots in (issue 38, point 3): the sample greedy bot stored and
active, an author with a token, and the website's play pages over them with the
in-process sandbox (fast), as a TestClient or a served website."""

from __future__ import annotations

import re
from pathlib import Path

from starlette.applications import Starlette
from starlette.testclient import TestClient

from arena.core.manifest import BotManifest, content_hash, iter_bot_files
from arena.season.events import EventHub
from arena.storage import Storage, add_author
from arena.web.app import create_app
from arena.web.play_games import HumanGames, PlaySettings
from tests.helpers.web_helpers import SAMPLE_BOTS

AUTHOR = "ann"


def store_greedy(storage: Storage) -> str:
    """The sample greedy bot, registered (a version without an upload: active)."""
    folder = SAMPLE_BOTS / "greedy"
    manifest = BotManifest.load(folder)
    record, _ = storage.register_bot(
        name=manifest.name, version=manifest.version, language=manifest.language,
        author=manifest.author, description=manifest.description,
        content_hash=content_hash(folder), source_folder=folder,
        files=list(iter_bot_files(folder)))
    return record.id


def play_settings(**changes: object) -> PlaySettings:
    """In-process greedy, one-hand series: a whole game in a few clicks."""
    values: dict[str, object] = {"sandbox": "inprocess", "max_hands": 1, **changes}
    return PlaySettings(**values)  # type: ignore[arg-type]


class PlayArena:
    """greedy, author ``ann`` (``token``) and the play pages (``games``) over ``path``."""

    def __init__(self, path: Path, settings: PlaySettings | None = None) -> None:
        self.storage = Storage(path)
        self.greedy = store_greedy(self.storage)
        _, self.token = add_author(self.storage, AUTHOR)
        self.games = HumanGames(self.storage, settings or play_settings())

    def app(self) -> Starlette:
        return create_app(self.storage, EventHub(), play=self.games)


def start_form(client: TestClient) -> str:
    """The CSRF token of a fresh start form (its cookie kept by ``client``)."""
    page = client.get("/play").text
    found = re.search(r'id="play-form">\s*<input type="hidden" name="csrf" value="([^"]+)"',
                      page)
    assert found is not None, page[:500]
    return found.group(1)


def game_csrf(page: str) -> str | None:
    """The CSRF token of a game page's action form (None: not the person's turn)."""
    found = re.search(r'id="actions">\s*<input type="hidden" name="csrf" value="([^"]+)"',
                      page)
    return None if found is None else found.group(1)


def legal_actions(page: str) -> list[str]:
    return re.findall(r'name="action" value="([^"]+)"', page)
