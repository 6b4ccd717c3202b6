"""The arena's words for one series: which bots play it (``BotRef``), what to play
(``SeriesSpec``) and how it ended (``SeriesOutcome``).

These are the only definitions: the match loop and runner return a
``SeriesOutcome``, the executors carry ``SeriesSpec`` and ``SeriesOutcome`` between
machines, storage stores an outcome (``arena.storage.records.SeriesRecord`` is an
outcome plus where it sits in its season), and the in-process bots produce the
same type. An outcome holds the engine's own ``engine.SeriesResult``: its fields
(``winner``, ``games_won``, ...) have one name from the engine to the screens.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from arena.core.faults import BotFault, SeatFaults, faults_by_seat, forfeit_winner, joint_fault
from arena.core.limits import TimeLimits
from arena.core.manifest import BotManifest
from arena.core.seat_logs import SeatLog
from engine.profiles import Profile
from engine.series import Series, SeriesResult

__all__ = ["BotRef", "SeriesOutcome", "SeriesSpec", "SeriesVerdict", "deal_of",
           "opaque_series_id", "outcome_of", "standing_result"]


class SeriesVerdict(StrEnum):
    """A series for one bot: won, drawn or lost (a forfeit is the loss the runner
    declared it). The one scoring of a series: ``score`` counts in the standings'
    series points and every format's table, ``rating_rank`` in the ratings."""

    WIN = "win"
    DRAW = "draw"
    LOSS = "loss"

    @property
    def score(self) -> float:
        """1 a win, 0.5 a draw, 0 a loss."""
        return _SCORES[self]

    @property
    def rating_rank(self) -> int:
        """Place in a two-bot rating update: a draw ranks both first."""
        return 2 if self is SeriesVerdict.LOSS else 1


_SCORES = {SeriesVerdict.WIN: 1.0, SeriesVerdict.DRAW: 0.5, SeriesVerdict.LOSS: 0.0}


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


def opaque_series_id() -> str:
    """The id a bot is told a series has (``HandshakeRequest.series_id``): drawn at
    random for every series the arena plays, vetting included, so a bot can tell
    neither which series it plays nor whether it is being vetted."""
    return secrets.token_hex(8)


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

    @property
    def deal(self) -> str:
        """The fingerprint of the cards this series deals (``deal_of``)."""
        return deal_of(self.seed)


def deal_of(seed: int) -> str:
    """The fingerprint of the deal ``seed`` makes: every hand's cards and stock come
    from the seed alone (``engine.dealing``), so the two series of a duplicate pair
    (one seed, seats swapped) and any series replayed from its seed share it. A
    sandbox that keeps a bot between series never hands it a deal it was dealt
    (``arena.sandbox.reuse``). A hash, not the seed: it names the deal without
    dealing it."""
    return hashlib.sha256(f"hollywood-deal:{seed}".encode()).hexdigest()[:32]


@dataclass(frozen=True)
class SeriesOutcome:
    """How a series ended: the engine's ``result`` (after a forfeit, the score as it
    stood, won by the other seat: see ``standing_result``), the forfeiting bot's
    ``fault`` (its seat inside; None when the series was played out; each seat's
    own in ``seat_faults``; a forfeit is made by ``SeriesOutcome.forfeit``), each seat's
    thinking time and the series' wall time, and the engine's event log."""

    series_id: str
    result: SeriesResult
    fault: BotFault | None
    think_seconds: tuple[float, float]
    wall_seconds: float
    log: list[dict[str, Any]] = field(default_factory=list)
    """The engine's event log (replayable). Storage keeps it apart: an outcome read
    back with its season's results has none (``Storage.result_log`` reads it)."""
    played_by: str = ""
    """Where it was played, as the executor (not the player) knows it: a cluster
    worker's address; empty for this process. Named when the outcome is refused."""
    seat_logs: tuple[SeatLog, ...] = ()
    """Each seat's stderr, decision times and debug notes, for its owner alone
    (``arena.core.seat_logs``); stored apart, never with the result. Empty where
    nothing was recorded (a series that never started keeps what the bots wrote)."""

    # The engine's fields, read through the result (one name each, the engine's).
    @property
    def winner(self) -> int | None:
        """The winning seat, None for a draw."""
        return self.result.winner

    @property
    def games_won(self) -> tuple[int, int]:
        return self.result.games_won

    @property
    def game_scores(self) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
        return self.result.game_scores

    @property
    def hands_won(self) -> tuple[int, int]:
        return self.result.hands_won

    @property
    def points(self) -> tuple[int, int]:
        return self.result.points

    @property
    def hands_played(self) -> int:
        return self.result.hands_played

    @property
    def capped(self) -> bool:
        return self.result.capped

    @property
    def verdicts(self) -> tuple[SeriesVerdict, SeriesVerdict]:
        """Seat 0's and seat 1's verdict."""
        if self.winner is None:
            return (SeriesVerdict.DRAW, SeriesVerdict.DRAW)
        if self.winner == 0:
            return (SeriesVerdict.WIN, SeriesVerdict.LOSS)
        return (SeriesVerdict.LOSS, SeriesVerdict.WIN)

    @property
    def scores(self) -> tuple[float, float]:
        """Seat 0's and seat 1's score (``SeriesVerdict.score``)."""
        first, second = self.verdicts
        return (first.score, second.score)

    @property
    def seat_faults(self) -> SeatFaults:
        """Seat 0's and seat 1's own fault (None: it did not forfeit); both when
        neither bot started or both were deactivated (``faults_by_seat``)."""
        return faults_by_seat(self.fault)

    @property
    def forfeiting_seats(self) -> tuple[int, ...]:
        """Every seat that forfeited, in seat order: none, one, or both."""
        return tuple(seat for seat, fault in enumerate(self.seat_faults) if fault is not None)

    @classmethod
    def forfeit(cls, series_id: str, series: Series, faults: SeatFaults,
                think_seconds: tuple[float, float], wall_seconds: float) -> SeriesOutcome:
        """The one way a forfeit is made: ``series`` as it stands, won by the seat
        that did not forfeit (drawn when both did, ``forfeit_winner``), its fault
        the stored form of ``faults`` (``joint_fault``)."""
        return outcome_of(series_id, series, forfeit_winner(faults), joint_fault(faults),
                          think_seconds, wall_seconds)


def standing_result(series: Series, winner: int | None) -> SeriesResult:
    """``series``' result: the engine's own when it was played out, else (a forfeit
    or a series that never started) the score sheet and the hands finished so far,
    won by ``winner`` and not capped."""
    if series.result is not None:
        return series.result
    sheet = series.sheet
    finished = series.hand_results
    points = [0, 0]
    for hand in finished:
        if hand.winner is not None:
            points[hand.winner] += hand.points
    return SeriesResult(
        winner=winner,
        games_won=(sheet.games_won(0), sheet.games_won(1)),
        game_winners=(sheet.game_winner(0), sheet.game_winner(1), sheet.game_winner(2)),
        game_scores=(sheet.scores(0), sheet.scores(1)),
        hands_won=(sheet.hands_won(0), sheet.hands_won(1)),
        points=(points[0], points[1]), hands_played=len(finished), capped=False,
    )


def outcome_of(
    series_id: str,
    series: Series,
    winner: int | None,
    fault: BotFault | None,
    think_seconds: tuple[float, float],
    wall_seconds: float,
) -> SeriesOutcome:
    """The outcome of ``series`` as it stands (see ``standing_result``)."""
    return SeriesOutcome(series_id=series_id, result=standing_result(series, winner),
                         fault=fault, think_seconds=think_seconds,
                         wall_seconds=wall_seconds, log=list(series.log))
