"""The ladder's gate: a new version of a member first plays a match against its
predecessor (the version of its name on the ladder), and joins only once it is
admitted (``arena.season.ladder_gating``).

One row per ladder and gated version (``ladder_gates``). It is written in ONE
transaction with the season of its match (``open_gate``), so a ladder resumed at
any point finds the match it opened and never opens a second one; its figures
are written when the match is decided (``decide_gate``), and the owner's
admission (``admit_to_ladder``) beside them.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from arena.storage.records import NotFoundError, utc_now
from arena.storage.season_rows import insert_season
from arena.storage.store import Storage
from engine.profiles import Profile

GATE_PENDING: Final = "pending"
"""The status of a gate whose match is not decided yet."""
GATE_SUPERSEDED: Final = "superseded"
"""The status of a gate whose match was stopped unfinished: a newer version of its
name has a gate on the same ladder (``arena.season.ladder_gating``)."""
_COLUMNS: Final = ("ladder_id, bot_id, predecessor, match_id, status, pairs, elo, elo_low, "
                   "elo_high, llr, admitted_by, opened_at, decided_at")


@dataclass(frozen=True)
class GateVerdict:
    """The verdict of a gate's match: ``status`` (pending, accepted, rejected,
    inconclusive or superseded) with the match's figures (pairs played, the Elo of the new version
    over its predecessor with its 95 % interval, the test's LLR; zero while pending)."""

    status: str
    pairs: int
    elo: float
    elo_low: float
    elo_high: float
    llr: float


@dataclass(frozen=True)
class GateRecord:
    """A version's gate on one ladder: its match against ``predecessor`` (the season
    ``match_id``), the match's ``verdict``, and who admitted it by hand ('' if
    nobody)."""

    ladder_id: int
    bot_id: str
    predecessor: str
    match_id: int
    verdict: GateVerdict
    admitted_by: str
    opened_at: str
    decided_at: str

    @classmethod
    def from_row(cls, row: sqlite3.Row | tuple[Any, ...]) -> GateRecord:
        (ladder_id, bot_id, predecessor, match_id, status, pairs, elo, elo_low, elo_high,
         llr, admitted_by, opened_at, decided_at) = tuple(row)
        verdict = GateVerdict(str(status), int(pairs), float(elo), float(elo_low),
                          float(elo_high), float(llr))
        return cls(int(ladder_id), str(bot_id), str(predecessor), int(match_id), verdict,
                   str(admitted_by), str(opened_at), str(decided_at))


@dataclass(frozen=True)
class GateMatch:
    """What the season of a gate match is stored with (``Storage.create_season``'s
    arguments)."""

    name: str
    config: dict[str, Any]
    profile: Profile
    plan: Sequence[tuple[int, bool, str, str]]
    deal_key: int | None = None
    """The secret its plan was dealt from (None: its configuration's public seed)."""


def open_gate(storage: Storage, ladder_id: int, bot_id: str, predecessor: str,
              match: GateMatch) -> GateRecord:
    """The gate of ``bot_id`` on the ladder: the stored one if there is one, else a
    new one with its match (a season of ``bot_id`` against ``predecessor``),
    both stored in one transaction."""
    with storage.transaction() as db:
        row = db.execute(f"SELECT {_COLUMNS} FROM ladder_gates WHERE ladder_id=? AND bot_id=?",
                         (ladder_id, bot_id)).fetchone()
        if row is None:
            match_id = insert_season(db, name=match.name, config=match.config,
                                     profile=match.profile, bot_ids=[bot_id, predecessor],
                                     plan=match.plan, deal_key=match.deal_key)
            db.execute("INSERT INTO ladder_gates (ladder_id, bot_id, predecessor, match_id, "
                       "status, opened_at) VALUES (?,?,?,?,?,?)",
                       (ladder_id, bot_id, predecessor, match_id, GATE_PENDING, utc_now()))
            row = db.execute(f"SELECT {_COLUMNS} FROM ladder_gates WHERE ladder_id=? "
                             "AND bot_id=?", (ladder_id, bot_id)).fetchone()
    return GateRecord.from_row(row)


def gates_of_ladder(storage: Storage, ladder_id: int) -> list[GateRecord]:
    """Every gate of the ladder, oldest first."""
    return [GateRecord.from_row(row) for row in storage.query(
        f"SELECT {_COLUMNS} FROM ladder_gates WHERE ladder_id=? ORDER BY opened_at, match_id",
        (ladder_id,))]


def gate_of_match(storage: Storage, match_id: int) -> GateRecord | None:
    """The gate whose match is the season ``match_id`` (None for any other season)."""
    rows = storage.query(f"SELECT {_COLUMNS} FROM ladder_gates WHERE match_id=?", (match_id,))
    return GateRecord.from_row(rows[0]) if rows else None


def gates_of_version(storage: Storage, bot_id: str) -> list[GateRecord]:
    """Every gate of ``bot_id`` (one per ladder it was gated on), oldest first."""
    return [GateRecord.from_row(row) for row in storage.query(
        f"SELECT {_COLUMNS} FROM ladder_gates WHERE bot_id=? ORDER BY match_id", (bot_id,))]


def decide_gate(storage: Storage, ladder_id: int, bot_id: str, verdict: GateVerdict) -> None:
    """Store the verdict of a pending gate (a gate decided already keeps its verdict)."""
    with storage.transaction() as db:
        db.execute("UPDATE ladder_gates SET status=?, pairs=?, elo=?, elo_low=?, elo_high=?, "
                   "llr=?, decided_at=? WHERE ladder_id=? AND bot_id=? AND status=?",
                   (verdict.status, verdict.pairs, verdict.elo, verdict.elo_low,
                    verdict.elo_high, verdict.llr, utc_now(), ladder_id, bot_id, GATE_PENDING))


def admit_to_ladder(storage: Storage, bot_id: str, admit: bool, by: str) -> list[GateRecord]:
    """Admit ``bot_id`` to every ladder that gates it, whatever its match says
    (``admit``), or leave it to the match and the ladder's rule again; ``by`` is
    who asked. Raises ``NotFoundError`` when no ladder gates it."""
    with storage.transaction() as db:
        changed = db.execute("UPDATE ladder_gates SET admitted_by=? WHERE bot_id=?",
                             (by if admit else "", bot_id)).rowcount
    if not changed:
        raise NotFoundError(f"{bot_id} has no gate match on any ladder: a version joins "
                            "a gated ladder by its match, or directly when it has no "
                            "predecessor there")
    return gates_of_version(storage, bot_id)
