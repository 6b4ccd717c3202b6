"""Peak memory of the arena server during hostile uploads (plain script; `make
bench` runs it; no Docker): each class of tests/helpers/upload_memory.py's ``HOSTILE``
alone, then all at once, each beside an upload that stalls; prints the peak
resident size over the server's size at rest, next to the bound docs/arena.md
states (64 MiB).

Options: --runs N (1): runs of the all-at-once reading (its maximum is printed);
--tiny: only that reading (that it runs, for tests/project/).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repo root, for tests.*

from tests.helpers.upload_memory import HOSTILE, measure_hostile_uploads

BOUND_MIB = 64


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--tiny", action="store_true",
                        help="all at once only, not each class alone: that it runs")
    args = parser.parse_args()
    for name in () if args.tiny else HOSTILE:
        with tempfile.TemporaryDirectory() as root:
            reading = measure_hostile_uploads(Path(root), (name,))
        print(f"{name}: peak {reading.over_idle_mib:.1f} MiB over idle "
              f"({reading.idle_kib / 1024:.0f} MiB); outcomes {reading.outcomes}")
    peaks = []
    for run in range(args.runs):
        with tempfile.TemporaryDirectory() as root:
            reading = measure_hostile_uploads(Path(root))
        peaks.append(reading.over_idle_mib)
        print(f"all at once, run {run + 1}: peak {reading.over_idle_mib:.1f} MiB over idle; "
              f"outcomes {reading.outcomes}")
    print(f"upload memory: peak {max(peaks):.1f} MiB over idle, all classes at once "
          f"(bound {BOUND_MIB} MiB)")


if __name__ == "__main__":
    main()
