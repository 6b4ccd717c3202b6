"""The Hollywood score sheet: three games scored at once (docs/rules.md#the-score-sheet,
docs/rules.md#hand-cap).

Players are seats ``0`` and ``1``; games are ``0``, ``1``, ``2`` (columns I, II,
III). A player's n-th hand won is credited to the first ``min(n, 3)`` games; the
full hand score is added to each such game that is not finished yet. A game
finishes as soon as either player's score in it reaches the game target, and is
frozen from then on. The series is over when all three games are finished.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

__all__ = ["GAMES", "CapAward", "ScoreSheet", "ScoreSheetError", "SheetState"]

GAMES: Final = 3
PLAYERS: Final = 2
GAME_NAMES: Final = ("I", "II", "III")


class ScoreSheetError(ValueError):
    """Bad input to a score sheet (unknown player or game, negative points, a win
    recorded after the series is over, malformed saved sheet)."""


@dataclass(frozen=True)
class CapAward:
    """How a series stopped by the hand cap is decided (docs/rules.md#hand-cap)."""

    game_winners: tuple[int | None, int | None, int | None]
    """Per game: the finished game's winner, else the player with the higher
    score in it, else ``None`` (a tie)."""
    games_won: tuple[int, int]
    winner: int | None
    """The player holding more games, or ``None`` for a drawn series."""

    def to_dict(self) -> dict[str, Any]:
        return {"game_winners": list(self.game_winners), "games_won": list(self.games_won),
                "winner": self.winner}


ThreeScores = tuple[int, int, int]


@dataclass(frozen=True, slots=True)
class SheetState:
    """The sheet as it stood at one moment, in values that never change
    (``ScoreSheet.state``): what a seat's observation shows of it."""

    scores: tuple[ThreeScores, ThreeScores]
    """Game scores (I, II, III) per player."""
    opened: tuple[tuple[bool, bool, bool], tuple[bool, bool, bool]]
    game_winners: tuple[int | None, int | None, int | None]
    hands_won: tuple[int, int]


class ScoreSheet:
    """Both players' three game scores, games opened, games finished and hands won."""

    def __init__(self, game_target: int = 100) -> None:
        if isinstance(game_target, bool) or not isinstance(game_target, int) or game_target <= 0:
            raise ScoreSheetError(f"game_target must be a positive integer, got {game_target!r}")
        self.game_target: Final = game_target
        self._scores = [[0] * GAMES for _ in range(PLAYERS)]
        self._opened = [[False] * GAMES for _ in range(PLAYERS)]
        self._game_winners: list[int | None] = [None] * GAMES
        self._hands_won = [0] * PLAYERS
        self._state: SheetState | None = None
        """``state``, once made (until the next change)."""

    # -- recording ---------------------------------------------------------

    def record_win(self, player: int, points: int) -> tuple[int, ...]:
        """Record a hand won by ``player`` for ``points``; return the games credited.

        Raises :class:`ScoreSheetError` for a bad player, negative points, or when the
        series is already over.
        """
        _check_player(player)
        if isinstance(points, bool) or not isinstance(points, int) or points < 0:
            raise ScoreSheetError(f"points must be a non-negative integer, got {points!r}")
        if self.is_over:
            raise ScoreSheetError("the series is over: all three games are finished")
        self._state = None
        self._hands_won[player] += 1
        credited = []
        for game in range(min(self._hands_won[player], GAMES)):
            if self._game_winners[game] is not None:
                continue
            self._opened[player][game] = True
            self._scores[player][game] += points
            credited.append(game)
            if self._scores[player][game] >= self.game_target:
                self._game_winners[game] = player
        return tuple(credited)

    # -- reading -----------------------------------------------------------

    @property
    def state(self) -> SheetState:
        """The sheet as it stands, made once per change: cheap to take at every
        decision, and what it says stays true of that moment."""
        state = self._state
        if state is None:
            state = self._state = SheetState(
                scores=(self.scores(0), self.scores(1)),
                opened=(self.opened(0), self.opened(1)),
                game_winners=(self.game_winner(0), self.game_winner(1), self.game_winner(2)),
                hands_won=(self.hands_won(0), self.hands_won(1)))
        return state

    def scores(self, player: int) -> tuple[int, int, int]:
        """``player``'s score in games I, II, III."""
        _check_player(player)
        first, second, third = self._scores[player]
        return (first, second, third)

    def opened(self, player: int) -> tuple[bool, bool, bool]:
        """Whether ``player`` has scored in each game yet (a display shows a blank
        for an unopened game and ``0`` for an opened one)."""
        _check_player(player)
        first, second, third = self._opened[player]
        return (first, second, third)

    def game_winner(self, game: int) -> int | None:
        """The player who won ``game`` (0, 1 or 2), or ``None`` while it is unfinished."""
        _check_game(game)
        return self._game_winners[game]

    def is_finished(self, game: int) -> bool:
        _check_game(game)
        return self._game_winners[game] is not None

    @property
    def finished_games(self) -> tuple[int, ...]:
        """The indices of the finished games, in order."""
        return tuple(game for game in range(GAMES) if self._game_winners[game] is not None)

    def hands_won(self, player: int) -> int:
        _check_player(player)
        return self._hands_won[player]

    def games_won(self, player: int) -> int:
        """How many finished games ``player`` has won."""
        _check_player(player)
        return sum(1 for winner in self._game_winners if winner == player)

    @property
    def is_over(self) -> bool:
        """All three games are finished."""
        return all(winner is not None for winner in self._game_winners)

    @property
    def winner(self) -> int | None:
        """The series winner (the player with at least two games) once it is over."""
        if not self.is_over:
            return None
        return 0 if self.games_won(0) >= 2 else 1

    def award_at_cap(self) -> CapAward:
        """Decide the series as the hand cap does (docs/rules.md#hand-cap), without
        changing the sheet.

        Each unfinished game goes to the player with the higher score in it (no one on
        a tie); the series goes to whoever then holds more games, else it is drawn.
        """
        winners: list[int | None] = []
        for game in range(GAMES):
            finished = self._game_winners[game]
            if finished is not None:
                winners.append(finished)
                continue
            first, second = self._scores[0][game], self._scores[1][game]
            winners.append(None if first == second else (0 if first > second else 1))
        games_won = (winners.count(0), winners.count(1))
        winner = None if games_won[0] == games_won[1] else (0 if games_won[0] > games_won[1] else 1)
        return CapAward(game_winners=(winners[0], winners[1], winners[2]),
                        games_won=games_won, winner=winner)

    # -- persistence -------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe form (inverse of :meth:`from_dict`)."""
        return {
            "game_target": self.game_target,
            "scores": [list(row) for row in self._scores],
            "opened": [list(row) for row in self._opened],
            "game_winners": list(self._game_winners),
            "hands_won": list(self._hands_won),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ScoreSheet:
        """Rebuild a sheet saved by :meth:`to_dict`; :class:`ScoreSheetError` if malformed."""
        if not isinstance(data, Mapping):
            raise ScoreSheetError(f"a score sheet must be a mapping, got {type(data).__name__}")
        expected = {"game_target", "scores", "opened", "game_winners", "hands_won"}
        if set(data) != expected:
            raise ScoreSheetError(
                f"score sheet fields must be {sorted(expected)}, got {sorted(map(str, data))}")
        sheet = cls(data["game_target"])
        sheet._scores = [_int_row(row, "scores") for row in _rows(data["scores"], "scores")]
        sheet._opened = [_bool_row(row) for row in _rows(data["opened"], "opened")]
        winners = data["game_winners"]
        if (not isinstance(winners, list) or len(winners) != GAMES
                or any(w not in (None, 0, 1) or isinstance(w, bool) for w in winners)):
            raise ScoreSheetError(f"game_winners must be 3 of null/0/1, got {winners!r}")
        sheet._game_winners = list(winners)
        hands = data["hands_won"]
        if (not isinstance(hands, list) or len(hands) != PLAYERS
                or any(isinstance(h, bool) or not isinstance(h, int) or h < 0 for h in hands)):
            raise ScoreSheetError(f"hands_won must be 2 non-negative integers, got {hands!r}")
        sheet._hands_won = list(hands)
        sheet._state = None
        sheet._check_consistent()
        return sheet

    def _check_consistent(self) -> None:
        for game in range(GAMES):
            reached = [p for p in range(PLAYERS) if self._scores[p][game] >= self.game_target]
            winner = self._game_winners[game]
            if winner is None and reached:
                raise ScoreSheetError(
                    f"game {GAME_NAMES[game]} reached the target but has no winner")
            if winner is not None and reached != [winner]:
                raise ScoreSheetError(f"game {GAME_NAMES[game]} winner does not match its scores")
            for player in range(PLAYERS):
                if self._scores[player][game] and not self._opened[player][game]:
                    raise ScoreSheetError(
                        f"player {player} has a score in unopened game {GAME_NAMES[game]}")
                if self._opened[player][game] and self._hands_won[player] <= game:
                    raise ScoreSheetError(
                        f"player {player} opened game {GAME_NAMES[game]} with only "
                        f"{self._hands_won[player]} hand(s) won")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ScoreSheet) and self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]  # mutable: equal sheets must not share a hash

    def __repr__(self) -> str:
        return f"ScoreSheet({self.to_dict()!r})"


def _check_player(player: int) -> None:
    if isinstance(player, bool) or player not in (0, 1):
        raise ScoreSheetError(f"player must be 0 or 1, got {player!r}")


def _check_game(game: int) -> None:
    if isinstance(game, bool) or game not in (0, 1, 2):
        raise ScoreSheetError(f"game must be 0, 1 or 2, got {game!r}")


def _rows(value: object, name: str) -> list[Any]:
    if not isinstance(value, list) or len(value) != PLAYERS:
        raise ScoreSheetError(f"{name} must be a list of 2 rows, got {value!r}")
    return value


def _int_row(row: object, name: str) -> list[int]:
    if (not isinstance(row, list) or len(row) != GAMES
            or any(isinstance(v, bool) or not isinstance(v, int) or v < 0 for v in row)):
        raise ScoreSheetError(f"each {name} row must be 3 non-negative integers, got {row!r}")
    return list(row)


def _bool_row(row: object) -> list[bool]:
    if not isinstance(row, list) or len(row) != GAMES or any(not isinstance(v, bool) for v in row):
        raise ScoreSheetError(f"each opened row must be 3 booleans, got {row!r}")
    return list(row)
