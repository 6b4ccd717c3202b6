"""Bring both bots of a series up, each on its own clock.

Both seats are started and handshaken at the same time, one thread each. A seat's
start-up deadline starts when the arena asks the sandbox to start that bot and
covers only that bot's own start, socket and handshake: however long the arena
waits on one bot, the other is never charged for it. A seat that fails to come up
gets its own fault; the other seat is unaffected.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Protocol

from arena.core.faults import BotFault
from arena.core.series import BotRef, SeriesSpec
from arena.core.text import neutralise
from arena.match.botclient import BotClient, BotInfo
from arena.sandbox.base import RunningBot, Sandbox

log = logging.getLogger(__name__)

Clock = Callable[[], float]

# The handshake needs a positive gRPC deadline even when the clock has run out.
_MIN_CALL_S = 0.001


class BotConnection(Protocol):
    """What start-up needs of a connection (``BotClient`` in production)."""

    def handshake(self, timeout: float) -> BotInfo: ...

    def close(self) -> None: ...


Connector = Callable[[str, float], BotConnection]


def connect_bot(target: str, timeout: float) -> BotClient:
    """The production connector: a ``BotClient`` to ``target``."""
    return BotClient.connect(target, startup_timeout=timeout)


def start_both(
    spec: SeriesSpec,
    sandbox: Sandbox,
    running: list[RunningBot | None],
    clients: list[BotConnection | None],
    *,
    clock: Clock = time.monotonic,
    connect: Connector = connect_bot,
) -> list[BotFault | None]:
    """Prepare both bots (uncharged), then start and handshake both concurrently.

    Fills ``running`` and ``clients`` as each seat gets that far (so the caller can
    stop them on every path) and returns each seat's start-up fault (None when it
    came up). Arena-side errors (``SandboxError``) propagate once both seats are done.
    """
    faults: list[BotFault | None] = [None, None]
    for seat, bot in enumerate(spec.bots):
        try:
            sandbox.prepare(bot)  # before the start-up clock: image builds take minutes
        except BotFault as fault:
            faults[seat] = fault
    with ThreadPoolExecutor(max_workers=2,
                            thread_name_prefix=f"startup-{spec.series_id}") as pool:
        futures = {
            seat: pool.submit(_bring_up, spec, sandbox, seat, bot, running, clients,
                              clock, connect)
            for seat, bot in enumerate(spec.bots) if faults[seat] is None
        }
        # Leaving the block waits for both threads, so ``running`` is complete even
        # when one of them raised an arena-side error.
        for seat, future in futures.items():
            faults[seat] = future.result()
    for seat, failed in enumerate(faults):
        if failed is not None:
            failed.seat = seat
            failed.hand_number = failed.decision_number = None
    return faults


def _bring_up(
    spec: SeriesSpec,
    sandbox: Sandbox,
    seat: int,
    bot: BotRef,
    running: list[RunningBot | None],
    clients: list[BotConnection | None],
    clock: Clock,
    connect: Connector,
) -> BotFault | None:
    give_up_at = clock() + spec.limits.startup_s

    def remaining() -> float:
        return max(0.0, give_up_at - clock())

    try:
        handle = sandbox.start(bot, series_id=spec.series_id, seat=seat)
        running[seat] = handle
        handle.wait_ready(remaining())
        client = connect(handle.target, remaining())
        clients[seat] = client
        info = client.handshake(max(_MIN_CALL_S, remaining()))
    except BotFault as fault:
        return fault
    log.info("seat %d: %s %s (protocol %d) is up", seat, neutralise(info.name),
             neutralise(info.version), info.protocol_version)
    return None
