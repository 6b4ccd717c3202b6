"""A whole-process sampling profiler for the benchmarks (stdlib only; cProfile sees
one thread, the server's work is spread over many): every ``interval`` seconds it
reads every thread's stack and counts, per function, the samples where it runs
(self) and where it is on the stack (inclusive). Threads blocked in a known wait are
left out, so the counts are where the process spends its CPU (roughly: a thread in
C code holding no lock still counts)."""

from __future__ import annotations

import collections
import sys
import threading
import time
from pathlib import Path
from types import FrameType

IDLE = {"wait", "get", "select", "_wait_once", "poll", "accept", "recv_into", "_recv",
        "sleep", "_worker", "readinto", "recv", "_next", "_poll_loop"}


def _name(frame: FrameType) -> str:
    code = frame.f_code
    return f"{Path(code.co_filename).name}:{code.co_firstlineno}:{code.co_name}"


class Sampler:
    def __init__(self, interval: float = 0.02) -> None:
        self.interval = interval
        self.own: collections.Counter[str] = collections.Counter()
        self.inclusive: collections.Counter[str] = collections.Counter()
        self.samples = 0
        self.cpu_s = 0.0  # the sampler's own CPU, to subtract from the process's
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> None:
        self._thread.start()

    def _run(self) -> None:
        me = threading.get_ident()
        while not self._stop.is_set():
            for ident, frame in sys._current_frames().items():
                if ident == me or frame.f_code.co_name in IDLE:
                    continue
                self.samples += 1
                self.own[_name(frame)] += 1
                seen: set[str] = set()
                walk: FrameType | None = frame
                while walk is not None:
                    seen.add(_name(walk))
                    walk = walk.f_back
                self.inclusive.update(seen)
            time.sleep(self.interval)
        self.cpu_s = time.thread_time()

    def stop(self, path: Path, top: int = 60) -> None:
        self._stop.set()
        self._thread.join()
        lines = [f"{self.samples} busy thread samples; the sampler's CPU {self.cpu_s:.1f} s"]
        for title, counter in (("self", self.own), ("inclusive", self.inclusive)):
            lines.append(f"== {title}")
            lines += [f"{count:7d} {count / max(1, self.samples):6.1%} {name}"
                      for name, count in counter.most_common(top)]
        path.write_text("\n".join(lines) + "\n")
