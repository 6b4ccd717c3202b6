"""``arena export --decisions``: one JSON Lines record per decision of each played
series, for imitation learning (docs/learning.md).

Each record is re-dealt from the series' stored event log with the engine, so it holds
exactly what the acting seat saw when it decided (``engine.Observation``: its own cards
and the public table, never the other seat's unseen cards or the stock's order), the
legal actions at that moment, the action taken, and the series' outcome.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from engine import Action, Profile, Series


def decision_records(series_id: str, bots: tuple[str, str], event_log: list[Any],
                     outcome: Mapping[str, Any]) -> Iterator[dict[str, Any]]:
    """The decisions of one stored series, in play order."""
    start = event_log[0]
    series = Series(int(start["seed"]), Profile.from_dict(start["profile"]),
                    max_hands=int(start["max_hands"]), swap_seats=bool(start["swap_seats"]))
    number = 0
    for entry in event_log[1:]:
        if entry.get("type") != "action":
            continue
        seat = series.current_player
        if seat is None or seat != entry.get("seat"):
            raise ValueError(f"series {series_id}: the log's move for seat "
                             f"{entry.get('seat')} comes when seat {seat} is to act")
        action = Action.from_dict(entry.get("action"))
        number += 1
        yield {
            "series_id": series_id, "decision": number, "hand": series.hand_number,
            "seat": seat, "bot": bots[seat],
            "observation": series.observation(seat).to_dict(),
            "legal_actions": [str(legal) for legal in series.legal_actions()],
            "action": str(action), "outcome": dict(outcome),
        }
        series.apply(action)
