"""The owner's views of a series: ``arena series logs ID [--seat N]`` (each of the
caller's seats: the bot's stderr, and each decision's measured time with its debug
note) and ``arena series download ID`` (one JSON file: the replay, the owner's logs,
debug notes and timings). Both need the owner's token (or the admin's): the server
answers ``GetSeriesLogs`` for the seats the caller owns alone."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from hollywood.arena.v1 import arena_pb2
from rich.console import Console

from arena.cli.client import connect
from arena.cli.output import CliError, print_json, to_json
from arena.cli.render import shown


def _logs_request(args: argparse.Namespace) -> arena_pb2.GetSeriesLogsRequest:
    request = arena_pb2.GetSeriesLogsRequest(series_id=args.series_id)
    if getattr(args, "seat", None) is not None:
        request.seat = args.seat
    return request


def cmd_series_logs(args: argparse.Namespace, console: Console) -> int:
    with connect(args) as client:
        response = client.stub.GetSeriesLogs(_logs_request(args), metadata=client.auth)
    if args.json:
        print_json(to_json(response))
        return 0
    response = shown(response)
    if not response.seats:
        console.print(f"series {response.series_id}: no log kept for seat(s) "
                      f"{', '.join(map(str, response.readable_seats))} (pruned by the "
                      "server's retention, or played before logs were kept)",
                      markup=False, highlight=False)
    for seat in response.seats:
        _print_seat(console, seat)
    return 0


def _print_seat(console: Console, seat: arena_pb2.SeatLog) -> None:
    console.rule(f"seat {seat.seat}: {seat.bot_id}")
    total_ms = sum(decision.think_ms for decision in seat.decisions)
    console.print(f"{len(seat.decisions)} decision(s), {total_ms / 1000:.3f} s measured; "
                  f"{seat.stderr_bytes} byte(s) of stderr", markup=False, highlight=False)
    console.print("decisions (hand, decision, measured ms, debug note):", markup=False)
    for decision in seat.decisions:
        note = f"  {decision.debug}" if decision.debug else ""
        console.print(f"  hand {decision.hand_number:>3} #{decision.decision_number:<5} "
                      f"{decision.think_ms:9.3f} ms{note}", markup=False, highlight=False)
    if seat.fault_words:
        console.print(f"it forfeited, saying: {seat.fault_words}", markup=False,
                      highlight=False)
    if seat.notes_dropped:
        console.print(f"  ({seat.notes_dropped} debug note(s) dropped past the series' "
                      "limit)", markup=False)
    console.print("stderr:" if seat.stderr else "stderr: (empty)", markup=False)
    if seat.stderr:
        console.print(seat.stderr, markup=False, highlight=False)


def download_document(series: arena_pb2.GetSeriesResponse,
                      logs: arena_pb2.GetSeriesLogsResponse) -> dict[str, Any]:
    """The one JSON document of ``arena series download``: the series (summary,
    profile, the replayable event log) and the caller's seat logs."""
    replay = series.event_log_json
    return {
        "series": to_json(series.series),
        "profile": json.loads(series.profile_json) if series.profile_json else {},
        "event_log": json.loads(replay) if replay else [],
        "seat_logs": [to_json(seat) for seat in logs.seats],
        "readable_seats": list(logs.readable_seats),
    }


def cmd_series_download(args: argparse.Namespace, console: Console) -> int:
    with connect(args) as client:
        logs = client.stub.GetSeriesLogs(_logs_request(args), metadata=client.auth)
        series = client.stub.GetSeries(arena_pb2.GetSeriesRequest(series_id=args.series_id))
    document = download_document(series, logs)
    text = json.dumps(document, indent=1, ensure_ascii=False) + "\n"
    target = Path(args.output or f"series-{args.series_id}.json")
    if str(target) == "-":
        print(text, end="")
        return 0
    try:
        target.write_text(text, encoding="utf-8")
    except OSError as error:
        raise CliError(f"cannot write {target}: {error.strerror or error}") from None
    if args.json:
        print_json({"path": str(target), "bytes": len(text.encode())})
    else:
        console.print(f"wrote {target} ({len(text.encode())} bytes): the replay, "
                      f"{len(document['seat_logs'])} seat log(s) of yours", markup=False,
                      highlight=False)
    return 0
