"""The moves of series played on cluster workers, for the website's live pages.

A worker cannot reach the arena's ``MoveBoard`` (``arena.match.live_moves``): it
publishes each series' events in batches on one Dask event topic (``LIVE_TOPIC``:
the worker's ``log_event``, which the scheduler forwards to every client subscribed
to the topic), and the arena's ``ClusterExecutor`` feeds the batches of the tasks it
submitted into its board (``BoardFeeder``).

Bounded: a batch is sent when a hand ends (so the live page gets every hand as it
completes), when the series ends, or when ``FLUSH_S`` passed since the last batch
(moves of a slow hand still arrive), at most ``MAX_BATCH`` events each; a hand's end
travels as its score sheet only. The scheduler keeps the topic's last events in a
bounded deque (Dask's ``distributed.admin.low-level-log-length``, 1000). What a
worker publishes is only shown, never stored: a batch that is malformed, too big,
for a task this arena did not submit, or that does not continue what the board has
is dropped, and a move the engine refuses stops the live view (the outcome, verified
by the season, is what counts).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any, Final

from arena.match.live_moves import MoveBoard

log = logging.getLogger(__name__)

LIVE_TOPIC: Final = "hollywood-live-moves"
FLUSH_S: Final = 0.5
MAX_BATCH: Final = 256
_KEPT_TYPES: Final = frozenset({"action", "hand_start"})

Publish = Callable[[dict[str, Any]], None]


class MovePublisher:
    """A worker's event sink for one series task (``key``): batches its events and
    ``publish``es them (see the module docstring)."""

    def __init__(self, key: str, publish: Publish, *,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.key = key
        self.publish = publish
        self.clock = clock
        self._batch: list[dict[str, Any]] = []
        self._first = 0  # the series' index of the batch's first action
        self._sent_at = clock()
        self.publish({"key": key, "first": 0, "events": []})  # the series starts

    def __call__(self, event: dict[str, Any]) -> None:
        kind = event.get("type")
        if kind in _KEPT_TYPES:
            self._batch.append(event)
        elif kind == "hand_end":
            self._batch.append({"type": "hand_end", "hand": event.get("hand"),
                                "sheet": event.get("sheet")})
        elif kind in ("series_end", "fault"):
            self._batch.append({"type": kind})
        if (kind in ("hand_end", "series_end", "fault") or len(self._batch) >= MAX_BATCH
                or self.clock() - self._sent_at >= FLUSH_S):
            self.flush()

    def flush(self) -> None:
        if not self._batch:
            return
        batch, self._batch = self._batch, []
        self.publish({"key": self.key, "first": self._first, "events": batch})
        self._first += sum(1 for event in batch if event.get("type") == "action")
        self._sent_at = self.clock()


def worker_publisher() -> MovePublisher | None:
    """The publisher of the task this Dask worker thread runs (None outside one)."""
    try:
        from distributed import get_worker

        worker = get_worker()
        key = worker.get_current_task()
    except (ImportError, ValueError):
        return None
    if key is None:
        return None
    return MovePublisher(str(key), lambda message: worker.log_event(LIVE_TOPIC, message))


class BoardFeeder:
    """The arena's side: the batches of the tasks it ``expect``-s go to ``board``
    under their series ids (called on the Dask client's event loop)."""

    def __init__(self, board: MoveBoard) -> None:
        self.board = board
        self._lock = threading.Lock()
        self._series: dict[str, str] = {}  # task key -> series id

    def expect(self, key: str, series_id: str) -> None:
        with self._lock:
            self._series[key] = series_id

    def done(self, key: str, series_id: str) -> None:
        """The task settled: its series leaves the board."""
        with self._lock:
            self._series.pop(key, None)
        self.board.finish(series_id)

    def __call__(self, event: Any) -> None:
        message = event[1] if isinstance(event, (tuple, list)) and len(event) == 2 else event
        if not isinstance(message, dict):
            return
        key, first, events = message.get("key"), message.get("first"), message.get("events")
        if (not isinstance(key, str) or not isinstance(first, int) or isinstance(first, bool)
                or first < 0 or not isinstance(events, (list, tuple)) or len(events) > MAX_BATCH
                or not all(isinstance(e, dict) and isinstance(e.get("type"), str)
                           for e in events)):
            log.debug("a malformed live batch was dropped")
            return
        with self._lock:
            series_id = self._series.get(key)
        if series_id is not None:
            self.board.extend(series_id, first, [_as_json(event) for event in events])


def _as_json(value: Any) -> Any:
    """``value`` as the engine logged it: Dask's messages turn lists into tuples."""
    if isinstance(value, (list, tuple)):
        return [_as_json(item) for item in value]
    if isinstance(value, dict):
        return {key: _as_json(item) for key, item in value.items()}
    return value
