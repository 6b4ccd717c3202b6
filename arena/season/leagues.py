"""Leagues of divisions: making a league and its rounds of seasons, and moving to
the next round when every division's season of the last one has finished.

A league is made with its first round (``create_league``): its bots placed into
divisions by current rating (``league_rules.place``), one season per division in
the division's format, each seeded and planned as any new season. When the last
season of a round finishes, ``LeagueKeeper`` (a hook of the season manager) reads
each division's final table, works out the moves (``league_rules.moves``) and
stores them with the next round's seasons in one transaction, then starts them;
a round is made once however often it is asked (the storage refuses a second), and
a server restarted between the two (``LeagueKeeper.catch_up``) makes or starts
what is missing. Rounds follow one another up to the league's planned rounds (the
end of the last one stores its moves, shown in its tables, and makes nothing);
``LeagueKeeper.next_round`` makes one more on request, from those moves. ``LeagueKeeper.cancel``
ends a league as a whole: its unfinished seasons are cancelled (series in flight
finish and are stored) and no round of it is made again.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

import arena.storage as stored
from arena.core.settings import ConfigError, SeasonConfig
from arena.core.status import SeasonStatus
from arena.season.formats import FORMATS, Ratings, format_class, format_for
from arena.season.formats.base import check_owned_settings, derive_round_seed, new_deal_key
from arena.season.league_rules import LeagueRule, Move, moves, next_divisions, place
from arena.season.manager import SeasonManager
from arena.season.readings import SeasonReadings
from arena.season.seeding import current_ratings
from arena.storage import LeagueRecord, SeasonDraft, Storage, StoredMove, deactivations_of

log = logging.getLogger(__name__)

MAX_LEAGUE_ROUNDS: Final = 1000
"""Rounds a league may plan up front (each checked for the division sizes)."""


class LeagueError(RuntimeError):
    """A league cannot do what was asked now (e.g. a round is still playing)."""


@dataclass(frozen=True)
class LeaguePlan:
    """What a league is played under: its rule, how many rounds follow one another
    unasked, each division's format (division 1 first) and the season settings
    every division plays under (its format and seed set per season)."""

    rule: LeagueRule
    rounds: int
    formats: tuple[str, ...]
    config: SeasonConfig

    def to_dict(self) -> dict[str, Any]:
        return {"divisions": self.rule.divisions, "promote": self.rule.promote,
                "relegate": self.rule.relegate, "rounds": self.rounds,
                "formats": list(self.formats), "season": self.config.to_dict()}

    @classmethod
    def of(cls, league: LeagueRecord) -> LeaguePlan:
        return cls(LeagueRule(*league.division_counts), league.planned_rounds,
                   league.division_formats, league.season_config)


def division_formats(divisions: int, default: str, chosen: Mapping[int, str]
                     ) -> tuple[str, ...]:
    """Each division's format: ``chosen`` by division number, else ``default``.
    Raises ``ConfigError`` for a division out of range or a format that does not
    rank every bot (its final table could not promote or relegate)."""
    for division in chosen:
        if not 1 <= division <= divisions:
            raise ConfigError(f"division format: division {division} is not one of "
                              f"1..{divisions}")
    names = tuple(chosen.get(division, default) for division in range(1, divisions + 1))
    for name in names:
        if not format_class(name).ranks_every_bot:
            raise ConfigError(f"a division cannot play the {name} format: its table does "
                              "not rank every bot, so nobody could be promoted or relegated")
    return names


def check_plan(plan: LeaguePlan, bot_count: int) -> None:
    """Raise ``ConfigError`` for a plan ``bot_count`` bots cannot play, or settings
    that none of its divisions' formats reads."""
    if not 1 <= plan.rounds <= MAX_LEAGUE_ROUNDS:
        raise ConfigError(f"rounds must be 1 to {MAX_LEAGUE_ROUNDS}, got {plan.rounds}")
    if len(plan.formats) != plan.rule.divisions:
        raise ConfigError(f"{len(plan.formats)} division formats for "
                          f"{plan.rule.divisions} divisions")
    others = {name: cls for name, cls in FORMATS.items() if name not in plan.formats}
    check_owned_settings(plan.config, " or ".join(sorted(set(plan.formats))), others)
    plan.rule.check(bot_count, plan.rounds)


