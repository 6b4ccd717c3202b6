"""Every benchmark with an anchor or a target in one run, then one table of its figures
(``make bench``; not a benchmark itself, hence no ``bench_`` prefix).

Runs the benchmarks one after another with this interpreter, shows their output as
it comes, collects the figures they report (``tests/bench/figures.py``: a
``FIGURE {...}`` line each) and ends with the table ``figure | measured | target |
met?`` and, for each figure, the machine's conditions while its benchmark ran: the
1-minute load average (lowest-highest of samples taken every second) and the share
of CPU time the host's hypervisor stole (``/proc/stat``), so that a figure is
never quoted without its load. A ratio is measured with both of its sides
interleaved in the same run (each benchmark says how), so load moves both sides
alike; absolute times are only comparable at the same load.

``python tests/bench/summary.py`` runs the benchmarks with anchors (``ANCHORED``);
``--all`` every ``bench_*.py`` (the others print their figures for people, and any
figure they report joins the table); ``--only deadwood,protocol`` a selection by
name; ``--no-docker`` leaves out the ones that need Docker. Exit status 1 if a
benchmark failed (a missed target is a figure, not a failure).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from figures import Figure, parse

HERE = Path(__file__).resolve().parent
ANCHORED: tuple[str, ...] = ("deadwood", "env", "inprocess", "season_run", "protocol",
                             "sprt_gate", "metrics", "thousand", "season", "sandbox",
                             "league")
"""The benchmarks whose figures have anchors or targets (issue 29; the SPRT gate's
error rates, issue 44; the learning environment's speed, issue 39; a metrics
scrape's cost, issue 40; a season as `arena season run` plays it and a league's
kept containers, issue 41; a thousand bots, issue 42), in run order: the short,
Docker-free ones first."""
NEEDS_DOCKER: frozenset[str] = frozenset({"season", "sandbox", "cluster", "vetting_fairness",
                                          "shark_strength", "deploy", "league"})


SEASON_SHARE_TARGET = 15.0
"""Arena share of a 4-bot Docker season's wall time with reused containers (issue 29)."""
_SEASON_SHARE = re.compile(r"docker season arena share, (?P<kind>[\w-]+(?:, kept)?): "
                           r"(?P<share>[\d.]+) % of season wall")


def printed_figure(line: str) -> Figure | None:
    """A figure a benchmark prints only in words: ``bench_sandbox.py``'s Docker season
    shares (fresh containers, the warm pool, reused containers, and reused ones kept
    from the season before; the target is for both ways of reuse), read from their
    text."""
    found = _SEASON_SHARE.match(line)
    if found is None:
        return None
    kind = found["kind"]
    return Figure(f"Docker season arena share of wall time ({kind})", float(found["share"]),
                  SEASON_SHARE_TARGET if kind.startswith("reuse") else None, unit="%")


def cpu_times() -> list[int]:
    """The machine's CPU times (user, nice, system, idle, iowait, irq, softirq, steal)."""
    with open("/proc/stat") as stat:
        return [int(value) for value in stat.readline().split()[1:9]]


@dataclass
class Conditions:
    """The load and steal over one benchmark's run."""

    loads: list[float] = field(default_factory=list)
    steal: float = 0.0
    seconds: float = 0.0

    def text(self) -> str:
        if not self.loads:
            return "-"
        return (f"load {min(self.loads):.1f}-{max(self.loads):.1f}, steal {self.steal:.0%}, "
                f"{self.seconds:.0f} s")


@dataclass
class Run:
    name: str
    figures: list[Figure]
    conditions: Conditions
    status: int


def run(name: str) -> Run:
    """Run ``bench_<name>.py``, echoing its output, sampling the load every second."""
    script = HERE / f"bench_{name}.py"
    print(f"== {script.relative_to(HERE.parents[1])}", flush=True)
    conditions = Conditions(loads=[os.getloadavg()[0]])
    done = threading.Event()

    def sample() -> None:
        while not done.wait(1.0):
            conditions.loads.append(os.getloadavg()[0])

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    before, begun = cpu_times(), time.monotonic()
    figures: list[Figure] = []
    with subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True,
                          cwd=HERE.parents[1]) as process:
        assert process.stdout is not None
        for line in process.stdout:
            print(line, end="", flush=True)
            figure = parse(line) or printed_figure(line)
            if figure is not None:
                figures.append(figure)
    done.set()
    sampler.join()
    spent = [after - first for first, after in zip(before, cpu_times(), strict=True)]
    conditions.steal = spent[7] / max(1, sum(spent))
    conditions.seconds = time.monotonic() - begun
    conditions.loads.append(os.getloadavg()[0])
    return Run(name, figures, conditions, process.returncode)


def number(value: float | None, unit: str) -> str:
    if value is None:
        return "-"
    if unit == "x":
        return f"{value:.2f}x"
    if unit == "%":
        return f"{value:.1f} %"
    return f"{value:.3g} {unit}"


def table(runs: list[Run]) -> list[str]:
    """The summary: one row per figure, then one per benchmark that failed."""
    rows = [("figure", "measured", "target", "met?", "conditions")]
    for done in runs:
        for figure in done.figures:
            target = ("" if figure.target is None else "<= " if figure.at_most else ">= ") + \
                number(figure.target, figure.unit)
            met = {True: "yes", False: "NO", None: "-"}[figure.met]
            where = done.conditions.text() + (f"; {figure.conditions}" if figure.conditions
                                              else "")
            rows.append((figure.name, number(figure.measured, figure.unit), target, met, where))
        if done.status != 0:
            rows.append((f"bench_{done.name}.py", "FAILED", "", "", f"exit {done.status}"))
    widths = [max(len(row[column]) for row in rows) for column in range(4)]
    lines = []
    for index, row in enumerate(rows):
        lines.append(" | ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=False))
                     + " | " + row[4])
        if index == 0:
            lines.append("-+-".join("-" * width for width in widths) + "-+-" + "-" * 10)
    return lines


def chosen(options: argparse.Namespace) -> list[str]:
    if options.only:
        names = [name.strip() for name in options.only.split(",") if name.strip()]
        unknown = [name for name in names if not (HERE / f"bench_{name}.py").exists()]
        if unknown:
            raise SystemExit(f"no benchmark named {', '.join(unknown)} in {HERE}")
    elif options.all:
        others = sorted(path.stem.removeprefix("bench_") for path in HERE.glob("bench_*.py"))
        names = [*ANCHORED, *(name for name in others if name not in ANCHORED)]
    else:
        names = list(ANCHORED)
    return [name for name in names if not (options.no_docker and name in NEEDS_DOCKER)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--all", action="store_true", help="every bench_*.py, not only "
                        "the anchored ones")
    parser.add_argument("--only", default="", help="comma-separated names, e.g. deadwood,season")
    parser.add_argument("--no-docker", action="store_true",
                        help="leave out the benchmarks that need Docker")
    options = parser.parse_args()
    runs = [run(name) for name in chosen(options)]
    print(f"\n== summary: {os.cpu_count()} cores, Python {sys.version.split()[0]}, "
          f"{time.strftime('%Y-%m-%d %H:%M %Z')}; targets from issue 29")
    for line in table(runs):
        print(line)
    return 0 if all(done.status == 0 for done in runs) else 1


if __name__ == "__main__":
    sys.exit(main())
