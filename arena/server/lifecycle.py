"""The ``ArenaService`` methods of a bot's lifecycle: ``GetBot`` (a bot's versions,
page by page, with their status, logs, rating and recent faults; open to everyone) and
``ReactivateBot`` (the admin only), ``RevetBot``, ``KeepOnLadder`` and
``AdmitToLadder`` (the owner or the admin). A mixin
of ``arena.server.service.ArenaService``, which supplies ``_call``, ``storage``,
``auth`` and ``vetting``."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

import grpc
from hollywood.arena.v1 import arena_pb2

from arena.core.status import VersionStatus
from arena.season.ladder_gating import admitted
from arena.season.seeding import current_rows
from arena.server import pages
from arena.server.accounts import bots_with_states
from arena.server.auth import Authenticator, Caller
from arena.server.convert import gate_message
from arena.storage import (
    BotRecord,
    LifecycleError,
    NameTakenError,
    NotFoundError,
    Storage,
    admit_to_ladder,
    gates_of_version,
    keep_on_ladder,
    kept_versions,
    reactivate,
    recent_faults,
    rejection_cause,
    version_life,
    version_states,
)

if TYPE_CHECKING:
    from arena.server.vetting import VettingWorker

Response = TypeVar("Response")


class NotActiveError(LifecycleError):
    """A season names a version that is not active."""


class RequestError(ValueError):
    """A request that misses what it needs."""


def check_active(storage: Storage, bot_ids: list[str]) -> None:
    """Raise ``NotActiveError`` naming the first of ``bot_ids`` that is not active."""
    states = version_states(storage)
    for bot_id in bot_ids:
        state = states.get(bot_id)
        if state is not None and state.status is not VersionStatus.ACTIVE:
            detail = version_life(storage, bot_id).detail
            why = f" ({detail})" if detail else ""
            raise NotActiveError(
                f"bot {bot_id} is {state.status}{why}: only active versions play; see "
                f"`arena bots show {bot_id.partition('@')[0]}`")


class LifecycleMixin:
    """``GetBot`` and ``ReactivateBot`` (see the module's docstring)."""

    storage: Storage
    auth: Authenticator
    vetting: VettingWorker | None

    if TYPE_CHECKING:
        def _call(self, context: grpc.ServicerContext, body: Callable[[], Response], *,
                  mutating: bool = False) -> Response: ...

    def GetBot(self, request: arena_pb2.GetBotRequest, context: grpc.ServicerContext
               ) -> arena_pb2.GetBotResponse:
        return self._call(context, lambda: self._get_bot(
            request, self.auth.optional_caller(context)))

    def _get_bot(self, request: arena_pb2.GetBotRequest, caller: Caller | None
                 ) -> arena_pb2.GetBotResponse:
        """A page of the versions of ``request.name`` (or the one named); a version's
        build and validation logs only to its owner and the admin (they hold what the
        bot wrote), empty for anyone else."""
        name, token = request.name.strip(), ""
        if not name:
            raise RequestError("name is required: a bot name or name@version")
        if "@" in name:
            if request.page_token:
                raise pages.PageError(f"page_token is only for a bare name's versions, "
                                      f"not for the one version {name}")
            records = [self.storage.get_bot(name)]
        else:
            records, token = pages.versions_page(self.storage, name, request.page_size,
                                                 request.page_token)
            if not records and not request.page_token:
                self.storage.resolve_bot(name)  # NOT_FOUND with suggestions
                raise NotFoundError(f"unknown bot {name}")
        ids = [record.id for record in records]
        rows = current_rows(self.storage, ids)
        response = arena_pb2.GetBotResponse(next_page_token=token)
        for bot in bots_with_states(self.storage, records):
            life = version_life(self.storage, bot.id)
            owns = caller is not None and (caller.is_admin or caller.author == life.owner)
            version = response.versions.add(
                bot=bot, status_detail=life.detail, status_changed_at=life.changed_at,
                image_id=life.image_id, build_log=life.build_log if owns else "",
                validation_log=life.validation_log if owns else "",
                rejection_cause=rejection_cause(self.storage, bot.id))
            if bot.id in rows:
                row = rows[bot.id]
                version.rating, version.rating_sigma = row.rating_mu, row.rating_sigma
                version.rated = True
            version.ladder_gates.extend(
                gate_message(gate, admitted(self.storage, gate))
                for gate in gates_of_version(self.storage, bot.id))
            for fault in recent_faults(self.storage, bot.id):
                version.recent_faults.add(series_id=fault.series_id, kind=fault.kind,
                                          message=fault.message)
        return response

    def ReactivateBot(self, request: arena_pb2.ReactivateBotRequest,
                      context: grpc.ServicerContext) -> arena_pb2.ReactivateBotResponse:
        def body() -> arena_pb2.ReactivateBotResponse:
            bot_id = request.bot_id.strip()
            record = self.storage.get_bot(bot_id)
            reactivate(self.storage, record.id)
            [bot] = bots_with_states(self.storage, [record])
            return arena_pb2.ReactivateBotResponse(bot=bot)
        return self._call(context, body, mutating=True)

    def _owned(self, bot_id: str, caller: Caller, what: str) -> BotRecord:
        """The version ``bot_id`` if ``caller`` is its owner or the admin
        (``NameTakenError`` saying who owns it otherwise)."""
        record = self.storage.get_bot(bot_id.strip())
        owner = version_life(self.storage, record.id).owner
        if not caller.is_admin and owner != caller.author:
            holder = f"author {owner}" if owner else "the arena's admin"
            raise NameTakenError(f"bot name {record.name} belongs to {holder}: only its "
                                 f"owner or the admin may {what}")
        return record

    def KeepOnLadder(self, request: arena_pb2.KeepOnLadderRequest,
                     context: grpc.ServicerContext) -> arena_pb2.KeepOnLadderResponse:
        caller = self.auth.caller(context)

        def body() -> arena_pb2.KeepOnLadderResponse:
            record = self._owned(request.bot_id, caller, "keep it on the ladder")
            keep_on_ladder(self.storage, record.id, request.keep,
                           "the admin" if caller.is_admin else f"author {caller.author}")
            [bot] = bots_with_states(self.storage, [record])
            return arena_pb2.KeepOnLadderResponse(
                bot=bot, kept=record.id in kept_versions(self.storage))
        return self._call(context, body)

    def AdmitToLadder(self, request: arena_pb2.AdmitToLadderRequest,
                      context: grpc.ServicerContext) -> arena_pb2.AdmitToLadderResponse:
        caller = self.auth.caller(context)

        def body() -> arena_pb2.AdmitToLadderResponse:
            record = self._owned(request.bot_id, caller, "admit it to the ladder")
            gates = admit_to_ladder(self.storage, record.id, request.admit,
                                    "the admin" if caller.is_admin else f"author {caller.author}")
            [bot] = bots_with_states(self.storage, [record])
            return arena_pb2.AdmitToLadderResponse(
                bot=bot, gates=[gate_message(gate, admitted(self.storage, gate))
                                for gate in gates])
        return self._call(context, body)

    def RevetBot(self, request: arena_pb2.RevetBotRequest, context: grpc.ServicerContext
                 ) -> arena_pb2.RevetBotResponse:
        caller = self.auth.caller(context)

        def body() -> arena_pb2.RevetBotResponse:
            record = self._owned(request.bot_id, caller, "vet it again")
            if self.vetting is None:
                raise LifecycleError("this server vets nothing (uploads are active at once): "
                                     "there is nothing to vet again")
            self.vetting.revet(record.id, "the admin" if caller.is_admin
                               else f"author {caller.author}")
            [bot] = bots_with_states(self.storage, [record])
            return arena_pb2.RevetBotResponse(bot=bot)
        return self._call(context, body)
