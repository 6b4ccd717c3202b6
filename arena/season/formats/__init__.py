"""Tournament formats: who plays whom, round by round.

A ``Format`` plans a season as rounds of pairings. ``first_round`` is planned when
the season is created (from its bots and seed alone); ``next_round`` is asked, by
the season runner, each time every series planned so far has a stored result, and
is given those results round by round; it answers the next round's pairings, or
None when the season is complete. A format must be a pure function of its
arguments: a season resumed after a crash asks again and must get the same round
(every round is stored as it is made, so a resumed season replays none).

Formats are chosen by name from the season's ``format`` setting (``FORMATS``; a
new format is one module and one line there): ``round-robin``, ``gauntlet``,
``swiss``, ``knockout`` and ``sprt`` (a two-bot match; ``arena match``). See
docs/formats.md for the rules of each.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

from arena.core.settings import ConfigError, SeasonConfig
from arena.season.formats.base import (
    Format,
    Pairing,
    PlannedUpFront,
    circle_rounds,
    derive_seed,
    home_seat_first,
)
from arena.season.formats.gauntlet import Gauntlet
from arena.season.formats.knockout import Knockout
from arena.season.formats.round_robin import RoundRobin, plan_season
from arena.season.formats.sprt_match import SprtMatch
from arena.season.formats.swiss import Swiss

__all__ = [
    "DEFAULT_FORMAT", "FORMATS", "Format", "FormatFactory", "Gauntlet", "Knockout",
    "Pairing", "PlannedUpFront", "RoundRobin", "SprtMatch", "Swiss", "circle_rounds", "derive_seed",
    "format_for", "format_name", "home_seat_first", "plan_season",
]

DEFAULT_FORMAT: Final = "round-robin"

FormatFactory = Callable[[SeasonConfig], Format]
"""Makes a format from the season's settings."""

FORMATS: Final[dict[str, FormatFactory]] = {
    "round-robin": lambda config: RoundRobin(config.series_per_pair),
    "gauntlet": lambda config: Gauntlet(config.challenger, config.series_per_pair),
    "swiss": lambda config: Swiss(config.rounds, config.series_per_pair),
    "knockout": lambda config: Knockout(config.tiebreak_pairs),
    "sprt": lambda config: SprtMatch.from_config(config.sprt, config.max_pairs),
}
"""Every format, by the name a season's configuration gives."""


def format_name(stored_config: Mapping[str, Any]) -> str:
    """The format a season's stored configuration names (its ``format`` setting;
    round-robin, the only format before there was a setting, when it names none)."""
    return str(stored_config.get("format") or DEFAULT_FORMAT)


def format_for(name: str, config: SeasonConfig) -> Format:
    """The format called ``name`` for a season played under ``config``; raises
    ``ConfigError`` for an unknown name or settings the format cannot use."""
    factory = FORMATS.get(name)
    if factory is None:
        raise ConfigError(f"format must be one of {', '.join(sorted(FORMATS))}, got {name!r}")
    return factory(config)
