"""Serving a :class:`~hollywood_sdk.bot.Bot` over gRPC as the arena expects."""

from __future__ import annotations

import logging
import os
import signal
import sys
import threading
import tomllib
import traceback
from collections.abc import Mapping
from concurrent import futures
from dataclasses import dataclass
from pathlib import Path

import grpc
from hollywood.bot.v1 import bot_pb2, bot_pb2_grpc

from .bot import Bot
from .results import HandResult, SeriesResult
from .views import Action, Observation, SeriesStart

PROTOCOL_VERSION = 1
"""The protocol version this SDK speaks (``hollywood.bot.v1.PROTOCOL_VERSION_1``)."""

NOTE_BYTES = 256
"""The most of one decision's debug note (``Bot.debug``) the arena keeps."""

SOCKET_ENV = "HOLLYWOOD_BOT_SOCKET"
ADDRESS_ENV = "HOLLYWOOD_BOT_ADDRESS"
NAME_ENV = "HOLLYWOOD_BOT_NAME"
VERSION_ENV = "HOLLYWOOD_BOT_VERSION"

log = logging.getLogger("hollywood_sdk")


class ServeError(RuntimeError):
    """The bot cannot be served (no listening address configured, bind failed)."""


@dataclass(frozen=True)
class Identity:
    """What the bot says about itself in the handshake."""

    name: str
    version: str
    author: str = ""


def identity_of(bot: Bot, folder: Path | None = None,
                environ: Mapping[str, str] | None = None) -> Identity:
    """The bot's name, version and author: the class attributes when set (what the
    author wrote wins, and validation rejects it if it disagrees with ``bot.toml``),
    else what the arena says (``$HOLLYWOOD_BOT_NAME``, ``$HOLLYWOOD_BOT_VERSION``, set
    from ``bot.toml`` by every sandbox; no author), else ``bot.toml``."""
    env = os.environ if environ is None else environ
    manifest: dict[str, object] = {}
    path = (folder or Path.cwd()) / "bot.toml"
    if path.is_file():
        try:
            manifest = tomllib.loads(path.read_text())
        except (OSError, tomllib.TOMLDecodeError) as error:
            log.warning("cannot read %s: %s", path, error)
    name = (bot.name or env.get(NAME_ENV, "").strip()
            or str(manifest.get("name") or type(bot).__name__.lower()))
    version = (bot.version or env.get(VERSION_ENV, "").strip()
               or str(manifest.get("version") or "0.0.0"))
    author = bot.author or str(manifest.get("author") or "")
    return Identity(name, version, author)


