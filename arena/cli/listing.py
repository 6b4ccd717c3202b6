"""The server's lists read page after page (``ListBots``, ``ListSeasons``,
``ListAuthors``, ``ListLeagues``, ``ListChallenges``, a bot's versions (``GetBot``),
a league's rounds (``GetLeague``), a season's ``ListSeries`` and its whole
``GetStandings`` for ``arena export``): a list of any length comes in bounded
answers, all of it or its first ``limit`` items (``--limit N`` of the ``list``
commands)."""

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


def read_pages(fetch: Fetch[Item], limit: int | None = None,
               page_size: int | None = None) -> list[Item]:
    """Every item of a paged list, or its first ``limit``, ``page_size`` items a call
    (``LIST_PAGE_SIZE`` unless given)."""
    items: list[Item] = []
    token = ""
    most = LIST_PAGE_SIZE if page_size is None else page_size
    while limit is None or len(items) < limit:
        size = most if limit is None else min(most, limit - len(items))
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


VERSIONS_PAGE_SIZE: Final = 50
"""A bot's versions per ``GetBot`` call: each brings its owner up to 32 KiB of logs."""


def every_version(client: ArenaClient, name: str, metadata: tuple[tuple[str, str], ...]
                  ) -> list[arena_pb2.BotVersion]:
    """Every version of bot ``name`` (oldest first), or the one ``name@version``."""
    def fetch(size: int, token: str) -> tuple[Sequence[arena_pb2.BotVersion], str]:
        page = client.stub.GetBot(arena_pb2.GetBotRequest(
            name=name, page_size=size, page_token=token), metadata=metadata)
        return page.versions, page.next_page_token
    return read_pages(fetch, page_size=VERSIONS_PAGE_SIZE)


LEAGUE_ROUNDS_PAGE_SIZE: Final = 20
"""A league's rounds per ``GetLeague`` call: a round holds a row per bot (a
1,000-bot league's round is some 60 KB)."""


def whole_league(client: ArenaClient, league_id: int) -> arena_pb2.League:
    """The league with every round's tables, round 1 first (as a read without pages
    gives), read a page of rounds at a time (the pages come newest first)."""
    request = arena_pb2.GetLeagueRequest(league_id=league_id,
                                         page_size=LEAGUE_ROUNDS_PAGE_SIZE)
    response = client.stub.GetLeague(request)
    league = response.league
    newest_first = list(league.rounds)
    while response.next_page_token:
        request.page_token = response.next_page_token
        response = client.stub.GetLeague(request)
        newest_first += response.league.rounds
    del league.rounds[:]
    league.rounds.extend(reversed(newest_first))
    return league


def every_series(client: ArenaClient, season_id: int) -> list[arena_pb2.SeriesSummary]:
    """The season's planned series, in plan order."""
    def fetch(size: int, token: str) -> tuple[Sequence[arena_pb2.SeriesSummary], str]:
        page = client.stub.ListSeries(arena_pb2.ListSeriesRequest(
            season_id=season_id, page_size=size, page_token=token))
        return page.series, page.next_page_token
    return read_pages(fetch)


STANDINGS_PAGE_ROWS: Final = 50
"""Standings rows per call: each row brings its crosstable cells (up to a cell per
other bot), so 50 rows of a 1,000-bot season stay far below a message's 4 MiB."""


def whole_standings(client: ArenaClient, season_id: int) -> arena_pb2.Standings:
    """The season's standings with every row and crosstable cell, read page by page
    from one table (the pages' token names it): the first page's standings with the
    later pages' rows and cells added."""
    request = arena_pb2.GetStandingsRequest(season_id=season_id,
                                            page_size=STANDINGS_PAGE_ROWS)
    response = client.stub.GetStandings(request)
    standings = response.standings
    while response.next_page_token:
        request.page_token = response.next_page_token
        response = client.stub.GetStandings(request)
        standings.rows.extend(response.standings.rows)
        standings.crosstable.extend(response.standings.crosstable)
    return standings
