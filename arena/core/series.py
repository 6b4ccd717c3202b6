"""The arena's words for one series: which bots play it (``BotRef``), what to play
(``SeriesSpec``) and how it ended (``SeriesOutcome``).

These are the only definitions: the match runner returns a ``SeriesOutcome``, the
executors carry ``SeriesSpec`` and ``SeriesOutcome`` between machines, storage
stores an outcome, and the in-process bots produce the same type.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.core.faults import BotFault
from arena.core.limits import TimeLimits
from arena.core.manifest import BotManifest
from engine.profiles import Profile
from engine.series import Series

__all__ = ["BotRef", "SeriesOutcome", "SeriesSpec", "outcome_of"]


@dataclass(frozen=True)
class BotRef:
    """A bot as the arena knows it: its folder and validated manifest."""

    name: str
    version: str
    folder: Path
    manifest: BotManifest
    vetted_hash: str = ""
    """The content hash the arena vetted this version with ("" = not pinned: a
    folder of this machine): a worker refuses a bundle of any other code."""

    @classmethod
    def from_folder(cls, folder: Path | str) -> BotRef:
        """Load ``folder/bot.toml`` (``ManifestError`` if invalid)."""
        manifest = BotManifest.load(folder)
        return cls(manifest.name, manifest.version, Path(folder), manifest)


@dataclass(frozen=True)
class SeriesSpec:
    """Everything needed to play one series."""

    series_id: str
    seed: int
    profile: Profile
    max_hands: int
    swap_seats: bool
    bots: tuple[BotRef, BotRef]
    """Seat 0, seat 1."""
    limits: TimeLimits = field(default_factory=TimeLimits)


@dataclass
class SeriesOutcome:
    """How a series ended. ``winner`` is a seat (None = draw); ``fault`` is the
    forfeiting bot's fault, its seat inside."""

    series_id: str
    winner: int | None
    fault: BotFault | None
    games_won: tuple[int, int]
    game_scores: tuple[tuple[int, int, int], tuple[int, int, int]]
    hands_won: tuple[int, int]
    points: tuple[int, int]
    hands_played: int
    capped: bool
    log: list[dict[str, Any]]
    think_seconds: tuple[float, float]
    wall_seconds: float
    played_by: str = ""
    """Where it was played, as the executor (not the player) knows it: a cluster
    worker's address; empty for this process. Named when the outcome is refused."""


def outcome_of(
    series_id: str,
    series: Series,
    winner: int | None,
    fault: BotFault | None,
    think_seconds: tuple[float, float],
    wall_seconds: float,
) -> SeriesOutcome:
    """The outcome of ``series`` as it stands: the engine's result when it was played
    out, else (a forfeit) the score sheet and the hands finished so far."""
    result = series.result
    if result is not None:
        return SeriesOutcome(
            series_id=series_id, winner=winner, fault=fault, games_won=result.games_won,
            game_scores=result.game_scores, hands_won=result.hands_won, points=result.points,
            hands_played=result.hands_played, capped=result.capped, log=list(series.log),
            think_seconds=think_seconds, wall_seconds=wall_seconds,
        )
    sheet = series.sheet
    finished = series.hand_results
    points = [0, 0]
    for hand in finished:
        if hand.winner is not None:
            points[hand.winner] += hand.points
    return SeriesOutcome(
        series_id=series_id, winner=winner, fault=fault,
        games_won=(sheet.games_won(0), sheet.games_won(1)),
        game_scores=(sheet.scores(0), sheet.scores(1)),
        hands_won=(sheet.hands_won(0), sheet.hands_won(1)),
        points=(points[0], points[1]), hands_played=len(finished), capped=False,
        log=list(series.log), think_seconds=think_seconds, wall_seconds=wall_seconds,
    )
