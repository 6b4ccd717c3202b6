"""``arena series verify ID`` (or ``--file series/ID.json`` of ``arena export``):
check a played series' revealed deal seed against the commitment the arena showed
before it was played, and re-deal its event log from that seed
(``engine.commitment.check_revealed_deal``). Anyone can run it: it needs only what
every reader of the API sees."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from hollywood.arena.v1 import arena_pb2
from rich.console import Console

from arena.cli.client import connect
from arena.cli.output import CliError, print_json
from engine.commitment import CommitmentError, check_revealed_deal


def cmd_series_verify(args: argparse.Namespace, console: Console) -> int:
    if args.file is not None:
        summary, log = _from_export(args.file)
    elif args.series_id:
        with connect(args) as client:
            response = client.stub.GetSeries(
                arena_pb2.GetSeriesRequest(series_id=args.series_id))
        summary = {"series_id": response.series.series_id, "played": response.series.played,
                   "seed_revealed": response.series.seed_revealed,
                   "seed": response.series.seed, "seed_nonce": response.series.seed_nonce,
                   "seed_commitment": response.series.seed_commitment}
        log = json.loads(response.event_log_json or "null")
    else:
        raise CliError("give a series id, or --file with an exported series/ID.json")
    series_id = summary.get("series_id", "?")
    if not summary.get("played") or not summary.get("seed_revealed") or not log:
        raise CliError(f"series {series_id}: its seed is not revealed yet (it is revealed "
                       "once every series of its round between the same two bots is played)")
    seed, nonce = int(summary.get("seed", 0)), str(summary.get("seed_nonce", ""))
    commitment = str(summary.get("seed_commitment", ""))
    try:
        replayed = check_revealed_deal(log, commitment, seed, nonce)
    except CommitmentError as error:
        if args.json:
            print_json({"series_id": series_id, "verified": False, "problem": str(error)})
        else:
            console.print(f"series {series_id}: NOT verified: {error}", markup=False)
        return 1
    hands = len(replayed.hands)
    if args.json:
        print_json({"series_id": series_id, "verified": True, "seed": seed, "nonce": nonce,
                    "commitment": commitment, "hands": hands})
    else:
        console.print(f"series {series_id}: verified: seed {seed} with nonce {nonce} opens "
                      f"commitment {commitment}, and its {hands} hand(s) re-deal from it",
                      markup=False)
    return 0


def _from_export(path: Path) -> tuple[dict[str, Any], Any]:
    """The summary and event log of an ``arena export`` series file."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as error:
        raise CliError(f"--file {path}: cannot read it as JSON: {error}") from None
    if not isinstance(data, dict) or not isinstance(data.get("series"), dict):
        raise CliError(f"--file {path}: not a series file of `arena export` "
                       "(no \"series\" object)")
    return data["series"], data.get("event_log")
