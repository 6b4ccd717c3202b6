"""Standings: pure functions from a season's stored results to its table.

Per bot: series played / won / lost / drawn / forfeited, games (score-sheet
columns) won and lost, hands won, points for and against, series points, and an
OpenSkill (Plackett-Luce) rating with its uncertainty, updated series by series in
STORAGE order: the order the results were stored in, which the database records as
each result's ``stored_seq`` (1, 2, ... per season). The live standings apply each
result as it is stored; a full recompute applies the stored results sorted by
``stored_seq``, so it reproduces the live numbers exactly. (Results stored by an
arena older than schema version 3 were numbered in plan order, the order their
ratings were computed in then.) Plus a head-to-head crosstable.

A forfeit (the series' ``fault`` names the bot's seat) is a lost series for the
faulting bot and a won one for its opponent, unless the runner declared the series
drawn (both bots failed to start): then both get a draw and both count a
forfeit. The games, hands and points of a forfeited series count for neither bot:
they are the score of a series that was never finished (a bot that played one good
game and then crashed in every series would otherwise show games won and a point
surplus), so games, hands and points ± are those of series played to their end.

Ordering rule (``ORDERING_RULE``): more series points (win 1, draw 0.5, loss 0);
then the higher rating ordinal (mu - 3 sigma); then the better game difference (won
- lost); then the better point difference; then the bot id alphabetically.
"""

from __future__ import annotations

from bisect import bisect_left, insort
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from openskill.models import PlackettLuce

from arena.core.ordering import ORDERING_RULE
from arena.core.series import SeriesVerdict
from arena.storage import SeriesRecord


@dataclass
class StandingRow:
    """One bot's line in the standings."""

    bot_id: str
    rank: int = 0
    series_played: int = 0
    series_won: int = 0
    series_lost: int = 0
    series_drawn: int = 0
    series_forfeited: int = 0
    games_won: int = 0
    games_lost: int = 0
    hands_won: int = 0
    points_for: int = 0
    points_against: int = 0
    rating_mu: float = 0.0
    rating_sigma: float = 0.0

    def copy(self) -> StandingRow:
        """A copy (``dataclasses.replace`` costs 4 times as much: a 200-bot table is
        copied after every stored series)."""
        row = object.__new__(StandingRow)
        row.__dict__.update(self.__dict__)
        return row

    @property
    def series_points(self) -> float:
        return (self.series_won * SeriesVerdict.WIN.score
                + self.series_drawn * SeriesVerdict.DRAW.score)

    @property
    def rating_ordinal(self) -> float:
        return self.rating_mu - 3.0 * self.rating_sigma

    def sort_key(self) -> tuple[float, float, int, int, str]:
        """Ascending sort key implementing ``ORDERING_RULE``."""
        return (
            -self.series_points,
            -round(self.rating_ordinal, 9),
            -(self.games_won - self.games_lost),
            -(self.points_for - self.points_against),
            self.bot_id,
        )

    def values(self) -> dict[str, Any]:
        """Every column of the row by name: its fields and the derived ones. The
        API's ``StandingRow`` message is filled from these by name
        (``arena.server.convert``) and the website shows ``to_dict``, so a new
        column is a field here (or a derived one named in ``DERIVED_COLUMNS``), the
        message's field of the same name, and its place in each renderer."""
        values = dict(self.__dict__)
        for name in DERIVED_COLUMNS:
            values[name] = getattr(self, name)
        return values

    def to_dict(self) -> dict[str, Any]:
        """``values`` for JSON: the ratings to 4 decimals."""
        values = self.values()
        for name in ROUNDED_COLUMNS:
            values[name] = round(values[name], 4)
        return values


DERIVED_COLUMNS: Final = ("series_points", "rating_ordinal")
ROUNDED_COLUMNS: Final = ("rating_mu", "rating_sigma", "rating_ordinal")


