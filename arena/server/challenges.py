"""The ``ArenaService`` methods of challenges: ``CreateChallenge`` (any author, with a
version of its own) and ``ListChallenges`` (open to everyone). A mixin of
``arena.server.service.ArenaService``, which supplies ``_call``, ``_owned``,
``storage``, ``auth`` and ``challenges``.

A challenge is a round-robin season of the two versions, ``series`` series (1 to
``ChallengeRules.max_series``), one at a time, stored with its challenge row
(``arena.storage.challenges``: the author's hourly quota is checked in the same
transaction) and started by the ``ChallengeQueue`` when its turn comes. It is
unrated: its season is in no season list, so in no rating, standings list or
ladder; its own results are read through the challenge (and its series by id).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict
from datetime import UTC, datetime
from typing import TYPE_CHECKING, TypeVar

import grpc
from hollywood.arena.v1 import arena_pb2

from arena.core.manifest import BotManifest
from arena.core.settings import SETTINGS_BY_NAME, SeasonConfig
from arena.sandbox import registry as sandbox_registry
from arena.season.challenge_queue import ChallengeQueue
from arena.season.formats import DEFAULT_FORMAT, format_for, new_deal_key
from arena.server import pages
from arena.server.auth import Authenticator, Caller
from arena.server.convert import STATUS_TO_PROTO
from arena.server.lifecycle import RequestError, check_active
from arena.server.validation import check_bots_fit_sandbox
from arena.storage import (
    BotRecord,
    ChallengeRecord,
    QuotaError,
    Storage,
    challenge_tally,
    create_challenge,
    get_challenge,
    newest_active,
)

Response = TypeVar("Response")
DEFAULT_CHALLENGE_SERIES = 2
# A challenge never deactivates a version (its fault streak limit is the highest
# allowed, above any challenge's length): another author's challenge must not be a
# way to have a rival deactivated, and the arena's own seasons judge that.
_NEVER_DEACTIVATE = int(SETTINGS_BY_NAME["deactivate_after"].high or 10_000)


def challenge_message(storage: Storage, challenge: ChallengeRecord) -> arena_pb2.Challenge:
    """The API's ``Challenge`` with its results so far."""
    return arena_pb2.Challenge(
        season_id=challenge.season_id, author=challenge.author,
        challenger=challenge.challenger, opponent=challenge.opponent,
        series=challenge.series, created_at=challenge.created_at,
        status=STATUS_TO_PROTO[challenge.status],
        **asdict(challenge_tally(storage, challenge)))


class ChallengesMixin:
    """``CreateChallenge`` and ``ListChallenges`` (see the module's docstring)."""

    storage: Storage
    auth: Authenticator
    challenges: ChallengeQueue
    challenge_clock: Callable[[], datetime] = staticmethod(lambda: datetime.now(UTC))

    if TYPE_CHECKING:
        def _call(self, context: grpc.ServicerContext, body: Callable[[], Response], *,
                  mutating: bool = False) -> Response: ...

        def _owned(self, bot_id: str, caller: Caller, what: str) -> BotRecord: ...

    def CreateChallenge(self, request: arena_pb2.CreateChallengeRequest,
                        context: grpc.ServicerContext) -> arena_pb2.CreateChallengeResponse:
        caller = self.auth.caller(context)

        def body() -> arena_pb2.CreateChallengeResponse:
            try:
                season_id = self._create_challenge(request, caller)
            except QuotaError as error:
                context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, str(error))
            self.challenges.pump()
            challenge = get_challenge(self.storage, season_id)
            assert challenge is not None
            return arena_pb2.CreateChallengeResponse(
                challenge=challenge_message(self.storage, challenge))
        return self._call(context, body)

    def _version(self, reference: str, role: str) -> str:
        reference = reference.strip()
        if not reference:
            raise RequestError(f"{role} is required: a bot name or name@version")
        if "@" in reference:
            return self.storage.get_bot(reference).id
        active = {bot_id.partition("@")[0]: bot_id for bot_id in newest_active(self.storage)}
        found = active.get(reference)
        if found is None:
            raise RequestError(f"{role} {reference}: no active version of that bot "
                               "(see `arena bots list`)")
        return found

    def _create_challenge(self, request: arena_pb2.CreateChallengeRequest,
                          caller: Caller) -> int:
        rules = self.challenges.rules
        series = request.series or DEFAULT_CHALLENGE_SERIES
        if not 1 <= series <= rules.max_series:
            raise RequestError(f"series: a challenge plays 1 to {rules.max_series} series, "
                               f"not {series}")
        challenger = self._owned(self._version(request.challenger, "challenger"), caller,
                                 "challenge with it").id
        opponent = self._version(request.opponent, "opponent")
        if challenger == opponent:
            raise RequestError(f"{challenger} cannot challenge itself: name another bot, "
                               "or another version of it")
        ids = [challenger, opponent]
        check_active(self.storage, ids)
        config = SeasonConfig.build(
            format=DEFAULT_FORMAT, series_per_pair=series, concurrency=1,
            sandbox=sandbox_registry.backend(rules.sandbox).name,
            deactivate_after=_NEVER_DEACTIVATE)
        deal_key = new_deal_key()  # dealt from a secret, committed before play, as any season
        check_bots_fit_sandbox(config, (BotManifest.load(self.storage.get_bot(bot_id).folder)
                                        for bot_id in ids))
        plan = [pairing.as_row()
                for pairing in format_for(DEFAULT_FORMAT, config).first_round(ids, deal_key)]
        return create_challenge(
            self.storage, author=caller.author, challenger=challenger, opponent=opponent,
            series=series, series_per_hour=rules.series_per_hour, now=self.challenge_clock(),
            config=config.to_dict(), profile=config.profile().to_dict(), plan=plan,
            deal_key=deal_key)

    def ListChallenges(self, request: arena_pb2.ListChallengesRequest,
                       context: grpc.ServicerContext) -> arena_pb2.ListChallengesResponse:
        def body() -> arena_pb2.ListChallengesResponse:
            challenges, token = pages.challenges_page(
                self.storage, request.bot.strip(), request.page_size, request.page_token)
            return arena_pb2.ListChallengesResponse(
                challenges=[challenge_message(self.storage, challenge)
                            for challenge in challenges], next_page_token=token)
        return self._call(context, body)
