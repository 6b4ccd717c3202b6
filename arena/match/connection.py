"""What the match needs of a connection to one bot, however the bot is reached.

``BotClient`` (``arena.match.botclient``) calls a bot over gRPC; ``DirectConnection``
(``arena.match.direct``) calls a bot object in the arena's own process. The match
loop and start-up see only this protocol, so neither knows which one it has: the
running bot decides (``connect_running``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from hollywood.bot.v1 import bot_pb2

from arena.match.botclient import BotClient, BotInfo
from arena.match.decision import Decision, HandEnd
from arena.match.direct import DirectConnection
from arena.match.fair_clock import Window
from arena.sandbox.base import RunningBot
from engine.actions import Action


class BotConnection(Protocol):
    """One bot, as the match talks to it. Every failure is a ``BotFault``."""

    def handshake(self, timeout: float, *, series_id: str = "",
                  series_number: int = 1) -> BotInfo: ...

    def decide(self, request: Decision | bot_pb2.DecideRequest, legal_actions: Sequence[Action],
               allowed_s: float, window: Window | None = None) -> Action: ...

    def hand_ended(self, request: HandEnd | bot_pb2.HandEndedRequest,
                   timeout: float) -> bool: ...

    def series_ended(self, request: bot_pb2.SeriesEndedRequest, timeout: float) -> bool: ...

    def close(self) -> None: ...


Connector = Callable[[str, float], BotConnection]
"""Dials a bot's gRPC target within a timeout (``BotClient`` in production)."""


def connect_bot(target: str, timeout: float) -> BotClient:
    """The production connector: a ``BotClient`` to ``target``."""
    return BotClient.connect(target, startup_timeout=timeout)


def connect_running(bot: RunningBot, timeout: float,
                    connect: Connector = connect_bot) -> BotConnection:
    """The connection ``bot`` asks for: its object called directly when it lives in
    the arena's process, else ``connect`` to its gRPC target."""
    in_process = bot.in_process_target
    if in_process is not None:
        return DirectConnection(in_process)
    return connect(bot.target, timeout)
