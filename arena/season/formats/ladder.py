"""The ladder: a season without an end that keeps scheduling meetings among the
active bots, round after round (``arena ladder start|stop|status|keep``).

The ladder's members are not fixed at creation: before each round is planned the
season runner (``arena.season.open_rounds``) gives ``members`` every active
version; the ladder takes each bot name's newest one (and every older one its
owner keeps on the ladder: ``arena ladder keep``), so a new version joins by
itself, its predecessor leaves, and a deactivated or rejected version leaves;
with a gate (``--gate sprt``, ``arena.season.formats.ladder_gate``) a new version
of a member joins only once its match against its predecessor admits it. The
round's members are stored with the round. This
module plans a round from the members of every round so far and the results:
``arena.season.formats.ladder_matchmaking`` chooses the meetings (the fairness
rule and the matchmaking), each meeting ``series_per_pair`` series in duplicate
pairs. The season's creation plans nothing: round 1 is planned like any other
by the runner.

Ratings are continuous: OpenSkill over every result (the standings' own), and a
Bradley-Terry fit over the latest ``ladder_window`` series, shown with a
provisional mark for ratings that have not settled (fewer than
``PROVISIONAL_SERIES`` series on the ladder, or sigma above
``PROVISIONAL_SIGMA``).
"""

from __future__ import annotations

from collections.abc import Sequence, Set
from typing import Final, Self

from arena.core.defaults import DEFAULT_MAX_SEASON_BOTS
from arena.core.settings import SeasonConfig
from arena.season.formats.base import (
    ExtraColumn,
    Format,
    FormatStandings,
    Pairing,
    SeasonView,
    derive_round_seed,
    meeting,
)
from arena.season.formats.ladder_gate import LadderGate
from arena.season.formats.ladder_matchmaking import choose_meetings, debts
from arena.season.formats.ladder_ratings import PlanOrderRatings
from arena.season.formats.ladder_settings import LadderSettings
from arena.season.standings import compute_standings
from arena.season.statistics.bradley_terry import PairResult, fit
from arena.storage import SeriesRecord

MAX_MEMBERS: Final = DEFAULT_MAX_SEASON_BOTS
"""A ladder has at most this many members (a season's default limit of bots);
versions registered later wait until a member leaves."""
PROVISIONAL_SERIES: Final = 10
"""A rating from fewer series than this (on the ladder) is provisional."""
PROVISIONAL_SIGMA: Final = 4.0
"""A rating whose OpenSkill sigma is above this is provisional (a new bot's is 8.33)."""


class OpenEnded(Format):
    """A format whose members change while it plays: the runner gives it the
    members of every round (``plan``) instead of the season's fixed bots.
    ``gate``: what a new version of a member plays before it joins (None: it
    joins at once)."""

    gate: LadderGate | None = None

    def plan(self, history: Sequence[Sequence[str]], seed: int,
             results_by_round: Sequence[Sequence[SeriesRecord]]) -> list[Pairing] | None:
        """The round after ``results_by_round`` for the members of every round
        (``history[-1]`` the round planned now): its pairings, [] when it has too
        few members to play (the runner waits for more), None when it is over."""
        raise NotImplementedError

    def members(self, active: Sequence[str], kept: Set[str]) -> list[str]:
        """The next round's members, given every active bot version (oldest first)
        and the versions their owners keep on the ladder beside newer ones."""
        raise NotImplementedError

    def over(self, rounds_planned: int) -> bool:
        """Whether it plans no round after ``rounds_planned`` rounds."""
        return False


