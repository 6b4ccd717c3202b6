"""Every benchmark of ``make bench`` runs to its end at a tiny size, so a broken
benchmark fails ``make test`` (issue 42: the big-league benchmark had stopped
playing and nothing noticed). Each script gets sizes that make it quick; what it
prints is not checked (speed belongs to ``make bench``, never to a test), only
that it ends with status 0. A benchmark that needs Docker or a cluster carries
that marker; the longer ones are ``slow``. A new benchmark must be given its
tiny arguments here (``test_every_benchmark_has_tiny_arguments``)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "tests" / "bench"
DOCKER = (pytest.mark.docker, pytest.mark.slow)
HANG_S = 1800
"""Only a hung benchmark is stopped: far beyond any tiny run, even at load 40."""

TINY: dict[str, tuple[list[str], tuple[pytest.MarkDecorator, ...]]] = {
    # the fast ones: a few seconds each on an idle machine
    "deadwood": (["1", "1"], ()),
    "env": (["--tiny"], ()),
    "play": (["--tiny"], ()),
    "sprt_gate": (["--runs", "3", "--unlimited-runs", "3"], ()),
    "statistics": (["--runs", "2"], ()),
    "thousand": (["--tiny"], ()),
    "ladder": (["--bots", "4", "--rounds", "3", "--arrive", "2", "--newcomers", "1"], ()),
    "upload": (["--runs", "1", "--mib", "0.2"], ()),
    # bots in processes, servers, a browser's worth of clients: longer
    "big_season": (["--bots", "4", "--also", "", "--watchers", "1", "--largest", "0",
                    "--recorders", "1"], (pytest.mark.slow,)),
    "inprocess": (["--series", "1", "--grpc-series", "1", "--calls", "20"],
                  (pytest.mark.slow,)),
    "live_moves": (["2", "2"], (pytest.mark.slow,)),
    "metrics": (["--bots", "2", "--series", "1", "--scrapes", "3"], (pytest.mark.slow,)),
    "protocol": (["--tiny"], (pytest.mark.slow,)),
    "seat_logs": (["--series", "1"], (pytest.mark.slow,)),
    "season_run": (["--series", "2", "--rounds", "1", "--max-hands", "2"], (pytest.mark.slow,)),
    "shark_strength": (["--pairs", "1", "--workers", "1"], (pytest.mark.slow,)),
    "submit_to_active": (["--runs", "1", "--sandbox", "process"], (pytest.mark.slow,)),
    "upload_memory": (["--runs", "1", "--tiny"], (pytest.mark.slow,)),
    "verify": (["1"], (pytest.mark.slow,)),
    "vetting_series": (["--repeats", "1", "--bots", "random"], (pytest.mark.slow,)),
    "web": (["2", "--tiny"], (pytest.mark.slow,)),
    # Docker (and a cluster)
    "cluster": (["--series-per-pair", "1", "--rounds", "1", "--concurrency", "1"],
                (*DOCKER, pytest.mark.cluster)),
    "deploy": (["--runs", "1", "--skip-compose"], DOCKER),
    "sandbox": (["--season-only", "--series-per-pair", "1", "--long-series-per-pair", "0"],
                DOCKER),
    "season": (["--series-per-pair", "1", "--max-hands", "2", "--concurrency", "1"], DOCKER),
    "league": (["--series-per-pair", "1", "--max-hands", "2"], DOCKER),
    "vetting_fairness": (["--build-s", "0.1"], DOCKER),
}


def test_every_benchmark_has_tiny_arguments() -> None:
    found = {path.stem.removeprefix("bench_") for path in BENCH.glob("bench_*.py")}
    assert found == set(TINY), ("give each benchmark its tiny arguments here: "
                                f"missing {sorted(found - set(TINY))}, "
                                f"gone {sorted(set(TINY) - found)}")


@pytest.mark.parametrize("name", [pytest.param(name, marks=marks, id=name)
                                  for name, (_, marks) in TINY.items()])
def test_the_benchmark_runs_at_a_tiny_size(name: str) -> None:
    arguments, _ = TINY[name]
    done = subprocess.run([sys.executable, str(BENCH / f"bench_{name}.py"), *arguments],
                          cwd=ROOT, capture_output=True, text=True, timeout=HANG_S)
    assert done.returncode == 0, f"bench_{name}.py {' '.join(arguments)} ended with " \
        f"{done.returncode}:\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