@dataclass
class HeadToHead:
    """One bot's record against one opponent."""

    won: int = 0
    lost: int = 0
    drawn: int = 0
    forfeited: int = 0


@dataclass
class Standings:
    """A season's table: rows in rank order and the crosstable
    ``crosstable[bot][opponent]`` (only pairs that met)."""

    rows: list[StandingRow]
    crosstable: dict[str, dict[str, HeadToHead]] = field(default_factory=dict)

    def row(self, bot_id: str) -> StandingRow:
        for row in self.rows:
            if row.bot_id == bot_id:
                return row
        raise KeyError(bot_id)

    def to_dict(self) -> dict[str, Any]:
        return {
            "ordering_rule": ORDERING_RULE,
            "rows": [row.to_dict() for row in self.rows],
            "crosstable": {
                bot: {opponent: vars(cell).copy() for opponent, cell in opponents.items()}
                for bot, opponents in self.crosstable.items()
            },
        }


def compute_standings(bot_ids: Sequence[str], results: Iterable[SeriesRecord]) -> Standings:
    """The standings of ``bot_ids`` over ``results`` (in the order given, which the
    rating updates follow: pass them in storage order, as the live standings do).
    Bots without results get an empty row; results naming other bots raise
    ``ValueError``."""
    state = StandingsState(bot_ids)
    for result in results:
        state.apply(result)
    return state.table()


