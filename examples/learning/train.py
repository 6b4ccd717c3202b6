"""Train the worked example's policy and measure it against ``random``.

    python -m examples.learning.train                   # full size: a few minutes
    python -m examples.learning.train --series 40 --epochs 6 --evaluate 20   # a quick try
    python -m examples.learning.train --decisions out/decisions.jsonl --bot greedy

Without ``--decisions`` the demonstrations are played here (``greedy_policy`` against
itself and ``random``); with it, they are the stored decisions of the named bot from
``arena export --decisions``. The weights go to ``--out`` (by default the example bot's
``examples/learning/learned_bot/weights.json``, git-ignored: generated, not source),
then the trained policy plays ``--evaluate`` series against ``random_policy`` on fixed
seeds, and the result and the time spent (CPU seconds) are printed.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from engine import DEFAULT_MAX_HANDS, FRIENDLY, Series
from examples.learning.data import Demonstrations, play_demonstrations, read_decisions
from examples.learning.mlp import Network, NetworkPolicy, train
from hollywood_env import Policy, greedy_policy, random_policy

BOT_FOLDER = Path(__file__).resolve().parent / "learned_bot"
EVALUATION_SEED = 900_000
"""Far from the training deals' seeds (0 up), so the match is on unseen deals."""


MAX_DECISIONS = 20_000
"""A series still unfinished after this many decisions is cut off: the engine has no
turn limit, and two policies that both always take the discard never empty the stock."""


@dataclass(frozen=True)
class MatchResult:
    wins: int
    losses: int
    draws: int
    unfinished: int = 0

    @property
    def series(self) -> int:
        return self.wins + self.losses + self.draws + self.unfinished


def match(policy: Policy, opponent: Policy, series_count: int,
          seed: int = EVALUATION_SEED, max_hands: int = DEFAULT_MAX_HANDS) -> MatchResult:
    """``policy`` against ``opponent`` over ``series_count`` series, seeds ``seed`` up,
    each deal played twice with the seats swapped (so neither is luckier)."""
    wins = losses = draws = unfinished = 0
    for number in range(series_count):
        mine = number % 2
        series = Series(seed + number // 2, FRIENDLY, max_hands=max_hands)
        for _ in range(MAX_DECISIONS):
            seat = series.current_player
            if seat is None:
                break
            chooser = policy if seat == mine else opponent
            series.apply(chooser(series.observation(seat), series.legal_actions()))
        winner = series.result.winner if series.result is not None else None
        if series.result is None:
            unfinished += 1
        elif winner is None:
            draws += 1
        elif winner == mine:
            wins += 1
        else:
            losses += 1
    return MatchResult(wins, losses, draws, unfinished)


def agreement(network: Network, demonstrations: Demonstrations) -> float:
    """The share of the demonstrated decisions the network makes the same way."""
    features, masks, targets = demonstrations.arrays()
    chosen = network.logits(features, masks).argmax(axis=1)
    return float((chosen == targets).mean()) if len(targets) else 0.0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m examples.learning.train",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--series", type=int, default=600,
                        help="series of demonstrations to play (without --decisions)")
    parser.add_argument("--decisions", type=Path,
                        help="an exported decisions.jsonl to imitate instead")
    parser.add_argument("--bot", default="greedy",
                        help="with --decisions: imitate the bots whose name starts so")
    parser.add_argument("--hidden", type=int, default=64, help="hidden units")
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--evaluate", type=int, default=100,
                        help="series against random after training (0: none)")
    parser.add_argument("--out", type=Path, default=BOT_FOLDER / "weights.json")
    args = parser.parse_args(argv)
    started = time.process_time()
    if args.decisions is not None:
        demonstrations = read_decisions(args.decisions, args.bot)
    else:
        demonstrations = play_demonstrations(args.series, args.seed, greedy_policy)
    features, masks, targets = demonstrations.arrays()
    if not len(targets):
        print("no decisions to learn from", file=sys.stderr)
        return 1
    played = time.process_time()
    network = Network.initial(args.hidden, args.seed)
    losses = train(network, features, masks, targets, epochs=args.epochs, seed=args.seed)
    trained = time.process_time()
    network.save(args.out)
    print(f"{len(targets)} decisions in {played - started:.1f} CPU s; {args.epochs} epochs "
          f"in {trained - played:.1f} CPU s, loss {losses[0]:.3f} -> {losses[-1]:.3f}; "
          f"weights in {args.out}")
    if args.evaluate:
        unseen = play_demonstrations(args.evaluate, EVALUATION_SEED, greedy_policy)
        print(f"the same decision as greedy on unseen deals: {agreement(network, unseen):.1%}")
        result = match(NetworkPolicy(network), random_policy(args.seed), args.evaluate)
        print(f"against random over {result.series} series: {result.wins} won, "
              f"{result.losses} lost, {result.draws} drawn, {result.unfinished} cut off "
              f"({time.process_time() - trained:.1f} CPU s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
