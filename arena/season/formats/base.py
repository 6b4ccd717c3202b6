"""What every format shares: ``Pairing`` (one planned series), the ``Format``
base class (everything the rest of the arena asks a format, with the answers of
a format that needs nothing special), what a format adds to the standings
(``FormatStandings``), deal seeds derived from the season's deal key (its secret
``new_deal_key``, or the seed it was given), and the
duplicate-pair meeting of two bots (see ``round_robin`` for why duplicate pairs
exchange the bots between the seats rather than set ``swap_seats``)."""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Final, Self

from arena.core.setting import FormatSettings, Setting, declared_settings
from arena.core.settings import MAX_SEED, ConfigError, SeasonConfig
from arena.storage import PlannedSeries, SeriesRecord

_BYE: Final = -1


@dataclass(frozen=True)
class Pairing:
    """One planned series: its deal seed, whether seats are swapped, and who sits where."""

    seed: int
    swap_seats: bool
    seat0: str
    seat1: str

    def as_row(self) -> tuple[int, bool, str, str]:
        """The form ``Storage.create_season`` and ``Storage.add_round`` store."""
        return (self.seed, self.swap_seats, self.seat0, self.seat1)


@dataclass(frozen=True)
class ExtraColumn:
    """A column a format adds to the standings table: its label, each bot's cell,
    and what it means (required: the legend under the table on the website and in
    the terminal says it)."""

    label: str
    cells: Mapping[str, str]
    meaning: str


@dataclass(frozen=True)
class Section:
    """A part a format adds under the standings table: a ``title``, then a table
    (``headers`` and ``rows`` of cells) or ``lines`` of text; ``legend`` says what
    each header means, in the headers' order (the website shows it under the table)."""

    title: str
    headers: tuple[str, ...] = ()
    rows: tuple[tuple[str, ...], ...] = ()
    lines: tuple[str, ...] = ()
    legend: tuple[str, ...] = ()


@dataclass
class FormatStandings:
    """What a format adds to a season's standings, for any screen to show without
    knowing the format: ``order`` (bot ids in table order; None keeps the
    standings' own), extra ``columns``, a ``note`` on how the table is ordered,
    and ``sections`` under it. ``api`` and ``row_api`` (by bot) are the format's
    own fields of the API's ``Standings`` message and of its rows (e.g. a
    bracket, a Swiss score), in their JSON form under the proto's field names."""

    order: list[str] | None = None
    columns: list[ExtraColumn] = field(default_factory=list)
    note: str = ""
    sections: list[Section] = field(default_factory=list)
    api: dict[str, Any] = field(default_factory=dict)
    row_api: dict[str, dict[str, Any]] = field(default_factory=dict)


@dataclass(frozen=True)
class SeasonView:
    """A season as its format reads it for the standings: the bots in season
    order, the deal seed, the plan and the results (``results_by_round`` by the
    round that planned them; the plan is read only for formats with
    ``reads_plan``), and each bot's rating ordinal."""

    bot_ids: Sequence[str]
    seed: int
    planned: Sequence[PlannedSeries]
    results: Sequence[SeriesRecord]
    results_by_round: Sequence[Sequence[SeriesRecord]]
    rating_ordinal: Mapping[str, float]


Resolve = Callable[[str], str]
"""Turns a bot reference (``name@version`` or ``name``) into a bot id."""
Ratings = Callable[[Sequence[str]], Mapping[str, float]]
"""The current rating of each given bot that has one."""


class Format:
    """A tournament format; see the package docstring. A subclass plans rounds
    (``first_round``, ``next_round``, ``planned_count``) and may override the
    rest, whose defaults suit a format without settings of its own."""

    settings_class: ClassVar[type[FormatSettings]] = FormatSettings
    """The settings only this format reads, declared as a dataclass (defaults,
    bounds, help, flag: ``arena.core.setting.format_setting``); the command-line
    options, the API and the settings table follow from it, and another format's
    season refuses a value other than their default."""
    reads_plan: ClassVar[bool] = False
    """Whether ``standings`` reads the plan (a big round robin's 40,000 planned rows
    are then not read for every table)."""
    ranks_every_bot: ClassVar[bool] = False
    """Whether a finished season's table ranks every bot against the field, so a
    league division may play it and promote and relegate by its order (not an
    open-ended format, nor one that measures one bot or two)."""

    @classmethod
    def own_settings(cls) -> tuple[Setting, ...]:
        """The declarations of ``settings_class``'s fields."""
        return declared_settings(cls.settings_class)

    @classmethod
    def from_config(cls, config: SeasonConfig) -> Self:
        """The format for a season played under ``config``; raises ``ConfigError``
        for settings it cannot use."""
        raise NotImplementedError

    @classmethod
    def admit(cls, config: SeasonConfig, bot_ids: list[str], resolve: Resolve
              ) -> tuple[SeasonConfig, list[str]]:
        """A new season's configuration and bots as they are stored (settings
        normalised, bots the settings name added); raises ``ConfigError``."""
        return config, bot_ids

    @classmethod
    def summary(cls, config: SeasonConfig) -> str:
        """This format's own settings of ``config`` in words, shown after its name
        ("" when it has none worth showing)."""
        return ""

    def first_round(self, bot_ids: Sequence[str], seed: int) -> list[Pairing]:
        """The pairings planned when the season is created."""
        raise NotImplementedError

    def next_round(
        self, bot_ids: Sequence[str], seed: int,
        results_by_round: Sequence[Sequence[SeriesRecord]],
    ) -> list[Pairing] | None:
        """The round after the ones whose results are given (every planned series
        of them played), or None when the season is complete."""
        raise NotImplementedError

    def planned_count(self, bot_count: int) -> int | None:
        """How many series the whole season plays, when that is known up front."""
        raise NotImplementedError

    def seeded(self, bot_ids: Sequence[str], ratings: Ratings) -> list[str]:
        """A new season's bots in the order the season stores (and plays) them."""
        return list(bot_ids)

    def expected_count(self, bot_count: int, planned_so_far: int) -> int | None:
        """The series the season is expected to play, for its progress and time
        left, given how many are planned so far; None when it cannot say."""
        return self.planned_count(bot_count)

    def standings(self, season: SeasonView) -> FormatStandings:
        """What the format adds to the season's standings."""
        return FormatStandings()