class StandingsState:
    """A season's standings kept up to date one stored result at a time.

    ``apply`` costs the same at the first result and the 40,000th: two rows, two
    crosstable cells, two ratings and two places in the order change. ``table``
    publishes an immutable copy without sorting or copying the whole table: the
    order is kept sorted as ``apply`` goes (the two changed sort keys moved by
    bisection), and rows and per-bot crosstable maps are shared with published
    tables and replaced (copy-on-write) before anything changes them, a row also
    when its rank does. ``sequence`` is the ``stored_seq`` of the last result
    applied (0 for none).
    """

    def __init__(self, bot_ids: Sequence[str]) -> None:
        self.bot_ids = tuple(bot_ids)
        self.sequence = 0
        self._rows = {bot_id: StandingRow(bot_id) for bot_id in bot_ids}
        self._crosstable: dict[str, dict[str, HeadToHead]] = {bot_id: {} for bot_id in bot_ids}
        self._published: set[str] = set()
        self._published_rows: set[str] = set()
        self._model = PlackettLuce()
        self._ratings = {bot_id: self._model.rating(name=bot_id) for bot_id in bot_ids}
        for bot_id, row in self._rows.items():
            row.rating_mu = float(self._ratings[bot_id].mu)
            row.rating_sigma = float(self._ratings[bot_id].sigma)
        self._keys = {bot_id: row.sort_key() for bot_id, row in self._rows.items()}
        self._order = sorted(self._keys.values())

    @classmethod
    def restore(cls, bot_ids: Sequence[str], sequence: int, rows: Iterable[StandingRow],
                crosstable: dict[str, dict[str, HeadToHead]]) -> StandingsState:
        """The state a table of its ``sequence`` was published from (``table``), its
        ratings from the rows' μ and σ, so that applying the results after it gives
        the numbers applying every result from the first would
        (``arena.season.standings_checkpoint``)."""
        state = cls(bot_ids)
        state.sequence = sequence
        for row in rows:
            state._rows[row.bot_id] = row
            state._ratings[row.bot_id] = state._model.rating(
                name=row.bot_id, mu=row.rating_mu, sigma=row.rating_sigma)
            state._keys[row.bot_id] = row.sort_key()
        state._crosstable.update(crosstable)
        state._order = sorted(state._keys.values())
        return state

    def knows(self, bot_ids: Iterable[str]) -> bool:
        """Whether every bot of ``bot_ids`` has a row."""
        return all(bot_id in self._rows for bot_id in bot_ids)

    def add_bots(self, bot_ids: Sequence[str]) -> None:
        """Give the bots of ``bot_ids`` not in the table yet an empty row (a ladder's
        members join as it plays)."""
        for bot_id in bot_ids:
            if bot_id in self._rows:
                continue
            self.bot_ids += (bot_id,)
            self._rows[bot_id] = row = StandingRow(bot_id)
            self._crosstable[bot_id] = {}
            self._ratings[bot_id] = rating = self._model.rating(name=bot_id)
            row.rating_mu, row.rating_sigma = float(rating.mu), float(rating.sigma)
            self._keys[bot_id] = key = row.sort_key()
            insort(self._order, key)

    def apply(self, result: SeriesRecord) -> None:
        """Count one stored result (``ValueError`` if it names a bot outside the season)."""
        for bot_id in result.bots:
            if bot_id not in self._rows:
                raise ValueError(f"series {result.series_id} names {bot_id}, not in the season")
        verdicts = result.verdicts
        forfeiting_seats = result.forfeiting_seats
        for seat in (0, 1):
            me, other = result.bots[seat], result.bots[1 - seat]
            row = self._row(me)
            cell = HeadToHead(**vars(self._opponents(me).get(other, HeadToHead())))
            row.series_played += 1
            verdict = verdicts[seat]
            if verdict is SeriesVerdict.WIN:
                row.series_won += 1
                cell.won += 1
            elif verdict is SeriesVerdict.LOSS:
                row.series_lost += 1
                cell.lost += 1
            else:
                row.series_drawn += 1
                cell.drawn += 1
            if seat in forfeiting_seats:
                row.series_forfeited += 1
                cell.forfeited += 1
            self._crosstable[me][other] = cell
            if forfeiting_seats:
                continue
            row.games_won += result.games_won[seat]
            row.games_lost += result.games_won[1 - seat]
            row.hands_won += result.hands_won[seat]
            row.points_for += result.points[seat]
            row.points_against += result.points[1 - seat]
        first, second = result.bots
        [[new_first], [new_second]] = self._model.rate(
            [[self._ratings[first]], [self._ratings[second]]],
            ranks=[verdicts[0].rating_rank, verdicts[1].rating_rank],
        )
        self._ratings[first], self._ratings[second] = new_first, new_second
        for bot_id in (first, second):
            row = self._rows[bot_id]
            row.rating_mu = float(self._ratings[bot_id].mu)
            row.rating_sigma = float(self._ratings[bot_id].sigma)
            self._reorder(row)
        self.sequence = max(self.sequence, result.stored_seq)

    def _row(self, bot_id: str) -> StandingRow:
        """The bot's row, copied first if a published table shares it."""
        if bot_id in self._published_rows:
            self._rows[bot_id] = self._rows[bot_id].copy()
            self._published_rows.discard(bot_id)
        return self._rows[bot_id]

    def _reorder(self, row: StandingRow) -> None:
        """Move the row's sort key to its new place in the order."""
        old = self._keys[row.bot_id]
        del self._order[bisect_left(self._order, old)]
        self._keys[row.bot_id] = new = row.sort_key()
        insort(self._order, new)

    def _opponents(self, bot_id: str) -> dict[str, HeadToHead]:
        """The bot's crosstable map, copied first if a published table shares it."""
        if bot_id in self._published:
            self._crosstable[bot_id] = dict(self._crosstable[bot_id])
            self._published.discard(bot_id)
        return self._crosstable[bot_id]

    def table(self) -> Standings:
        """The standings now, ranked; later ``apply`` calls do not change it."""
        ordered = []
        for rank, key in enumerate(self._order, start=1):
            row = self._rows[key[-1]]
            if row.rank != rank:
                row = self._row(row.bot_id)
                row.rank = rank
            ordered.append(row)
        self._published = set(self._crosstable)
        self._published_rows = set(self._rows)
        return Standings(rows=ordered, crosstable=dict(self._crosstable))
