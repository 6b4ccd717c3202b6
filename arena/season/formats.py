"""Tournament formats: who plays whom, round by round.

A ``Format`` plans a season as rounds of pairings. ``first_round`` is planned when
the season is created (from its bots and seed alone); ``next_round`` is asked, by
the season runner, each time every series planned so far has a stored result, and
is given those results round by round; it answers the next round's pairings, or
None when the season is complete. A format must be a pure function of its
arguments: a season resumed after a crash asks again and must get the same round.

Formats are chosen by name from the season's configuration (``FORMATS``; a new
format is one class and one line there).

**round-robin** (the first format) plans everything in its first round, since no
pairing depends on a result (and so no round waits for the slowest series):

* every pair of bots meets ``series_per_pair`` times;
* the series of a pair come in **duplicate pairs**: two series on the same seed, the
  second with the bots exchanged between the seats. The engine deals by seat (seat
  0 always gets the same cards of a seed, and the first dealer is a seat), so the
  exchange alone gives each bot the other's cards and first deal: each bot plays
  both hands of every deal. ``swap_seats`` stays False: setting it as well would
  swap the cards back, and each bot would be dealt its own cards twice (the engine's
  ``swap_seats`` is the other way to a duplicate, with bots kept in their seats,
  which would leave seats unbalanced). An odd ``series_per_pair`` adds one single
  series;
* seats are fair: a duplicate pair gives each bot one series in each seat, and the
  single series are oriented by a balanced round-robin rule, so every bot's seat-0
  and seat-1 counts differ by at most one;
* the order follows the circle method (round by round, every bot once per round),
  so a season stopped halfway has spread its games over all the bots.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Protocol

from arena.core.settings import MAX_SEED, ConfigError, SeasonConfig
from arena.storage import SeriesRecord

DEFAULT_FORMAT: Final = "round-robin"
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


class Format(Protocol):
    """A tournament format; see the module docstring."""

    def first_round(self, bot_ids: Sequence[str], seed: int) -> list[Pairing]:
        """The pairings planned when the season is created."""
        ...

    def next_round(
        self, bot_ids: Sequence[str], seed: int,
        results_by_round: Sequence[Sequence[SeriesRecord]],
    ) -> list[Pairing] | None:
        """The round after the ones whose results are given (every planned series
        of them played), or None when the season is complete."""
        ...

    def planned_count(self, bot_count: int) -> int | None:
        """How many series the whole season plays, when that is known up front."""
        ...


class RoundRobin:
    """Every pair meets ``series_per_pair`` times, in duplicate pairs, all planned
    in the first round; see the module docstring."""

    def __init__(self, series_per_pair: int) -> None:
        if series_per_pair < 1:
            raise ValueError("series_per_pair must be at least 1")
        self.series_per_pair = series_per_pair

    def first_round(self, bot_ids: Sequence[str], seed: int) -> list[Pairing]:
        if len(bot_ids) < 2:
            raise ValueError("a season needs at least two bots")
        if len(set(bot_ids)) != len(bot_ids):
            raise ValueError("a season's bots must be distinct")
        count = len(bot_ids)
        plan: list[Pairing] = []
        cycles = (self.series_per_pair + 1) // 2
        for cycle in range(cycles):
            duplicate = 2 * (cycle + 1) <= self.series_per_pair
            for round_pairs in circle_rounds(count):
                for i, j in round_pairs:
                    home_first = home_seat_first(i, j, count)
                    if cycle % 2:
                        home_first = not home_first
                    first, second = (i, j) if home_first else (j, i)
                    seed_ij = derive_seed(seed, i, j, cycle)
                    plan.append(Pairing(seed_ij, False, bot_ids[first], bot_ids[second]))
                    if duplicate:
                        plan.append(Pairing(seed_ij, False, bot_ids[second], bot_ids[first]))
        return plan

    def next_round(
        self, bot_ids: Sequence[str], seed: int,
        results_by_round: Sequence[Sequence[SeriesRecord]],
    ) -> list[Pairing] | None:
        return None  # the first round was the whole plan

    def planned_count(self, bot_count: int) -> int | None:
        return bot_count * (bot_count - 1) // 2 * self.series_per_pair


FormatFactory = Callable[[SeasonConfig], Format]
"""Makes a format from the season's settings."""

FORMATS: Final[dict[str, FormatFactory]] = {
    "round-robin": lambda config: RoundRobin(config.series_per_pair),
}
"""Every format, by the name a season's configuration gives."""


def format_name(stored_config: Mapping[str, Any]) -> str:
    """The format a season's stored configuration names (round-robin, the only
    format before there was a setting, when it names none)."""
    return str(stored_config.get("format", DEFAULT_FORMAT))


def format_for(name: str, config: SeasonConfig) -> Format:
    """The format called ``name`` for a season played under ``config``; raises
    ``ConfigError`` for an unknown name."""
    factory = FORMATS.get(name)
    if factory is None:
        raise ConfigError(f"format must be one of {', '.join(sorted(FORMATS))}, got {name!r}")
    return factory(config)


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


def derive_seed(season_seed: int, i: int, j: int, cycle: int) -> int:
    """The deal seed of one meeting of players i and j, derived from the season seed
    (stable across Python versions and processes)."""
    digest = hashlib.sha256(f"hollywood-season:{season_seed}:{i}:{j}:{cycle}".encode()).digest()
    return int.from_bytes(digest[:8], "big") & MAX_SEED


def plan_season(bot_ids: Sequence[str], series_per_pair: int, seed: int) -> list[Pairing]:
    """The whole round-robin plan of a season (its first and only round)."""
    return RoundRobin(series_per_pair).first_round(bot_ids, seed)
