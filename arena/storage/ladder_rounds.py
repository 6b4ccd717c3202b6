"""The members of each round of a ladder (a season whose bots change as it plays).

A ladder's round is stored with its members in one transaction: the planned
series, the members (``ladder_rounds``), and any member new to the season added
to its bots (``season_bots``, after those already there), so a resumed ladder
reads back exactly who was a member of every round it planned.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from arena.core.status import VersionStatus
from arena.storage.records import SeriesRecord, result_from_row, utc_now
from arena.storage.schema import RESULT_COLUMNS_OF_R
from arena.storage.season_rows import insert_round
from arena.storage.store import Storage


def members_by_round(storage: Storage, season_id: int) -> list[list[str]]:
    """The members of each stored round of the ladder, round 1 first."""
    rows = storage.query("SELECT members_json FROM ladder_rounds WHERE season_id=? "
                         "ORDER BY round", (season_id,))
    return [[str(bot_id) for bot_id in json.loads(row[0])] for row in rows]


def results_of_rounds(storage: Storage, season_id: int, first_round: int, first_index: int
                      ) -> list[tuple[int, list[SeriesRecord]]]:
    """(series planned, results stored in plan order) of each round of the season
    from ``first_round`` on, whose series are planned from plan index
    ``first_index`` on: only those rows are read (by index), however many earlier
    rounds the season has."""
    rounds: dict[int, tuple[int, list[SeriesRecord]]] = {
        int(row[0]): (int(row[1]), []) for row in storage.query(
            "SELECT round, COUNT(*) FROM planned_series WHERE season_id=? AND idx >= ? "
            "GROUP BY round", (season_id, first_index))}
    for row in storage.query(
            f"SELECT {RESULT_COLUMNS_OF_R}, p.round FROM planned_series p "
            "JOIN series_results r ON r.series_id = p.id "
            "WHERE p.season_id=? AND p.idx >= ? ORDER BY p.idx", (season_id, first_index)):
        rounds[int(row["round"])][1].append(result_from_row(row))
    return [rounds.get(number, (0, [])) for number in
            range(first_round, max(rounds, default=first_round - 1) + 1)]


def add_ladder_round(storage: Storage, season_id: int, round_number: int,
                     members: Sequence[str], plan: Sequence[tuple[int, bool, str, str]]
                     ) -> bool:
    """Store round ``round_number`` of a ladder: its ``members`` (new ones joining
    the season's bots) and its ``plan``, in one transaction. False (nothing
    stored) unless it is the round after the last stored one, so a round planned
    twice (a resumed ladder, two runners) is stored once."""
    with storage.transaction() as db:
        row = db.execute(
            "SELECT COALESCE(MAX(round), 0), COALESCE(MAX(idx), -1) FROM planned_series "
            "WHERE season_id=?", (season_id,)).fetchone()
        if round_number != int(row[0]) + 1:
            return False
        known = {str(r[0]) for r in db.execute(
            "SELECT bot_id FROM season_bots WHERE season_id=?", (season_id,))}
        position = int(db.execute("SELECT COALESCE(MAX(position), -1) + 1 FROM season_bots "
                                  "WHERE season_id=?", (season_id,)).fetchone()[0])
        joining = [bot_id for bot_id in members if bot_id not in known]
        db.executemany("INSERT INTO season_bots VALUES (?,?,?)",
                       [(season_id, position + offset, bot_id)
                        for offset, bot_id in enumerate(joining)])
        db.execute("INSERT INTO ladder_rounds (season_id, round, members_json) VALUES (?,?,?)",
                   (season_id, round_number, json.dumps(list(members))))
        insert_round(db, season_id, round_number, int(row[1]) + 1, plan)
        db.execute("UPDATE seasons SET updated_at=? WHERE id=?", (utc_now(), season_id))
    return True


def active_versions(storage: Storage) -> list[str]:
    """Every ``active`` bot version, in registration order (versions registered
    before uploads count as active)."""
    rows = storage.query(
        "SELECT b.id FROM bots b LEFT JOIN bot_versions v ON v.bot_id = b.id "
        "WHERE COALESCE(v.status, ?) = ? ORDER BY b.seq",
        (VersionStatus.ACTIVE.value, VersionStatus.ACTIVE.value))
    return [str(row[0]) for row in rows]


def kept_versions(storage: Storage) -> set[str]:
    """The versions their owners keep on the ladder beside newer ones."""
    return {str(row[0]) for row in storage.query("SELECT bot_id FROM ladder_kept")}


def keep_on_ladder(storage: Storage, bot_id: str, keep: bool, by: str) -> None:
    """Keep ``bot_id`` on the ladder beside newer versions of its name (``keep``),
    or let them replace it again; ``by`` is who asked."""
    with storage.transaction() as db:
        if keep:
            db.execute("INSERT OR REPLACE INTO ladder_kept (bot_id, kept_by, kept_at) "
                       "VALUES (?,?,?)", (bot_id, by, utc_now()))
        else:
            db.execute("DELETE FROM ladder_kept WHERE bot_id=?", (bot_id,))
