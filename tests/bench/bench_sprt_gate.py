"""SPRT gate benchmark (plain script; `make bench` runs it). No Docker needed.

The ladder's gate at its default settings (`--gate-sprt elo0=0,elo1=20,alpha=0.05,
beta=0.05`, `--gate-max-pairs 200`), measured by simulation against its configured
error rates (tests/helpers/sprt_gate_simulation.py: duplicate pairs of independent
series, a tenth drawn, the test read after every pair as the gate does):

1. false acceptance: the share of matches accepting H1 when the new version is
   exactly as strong as the old (true Elo = elo0), target <= alpha;
2. false rejection: the share accepting H0 when it is elo1 stronger (true Elo =
   elo1), target <= beta;
3. the same two without the pair limit (the SPRT the bounds are computed for), and
   how often the gate decides at all within its limit.

Options: --runs N (1000, at the gate's limit), --unlimited-runs N (500), --seed N (1).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from figures import report  # noqa: E402

from tests.helpers.sprt_gate_simulation import GateRates, default_gate, gate_rates  # noqa: E402

UNLIMITED_PAIRS = 100_000


def line(rates: GateRates, seconds: float) -> str:
    return (f"true Elo {rates.elo:+.0f}, {rates.runs} matches: H1 "
            f"{100 * rates.accepted:.1f} %, H0 {100 * rates.rejected:.1f} %, inconclusive "
            f"{100 * rates.inconclusive:.1f} %, {rates.mean_pairs:.0f} pairs on average "
            f"({seconds:.1f} s)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--unlimited-runs", type=int, default=500)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    spec, max_pairs = default_gate()
    for limit, runs, label in ((max_pairs, args.runs, f"at most {max_pairs} pairs"),
                               (UNLIMITED_PAIRS, args.unlimited_runs, "no pair limit")):
        measured = {}
        for offset, elo in enumerate((spec.elo0, spec.elo1)):
            started = time.perf_counter()
            measured[elo] = gate_rates(spec, limit, elo, runs, args.seed + offset)
            print(f"gate {spec.text()}, {label}: "
                  f"{line(measured[elo], time.perf_counter() - started)}", flush=True)
        conditions = f"{runs} simulated matches each, 10 % of series drawn"
        report(f"SPRT gate false acceptance ({label})", 100 * measured[spec.elo0].accepted,
               100 * spec.alpha, unit="%", conditions=conditions)
        report(f"SPRT gate false rejection ({label})", 100 * measured[spec.elo1].rejected,
               100 * spec.beta, unit="%", conditions=conditions)


if __name__ == "__main__":
    main()
