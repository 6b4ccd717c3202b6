"""Play SDK bots against each other in one process, without gRPC (for strength
measurements and quick behaviour tests).

Each decision goes through the same conversions as a real match: the engine's
observation becomes a ``DecideRequest`` (``arena.match.protocol``), the bot sees it as an
``hollywood_sdk.Observation``, and its reply is decoded and checked against the legal
actions exactly as ``arena.match`` does. Hand and series ends reach the bot's hooks.
Only the transport is missing, so a bot's play here equals its play in the arena.
"""

from __future__ import annotations

import importlib
import math
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import hollywood_sdk as hs
from hollywood.bot.v1 import bot_pb2

from arena.match import protocol
from engine import FRIENDLY, Profile, Series
from engine.series import SeriesResult

SAMPLE_BOTS = Path(__file__).resolve().parents[2] / "sample_bots"
BotFactory = Callable[[], hs.Bot]


def load_bot_class(folder: str, module: str, class_name: str) -> type[hs.Bot]:
    """A bot class from ``sample_bots/<folder>/<module>.py`` (as the bot's own process
    would import it: with its folder on the path)."""
    path = str(SAMPLE_BOTS / folder)
    if path not in sys.path:
        sys.path.insert(0, path)
    bot_class = getattr(importlib.import_module(module), class_name)
    assert isinstance(bot_class, type) and issubclass(bot_class, hs.Bot)
    return bot_class


def play_series(
    bots: tuple[hs.Bot, hs.Bot],
    seed: int,
    profile: Profile = FRIENDLY,
    max_hands: int = 200,
    series_id: str = "duel",
) -> SeriesResult:
    """One series, ``bots[seat]`` in each seat; an illegal reply raises (a bug)."""
    series = Series(seed, profile, max_hands=max_hands)
    profile_msg = protocol.profile_to_proto(profile, max_hands)
    decisions = 0
    while series.current_player is not None:
        seat = series.current_player
        legal = series.legal_actions()
        decisions += 1
        request = protocol.decide_request(
            series.observation(seat), legal, profile_msg, series_id=series_id,
            decision_number=decisions, decision_s=1.0, reserve_s=30.0,
        )
        reply = bots[seat].decide(hs.Observation.from_proto(request))
        action = protocol.action_from_reply(
            bot_pb2.DecideResponse(action=reply.to_proto()), legal
        )
        for event in series.apply(action):
            if event.get("type") == "hand_end":
                result = series.hands[event["hand"] - 1].result
                assert result is not None
                for hook_seat, bot in enumerate(bots):
                    message = protocol.hand_ended_request(result, hook_seat, series_id,
                                                          series.sheet)
                    bot.on_hand_end(hs.HandResult.from_proto(message))
    assert series.result is not None
    for seat, bot in enumerate(bots):
        ended = protocol.series_ended_request(
            series.result, series.sheet, seat, series_id, hands_played=len(series.hands)
        )
        bot.on_series_end(hs.SeriesResult.from_proto(ended))
    return series.result


@dataclass(frozen=True)
class PairResult:
    """A duplicate pair from the first bot's point of view: ``series_won`` of 2,
    ``series_drawn``, and hands won and points scored by each bot over both series."""

    seed: int
    series_won: int
    series_drawn: int
    hands_won: tuple[int, int]
    points: tuple[int, int]
    hands_played: int


def play_duplicate_pair(
    first: BotFactory, second: BotFactory, seed: int, profile: Profile = FRIENDLY,
    max_hands: int = 200,
) -> PairResult:
    """The same seed twice with the bots exchanged between the seats (``swap_seats``
    off, as the arena's scheduler does): each bot plays each seat's cards once.
    Fresh bot instances per series, as the arena starts fresh bot processes."""
    won = drawn = played = 0
    hands = [0, 0]
    points = [0, 0]
    for first_seat in (0, 1):
        bots = (first(), second()) if first_seat == 0 else (second(), first())
        result = play_series(bots, seed, profile, max_hands, f"dup-{seed}-{first_seat}")
        played += result.hands_played
        if result.winner is None:
            drawn += 1
        elif result.winner == first_seat:
            won += 1
        for who, seat in ((0, first_seat), (1, 1 - first_seat)):
            hands[who] += result.hands_won[seat]
            points[who] += result.points[seat]
    return PairResult(seed, won, drawn, (hands[0], hands[1]), (points[0], points[1]), played)


def wilson_interval(successes: float, trials: int, z: float = 1.959964) -> tuple[float, float]:
    """The Wilson score interval for a binomial proportion (95 % for the default z)."""
    if trials <= 0:
        return 0.0, 1.0
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)
