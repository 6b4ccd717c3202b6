"""Plays legally for three decisions, then the process dies with exit code 7
in the middle of the fourth (CRASH)."""

import os
import sys

import hollywood_sdk as hs


class CrashesMidSeries(hs.Bot):
    decisions = 0

    def decide(self, observation: hs.Observation) -> hs.Action:
        self.decisions += 1
        if self.decisions == 4:
            print("crashes-mid-series: dying now", file=sys.stderr, flush=True)
            os._exit(7)
        return observation.legal_actions[0]


if __name__ == "__main__":
    hs.serve(CrashesMidSeries())
