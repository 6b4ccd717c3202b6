"""The ``ArenaService`` methods of leagues of divisions: ``CreateLeague``,
``NextLeagueRound`` and ``CancelLeague`` (the admin only), ``GetLeague`` and
``ListLeagues`` (open to everyone), and the conversion of a league's tables
(``arena.season.league_tables``) to the API's messages. A mixin of
``arena.server.service.ArenaService``, which supplies ``_call``, ``storage``,
``leagues``, ``readings`` and ``max_season_bots``."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Final, TypeVar

import grpc
from hollywood.arena.v1 import arena_pb2

from arena.core.manifest import BotManifest
from arena.core.settings import ConfigError
from arena.season.league_rules import LeagueRule
from arena.season.league_tables import LeagueTables, league_tables
from arena.season.leagues import LeagueKeeper, LeaguePlan, create_league, division_formats
from arena.season.readings import SeasonReadings
from arena.server import pages
from arena.server.convert import STATUS_TO_PROTO, config_from_message, config_message
from arena.server.lifecycle import check_active
from arena.server.validation import check_bots_fit_sandbox
from arena.storage import LeagueRecord, Storage, get_league, newest_active, rounds_made

Response = TypeVar("Response")

MOVEMENTS: Final = {
    "": arena_pb2.MOVEMENT_UNSPECIFIED, "stayed": arena_pb2.MOVEMENT_STAYED,
    "promoted": arena_pb2.MOVEMENT_PROMOTED, "relegated": arena_pb2.MOVEMENT_RELEGATED,
}
DEFAULT_LEAGUE_ROUNDS: Final = 1


def league_message(league: LeagueRecord, tables: LeagueTables | None = None
                   ) -> arena_pb2.League:
    """The API's ``League``; with ``tables``, their rounds' division tables."""
    plan = LeaguePlan.of(league)
    message = arena_pb2.League(
        id=league.id, name=league.name, divisions=plan.rule.divisions,
        promote=plan.rule.promote, relegate=plan.rule.relegate, planned_rounds=plan.rounds,
        division_formats=list(plan.formats), created_at=league.created_at,
        config=config_message(plan.config), cancelled_at=league.cancelled_at)
    for league_round in tables.rounds if tables is not None else ():
        round_message = message.rounds.add(round=league_round.number)
        for table in league_round.divisions:
            division = round_message.divisions.add(
                division=table.division, season_id=table.season_id, format=table.format,
                status=STATUS_TO_PROTO[table.status])
            for row in table.rows:
                division.rows.add(rank=row.rank, bot_id=row.bot_id,
                                  series_played=row.series_played,
                                  series_points=row.series_points,
                                  movement=MOVEMENTS[row.movement],
                                  next_division=row.next_division)
    return message


class LeaguesMixin:
    """League RPCs (see the module's docstring)."""

    storage: Storage
    leagues: LeagueKeeper
    readings: SeasonReadings
    max_season_bots: int

    if TYPE_CHECKING:
        def _call(self, context: grpc.ServicerContext, body: Callable[[], Response], *,
                  mutating: bool = False) -> Response: ...

    def CreateLeague(self, request: arena_pb2.CreateLeagueRequest,
                     context: grpc.ServicerContext) -> arena_pb2.CreateLeagueResponse:
        return self._call(context, lambda: self._create_league(request), mutating=True)

    def _create_league(self, request: arena_pb2.CreateLeagueRequest
                       ) -> arena_pb2.CreateLeagueResponse:
        if request.all_active and request.bots:
            raise ConfigError("all_active enters every bot's newest active version: "
                              "give no bots with it")
        references = (newest_active(self.storage) if request.all_active
                      else [reference.strip() for reference in request.bots])
        if any(not reference for reference in references):
            raise ConfigError("bots: an empty bot name")
        if len(references) > self.max_season_bots:
            raise ConfigError(f"a league of {len(references)} bots is more than this "
                              f"server's limit of {self.max_season_bots} bots")
        if len(request.name) > 200:
            raise ConfigError("name is longer than 200 characters")
        # A bare name is its newest active version, as for a season.
        active = {bot_id.partition("@")[0]: bot_id for bot_id in newest_active(self.storage)}
        ids = [active.get(reference) or self.storage.resolve_bot(reference).id
               for reference in references]
        check_active(self.storage, ids)
        config = config_from_message(request.config)
        check_bots_fit_sandbox(config, (BotManifest.load(self.storage.get_bot(bot_id).folder)
                                        for bot_id in ids))
        rule = LeagueRule(request.divisions, request.promote, request.relegate)
        plan = LeaguePlan(rule, request.rounds or DEFAULT_LEAGUE_ROUNDS,
                          division_formats(rule.divisions, config.format,
                                           dict(request.division_formats)), config)
        league = create_league(self.storage, request.name, plan, ids)
        self.leagues.start(league.id)
        return arena_pb2.CreateLeagueResponse(league=self._league(league.id))

    def GetLeague(self, request: arena_pb2.GetLeagueRequest,
                  context: grpc.ServicerContext) -> arena_pb2.GetLeagueResponse:
        def body() -> arena_pb2.GetLeagueResponse:
            get_league(self.storage, request.league_id)  # NOT_FOUND before any token
            rounds, token = pages.league_rounds_page(
                self.storage, request.league_id, request.page_size, request.page_token)
            return arena_pb2.GetLeagueResponse(
                league=self._league(request.league_id, rounds), next_page_token=token)
        return self._call(context, body)

    def ListLeagues(self, request: arena_pb2.ListLeaguesRequest,
                    context: grpc.ServicerContext) -> arena_pb2.ListLeaguesResponse:
        def body() -> arena_pb2.ListLeaguesResponse:
            leagues, token = pages.leagues_page(self.storage, request.page_size,
                                                request.page_token)
            return arena_pb2.ListLeaguesResponse(
                leagues=[league_message(league) for league in leagues], next_page_token=token)
        return self._call(context, body)

    def NextLeagueRound(self, request: arena_pb2.NextLeagueRoundRequest,
                        context: grpc.ServicerContext) -> arena_pb2.NextLeagueRoundResponse:
        def body() -> arena_pb2.NextLeagueRoundResponse:
            self.leagues.next_round(request.league_id)
            return arena_pb2.NextLeagueRoundResponse(
                league=self._league(request.league_id, self._newest_round(request.league_id)))
        return self._call(context, body, mutating=True)

    def CancelLeague(self, request: arena_pb2.CancelLeagueRequest,
                     context: grpc.ServicerContext) -> arena_pb2.CancelLeagueResponse:
        def body() -> arena_pb2.CancelLeagueResponse:
            self.leagues.cancel(request.league_id)
            return arena_pb2.CancelLeagueResponse(
                league=self._league(request.league_id, self._newest_round(request.league_id)))
        return self._call(context, body, mutating=True)

    def _newest_round(self, league_id: int) -> range:
        """The league's newest round (the one a change starts or stops; every round of
        a 1,000-round league would not fit an answer: GetLeague pages them)."""
        newest = rounds_made(self.storage, league_id)
        return range(newest, newest - 1, -1) if newest else range(0)

    def _league(self, league_id: int, rounds: range | None = None) -> arena_pb2.League:
        """The league with the tables of ``rounds``, in its order (every round, round 1
        first, unless given)."""
        tables = league_tables(self.storage, self.readings, league_id, rounds)
        return league_message(tables.league, tables)
