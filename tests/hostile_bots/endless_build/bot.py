"""Never runs: its image must not be built (see its Dockerfile)."""

import hollywood_sdk as hs


class NeverBuilt(hs.Bot):
    def decide(self, observation: hs.Observation) -> hs.Action:
        return observation.legal_actions[0]


if __name__ == "__main__":
    hs.serve(NeverBuilt())
