"""At its first decision, spins the CPU in four processes and never answers
(TIMEOUT). The container's CPU limit keeps the arena and the opponent responsive."""

import os

import hollywood_sdk as hs


def spin() -> None:
    while True:
        pass


class CpuSpinner(hs.Bot):
    def decide(self, observation: hs.Observation) -> hs.Action:
        for _ in range(3):
            if os.fork() == 0:
                spin()
        spin()
        raise AssertionError("unreachable")


if __name__ == "__main__":
    hs.serve(CpuSpinner())
