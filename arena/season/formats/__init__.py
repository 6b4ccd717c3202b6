"""Tournament formats: who plays whom, round by round, and everything else about
a format.

A ``Format`` plans a season as rounds of pairings. ``first_round`` is planned when
the season is created (from its bots and seed alone); ``next_round`` is asked, by
the season runner, each time every series planned so far has a stored result, and
is given those results round by round; it answers the next round's pairings, or
None when the season is complete. A format must be a pure function of its
arguments: a season resumed after a crash asks again and must get the same round
(every round is stored as it is made, so a resumed season replays none).

A format also owns everything else about itself, so the rest of the arena never
names one: the settings only it reads (``settings_class``, a dataclass whose
fields declare them; the registry below registers it with
``arena.core.settings``, so the command line, the API and the settings table
show them; another format's season refuses them), the check and normal form of
a new season's configuration and bots (``admit``), the bots' order
(``seeded``), how many series the season is expected to play
(``expected_count``, the one source of progress and time left), what it adds
to the standings (``standings``: columns, order, a note, and typed values
for the API) and its settings in words (``summary``).

Formats are chosen by name from the season's ``format`` setting (``FORMATS``; a
new format is one module and one line there): ``round-robin``, ``gauntlet``,
``swiss``, ``knockout``, ``sprt`` (a two-bot match; ``arena match``),
``king-of-the-hill`` and ``ladder`` (no end; ``arena ladder``). See
docs/formats.md for the rules of each.
"""

from __future__ import annotations

from typing import Final

from arena.core.settings import ConfigError, SeasonConfig, register_format_settings
from arena.season.formats import base, king_of_the_hill, ladder
from arena.season.formats.base import (
    ExtraColumn,
    Format,
    FormatStandings,
    Pairing,
    PlannedUpFront,
    Ratings,
    Resolve,
    SeasonView,
    Section,
    circle_rounds,
    derive_seed,
    home_seat_first,
    new_deal_key,
    rounds_of,
)
from arena.season.formats.gauntlet import Gauntlet
from arena.season.formats.knockout import Knockout
from arena.season.formats.ladder import OpenEnded
from arena.season.formats.ladder_gate import LadderGate
from arena.season.formats.round_robin import RoundRobin, plan_season
from arena.season.formats.sprt_match import SprtMatch
from arena.season.formats.swiss import Swiss

__all__ = [
    "DEFAULT_FORMAT",
    "FORMATS",
    "LADDER_FORMAT",
    "MATCH_FORMAT",
    "ExtraColumn",
    "Format",
    "FormatStandings",
    "Gauntlet",
    "Knockout",
    "LadderGate",
    "OpenEnded",
    "Pairing",
    "PlannedUpFront",
    "Ratings",
    "Resolve",
    "RoundRobin",
    "SeasonView",
    "Section",
    "SprtMatch",
    "Swiss",
    "check_owned_settings",
    "circle_rounds",
    "derive_seed",
    "format_class",
    "format_for",
    "format_summary",
    "has_no_count",
    "home_seat_first",
    "new_deal_key",
    "plan_season",
    "rounds_of",
]

DEFAULT_FORMAT: Final = "round-robin"
MATCH_FORMAT: Final = "sprt"
"""The format ``arena match`` plays: two bots until a test decides."""
LADDER_FORMAT: Final = "ladder"
"""The format ``arena ladder`` starts: a season without an end."""

FORMATS: Final[dict[str, type[Format]]] = {
    "round-robin": RoundRobin,
    "gauntlet": Gauntlet,
    "swiss": Swiss,
    "knockout": Knockout,
    "sprt": SprtMatch,
    "king-of-the-hill": king_of_the_hill.KingOfTheHill,
    "ladder": ladder.Ladder,
}
"""Every format, by the name a season's configuration gives."""


for _name, _format in FORMATS.items():
    register_format_settings(_name, _format.settings_class)


def format_class(name: str) -> type[Format]:
    """The format called ``name``; raises ``ConfigError`` for an unknown name."""
    found = FORMATS.get(name)
    if found is None:
        raise ConfigError(f"format must be one of {', '.join(sorted(FORMATS))}, got {name!r}")
    return found


def format_for(name: str, config: SeasonConfig) -> Format:
    """The format called ``name`` for a season played under ``config``; raises
    ``ConfigError`` for an unknown name or settings the format cannot use."""
    return format_class(name).from_config(config)


def check_owned_settings(config: SeasonConfig) -> None:
    """Raise ``ConfigError`` for a setting another format than ``config``'s owns,
    set to a value other than its default."""
    base.check_owned_settings(config, config.format, FORMATS)


def has_no_count(config: SeasonConfig, bot_count: int) -> bool:
    """Whether a season played under ``config`` has no count of series to reach (a
    ladder without a set number of rounds never ends, an SPRT match stops when its
    test decides): its progress is the series played and their rate, never a bar
    (False for a format this arena does not know)."""
    found = FORMATS.get(config.format)
    if found is None:
        return False
    try:
        return found.from_config(config).expected_count(bot_count, 0) is None
    except ConfigError:
        return False


def format_summary(config: SeasonConfig) -> str:
    """The season's format and its own settings in words, e.g. "gauntlet
    (challenger a@1)" (the bare name for a format this arena does not know)."""
    found = FORMATS.get(config.format)
    if found is None:
        return config.format
    summary = found.summary(config)
    return f"{config.format} {summary}" if summary else config.format
