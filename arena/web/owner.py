"""What only a bot's owner (and the admin) sees on the website: the owner panes of
series and bot pages, and of their JSON twins.

Each pane is filled by a provider, a function of the storage, the page's subject
and the signed-in ``Viewer``, that returns JSON-ready data with nothing in it the
viewer may not see: ``owner_series_view`` (one entry per seat whose bot the viewer
owns) and ``owner_bot_view`` (None for anyone but the owner). A new kind of
owner-only data (a seat's whole stderr, its debug notes, its decision times) is
one more key from a provider and one more block in ``_owner.html``."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from arena.core.faults import BotFault
from arena.storage import SeriesRecord, Storage
from arena.storage.lifecycle import recent_faults, version_life
from arena.web.sessions import Viewer

OWNER_FAULTS_SHOWN: Final = 10
"""A bot's latest forfeits whose stderr its page shows its owner."""


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
    """Per seat of series ``series_id`` whose bot ``viewer`` may see: the bot, and
    its stderr as kept (today only a forfeit keeps its last 4 KiB, ``stderr_tail``,
    with the ``fault`` it ended in). Empty for a seat the viewer does not own."""
    planned = storage.get_planned(series_id)
    result = storage.get_result(series_id)
    faults = {} if result is None else seat_faults(result)
    seats = []
    for seat, bot_id in enumerate(planned.bots):
        if not viewer.may_see(version_life(storage, bot_id).owner):
            continue
        fault = faults.get(seat)
        seats.append({"seat": seat, "bot": bot_id, "played": result is not None,
                      "fault": None if fault is None else _fault_place(fault),
                      "stderr_tail": "" if fault is None else fault.stderr_tail})
    return seats


def owner_bot_view(storage: Storage, bot_id: str, viewer: Viewer) -> dict[str, Any] | None:
    """Version ``bot_id`` as its owner sees it: its vetting's image, build and
    validation logs (what `arena bots logs` shows) and the stderr of its latest
    forfeits; None unless ``viewer`` owns it (or is the admin)."""
    life = version_life(storage, bot_id)
    if not viewer.may_see(life.owner):
        return None
    forfeits = []
    for lost in recent_faults(storage, bot_id, OWNER_FAULTS_SHOWN):
        result = storage.get_result(lost.series_id)
        if result is None:
            continue
        for seat, fault in seat_faults(result).items():
            if result.bots[seat] == bot_id:
                forfeits.append({"series_id": lost.series_id, "seat": seat,
                                 "finished_at": result.finished_at, **_fault_place(fault),
                                 "stderr_tail": fault.stderr_tail})
    return {"owner": life.owner, "image_id": life.image_id, "build_log": life.build_log,
            "validation_log": life.validation_log, "forfeits": forfeits}


@dataclass(frozen=True)
class OwnerViews:
    """The providers of the owner panes (tests and later features pass others)."""

    series: Callable[[Storage, str, Viewer], list[dict[str, Any]]] = owner_series_view
    bot: Callable[[Storage, str, Viewer], dict[str, Any] | None] = owner_bot_view
