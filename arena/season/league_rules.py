"""The rule of a league of divisions, as pure functions: how bots are placed into
divisions, which sizes a rule allows, and who moves where at the end of a round.

Division 1 is the top. At the end of a round of seasons, the top ``promote`` bots
of division k+1 move up to division k and the bottom ``relegate`` of division k
move down to k+1 (division 1 promotes nobody, the last relegates nobody); every
other bot stays. "Top" and "bottom" are the order of the division's final
standings table, the table every screen shows (its format's order, else the
arena's ordering rule, which ends with the bot id: there are no ties). A bot
deactivated by the end of the round is put below every active bot of its division
before the moves (it forfeits its series anyway): it is relegated first and is
never promoted ahead of an active bot; it stays in the league, forfeiting, until
it is reactivated.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from arena.core.settings import ConfigError

MIN_DIVISIONS: Final = 2
MAX_DIVISIONS: Final = 20
MIN_DIVISION_BOTS: Final = 2
"""Bots a division needs to play a season."""
PROMOTED: Final = "▲"
RELEGATED: Final = "▼"


@dataclass(frozen=True)
class LeagueRule:
    divisions: int
    promote: int
    relegate: int

    def check(self, bot_count: int, rounds: int) -> None:
        """Raise ``ConfigError`` unless ``bot_count`` bots can start the divisions
        and the rule keeps every division playable for ``rounds`` rounds."""
        if not MIN_DIVISIONS <= self.divisions <= MAX_DIVISIONS:
            raise ConfigError(f"divisions must be {MIN_DIVISIONS} to {MAX_DIVISIONS}, "
                              f"got {self.divisions}")
        if self.promote < 0 or self.relegate < 0:
            raise ConfigError("promote and relegate must be 0 or more")
        if self.promote + self.relegate == 0:
            raise ConfigError("promote and relegate are both 0: no bot would ever move")
        if bot_count < MIN_DIVISION_BOTS * self.divisions:
            raise ConfigError(
                f"{self.divisions} divisions need at least "
                f"{MIN_DIVISION_BOTS * self.divisions} bots ({MIN_DIVISION_BOTS} each), "
                f"got {bot_count}")
        sizes = division_sizes(bot_count, self.divisions)
        # The moves between the rounds, and at least once: a league exists to move.
        for _ in range(max(rounds - 1, 1)):
            sizes = self.sizes_after(sizes)

    def sizes_after(self, sizes: Sequence[int]) -> list[int]:
        """The division sizes after the moves of a round; raises ``ConfigError`` if
        a division has too few bots to give up its movers, or would be left with
        fewer than ``MIN_DIVISION_BOTS``."""
        after = []
        for index, size in enumerate(sizes):
            up = self.promote if index > 0 else 0
            down = self.relegate if index < len(sizes) - 1 else 0
            if up + down > size:
                raise ConfigError(
                    f"division {index + 1} has {size} bots: too few to promote {up} "
                    f"and relegate {down} (--promote and --relegate must leave every "
                    "division's movers distinct)")
            arriving = (self.relegate if index > 0 else 0) + (
                self.promote if index < len(sizes) - 1 else 0)
            after.append(size - up - down + arriving)
        for index, size in enumerate(after):
            if size < MIN_DIVISION_BOTS:
                raise ConfigError(
                    f"division {index + 1} would be left with {size} bot(s) after a "
                    f"round (promote {self.promote}, relegate {self.relegate}); a "
                    f"division needs {MIN_DIVISION_BOTS}")
        return after


def division_sizes(bot_count: int, divisions: int) -> list[int]:
    """Sizes as equal as possible, the upper divisions one bot larger when they
    cannot all be equal."""
    base, extra = divmod(bot_count, divisions)
    return [base + (1 if index < extra else 0) for index in range(divisions)]


def place(bot_ids: Sequence[str], ratings: Mapping[str, float],
          divisions: int) -> list[list[str]]:
    """Bots into divisions by current rating (ordinal, highest in division 1);
    bots without a rating after those with one, in the order given."""
    rated = sorted((bot for bot in bot_ids if bot in ratings), key=lambda bot: -ratings[bot])
    ordered = rated + [bot for bot in bot_ids if bot not in ratings]
    placed: list[list[str]] = []
    start = 0
    for size in division_sizes(len(ordered), divisions):
        placed.append(ordered[start:start + size])
        start += size
    return placed


@dataclass(frozen=True)
class Move:
    bot_id: str
    from_division: int
    to_division: int

    @property
    def mark(self) -> str:
        """▲ promoted, ▼ relegated, "" stayed."""
        if self.to_division < self.from_division:
            return PROMOTED
        return RELEGATED if self.to_division > self.from_division else ""


def moves(rule: LeagueRule, final_orders: Sequence[Sequence[str]],
          deactivated: Collection[str] = ()) -> list[Move]:
    """Every bot's move at the end of a round, given each division's final table
    order (division 1 first); see the module docstring."""
    last = len(final_orders)
    found: list[Move] = []
    for number, order in enumerate(final_orders, start=1):
        ranked = ([bot for bot in order if bot not in deactivated]
                  + [bot for bot in order if bot in deactivated])
        up = rule.promote if number > 1 else 0
        down = rule.relegate if number < last else 0
        for position, bot in enumerate(ranked):
            if position < up:
                to = number - 1
            elif position >= len(ranked) - down:
                to = number + 1
            else:
                to = number
            found.append(Move(bot, number, to))
    return found


def next_divisions(found: Sequence[Move], divisions: int) -> list[list[str]]:
    """Each division's bots for the next round: those relegated into it first, then
    those who stayed, then those promoted into it, each in their table order."""
    placed: list[list[str]] = [[] for _ in range(divisions)]
    for mark in (RELEGATED, "", PROMOTED):
        for move in found:
            if move.mark == mark:
                placed[move.to_division - 1].append(move.bot_id)
    return placed