def division_config(config: SeasonConfig, format_name: str, seed: int) -> SeasonConfig:
    """The league's settings for a division playing ``format_name``: the settings
    only other formats read back at their defaults (a Swiss division's rounds are
    not a round-robin division's)."""
    foreign = {setting.name: setting.default
               for name, cls in FORMATS.items() if name != format_name
               for setting in cls.own_settings()}
    return config.with_changes(**foreign, format=format_name, seed=seed)


def draft_season(league_name: str, plan: LeaguePlan, round_number: int, division: int,
                 bot_ids: Sequence[str], ratings: Ratings) -> SeasonDraft:
    """The season division ``division`` plays in round ``round_number``: the
    league's settings, the division's format, a seed derived from the league's (a
    league without one: a secret deal key of the season's own)."""
    league_seed = plan.config.seed
    config = division_config(
        plan.config, plan.formats[division - 1],
        (derive_round_seed(league_seed, f"league:{round_number}:{division}") or 1)
        if league_seed else 0)
    config, admitted = format_class(config.format).admit(config, list(bot_ids),
                                                         lambda reference: reference)
    if sorted(admitted) != sorted(bot_ids):
        raise ConfigError(f"the {config.format} format changes a division's bots: it "
                          "cannot be a division's format")
    season_format = format_for(config.format, config)
    ids = season_format.seeded(admitted, ratings)
    deal_key = None if config.seed else new_deal_key()
    return SeasonDraft(
        name=f"{league_name}: round {round_number}, division {division}",
        config=config.to_dict(), profile=config.profile(), bot_ids=tuple(ids),
        plan=tuple(pairing.as_row()
                   for pairing in season_format.first_round(ids, deal_key or config.seed)),
        deal_key=deal_key)


def create_league(storage: Storage, name: str, plan: LeaguePlan, bot_ids: Sequence[str],
                  ratings: Ratings | None = None) -> LeagueRecord:
    """Store a league of ``bot_ids`` and its first round of seasons (not started);
    raises ``ConfigError``."""
    check_plan(plan, len(bot_ids))
    duplicates = sorted({bot for bot in bot_ids if list(bot_ids).count(bot) > 1})
    if duplicates:
        raise ConfigError(f"bots: {', '.join(duplicates)} named more than once")
    rate = ratings or (lambda bots: current_ratings(storage, bots))
    divisions = place(bot_ids, rate(bot_ids), plan.rule.divisions)
    drafts = [draft_season(name.strip(), plan, 1, number, bots, rate)
              for number, bots in enumerate(divisions, start=1)]
    return stored.create_league(storage, name.strip(), plan.to_dict(), drafts)


def final_order(readings: SeasonReadings, season_id: int) -> list[str]:
    """A season's table order as every screen shows it (its format's order)."""
    return list(readings.read(season_id).statistics.order)


