"""What every format shares: ``Pairing`` (one planned series), the ``Format``
protocol, deal seeds derived from the season seed, and the duplicate-pair
meeting of two bots (see ``round_robin`` for why duplicate pairs exchange the
bots between the seats rather than set ``swap_seats``)."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Protocol

from arena.core.settings import MAX_SEED
from arena.storage import SeriesRecord

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


class PlannedUpFront:
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


def series_scores(result: SeriesRecord) -> tuple[float, float]:
    """Seat 0's and seat 1's score of a stored series: 1 a win, 0.5 a draw, 0 a loss
    (a forfeit is the loss the runner declared it)."""
    if result.winner_seat is None:
        return (0.5, 0.5)
    return (1.0, 0.0) if result.winner_seat == 0 else (0.0, 1.0)
