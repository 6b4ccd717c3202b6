"""What only a bot's owner (and the admin) sees on the website: the owner panes of
series and bot pages, and of their JSON twins.

Each pane is filled by a provider, a function of the storage, the page's subject
and the signed-in ``Viewer``, that returns JSON-ready data with nothing in it the
viewer may not see: ``owner_series_view`` (one entry per seat whose bot the viewer
owns: its seat log, ``arena.core.seat_logs``: the series' stderr, and each decision's
measured time and debug note beside the move it made) and ``owner_bot_view`` (None
for anyone but the owner). A new kind of owner-only data is one more key from a
provider and one more block in ``_owner.html``."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from arena.core.faults import BotFault
from arena.core.seat_logs import SeatLog
from arena.storage import SeriesRecord, Storage, read_seat_logs, recent_faults, version_life
from arena.web.sessions import Viewer
from engine.actions import Action

OWNER_FAULTS_SHOWN: Final = 10
"""A bot's latest forfeits whose stderr its page shows its owner."""

NO_LOG: Final = SeatLog(seat=0)
"""What a seat without a stored log shows (pruned, or never kept)."""


def seat_faults(result: SeriesRecord) -> dict[int, BotFault]:
    """The fault of each seat that forfeited ``result`` (both when neither started)."""
    if result.fault is None:
        return {}
    faults = (result.fault, result.fault.other_seat_fault)
    return {seat: fault for seat, fault in zip(result.forfeiting_seats, faults, strict=False)
            if fault is not None}


def _fault_place(fault: BotFault) -> dict[str, Any]:
    return {"kind": str(fault.kind), "message": fault.message,
            "hand_number": fault.hand_number, "decision_number": fault.decision_number}


def owner_series_view(storage: Storage, series_id: str, viewer: Viewer
                      ) -> list[dict[str, Any]]:
    """Per seat of series ``series_id`` whose bot ``viewer`` may see: the bot, the
    fault it forfeited on, and its seat log: what it wrote to stderr in the series,
    and each of its decisions (hand, decision number in the series, measured
    milliseconds, debug note) with the move it made. Empty for a seat the viewer
    does not own."""
    planned = storage.get_planned(series_id)
    result = storage.get_result(series_id)
    faults = {} if result is None else seat_faults(result)
    logs = {log.seat: log for log in read_seat_logs(storage, series_id)}
    moves = _moves(storage, series_id) if result is not None else {}
    seats = []
    for seat, bot_id in enumerate(planned.bots):
        if not viewer.may_see(version_life(storage, bot_id).owner):
            continue
        fault = faults.get(seat)
        log = logs.get(seat, NO_LOG)
        seats.append({"seat": seat, "bot": bot_id, "played": result is not None,
                      "fault": None if fault is None else _fault_place(fault),
                      "stderr": log.stderr, "stderr_bytes": log.stderr_bytes,
                      "fault_words": log.fault_words, "notes_dropped": log.notes_dropped,
                      "decisions": [{**decision.to_dict(),
                                     "move": moves.get(decision.decision_number, "")}
                                    for decision in log.decisions]})
    return seats


def _moves(storage: Storage, series_id: str) -> dict[int, str]:
    """Each decision's move by its number in the series (the log's n-th action is
    decision n: every action is a bot's decision)."""
    events, _ = storage.result_log(series_id)
    actions = [entry for entry in events if entry.get("type") == "action"]
    return {number: str(Action.from_dict(entry["action"]))
            for number, entry in enumerate(actions, start=1)}


def owner_bot_view(storage: Storage, bot_id: str, viewer: Viewer) -> dict[str, Any] | None:
    """Version ``bot_id`` as its owner sees it: its vetting's image, build and
    validation logs (what `arena bots logs` shows) and the stderr it wrote in the
    series of its latest forfeits; None unless ``viewer`` owns it (or is the admin)."""
    life = version_life(storage, bot_id)
    if not viewer.may_see(life.owner):
        return None
    forfeits = []
    for lost in recent_faults(storage, bot_id, OWNER_FAULTS_SHOWN):
        result = storage.get_result(lost.series_id)
        if result is None:
            continue
        logs = {log.seat: log for log in read_seat_logs(storage, lost.series_id)}
        for seat, fault in seat_faults(result).items():
            if result.bots[seat] == bot_id:
                forfeits.append({"series_id": lost.series_id, "seat": seat,
                                 "finished_at": result.finished_at, **_fault_place(fault),
                                 "stderr": logs.get(seat, NO_LOG).stderr})
    return {"owner": life.owner, "image_id": life.image_id, "build_log": life.build_log,
            "validation_log": life.validation_log, "forfeits": forfeits}


@dataclass(frozen=True)
class OwnerViews:
    """The providers of the owner panes (tests and later features pass others)."""

    series: Callable[[Storage, str, Viewer], list[dict[str, Any]]] = owner_series_view
    bot: Callable[[Storage, str, Viewer], dict[str, Any] | None] = owner_bot_view
