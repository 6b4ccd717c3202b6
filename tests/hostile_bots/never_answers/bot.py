"""Never answers: every Decide blocks forever (TIMEOUT after deadline + reserve)."""

import threading

import hollywood_sdk as hs


class NeverAnswers(hs.Bot):
    def decide(self, observation: hs.Observation) -> hs.Action:
        threading.Event().wait()
        raise AssertionError("unreachable")


if __name__ == "__main__":
    hs.serve(NeverAnswers())
