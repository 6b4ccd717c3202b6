"""Helpers for the arena tests: throw-away bot folders, fake outcomes and results."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from arena.core.faults import BotFault, FaultKind
from arena.core.manifest import BotManifest, content_hash, iter_bot_files
from arena.core.series import SeriesOutcome
from arena.storage import SeriesRecord, Storage
from engine.series import SeriesResult

REPO_ROOT = Path(__file__).resolve().parents[2]


def make_bot_folder(root: Path, name: str, version: str = "1.0.0", code: str = "pass\n") -> Path:
    """A valid bot folder (bot.toml, Dockerfile, one module) under ``root``."""
    folder = root / f"{name}-{version}"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "bot.toml").write_text(
        f'name = "{name}"\nversion = "{version}"\nlanguage = "python"\n'
        f'[run]\ncommand = ["python3", "-m", "{name.replace("-", "_")}"]\n'
    )
    (folder / "Dockerfile").write_text("ARG BASE_IMAGE=python:3.11-slim\nFROM ${BASE_IMAGE}\n")
    (folder / f"{name.replace('-', '_')}.py").write_text(code)
    return folder


def register_folder(storage: Storage, folder: Path, author: str = "") -> str:
    """Store the bot of ``folder`` under its bot.toml's name and version; its id."""
    manifest = BotManifest.load(folder)
    record, _ = storage.register_bot(
        name=manifest.name, version=manifest.version, language=manifest.language,
        author=author, description="", content_hash=content_hash(folder),
        source_folder=folder, files=list(iter_bot_files(folder)))
    return record.id


def register_bots(storage: Storage, root: Path, names: Iterable[str]) -> list[str]:
    """Store a bot version 1.0.0 of each name, its folder made under ``root``; their ids."""
    ids = []
    for name in names:
        folder = make_bot_folder(root, name)
        record, _ = storage.register_bot(
            name=name, version="1.0.0", language="python", author="", description="",
            content_hash=content_hash(folder), source_folder=folder,
            files=list(iter_bot_files(folder)))
        ids.append(record.id)
    return ids


def made_up_outcome(
    series_id: str,
    winner: int | None,
    *,
    games_won: tuple[int, int] = (0, 0),
    hands_won: tuple[int, int] = (0, 0),
    points: tuple[int, int] = (0, 0),
    fault: BotFault | None = None,
    game_scores: tuple[tuple[int, int, int], tuple[int, int, int]] = ((0, 0, 0), (0, 0, 0)),
    hands_played: int = 1,
    capped: bool = False,
    log: list[dict[str, Any]] | None = None,
    think_seconds: tuple[float, float] = (0.5, 0.25),
    wall_seconds: float = 1.0,
) -> SeriesOutcome:
    """An outcome with chosen numbers (no replay bears them out: see ``trust_outcome``)."""
    return SeriesOutcome(
        series_id=series_id,
        result=SeriesResult(winner=winner, games_won=games_won,
                            game_winners=(None, None, None), game_scores=game_scores,
                            hands_won=hands_won, points=points, hands_played=hands_played,
                            capped=capped),
        fault=fault, think_seconds=think_seconds, wall_seconds=wall_seconds,
        log=[{"type": "series_start"}] if log is None else log,
    )


def trust_outcome(outcome: object, **planned: object) -> None:
    """Accepts any outcome: for ``SeasonRunner(verify=...)`` in tests of the
    scheduling whose results are made up (``made_up_outcome``), which no replay bears out."""


def fault(seat: int, kind: FaultKind = FaultKind.TIMEOUT) -> BotFault:
    return BotFault(kind, "too slow", seat=seat, hand_number=3, decision_number=7,
                    stderr_tail="last words")


def result(
    series_id: str,
    seat0: str,
    seat1: str,
    winner: int | None,
    *,
    games: tuple[int, int] = (0, 0),
    hands: tuple[int, int] = (0, 0),
    points: tuple[int, int] = (0, 0),
    fault_seat: int | None = None,
    both_failed_to_start: bool = False,
    seed: int = 1,
    finished_at: str = "2026-01-01T00:00:00Z",
) -> SeriesRecord:
    """A stored-result record for standings arithmetic."""
    if fault_seat is None:
        forfeit = None
    elif both_failed_to_start:
        forfeit = BotFault(FaultKind.STARTUP, "no socket", seat=fault_seat,
                           other_seat_fault=BotFault(FaultKind.STARTUP, "no socket",
                                                     seat=1 - fault_seat))
    else:
        forfeit = BotFault(FaultKind.CRASH, "exited", seat=fault_seat)
    return SeriesRecord(
        series_id=series_id,
        result=SeriesResult(winner=winner, games_won=games, game_winners=(None, None, None),
                            game_scores=((0, 0, 0), (0, 0, 0)), hands_won=hands,
                            points=points, hands_played=sum(hands), capped=False),
        fault=forfeit, think_seconds=(0.0, 0.0), wall_seconds=0.0, season_id=1, seed=seed,
        swap_seats=False, seat0_bot=seat0, seat1_bot=seat1, finished_at=finished_at,
    )


def upload_folder(stub: Any, metadata: Any, folder: Path, *, replace: bool = False) -> Any:
    """``folder`` uploaded as the ``arena`` command uploads it (packed on this side,
    streamed to ``SubmitBot``): the ``arena_pb2.SubmitBotResponse``. ``metadata`` holds
    the caller's token (the admin's or an author's)."""
    from arena.cli.submit import pack
    from arena.core.upload_messages import upload_messages

    return stub.SubmitBot(upload_messages(pack(folder), replace=replace), metadata=metadata)
