"""``arena export --season ID --to DIR``: a season (or an SPRT match, which is a
season of format ``sprt``) written out for other tools, read through the API:

* ``results.csv``: one row per played series (ids, seats, the seed's commitment and,
  once revealed, the seed and its nonce, winner, games, hands, points, fault);
* ``standings.csv``: one row per bot, every standings column (Bradley-Terry Elo
  and its interval, the tied mark and the Swiss columns included);
* ``series/ID.json``: each played series' summary and full event log (replayable
  with ``engine.Series.replay``; null while its seed is not revealed);
* ``season.json``: the season and its standings as ``arena standings --json``
  shows them (with the bracket or the SPRT state);
* with ``--decisions``, ``decisions.jsonl``: one record per decision of every played
  series (``arena.cli.decisions``), for imitation learning.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final, TextIO

from hollywood.arena.v1 import arena_pb2
from rich.console import Console

from arena.cli.client import connect
from arena.cli.decisions import decision_records
from arena.cli.listing import every_series, whole_standings
from arena.cli.output import CliError, print_json, to_json
from arena.core.standing_columns import STANDING_COLUMNS

RESULT_COLUMNS: Final = (
    "season_id", "series_id", "index", "seed_commitment", "seed_revealed", "seed",
    "seed_nonce", "seat0_bot", "seat1_bot", "winner",
    "winner_bot", "games_won_0", "games_won_1", "hands_won_0", "hands_won_1",
    "hands_played", "capped", "points_0", "points_1", "fault_kind", "fault_seat",
    "fault_message", "wall_seconds",
)
_SHOWN: Final = ("rank", "bot_id", *(name for column in STANDING_COLUMNS for name in column.reads))
EXPORTED_COLUMNS: Final = (*_SHOWN, *(
    field.name for field in arena_pb2.StandingRow.DESCRIPTOR.fields
    if not field.is_repeated and field.name not in _SHOWN))
"""Every value of the API's standings row: the rank and bot, then the values each
column every screen shows reads, in the columns' order
(``arena.core.standing_columns``), then the message's other fields in its order. A
new column is exported without a line here (the format's cells are under their own
labels in season.json)."""


def result_row(series: arena_pb2.SeriesSummary) -> dict[str, object]:
    bots = (series.seat0_bot, series.seat1_bot)
    fault = series.fault if series.HasField("fault") else None
    winner = series.winner if series.winner in (0, 1) else None
    pairs = {"games_won": series.games_won, "hands_won": series.hands_won,
             "points": series.points}
    row: dict[str, object] = {
        "season_id": series.season_id, "series_id": series.series_id, "index": series.index,
        "seed_commitment": series.seed_commitment, "seed_revealed": int(series.seed_revealed),
        "seed": series.seed if series.seed_revealed else "",
        "seed_nonce": series.seed_nonce, "seat0_bot": bots[0], "seat1_bot": bots[1],
        "winner": "" if winner is None else winner,
        "winner_bot": "" if winner is None else bots[winner],
        "hands_played": series.hands_played, "capped": int(series.capped),
        "fault_kind": fault.kind if fault else "",
        "fault_seat": fault.seat if fault else "",
        "fault_message": fault.message if fault else "",
        "wall_seconds": round(series.wall_seconds, 3),
    }
    for name, values in pairs.items():
        both = list(values) if len(values) == 2 else [0, 0]
        row[f"{name}_0"], row[f"{name}_1"] = both
    return row


def standing_row(row: arena_pb2.StandingRow) -> dict[str, object]:
    """Fractional numbers to 2 decimals, yes/no as 1/0."""
    values: dict[str, object] = {}
    for name in EXPORTED_COLUMNS:
        value = getattr(row, name)
        if isinstance(value, bool):
            value = int(value)
        elif isinstance(value, float):
            value = round(value, 2)
        values[name] = value
    return values


def write_csv(path: Path, columns: tuple[str, ...], rows: list[dict[str, object]]) -> None:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=columns)
        writer.writeheader()
        writer.writerows(rows)


@contextlib.contextmanager
def _decisions_file(target: Path, wanted: bool) -> Iterator[TextIO | None]:
    """``decisions.jsonl``, written beside the rest and renamed into place once whole."""
    if not wanted:
        yield None
        return
    partial = target / "decisions.jsonl.partial"
    target.mkdir(parents=True, exist_ok=True)
    with partial.open("w", encoding="utf-8") as out:
        yield out
    partial.replace(target / "decisions.jsonl")


def _write_decisions(out: TextIO, series: arena_pb2.SeriesSummary, log: list[Any]) -> int:
    winner = series.winner if series.winner in (0, 1) else None
    outcome = {"winner": winner, "points": list(series.points),
               "fault_kind": series.fault.kind if series.HasField("fault") else None}
    written = 0
    for record in decision_records(series.series_id, (series.seat0_bot, series.seat1_bot),
                                   log, outcome):
        out.write(json.dumps(record, separators=(",", ":")) + "\n")
        written += 1
    return written


def cmd_export(args: argparse.Namespace, console: Console) -> int:
    target: Path = args.to
    if target.exists() and not target.is_dir():
        raise CliError(f"--to {target}: exists and is not a directory")
    with connect(args) as client:
        season = client.stub.GetSeason(arena_pb2.GetSeasonRequest(season_id=args.season)).season
        standings = whole_standings(client, season.id)
        listed = every_series(client, season.id)
        played = [series for series in listed if series.played]
        (target / "series").mkdir(parents=True, exist_ok=True)
        decisions = 0
        with _decisions_file(target, args.decisions) as out:
            for series in played:
                full = client.stub.GetSeries(
                    arena_pb2.GetSeriesRequest(series_id=series.series_id))
                log = json.loads(full.event_log_json or "null")
                (target / "series" / f"{series.series_id}.json").write_text(json.dumps(
                    {"series": to_json(full.series), "profile": json.loads(full.profile_json),
                     "event_log": log}, indent=1) + "\n")
                if out is not None and log is not None:
                    decisions += _write_decisions(out, series, log)
    write_csv(target / "results.csv", RESULT_COLUMNS, [result_row(s) for s in played])
    write_csv(target / "standings.csv", EXPORTED_COLUMNS,
              [standing_row(row) for row in standings.rows])
    (target / "season.json").write_text(json.dumps(
        {"season": to_json(season), "standings": to_json(standings)}, indent=1) + "\n")
    summary = {"season_id": season.id, "directory": str(target), "series": len(played),
               "bots": len(standings.rows)}
    if args.decisions:
        summary["decisions"] = decisions
    if args.json:
        print_json(summary)
    else:
        console.print(f"season {season.id}: {len(played)} series and {len(standings.rows)} "
                      f"standings rows written to {target}")
    return 0
