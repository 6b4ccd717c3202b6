"""The one door for what a URL carries: every path parameter of the website's routes
is matched by a convertor declared here, and every query value is read through
``query_id``. Ids are ASCII digits of bounded length, so no id reaches a database
query as a number SQLite cannot hold (ids of 2^63 and more once answered 500) and no
Unicode digit (``"²".isdigit()`` is true, ``int("²")`` fails) reaches ``int``.
Anything else is a 404 (a path that names nothing) or a 400 (a bad query value)."""

from __future__ import annotations

import re
from typing import Final

from starlette.convertors import Convertor, register_url_convertor
from starlette.requests import Request

MAX_ID_DIGITS: Final = 18
"""Every id of up to 18 digits is below 2^63 - 1, SQLite's largest integer."""
ID_PATTERN: Final = f"[0-9]{{1,{MAX_ID_DIGITS}}}"
MAX_BOT_ID_CHARS: Final = 256
"""Longer than any stored ``name@version`` (a name has at most 32 characters)."""
MAX_NAME_CHARS: Final = 64
"""Longer than any author's name (at most 32 characters)."""
_ID: Final = re.compile(ID_PATTERN)


class BadParameter(ValueError):
    """A query value the website refuses (answered 400, naming it)."""


class IdConvertor(Convertor[int]):
    """A season number: 1 to 18 ASCII digits."""

    regex = ID_PATTERN

    def convert(self, value: str) -> int:
        return int(value)

    def to_string(self, value: int) -> str:
        return str(value)


class SeriesIdConvertor(Convertor[str]):
    """A series id, its season number and its index in the plan: ``3-17``."""

    regex = f"{ID_PATTERN}-{ID_PATTERN}"

    def convert(self, value: str) -> str:
        return value

    def to_string(self, value: str) -> str:
        return value


class BotIdConvertor(Convertor[str]):
    """A bot id, ``name@version`` or a name. Slashes are allowed: a bot stored under
    an old or hand-edited database may carry any name, and its page must open."""

    regex = f".{{1,{MAX_BOT_ID_CHARS}}}"

    def convert(self, value: str) -> str:
        return value

    def to_string(self, value: str) -> str:
        return value


class NameConvertor(Convertor[str]):
    """An author's name: any text up to 64 characters (the page of a name that is no
    author is a 404 naming it; the name is escaped like everything shown)."""

    regex = f".{{1,{MAX_NAME_CHARS}}}"

    def convert(self, value: str) -> str:
        return value

    def to_string(self, value: str) -> str:
        return value


register_url_convertor("arena_id", IdConvertor())
register_url_convertor("arena_series_id", SeriesIdConvertor())
register_url_convertor("arena_bot_id", BotIdConvertor())
register_url_convertor("arena_name", NameConvertor())


MAX_PAGE_NUMBER: Final = 1_000_000
"""Far past any list's last page (the offset it makes stays a small integer)."""


def query_page(request: Request) -> int:
    """The 1-based page number in ``?page=`` (1 when absent or empty); ``BadParameter``
    for anything but a number from 1 to ``MAX_PAGE_NUMBER``."""
    number = query_id(request, "page")
    if number is None:
        return 1
    if not 1 <= number <= MAX_PAGE_NUMBER:
        raise BadParameter(f"page must be from 1 to {MAX_PAGE_NUMBER}, not {number}")
    return number


def query_id(request: Request, name: str) -> int | None:
    """The id in the query value ``name`` (None when absent or empty); ``BadParameter``
    for anything but 1 to 18 ASCII digits."""
    text = request.query_params.get(name, "")
    if not text:
        return None
    if _ID.fullmatch(text) is None:
        raise BadParameter(f"{name} must be a number of 1 to {MAX_ID_DIGITS} digits 0-9, "
                           f"not {text[:40]!r}")
    return int(text)


class GameIdConvertor(Convertor[str]):
    """A person's game against a bot: 22 URL-safe characters (16 random bytes)."""

    regex = "[A-Za-z0-9_-]{22}"

    def convert(self, value: str) -> str:
        return value

    def to_string(self, value: str) -> str:
        return value


register_url_convertor("arena_game_id", GameIdConvertor())
