"""Statistics benchmark (plain script; `make bench` runs it). No Docker needed.

1. SPRT (elo0=0, elo1=10, alpha=beta=0.05, fishtest's usual bounds): the average
   number of duplicate pairs to a decision for a synthetic +30 Elo and a 0 Elo
   difference (each series won with the logistic probability of the difference,
   a tenth drawn), over --runs seeded matches, with the share of each decision.
2. Bradley-Terry: the fit of a 100-bot season of 9,900 series (every ordered
   pair once), target <= 1 s; and the likelihood-of-superiority matrix on top.

Options: --runs N (40), --seed N (1).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from arena.season.statistics.bradley_terry import PairResult, fit  # noqa: E402
from arena.season.statistics.pentanomial import (  # noqa: E402
    SprtSpec,
    logistic_score,
    pair_index,
    sprt_state,
)

BT_TARGET_S = 1.0


def sprt_match(spec: SprtSpec, elo: float, rng: random.Random) -> tuple[str, int]:
    p_win = logistic_score(elo)
    counts = [0] * 5
    for pairs in range(1, 100_000):
        scores = [0.5 if rng.random() < 0.1 else 1.0 if rng.random() < p_win else 0.0
                  for _ in range(2)]
        counts[pair_index(scores[0], scores[1])] += 1
        decision = sprt_state(spec, counts).decision
        if decision:
            return decision, pairs
    return "", 100_000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    spec = SprtSpec(0, 10, 0.05, 0.05)
    rng = random.Random(args.seed)
    for elo in (30.0, 0.0):
        started = time.perf_counter()
        outcomes = [sprt_match(spec, elo, rng) for _ in range(args.runs)]
        seconds = time.perf_counter() - started
        mean = sum(pairs for _, pairs in outcomes) / len(outcomes)
        h1 = sum(decision == "H1" for decision, _ in outcomes) / len(outcomes)
        print(f"SPRT {spec.text()}, true Elo {elo:+.0f}: {mean:.0f} pairs to a decision on "
              f"average over {args.runs} runs ({100 * h1:.0f} % H1; {seconds:.1f} s)")
    bots = [f"bot{i:03d}" for i in range(100)]
    truth = {bot: 4.0 * i for i, bot in enumerate(bots)}
    results = [PairResult(a, b, 1.0 if rng.random() < logistic_score(truth[a] - truth[b])
                          else 0.0) for a in bots for b in bots if a != b]
    started = time.perf_counter()
    rating = fit(bots, results)
    fitted = time.perf_counter() - started
    matrix = {a: {b: rating.los(a, b) for b in bots if b != a} for a in bots}
    with_los = time.perf_counter() - started
    print(f"Bradley-Terry fit, {len(bots)} bots, {len(results)} series: {fitted:.2f} s "
          f"(target <= {BT_TARGET_S:g} s: {'met' if fitted <= BT_TARGET_S else 'MISSED'}); "
          f"with the {len(matrix) * (len(bots) - 1)}-cell LOS matrix {with_los:.2f} s")


if __name__ == "__main__":
    main()