class Ladder(OpenEnded):
    """See the module docstring."""

    settings_class = LadderSettings

    def __init__(self, series_per_pair: int, rounds: int = 0, meetings: int = 0,
                 window: int = 1000, gate: LadderGate | None = None) -> None:
        if series_per_pair < 1:
            raise ValueError("series_per_pair must be at least 1")
        self.series_per_pair = series_per_pair
        self.rounds = rounds
        self.meetings = meetings
        self.window = window
        self.gate = gate
        self._ratings = PlanOrderRatings()

    @classmethod
    def from_config(cls, config: SeasonConfig) -> Self:
        own = config.settings_for(LadderSettings)
        return cls(config.series_per_pair, own.ladder_rounds, own.ladder_meetings,
                   own.ladder_window, LadderGate.from_config(config))

    @classmethod
    def summary(cls, config: SeasonConfig) -> str:
        own = config.settings_for(LadderSettings)
        end = f"{own.ladder_rounds} rounds" if own.ladder_rounds else "no end"
        gate = LadderGate.from_config(config)
        shown = f", {gate.summary()}" if gate is not None else ""
        return f"({end}, window {own.ladder_window}{shown})"

    def members(self, active: Sequence[str], kept: Set[str]) -> list[str]:
        newest = {bot_id.partition("@")[0]: bot_id for bot_id in active}  # the last wins
        chosen = [bot_id for bot_id in active
                  if newest[bot_id.partition("@")[0]] == bot_id or bot_id in kept]
        return chosen[:MAX_MEMBERS]  # the latest registered wait for a place

    def over(self, rounds_planned: int) -> bool:
        return bool(self.rounds) and rounds_planned >= self.rounds

    def first_round(self, bot_ids: Sequence[str], seed: int) -> list[Pairing]:
        if len(set(bot_ids)) != len(bot_ids) or len(bot_ids) < 2:
            raise ValueError("a ladder needs at least two distinct bots")
        return []  # every round, the first too, is planned by the runner with its members

    def next_round(
        self, bot_ids: Sequence[str], seed: int,
        results_by_round: Sequence[Sequence[SeriesRecord]],
    ) -> list[Pairing] | None:
        """The next round when the members never change (every round ``bot_ids``)."""
        return self.plan([list(bot_ids)] * (len(results_by_round) + 1), seed, results_by_round)

    def plan(self, history: Sequence[Sequence[str]], seed: int,
             results_by_round: Sequence[Sequence[SeriesRecord]]) -> list[Pairing] | None:
        number = len(history)
        if self.over(number - 1):
            return None
        members = list(history[-1])
        if len(members) < 2:
            return []
        owed = debts(history, results_by_round, self.series_per_pair)
        ratings = self._ratings.ratings(members, results_by_round)
        count = self.meetings_per_round(len(members))
        plan: list[Pairing] = []
        for index, (first, second) in enumerate(choose_meetings(members, owed, ratings, count)):
            plan += meeting(first, second, self.series_per_pair,
                            derive_round_seed(seed, f"ladder:{number}:{index}"))
        return plan

    def planned_count(self, bot_count: int) -> int | None:
        return None  # the members change as it plays

    def expected_count(self, bot_count: int, planned_so_far: int) -> int | None:
        if not self.rounds:
            return None
        return self.rounds * self.meetings_per_round(bot_count) * self.series_per_pair

    def meetings_per_round(self, members: int) -> int:
        """The meetings of a round of ``members`` members: ``ladder_meetings`` (0: a
        quarter of the members, at least one), at most one per two members."""
        return min(self.meetings or max(1, members // 4), members // 2)

    def standings(self, season: SeasonView) -> FormatStandings:
        """The windowed Bradley-Terry Elo, each bot's sigma, and the provisional mark."""
        bots = list(season.bot_ids)
        latest = sorted(season.results, key=lambda r: r.stored_seq)[-self.window:]
        window = fit(bots, (PairResult(r.seat0_bot, r.seat1_bot, r.scores[0])
                            for r in latest))
        table = compute_standings(bots, sorted(season.results, key=lambda r: r.stored_seq))
        played = {bot: 0 for bot in bots}
        for result in latest:
            for bot in result.bots:
                played[bot] += 1
        elo, mark, api = {}, {}, {}
        for row in table.rows:
            bot = row.bot_id
            provisional = (row.series_played < PROVISIONAL_SERIES
                           or row.rating_sigma > PROVISIONAL_SIGMA)
            elo[bot] = f"{window.elo[window.index(bot)]:+.0f}" if played[bot] else "–"
            mark[bot] = "provisional" if provisional else ""
            api[bot] = {"provisional": provisional,
                        "window_elo": window.elo[window.index(bot)] if played[bot] else 0.0}
        return FormatStandings(
            # The table's own "rating" (OpenSkill μ ± σ) and "Elo (95 %)" (over every
            # series) keep their names: these two are the ladder's, named apart.
            columns=[ExtraColumn(f"Elo (last {self.window})", elo,
                                 f"Bradley-Terry Elo over the ladder's last {self.window} "
                                 "series only (recent form; the table's Elo counts every "
                                 "series), centred on the field; – before a series in it"),
                     ExtraColumn("Provisional", mark,
                                 f"marked while the bot has played fewer than "
                                 f"{PROVISIONAL_SERIES} series or its rating's σ is above "
                                 f"{PROVISIONAL_SIGMA:g}: its place may still move a lot")],
            note=(f"provisional: fewer than {PROVISIONAL_SERIES} series or sigma above "
                  f"{PROVISIONAL_SIGMA:g}"),
            row_api=api)
