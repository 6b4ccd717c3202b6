"""An environment that deals a series the arena stored, to replay it or to train from the
position where it went wrong.

The source is the series' event log, as ``arena export`` writes it (``series/ID.json``,
``{"event_log": [...]}``) or any JSON holding ``event_log``; its first entry,
``series_start``, carries the seed, the seat swap, the rule profile and the hand cap the
arena dealt with, and ``reset(seed=..., options={"swap_seats": ...})`` of an environment
with that profile and cap deals exactly those cards (``engine.Series``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from engine import Action, Profile
from hollywood_env.actions import action_index
from hollywood_env.aec import AGENTS, raw_env
from hollywood_env.scoring import Episode


class StoredSeriesError(ValueError):
    """The source is not a stored series' log; the message says what is missing."""


def event_log_of(source: Path | str | Mapping[str, Any] | Sequence[Any]) -> list[Any]:
    """The event log in ``source``: a file or a mapping holding ``event_log``, or a log."""
    data: Any = source
    if isinstance(source, (str, Path)):
        try:
            data = json.loads(Path(source).read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            raise StoredSeriesError(f"{source}: not a readable JSON file ({error})") from None
    if isinstance(data, Mapping):
        data = data.get("event_log")
    if not isinstance(data, list) or not data:
        raise StoredSeriesError("no event log: expected a list of events or 'event_log'")
    start = data[0]
    if not isinstance(start, dict) or start.get("type") != "series_start":
        raise StoredSeriesError("the event log does not start with its series_start event")
    return list(data)


def for_stored_series(source: Path | str | Mapping[str, Any] | Sequence[Any],
                      episode: Episode = "series") -> raw_env:
    """A ``raw_env`` with the stored series' profile and hand cap, reset to its deal."""
    log = event_log_of(source)
    start = log[0]
    try:
        profile = Profile.from_dict(start["profile"])
        environment = raw_env(profile=profile, max_hands=int(start["max_hands"]),
                              episode=episode)
        environment.reset(seed=int(start["seed"]),
                          options={"swap_seats": bool(start["swap_seats"])})
    except (KeyError, TypeError, ValueError) as error:
        raise StoredSeriesError(f"the series_start event is not usable: {error}") from None
    return environment


def stored_moves(source: Path | str | Mapping[str, Any] | Sequence[Any]
                 ) -> Iterator[tuple[str, int]]:
    """The stored moves in order, as (agent, action index) for ``raw_env.step``."""
    for entry in event_log_of(source)[1:]:
        if isinstance(entry, dict) and entry.get("type") == "action":
            action = Action.from_dict(entry.get("action"))
            yield AGENTS[int(entry["seat"])], action_index(action)