def rounds_of(season_results: Sequence[SeriesRecord], planned: Sequence[PlannedSeries]
              ) -> list[list[SeriesRecord]]:
    """The results by the round that planned them (round 1 first; a round without
    a result yet is empty), in the form ``Format.next_round`` is given them."""
    if not planned:  # a format that does not read the plan: no per-update walk
        return []
    round_of = {series.series_id: series.round for series in planned}
    by_round: dict[int, list[SeriesRecord]] = {}
    for result in season_results:
        number = round_of.get(result.series_id)
        if number is not None:
            by_round.setdefault(number, []).append(result)
    return [by_round.get(number, []) for number in range(1, max(round_of.values(), default=0) + 1)]


def check_owned_settings(config: SeasonConfig, chosen: str,
                         formats: Mapping[str, type[Format]]) -> None:
    """Refuse a setting that another format than ``chosen`` owns, set to a value
    other than its default."""
    for owner, format_class in formats.items():
        if owner == chosen:
            continue
        values = config.settings_for(format_class.settings_class)
        for setting in format_class.own_settings():
            if getattr(values, setting.name) != setting.default:
                raise ConfigError(f"{setting.name} is a setting of the {owner} format, "
                                  f"not of {chosen}")


class PlannedUpFront(Format):
    """Base of the formats whose first round is the whole season: no pairing depends
    on a result, so there is never a next round."""

    def next_round(
        self, bot_ids: Sequence[str], seed: int,
        results_by_round: Sequence[Sequence[SeriesRecord]],
    ) -> list[Pairing] | None:
        return None


def circle_rounds(count: int) -> list[list[tuple[int, int]]]:
    """Round-robin rounds of ``count`` players (circle method): each round pairs
    every player at most once, and each pair (i < j) appears in exactly one round."""
    players = list(range(count))
    if count % 2:
        players.append(_BYE)
    size = len(players)
    rounds: list[list[tuple[int, int]]] = []
    for _ in range(size - 1):
        pairs = []
        for k in range(size // 2):
            a, b = players[k], players[size - 1 - k]
            if _BYE not in (a, b):
                pairs.append((min(a, b), max(a, b)))
        rounds.append(pairs)
        players = [players[0], players[-1], *players[1:-1]]
    return rounds


def home_seat_first(i: int, j: int, count: int) -> bool:
    """Whether player ``i`` (< ``j``) takes seat 0 in a single series against ``j``.

    A rotational rule: ``i`` is "home" when ``j`` lies in the half of the circle
    after ``i``. Every player is home against (count-1)//2 or count//2 opponents, so
    seat counts stay within one of each other."""
    distance = (j - i) % count
    return 1 <= distance <= (count - 1) // 2 or 2 * distance == count


DEAL_KEY_BITS: Final = 256


def new_deal_key() -> int:
    """A secret to derive a season's deal seeds from (``arena.storage.deal_keys``):
    256 random bits, never 0 (0 is a configuration's "no seed")."""
    return secrets.randbits(DEAL_KEY_BITS) | 1


def derive_seed(season_seed: int, i: int, j: int, cycle: int) -> int:
    """The deal seed of one meeting of players i and j, derived from the season seed
    (stable across Python versions and processes)."""
    digest = hashlib.sha256(f"hollywood-season:{season_seed}:{i}:{j}:{cycle}".encode()).digest()
    return int.from_bytes(digest[:8], "big") & MAX_SEED




def derive_round_seed(season_seed: int, label: str) -> int:
    """A deal seed for a meeting named by ``label`` (a format's round and pair),
    derived from the season seed."""
    digest = hashlib.sha256(f"hollywood-season:{season_seed}:{label}".encode()).digest()
    return int.from_bytes(digest[:8], "big") & MAX_SEED


def meeting(first: str, second: str, series: int, seed: int) -> list[Pairing]:
    """``series`` series between two bots on deal ``seed``: duplicate pairs (each
    bot one series in each seat), ``first`` in seat 0 of every pair's first series
    and of the single series an odd count adds. Pair k > 0 plays a seed derived
    from ``seed`` and k."""
    plan: list[Pairing] = []
    for index in range(series // 2):
        pair_seed = seed if index == 0 else derive_round_seed(seed, f"pair-{index}")
        plan += [Pairing(pair_seed, False, first, second), Pairing(pair_seed, False, second, first)]
    if series % 2:
        plan.append(Pairing(derive_round_seed(seed, "single"), False, first, second))
    return plan
