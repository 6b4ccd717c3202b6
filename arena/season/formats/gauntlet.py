"""The gauntlet format: one challenger meets every other bot of the season
(``series_per_pair`` series each, in duplicate pairs); the others do not meet
each other. Everything is planned in the first round."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Self

from arena.core.setting import FormatSettings, format_setting
from arena.core.settings import ConfigError, SeasonConfig
from arena.season.formats.base import (
    Pairing,
    PlannedUpFront,
    Resolve,
    derive_seed,
    meeting,
)


def resolve_challenger(challenger: str, bot_ids: Sequence[str]) -> str:
    """The season bot ``challenger`` names (an id, or a bare name of exactly one
    of them); raises ``ConfigError`` when it names none."""
    if not challenger:
        raise ConfigError("the gauntlet format needs a challenger (--challenger BOT)")
    if challenger in bot_ids:
        return challenger
    named = [bot_id for bot_id in bot_ids if bot_id.split("@", 1)[0] == challenger]
    if len(named) != 1:
        raise ConfigError(f"challenger {challenger!r} is not one of the season's bots "
                          f"({', '.join(bot_ids)})")
    return named[0]


@dataclass(frozen=True)
class GauntletSettings(FormatSettings):
    """The gauntlet's own setting."""

    challenger: str = format_setting(
        "", "gauntlet: the bot that meets every other bot (name@version or name; added to "
        "the bots if not listed)", "--challenger", kind=str, proto_field="challenger",
        metavar="BOT", default_text="–")


class Gauntlet(PlannedUpFront):
    """See the module docstring."""

    settings_class = GauntletSettings

    def __init__(self, challenger: str, series_per_pair: int) -> None:
        if not challenger:
            raise ConfigError("the gauntlet format needs a challenger (--challenger BOT)")
        self.challenger = challenger
        self.series_per_pair = series_per_pair

    @classmethod
    def from_config(cls, config: SeasonConfig) -> Self:
        return cls(config.settings_for(GauntletSettings).challenger, config.series_per_pair)

    @classmethod
    def admit(cls, config: SeasonConfig, bot_ids: list[str], resolve: Resolve
              ) -> tuple[SeasonConfig, list[str]]:
        """The challenger is stored as an id, and joins the season if not listed."""
        named = config.settings_for(GauntletSettings).challenger
        if not named:
            return config, bot_ids
        challenger = resolve(named)
        return (config.with_changes(challenger=challenger),
                bot_ids if challenger in bot_ids else [*bot_ids, challenger])

    @classmethod
    def summary(cls, config: SeasonConfig) -> str:
        return f"(challenger {config.settings_for(GauntletSettings).challenger})"

    def first_round(self, bot_ids: Sequence[str], seed: int) -> list[Pairing]:
        if len(set(bot_ids)) != len(bot_ids) or len(bot_ids) < 2:
            raise ValueError("a season needs at least two distinct bots")
        challenger = resolve_challenger(self.challenger, bot_ids)
        home = bot_ids.index(challenger)
        plan: list[Pairing] = []
        for number, (index, other) in enumerate(
                (index, bot) for index, bot in enumerate(bot_ids) if bot != challenger):
            # The single series of an odd series_per_pair alternates seats.
            first, second = (challenger, other) if number % 2 == 0 else (other, challenger)
            plan += meeting(first, second, self.series_per_pair,
                            derive_seed(seed, min(home, index), max(home, index), 0))
        return plan

    def planned_count(self, bot_count: int) -> int | None:
        return (bot_count - 1) * self.series_per_pair
