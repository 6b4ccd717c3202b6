"""Paged and filtered reads: which standings rows a request asks for, and the page
tokens of ``GetStandings``, ``ListSeries``, ``ListBots``, ``ListSeasons``,
``ListAuthors``, ``ListLeagues``, ``ListChallenges``, ``GetBot``'s versions and
``GetLeague``'s rounds.

A standings token names the snapshot (its sequence) and the next rank, so every
page of one listing comes from the same standings while results keep arriving; a
series token names the next plan index, and the plan never reorders.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Final, TypeVar

from arena.season.standings import StandingRow, Standings
from arena.season.standings_live import SnapshotGoneError, StandingsBoard, StandingsSnapshot
from arena.storage import (
    CHALLENGES_PER_PAGE,
    Author,
    BotRecord,
    ChallengeRecord,
    LeagueRecord,
    NotFoundError,
    SeasonRecord,
    Storage,
    list_authors,
    list_challenges,
    list_leagues,
    rounds_made,
    versions_of_name,
)

Item = TypeVar("Item")
_NUMBER: Final = re.compile("[0-9]{1,18}")
"""A number in a token: ASCII digits only (``"²".isdigit()`` is true, ``int("²")``
fails), and below 2^63, the largest integer SQLite holds."""


def _is_number(text: str) -> bool:
    return _NUMBER.fullmatch(text) is not None

MAX_PAGE_SIZE: Final = 10_000


class PageError(ValueError):
    """A page token or filter the server cannot use; the message says why."""


def standings_token(sequence: int, offset: int) -> str:
    return f"s{sequence}.{offset}"


def parse_standings_token(token: str) -> tuple[int, int]:
    """(sequence, offset) of a standings page token."""
    sequence, _, offset = token.removeprefix("s").partition(".")
    if not token.startswith("s") or not _is_number(sequence) or not _is_number(offset):
        raise PageError(f"page_token {token!r} is not a standings page token (pass the "
                        "next_page_token of the previous page, or nothing for the first)")
    return int(sequence), int(offset)


def standings_page_at(board: StandingsBoard, season_id: int, token: str
                      ) -> tuple[StandingsSnapshot, int]:
    """The snapshot a standings page token names and the rank its page starts at;
    ``PageError`` for a token that is not one, or whose snapshot is gone."""
    sequence, offset = parse_standings_token(token)
    try:
        return board.at(season_id, sequence), offset
    except SnapshotGoneError as gone:
        raise PageError(str(gone)) from None


def series_token(next_index: int) -> str:
    return f"i{next_index}"


def parse_series_token(token: str) -> int:
    if not token.startswith("i") or not _is_number(token[1:]):
        raise PageError(f"page_token {token!r} is not a series page token (pass the "
                        "next_page_token of the previous page, or nothing for the first)")
    return int(token[1:])


def bots_page(storage: Storage, page_size: int, token: str) -> tuple[list[BotRecord], str]:
    """A ``ListBots`` page (every version when ``page_size`` is 0) and the token of
    the next ("" after the last): the id of the page's last version."""
    check_page_size(page_size)
    after = ""
    if token:
        if not token.startswith("b") or len(token) < 2:
            raise PageError(f"page_token {token!r} is not a bot list page token (pass the "
                            "next_page_token of the previous page, or nothing for the first)")
        after = storage.get_bot(token[1:]).id  # unknown: not found, never the first page
    bots = storage.list_bots(after, page_size + 1 if page_size else None)
    if page_size and len(bots) > page_size:
        return bots[:page_size], f"b{bots[page_size - 1].id}"
    return bots, ""


def seasons_page(storage: Storage, page_size: int, token: str
                 ) -> tuple[list[SeasonRecord], str]:
    """A ``ListSeasons`` page, newest first (every season when ``page_size`` is 0),
    and the token of the next ("" after the last): the id of the page's last season."""
    check_page_size(page_size)
    before = 0
    if token:
        if not token.startswith("n") or not _is_number(token[1:]) or int(token[1:]) < 1:
            raise PageError(f"page_token {token!r} is not a season list page token (pass "
                            "the next_page_token of the previous page, or nothing for the "
                            "first)")
        before = int(token[1:])
    seasons = storage.list_seasons(before, page_size + 1 if page_size else None)
    if page_size and len(seasons) > page_size:
        return seasons[:page_size], f"n{seasons[page_size - 1].id}"
    return seasons, ""


def versions_page(storage: Storage, name: str, page_size: int, token: str
                  ) -> tuple[list[BotRecord], str]:
    """A page of bot ``name``'s versions, oldest first (every version when
    ``page_size`` is 0), and the token of the next ("" after the last): the id of
    the page's last version, so a version uploaded meanwhile shifts no page."""
    check_page_size(page_size)
    after = ""
    if token:
        version = token[1:]
        if not token.startswith("v") or version.partition("@")[0] != name:
            raise PageError(f"page_token {token!r} is not a page token of bot {name}'s "
                            "versions (pass the next_page_token of the previous page, or "
                            "nothing for the first)")
        try:
            after = storage.get_bot(version).id
        except NotFoundError:  # never read as the first page
            raise PageError(f"page_token {token!r} names no version of bot {name}") from None
    versions = versions_of_name(storage, name, after, page_size + 1 if page_size else None)
    return _cut(versions, page_size, lambda version: f"v{version.id}")


