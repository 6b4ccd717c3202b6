"""Spins alone: at its first decision, one thread spins forever and never answers.
On a free core it is charged once its running time passes its limit; starved of
cores (tests/arena/match/test_starved_real.py) it never gets that far, and the series is void."""

import hollywood_sdk as hs


class SpinsAlone(hs.Bot):
    def decide(self, observation: hs.Observation) -> hs.Action:
        while True:
            pass


if __name__ == "__main__":
    hs.serve(SpinsAlone())