class BotServicer(bot_pb2_grpc.BotServiceServicer):
    """Adapts a :class:`Bot` to ``hollywood.bot.v1.BotService``.

    A bot exception never escapes: it is logged to stderr with its traceback and
    the call fails with status UNKNOWN (the arena treats a failed Decide as a fault).
    """

    def __init__(self, bot: Bot, identity: Identity) -> None:
        self._bot = bot
        self._identity = identity
        self._lock = threading.Lock()  # bots need not be thread-safe

    def Handshake(  # gRPC method names are CamelCase
        self, request: bot_pb2.HandshakeRequest, context: grpc.ServicerContext
    ) -> bot_pb2.HandshakeResponse:
        if request.protocol_version != PROTOCOL_VERSION:
            log.warning(
                "arena speaks protocol %d, this SDK speaks %d",
                request.protocol_version,
                PROTOCOL_VERSION,
            )
        try:
            with self._lock:  # a new series: the bot forgets the last one's opponent
                self._bot.on_series_start(SeriesStart.from_proto(request))
        except Exception as error:
            print("hollywood_sdk: on_series_start failed:", file=sys.stderr)
            traceback.print_exc(file=sys.stderr)
            context.abort(grpc.StatusCode.UNKNOWN, f"bot error: {type(error).__name__}: {error}")
            raise  # unreachable: abort raises
        return bot_pb2.HandshakeResponse(
            name=self._identity.name,
            version=self._identity.version,
            protocol_version=PROTOCOL_VERSION,
            author=self._identity.author,
        )

    def Decide(
        self, request: bot_pb2.DecideRequest, context: grpc.ServicerContext
    ) -> bot_pb2.DecideResponse:
        try:
            observation = Observation.from_proto(request)
            with self._lock:
                self._bot.take_debug_note()  # a failed decision's note is not this one's
                action = self._bot.decide(observation)
                note = self._bot.take_debug_note()
            if not isinstance(action, Action):
                raise TypeError(f"decide() must return an Action, got {type(action).__name__}")
            # The arena keeps 256 bytes of a note; no use sending more.
            debug = note.encode("utf-8", errors="replace")[:NOTE_BYTES].decode(
                "utf-8", errors="ignore")
            return bot_pb2.DecideResponse(action=action.to_proto(), debug=debug)
        except Exception as error:
            print(
                f"hollywood_sdk: decide failed at hand {request.hand_number}, "
                f"decision {request.decision_number}:",
                file=sys.stderr,
            )
            traceback.print_exc(file=sys.stderr)
            context.abort(grpc.StatusCode.UNKNOWN, f"bot error: {type(error).__name__}: {error}")
            raise  # unreachable: abort raises

    def HandEnded(
        self, request: bot_pb2.HandEndedRequest, context: grpc.ServicerContext
    ) -> bot_pb2.HandEndedResponse:
        try:
            with self._lock:
                self._bot.on_hand_end(HandResult.from_proto(request))
        except Exception:
            print("hollywood_sdk: on_hand_end failed:", file=sys.stderr)
            traceback.print_exc(file=sys.stderr)
        return bot_pb2.HandEndedResponse()

    def SeriesEnded(
        self, request: bot_pb2.SeriesEndedRequest, context: grpc.ServicerContext
    ) -> bot_pb2.SeriesEndedResponse:
        try:
            with self._lock:
                self._bot.on_series_end(SeriesResult.from_proto(request))
        except Exception:
            print("hollywood_sdk: on_series_end failed:", file=sys.stderr)
            traceback.print_exc(file=sys.stderr)
        return bot_pb2.SeriesEndedResponse()


def listen_target(environ: dict[str, str] | None = None) -> str:
    """The gRPC address to bind: ``unix:$HOLLYWOOD_BOT_SOCKET``, else
    ``$HOLLYWOOD_BOT_ADDRESS`` (host:port)."""
    env = os.environ if environ is None else environ
    socket_path = env.get(SOCKET_ENV, "").strip()
    if socket_path:
        return f"unix:{socket_path}"
    address = env.get(ADDRESS_ENV, "").strip()
    if address:
        return address
    raise ServeError(f"set {SOCKET_ENV} (a Unix socket path) or {ADDRESS_ENV} (host:port)")


def start_server(bot: Bot, target: str, identity: Identity | None = None) -> grpc.Server:
    """Bind ``target`` and start serving ``bot`` in background threads.

    A stale socket file at a ``unix:`` target is removed first. Raises
    :class:`ServeError` when the address cannot be bound.
    """
    if target.startswith("unix:"):
        Path(target.removeprefix("unix:")).unlink(missing_ok=True)
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    servicer = BotServicer(bot, identity or identity_of(bot))
    bot_pb2_grpc.add_BotServiceServicer_to_server(servicer, server)
    try:
        port = server.add_insecure_port(target)
    except RuntimeError as error:
        raise ServeError(f"cannot listen on {target}: {error}") from error
    if port == 0:
        raise ServeError(f"cannot listen on {target}")
    server.start()
    return server


def serve(bot: Bot, target: str | None = None) -> None:
    """Serve ``bot`` until SIGTERM or SIGINT, then shut down and remove the socket file.

    ``target`` defaults to the environment (see :func:`listen_target`).
    """
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(name)s: %(message)s")
    target = target or listen_target()
    server = start_server(bot, target)
    stop = threading.Event()
    if threading.current_thread() is threading.main_thread():
        for signum in (signal.SIGTERM, signal.SIGINT):
            signal.signal(signum, lambda *_: stop.set())
    log.info("serving %s on %s", type(bot).__name__, target)
    try:
        while not stop.wait(0.5):
            pass
    finally:
        server.stop(grace=1.0).wait()
        if target.startswith("unix:"):
            Path(target.removeprefix("unix:")).unlink(missing_ok=True)