def league_rounds_page(storage: Storage, league_id: int, page_size: int, token: str
                       ) -> tuple[range | None, str]:
    """The rounds of a ``GetLeague`` page, newest first (None when ``page_size`` is 0:
    every round, round 1 first, as before pages), and the token of the next page
    ("" after round 1): the page's oldest round, so a round made meanwhile shifts no
    page (it is on a first page read after it)."""
    check_page_size(page_size)
    below = _below_id(token, "r", "league round")
    if not page_size and not token:
        return None, ""
    newest = rounds_made(storage, league_id)
    if below > newest:
        raise PageError(f"page_token {token!r} names no round of league {league_id} "
                        f"(it has {newest})")
    top = below - 1 if below else newest
    shown = range(top, max(top - page_size, 0) if page_size else 0, -1)
    return shown, f"r{shown[-1]}" if shown and shown[-1] > 1 else ""


def _below_id(token: str, prefix: str, listing: str) -> int:
    """The id a newest-first page token names (0 for no token: the first page)."""
    if not token:
        return 0
    if not token.startswith(prefix) or not _is_number(token[1:]) or int(token[1:]) < 1:
        raise PageError(f"page_token {token!r} is not a {listing} page token (pass the "
                        "next_page_token of the previous page, or nothing for the first)")
    return int(token[1:])


def _cut(items: list[Item], page_size: int, token_of: Callable[[Item], str]
         ) -> tuple[list[Item], str]:
    """The page of ``items`` (read one past ``page_size`` to know whether another
    follows) and the next page's token ("" after the last)."""
    if page_size and len(items) > page_size:
        return items[:page_size], token_of(items[page_size - 1])
    return items, ""


def authors_page(storage: Storage, page_size: int, token: str) -> tuple[list[Author], str]:
    """A ``ListAuthors`` page, oldest first (every author when ``page_size`` is 0); the
    token names the page's last author by creation time and name, so an author added
    meanwhile shifts no page."""
    check_page_size(page_size)
    after = None
    if token:
        created, separator, name = token[1:].partition("/")
        if not token.startswith("a") or not separator or not created or not name:
            raise PageError(f"page_token {token!r} is not an author list page token (pass "
                            "the next_page_token of the previous page, or nothing for the "
                            "first)")
        after = (created, name)
    authors = list_authors(storage, after, page_size + 1 if page_size else None)
    return _cut(authors, page_size, lambda author: f"a{author.created_at}/{author.name}")


def leagues_page(storage: Storage, page_size: int, token: str
                 ) -> tuple[list[LeagueRecord], str]:
    """A ``ListLeagues`` page, newest first (every league when ``page_size`` is 0)."""
    check_page_size(page_size)
    before = _below_id(token, "l", "league list")
    leagues = list_leagues(storage, before, page_size + 1 if page_size else None)
    return _cut(leagues, page_size, lambda league: f"l{league.id}")


def challenges_page(storage: Storage, bot: str, page_size: int, token: str
                    ) -> tuple[list[ChallengeRecord], str]:
    """A ``ListChallenges`` page, newest first: ``page_size`` challenges (0: the
    default of ``CHALLENGES_PER_PAGE``, what a call without paging always got)."""
    check_page_size(page_size)
    size = page_size or CHALLENGES_PER_PAGE
    before = _below_id(token, "c", "challenge list")
    challenges = list_challenges(storage, bot, before, size + 1)
    return _cut(challenges, size, lambda challenge: f"c{challenge.season_id}")


def check_page_size(page_size: int) -> None:
    if page_size > MAX_PAGE_SIZE:
        raise PageError(f"page_size {page_size} is above the limit of {MAX_PAGE_SIZE}")


def rows_of_bots(standings: Standings, references: Sequence[str]) -> list[StandingRow]:
    """The rows of the bots named by id (name@version) or by name (every version of
    that name in the season), in rank order; ``PageError`` for a name not in it."""
    wanted = {reference.strip() for reference in references if reference.strip()}
    rows = [row for row in standings.rows
            if row.bot_id in wanted or row.bot_id.partition("@")[0] in wanted]
    found = {row.bot_id for row in rows} | {row.bot_id.partition("@")[0] for row in rows}
    missing = sorted(wanted - found)
    if missing:
        raise PageError(f"not in this season: {', '.join(missing)} (the season's bots are "
                        "listed by `arena season show`)")
    return rows


def with_rows(standings: Standings, rows: Sequence[StandingRow], *, crosstable: bool) -> Standings:
    """``standings`` cut to ``rows``, with those bots' crosstable cells (or none)."""
    shown = {row.bot_id for row in rows}
    cells = ({bot: opponents for bot, opponents in standings.crosstable.items() if bot in shown}
             if crosstable else {})
    return Standings(rows=list(rows), crosstable=cells)


def live_rows(standings: Standings, top: int, references: Sequence[str]) -> list[StandingRow]:
    """The first ``top`` rows plus the named bots' rows, in rank order."""
    named = {row.bot_id for row in rows_of_bots(standings, references)} if references else set()
    return [row for row in standings.rows if row.rank <= top or row.bot_id in named]
