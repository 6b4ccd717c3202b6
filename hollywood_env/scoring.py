"""The rewards of both seats after a move, from the score sheet (the environments'
docstrings say the rule: ±points/100 when a hand ends, ±1 more when the series ends)."""

from __future__ import annotations

from typing import Final, Literal

from engine import Hand, Series

Episode = Literal["series", "hand"]
POINTS_SCALE: Final = 100.0
SERIES_WIN_REWARD: Final = 1.0
_NO_REWARDS: Final = (0.0, 0.0)


def rewards_after(series: Series, acted_in: Hand, episode: Episode
                  ) -> tuple[tuple[float, float], bool]:
    """Each seat's reward for a move made in the hand ``acted_in`` (the series' hand
    before the move: a move ends at most that hand) and whether the episode is over."""
    result = acted_in.result
    if result is None:  # the hand goes on, so the series does too
        return _NO_REWARDS, False
    rewards = [0.0, 0.0]
    if result.winner is not None:
        rewards[result.winner] += result.points / POINTS_SCALE
        rewards[1 - result.winner] -= result.points / POINTS_SCALE
    if series.is_over and episode == "series" and series.result is not None:
        winner = series.result.winner
        if winner is not None:
            rewards[winner] += SERIES_WIN_REWARD
            rewards[1 - winner] -= SERIES_WIN_REWARD
    over = series.is_over or episode == "hand"
    return (rewards[0], rewards[1]), over
