"""The one way tests make a ``SeriesSpec``: ``spec(first, second, series_id, ...)`` with
defaults a test names only when it cares (a deal of the series' own, 30 hands, seats
as given, the friendly profile, limits a loaded machine meets)."""

from __future__ import annotations

from typing import Final

from arena.core.limits import TimeLimits
from arena.core.series import BotRef, SeriesSpec
from engine import get_profile

LIMITS: Final = TimeLimits(startup_s=10.0, decision_s=1.0, reserve_s=2.0)
"""Loose enough for a loaded machine, tight enough that a stuck bot's test ends soon."""


def spec(first: BotRef, second: BotRef, series_id: str = "spec-1", *, seed: int | None = None,
         max_hands: int = 30, swap_seats: bool = False, limits: TimeLimits = LIMITS,
         profile: str = "friendly") -> SeriesSpec:
    """A series of ``first`` (seat 0) against ``second``, dealt from ``seed`` (by default
    ``own_deal(series_id)``)."""
    return SeriesSpec(series_id=series_id,
                      seed=own_deal(series_id) if seed is None else seed,
                      profile=get_profile(profile), max_hands=max_hands,
                      swap_seats=swap_seats, bots=(first, second), limits=limits)


def own_deal(series_id: str) -> int:
    """A seed of the series' own: a bot kept between series is never dealt the same
    cards twice."""
    return int.from_bytes(series_id.encode(), "big")