class LeagueKeeper:
    """Makes and starts each league's next round when its last one has finished;
    see the module docstring. ``readings`` are the server's (the tables every
    screen shows), ``ratings`` what seeds a new season (default: current ratings)."""

    def __init__(self, storage: Storage, manager: SeasonManager,
                 readings: SeasonReadings | None = None,
                 ratings: Ratings | None = None) -> None:
        self.storage = storage
        self.manager = manager
        self.readings = readings or SeasonReadings(storage, manager.board)
        self.ratings = ratings or (lambda bots: current_ratings(storage, bots))
        # Making a round (stored, then started) and cancelling the league never
        # interleave: a round stored just before the league is cancelled is started
        # before its seasons are cancelled, never after.
        self._lock = threading.RLock()
        manager.finished_hooks.append(self.season_finished)

    def start(self, league_id: int) -> None:
        """Start the seasons of the league's latest round that have not started
        (none of a cancelled league)."""
        with self._lock:
            if stored.get_league(self.storage, league_id).cancelled:
                return
            seasons = stored.league_seasons(self.storage, league_id)
            latest = max((season.round for season in seasons), default=0)
            for season in seasons:
                if (season.round == latest and self.storage.get_season(
                        season.season_id).status is SeasonStatus.CREATED):
                    self.manager.start(season.season_id)

    def season_finished(self, season_id: int) -> None:
        league_id = stored.league_of_season(self.storage, season_id)
        if league_id is not None:
            self.advance(league_id)

    def catch_up(self) -> list[int]:
        """After a restart: make every league's next round that is due, start any
        season of a latest round not started; returns the leagues that moved on."""
        moved = []
        for league in stored.list_leagues(self.storage):
            if self.advance(league.id) is not None:
                moved.append(league.id)
            else:
                self.start(league.id)
        return moved

    def advance(self, league_id: int) -> list[int] | None:
        """Make and start the next round if every season of the latest one has
        finished and the league plans more; its seasons' ids, else None. At the end
        of the last planned round only its moves are stored (the tables' marks)."""
        league = stored.get_league(self.storage, league_id)
        latest = max((s.round for s in stored.league_seasons(self.storage, league_id)),
                     default=0)
        if league.cancelled or not self._round_finished(league_id, latest):
            return None
        if latest >= league.planned_rounds:
            with self._lock:
                stored.store_round_moves(self.storage, league_id, [
                    StoredMove(latest, move.bot_id, move.from_division, move.to_division)
                    for move in self._moves(league, latest)])
            return None
        return self._make_round(league, latest + 1)

    def next_round(self, league_id: int) -> list[int]:
        """Make and start the next round now (one beyond the planned ones if need
        be); raises ``LeagueError`` while a season of the latest round is unfinished."""
        league = stored.get_league(self.storage, league_id)
        if league.cancelled:
            raise LeagueError(f"league {league_id} was cancelled at {league.cancelled_at}: "
                              "it plays no more rounds")
        seasons = stored.league_seasons(self.storage, league_id)
        latest = max(season.round for season in seasons)
        unfinished = [season.season_id for season in seasons if season.round == latest
                      and self.storage.get_season(season.season_id).status
                      is not SeasonStatus.FINISHED]
        if unfinished:
            raise LeagueError(
                f"round {latest} of league {league_id} is not over: season(s) "
                + ", ".join(str(season_id) for season_id in unfinished)
                + " have not finished")
        made = self._make_round(league, latest + 1)
        if made is None:
            raise LeagueError(f"round {latest + 1} of league {league_id} was just made")
        return made

    def cancel(self, league_id: int) -> LeagueRecord:
        """Cancel the league as a whole: mark it so (no round is made again), then
        cancel each of its seasons that has not ended. A cancelled league stays so."""
        with self._lock:
            league = stored.cancel_league(self.storage, league_id)
            for season in stored.league_seasons(self.storage, league_id):
                if not self.storage.get_season(season.season_id).status.is_terminal:
                    self.manager.cancel(season.season_id)
        log.info("league %d: cancelled", league_id)
        return league

    def _moves(self, league: LeagueRecord, round_number: int) -> list[Move]:
        """The moves that ended a finished round: as stored when it ended, else
        from its divisions' final tables (and the bots deactivated by now)."""
        kept = [Move(move.bot_id, move.from_division, move.to_division)
                for move in stored.league_moves(self.storage, league.id)
                if move.round == round_number]
        if kept:
            return kept
        rule = LeaguePlan.of(league).rule
        ended = [season for season in stored.league_seasons(self.storage, league.id)
                 if season.round == round_number]
        orders = [final_order(self.readings, season.season_id) for season in ended]
        bots = [bot for order in orders for bot in order]
        return moves(rule, orders, deactivations_of(self.storage, bots))

    def _round_finished(self, league_id: int, round_number: int) -> bool:
        return all(self.storage.get_season(season.season_id).status is SeasonStatus.FINISHED
                   for season in stored.league_seasons(self.storage, league_id)
                   if season.round == round_number)

    def _make_round(self, league: LeagueRecord, round_number: int) -> list[int] | None:
        with self._lock:  # two seasons finishing at once: one reads, one makes
            plan = LeaguePlan.of(league)
            found = self._moves(league, round_number - 1)
            plan.rule.sizes_after([sum(1 for move in found if move.from_division == number)
                                   for number in range(1, plan.rule.divisions + 1)])
            drafts = [draft_season(league.name, plan, round_number, number, division_bots,
                                   self.ratings)
                      for number, division_bots in enumerate(
                          next_divisions(found, plan.rule.divisions), start=1)]
            made = stored.add_league_round(
                self.storage, league.id, round_number,
                [StoredMove(round_number - 1, move.bot_id, move.from_division,
                            move.to_division) for move in found],
                drafts, round_number)
            if made is not None:
                log.info("league %d: round %d made (seasons %s)", league.id, round_number,
                         ", ".join(map(str, made)))
                for season_id in made:
                    self.manager.start(season_id)
        return made
