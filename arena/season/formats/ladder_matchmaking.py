"""Who meets whom in a ladder's next round (pure: the same arguments, the same round).

A round has ``m`` meetings, so ``2m`` places. Each member of the ladder earns a
**share** of every round it is a member of: the round's places divided by its
members (``2m / n``), summed over its current stint (since it last joined).
Its **debt** is its share minus the meetings it played in that stint.

The fairness rule (docs/formats.md, "ladder"): every round gives its first half
of the places (``m`` members) to the members with the highest debt; the other
half goes to the most uncertain ratings (highest OpenSkill sigma), so new and
unsettled bots play more. A member's debt therefore stays below ``MAX_DEBT``
meetings: no member is ever more than that many meetings behind its share
(``tests/arena/season/test_ladder_fairness.py`` checks the bound over random ladders with
bots joining and leaving).

The chosen members are paired from the most uncertain down: each meets the
still unpaired chosen member of the closest rating (mu), so meetings are close
and teach the most about the least settled ratings. Ties are broken by the
member order (the ladder's members in the order they joined).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from arena.storage import SeriesRecord

OWED: Final = 1.0
"""A member this many meetings behind its share is owed a place."""
MAX_DEBT: Final = 2.0
"""No member is ever this many meetings behind its share (the stated bound)."""


@dataclass(frozen=True)
class Rating:
    """A bot's OpenSkill rating as matchmaking reads it."""

    mu: float
    sigma: float


@dataclass(frozen=True)
class Standing:
    """A member's place in the queue: its debt and rating, and its position in
    the member order (ties)."""

    bot_id: str
    debt: float
    rating: Rating
    position: int


def stint_start(history: Sequence[Collection[str]], bot_id: str) -> int:
    """The index of the first round of ``bot_id``'s current stint: the run of
    rounds ending with the last one of ``history`` that all list it."""
    start = len(history)
    while start > 0 and bot_id in history[start - 1]:
        start -= 1
    return start


def debts(history: Sequence[Sequence[str]], results_by_round: Sequence[Sequence[SeriesRecord]],
          series_per_meeting: int) -> dict[str, float]:
    """Each member's debt (share minus meetings played in its current stint)
    before the last round of ``history`` is planned; ``results_by_round`` holds
    the results of every round before it."""
    if len(results_by_round) != len(history) - 1:
        raise ValueError(f"{len(history)} rounds of members but results of "
                         f"{len(results_by_round)} earlier rounds")
    owed: dict[str, float] = {}
    members = history[-1]
    rounds = [set(round_members) for round_members in history]  # 1,000 members: no list scans
    starts = {bot_id: stint_start(rounds, bot_id) for bot_id in members}
    for index, results in enumerate(results_by_round):
        present = [bot_id for bot_id in members if starts[bot_id] <= index]
        if not present:
            continue
        places = 2 * (len(results) // series_per_meeting)
        per_member = places / len(history[index])
        played: dict[str, int] = {}
        for result in results:
            for bot_id in result.bots:
                played[bot_id] = played.get(bot_id, 0) + 1
        for bot_id in present:
            owed[bot_id] = (owed.get(bot_id, 0.0) + per_member
                            - played.get(bot_id, 0) / series_per_meeting)
    return {bot_id: owed.get(bot_id, 0.0) for bot_id in members}


def choose_meetings(members: Sequence[str], owed: Mapping[str, float],
                    ratings: Mapping[str, Rating], meetings: int) -> list[tuple[str, str]]:
    """The round's meetings (see the module docstring): ``meetings`` pairs of
    distinct members, the more uncertain of each pair first."""
    meetings = min(meetings, len(members) // 2)
    queue = [Standing(bot_id, owed[bot_id], ratings[bot_id], position)
             for position, bot_id in enumerate(members)]
    by_debt = sorted(queue, key=lambda s: (-round(s.debt, 9), s.position))
    chosen = [s for s in by_debt if s.debt >= OWED - 1e-9][:2 * meetings]
    taken = {standing.bot_id for standing in chosen}
    by_sigma = sorted((s for s in queue if s.bot_id not in taken),
                      key=lambda s: (-round(s.rating.sigma, 9), -round(s.debt, 9), s.position))
    chosen += by_sigma[:2 * meetings - len(chosen)]
    return pair_closest(chosen)


def pair_closest(chosen: Sequence[Standing]) -> list[tuple[str, str]]:
    """Pairs ``chosen`` from the most uncertain down, each with the still unpaired
    member of the closest mu (ties: the higher sigma, then the member order). The
    unpaired are kept in mu order, so the closest is found next to where its mu
    would go, not by a scan of all of them (500 places at 1,000 members)."""
    order = sorted(chosen, key=lambda s: (-round(s.rating.sigma, 9), s.position))
    by_mu = sorted(chosen, key=lambda s: (s.rating.mu, s.position))
    mus = [s.rating.mu for s in by_mu]
    paired: set[str] = set()
    pairs: list[tuple[str, str]] = []
    for first in order:
        if first.bot_id in paired:
            continue
        _take(by_mu, mus, first)
        partner = min(_nearest(by_mu, mus, first.rating.mu),
                      key=lambda s: (-round(s.rating.sigma, 9), s.position))
        _take(by_mu, mus, partner)
        paired |= {first.bot_id, partner.bot_id}
        pairs.append((first.bot_id, partner.bot_id))
    return pairs


def _take(by_mu: list[Standing], mus: list[float], standing: Standing) -> None:
    """Remove ``standing`` from ``by_mu`` and its mu from ``mus`` (kept in step)."""
    index = bisect_left(mus, standing.rating.mu)
    while by_mu[index] is not standing:  # past the others of the same mu
        index += 1
    del by_mu[index], mus[index]


def _nearest(by_mu: Sequence[Standing], mus: Sequence[float], mu: float) -> list[Standing]:
    """Every standing of ``by_mu`` (mus ``mus``, ascending) at the least distance
    from ``mu``, the distance rounded as matchmaking compares it."""
    at = bisect_left(mus, mu)
    best: float | None = None
    found: list[Standing] = []
    for step, stop in ((-1, -1), (1, len(mus))):
        index = at - 1 if step < 0 else at
        while index != stop:
            distance = round(abs(mus[index] - mu), 9)
            if best is not None and distance > best:
                break
            if best is None or distance < best:
                best, found = distance, []
            found.append(by_mu[index])
            index += step
    return found
