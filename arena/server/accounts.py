"""The ``ArenaService`` methods of accounts and uploads: ``SubmitBot`` (authors and
the admin: the only way a bot reaches the server, which never opens a path a client
names), ``AddAuthor`` / ``ListAuthors`` / ``RevokeAuthor`` (the admin only) and ``WhoAmI``
(any valid token: whose it is). A mixin of
``arena.server.service.ArenaService``, which supplies ``_call``, ``storage`` and
``auth``."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, TypeVar

import grpc
from hollywood.arena.v1 import arena_pb2

from arena.core.status import VersionStatus
from arena.server import pages
from arena.server.auth import Authenticator, Caller
from arena.server.convert import bot_message
from arena.server.upload_stream import idle_limited
from arena.server.uploads import UploadLimits, UploadSlots, UploadTotals, receive_upload
from arena.storage import (
    Author,
    BotRecord,
    Storage,
    add_author,
    bundles_dir,
    revoke_author,
    store_submission,
    version_states,
)

if TYPE_CHECKING:
    from arena.server.vetting import VettingWorker

Response = TypeVar("Response")


def author_message(author: Author) -> arena_pb2.Author:
    return arena_pb2.Author(name=author.name, created_at=author.created_at,
                            revoked_at=author.revoked_at, bot_names=author.bot_names)


def bots_with_states(storage: Storage, bots: list[BotRecord]) -> list[arena_pb2.Bot]:
    """``bots`` as messages with their owner and status."""
    states = version_states(storage)
    messages = []
    for bot in bots:
        message = bot_message(bot)
        state = states.get(bot.id)
        if state is not None:
            message.owner, message.status = state.owner, state.status
        messages.append(message)
    return messages


class CannotStoreError(OSError):
    """The server could not store an upload (its disk, not the upload)."""


class AccountsMixin:
    """Uploads and authors (see the module's docstring)."""

    storage: Storage
    auth: Authenticator
    upload_limits: UploadLimits
    upload_slots: UploadSlots
    vetting: VettingWorker | None

    if TYPE_CHECKING:
        def _call(self, context: grpc.ServicerContext, body: Callable[[], Response], *,
                  mutating: bool = False) -> Response: ...

    def SubmitBot(
        self, request_iterator: Iterator[arena_pb2.SubmitBotRequest],
        context: grpc.ServicerContext,
    ) -> arena_pb2.SubmitBotResponse:
        caller = self.auth.caller(context)

        def body() -> arena_pb2.SubmitBotResponse:
            record, created, replaced, totals = self._receive(request_iterator, caller)
            [bot] = bots_with_states(self.storage, [record])
            return arena_pb2.SubmitBotResponse(
                bot=bot, created=created, replaced=replaced,
                compressed_bytes=totals.compressed, unpacked_bytes=totals.unpacked,
                entries=totals.entries)
        return self._call(context, body)

    def _receive(self, requests: Iterator[arena_pb2.SubmitBotRequest], caller: Caller
                 ) -> tuple[BotRecord, bool, bool, UploadTotals]:
        work_root = bundles_dir(self.storage) / ".incoming"
        with self.upload_slots.slot(caller.author), idle_limited(
                requests, self.upload_limits) as stream, receive_upload(
                stream, work_root, self.upload_limits) as (submission, header, totals):
            try:
                record, created, replaced = store_submission(
                    self.storage, submission, submitter=caller.author,
                    replace=header.replace,
                    status=(VersionStatus.ACTIVE if self.vetting is None
                            else VersionStatus.RECEIVED))
            except OSError as error:  # e.g. a full disk: nothing was stored
                raise CannotStoreError(f"cannot store the bot's files: {error}") from None
        if self.vetting is not None:  # built and validated after this returns
            self.vetting.uploaded(record.id, created=created)
        return record, created, replaced, totals

    def AddAuthor(
        self, request: arena_pb2.AddAuthorRequest, context: grpc.ServicerContext
    ) -> arena_pb2.AddAuthorResponse:
        def body() -> arena_pb2.AddAuthorResponse:
            author, token = add_author(self.storage, request.name.strip())
            return arena_pb2.AddAuthorResponse(author=author_message(author), token=token)
        return self._admin_call(context, body)

    def ListAuthors(
        self, request: arena_pb2.ListAuthorsRequest, context: grpc.ServicerContext
    ) -> arena_pb2.ListAuthorsResponse:
        def body() -> arena_pb2.ListAuthorsResponse:
            authors, token = pages.authors_page(self.storage, request.page_size,
                                                request.page_token)
            return arena_pb2.ListAuthorsResponse(
                authors=[author_message(author) for author in authors], next_page_token=token)
        return self._admin_call(context, body)

    def RevokeAuthor(
        self, request: arena_pb2.RevokeAuthorRequest, context: grpc.ServicerContext
    ) -> arena_pb2.RevokeAuthorResponse:
        return self._admin_call(context, lambda: arena_pb2.RevokeAuthorResponse(
            author=author_message(revoke_author(self.storage, request.name.strip()))))

    def WhoAmI(
        self, request: arena_pb2.WhoAmIRequest, context: grpc.ServicerContext
    ) -> arena_pb2.WhoAmIResponse:
        caller = self.auth.caller(context)
        return self._call(context, lambda: arena_pb2.WhoAmIResponse(
            admin=caller.is_admin, author="" if caller.is_admin else caller.author))

    def _admin_call(self, context: grpc.ServicerContext, body: Callable[[], Response]
                    ) -> Response:
        self.auth.admin(context)
        return self._call(context, body)

