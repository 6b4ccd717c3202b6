"""The secrets deals are dealt from, and which seeds may be shown.

A season created without a seed of its own is dealt from a **deal key**: 256
random bits drawn by the server, stored with the season
(``arena.storage.season_rows.store_deal_key``) and read only by the code that
plans its rounds (``deal_key``); no API, page, export or log shows it. A season
given a seed is dealt from that public seed, as before (reproducible, and anyone
can compute its deals: docs/arena.md#deal-seeds).

Every planned series stores its seed and a random nonce; the public sees the
commitment to them (``engine.commitment``) from the series' planning on. The seed
and nonce are **revealed** once the series and every other series of its round
between the same two bots are played (``sealed_series``): the other half of a
duplicate pair plays the same deal, and a meeting's further pairs play seeds
derived from its first, so a seed shown any earlier could deal a series still to
be played. A sealed series shows no seed, no nonce and no event log.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from arena.storage.store import Storage


def deal_key(storage: Storage, season_id: int, config_seed: int) -> int:
    """What the season's deals derive from: its stored deal key, else (a season
    given a seed, or stored before deal keys) its configuration's seed."""
    rows = storage.query("SELECT deal_key FROM season_deal_keys WHERE season_id=?",
                         (season_id,))
    return int(rows[0][0], 16) if rows else config_seed


def sealed_series(storage: Storage, season_id: int) -> set[str]:
    """The series of the season whose seed may not be shown yet (see the module
    docstring): every unplayed one, and each played one whose round still has an
    unplayed series between the same two bots."""
    rows = storage.query(
        "SELECT p.id, p.round, p.seat0_bot, p.seat1_bot, r.series_id IS NOT NULL "
        "FROM planned_series p LEFT JOIN series_results r ON r.series_id = p.id "
        "WHERE p.season_id=?", (season_id,))
    unfinished = {_meeting(row) for row in rows if not row[4]}
    return {row[0] for row in rows if _meeting(row) in unfinished}


def _meeting(row: Sequence[Any]) -> tuple[int, frozenset[str]]:
    """A planned series' round and its two bots (either seat)."""
    return (int(row[1]), frozenset((row[2], row[3])))


def is_sealed(storage: Storage, series_id: str) -> bool:
    """Whether ``series_id``'s seed may not be shown yet (``sealed_series``)."""
    rows = storage.query("SELECT season_id, meeting FROM planned_series WHERE id=?",
                         (series_id,))
    if not rows:
        return False  # unknown: nothing to seal
    season_id, meeting = rows[0]
    if meeting is not None:  # an index lookup of the meeting's few series
        return bool(storage.query(
            "SELECT 1 FROM planned_series q LEFT JOIN series_results r ON r.series_id = q.id "
            "WHERE q.season_id=? AND q.meeting=? AND r.series_id IS NULL LIMIT 1",
            (season_id, meeting)))
    # Planned before meetings were numbered (schema 20): the round is read.
    return bool(storage.query(
        "SELECT 1 FROM planned_series p JOIN planned_series q ON q.season_id = p.season_id "
        "AND q.round = p.round AND ((q.seat0_bot = p.seat0_bot AND q.seat1_bot = p.seat1_bot) "
        "OR (q.seat0_bot = p.seat1_bot AND q.seat1_bot = p.seat0_bot)) "
        "LEFT JOIN series_results r ON r.series_id = q.id "
        "WHERE p.id=? AND r.series_id IS NULL LIMIT 1", (series_id,)))
