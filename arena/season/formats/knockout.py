"""The knockout format: a seeded single-elimination cup.

* Seeds follow the season's bot order (seed 1 first), which the server sets at
  creation by current rating (``arena.season.seeding``). The bracket has the
  next power of two of slots, seeds placed as usual (1 meets the lowest seed,
  1 and 2 can only meet in the final); missing seeds are byes to the next round.
* Each tie is a duplicate pair (the same deal twice, seats exchanged). The bot
  with more series points goes through; a drawn tie plays a further duplicate
  pair on a new deal, up to ``tiebreak_pairs`` further pairs, and then the higher
  seed goes through.
* A stored round is one duplicate pair of every undecided tie, so a bracket
  round takes one stored round plus one per tie-break pair. The bracket is
  replayed from the stored results (``replay_bracket``), which the standings
  show too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Self

from arena.core.setting import FormatSettings, format_setting
from arena.core.settings import SeasonConfig
from arena.season.formats.base import (
    Format,
    FormatStandings,
    Pairing,
    Ratings,
    SeasonView,
    Section,
    derive_round_seed,
    meeting,
)
from arena.storage import SeriesRecord


@dataclass
class Tie:
    """One tie of the bracket; ``high`` is the higher seed (None: a bye)."""

    bracket_round: int
    high: str | None
    low: str | None
    high_seed: int
    low_seed: int
    high_score: float = 0.0
    low_score: float = 0.0
    pairs: int = 0
    winner: str | None = None
    decided_by: str = ""
    """"score", "seed" (a drawn tie after every tie-break pair) or "bye"."""

    def to_dict(self) -> dict[str, object]:
        return dict(vars(self))


@dataclass
class Bracket:
    """The ties so far, bracket round by bracket round; ``pending`` the pairings
    of the next stored round (empty while a round is being played or when the
    cup is over); ``champion`` once decided."""

    rounds: list[list[Tie]]
    pending: list[Pairing]
    champion: str | None


def bracket_order(size: int) -> list[int]:
    """Seeds (1-based) in bracket slot order for a power-of-two ``size``: slot
    pairs (0, 1), (2, 3)... meet first; e.g. 8 -> 1 8 4 5 2 7 3 6."""
    order = [1]
    while len(order) < size:
        total = 2 * len(order) + 1
        order = [seed for top in order for seed in (top, total - top)]
    return order


def replay_bracket(bot_ids: Sequence[str], seed: int, tiebreak_pairs: int,
                   results_by_round: Sequence[Sequence[SeriesRecord]]) -> Bracket:
    """The bracket as the stored results make it (see the module docstring)."""
    size = 1
    while size < len(bot_ids):
        size *= 2
    seed_of = {bot: index + 1 for index, bot in enumerate(bot_ids)}
    entrants: list[str | None] = [bot_ids[s - 1] if s <= len(bot_ids) else None
                                  for s in bracket_order(size)]
    rounds: list[list[Tie]] = []
    stored = iter(results_by_round)
    while len(entrants) > 1:
        ties = [_tie(len(rounds) + 1, entrants[k], entrants[k + 1], seed_of)
                for k in range(0, len(entrants), 2)]
        rounds.append(ties)
        while any(tie.winner is None for tie in ties):
            results = next(stored, None)
            open_ties = [tie for tie in ties if tie.winner is None]
            if results is None:
                pending = [pairing for tie in open_ties
                           for pairing in _pair(tie, seed, seed_of)]
                return Bracket(rounds, pending, None)
            if not _score(open_ties, results, tiebreak_pairs):
                return Bracket(rounds, [], None)  # a pair still being played
        entrants = [tie.winner for tie in ties]
    return Bracket(rounds, [], entrants[0])


def _tie(bracket_round: int, first: str | None, second: str | None,
         seed_of: dict[str, int]) -> Tie:
    slots = sorted((bot for bot in (first, second) if bot is not None), key=seed_of.__getitem__)
    high = slots[0]
    low = slots[1] if len(slots) > 1 else None
    tie = Tie(bracket_round, high, low, seed_of[high], seed_of[low] if low else 0)
    if low is None:
        tie.winner, tie.decided_by = high, "bye"
    return tie


def _pair(tie: Tie, seed: int, seed_of: dict[str, int]) -> list[Pairing]:
    assert tie.high is not None and tie.low is not None
    label = f"knockout:{tie.bracket_round}:{tie.high_seed}:{tie.low_seed}:{tie.pairs}"
    return meeting(tie.high, tie.low, 2, derive_round_seed(seed, label))


def _score(open_ties: list[Tie], results: Sequence[SeriesRecord], tiebreak_pairs: int) -> bool:
    """Add one stored round to its ties; False when a tie's pair is incomplete."""
    played = {id(tie): 0 for tie in open_ties}
    by_bot = {bot: tie for tie in open_ties for bot in (tie.high, tie.low) if bot}
    for result in results:
        tie = by_bot[result.seat0_bot]
        played[id(tie)] += 1
        for seat, points in enumerate(result.scores):
            if result.bots[seat] == tie.high:
                tie.high_score += points
            else:
                tie.low_score += points
    if any(count < 2 for count in played.values()):
        return False
    for tie in open_ties:
        tie.pairs += 1
        if tie.high_score != tie.low_score:
            tie.winner = tie.high if tie.high_score > tie.low_score else tie.low
            tie.decided_by = "score"
        elif tie.pairs > tiebreak_pairs:
            tie.winner, tie.decided_by = tie.high, "seed"
    return True


