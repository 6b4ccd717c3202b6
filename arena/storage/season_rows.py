"""Rows of a season written inside a caller's transaction: the season with its bots
and first round (``Storage.create_season``, a league's round of seasons, a ladder's
gate match), and a further round of its plan (``Storage.add_round``, a ladder's
round)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from typing import Any, Final

from arena.core.status import SeasonStatus
from arena.core.text import safe_text
from arena.storage.records import utc_now
from arena.storage.schema import PLANNED_COLUMNS
from engine.commitment import new_nonces
from engine.profiles import Profile

MAX_NAME_CHARS: Final = 200
"""A stored name (a season's, an author's) keeps this many characters."""


def insert_season(
    db: sqlite3.Connection, *, name: str, config: dict[str, Any], profile: Profile,
    bot_ids: Sequence[str], plan: Sequence[tuple[int, bool, str, str]],
    deal_key: int | None = None,
) -> int:
    """Insert a season, its bots and its first round in the caller's transaction
    (``Storage.create_season``'s, or one that stores more with it: a league's round
    of seasons, a ladder's gate match); its id. ``deal_key``: the secret its deals
    derive from (``arena.storage.deal_keys``); None for a season dealt from its
    configuration's public seed."""
    now = utc_now()
    cursor = db.execute(
        "INSERT INTO seasons (name, config_json, profile_json, status, created_at, "
        "updated_at) VALUES (?,?,?,?,?,?)",
        ("", json.dumps(config), json.dumps(profile.to_dict()), SeasonStatus.CREATED, now, now),
    )
    season_id = int(cursor.lastrowid or 0)
    db.execute("UPDATE seasons SET name=? WHERE id=?",
               (safe_text(name, MAX_NAME_CHARS) or f"season {season_id}", season_id))
    db.executemany(
        "INSERT INTO season_bots VALUES (?,?,?)",
        [(season_id, position, bot_id) for position, bot_id in enumerate(bot_ids)],
    )
    if deal_key is not None:
        store_deal_key(db, season_id, deal_key)
    insert_round(db, season_id, 1, 0, plan)
    return season_id


def insert_round(
    db: sqlite3.Connection, season_id: int, round_number: int, first_index: int,
    plan: Sequence[tuple[int, bool, str, str]],
) -> None:
    nonces = new_nonces(len(plan))
    # A meeting: the round's series between the same two bots, either seating; it is
    # numbered by the index of its first series (arena.storage.deal_keys.is_sealed).
    meetings: dict[tuple[str, str], int] = {}
    db.executemany(
        f"INSERT INTO planned_series ({PLANNED_COLUMNS}, meeting) "
        "VALUES (?,?,?,?,?,?,?,?,?,?)",
        [
            (f"{season_id}-{index}", season_id, index, seed, int(swap), seat0, seat1,
             round_number, nonce,
             meetings.setdefault((seat0, seat1) if seat0 < seat1 else (seat1, seat0), index))
            for (index, (seed, swap, seat0, seat1)), nonce
            in zip(enumerate(plan, start=first_index), nonces, strict=True)
        ],
    )


def store_deal_key(db: sqlite3.Connection, season_id: int, deal_key: int) -> None:
    """Keep the secret a season's deals derive from (read by ``arena.storage.deal_keys``)."""
    db.execute("INSERT INTO season_deal_keys (season_id, deal_key) VALUES (?,?)",
               (season_id, format(deal_key, "x")))
