"""The server's lists read page after page (``ListBots``, ``ListSeasons``,
``ListAuthors``, ``ListLeagues``, ``ListChallenges``): a list of any length comes
in bounded answers, all of it or its first ``limit`` items (``--limit N`` of the
``list`` commands)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final, TypeVar

from hollywood.arena.v1 import arena_pb2

from arena.cli.client import ArenaClient

LIST_PAGE_SIZE: Final = 500
"""Items per call: well under the server's page limit and a gRPC message's size."""

Item = TypeVar("Item")
Fetch = Callable[[int, str], tuple[Sequence[Item], str]]
"""One page: (page size, page token) -> (its items, the next page's token)."""


def read_pages(fetch: Fetch[Item], limit: int | None = None) -> list[Item]:
    """Every item of a paged list, or its first ``limit``."""
    items: list[Item] = []
    token = ""
    while limit is None or len(items) < limit:
        size = LIST_PAGE_SIZE if limit is None else min(LIST_PAGE_SIZE, limit - len(items))
        page, token = fetch(size, token)
        items += page
        if not token:
            break
    return items if limit is None else items[:limit]


def every_bot(client: ArenaClient, limit: int | None = None) -> list[arena_pb2.Bot]:
    """The registered bot versions, oldest first."""
    def fetch(size: int, token: str) -> tuple[Sequence[arena_pb2.Bot], str]:
        page = client.stub.ListBots(arena_pb2.ListBotsRequest(page_size=size,
                                                              page_token=token))
        return page.bots, page.next_page_token
    return read_pages(fetch, limit)


def every_season(client: ArenaClient, limit: int | None = None) -> list[arena_pb2.Season]:
    """The seasons, newest first."""
    def fetch(size: int, token: str) -> tuple[Sequence[arena_pb2.Season], str]:
        page = client.stub.ListSeasons(arena_pb2.ListSeasonsRequest(page_size=size,
                                                                    page_token=token))
        return page.seasons, page.next_page_token
    return read_pages(fetch, limit)


def every_author(client: ArenaClient, limit: int | None = None) -> list[arena_pb2.Author]:
    """The authors, oldest first (the admin's call)."""
    def fetch(size: int, token: str) -> tuple[Sequence[arena_pb2.Author], str]:
        page = client.stub.ListAuthors(arena_pb2.ListAuthorsRequest(
            page_size=size, page_token=token), metadata=client.auth)
        return page.authors, page.next_page_token
    return read_pages(fetch, limit)


def every_league(client: ArenaClient, limit: int | None = None) -> list[arena_pb2.League]:
    """The leagues, newest first."""
    def fetch(size: int, token: str) -> tuple[Sequence[arena_pb2.League], str]:
        page = client.stub.ListLeagues(arena_pb2.ListLeaguesRequest(page_size=size,
                                                                    page_token=token))
        return page.leagues, page.next_page_token
    return read_pages(fetch, limit)


def every_challenge(client: ArenaClient, bot: str = "",
                    limit: int | None = None) -> list[arena_pb2.Challenge]:
    """The challenges (of ``bot``'s versions only, if given), newest first."""
    def fetch(size: int, token: str) -> tuple[Sequence[arena_pb2.Challenge], str]:
        page = client.stub.ListChallenges(arena_pb2.ListChallengesRequest(
            bot=bot, page_size=size, page_token=token))
        return page.challenges, page.next_page_token
    return read_pages(fetch, limit)
