"""How long vetting takes per bot: the validation of before (the handshake, then a
two-hand series) against today's (the handshake, then a whole series within the
vetting time budget), interleaved so that load moves both alike (plain script;
`make bench` runs it; no Docker: ``--sandbox process`` by default).

Each sample bot named is validated ``--repeats`` times each way against the sample
``random`` bot (the opponent when no version is active); printed: the median and
the slowest seconds per validation, and the hands the whole series played.
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from figures import report  # noqa: E402

from arena.core.series import BotRef  # noqa: E402
from arena.match.validation import VALIDATION_HANDS, VETTING_BUDGET_S, validate_bot  # noqa: E402
from arena.sandbox import registry as sandbox_registry  # noqa: E402

BEFORE_HANDS = 2
"""The validation series of before issue 36, point 7."""
_PLAYED = re.compile(r"passed: (\d+) hand")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sandbox", default="process")
    parser.add_argument("--bots", default="greedy,shark,random")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    sandbox = sandbox_registry.create(args.sandbox)
    try:
        for name in [name.strip() for name in args.bots.split(",") if name.strip()]:
            bot = BotRef.from_folder(ROOT / "sample_bots" / name)
            times: dict[int, list[float]] = {BEFORE_HANDS: [], VALIDATION_HANDS: []}
            hands: list[str] = []
            for _ in range(args.repeats):
                for cap in (BEFORE_HANDS, VALIDATION_HANDS):
                    begun = time.perf_counter()
                    result = validate_bot(bot, sandbox, hands=cap)
                    times[cap].append(time.perf_counter() - begun)
                    assert result.passed, result.log
                    if cap == VALIDATION_HANDS:
                        played = _PLAYED.search(result.lines[-1])
                        hands.append(played[1] if played else "budget")
            for cap, label in ((BEFORE_HANDS, "two hands (before)"),
                               (VALIDATION_HANDS, "whole series (now)")):
                print(f"{name}, {args.sandbox} sandbox, {label}: median "
                      f"{statistics.median(times[cap]):.2f} s, slowest {max(times[cap]):.2f} s")
            print(f"{name}: the whole series played {', '.join(hands)} hand(s) "
                  f"(budget {VETTING_BUDGET_S:g} s)")
            report(f"vetting time of {name} ({args.sandbox}, whole series)",
                   statistics.median(times[VALIDATION_HANDS]), VETTING_BUDGET_S, unit="s")
    finally:
        close = getattr(sandbox, "close", None)
        if callable(close):
            close()


if __name__ == "__main__":
    main()
