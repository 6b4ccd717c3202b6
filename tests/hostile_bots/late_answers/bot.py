"""Answers every decision 0.15 s after the deadline: each answer draws from the
series reserve until none is left (TIMEOUT a few decisions in)."""

import time

import hollywood_sdk as hs


class LateAnswers(hs.Bot):
    def decide(self, observation: hs.Observation) -> hs.Action:
        time.sleep(observation.deadline_ms / 1000 + 0.15)
        return observation.legal_actions[0]


if __name__ == "__main__":
    hs.serve(LateAnswers())
