"""A season's live standings saved as they stood after a stored result, so that a
server's first read of a big season (after a restart) applies only the results
stored since, not every result from the first: at 99 % of a 1,000-bot round robin
that is 989,000 results, minutes of CPU under the season's standings lock, while
the season's runner and every reader of its standings wait.

The checkpoint is the published table of that sequence (``StandingsState.table``,
immutable, so it is encoded outside the lock): every row's counters with its
rating μ and σ (the rating model's whole state for a bot) and the crosstable, as
compact JSON compressed with zlib. ``StandingsState.restore`` rebuilds the state
from it exactly (floats round-trip through JSON), so the results applied after it
give the numbers a full recompute gives. A checkpoint written by another layout of
``StandingRow`` (its ``fields``) or that does not decode is ignored: the standings
are then rebuilt from every result, as before checkpoints existed.
"""

from __future__ import annotations

import json
import zlib
from dataclasses import fields
from typing import Any, Final

from arena.season.standings import HeadToHead, StandingRow, Standings, StandingsState

ROW_FIELDS: Final = tuple(f.name for f in fields(StandingRow) if f.name != "bot_id")
CELL_FIELDS: Final = tuple(f.name for f in fields(HeadToHead))


def encode(standings: Standings, bot_ids: tuple[str, ...], sequence: int) -> bytes:
    """The checkpoint of the table ``standings`` of ``sequence`` stored results."""
    index = {bot_id: number for number, bot_id in enumerate(bot_ids)}
    data = {
        "sequence": sequence, "bots": list(bot_ids), "row_fields": list(ROW_FIELDS),
        "cell_fields": list(CELL_FIELDS),
        "rows": [[index[row.bot_id], *(getattr(row, name) for name in ROW_FIELDS)]
                 for row in standings.rows],
        "cells": [[index[bot], index[opponent], *(getattr(cell, name) for name in CELL_FIELDS)]
                  for bot, opponents in standings.crosstable.items()
                  for opponent, cell in opponents.items()],
    }
    return zlib.compress(json.dumps(data, separators=(",", ":")).encode(), 1)


class CheckpointError(ValueError):
    """A checkpoint this arena cannot read (another layout, or damaged)."""


def decode(blob: bytes) -> StandingsState:
    """The standings state a checkpoint holds; ``CheckpointError`` if it cannot."""
    try:
        data: dict[str, Any] = json.loads(zlib.decompress(blob))
        if (data["row_fields"] != list(ROW_FIELDS)
                or data["cell_fields"] != list(CELL_FIELDS)):
            raise CheckpointError("written for another layout of the standings")
        bots = [str(bot) for bot in data["bots"]]
        rows = [StandingRow(bots[values[0]], **dict(zip(ROW_FIELDS, values[1:], strict=True)))
                for values in data["rows"]]
        crosstable: dict[str, dict[str, HeadToHead]] = {bot: {} for bot in bots}
        for values in data["cells"]:
            crosstable[bots[values[0]]][bots[values[1]]] = HeadToHead(
                **dict(zip(CELL_FIELDS, values[2:], strict=True)))
        return StandingsState.restore(bots, int(data["sequence"]), rows, crosstable)
    except (zlib.error, ValueError, KeyError, IndexError, TypeError) as error:
        if isinstance(error, CheckpointError):
            raise
        raise CheckpointError(f"cannot be read: {type(error).__name__}: {error}") from None
