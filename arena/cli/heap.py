"""The garbage collector's thresholds while a command plays series in this process
(``arena season run``, ``match``, ``demo``, ``serve``).

A series in play holds its event log and each seat's decisions: tens of thousands
of small dicts and lists per series (a 200-hand series: about 20 000 log entries),
alive until the result is stored. With CPython's default thresholds (700, 10, 10)
they survive the young generations and fill the old one, so full collections run
again and again over every live log: measured on ``arena season run --sandbox
inprocess`` (20 series of random bots to the 200-hand cap), 29 full collections
took 3.5 of the command's 15.5 CPU-seconds, and the collector 4.2 in all. Those
objects are freed by their reference counts when a series is stored (a log holds
no cycles), so the cyclic collector finds almost nothing in them.

``PLAY_THRESHOLDS`` collects the young generation every 50 000 allocations
instead of 700 (and the older ones proportionally less often): the same
measurement then spends under 1 CPU-second in the collector. Cyclic garbage still
is collected, later: at most a few tens of megabytes wait for it.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Final

PLAY_THRESHOLDS: Final = (50_000, 20, 10)
"""``gc.set_threshold`` while series are played here (see the module)."""


@contextmanager
def thresholds_for_play() -> Iterator[None]:
    """The collector at ``PLAY_THRESHOLDS`` inside the block; as it was after it."""
    before = gc.get_threshold()
    gc.set_threshold(*PLAY_THRESHOLDS)
    try:
        yield
    finally:
        gc.set_threshold(*before)
