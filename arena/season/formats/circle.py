"""The circle format (a demonstration): the bots sit on a circle in season order and
each meets the ``circle_reach`` bots after it, ``series_per_pair`` series in
duplicate pairs per meeting, all planned at creation: a field too big for a round
robin plays ``reach`` meetings per bot instead of ``bots - 1``."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Self

from arena.core.setting import FormatSettings, format_setting
from arena.core.settings import SeasonConfig
from arena.season.formats.base import Pairing, PlannedUpFront, derive_seed, meeting


@dataclass(frozen=True)
class CircleSettings(FormatSettings):
    """The circle's own setting."""

    circle_reach: int = format_setting(
        1, "circle: how many of the next bots on the circle each bot meets",
        "--circle-reach", kind=int, low=1, high=100)


class Circle(PlannedUpFront):
    """See the module docstring."""

    settings_class = CircleSettings

    def __init__(self, reach: int, series_per_pair: int) -> None:
        self.reach = reach
        self.series_per_pair = series_per_pair

    @classmethod
    def from_config(cls, config: SeasonConfig) -> Self:
        return cls(config.settings_for(CircleSettings).circle_reach, config.series_per_pair)

    def pairs(self, count: int) -> list[tuple[int, int]]:
        """Each meeting (i, j) once: i meets the next ``reach`` bots (fewer on a
        small circle, where they would come round to i again)."""
        found: dict[frozenset[int], tuple[int, int]] = {}
        for i in range(count):
            for step in range(1, min(self.reach, count - 1) + 1):
                found.setdefault(frozenset((i, (i + step) % count)), (i, (i + step) % count))
        return list(found.values())

    def first_round(self, bot_ids: Sequence[str], seed: int) -> list[Pairing]:
        if len(set(bot_ids)) != len(bot_ids) or len(bot_ids) < 2:
            raise ValueError("a season needs at least two distinct bots")
        return [pairing for i, j in self.pairs(len(bot_ids))
                for pairing in meeting(bot_ids[i], bot_ids[j], self.series_per_pair,
                                       derive_seed(seed, i, j, 0))]

    def planned_count(self, bot_count: int) -> int | None:
        return len(self.pairs(bot_count)) * self.series_per_pair