def seed_order(bot_ids: Sequence[str], ratings: Mapping[str, float]) -> list[str]:
    """Rated bots by rating (highest first; ties keep the given order), then the rest."""
    rated = sorted((bot for bot in bot_ids if bot in ratings), key=lambda bot: -ratings[bot])
    return rated + [bot for bot in bot_ids if bot not in ratings]


@dataclass(frozen=True)
class KnockoutSettings(FormatSettings):
    """The knockout's own setting."""

    tiebreak_pairs: int = format_setting(
        3, "knockout: further duplicate pairs a drawn tie plays before the higher seed goes "
        "through", "--tiebreak-pairs", kind=int, proto_field="tiebreak_pairs", low=0, high=100)


class Knockout(Format):
    """See the module docstring."""

    settings_class = KnockoutSettings
    reads_plan = True  # the bracket is replayed round by round
    ranks_every_bot = True

    def __init__(self, tiebreak_pairs: int) -> None:
        self.tiebreak_pairs = tiebreak_pairs

    @classmethod
    def from_config(cls, config: SeasonConfig) -> Self:
        return cls(config.settings_for(KnockoutSettings).tiebreak_pairs)

    def seeded(self, bot_ids: Sequence[str], ratings: Ratings) -> list[str]:
        """Seeds by current rating (``seed_order``)."""
        return seed_order(bot_ids, ratings(bot_ids))

    def expected_count(self, bot_count: int, planned_so_far: int) -> int | None:
        """At least one duplicate pair per tie; tie-breaks add more."""
        return max(planned_so_far, 2 * (bot_count - 1))

    def standings(self, season: SeasonView) -> FormatStandings:
        """The bracket so far, tie by tie."""
        bracket = replay_bracket(season.bot_ids, season.seed, self.tiebreak_pairs,
                                 season.results_by_round)
        return FormatStandings(sections=[bracket_section(bracket)], api={
            "bracket": [tie.to_dict() for ties in bracket.rounds for tie in ties],
            "champion": bracket.champion})

    def first_round(self, bot_ids: Sequence[str], seed: int) -> list[Pairing]:
        if len(set(bot_ids)) != len(bot_ids) or len(bot_ids) < 2:
            raise ValueError("a season needs at least two distinct bots")
        return replay_bracket(bot_ids, seed, self.tiebreak_pairs, []).pending

    def next_round(
        self, bot_ids: Sequence[str], seed: int,
        results_by_round: Sequence[Sequence[SeriesRecord]],
    ) -> list[Pairing] | None:
        bracket = replay_bracket(bot_ids, seed, self.tiebreak_pairs, results_by_round)
        return bracket.pending or None

    def planned_count(self, bot_count: int) -> int | None:
        return None  # tie-break pairs depend on the results


def bracket_section(bracket: Bracket) -> Section:
    """The bracket as a table under the standings."""
    rows = []
    for tie in (tie for ties in bracket.rounds for tie in ties):
        through = f"{tie.winner} ({tie.decided_by})" if tie.winner else "…"
        rows.append((str(tie.bracket_round), f"({tie.high_seed}) {tie.high}",
                     f"({tie.low_seed}) {tie.low}" if tie.low else "bye",
                     f"{tie.high_score:g}-{tie.low_score:g}" if tie.low else "",
                     str(tie.pairs), through))
    return Section(
        "Bracket" + (f" — champion {bracket.champion}" if bracket.champion else ""),
        ("Round", "Higher seed", "Lower seed", "Score", "Pairs", "Through"), tuple(rows),
        legend=("the bracket's round, 1 first", "(seed) the better-seeded bot of the tie",
                "(seed) the other bot, or a bye", "the tie's series points, higher seed "
                "first", "duplicate pairs played in the tie (tie-break pairs included)",
                "who goes through and why: score, seed (still level when the tie-break "
                "pairs ran out) or bye"))
