"""Bring both bots of a series up, each on its own clock.

Both seats are started and handshaken at the same time, one thread each. A seat
whose bot the sandbox kept from its last series (``arena.sandbox.reuse``) starts
nothing: it only connects and sends the series' Handshake, on the same clock. Any
other seat takes a start slot first (``arena.sandbox.admission``: never more bots
starting than the machine can run). A seat's start-up clock starts once the sandbox has started
its bot, when its own process can run: never during image work, the wait for a
slot, or the other seat's start. It covers only that bot's socket, connection and
handshake, and is a fair clock (``arena.match.fair_clock``): time the bot spent
waiting for a core is not charged, and a bot starved through most of its start-up
voids the series (``ArenaOverload``) rather than forfeiting. A seat that fails to
come up gets its own fault; the other seat is unaffected.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from arena.core.faults import BotFault, FaultKind
from arena.core.series import BotRef, SeriesSpec
from arena.core.text import neutralise
from arena.match.connection import BotConnection, Connector, connect_bot, connect_running
from arena.match.fair_clock import Meter, Window, meter_for, wait_within
from arena.sandbox.admission import ADMISSION, Admission
from arena.sandbox.base import RunningBot, Sandbox

log = logging.getLogger(__name__)

Clock = Callable[[], float]

# The handshake needs a positive gRPC deadline even when the clock has run out.
_MIN_CALL_S = 0.001

MeterFactory = Callable[[RunningBot], Meter]

# A step that ends with a STARTUP fault after at least this share of its time was a
# timeout (the fair clock is asked whether that was the bot's); sooner, it was not.
_TIMED_OUT_SHARE = 0.99


def start_both(
    spec: SeriesSpec,
    sandbox: Sandbox,
    running: list[RunningBot | None],
    clients: list[BotConnection | None],
    *,
    clock: Clock = time.monotonic,
    connect: Connector = connect_bot,
    meter: MeterFactory | None = None,
    admission: Admission = ADMISSION,
    told_id: str | None = None,
) -> list[BotFault | None]:
    """Prepare both bots (uncharged), then start and handshake both concurrently.

    Fills ``running`` and ``clients`` as each seat gets that far (so the caller can
    stop them on every path) and returns each seat's start-up fault (None when it
    came up). Arena-side errors (``SandboxError``, ``ArenaOverload``) propagate once
    both seats are done. ``meter`` makes a seat's fair clock from its running bot (by
    default the kernel's figures for its threads, read only with the real clock).
    ``told_id``: the series id the bots' Handshake says (default the spec's).
    """
    meter_of = meter or (lambda handle: meter_for(handle.sched_source(), clock))
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
                              connect, meter_of, admission,
                              spec.series_id if told_id is None else told_id)
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
    connect: Connector,
    meter_of: MeterFactory,
    admission: Admission,
    told_id: str,
) -> BotFault | None:
    deal = spec.deal  # a bot kept between series is never dealt the same cards twice
    handle = sandbox.reuse(bot, series_id=spec.series_id, seat=seat, deal=deal)
    if handle is not None:  # kept from its last series: nothing starts, no slot
        running[seat] = handle
        return _connect(spec, seat, bot, handle, clients, connect, meter_of, told_id)
    with admission.slot():
        try:
            handle = sandbox.start(bot, series_id=spec.series_id, seat=seat, deal=deal)
        except BotFault as fault:
            return fault
        running[seat] = handle
        return _connect(spec, seat, bot, handle, clients, connect, meter_of, told_id)


def _connect(
    spec: SeriesSpec,
    seat: int,
    bot: BotRef,
    handle: RunningBot,
    clients: list[BotConnection | None],
    connect: Connector,
    meter_of: MeterFactory,
    told_id: str,
) -> BotFault | None:
    """Socket, connection and the series' Handshake, on the seat's start-up clock."""
    window = meter_of(handle).window(spec.limits.startup_s)  # its process can run now
    who = f"{bot.name}@{bot.version} (seat {seat})"
    number = handle.series_number
    try:
        _step(window, who, "create its socket", handle.wait_ready)
        client = _step(window, who, "accept a connection",
                       lambda timeout: connect_running(handle, timeout, connect))
        clients[seat] = client
        info = _step(window, who, "answer the Handshake",
                     lambda timeout: client.handshake(max(_MIN_CALL_S, timeout),
                                                      series_id=told_id,
                                                      series_number=number))
    except BotFault as fault:
        return fault
    log.info("seat %d: %s %s (protocol %d) is up for its series %d", seat,
             neutralise(info.name), neutralise(info.version), info.protocol_version, number)
    return None


StepResult = TypeVar("StepResult")


class _TimedOut(Exception):
    """A start-up step that timed out while the seat's fair clock still has time."""


def _step(window: Window, who: str, what: str,
          step: Callable[[float], StepResult]) -> StepResult:
    """Run one start-up step with what is left of the seat's fair clock. A step that
    timed out is run again (waiting for the socket, dialling and the Handshake are
    idempotent) with the time the bot was starved of, until the clock says the time
    was the bot's (its ``BotFault``) or the machine's (``ArenaOverload``)."""

    def attempt(allowed_s: float) -> StepResult:
        begun = window.wall_s()
        try:
            return step(allowed_s)
        except BotFault as fault:
            timed_out = window.wall_s() - begun >= allowed_s * _TIMED_OUT_SHARE
            if fault.kind is not FaultKind.STARTUP or not timed_out:
                raise
            raise _TimedOut from None

    return wait_within(window, attempt, f"did not {what}", kind=FaultKind.STARTUP, who=who,
                       not_yet=(_TimedOut,))
