"""Every benchmark of ``make bench`` still loads: its imports resolve as the script
sets its path up (a benchmark is run by hand or by ``tests/bench/summary.py``, never
by pytest, so nothing else would notice a helper renamed or a package shadowed).
Each is loaded in a process of its own under another ``__name__``, so its ``main``
does not run."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BENCHMARKS = sorted((ROOT / "tests" / "bench").glob("bench_*.py"))
LOAD = ("import os, runpy, sys; sys.path.insert(0, os.path.dirname(sys.argv[1])); "
        "runpy.run_path(sys.argv[1], run_name='loaded_by_a_test')")
"""As Python loads a script it is given (the script's folder first on the path)."""

pytestmark = pytest.mark.slow


def test_the_benchmarks_are_found() -> None:
    assert len(BENCHMARKS) >= 15, BENCHMARKS


@pytest.mark.parametrize("script", BENCHMARKS, ids=lambda path: path.name)
def test_the_benchmark_loads(script: Path) -> None:
    done = subprocess.run([sys.executable, "-c", LOAD, str(script)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
