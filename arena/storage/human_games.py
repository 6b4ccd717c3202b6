"""Games a person played against a bot (the website's play pages): stored in their
own table, apart from seasons and their results, so no standings, rating or format
ever counts them; replayable from their event log like any series."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from arena.core.series import SeriesOutcome
from arena.storage.logs import decode_log, encode_log
from arena.storage.records import NotFoundError, utc_now
from arena.storage.store import Storage


@dataclass(frozen=True)
class HumanGame:
    """A stored game: who played which seat against which bot, and how it ended."""

    id: str
    bot_id: str
    player: str
    person_seat: int
    seed: int
    max_hands: int
    started_at: str
    finished_at: str
    winner: int | None
    result: dict[str, Any]
    ended: str


def store_human_game(storage: Storage, *, game_id: str, bot_id: str, player: str,
                     person_seat: int, seed: int, profile: dict[str, Any], max_hands: int,
                     started_at: str, outcome: SeriesOutcome, ended: str) -> None:
    """Store a finished game (one transaction: all of it or nothing)."""
    log = encode_log(outcome.log)
    with storage.transaction() as db:
        db.execute(
            "INSERT INTO human_games (id, bot_id, player, person_seat, seed, profile_json, "
            "max_hands, started_at, finished_at, winner, result_json, ended, log_codec, log) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (game_id, bot_id, player, person_seat, seed, json.dumps(profile),
             max_hands, started_at, utc_now(), outcome.winner,
             json.dumps(outcome.result.to_dict()), ended, log.codec, log.data))


def get_human_game(storage: Storage, game_id: str) -> HumanGame:
    """The stored game ``game_id``; ``NotFoundError`` if there is none."""
    rows = storage.query("SELECT * FROM human_games WHERE id=?", (game_id,))
    if not rows:
        raise NotFoundError(f"no finished game {game_id}")
    row = rows[0]
    return HumanGame(row["id"], row["bot_id"], row["player"], row["person_seat"], row["seed"],
                     row["max_hands"], row["started_at"], row["finished_at"], row["winner"],
                     json.loads(row["result_json"]), row["ended"])


def human_game_log(storage: Storage, game_id: str) -> list[dict[str, Any]]:
    """The event log of the stored game ``game_id`` (replayable)."""
    rows = storage.query("SELECT log_codec, log FROM human_games WHERE id=?", (game_id,))
    if not rows:
        raise NotFoundError(f"no finished game {game_id}")
    return decode_log(rows[0]["log_codec"], rows[0]["log"])
