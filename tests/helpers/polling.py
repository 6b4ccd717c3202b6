"""Bounded polling for tests: wait for a condition to hold instead of sleeping a
fixed time, so a loaded machine makes a test slower, never wrong."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

DEFAULT_BOUND_S = 30.0
"""Generous: only a broken condition waits this long, and then the test fails."""


def wait_until(condition: Callable[[], T], *, what: str, bound_s: float = DEFAULT_BOUND_S,
               interval_s: float = 0.02) -> T:
    """The first truthy value ``condition()`` returns; ``AssertionError`` naming
    ``what`` if none comes within ``bound_s`` seconds."""
    give_up_at = time.monotonic() + bound_s
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() >= give_up_at:
            raise AssertionError(f"gave up after {bound_s:.0f} s waiting for {what}")
        time.sleep(interval_s)
