"""How long an honest version waits behind another author's endless builds (plain
script; `make bench` runs it; no Docker).

Author ann queues 5 versions whose builds each take ``--build-s`` seconds (standing
in for builds that run to the build timeout); then author bob queues one version
whose vetting is instant. Printed: bob's wait from his upload's queueing to the
start of his vetting, and to its verdict, with the server's vetting (2 slots, round
robin by author, one version of an author at once), with the same rule on 1 slot
(at most one of ann's builds), and with one slot serving versions in upload order
(the vetting of before issue 25: all five).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repo root, for tests.*

from arena.core.series import BotRef
from arena.execution.vetting import Vetting
from arena.server.vetting import VettingWorker
from arena.server.vetting_queue import FairQueue
from arena.storage import Storage
from arena.storage.lifecycle import version_life
from tests.helpers.vetting_helpers import store_version


class _Fifo(FairQueue):
    """One queue for everyone, in upload order (the old vetting)."""

    def add(self, author: str, bot_id: str) -> bool:
        return super().add("everyone", bot_id)

    def take(self) -> tuple[str, str] | None:
        return super().take()


def measure(slots: int, fair: bool, build_s: float) -> tuple[float, float]:
    """(seconds bob waited to start, seconds to his verdict)."""
    started: dict[str, float] = {}
    lock = threading.Lock()

    def vetter(bot: BotRef, on_stage: Callable[[str], None],
               on_line: Callable[[str], None]) -> Vetting:
        with lock:
            started[bot.name + bot.version] = time.monotonic()
        if bot.name == "endless":
            time.sleep(build_s)
        return Vetting(passed=True)

    with tempfile.TemporaryDirectory() as temp:
        root = Path(temp)
        storage = Storage(root / "arena.db")
        worker = VettingWorker(storage, "process", vetter=vetter, slots=slots)
        if not fair:
            worker._queue = _Fifo(slots)
        for n in range(5):
            worker.submit(store_version(storage, root, "ann", "endless", f"1.0.{n}"))
        honest = store_version(storage, root, "bob", "honest", "1.0.0")
        queued = time.monotonic()
        worker.submit(honest)
        while version_life(storage, honest).status != "active":
            time.sleep(0.005)
        done = time.monotonic()
        worker.stop()
        return started["honest1.0.0"] - queued, done - queued


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--build-s", type=float, default=2.0)
    args = parser.parse_args()
    for label, slots, fair in (("fair, 2 slots (the server's)", 2, True),
                               ("fair, 1 slot", 1, True),
                               ("upload order, 1 slot (before)", 1, False)):
        start, verdict = measure(slots, fair, args.build_s)
        print(f"{label}: bob's version started after {start:.3f} s, active after "
              f"{verdict:.3f} s (ann's builds: 5 x {args.build_s:g} s)")


if __name__ == "__main__":
    main()
