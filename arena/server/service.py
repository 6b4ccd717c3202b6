"""The ``hollywood.arena.v1.ArenaService`` implementation over the database.

Calls that change anything need ``authorization: Bearer <token>`` metadata, else
they fail with UNAUTHENTICATED; reads and ``WatchSeason`` are open. Bad input fails
with INVALID_ARGUMENT / NOT_FOUND / ALREADY_EXISTS and a specific message, and
changes nothing. (The server is started by ``arena.server.app.start_server``.)
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterator
from typing import Final, TypeVar

import grpc
from hollywood.arena.v1 import arena_pb2, arena_pb2_grpc

from arena.core.defaults import DEFAULT_MAX_SEASON_BOTS
from arena.core.manifest import BotManifest, ManifestError
from arena.core.settings import ConfigError
from arena.core.status import IllegalTransitionError, SeasonStatus
from arena.core.text import bounded, neutralise
from arena.core.token_binding import ServerRecord
from arena.season.challenge_queue import ChallengeQueue, ChallengeRules
from arena.season.events import EventHub
from arena.season.formats import format_for, new_deal_key
from arena.season.leagues import LeagueError, LeagueKeeper
from arena.season.live_feed import LiveFeeds
from arena.season.manager import SeasonManager
from arena.season.readings import SeasonReadings
from arena.season.seeding import current_ratings
from arena.season.standings_live import StandingsBoard
from arena.server import pages
from arena.server.accounts import AccountsMixin, bots_with_states
from arena.server.auth import Authenticator
from arena.server.challenges import ChallengesMixin
from arena.server.convert import (
    season_message,
    series_message,
)
from arena.server.event_log import season_created
from arena.server.leagues import LeaguesMixin
from arena.server.lifecycle import LifecycleMixin, RequestError, check_active
from arena.server.owner_logs import LogRequestError, NotOwnerError, OwnerLogsMixin
from arena.server.proof import prove_admin_token
from arena.server.story import series_story
from arena.server.uploads import UploadLimits, UploadRefused, UploadSlots
from arena.server.validation import check_season_request
from arena.server.vetting import VettingWorker
from arena.server.watch import StandingsMessages, WatchMessages, WatchStream
from arena.storage import (
    AuthorError,
    ConflictError,
    LifecycleError,
    NameTakenError,
    NotFoundError,
    ReplaceRefusedError,
    Storage,
    is_sealed,
    newest_active,
    sealed_series,
)

log = logging.getLogger(__name__)

MAX_STATUS_CHARS: Final = 1000
SERVICE_NAME: Final = arena_pb2.DESCRIPTOR.services_by_name["ArenaService"].full_name
MUTATING_METHODS: Final = frozenset(
    f"/{SERVICE_NAME}/{name}"
    for name in ("CreateSeason", "StartSeason", "CancelSeason", "SubmitBot", "AddAuthor",
                 "ListAuthors", "RevokeAuthor", "ReactivateBot", "RevetBot", "KeepOnLadder",
                 "AdmitToLadder", "CreateLeague", "NextLeagueRound",
                 "CancelLeague", "CreateChallenge"))

Response = TypeVar("Response")


class _Abort(Exception):
    """Ends an RPC with a status code and message."""

    def __init__(self, code: grpc.StatusCode, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def _status_set(context: grpc.ServicerContext) -> bool:
    """Whether the call already has its status (``code()`` is missing from the stubs)."""
    code: Callable[[], object] = getattr(context, "code", lambda: None)
    return code() is not None


def _invalid(message: str) -> _Abort:
    return _Abort(grpc.StatusCode.INVALID_ARGUMENT, message)


class ArenaService(LifecycleMixin, AccountsMixin, LeaguesMixin, OwnerLogsMixin,
                   ChallengesMixin, arena_pb2_grpc.ArenaServiceServicer):
    """The ``ArenaService`` implementation (uploads and authors in ``AccountsMixin``,
    a bot's lifecycle in ``LifecycleMixin``, leagues in ``LeaguesMixin``, the owner's
    series logs in ``OwnerLogsMixin``, challenges in ``ChallengesMixin``)."""

    def __init__(
        self, storage: Storage, manager: SeasonManager, hub: EventHub, token: str,
        *, max_season_bots: int = DEFAULT_MAX_SEASON_BOTS,
        upload_limits: UploadLimits | None = None, vetting: VettingWorker | None = None,
        readings: SeasonReadings | None = None, leagues: LeagueKeeper | None = None,
        feeds: LiveFeeds | None = None,
    ) -> None:
        self.storage = storage
        self.vetting = vetting
        self.manager = manager
        self.board: StandingsBoard = manager.board
        self.hub = hub
        self.auth = Authenticator(storage, token)
        self.admin_token = token
        self.served: ServerRecord | None = None
        """The addresses the server listens on (``arena.server.app`` sets them once it
        does): it proves its admin token for these only."""
        self.upload_limits = upload_limits or UploadLimits()
        self.upload_slots = UploadSlots(self.upload_limits)
        self.max_season_bots = max_season_bots
        # The standings, statistics and progress every screen shows (the website
        # reads the same object: ``arena.server.app``).
        self.readings = readings if readings is not None else SeasonReadings(storage, self.board)
        self.messages = StandingsMessages(storage, self.readings)
        self.leagues = leagues if leagues is not None else LeagueKeeper(
            storage, manager, self.readings)
        self.watch_messages = WatchMessages(storage, self.board, self.messages)
        # The one batcher of live updates, shared with the website (``arena.server.app``).
        self.feeds = feeds if feeds is not None else LiveFeeds(hub)
        # Challenges play in the sandbox uploads are vetted in (untrusted code).
        self.challenges = ChallengeQueue(storage, manager, ChallengeRules(
            sandbox=vetting.sandbox_name if vetting is not None else ""))

    # -- plumbing

    def _call(
        self,
        context: grpc.ServicerContext,
        body: Callable[[], Response],
        *,
        mutating: bool = False,
    ) -> Response:
        if mutating:
            self.authorize(context)
        try:
            return body()
        except _Abort as abort:
            code, message = abort.code, abort.message
        except NotFoundError as error:
            code, message = grpc.StatusCode.NOT_FOUND, str(error.args[0])
        except UploadRefused as refused:
            code, message = refused.code, refused.message
        except ConflictError as error:
            code, message = grpc.StatusCode.ALREADY_EXISTS, str(error)
        except (NameTakenError, NotOwnerError) as error:
            code, message = grpc.StatusCode.PERMISSION_DENIED, str(error)
        except (ReplaceRefusedError, LifecycleError, IllegalTransitionError,
                LeagueError) as error:
            code, message = grpc.StatusCode.FAILED_PRECONDITION, str(error)
        except (RequestError, LogRequestError, ConfigError, ManifestError, AuthorError,
                pages.PageError) as error:
            code, message = grpc.StatusCode.INVALID_ARGUMENT, str(error)
        except Exception as error:  # a bug or e.g. a locked database: say so, keep serving
            # An abort raised by a nested call, or by the interceptor decoding a
            # streamed request message: the call already has its status.
            if isinstance(error, grpc.RpcError) or _status_set(context):
                raise
            log.exception("internal error")
            code = grpc.StatusCode.INTERNAL
            message = f"internal error: {type(error).__name__}: {error}"
        # Messages may quote what a client sent: never echo it whole or raw.
        context.abort(code, bounded(neutralise(message), MAX_STATUS_CHARS))
        raise AssertionError("unreachable: context.abort raises")

    def authorize(self, context: grpc.ServicerContext) -> None:
        """Abort unless the call carries the admin token (UNAUTHENTICATED without a
        valid token, PERMISSION_DENIED for an author's)."""
        self.auth.admin(context)

    def _season_id(self, requested: int) -> int:
        return requested if requested else self.storage.latest_season_id()

    # -- identity

    def ProveAdminToken(
        self, request: arena_pb2.ProveAdminTokenRequest, context: grpc.ServicerContext
    ) -> arena_pb2.ProveAdminTokenResponse:
        return self._call(context, lambda: arena_pb2.ProveAdminTokenResponse(
            proof=prove_admin_token(self.admin_token, self.served, request.address,
                                    request.challenge)))

    # -- bots

    def ListBots(
        self, request: arena_pb2.ListBotsRequest, context: grpc.ServicerContext
    ) -> arena_pb2.ListBotsResponse:
        def body() -> arena_pb2.ListBotsResponse:
            bots, token = pages.bots_page(self.storage, request.page_size, request.page_token)
            return arena_pb2.ListBotsResponse(bots=bots_with_states(self.storage, bots),
                                              next_page_token=token)
        return self._call(context, body)

    # -- seasons

    def CreateSeason(
        self, request: arena_pb2.CreateSeasonRequest, context: grpc.ServicerContext
    ) -> arena_pb2.CreateSeasonResponse:
        return self._call(context, lambda: self._create_season(request), mutating=True)

    def _create_season(
        self, original: arena_pb2.CreateSeasonRequest
    ) -> arena_pb2.CreateSeasonResponse:
        request = original
        if request.all_active:
            if request.bots:
                raise _invalid("all_active enters every bot's newest active version: "
                               "give no bots with it")
            request = arena_pb2.CreateSeasonRequest()  # a copy: the caller's stays
            request.CopyFrom(original)
            del request.bots[:]
            request.bots.extend(newest_active(self.storage))
        # A bare name is its newest active version (a newer one may still be vetted
        # or rejected); a bot without one resolves as usual and is refused below.
        active = {bot_id.partition("@")[0]: bot_id for bot_id in newest_active(self.storage)}
        ids, config = check_season_request(
            request, lambda reference: active.get(reference)
            or self.storage.resolve_bot(reference).id,
            lambda bot_id: BotManifest.load(self.storage.get_bot(bot_id).folder),
            max_bots=self.max_season_bots)
        check_active(self.storage, ids)
        # Without a seed of its own, the season is dealt from a secret (its seed stays 0).
        deal_key = None if config.seed else new_deal_key()
        season_format = format_for(config.format, config)
        ids = season_format.seeded(ids, lambda bots: current_ratings(self.storage, bots))
        first_round = season_format.first_round(ids, deal_key or config.seed)
        season = self.storage.create_season(
            name=request.name.strip(), config=config.to_dict(),
            profile=config.profile().to_dict(), bot_ids=ids,
            plan=[pairing.as_row() for pairing in first_round], deal_key=deal_key,
        )
        season_created(season)
        if not request.hold:
            self.manager.start(season.id)
            season = self.storage.get_season(season.id)
        return arena_pb2.CreateSeasonResponse(season=season_message(season))

    def StartSeason(
        self, request: arena_pb2.StartSeasonRequest, context: grpc.ServicerContext
    ) -> arena_pb2.StartSeasonResponse:
        def body() -> arena_pb2.StartSeasonResponse:
            season = self.storage.get_season(self._required_id(request.season_id))
            if season.status == SeasonStatus.FINISHED:
                raise _Abort(grpc.StatusCode.FAILED_PRECONDITION,
                             f"season {season.id} is finished: nothing left to play")
            self.manager.start(season.id)
            return arena_pb2.StartSeasonResponse(
                season=season_message(self.storage.get_season(season.id)))
        return self._call(context, body, mutating=True)

    def CancelSeason(
        self, request: arena_pb2.CancelSeasonRequest, context: grpc.ServicerContext
    ) -> arena_pb2.CancelSeasonResponse:
        def body() -> arena_pb2.CancelSeasonResponse:
            season = self.storage.get_season(self._required_id(request.season_id))
            if season.status.is_terminal:
                raise _Abort(grpc.StatusCode.FAILED_PRECONDITION,
                             f"season {season.id} is already {season.status}")
            self.manager.cancel(season.id)
            return arena_pb2.CancelSeasonResponse(
                season=season_message(self.storage.get_season(season.id)))
        return self._call(context, body, mutating=True)

    def _required_id(self, season_id: int) -> int:
        if season_id <= 0:
            raise _invalid("season_id is required (a season number, see `arena season list`)")
        return season_id

    def GetSeason(
        self, request: arena_pb2.GetSeasonRequest, context: grpc.ServicerContext
    ) -> arena_pb2.GetSeasonResponse:
        return self._call(context, lambda: arena_pb2.GetSeasonResponse(
            season=season_message(self.storage.get_season(self._season_id(request.season_id)))))

    def ListSeasons(
        self, request: arena_pb2.ListSeasonsRequest, context: grpc.ServicerContext
    ) -> arena_pb2.ListSeasonsResponse:
        def body() -> arena_pb2.ListSeasonsResponse:
            seasons, token = pages.seasons_page(self.storage, request.page_size,
                                                request.page_token)
            return arena_pb2.ListSeasonsResponse(
                seasons=[season_message(season) for season in seasons], next_page_token=token)
        return self._call(context, body)

    # -- standings and live

    def GetStandings(
        self, request: arena_pb2.GetStandingsRequest, context: grpc.ServicerContext
    ) -> arena_pb2.GetStandingsResponse:
        return self._call(context, lambda: self._get_standings(request, context))

    def _get_standings(self, request: arena_pb2.GetStandingsRequest,
                       context: grpc.ServicerContext) -> arena_pb2.GetStandingsResponse:
        season_id = self._season_id(request.season_id)
        pages.check_page_size(request.page_size)
        if request.recompute:  # minutes of a big season's CPU, under its standings' lock
            self.auth.admin(context)
            self.board.recompute(season_id)
        if request.page_token:
            snapshot, offset = pages.standings_page_at(self.board, season_id, request.page_token)
        else:
            snapshot, offset = self.board.snapshot(season_id), 0
        table = snapshot.standings
        los = request.include_los
        if request.bot_ids:
            rows = pages.rows_of_bots(table, request.bot_ids)
            return arena_pb2.GetStandingsResponse(standings=self.messages.part(
                snapshot, pages.with_rows(table, rows, crosstable=True), los=los))
        if not request.page_size and not offset:
            return arena_pb2.GetStandingsResponse(standings=self.messages.whole(snapshot,
                                                                                los=los))
        end = offset + request.page_size if request.page_size else len(table.rows)
        response = arena_pb2.GetStandingsResponse(standings=self.messages.part(
            snapshot, pages.with_rows(table, table.rows[offset:end], crosstable=True),
            los=los))
        if end < len(table.rows):
            response.next_page_token = pages.standings_token(snapshot.sequence, end)
        return response

    def WatchSeason(  # type: ignore[override]  # bytes: its handler sends them as they are
        self, request: arena_pb2.WatchSeasonRequest, context: grpc.ServicerContext
    ) -> Iterator[bytes]:
        """Encoded responses (``encoded_watch_handler`` sends them as they are)."""
        season_id = self._call(context, lambda: self._season_id(request.season_id))
        self._call(context, lambda: self.storage.get_season(season_id))
        top, bots = request.top, tuple(request.bot_ids)
        if bots:  # a bot not in the season: say so before streaming
            self._call(context, lambda: pages.rows_of_bots(
                self.board.snapshot(season_id).standings, bots))
        view = (season_id, top, bots, request.include_los, request.standings_deltas)
        stream = WatchStream(self.watch_messages, view, batch=request.batch_series_events)
        with self.feeds.reader(season_id) as reader:
            yield from stream.follow(reader, context.is_active,
                                     lambda: self._season_over(season_id))

    def _season_over(self, season_id: int) -> bool:
        return (self.storage.get_season(season_id).status.is_terminal
                and not self.manager.is_active(season_id))

    # -- series

    def ListSeries(
        self, request: arena_pb2.ListSeriesRequest, context: grpc.ServicerContext
    ) -> arena_pb2.ListSeriesResponse:
        def body() -> arena_pb2.ListSeriesResponse:
            season_id = self._season_id(request.season_id)
            self.storage.get_season(season_id)
            pages.check_page_size(request.page_size)
            first = pages.parse_series_token(request.page_token) if request.page_token else 0
            size = request.page_size or None
            # One row more than the page: whether there is a next page.
            rows = self.storage.series_page(season_id, first, None if size is None else size + 1)
            sealed = sealed_series(self.storage, season_id)
            response = arena_pb2.ListSeriesResponse(series=[
                series_message(planned, result, revealed=planned.series_id not in sealed)
                for planned, result in rows[:size]])
            if size is not None and len(rows) > size:
                response.next_page_token = pages.series_token(rows[size][0].index)
            return response
        return self._call(context, body)

    def GetSeries(
        self, request: arena_pb2.GetSeriesRequest, context: grpc.ServicerContext
    ) -> arena_pb2.GetSeriesResponse:
        def body() -> arena_pb2.GetSeriesResponse:
            series_id = request.series_id.strip()
            if not series_id:
                raise _invalid("series_id is required, e.g. 3-17")
            planned = self.storage.get_planned(series_id)
            result = self.storage.get_result(series_id)
            revealed = not is_sealed(self.storage, series_id)
            response = arena_pb2.GetSeriesResponse(
                series=series_message(planned, result, revealed=revealed))
            if result is None or not revealed:  # the log holds the seed and every deal
                season = self.storage.get_season(planned.season_id)
                response.profile_json = json.dumps(season.profile, sort_keys=True)
                return response
            events, profile = self.storage.result_log(series_id)
            response.profile_json = json.dumps(profile, sort_keys=True)
            response.event_log_json = json.dumps(events)
            story = series_story(events, planned.bots, result.fault)
            for number, lines in enumerate(story, start=1):
                response.hands.add(number=number, lines=lines)
            return response
        return self._call(context, body)

