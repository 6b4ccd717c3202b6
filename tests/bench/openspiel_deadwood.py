"""OpenSpiel's C++ gin rummy utilities timed on hands given on stdin (the anchor of
``bench_deadwood.py``; not a benchmark of its own, hence no ``bench_`` prefix).

Runs under the benchmark's own environment (``.bench-venv``, with ``open-spiel``
from PyPI), never the project's. Its first line of input is one JSON object
``{"label": [[card, ...], ...], ...}`` (card = ``suit * 13 + rank - 1``, the
engine's index, which is also OpenSpiel's card number); then each line
``label start stop`` asks it to time the hands ``start:stop`` of that sample, and
it answers with the nanoseconds spent, one line each, so the benchmark can
interleave short runs of the engine and of OpenSpiel. A line may name several
ranges (``label start stop start stop``): they are timed back to back, with no wait
on the pipe between them, and answered on one line (``bench_deadwood.py`` times a
chunk straight after the engine's turn, then the next chunk after that one's 100
calls, exactly as it does on the engine's side).

For 10 cards it times ``GinRummyUtils.min_deadwood(hand)``; for 11 cards the same
call, which in OpenSpiel is the deadwood after its discard (it finds a best meld
group, then drops the highest unmelded card): its counterpart of ``best_discards``.
"""

from __future__ import annotations

import gc
import json
import sys
import time


def main() -> None:
    import pyspiel  # type: ignore[import-not-found]  # only in .bench-venv

    min_deadwood = pyspiel.gin_rummy.GinRummyUtils(13, 4, 10).min_deadwood
    samples: dict[str, list[list[int]]] = json.loads(sys.stdin.readline())
    for line in sys.stdin:
        label, *bounds = line.split()
        chunks = [samples[label][int(start):int(stop)]
                  for start, stop in zip(bounds[::2], bounds[1::2], strict=True)]
        spent = []
        gc.disable()  # as the engine's side does
        for hands in chunks:
            began = time.perf_counter_ns()
            for hand in hands:
                min_deadwood(hand)
            spent.append(time.perf_counter_ns() - began)
        gc.enable()
        print(*spent, flush=True)


if __name__ == "__main__":
    main()
